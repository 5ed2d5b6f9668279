"""Random programs run from 8 threads on every work queue: no call hangs, none loses its error.

    python tests/runtime/never_hangs_stress.py [--seeds N] [--first S] [--calls C]
                                               [--queues s,mstd:1,mstd:2,mstd:4]

Each seed builds one program (``tests/runtime/bef_builder.py``, no compiler):
entry functions that nest ``tfrt.call``, ``tfrt.if``, ``tfrt.repeat.i32``,
``tfrt.while`` (one and two parallel iterations) and a bounded recursion,
over sync kernels, async kernels (tasks of the request, blocking-pool work,
errors reported later from a task), kernels that fail for some inputs
(``KernelError``) and kernels that raise ``KeyboardInterrupt`` or
``SystemExit`` for some inputs.  Whether a kernel fails depends only on its
inputs, so a call's outcome does not depend on the schedule.

The reference outcome of every call comes from one thread on ``s``.  Then,
on each queue, 8 threads make the same calls (``Program.call``, or
``submit`` and ``result``), a share of them cancelled at a random moment.
Every call must return or raise within ``DEADLINE`` seconds, with the
reference outcome; a cancelled call may also give CANCELLED, or, when a
kernel that would have raised a BaseException was skipped, what the call
gives without its BaseException kernels (also from ``s``).  Afterwards the
program must still give the reference outcomes, its worker threads must
all be alive and the queue must go idle.  Exits 1 and prints what differed
otherwise.  ``tests/runtime/test_never_hangs.py`` runs a few seeds (and,
marked slow, many) in a subprocess with a timeout.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bef_builder import ProgramBuilder

from tfrt.api import CancelledError, ExecutionError, Program
from tfrt.executor import BEFProgram
from tfrt.host_context import HostContext
from tfrt.kernels.registry import (
    BUILTIN_KERNEL_MODULES,
    KernelError,
    KernelRegistry,
    kernel,
)

DEADLINE = 60.0  # seconds for any one call (they take milliseconds)
THREADS = 8
QUEUES = ("s", "mstd:1", "mstd:2", "mstd:4")
ENTRIES = 3


def _i32(x: int) -> int:
    return (x + 2**31) % 2**32 - 2**31


_BASE = (KeyboardInterrupt, SystemExit)
# Off while computing what a call gives when its BaseException kernels are
# skipped (a call cancelled before one of them ran gives that, or CANCELLED).
BASE_ENABLED = [True]


# -- kernels --------------------------------------------------------------------


@kernel("stress.check")
def check(x, m):
    """``x``, or a KernelError when ``m`` divides it."""
    if m and x % m == 0:
        raise KernelError(f"check: {m} divides {x}")
    return x


@kernel("stress.odd")
def odd(x):
    return bool(x & 1)


@kernel("stress.less")
def less(a, b):
    return a < b


@kernel("stress.mod")
def mod(a, m):
    return a % m


@kernel("stress.raise_base")
def raise_base(x, m, kind):
    """``x``, or KeyboardInterrupt (kind 0) / SystemExit (kind 1) when ``m`` divides it."""
    if m and x % m == 0 and BASE_ENABLED[0]:
        raise _BASE[kind](f"raise_base {x}")
    return x


@kernel("stress.async_add", kind="async")
def async_add(frame):
    """A task of the request computes the sum (skipped once it is cancelled)."""
    return frame.exec_ctx.spawn(lambda a, b: _i32(a + b), frame.arg(0), frame.arg(1))


@kernel("stress.async_check", kind="async")
def async_check(frame):
    """stress.check, decided later in a task that reports the error (report_error_concrete_async)."""
    x, m = frame.arg(0), frame.arg(1)
    result = frame.allocate_result(0)

    def later() -> None:
        if m and x % m == 0:
            frame.report_error(f"async check: {m} divides {x}")
        else:
            result.set_value(x)

    frame.host.enqueue_task(later)


@kernel("stress.async_base", kind="async")
def async_base(frame):
    """stress.raise_base in a task of the request."""
    return frame.exec_ctx.spawn(raise_base, frame.arg(0), frame.arg(1), frame.arg(2))


@kernel("stress.blocking", kind="async")
def blocking(frame):
    """``x + 1`` from the blocking pool, after sleeping a little for some inputs."""
    x = frame.arg(0)
    result = frame.allocate_result(0)

    def work() -> None:
        if x % 4 == 0:
            time.sleep(0.0002)
        result.set_value(_i32(x + 1))

    frame.host.enqueue_blocking_work(work)


def registry() -> KernelRegistry:
    reg = KernelRegistry()
    for name in BUILTIN_KERNEL_MODULES:
        reg.add_module(name)
    reg.add_module(sys.modules[__name__])
    return reg


# -- programs -------------------------------------------------------------------


class Generator:
    """One random program; ``text`` describes it (for a failing seed's report)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.b = ProgramBuilder()
        self.text: list[str] = []
        self.base_kind = self.rng.randint(0, 1)  # one BaseException type per program
        self.callees: list[int] = []  # functions (i32, i32) -> i32
        self.rec = self._recursion()
        for i in range(ENTRIES):
            f = self._function(f"main{i}", 2, depth=3)
            self.callees.append(f.index)

    def _const(self, f, v: int) -> int:
        return f.op("tfrt.constant.i32", attrs=[("i32", v)])

    def _note(self, f, line: str) -> None:
        self.text.append(f"  [{f.name or f'region{f.index}'}] {line}")

    def _recursion(self):
        # rec(n, x) = n < 1 ? x : rec(n - 1, x + n) (the add async for odd n)
        rng = self.rng
        rec = self.b.function("rec", args=("i32", "i32"), results=("i32",))
        then = self.b.function("", args=("i32", "i32"), results=("i32",))
        one = self._const(then, 1)
        m = then.op("tfrt.minus.i32", then.args[0], one)
        if rng.random() < 0.5:
            y = then.op("stress.async_add", then.args[1], then.args[0])
        else:
            y = then.op("tfrt.add.i32", then.args[1], then.args[0])
        then.ret(then.op("tfrt.call", m, y, funcs=(rec.index,)))
        other = self.b.function("", args=("i32", "i32"), results=("i32",))
        other.ret(other.args[1])
        zero = self._const(rec, 0)
        c = rec.op("stress.less", zero, rec.args[0])
        rec.ret(rec.op("tfrt.if", c, rec.args[0], rec.args[1], funcs=(then.index, other.index)))
        self.text.append("rec(n, x) = n < 1 ? x : rec(n - 1, x + n)")
        return rec.index

    def _function(self, name: str, nargs: int, depth: int, results: int = 1):
        f = self.b.function(name, args=("i32",) * nargs, results=("i32",) * results)
        self.text.append(f"function {name or f'region{f.index}'} ({nargs} args) #{f.index}:")
        vals = self._body(f, list(f.args), depth)
        f.ret(*vals[-results:])
        return f

    def _body(self, f, vals: list[int], depth: int) -> list[int]:
        rng = self.rng
        for _ in range(rng.randint(2, 6)):
            a, b = rng.choice(vals), rng.choice(vals)
            kinds = ["const", "add", "add", "check", "async_add", "async_check", "blocking", "base"]
            if self.callees:
                kinds.append("call")
            if depth > 0:
                kinds += ["if", "repeat", "while", "rec"]
            kind = rng.choice(kinds)
            if kind == "const":
                v = rng.randint(-9, 9)
                r = self._const(f, v)
                self._note(f, f"const {v}")
            elif kind == "add":
                r = f.op("tfrt.add.i32", a, b)
                self._note(f, "add")
            elif kind in ("check", "async_check"):
                m = rng.randint(2, 9)
                r = f.op(f"stress.{kind}", a, self._const(f, m))
                self._note(f, f"{kind} mod {m}")
            elif kind == "async_add":
                r = f.op("stress.async_add", a, b)
                self._note(f, "async_add")
            elif kind == "blocking":
                r = f.op("stress.blocking", a)
                self._note(f, "blocking")
            elif kind == "base":
                if rng.random() < 0.7:
                    continue  # rarer than the others
                m = rng.randint(7, 19)
                name = rng.choice(["stress.raise_base", "stress.async_base"])
                r = f.op(name, a, self._const(f, m), self._const(f, self.base_kind))
                self._note(f, f"{name} mod {m} ({_BASE[self.base_kind].__name__})")
            elif kind == "call":
                callee = rng.choice(self.callees)
                r = f.op("tfrt.call", a, b, funcs=(callee,))
                self._note(f, f"call #{callee}")
            elif kind == "if":
                c = f.op("stress.odd", a)
                then = self._function("", 2, depth - 1)
                other = self._function("", 2, depth - 1)
                r = f.op("tfrt.if", c, a, b, funcs=(then.index, other.index))
                self._note(f, f"if odd: #{then.index} else #{other.index}")
            elif kind == "repeat":
                n = rng.randint(0, 6)
                body = self._function("", 1, depth - 1)
                r = f.op("tfrt.repeat.i32", self._const(f, n), a, funcs=(body.index,))
                self._note(f, f"repeat {n}: #{body.index}")
            elif kind == "while":
                r = self._while(f, a, depth)
            else:  # rec
                n = f.op("stress.mod", a, self._const(f, 31))
                r = f.op("tfrt.call", n, b, funcs=(self.rec,))
                self._note(f, "rec(a mod 31, b)")
            vals.append(r)
        return vals

    def _while(self, f, a: int, depth: int) -> int:
        # body(x, i) -> (x', i + 1, i + 1 < n)
        rng = self.rng
        n = rng.randint(0, 5)
        parallel = rng.choice([1, 1, 2])
        body = self.b.function("", args=("i32", "i32"), results=("i32", "i32", "i1"))
        self.text.append(f"function region{body.index} (while body):")
        vals = self._body(body, list(body.args), depth - 1)
        i1 = body.op("tfrt.add.i32", body.args[1], self._const(body, 1))
        more = body.op("stress.less", i1, self._const(body, n))
        body.ret(vals[-1], i1, more)
        zero = self._const(f, 0)
        first = f.op("stress.less", zero, self._const(f, n))
        x, _ = f.op("tfrt.while", first, a, zero, attrs=[("i64", parallel)],
                    funcs=(body.index,), results=2)
        self._note(f, f"while i < {n} (parallel {parallel}): #{body.index}")
        return x


def load(seed: int, queue: str) -> Program:
    gen = Generator(seed)
    diagnostics: list = []
    host = HostContext(work_queue=queue, registry=registry(), diag_handler=diagnostics.append)
    prog = Program(BEFProgram.load(gen.b.build(), host), host, diagnostics)
    prog.description = "\n".join(gen.text)  # type: ignore[attr-defined]
    return prog


# -- outcomes -------------------------------------------------------------------


def outcome_of(fn) -> tuple:
    """What a call gave: ("ok", value), ("error", code, message), ("base", type), ("cancelled",)."""
    try:
        return ("ok", fn())
    except CancelledError:
        return ("cancelled",)
    except ExecutionError as exc:
        return ("error", exc.code, exc.info.message)
    except TimeoutError:
        return ("hung",)
    except BaseException as exc:  # noqa: BLE001 - the outcome is what it raised
        if isinstance(exc, Exception):
            return ("exception", type(exc).__name__, str(exc))
        return ("base", type(exc).__name__)


def make_calls(seed: int, count: int) -> list[tuple[str, int, int]]:
    rng = random.Random(seed * 7919 + 1)
    return [(f"main{rng.randrange(ENTRIES)}", rng.randint(-30, 30), rng.randint(-30, 30))
            for _ in range(count)]


def reference(seed: int, calls: list) -> tuple[list[tuple], list[tuple]]:
    """Each call's outcome, and its outcome with the BaseException kernels skipped."""
    prog = load(seed, "s")
    try:
        expected = [outcome_of(lambda c=c: prog.call(*c)) for c in calls]
        BASE_ENABLED[0] = False
        try:
            quiet = [outcome_of(lambda c=c: prog.call(*c)) if e[0] == "base" else e
                     for c, e in zip(calls, expected)]
        finally:
            BASE_ENABLED[0] = True
        return expected, quiet
    finally:
        prog.close()


def run_queue(seed: int, queue: str, calls: list, expected: list, quiet: list) -> list[str]:
    """Problems found on ``queue`` (empty: none)."""
    prog = load(seed, queue)
    problems: list[str] = []
    got: list = [None] * len(calls)
    cancelled = [False] * len(calls)
    next_call = [0]
    lock = threading.Lock()

    def worker(t: int) -> None:
        rng = random.Random(seed * 1000 + t)
        while True:
            with lock:
                i = next_call[0]
                next_call[0] += 1
            if i >= len(calls):
                return
            mode = rng.random()
            if mode < 0.3:
                got[i] = outcome_of(lambda c=calls[i]: prog.call(*c))
                continue
            call = prog.submit(*calls[i])
            if mode < 0.6:
                if rng.random() < 0.3:
                    call.cancel()
                else:
                    time.sleep(rng.random() * 0.002)
                    call.cancel()
                cancelled[i] = True
            got[i] = outcome_of(lambda c=call: c.result(timeout=DEADLINE))

    threads = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(THREADS)]
    start = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join(max(1.0, DEADLINE * 2 - (time.monotonic() - start)))
    if any(th.is_alive() for th in threads):
        problems.append(f"{queue}: a calling thread is stuck (a call that never returns)")
    for i, (c, want, have) in enumerate(zip(calls, expected, got)):
        if have == want or (cancelled[i] and have in (("cancelled",), quiet[i])):
            continue
        problems.append(f"{queue}: call {i} {c}: expected {want}, got {have}"
                        + (" (cancelled)" if cancelled[i] else ""))
    if problems:
        prog.host.quiesce = lambda: None  # do not wait on a stuck queue at close
        return problems
    # Healthy afterwards: the reference outcomes, live workers, an idle queue.
    for i in range(0, len(calls), max(1, len(calls) // 10)):
        have = outcome_of(lambda c=calls[i]: prog.call(*c))
        if have != expected[i]:
            problems.append(f"{queue}: after the run, call {i} {calls[i]}: expected {expected[i]}, got {have}")
    queue_obj = prog.host.work_queue
    dead = [w.name for w in getattr(queue_obj, "_workers", []) if not w.is_alive()]
    if dead:
        problems.append(f"{queue}: worker threads died: {dead}")
    idle = threading.Thread(target=prog.quiesce, daemon=True)
    idle.start()
    idle.join(DEADLINE)
    if idle.is_alive():
        problems.append(f"{queue}: the queue does not go idle after the run")
    else:
        prog.close()
    return problems


def run(seeds: range, calls_per_seed: int, queues: tuple[str, ...]) -> int:
    failures = 0
    total = 0
    kinds: dict[str, int] = {}
    for seed in seeds:
        calls = make_calls(seed, calls_per_seed)
        expected, quiet = reference(seed, calls)
        for e in expected:
            kinds[e[0]] = kinds.get(e[0], 0) + 1
        for queue in queues:
            problems = run_queue(seed, queue, calls, expected, quiet)
            total += len(calls)
            if problems:
                failures += 1
                print(f"seed {seed} on {queue}: {len(problems)} problem(s)")
                for p in problems[:20]:
                    print("  " + p)
                print(load(seed, "s").description)  # type: ignore[attr-defined]
    print(f"{total} calls, {len(seeds)} programs, queues {','.join(queues)}; "
          f"reference outcomes: {kinds}; {failures} failing program runs")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--calls", type=int, default=64, help="calls per program and queue")
    parser.add_argument("--queues", default=",".join(QUEUES))
    parser.add_argument("--deadline", type=float, default=60.0, help="seconds per call")
    opts = parser.parse_args(argv)
    global DEADLINE
    DEADLINE = opts.deadline
    return run(range(opts.first, opts.first + opts.seeds), opts.calls, tuple(opts.queues.split(",")))


if __name__ == "__main__":
    sys.exit(main())
