"""Reverse-mode gradients: every op's gradient against finite differences,
tapes and variables, and gradients inside @tfrt.function."""

from __future__ import annotations

import numpy as np
import pytest

import tfrt
from tfrt.devices.ops import OPS
from tfrt.eager.tape import GRADIENTS, NOT_DIFFERENTIABLE

RNG = np.random.default_rng(11)
F64 = np.float64


def r(*shape, low=None):
    a = RNG.standard_normal(shape)
    return (np.abs(a) + low if low is not None else a).astype(F64)


COND = RNG.random((3, 4)) > 0.5

# op -> [(inputs, attrs, indices of the inputs to differentiate)]
CASES = {
    "add": [([r(3, 4), r(4)], {})], "sub": [([r(3, 1), r(1, 4)], {})],
    "mul": [([r(2, 3, 4), r(3, 4)], {})], "div": [([r(3, 4), r(4, low=0.5)], {})],
    "maximum": [([r(3, 4), r(3, 4)], {})], "minimum": [([r(3, 4), r(4)], {})],
    "pow": [([r(3, 4, low=0.5), r(3, 4)], {})],
    "where": [([COND, r(3, 4), r(4)], {})],
    **{op: [([r(3, 4)], {})] for op in ("relu", "neg", "abs", "sigmoid", "tanh", "exp", "copy")},
    **{op: [([r(3, 4, low=0.5)], {})] for op in ("log", "sqrt", "rsqrt")},
    "check_numerics": [([r(3)], {})],
    "bias_add": [([r(2, 3, 4), r(4)], {})],
    "matmul": [([r(3, 4), r(4, 5)], {}), ([r(4, 3), r(4, 5)], {"transpose_a": True}),
               ([r(3, 4), r(5, 4)], {"transpose_b": True}),
               ([r(4, 3), r(5, 4)], {"transpose_a": True, "transpose_b": True}),
               ([r(2, 1, 3, 4), r(3, 4, 2)], {})],
    "conv2d": [([r(1, 5, 5, 2), r(3, 3, 2, 3)], {}),
               ([r(2, 6, 5, 2), r(3, 2, 2, 2)], {"padding": "SAME", "strides": [2, 2]}),
               ([r(1, 7, 7, 1), r(2, 2, 1, 2)], {"dilations": [2, 2], "strides": [2, 1]})],
    "max_pool": [([r(1, 4, 4, 2)], {"ksize": [2, 2], "strides": [2, 2]}),
                 ([r(2, 5, 5, 1)], {"ksize": [3, 3], "strides": [2, 2], "padding": "SAME"})],
    "avg_pool": [([r(1, 4, 4, 2)], {"ksize": [2, 2], "strides": [1, 1]}),
                 ([r(2, 5, 5, 1)], {"ksize": [3, 2], "strides": [2, 2], "padding": "SAME"})],
    "batch_norm": [([r(2, 3), r(3), r(3), r(3), r(3, low=0.5)], {"epsilon": 0.01})],
    "softmax": [([r(3, 5)], {}), ([r(2, 3, 2)], {"axis": 1})],
    "reduce_sum": [([r(3, 4)], {"axes": [1]}), ([r(2, 3)], {})],
    "reduce_mean": [([r(2, 3, 4)], {"axes": [0, 2], "keepdims": True})],
    "reduce_max": [([r(3, 4)], {"axes": [0]})], "reduce_min": [([r(3, 4)], {})],
    "reshape": [([r(2, 6)], {"shape": [3, 4]})], "transpose": [([r(2, 3, 4)], {"perm": [2, 0, 1]})],
    "broadcast_to": [([r(3, 1)], {"shape": [2, 3, 4]})],
    "concat": [([r(2, 3), r(1, 3), r(4, 3)], {"axis": 0})],
    "slice": [([r(4, 5)], {"begin": [1, 2], "size": [2, -1]})],
    "strided_slice": [([r(7, 5)], {"begin": [1, 0], "end": [7, 5], "strides": [3, 2]}),
                      ([r(4, 4)], {"begin": [0, 1], "end": [3, 3], "strides": [1, 1]})],
    "pad": [([r(2, 3)], {"paddings": [1, 0, 2, 1]})],
    "cast": [([r(3)], {"dtype": np.float64})],
}  # fmt: skip


def test_every_op_has_a_gradient_or_none():
    assert set(GRADIENTS) | NOT_DIFFERENTIABLE == set(OPS)
    assert set(CASES) | NOT_DIFFERENTIABLE == set(OPS)


def _numeric(f, xs, i, eps=1e-6):
    x = xs[i]
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + eps
        up = f(xs)
        x[idx] = old - eps
        down = f(xs)
        x[idx] = old
        grad[idx] = (up - down) / (2 * eps)
    return grad


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    op = getattr(tfrt.ops, name)
    for inputs, attrs in CASES[name]:
        out_shape = op(*[tfrt.constant(x) for x in inputs], **attrs).shape
        weights = RNG.standard_normal(out_shape)

        def f(xs, attrs=attrs, weights=weights):
            return float((op(*[tfrt.constant(x) for x in xs], **attrs).numpy() * weights).sum())

        ts = [tfrt.constant(x) for x in inputs]
        with tfrt.GradientTape() as tape:
            tape.watch(ts)
            y = (op(*ts, **attrs) * tfrt.constant(weights)).sum()
        grads = tape.gradient(y, ts)
        xs = [x.copy() for x in inputs]
        for i, (x, g) in enumerate(zip(inputs, grads)):
            if x.dtype != F64:
                assert g is None
                continue
            assert g is not None and g.shape == x.shape, (name, i)
            np.testing.assert_allclose(g.numpy(), _numeric(f, xs, i), rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name} input {i} {attrs}")  # fmt: skip


def test_variables_are_watched_and_unconnected_sources_get_none():
    w = tfrt.Variable(np.ones((2, 2)), name="w")
    frozen = tfrt.Variable(np.ones(2), trainable=False)
    c = tfrt.constant(np.ones(2))
    with tfrt.GradientTape() as tape:
        y = ((w @ c) * frozen).sum()
    gw, gf, gc = tape.gradient(y, [w, frozen, c])
    np.testing.assert_array_equal(gw.numpy(), np.ones((2, 2)))
    assert gf is None and gc is None
    with pytest.raises(RuntimeError, match="only once"):
        tape.gradient(y, [w])


def test_persistent_tapes_and_higher_derivatives():
    x = tfrt.constant(np.array([0.5, 2.0]))
    with tfrt.GradientTape() as outer:
        outer.watch(x)
        with tfrt.GradientTape() as inner:
            inner.watch(x)
            y = (x * x * x).sum()
        dy = inner.gradient(y, x)  # 3 x^2, recorded by the outer tape
    d2y = outer.gradient(dy, x)  # 6 x
    np.testing.assert_allclose(dy.numpy(), 3 * x.numpy() ** 2)
    np.testing.assert_allclose(d2y.numpy(), 6 * x.numpy())
    with tfrt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = (x * 2).sum()
        b = (x * x).sum()
    np.testing.assert_allclose(tape.gradient(a, x).numpy(), [2, 2])
    np.testing.assert_allclose(tape.gradient(b, x).numpy(), [1, 4])


def test_gradients_on_a_device_stay_there():
    x = tfrt.constant(np.array([1.0, -2.0, 3.0]))
    with tfrt.device("cpu_async"):
        w = tfrt.Variable(np.array([0.5, 0.5, 0.5]))
        with tfrt.GradientTape() as tape:
            y = tfrt.ops.relu(w * x).sum()
        (g,) = tape.gradient(y, [w])
    assert g.device == "cpu_async:0"
    np.testing.assert_array_equal(g.numpy(), [1.0, 0.0, 3.0])


def test_gradients_inside_a_traced_function_equal_eager():
    rng = np.random.default_rng(0)
    params = [tfrt.Variable(rng.standard_normal(s) * 0.5) for s in ((4, 8), (8,), (8, 3), (3,))]
    x = tfrt.constant(rng.standard_normal((5, 4)))
    labels = tfrt.constant(np.eye(3)[rng.integers(0, 3, 5)])

    def loss_and_grads(x, labels):
        w1, b1, w2, b2 = params
        with tfrt.GradientTape() as tape:
            logits = tfrt.ops.tanh(x @ w1 + b1) @ w2 + b2
            loss = tfrt.ops.softmax_cross_entropy(logits, labels)
        return loss, tape.gradient(loss, params)

    eager_loss, eager_grads = loss_and_grads(x, labels)
    compiled = tfrt.function(loss_and_grads)
    loss, grads = compiled(x, labels)
    np.testing.assert_allclose(loss.numpy(), eager_loss.numpy(), rtol=1e-10)
    for g, e in zip(grads, eager_grads):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-9, atol=1e-12)
    assert "linalg" in compiled.get_concrete_function(x, labels).mlir
