"""JAX-exported models on the CPU: tfrt beside ``jax.jit`` and numpy.

    python benchmarks/bench_jax.py [--runs 50] [--threads 2]

Models (as samples/jax/export.py builds them): the MLP 784-512-512-10 at
batch 1 and 64, and the small CNN (two 3x3 convolutions with max pooling, a
dense layer) at batch 8.  Each is exported with
``jax.jit(f).lower(*args).as_text()``, compiled by ``tfrt.api.load`` (the
default pipeline), and timed per call (median of ``--runs`` after warm-up):

* tfrt: ``Program.call`` from numpy arrays to numpy arrays;
* jax.jit: the jitted function from numpy arrays, ``block_until_ready``
  (its dispatch included, as a user calls it);
* numpy: the same MLP written with numpy (batch 1 and 64).

Also printed: compile time and the first call (a user's first result).
Prints numbers and ratios; asserts nothing.  Needs JAX.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

_ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
_ap.add_argument("--runs", type=int, default=50)
_ap.add_argument("--threads", type=int, default=2)
ARGS = _ap.parse_args()
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(ARGS.threads)
os.environ.setdefault("XLA_FLAGS", f"--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads={ARGS.threads}")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "samples" / "jax"))


def median_ms(fn, runs: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> int:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("bench_jax: JAX is not installed (pip install 'tfrt-py[jax]')")
        return 0
    import tempfile

    import export  # samples/jax/export.py

    import tfrt.api

    key = jax.random.PRNGKey(0)
    params = export.init_mlp(key, [784, 512, 512, 10])
    np_params = [(np.asarray(w), np.asarray(b)) for w, b in params]
    cnn_params = None
    for name, fn, args in export.models():
        if name == "cnn":
            cnn_params, images = args

    def np_mlp(x):
        for w, b in np_params[:-1]:
            x = np.maximum(x @ w + b, 0)
        w, b = np_params[-1]
        z = x @ w + b
        z = z - z.max(axis=-1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))

    cases = []
    for batch in (1, 64):
        x = np.asarray(jax.random.normal(key, (batch, 784), jnp.float32))
        cases.append((f"MLP b{batch}", export.mlp, (params, x), lambda x=x: np_mlp(x)))
    cases.append(("CNN b8", export.cnn, (cnn_params, np.asarray(images)), None))

    print(f"threads {ARGS.threads}, runs {ARGS.runs}; ms per call (median)")
    print(f"{'model':10} {'tfrt':>9} {'jax.jit':>9} {'numpy':>9} {'jit/tfrt':>9}  compile   first call  max |diff|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, fn, args, np_fn in cases:
            flat = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
            path = Path(tmp) / "m.mlir"
            path.write_text(jax.jit(fn).lower(*args).as_text())
            t0 = time.perf_counter()
            program = tfrt.api.load(str(path))
            t1 = time.perf_counter()
            got = program.call("main", *flat)
            t2 = time.perf_counter()
            jitted = jax.jit(fn)
            want = np.asarray(jitted(*args))
            diff = float(np.max(np.abs(np.asarray(got) - want)))
            t_tfrt = median_ms(lambda: program.call("main", *flat), ARGS.runs)
            t_jax = median_ms(lambda: jitted(*args).block_until_ready(), ARGS.runs)
            t_np = median_ms(np_fn, ARGS.runs) if np_fn else float("nan")
            print(f"{label:10} {t_tfrt:9.3f} {t_jax:9.3f} {t_np:9.3f} {t_jax / t_tfrt:9.2f}  "
                  f"{t1 - t0:6.2f} s  {1e3 * (t2 - t1):8.1f} ms  {diff:.2e}")
    print("jit/tfrt > 1: tfrt is faster than jax.jit (target: batch 1 > 1, batch 64 >= 1/1.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
