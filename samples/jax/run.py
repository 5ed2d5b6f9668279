"""Compile each exported JAX model with tfrt and compare with JAX's results.

    python samples/jax/export.py          # once: writes samples/jax/out/
    python samples/jax/run.py [OUT_DIR]

``tfrt.api.load`` takes the exported ``.mlir`` text as it is (StableHLO is
converted to linalg, then to kernels); ``@main`` runs on the saved inputs.
Prints the largest difference from JAX per result; exits 1 if one is off.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

import tfrt.api


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path(__file__).parent / "out"
    status = 0
    for mlir in sorted(out.glob("*.mlir")):
        name = mlir.stem
        inputs = np.load(out / f"{name}.inputs.npz")
        expected = np.load(out / f"{name}.expected.npz")
        args = [inputs[f"arg{i}"] for i in range(len(inputs.files))]
        t0 = time.perf_counter()
        program = tfrt.api.load(str(mlir))
        t1 = time.perf_counter()
        results = program.call("main", *args)
        t2 = time.perf_counter()
        if not isinstance(results, tuple):
            results = (results,)
        worst = 0.0
        for i, r in enumerate(results):
            want = expected[f"out{i}"]
            got = np.asarray(r)
            if got.shape != want.shape:
                print(f"{name}: result {i} has shape {got.shape}, JAX's {want.shape}")
                status = 1
                continue
            err = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
            worst = max(worst, err / max(1.0, float(np.max(np.abs(want))) if want.size else 1.0))
            if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
                print(f"{name}: result {i} differs from JAX's by up to {err:.3g}")
                status = 1
        print(f"{name}: {len(results)} results, largest relative difference from JAX {worst:.2e}; "
              f"compile {t1 - t0:.2f} s, first call {1e3 * (t2 - t1):.1f} ms")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
