"""Eager execution benchmarks: dispatch cost per op, function call cost, an MLP.

    python benchmarks/bench_eager.py [--ops 20000] [--repeat 7]

1. Dispatch cost per op: a chain of dependent adds on f32[4] tensors
   (``x = x + y``), so that the op's bookkeeping, not its arithmetic, is
   measured; tfrt eager beside numpy, torch eager, and JAX and TensorFlow
   eager when installed.
2. ``@tfrt.function`` call cost: a traced one-op function (``a + b`` on
   f32[4]) called from Python, beside a plain Python function doing the same
   with numpy, a ``torch.jit.script`` function, ``jax.jit`` and
   ``tf.function`` (each when installed).
3. An MLP 784-512-512-10 at batch 1 (relu layers), eager, against numpy
   called directly and torch eager; and the same model as a ``@tfrt.function``.

Figures are the best of ``--repeat`` runs (microseconds); ratios are against
the first row of each table.  It prints numbers and asserts nothing.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import argparse
import gc
import sys
import time

import numpy as np

import tfrt

LAYERS = (784, 512, 512, 10)


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _optional(name: str):
    try:
        if name == "jax":
            import jax
            import jax.numpy

            return jax
        if name == "tensorflow":
            import tensorflow as tf

            return tf
        if name == "torch":
            import torch

            torch.set_num_threads(1)
            return torch
    except Exception:  # not installed, or broken
        return None
    return None


def table(title: str, rows: list[tuple[str, float | None]], unit: str = "us") -> None:
    print(f"== {title}")
    base = rows[0][1]
    for name, t in rows:
        if t is None:
            print(f"  {name:34s} {'not installed':>12s}")
            continue
        ratio = f"{t / base:6.2f}x" if base else ""
        print(f"  {name:34s} {t:9.2f} {unit}  {ratio}")
    print()


# ---------------------------------------------------------------------------
# 1. dispatch cost per op


def bench_dispatch(n: int, repeat: int) -> dict:
    x0 = np.ones(4, np.float32)
    y0 = np.full(4, 1e-3, np.float32)

    def chain(add, x, y):
        def run():
            z = x
            for _ in range(n):
                z = add(z, y)
            return z

        return run

    rows: list[tuple[str, float | None]] = []
    rows.append(
        (
            "tfrt eager (x + y)",
            best_of(chain(lambda a, b: a + b, tfrt.constant(x0), tfrt.constant(y0)), repeat)
            / n
            * 1e6,
        )
    )
    rows.append(
        (
            "tfrt eager (tfrt.ops.add)",
            best_of(chain(tfrt.ops.add, tfrt.constant(x0), tfrt.constant(y0)), repeat) / n * 1e6,
        )
    )
    rows.append(("numpy (x + y)", best_of(chain(lambda a, b: a + b, x0, y0), repeat) / n * 1e6))
    torch = _optional("torch")
    if torch is not None:
        rows.append(
            (
                "torch eager (x + y)",
                best_of(
                    chain(lambda a, b: a + b, torch.from_numpy(x0), torch.from_numpy(y0)), repeat
                )
                / n
                * 1e6,
            )
        )
    else:
        rows.append(("torch eager", None))
    jax = _optional("jax")
    if jax is not None:
        xj, yj = jax.numpy.asarray(x0), jax.numpy.asarray(y0)
        m = max(n // 10, 100)

        def jrun():
            z = xj
            for _ in range(m):
                z = z + yj
            z.block_until_ready()

        rows.append(("jax eager (x + y)", best_of(jrun, repeat) / m * 1e6))
    else:
        rows.append(("jax eager", None))
    tf = _optional("tensorflow")
    if tf is not None:
        xt, yt = tf.constant(x0), tf.constant(y0)
        m = max(n // 20, 100)

        def trun():
            z = xt
            for _ in range(m):
                z = z + yt
            z.numpy()

        rows.append(("tensorflow eager (x + y)", best_of(trun, repeat) / m * 1e6))
    else:
        rows.append(("tensorflow eager", None))
    table("dispatch cost per op: dependent adds on f32[4] (us per op)", rows)
    return dict(rows)


# ---------------------------------------------------------------------------
# 2. function call cost


def bench_function(n: int, repeat: int) -> dict:
    a0 = np.ones(4, np.float32)
    b0 = np.full(4, 2.0, np.float32)

    def calls(fn, a, b):
        def run():
            for _ in range(n):
                fn(a, b)

        return run

    @tfrt.function
    def add1(a, b):
        return a + b

    ta, tb = tfrt.constant(a0), tfrt.constant(b0)
    np.testing.assert_array_equal(add1(ta, tb).numpy(), a0 + b0)
    rows: list[tuple[str, float | None]] = [
        ("@tfrt.function (a + b)", best_of(calls(add1, ta, tb), repeat) / n * 1e6),
        (
            "python function over numpy",
            best_of(calls(lambda a, b: a + b, a0, b0), repeat) / n * 1e6,
        ),
    ]
    torch = _optional("torch")
    if torch is not None:
        import warnings

        def tadd(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return a + b

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scripted = torch.jit.script(tadd)
        except Exception:
            scripted = None
        ta_, tb_ = torch.from_numpy(a0), torch.from_numpy(b0)
        rows.append(
            (
                "torch.jit.script (a + b)",
                None if scripted is None else best_of(calls(scripted, ta_, tb_), repeat) / n * 1e6,
            )
        )
    else:
        rows.append(("torch.jit.script", None))
    jax = _optional("jax")
    if jax is not None:
        jadd = jax.jit(lambda a, b: a + b)
        ja, jb = jax.numpy.asarray(a0), jax.numpy.asarray(b0)
        jadd(ja, jb).block_until_ready()
        rows.append(
            (
                "jax.jit (a + b)",
                best_of(calls(lambda a, b: jadd(a, b).block_until_ready(), ja, jb), repeat)
                / n
                * 1e6,
            )
        )
    else:
        rows.append(("jax.jit", None))
    tf = _optional("tensorflow")
    if tf is not None:
        tadd2 = tf.function(lambda a, b: a + b)
        xa, xb = tf.constant(a0), tf.constant(b0)
        tadd2(xa, xb)
        m = max(n // 20, 50)
        rows.append(
            (
                "tf.function (a + b)",
                best_of(lambda: [tadd2(xa, xb) for _ in range(m)], repeat) / m * 1e6,
            )
        )
    else:
        rows.append(("tf.function", None))
    table("one-op function call from Python (us per call)", rows)
    return dict(rows)


# ---------------------------------------------------------------------------
# 3. MLP


def bench_mlp(repeat: int) -> dict:
    rng = np.random.default_rng(0)
    ws = [
        (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
        for k, n in zip(LAYERS, LAYERS[1:])
    ]
    bs = [(rng.standard_normal(n) * 0.1).astype(np.float32) for n in LAYERS[1:]]
    x = rng.standard_normal((1, LAYERS[0])).astype(np.float32)
    calls = 200

    def numpy_mlp():
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = h @ w + b
            if i < len(ws) - 1:
                h = np.maximum(h, 0)
        return h

    tws = [tfrt.constant(w) for w in ws]
    tbs = [tfrt.constant(b) for b in bs]
    tx = tfrt.constant(x)

    def eager_mlp(h, *params):
        n = len(params) // 2
        for i in range(n):
            h = h @ params[i] + params[n + i]
            if i < n - 1:
                h = tfrt.ops.relu(h)
        return h

    params = [*tws, *tbs]
    compiled = tfrt.function(eager_mlp, name="mlp")
    expected = numpy_mlp()
    np.testing.assert_allclose(eager_mlp(tx, *params).numpy(), expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(compiled(tx, *params).numpy(), expected, rtol=1e-4, atol=1e-4)

    def loop(fn):
        def run():
            for _ in range(calls):
                fn()

        return run

    rows: list[tuple[str, float | None]] = [
        ("numpy called directly", best_of(loop(numpy_mlp), repeat) / calls * 1e6),
        ("tfrt eager", best_of(loop(lambda: eager_mlp(tx, *params)), repeat) / calls * 1e6),
        ("@tfrt.function", best_of(loop(lambda: compiled(tx, *params)), repeat) / calls * 1e6),
    ]
    torch = _optional("torch")
    if torch is not None:
        tw_ = [torch.from_numpy(w) for w in ws]
        tb_ = [torch.from_numpy(b) for b in bs]
        xt = torch.from_numpy(x)

        def torch_mlp():
            with torch.no_grad():
                h = xt
                for i, (w, b) in enumerate(zip(tw_, tb_)):
                    h = h @ w + b
                    if i < len(tw_) - 1:
                        h = torch.relu(h)
                return h

        rows.append(("torch eager", best_of(loop(torch_mlp), repeat) / calls * 1e6))
    else:
        rows.append(("torch eager", None))
    table("MLP 784-512-512-10, batch 1 (us per forward pass)", rows)
    return dict(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ops", type=int, default=20000, help="ops (and calls) per timed run")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs (the best counts)")
    args = parser.parse_args(argv)
    d = bench_dispatch(args.ops, args.repeat)
    f = bench_function(max(args.ops // 4, 1000), args.repeat)
    m = bench_mlp(args.repeat)

    ours = d["tfrt eager (x + y)"]
    print("== summary")
    torch_t = d.get("torch eager (x + y)")
    tf_t = d.get("tensorflow eager (x + y)")
    print(f"  eager dispatch: {ours:.2f} us/op; {ours / d['numpy (x + y)']:.2f}x numpy"
          + (f", {ours / torch_t:.2f}x torch eager" if torch_t else "")
          + (f", {tf_t / ours:.1f}x faster than TF eager" if tf_t else " (TensorFlow not installed: no TF ratio)"))  # fmt: skip
    print(f"  @tfrt.function call: {f['@tfrt.function (a + b)']:.2f} us")
    print(f"  MLP eager: {m['tfrt eager'] / m['numpy called directly']:.2f}x numpy called directly")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
