"""Export three JAX models to StableHLO text, with inputs and JAX's own outputs.

    python samples/jax/export.py [OUT_DIR]      # default: samples/jax/out

For each model it writes ``NAME.mlir`` (``jax.jit(f).lower(*args).as_text()``),
``NAME.inputs.npz`` (the arguments, in order: arg0, arg1, ...) and
``NAME.expected.npz`` (what ``jax.jit(f)(*args)`` returns: out0, out1, ...).
``run.py`` beside this file compiles each ``.mlir`` and checks the results.

* ``mlp``: 784-512-512-10 with ReLU and log-softmax, batch 64;
* ``cnn``: two 3x3 convolutions (ReLU, 2x2 max pooling), a dense layer;
* ``train_step``: one SGD step of the MLP (``jax.grad`` of the cross-entropy),
  returning the new parameters and the loss.

Needs JAX (``pip install 'tfrt-py[jax]'``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import jax
import jax.numpy as jnp


def init_mlp(key, sizes):
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        key, k1 = jax.random.split(key)
        params.append((jax.random.normal(k1, (m, n), jnp.float32) * np.sqrt(2.0 / m), jnp.zeros((n,), jnp.float32)))
    return params


def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return jax.nn.log_softmax(x @ w + b)


def cnn(params, x):
    (w1, b1), (w2, b2), (w3, b3) = params
    dn = ("NHWC", "HWIO", "NHWC")
    x = jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn) + b1
    x = jax.nn.relu(x)
    x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    x = jax.lax.conv_general_dilated(x, w2, (1, 1), "SAME", dimension_numbers=dn) + b2
    x = jax.nn.relu(x)
    x = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    x = x.reshape((x.shape[0], -1))
    return x @ w3 + b3


def loss(params, x, y):
    logp = mlp(params, x)
    return -jnp.mean(jnp.sum(logp * y, axis=-1))


def train_step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    new = [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, grads)]
    return new, value


def models():
    key = jax.random.PRNGKey(0)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    mlp_params = init_mlp(k1, [784, 512, 512, 10])
    x = jax.random.normal(k2, (64, 784), jnp.float32)
    yield "mlp", mlp, (mlp_params, x)
    c1 = jax.random.normal(k3, (3, 3, 1, 8), jnp.float32) * 0.3
    c2 = jax.random.normal(k4, (3, 3, 8, 16), jnp.float32) * 0.1
    d = jax.random.normal(k1, (7 * 7 * 16, 10), jnp.float32) * 0.05
    cnn_params = [(c1, jnp.zeros((8,))), (c2, jnp.zeros((16,))), (d, jnp.zeros((10,)))]
    images = jax.random.uniform(k2, (8, 28, 28, 1), jnp.float32)
    yield "cnn", cnn, (cnn_params, images)
    small = init_mlp(k3, [784, 128, 10])
    labels = jax.nn.one_hot(jnp.arange(32) % 10, 10)
    yield "train_step", train_step, (small, x[:32], labels)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path(__file__).parent / "out"
    out.mkdir(parents=True, exist_ok=True)
    for name, fn, args in models():
        flat_args = jax.tree_util.tree_leaves(args)
        text = jax.jit(fn).lower(*args).as_text()
        (out / f"{name}.mlir").write_text(text)
        results = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        np.savez(out / f"{name}.inputs.npz", **{f"arg{i}": np.asarray(a) for i, a in enumerate(flat_args)})
        np.savez(out / f"{name}.expected.npz", **{f"out{i}": np.asarray(r) for i, r in enumerate(results)})
        print(f"{out / name}.mlir: {len(flat_args)} arguments, {len(results)} results")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
