"""Regenerates the JAX-exported StableHLO fixtures of this folder.

    .venv/bin/python tests/dialects/stablehlo/jax_exports/generate.py

Each ``<name>.mlir`` is ``jax.jit(f).lower(*args).as_text()`` for one small
program below (JAX is the optional ``jax`` extra).  The files are checked in,
so the tests do not need JAX; rerun this after a JAX upgrade and commit the
differences.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
from jax import lax

HERE = Path(__file__).parent


def mlp(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return jax.nn.log_softmax(x @ w + b)


def _mlp_args():
    k = jax.random.PRNGKey(0)
    sizes = [(16, 32), (32, 32), (32, 10)]
    params = [(jax.random.normal(k, s), jnp.zeros(s[1])) for s in sizes]
    return params, jnp.ones((4, 16))


def cnn(w1, w2, x):
    y = lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = jax.nn.relu(y)
    y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = lax.conv_general_dilated(
        y, w2, (2, 2), ((1, 1), (0, 0)), rhs_dilation=(2, 1), feature_group_count=2,
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    )
    return jnp.mean(y, axis=(1, 2))


def train_step(w, b, x, y):
    def loss(w, b):
        pred = jnp.tanh(x @ w + b)
        return jnp.mean((pred - y) ** 2)

    gw, gb = jax.grad(loss, argnums=(0, 1))(w, b)
    return w - 0.1 * gw, b - 0.1 * gb


def conv_grad(w, x):
    def f(w):
        y = lax.conv_general_dilated(x, w, (2, 2), "SAME", lhs_dilation=(1, 1), rhs_dilation=(1, 1),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return jnp.sum(jnp.maximum(y, 0.0))

    return jax.grad(f)(w)


def pools(x):
    s = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    m = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (0, 1), (0, 0)))
    return s, m


def max_pool_grad(x):
    return jax.grad(lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")))(x)


def sorts(x, y):
    a = jnp.sort(x, axis=-1)
    b = jnp.argsort(x, axis=0)
    c, d = lax.sort((x, y), num_keys=1, is_stable=True)
    return a, b, c, d


def loops(n, x):
    def body(c):
        i, acc = c
        return i + 1, acc * 2.0 + jnp.sin(acc)

    i, acc = lax.while_loop(lambda c: c[0] < n, body, (0, x))
    s = lax.fori_loop(0, 5, lambda i, v: v + i, x)
    return acc, s


def branches(p, k, x):
    a = lax.cond(p > 0, lambda v: v * 2.0, lambda v: v - 1.0, x)
    b = lax.switch(k, [jnp.sin, jnp.cos, lambda v: v * v], x)
    return a, b


def gather_scatter(x, idx, upd):
    g = x[idx]
    h = x[:, idx[0]]
    s = x.at[idx].add(upd)
    m = x.at[idx, 1].max(upd[:, 0])
    d = lax.dynamic_slice(x, (idx[0], 1), (2, 2))
    u = lax.dynamic_update_slice(x, upd[:2, :2], (idx[1], 0))
    return g, h, s, m, d, u


def ffts(x, c):
    return jnp.fft.fft(c), jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x), n=8), jnp.fft.ifft2(c.reshape(2, 4))


def linalg(a, b):
    spd = a @ a.T + 4.0 * jnp.eye(4)
    l = jnp.linalg.cholesky(spd)
    x = jax.scipy.linalg.solve_triangular(l, b, lower=True)
    y = lax.linalg.triangular_solve(l, b, left_side=True, lower=True, transpose_a=True)
    return l, x, y


def randoms(key):
    k1, k2 = jax.random.split(key)
    u = jax.random.uniform(k1, (3, 4))
    n = jax.random.normal(k2, (5,))
    b = jax.random.bits(k1, (2, 2), dtype=jnp.uint32)
    return u, n, b


def specials(x, y):
    v, i = lax.top_k(x.T, 3)
    return (v, i, lax.erf(x), lax.erf_inv(jnp.tanh(x)), lax.lgamma(jnp.abs(x) + 1.0),
            lax.digamma(jnp.abs(x) + 1.0), jnp.cumsum(x, axis=0), jnp.cumprod(y), jnp.arctan2(x, y),
            jnp.sinh(x), jnp.arccosh(jnp.abs(x) + 1.0), jnp.isinf(x), jnp.nextafter(x, y),
            lax.logistic(x), jnp.cbrt(x), lax.bessel_i1e(x), lax.igamma(jnp.abs(x) + 1.0, jnp.abs(y) + 1.0))


def elementwise(a, b, i, j):
    return (a + b, a - b, a * b, a / b, jnp.maximum(a, b), jnp.minimum(a, b), a ** b, jnp.remainder(a, b),
            jnp.exp(a), jnp.log1p(jnp.abs(a)), jnp.expm1(a), jnp.floor(a), jnp.ceil(a), jnp.round(a),
            jnp.rint(a), jnp.sign(a), jnp.abs(i), -i, i & j, i | j, i ^ j, ~i, i << 2, i >> 1,
            lax.shift_right_logical(i, j), lax.population_count(i), lax.clz(i), jnp.clip(a, -1.0, 1.0),
            jnp.where(a > b, a, b), a.astype(jnp.int32), lax.bitcast_convert_type(a, jnp.int32),
            lax.reduce_precision(a, exponent_bits=5, mantissa_bits=10), jnp.isfinite(a), a == b, i != j,
            i // j, jnp.sqrt(jnp.abs(a)), lax.rsqrt(jnp.abs(a) + 1.0), jnp.tanh(a), jnp.tan(a),
            jnp.real(a + 1j * b), jnp.imag(a + 1j * b), jnp.conj(a + 1j * b))


def shapes(x, v):
    return (jnp.transpose(x, (1, 0, 2)), x.reshape(6, 4), jnp.concatenate([x, x], axis=1),
            jnp.pad(x, ((1, 2), (0, 0), (2, 1)), constant_values=1.5), x[:, 1:3:2, ::2],
            jnp.flip(x, axis=(0, 2)), jnp.broadcast_to(v, (3, 4)), jnp.arange(10, dtype=jnp.float32),
            jnp.einsum("ijk,kl->ijl", x, jnp.ones((4, 5))), jnp.max(x, axis=1), jnp.argmax(x, axis=2),
            jnp.sum(x), jnp.prod(x, axis=0), jnp.any(x > 0), jnp.all(x > 0, axis=(0, 1)),
            lax.pad(x, 0.0, ((-1, 1, 1), (0, 0, 0), (1, -1, 0))), jnp.expand_dims(v, 0) * jnp.ones((2, 1)),
            lax.optimization_barrier(x), jnp.tril(jnp.ones((3, 3))))


def dynamic_shapes(x):
    return jnp.sum(x * 2.0, axis=0)


def _f32(*shape):
    return jnp.ones(shape, jnp.float32)


FIXTURES = {
    "mlp": (mlp, _mlp_args),
    "cnn": (cnn, lambda: (_f32(3, 3, 2, 4), _f32(2, 2, 2, 6), _f32(2, 8, 8, 2))),
    "train_step": (train_step, lambda: (_f32(8, 4), _f32(4), _f32(16, 8), _f32(16, 4))),
    "conv_grad": (conv_grad, lambda: (_f32(4, 3, 3, 3), _f32(2, 3, 8, 8))),
    "reduce_window": (pools, lambda: (_f32(1, 6, 6, 2),)),
    "max_pool_grad": (max_pool_grad, lambda: (_f32(1, 4, 4, 2),)),
    "sort": (sorts, lambda: (_f32(3, 5), jnp.ones((3, 5), jnp.int32))),
    "while_loop": (loops, lambda: (jnp.int32(3), _f32(4))),
    "cond_switch": (branches, lambda: (jnp.float32(1), jnp.int32(1), _f32(4))),
    "gather_scatter": (gather_scatter, lambda: (_f32(5, 3), jnp.array([0, 2, 4]), _f32(3, 3))),
    "fft": (ffts, lambda: (_f32(8), jnp.ones(8, jnp.complex64))),
    "linalg": (linalg, lambda: (_f32(4, 4), _f32(4, 2))),
    "random": (randoms, lambda: (jax.random.PRNGKey(0),)),
    "special": (specials, lambda: (_f32(6, 2), _f32(6, 2))),
    "elementwise": (elementwise, lambda: (_f32(4), _f32(4), jnp.ones(4, jnp.int32), jnp.ones(4, jnp.int32))),
    "shapes": (shapes, lambda: (_f32(2, 3, 4), _f32(4))),
}


def main(names: list[str]) -> None:
    for name, (fn, make_args) in FIXTURES.items():
        if names and name not in names:
            continue
        text = jax.jit(fn).lower(*make_args()).as_text()
        (HERE / f"{name}.mlir").write_text(text)
        print(f"{name}.mlir: {len(text.splitlines())} lines")
    # Shape polymorphism: a symbolic batch dimension.
    if not names or "polymorphic" in names:
        from jax import export

        (b,) = export.symbolic_shape("b")
        exp = export.export(jax.jit(dynamic_shapes))(jax.ShapeDtypeStruct((b, 4), jnp.float32))
        # Locations name this file by its path in the repository, not on this machine.
        text = exp.mlir_module().replace(str(HERE.parents[3]) + "/", "")
        (HERE / "polymorphic.mlir").write_text(text)
        print("polymorphic.mlir")


if __name__ == "__main__":
    main(sys.argv[1:])
