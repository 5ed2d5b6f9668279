"""Mutation fuzz of the BEF tools: a malformed file never ends in a traceback.

Seed programs (the runtime tests' ``.mlir`` files and a 12-function program
with calls, branches, async kernels and streams, each compiled with and
without the optional sections) are mutated (truncated, bits flipped, spans
inserted, deleted or overwritten, column words set to extreme values) and
every mutated file goes through ``bef_executor FILE`` and ``tfrt_translate
-bef-to-mlir FILE``.  Each run must end with exit status 0 or 1, print no
Python traceback and no internal error, stop within its time limit and not
die of a signal; a file the reader rejects must be reported as
``invalid BEF file`` naming the section and the offset (and, for a function
body, the function).

    python tests/bef/bef_fuzz.py --files 5000             # in process, both tools
    python tests/bef/bef_fuzz.py --files 300 --subprocess  # the console scripts, one process each

It prints the counts (files, runs, tracebacks, internal errors, signals,
hangs, and how many files each tool rejected or ran) and exits 1 when any
run failed, listing the first failures with the seed that reproduces them
(``--replay SEED:INDEX`` writes that file).  ``tests/bef/test_bef_fuzz.py``
runs a few hundred mutations in process; its ``slow`` test runs 5,000.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
SEED_FILES = [
    TESTS / "runtime" / "mlir" / "executor_basics.mlir",
    TESTS / "runtime" / "mlir" / "control_flow.mlir",
    TESTS / "runtime" / "mlir" / "side_effect_order.mlir",
    TESTS / "bef" / "translate_roundtrip.mlir",  # an unknown kernel: the load error path
]


def twelve_functions() -> str:
    """Calls, a region, async kernels and work on several streams in 12 functions."""
    out = []
    for i in range(9):
        out.append(
            f"func.func @f{i}(%x: i32) -> i32 {{\n"
            f"  %c = tfrt.constant.i32 {i + 1}\n"
            f"  %y = tfrt.add.i32 %x, %c\n"
            f"  %z = \"tfrt_test.async_add.i32\"(%y, %c) : (i32, i32) -> i32\n"
            f"  tfrt.return %z : i32\n}}\n"
        )
    calls = "\n".join(f"  %r{i} = tfrt.call @f{i}(%r{i - 1}) : (i32) -> i32" for i in range(1, 9))
    out.append(
        "func.func @main() -> (i32, i32) {\n"
        "  %ch = tfrt.new.chain\n"
        "  %r0 = tfrt.constant.i32 3\n"
        f"{calls}\n"
        "  %one = tfrt.constant.i32 1\n"
        "  %small = \"tfrt.lessequal.i32\"(%r8, %one) : (i32, i32) -> i1\n"
        "  %b = tfrt.if %small, %r8 : (i32) -> i32 {\n"
        "    tfrt.return %r8 : i32\n"
        "  } else {\n"
        "    %two = tfrt.constant.i32 2\n"
        "    %m = tfrt.add.i32 %r8, %two\n"
        "    tfrt.return %m : i32\n"
        "  }\n"
        "  %side = tfrt.add.i32 %r0, %one\n"
        "  %ch1 = tfrt.print.i32 %side, %ch\n"
        "  %ch2 = tfrt.print.i32 %b, %ch1\n"
        "  tfrt.return %b, %side : i32, i32\n}\n"
        "func.func @sync_add(%a: i32, %b: i32) -> i32 attributes {tfrt.sync} {\n"
        "  %s = \"tfrt.add.i32\"(%a, %b) : (i32, i32) -> i32\n"
        "  tfrt.return %s : i32\n}\n"
    )
    return "".join(out)


def many_branches(blocks: int = 40) -> str:
    """More than 64 functions (the function index read with numpy): blocks
    of adds over two chains, a ``tfrt.if`` and an async add each."""
    lines = ["func.func @main() -> (i32, i32) {", "  %one = tfrt.constant.i32 1",
             "  %a0 = tfrt.constant.i32 0", "  %b0 = tfrt.constant.i32 0"]  # fmt: skip
    for i in range(1, blocks + 1):
        p = i - 1
        lines += [
            f"  %x{i} = tfrt.add.i32 %a{p}, %one",
            f"  %z{i} = tfrt.add.i32 %b{p}, %one",
            f'  %c{i} = "tfrt.lessequal.i32"(%x{i}, %z{i}) : (i32, i32) -> i1',
            f"  %d{i} = tfrt.if %c{i}, %x{i} : (i32) -> i32 {{",
            f"    tfrt.return %x{i} : i32",
            "  } else {",
            "    %k = tfrt.constant.i32 2",
            f"    %m = tfrt.add.i32 %x{i}, %k",
            "    tfrt.return %m : i32",
            "  }",
            f'  %a{i} = "tfrt_test.async_add.i32"(%d{i}, %one) : (i32, i32) -> i32',
            f"  %b{i} = tfrt.add.i32 %z{i}, %one",
        ]
    lines += [f"  tfrt.return %a{blocks}, %b{blocks} : i32, i32", "}"]
    return "\n".join(lines) + "\n"


def seed_programs() -> list[tuple[str, bytes]]:
    """(name, BEF bytes) of every seed, with and without the optional sections."""
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    sources = [(p.name, p.read_text(), str(p)) for p in SEED_FILES]
    # Without the recursive fib: a mutated constant makes it a valid program
    # that recurses for ever (n + c wraps around), which says nothing about
    # the file; the 12-function seed has calls and branches.
    # Without the loop either: a mutated count of 2^31 prints for ever.
    sources = [(n, _without(_without(t, "func.func @fib", "func.func @double"),
                            "// CHECK-LABEL: --- Running 'repeat_prints_in_order'", None), p)
               for n, t, p in sources]  # fmt: skip
    sources.append(("twelve_functions", twelve_functions(), "twelve_functions.mlir"))
    sources.append(("many_branches", many_branches(), "many_branches.mlir"))
    seeds = []
    for name, text, path in sources:
        module = parse_module(text, path, allow_unregistered=True)
        seeds.append((name, write_bef(module)))
        seeds.append((name + "/no-optional", write_bef(module, optional_sections=False)))
    return seeds


def _without(text: str, start: str, end: str | None) -> str:
    """``text`` less the span from ``start`` up to ``end`` (None: to the end)."""
    i = text.find(start)
    if i < 0:
        return text
    j = len(text) if end is None else text.find(end, i)
    return text[:i] + text[j:] if j >= 0 else text


def _section_payloads(data: bytes) -> list[tuple[int, int]]:
    from tfrt.bef import encoding as enc

    out, pos = [], 3
    while pos < len(data):
        length, pos = enc.decode_vbr(data, pos + 1, len(data))
        if length & 1:
            pos += 1 + enc.padding_for(pos + 1, data[pos])
        out.append((pos, pos + (length >> 1)))
        pos += length >> 1
    return out


_WORDS = [0, 1, 2, 3, 7, 0xFF, 0x100, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80006]


def mutate(data: bytes, rng: random.Random, sections: list[tuple[int, int]]) -> bytes:
    """One to three mutations of ``data``: truncation, bit flips, inserted,
    deleted or overwritten spans, or a 4-byte word of a section set to an
    extreme value (counts, widths, column entries)."""
    blob = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        n = len(blob)
        if n == 0:
            break
        kind = rng.choice(("truncate", "flip", "flip", "insert", "delete", "overwrite", "word", "word"))
        pos = rng.randrange(n)
        if kind == "truncate":
            del blob[pos:]
        elif kind == "flip":
            for _ in range(rng.choice((1, 1, 2, 4))):
                p = rng.randrange(len(blob))
                blob[p] ^= 1 << rng.randrange(8)
        elif kind == "insert":
            blob[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 24)))
        elif kind == "delete":
            del blob[pos : pos + rng.randint(1, 32)]
        elif kind == "overwrite":
            span = rng.randint(1, 16)
            blob[pos : pos + span] = bytes(rng.randrange(256) for _ in range(span))
        else:
            start, end = rng.choice([s for s in sections if s[1] - s[0] >= 4] or [(0, n)])
            at = min(max(start, (rng.randrange(start, end) & ~3)), max(0, len(blob) - 4))
            blob[at : at + 4] = rng.choice(_WORDS).to_bytes(4, "little")
    return bytes(blob)


def mutated_files(count: int, seed: int = 0, seeds: list[tuple[str, bytes]] | None = None):
    """Yield ``(label, bytes)`` for ``count`` mutated files, reproducibly:
    file ``i`` comes from ``random.Random(f"{seed}:{i}")``."""
    seeds = seeds or seed_programs()
    ranges = {name: _section_payloads(data) for name, data in seeds}
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")
        name, data = seeds[rng.randrange(len(seeds))]
        yield f"{seed}:{i} ({name})", mutate(data, rng, ranges[name])


# ---------------------------------------------------------------------------
# Running the tools.


@dataclass
class Outcome:
    tool: str
    status: int | None  # exit status; None: killed by a signal or hung
    stdout: str = ""
    stderr: str = ""
    signal: int | None = None
    hung: bool = False
    escaped: str | None = None  # an exception out of main() (in process)


class _Hang(BaseException):
    pass


_hung = [False]


def _alarm(_signum, _frame):
    _hung[0] = True  # whatever the tool does with the exception, the run hung
    raise _Hang


TOOLS = {
    "bef_executor": lambda path: [path],
    "tfrt_translate": lambda path: ["-bef-to-mlir", path, "-o", os.devnull],
}


def run_in_process(tool: str, path: str, timeout: float) -> Outcome:
    """Run ``tool``'s ``main()`` on ``path`` in this process, capturing its output."""
    if tool == "bef_executor":
        from tfrt.tools.bef_executor import main
    else:
        from tfrt.tools.tfrt_translate import main
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    outcome = Outcome(tool, None)
    _hung[0] = False
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            outcome.status = main(TOOLS[tool](path))
    except _Hang:
        outcome.hung = True
    except SystemExit as exc:
        outcome.status = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # noqa: BLE001 - what the fuzz is looking for
        outcome.escaped = f"{type(exc).__name__}: {exc}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    outcome.hung = outcome.hung or _hung[0]
    outcome.stdout, outcome.stderr = out.getvalue(), err.getvalue()
    return outcome


def run_subprocess(tool: str, path: str, timeout: float) -> Outcome:
    exe = str(Path(sys.executable).parent / tool)
    try:
        proc = subprocess.run([exe, *TOOLS[tool](path)], capture_output=True, text=True,
                              errors="replace", timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired:
        return Outcome(tool, None, hung=True)
    outcome = Outcome(tool, proc.returncode, proc.stdout, proc.stderr)
    if proc.returncode < 0:
        outcome.status, outcome.signal = None, -proc.returncode
    return outcome


# Words of the reader's messages about a function body, which must name the function.
_BODY_WORDS = {"kernel", "column", "register", "order", "body", "kernels", "widths"}


def problems(o: Outcome) -> list[str]:
    """What is wrong with one run (empty: nothing)."""
    found = []
    if o.hung:
        found.append("hang")
    if o.signal is not None:
        found.append(f"signal {o.signal}")
    if o.escaped is not None:
        found.append(f"traceback: {o.escaped}")
    if "Traceback (most recent call last)" in o.stderr or "Traceback (most recent call last)" in o.stdout:
        found.append("traceback in the output")
    if "internal error" in o.stderr:
        found.append("internal error")
    if o.status is not None and o.status not in (0, 1):
        found.append(f"exit status {o.status}")
    for line in o.stderr.splitlines():
        if "invalid BEF file" in line or ": error: BEF " in line:
            if " at offset " not in line:
                found.append(f"a format error without its offset: {line}")
            elif "Functions section" in line and "('" not in line and _BODY_WORDS.intersection(line.split()):
                found.append(f"a body error without its function: {line}")
    return found


@dataclass
class Totals:
    files: int = 0
    runs: int = 0
    tracebacks: int = 0
    internal: int = 0
    signals: int = 0
    hangs: int = 0
    other: int = 0
    long_valid: int = 0  # runs past the time limit of files that verify: valid programs
    rejected: dict = field(default_factory=lambda: {t: 0 for t in TOOLS})
    accepted: dict = field(default_factory=lambda: {t: 0 for t in TOOLS})
    failures: list = field(default_factory=list)

    def add(self, label: str, o: Outcome) -> None:
        self.runs += 1
        found = problems(o)
        if not found:
            if o.status == 0:
                self.accepted[o.tool] += 1
            elif "invalid BEF file" in o.stderr or ": error: BEF " in o.stderr:
                self.rejected[o.tool] += 1
            return
        joined = " ".join(found)
        if "traceback" in joined:
            self.tracebacks += 1
        elif "internal error" in joined:
            self.internal += 1
        elif "signal" in joined:
            self.signals += 1
        elif "hang" in joined:
            self.hangs += 1
        else:
            self.other += 1
        self.failures.append((label, o.tool, found, o.stderr[-600:]))

    @property
    def failed(self) -> int:
        return self.tracebacks + self.internal + self.signals + self.hangs + self.other

    def summary(self) -> str:
        parts = [
            f"{self.files} files, {self.runs} runs: {self.tracebacks} tracebacks, "
            f"{self.internal} internal errors, {self.signals} signals, {self.hangs} hangs, "
            f"{self.other} other failures",
            f"  {self.long_valid} runs of well-formed files past the time limit (valid programs that run long)",
        ]
        for t in TOOLS:
            parts.append(f"  {t}: {self.rejected[t]} rejected as invalid BEF, {self.accepted[t]} exit 0")
        return "\n".join(parts)


def _well_formed(data: bytes) -> bool:
    from tfrt.bef.reader import BEFFormatError, read_bef

    try:
        read_bef(data)  # everything checked
    except BEFFormatError:
        return False
    return True


def fuzz(count: int, seed: int = 0, *, subprocesses: bool = False, timeout: float = 20.0,
         tools: tuple[str, ...] = tuple(TOOLS), progress: bool = False) -> Totals:  # fmt: skip
    """Run ``count`` mutated files through ``tools``; returns the totals."""
    from tfrt.host_context import HostContext  # noqa: F401 - import the runtime before timing

    run = run_subprocess if subprocesses else run_in_process
    seeds = seed_programs()
    for tool in tools:  # import what the tools import before the freeze below
        run_in_process(tool, os.devnull, timeout)
    # bef_executor collects garbage once per run (its leak check): keep the
    # compiler's and the seeds' objects out of those collections.
    gc.collect()
    gc.freeze()
    totals = Totals()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mutated.bef")
        for label, data in mutated_files(count, seed, seeds):
            with open(path, "wb") as f:
                f.write(data)
            totals.files += 1
            for tool in tools:
                outcome = run(tool, path, timeout)
                if outcome.hung and _well_formed(data):
                    # A mutated constant can make a valid program loop for
                    # ever (a repeat count of 2^31): its semantics, not a hang.
                    totals.long_valid += 1
                    continue
                totals.add(label, outcome)
            if progress and totals.files % 500 == 0:
                print(f"  {totals.files} files, {time.perf_counter() - started:.0f} s, "
                      f"{totals.failed} failed", flush=True)  # fmt: skip
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per run")
    parser.add_argument("--subprocess", action="store_true", help="run the console scripts, one process each")
    parser.add_argument("--replay", metavar="SEED:INDEX", help="write that mutated file to --out and stop")
    parser.add_argument("--out", default="mutated.bef")
    args = parser.parse_args(argv)
    if args.replay:
        s, i = (int(v) for v in args.replay.split(":"))
        *_, (label, data) = mutated_files(i + 1, s)
        Path(args.out).write_bytes(data)
        print(f"{label} -> {args.out}")
        return 0
    started = time.perf_counter()
    totals = fuzz(args.files, args.seed, subprocesses=args.subprocess, timeout=args.timeout, progress=True)
    print(totals.summary())
    print(f"  {time.perf_counter() - started:.0f} s")
    for label, tool, found, stderr in totals.failures[:20]:
        print(f"FAIL {label} {tool}: {'; '.join(found)}\n    {stderr.strip()[-400:]}")
    return 1 if totals.failed else 0


if __name__ == "__main__":
    sys.exit(main())
