"""Eager ops and @tfrt.function against references: numpy, central differences, each other.

The eager API follows numpy's dtypes and values (docs/eager.md), so numpy,
called with the semantics written out here, is the reference for values.
Gradients are checked against central differences of that numpy reference
in f64.  The same Python program is run eagerly and as a ``@tfrt.function``
(with Variables read and assigned inside, several SGD steps in one call):
the results, the gradients and the variables after the call must agree.

Bounded examples here; ``pytest -m slow tests/eager/test_oracle_eager.py``
runs many more (docs/compiler.md).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tfrt

FAST = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------------------
# Random training programs: h = x, then a chain of steps, loss = a reduction.

STEPS = ["matmul_w", "add_b", "mul_b", "tanh", "sigmoid", "square", "scale"]


def _forward_np(program, x, w, b):
    steps, reduce = program
    h = x
    for s in steps:
        if s == "matmul_w":
            h = h @ w
        elif s == "add_b":
            h = h + b
        elif s == "mul_b":
            h = h * b
        elif s == "tanh":
            h = np.tanh(h)
        elif s == "sigmoid":
            h = 1.0 / (1.0 + np.exp(-h))
        elif s == "square":
            h = h * h
        elif s == "scale":
            h = h * 0.5
    return h.sum() if reduce == "sum" else h.mean()


def _forward(program, x, w, b):
    """The same program with tfrt's ops (w and b read as the code reads them)."""
    steps, reduce = program
    h = x
    for s in steps:
        if s == "matmul_w":
            h = h @ w
        elif s == "add_b":
            h = h + b
        elif s == "mul_b":
            h = h * b
        elif s == "tanh":
            h = tfrt.ops.tanh(h)
        elif s == "sigmoid":
            h = tfrt.ops.sigmoid(h)
        elif s == "square":
            h = h * h
        elif s == "scale":
            h = h * 0.5
    return h.sum() if reduce == "sum" else h.mean()


def _train(program, x, w, b, n_steps: int, lr: float):
    """n_steps of SGD on (w, b); the losses and gradients of every step."""
    out = []
    for _ in range(n_steps):
        with tfrt.GradientTape() as tape:
            loss = _forward(program, x, w, b)
        gw, gb = tape.gradient(loss, [w, b])
        # A variable the program does not read has no gradient (None).
        gw = tfrt.ops.zeros_like(w) if gw is None else gw
        gb = tfrt.ops.zeros_like(b) if gb is None else gb
        w.assign_sub(gw * lr)
        b.assign(b - gb * lr)  # assign and assign_sub both
        out.append((loss, gw, gb))
    return out


def _central(f, a: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(a)
    it = np.nditer(a, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        up, down = a.copy(), a.copy()
        up[i] += h
        down[i] -= h
        g[i] = (f(up) - f(down)) / (2 * h)
    return g


@st.composite
def programs(draw):
    m = draw(st.integers(1, 3))
    n = draw(st.integers(1, 4))
    steps = draw(st.lists(st.sampled_from(STEPS), min_size=1, max_size=5))
    reduce = draw(st.sampled_from(["sum", "mean"]))
    seed = draw(st.integers(0, 2**31))
    n_steps = draw(st.integers(1, 3))
    return (tuple(steps), reduce), m, n, seed, n_steps


def _close(got, want, rtol: float, where: str) -> None:
    """Within ``rtol`` of the largest magnitude in ``want`` (a gradient's
    small entries carry the differences' error of its large ones)."""
    want = np.asarray(want)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=where)


def _check_program(case) -> None:
    program, m, n, seed, n_steps = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, n))
    w0 = rng.standard_normal((n, n)) * 0.5
    b0 = rng.standard_normal(n) * 0.5
    lr = 0.1
    results = {}
    for mode in ("eager", "function"):
        vw, vb = tfrt.Variable(w0.copy()), tfrt.Variable(b0.copy())
        xt = tfrt.constant(x)
        if mode == "eager":
            got = _train(program, xt, vw, vb, n_steps, lr)
        else:
            fn = tfrt.function(lambda xx, vw=vw, vb=vb: _train(program, xx, vw, vb, n_steps, lr))
            got = fn(xt)
        got = [tuple(t.numpy() for t in step) for step in got]
        results[mode] = (got, vw.numpy(), vb.numpy())
        # Each step against numpy's forward and its central differences at
        # the weights that step had (SGD from w0, b0 with the step's gradients).
        w, b = w0.copy(), b0.copy()
        for k, (loss, gw, gb) in enumerate(got):
            where = f"{mode} step {k} of {program}"
            _close(loss, _forward_np(program, x, w, b), 1e-9, where)
            if abs(loss) < 1e4:  # (where SGD diverges, differences of 1e-6 say nothing)
                _close(
                    gw,
                    _central(lambda v, b=b: _forward_np(program, x, v, b), w),
                    1e-5,
                    where + " d/dw",
                )
                _close(
                    gb,
                    _central(lambda v, w=w: _forward_np(program, x, w, v), b),
                    1e-5,
                    where + " d/db",
                )
            w, b = w - lr * gw, b - lr * gb
        _close(vw.numpy(), w, 1e-12, f"{mode}: w after the call")
        _close(vb.numpy(), b, 1e-12, f"{mode}: b after the call")
    # Eager and compiled: the same values (up to the fused operations' rounding).
    (ge, we, be), (gf, wf, bf) = results["eager"], results["function"]
    for k, (se, sf) in enumerate(zip(ge, gf)):
        for a, c in zip(se, sf):
            _close(c, a, 1e-10, f"eager and compiled, step {k} of {program}")
    _close(wf, we, 1e-10, "w")
    _close(bf, be, 1e-10, "b")


@FAST
@given(programs())
def test_sgd_steps_agree_eagerly_compiled_and_with_central_differences(case):
    _check_program(case)


@pytest.mark.slow
@MANY
@given(programs())
def test_sgd_steps_many(case):
    _check_program(case)


def test_audit_variable_gradient_after_an_assign_inside_a_function():
    """Reads after an assign are new reads: d/dva sum(va * va * x) after va = 3 va
    is 2 * (3 va) * x, eagerly and compiled (the compiled one counted each
    read's gradient once per read: 24 instead of 12)."""

    def body(va, x):
        va.assign(va * 3)
        with tfrt.GradientTape() as tape:
            loss = (va * va * x).sum()
        (g,) = tape.gradient(loss, [va])
        return g

    for run in (lambda va, x: body(va, x), lambda va, x: tfrt.function(lambda xx: body(va, xx))(x)):
        va = tfrt.Variable(np.array([1.0, 2.0]))
        g = run(va, tfrt.constant(np.array([1.0, 1.0])))
        np.testing.assert_array_equal(g.numpy(), [6.0, 12.0])
        np.testing.assert_array_equal(va.numpy(), [3.0, 6.0])


# ---------------------------------------------------------------------------
# Values against numpy, eagerly and compiled: the cases the audit found.

VALUES = [
    # bool reductions count (numpy: sum is an integer, mean a fraction).
    ("sum of bools", lambda t: (t > 0).sum(), lambda a: np.sum(a > 0)),
    ("mean of bools", lambda t: (t > 0).mean(), lambda a: np.mean(a > 0)),
    ("sum of bools on an axis", lambda t: tfrt.ops.reduce_sum(t > 0, axes=[0]), lambda a: np.sum(a > 0, axis=0)),
    ("mean of bools on an axis", lambda t: (t > 0).mean(axis=1), lambda a: np.mean(a > 0, axis=1)),
    ("max of bools", lambda t: tfrt.ops.reduce_max(t > 0), lambda a: np.max(a > 0)),
    # argmax: the first NaN, as numpy's.
    ("argmax", lambda t: tfrt.ops.argmax(t, axis=1), lambda a: np.argmax(a, axis=1)),
    # cast: NaN and inf have no integer value (0); in range: truncation.
    ("cast to i32", lambda t: tfrt.ops.cast(t, dtype=np.int32),
     lambda a: np.where(np.isfinite(a), np.trunc(np.where(np.isfinite(a), a, 0)), 0).astype(np.int32)),
    # -0.0 as a Python scalar keeps its sign.
    ("times -0.0", lambda t: 1.0 / (t * -0.0), lambda a: 1.0 / (a * -0.0)),
    ("times 0.0", lambda t: 1.0 / (t * 0.0), lambda a: 1.0 / (a * 0.0)),
]  # fmt: skip


@st.composite
def arrays_with_edges(draw):
    rows = draw(st.integers(1, 3))
    cols = draw(st.integers(1, 5))
    pool = [0.0, -0.0, 1.5, -2.5, 3.0, np.nan, np.inf, -np.inf, 7.0, -1e30]
    vals = draw(st.lists(st.sampled_from(pool), min_size=rows * cols, max_size=rows * cols))
    return np.array(vals, np.float64).reshape(rows, cols)


def _same(got: np.ndarray, want) -> None:
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(got, want)


@FAST
@given(arrays_with_edges())
def test_values_match_numpy_eagerly_and_compiled(a):
    x = tfrt.constant(a)
    for name, op, ref in VALUES:
        with np.errstate(all="ignore"):
            want = ref(a)
            _same(op(x).numpy(), want)
        fn = tfrt.function(op, name=name.replace(" ", "_").replace("-", "m").replace(".", "_"))
        _same(fn(x).numpy(), want)


def test_audit_minus_zero_after_zero():
    """The scalar cache and the trace cache keep -0.0 apart from 0.0."""
    x = tfrt.constant(np.array([1.0, 2.0]))
    assert (1 / (x * 0.0)).numpy().tolist() == [np.inf, np.inf]
    assert (1 / (x * -0.0)).numpy().tolist() == [-np.inf, -np.inf]

    @tfrt.function
    def scaled(t, s):
        return 1 / (t * s)

    assert scaled(x, 0.0).numpy().tolist() == [np.inf, np.inf]
    assert scaled(x, -0.0).numpy().tolist() == [-np.inf, -np.inf]
    assert len(scaled.concrete_functions) == 2
