"""StableHLO's ``convolution``, ``reduce_window`` and ``select_and_scatter``
through ``stablehlo-legalize-to-linalg``: small programs against numpy
written from the specification's definitions, and JAX programs against
``jax.jit`` (skipped without JAX)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from shlo_jax_check import check_jax, run

from tfrt.diagnostics import DiagnosticError

# --------------------------------------------------------------------------
# numpy references (the specification's formulas, loops and all)


def pad_ref(x, padding, value=0):
    """numpy's pad, negative widths cutting."""
    p = np.pad(x, [(max(lo, 0), max(hi, 0)) for lo, hi in padding], constant_values=value)
    return p[
        tuple(slice(max(-lo, 0), p.shape[i] - max(-hi, 0)) for i, (lo, hi) in enumerate(padding))
    ]


def conv_ref(x, w, strides, padding, lhs_dil, rhs_dil, groups=1):
    """NHWC x HWIO -> NHWC, as the spec defines convolution."""
    n, h, wd, c = x.shape
    kh, kw, ci, co = w.shape
    dil = np.zeros((n, (h - 1) * lhs_dil[0] + 1, (wd - 1) * lhs_dil[1] + 1, c), x.dtype)
    dil[:, :: lhs_dil[0], :: lhs_dil[1], :] = x
    p = pad_ref(dil, ((0, 0), tuple(padding[0]), tuple(padding[1]), (0, 0)))
    oh = (p.shape[1] - (kh - 1) * rhs_dil[0] - 1) // strides[0] + 1
    ow = (p.shape[2] - (kw - 1) * rhs_dil[1] - 1) // strides[1] + 1
    out = np.zeros((n, oh, ow, co), np.float64)
    fg = co // groups
    for b, i, j, f in itertools.product(range(n), range(oh), range(ow), range(co)):
        g = f // fg
        for a, bb in itertools.product(range(kh), range(kw)):
            row = p[
                b,
                i * strides[0] + a * rhs_dil[0],
                j * strides[1] + bb * rhs_dil[1],
                g * ci : (g + 1) * ci,
            ]
            out[b, i, j, f] += np.dot(row.astype(np.float64), w[a, bb, :, f])
    return out


def reduce_window_ref(x, init, fn, dims, strides, padding, base=None, wdil=None):
    base = base or [1] * x.ndim
    wdil = wdil or [1] * x.ndim
    shape = [(s - 1) * b + 1 for s, b in zip(x.shape, base)]
    d = np.full(shape, init, x.dtype)
    d[tuple(slice(None, None, b) for b in base)] = x
    p = pad_ref(d, [tuple(pp) for pp in padding], init)
    out_shape = [
        (s - (w - 1) * dl - 1) // st + 1 for s, w, st, dl in zip(p.shape, dims, strides, wdil)
    ]
    out = np.empty(out_shape, x.dtype)
    for idx in itertools.product(*map(range, out_shape)):
        win = p[
            tuple(
                slice(i * st, i * st + (w - 1) * dl + 1, dl)
                for i, st, w, dl in zip(idx, strides, dims, wdil)
            )
        ]
        acc = init
        for v in win.ravel():
            acc = fn(acc, v)
        out[idx] = acc
    return out


CONV = """
func.func @main(%x: tensor<{xs}xf32>, %w: tensor<{ws}xf32>) -> tensor<{os}xf32> {{
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
      window = {{stride = {st}, pad = {pad}, lhs_dilate = {ld}, rhs_dilate = {rd}}}
      {{batch_group_count = 1 : i64, feature_group_count = {g} : i64}}
      : (tensor<{xs}xf32>, tensor<{ws}xf32>) -> tensor<{os}xf32>
  return %0 : tensor<{os}xf32>
}}"""


@pytest.mark.parametrize(
    "strides,padding,lhs_dil,rhs_dil,groups",
    [
        ((1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), 1),
        ((2, 1), ((1, 2), (0, 1)), (1, 1), (1, 2), 1),  # the named op with strides, dilation
        ((1, 2), ((1, 0), (-1, 1)), (2, 1), (1, 1), 1),  # negative padding, lhs dilation
        ((1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 2),  # feature groups
    ],
)
def test_convolution_against_the_spec(strides, padding, lhs_dil, rhs_dil, groups):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 6, 4)).astype(np.float32)
    w = rng.standard_normal((3, 2, 4 // groups, 6)).astype(np.float32)
    want = conv_ref(x, w, strides, padding, lhs_dil, rhs_dil, groups)
    dims = lambda v: "[" + ", ".join(map(str, v)) + "]"
    text = CONV.format(
        xs="x".join(map(str, x.shape)),
        ws="x".join(map(str, w.shape)),
        os="x".join(map(str, want.shape)),
        st=dims(strides),
        pad="[" + ", ".join(dims(p) for p in padding) + "]",
        ld=dims(lhs_dil),
        rd=dims(rhs_dil),
        g=groups,
    )
    np.testing.assert_allclose(run(text, x, w), want, rtol=1e-4, atol=1e-4)


def test_convolution_layouts_batch_groups_and_reversal_generic_form():
    """Input [f, 0, b], kernel [o, 0, i], output [0, f, b], two batch groups and
    a reversed window: the general path (windows gathered, then contracted)."""
    text = """
    func.func @main(%x: tensor<3x7x4xf32>, %w: tensor<6x3x3xf32>) -> tensor<5x6x2xf32> {
      %0 = "stablehlo.convolution"(%x, %w) <{batch_group_count = 2 : i64,
          dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 2, input_feature_dimension = 0,
            input_spatial_dimensions = [1], kernel_input_feature_dimension = 2,
            kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [1],
            output_batch_dimension = 2, output_feature_dimension = 1, output_spatial_dimensions = [0]>,
          feature_group_count = 1 : i64, padding = dense<[[0, 0]]> : tensor<1x2xi64>,
          window_reversal = array<i1: true>}> : (tensor<3x7x4xf32>, tensor<6x3x3xf32>) -> tensor<5x6x2xf32>
      return %0 : tensor<5x6x2xf32>
    }"""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 7, 4)).astype(np.float32)  # [c, w, n]
    k = rng.standard_normal((6, 3, 3)).astype(np.float32)  # [o, w, i]
    want = np.zeros((5, 6, 2))
    # batch group g takes lhs batch [2g, 2g+2) and kernel outputs [3g, 3g+3)
    for g, n, o, f in itertools.product(range(2), range(2), range(5), range(3)):
        win = x[:, o : o + 3, g * 2 + n][:, ::-1]  # reversed window
        want[o, g * 3 + f, n] = np.sum(win.T * k[g * 3 + f])
    np.testing.assert_allclose(run(text, x, k), want, rtol=1e-4, atol=1e-4)


def test_reduce_window_with_padding_dilations_and_a_max_body():
    text = """
    func.func @main(%x: tensor<4x5xf32>) -> tensor<3x2xf32> {
      %init = stablehlo.constant dense<-1.0e+09> : tensor<f32>
      %0 = "stablehlo.reduce_window"(%x, %init) <{base_dilations = array<i64: 1, 2>,
          padding = dense<[[1, 0], [0, -1]]> : tensor<2x2xi64>, window_dilations = array<i64: 2, 1>,
          window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 1, 3>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %m : tensor<f32>
      }) : (tensor<4x5xf32>, tensor<f32>) -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32>
    }"""
    x = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)
    want = reduce_window_ref(
        x, np.float32(-1e9), max, [2, 3], [1, 3], [[1, 0], [0, -1]], [1, 2], [2, 1]
    )
    assert want.shape == (3, 2)
    np.testing.assert_array_equal(run(text, x), want)


def test_reduce_window_with_two_operands_is_a_windowed_argmax():
    text = """
    func.func @main(%x: tensor<6xf32>, %i: tensor<6xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
      %v0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %i0 = stablehlo.constant dense<-1> : tensor<i32>
      %0:2 = "stablehlo.reduce_window"(%x, %i, %v0, %i0) <{window_dimensions = array<i64: 3>}> ({
      ^bb0(%a: tensor<f32>, %ai: tensor<i32>, %b: tensor<f32>, %bi: tensor<i32>):
        %gt = stablehlo.compare GT, %b, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        %v = stablehlo.select %gt, %b, %a : tensor<i1>, tensor<f32>
        %j = stablehlo.select %gt, %bi, %ai : tensor<i1>, tensor<i32>
        stablehlo.return %v, %j : tensor<f32>, tensor<i32>
      }) : (tensor<6xf32>, tensor<6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
      return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
    }"""
    x = np.array([1, 5, 2, 2, 7, 0], np.float32)
    v, i = run(text, x, np.arange(6, dtype=np.int32))
    np.testing.assert_array_equal(v, [5, 5, 7, 7])
    np.testing.assert_array_equal(i, [1, 1, 4, 4])


def test_select_and_scatter_is_the_max_pool_gradient():
    """Overlapping 2-wide windows, stride 1, one element of padding on the right
    (never selected): each source value goes to its window's first maximum."""
    text = """
    func.func @main(%x: tensor<5xf32>, %s: tensor<5xf32>) -> tensor<5xf32> {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = "stablehlo.select_and_scatter"(%x, %s, %zero) <{padding = dense<[[0, 1]]> : tensor<1x2xi64>,
          window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %ge = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %ge : tensor<i1>
      }, {
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %sum = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %sum : tensor<f32>
      }) : (tensor<5xf32>, tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
      return %0 : tensor<5xf32>
    }"""
    x = np.array([1, 3, 3, -2, -5], np.float32)
    s = np.array([10, 20, 30, 40, 50], np.float32)
    # windows: [1,3]->1, [3,3]->1 (first max), [3,-2]->2, [-2,-5]->3, [-5,pad]->4
    np.testing.assert_array_equal(run(text, x, s), [0, 30, 30, 40, 50])


def test_convolution_with_mismatched_shapes_is_a_located_error():
    text = CONV.format(
        xs="1x4x4x2",
        ws="3x3x2x1",
        os="1x3x3x1",
        st="[1, 1]",
        pad="[[0, 0], [0, 0]]",
        ld="[1, 1]",
        rd="[1, 1]",
        g=1,
    )
    with pytest.raises(DiagnosticError) as info:
        run(text, np.zeros((1, 4, 4, 2), np.float32), np.zeros((3, 3, 2, 1), np.float32))
    assert "convolution" in str(info.value)


# --------------------------------------------------------------------------
# against jax.jit


def test_jax_cnn_layer_and_its_gradients():
    jax = pytest.importorskip("jax")
    lax = jax.lax
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 7, 9, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    dn = ("NHWC", "HWIO", "NHWC")

    def f(w, x):
        y = lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=dn)
        y = lax.reduce_window(y, -np.inf, lax.max, (1, 2, 2, 1), (1, 1, 1, 1), "SAME")
        return (y**2).sum()

    check_jax(jax.grad(f, argnums=(0, 1)), w, x, rtol=1e-4, atol=1e-3)


def test_jax_depthwise_convolution_and_weight_gradient():
    jax = pytest.importorskip("jax")
    lax = jax.lax
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 6, 5, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 1, 6)).astype(np.float32)

    def f(w, x):
        return lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=3
        )

    check_jax(f, w, x, rtol=1e-4, atol=1e-4)
    # the weight gradient of a depthwise convolution has batch groups
    check_jax(jax.grad(lambda w, x: (f(w, x) ** 2).sum()), w, x, rtol=1e-4, atol=1e-3)


@pytest.mark.slow
def test_jax_convolution_and_window_sweep():
    jax = pytest.importorskip("jax")
    lax = jax.lax
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 7, 9, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    xi = rng.integers(-5, 5, (1, 5, 5, 2)).astype(np.int32)
    wi = rng.integers(-5, 5, (2, 2, 2, 3)).astype(np.int32)
    dn = ("NHWC", "HWIO", "NHWC")
    x1 = rng.standard_normal((2, 10, 4)).astype(np.float32)
    w1 = rng.standard_normal((3, 2, 6)).astype(np.float32)
    x3 = rng.standard_normal((1, 4, 5, 6, 2)).astype(np.float32)
    w3 = rng.standard_normal((2, 2, 3, 2, 3)).astype(np.float32)
    cases = [
        (
            lambda x, w: lax.conv_general_dilated(
                x, w, (2, 3), ((1, 2), (0, 1)), dimension_numbers=dn
            ),
            x,
            w,
        ),
        (
            lambda x, w: lax.conv_general_dilated(
                x,
                w,
                (1, 1),
                ((0, 0), (1, 1)),
                lhs_dilation=(2, 1),
                rhs_dilation=(1, 2),
                dimension_numbers=dn,
            ),
            x,
            w,
        ),
        (
            lambda x, w: lax.conv_general_dilated(
                x.transpose(0, 3, 1, 2),
                w.transpose(3, 2, 0, 1),
                (1, 1),
                "SAME",
                dimension_numbers=("NCHW", "OIHW", "NCHW"),
            ),
            x,
            w,
        ),
        (
            lambda x, w: lax.conv_general_dilated(
                x, w, (2,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"), feature_group_count=2
            ),
            x1,
            w1,
        ),
        (
            lambda x, w: lax.conv_general_dilated(
                x, w, (1, 2, 1), "SAME", dimension_numbers=("NDHWC", "DHWIO", "NDHWC")
            ),
            x3,
            w3,
        ),
        (
            lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=dn),
            xi,
            wi,
        ),
        (lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=dn), x, w),
    ]
    for f, a, b in cases:
        check_jax(f, a, b, rtol=1e-4, atol=1e-4)

    def argmax_pool(x):
        idx = lax.broadcasted_iota(np.int32, x.shape, 1)

        def red(a, b):
            take = (b[0] > a[0]) | ((b[0] == a[0]) & (b[1] < a[1]))
            return lax.select(take, b[0], a[0]), lax.select(take, b[1], a[1])

        return lax.reduce_window(
            (x, idx), (np.float32(-np.inf), np.int32(0)), red, (1, 3, 1, 1), (1, 1, 1, 1), "VALID"
        )

    def avgpool(x):
        return lax.reduce_window(
            x, 0.0, lax.add, (1, 2, 3, 1), (1, 1, 2, 1), ((0, 0), (1, 1), (2, 0), (0, 0))
        )

    def mp(x):
        return lax.reduce_window(
            x, -np.inf, lax.max, (1, 3, 3, 1), (1, 1, 1, 1), ((0, 0), (1, 1), (1, 1), (0, 0))
        )

    for f in (
        argmax_pool,
        avgpool,
        jax.grad(lambda x: (avgpool(x) ** 2).sum()),
        jax.grad(lambda x: (mp(x) * np.arange(27.0, dtype=np.float32).reshape(1, 1, 9, 3)).sum()),
        lambda x: lax.reduce_window(
            x,
            0.0,
            lax.add,
            (1, 2, 2, 1),
            (1, 1, 1, 1),
            "VALID",
            base_dilation=(1, 2, 1, 1),
            window_dilation=(1, 1, 2, 1),
        ),
        lambda x: jax.numpy.cumsum(x, axis=1),
        lambda x: lax.cummax(x, axis=2),
    ):
        check_jax(f, x)
    check_jax(
        lambda x: lax.reduce_window(
            x, np.int32(2**31 - 1), lax.min, (2, 2, 1, 1), (1, 1, 1, 1), "SAME"
        ),
        xi,
    )
