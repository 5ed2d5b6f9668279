"""ONNX's node tests (``onnx.backend.test.case.node``) through ``tfrt.onnx.backend``,
counted: pass, wrong (a result that differs, as ONNX's runner compares:
shape, dtype, values within the case's tolerance), refused (an import error:
what the importer does not take), run-error, timeout.

    python tests/onnx/backend_sweep.py [NAME_PREFIX...]   # WHY=1 lists the failures

The last line is the summary; ``--by-op`` adds the refusals by operator.
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


def main(argv: list[str]) -> int:
    from onnx.backend.test.case.node import collect_testcases

    by_op = "--by-op" in argv
    prefixes = [a for a in argv if not a.startswith("--")]
    cases = [c for c in collect_testcases() if not prefixes or any(c.name.startswith(p) for p in prefixes)]
    signal.signal(signal.SIGALRM, _alarm)
    counts, why, ops = Counter(), [], Counter()
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
    if os.environ.get("WHY"):
        print("\n".join(why))
    if by_op:
        for op, n in ops.most_common():
            print(f"{n:5d} {op}")
    print("ONNX node tests through tfrt.onnx.backend: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f" of {len(cases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
