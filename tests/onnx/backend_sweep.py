"""ONNX's node tests (``onnx.backend.test.case.node``) through ``tfrt.onnx.backend``,
counted: pass, wrong (a result that differs, as ONNX's runner compares:
shape, dtype, values within the case's tolerance), refused (an import error:
what the importer does not take), run-error, timeout.

    python tests/onnx/backend_sweep.py [NAME_PREFIX...]   # WHY=1 lists the failures

The last line is the summary; ``--by-op`` adds the refusals by operator.
``--write-expected`` rewrites ``backend_expected.py`` from a whole run (only
when nothing is wrong: the list holds refusals only).
"""

from __future__ import annotations

import os
import re
import signal
import sys
import warnings
from collections import Counter

import numpy as np

warnings.filterwarnings("ignore")


class Timeout(Exception):
    pass


def _alarm(*_):
    raise Timeout()


def normalize(x):
    from onnx import TensorProto, numpy_helper

    return numpy_helper.to_array(x) if isinstance(x, TensorProto) else x


def compare(ref, out, rtol, atol) -> str | None:
    """Why ``out`` is not ``ref`` (None when it is), as ONNX's runner checks."""
    if len(ref) != len(out):
        return f"{len(out)} results for {len(ref)} outputs"
    for i, (r, o) in enumerate(zip(ref, out)):
        if r is None or o is None:  # an empty optional
            if r is not o:
                return f"output {i}: {'an empty optional' if o is None else 'a value'}, expected {'none' if r is None else 'a value'}"
            continue
        if isinstance(r, list):  # a sequence: element by element
            if not isinstance(o, list):
                return f"output {i}: a {type(o).__name__}, expected a sequence"
            why = compare(r, o, rtol, atol)
            if why:
                return f"output {i}: {why}"
            continue
        r, o = np.asarray(r), np.asarray(o)
        if r.shape != o.shape:
            return f"output {i}: shape {o.shape}, expected {r.shape}"
        if r.dtype != o.dtype:
            return f"output {i}: dtype {o.dtype}, expected {r.dtype}"
        if r.dtype.kind in "fc" or r.dtype.name in ("bfloat16",) or r.dtype.kind == "V":
            tol = max(rtol, 2**-6) if r.dtype.name == "bfloat16" else rtol
            try:
                ok = np.allclose(o.astype(np.float64), r.astype(np.float64), rtol=tol, atol=atol, equal_nan=True)
            except (TypeError, ValueError):
                ok = np.array_equal(o, r)
        else:
            ok = np.array_equal(o, r)
        if not ok:
            return f"output {i}: values differ"
    return None


def run_case(case) -> tuple[str, str]:
    from tfrt.onnx.backend import prepare
    from tfrt.tools.import_onnx import ImportError_

    try:
        rep = prepare(case.model)
        for inputs, outputs in case.data_sets:
            ins = [normalize(i) for i in inputs]
            try:
                got = rep.run(ins)
            except ImportError_ as exc:
                return "refused", str(exc).splitlines()[0][:300]
            why = compare([normalize(o) for o in outputs], list(got), case.rtol, case.atol)
            if why:
                return "wrong", why
        return "pass", ""
    except Timeout:
        raise
    except ImportError_ as exc:
        return "refused", str(exc).splitlines()[0][:300]
    except Exception as exc:  # noqa: BLE001
        msg = str(exc).splitlines()[0] if str(exc) else ""
        return "run-error", f"{type(exc).__name__}: {msg}"[:300]


def operator_of(msg: str) -> str:
    m = re.search(r"node '[^']*' \((\w+)\)", msg)
    return m.group(1) if m else msg[:60]


def reason_of(msg: str) -> str:
    """A refusal's message without node names: ``Op: why``."""
    return re.sub(r"node '[^']*' \((\w+)\)", r"\1", msg)


_HEAD = '''"""The ONNX node tests ``tfrt.onnx.backend`` does not pass, each with its reason.

The one list of expected failures: ``test_backend.py`` marks these as expected
to fail (a test here that passes fails the suite, so the list stays exact).
Written by ``python tests/onnx/backend_sweep.py --write-expected`` (a whole
run); every entry is a refusal (an error naming the node, its operator and
the reason): none is a wrong answer.
"""

EXPECTED_FAILURES: dict[str, str] = {}

_BY_REASON: dict[str, list[str]] = {
'''

_TAIL = '''}

for _reason, _names in _BY_REASON.items():
    for _name in _names:
        EXPECTED_FAILURES[_name] = _reason
'''


def write_expected(refused: dict[str, str]) -> None:
    groups: dict[str, list[str]] = {}
    for name, msg in refused.items():
        groups.setdefault(reason_of(msg), []).append(name)
    out = [_HEAD]
    for reason, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append(f"    {reason!r}: [\n")
        out.extend(f"        {n!r},\n" for n in sorted(names))
        out.append("    ],\n")
    out.append(_TAIL)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "backend_expected.py")
    with open(path, "w") as f:
        f.write("".join(out))


def main(argv: list[str]) -> int:
    from onnx.backend.test.case.node import collect_testcases

    by_op = "--by-op" in argv
    prefixes = [a for a in argv if not a.startswith("--")]
    cases = [c for c in collect_testcases() if not prefixes or any(c.name.startswith(p) for p in prefixes)]
    signal.signal(signal.SIGALRM, _alarm)
    counts, why, ops = Counter(), [], Counter()
    refused: dict[str, str] = {}
    for c in cases:
        signal.alarm(60)
        try:
            st, msg = run_case(c)
        except Timeout:
            st, msg = "timeout", ""
        signal.alarm(0)
        counts[st] += 1
        if st != "pass":
            why.append(f"{c.name}: {st}: {msg}")
            if st == "refused":
                ops[operator_of(msg)] += 1
                refused[c.name] = msg
    if os.environ.get("WHY"):
        print("\n".join(why))
    if by_op:
        for op, n in ops.most_common():
            print(f"{n:5d} {op}")
    if "--write-expected" in argv:
        if prefixes or set(counts) - {"pass", "refused"}:
            print("--write-expected: not written (a partial run, or results other than pass and refused)")
            return 1
        write_expected(refused)
    print("ONNX node tests through tfrt.onnx.backend: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" of {len(cases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
