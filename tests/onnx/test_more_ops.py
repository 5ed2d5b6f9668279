"""Casts to and from the microscaling floats (FLOAT8E8M0, FLOAT4E2M1, the 6-bit
floats), Det, ConvInteger, QLinearConv, STFT, MelWeightMatrix and Einsum with
ellipses and diagonals (``tools/onnx_ops_more.py``), against ONNX's node
tests, ONNX's reference implementation (``onnx.reference``: casts bit for
bit, the integer convolutions exactly) and onnxruntime.

The randomized differential runs are marked slow; a short version of each
runs by default.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ml_dtypes = pytest.importorskip("ml_dtypes")

from onnx import TensorProto as TP
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from tfrt.tools.import_onnx import ImportError_, import_onnx

from tfrt.onnx import backend

# -- helpers ------------------------------------------------------------------------


def _model(nodes, inputs, outputs, opset, inits=()):
    g = helper.make_graph(
        nodes if isinstance(nodes, list) else [nodes], "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=[numpy_helper.from_array(v, n) for n, v in inits],
    )  # fmt: skip
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    if any(s is None for _, _, s in outputs):
        # Outputs declared without a shape take the one ONNX's inference gives.
        m = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    return m


def _ours(m, feeds):
    return backend.run_model(m, [feeds[i.name] for i in m.graph.input if i.name in feeds])


def _ref(m, feeds):
    return ReferenceEvaluator(m).run(None, feeds)


def _ort(m, feeds):
    ort = pytest.importorskip("onnxruntime")
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)


def _bits_equal(got, want):
    """Bit for bit on one-byte types; values (NaN equal to NaN, -0 apart from 0) otherwise."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if got.dtype.itemsize == 1 and got.dtype.kind == "V":
        bad = got.view(np.uint8) != want.view(np.uint8)
    elif got.dtype.kind in "fV":
        g, w = got.astype(np.float64), want.astype(np.float64)
        bad = ~(((g == w) & (np.signbit(g) == np.signbit(w))) | (np.isnan(g) & np.isnan(w)))
    else:
        bad = got != want
    return np.flatnonzero(bad)


# -- ONNX's node tests ----------------------------------------------------------------

NODE_TESTS = [
    "test_cast_e8m0_FLOAT16_to_FLOAT8E8M0", "test_cast_e8m0_FLOAT8E8M0_to_FLOAT", "test_cast_e8m0_FLOAT8E8M0_to_FLOAT16",
    "test_cast_e8m0_FLOAT_to_FLOAT8E8M0", "test_cast_FLOAT16_to_FLOAT4E2M1", "test_cast_FLOAT_to_FLOAT4E2M1",
    "test_castlike_FLOAT16_to_FLOAT4E2M1", "test_castlike_FLOAT_to_FLOAT4E2M1", "test_castlike_FLOAT16_to_FLOAT4E2M1_expanded",
    "test_castlike_FLOAT_to_FLOAT4E2M1_expanded", "test_det_2d", "test_det_nd", "test_convinteger_with_padding",
    "test_convinteger_without_padding", "test_qlinearconv", "test_stft", "test_stft_with_window", "test_melweightmatrix",
    "test_einsum_batch_diagonal",
]  # fmt: skip


def _node_cases():
    import onnx.backend.test.case.node as node_cases

    # Importing a case module registers its cases (once: another test module
    # may have imported it already), so the whole list is searched.
    for m in ("cast", "castlike", "det", "convinteger", "qlinearconv", "stft", "melweightmatrix", "einsum"):
        importlib.import_module(f"onnx.backend.test.case.node.{m}")
    return {c.name: c for c in node_cases._NodeTestCases}


@pytest.fixture(scope="module")
def node_cases():
    return _node_cases()


@pytest.mark.parametrize("name", NODE_TESTS)
def test_onnx_node_test(node_cases, name):
    from onnx.backend.test.runner import Runner

    case = node_cases[name]
    rep = backend.prepare(case.model)
    arr = lambda vs: [numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else v for v in vs]
    for ins, outs in case.data_sets:
        got = list(rep.run(arr(ins)))
        want = arr(outs)
        Runner.assert_similar_outputs(want, got, rtol=case.rtol, atol=case.atol)
        for g, w in zip(got, want):
            if np.asarray(w).dtype.itemsize == 1 and np.asarray(w).dtype.kind == "V":  # small floats: bit for bit
                assert _bits_equal(g, w).size == 0


def test_the_node_tests_are_not_listed_as_expected_failures():
    import os
    import sys

    sys.path.insert(0, os.path.dirname(__file__))
    from backend_expected import EXPECTED_FAILURES

    assert not set(NODE_TESTS) & set(EXPECTED_FAILURES)


# -- casts --------------------------------------------------------------------------

_SPECIAL = np.array([
    0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1, 1.5, 1.25, 1.75, 2.0**127, 1.5 * 2.0**127, 1.25 * 2.0**127, 3.4e38,
    2.0**-126, 2.0**-127, 1.5 * 2.0**-127, 1.25 * 2.0**-127, 1.75 * 2.0**-127, 2.0**-149, 0.75 * 2.0**-126, 6, 6.5, 7,
    5, 4.5, 0.25, 0.2500001, 7.5, 8, 28, 30, 32, 0.0625, 0.125, -3.25, -1.5, 1e-3, 3e5,
], np.float32)  # fmt: skip


def _cast_inputs(dt, n=600, seed=0):
    """Special values, random f32 bit patterns, random magnitudes; as ``dt``."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    mags = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(np.float32)
    xs = np.concatenate([_SPECIAL, bits, mags])
    with np.errstate(all="ignore"):
        if np.dtype(dt).kind in "iub":
            return (xs[np.isfinite(xs)] % 1e6).astype(np.int64).astype(dt)
        if np.dtype(dt) == np.float64:
            x64 = xs.astype(np.float64)
            return np.concatenate([x64, x64 * (1 + 2.0**-30), [2.0**128, 2.0**127 * 1.99999999]])
        return xs.astype(dt)


_SRC = {TP.FLOAT: np.float32, TP.FLOAT16: np.float16, TP.BFLOAT16: ml_dtypes.bfloat16, TP.DOUBLE: np.float64,
        TP.INT32: np.int32, TP.UINT8: np.uint8, TP.BOOL: np.bool_, TP.INT64: np.int64}  # fmt: skip
_E8M0_CASES = [(s, mode, sat) for s in _SRC for mode in ("up", "down", "nearest") for sat in (0, 1)]
_E8M0_FAST = [(TP.FLOAT, m, s) for m in ("up", "down", "nearest") for s in (0, 1)] + [(TP.FLOAT16, "up", 1), (TP.DOUBLE, "nearest", 0),
                                                                                        (TP.INT32, "down", 1)]  # fmt: skip


def _check_cast(src, to, attrs, opset, x, op="Cast"):
    if op == "Cast":
        node = helper.make_node("Cast", ["x"], ["y"], to=to, **attrs)
        m = _model(node, [("x", src, x.shape)], [("y", to, x.shape)], opset)
        feeds = {"x": x}
    else:
        like = np.zeros(0, helper.tensor_dtype_to_np_dtype(to))
        node = helper.make_node("CastLike", ["x", "like"], ["y"], **attrs)
        m = _model(node, [("x", src, x.shape), ("like", to, (0,))], [("y", to, x.shape)], opset)
        feeds = {"x": x, "like": like}
    if to == TP.FLOAT8E8M0:
        mode = "up" if op == "CastLike" else attrs.get("round_mode", "up")
        want = _e8m0_spec(x, mode, attrs.get("saturate", 1))
    else:
        want = _ref(m, feeds)[0]
    got = _ours(m, feeds)[0]
    bad = _bits_equal(got, want)
    assert bad.size == 0, f"{bad.size} differ: x={x[bad[:5]]} got={np.asarray(got)[bad[:5]]} want={np.asarray(want)[bad[:5]]}"


def _e8m0_spec(x, mode, sat):
    """ONNX's Cast to FLOAT8E8M0 (its table and round_mode text), from the
    value as f32: a power of two in [2^-127, 2^127] rounds by ``mode``; 0 and
    values below 2^-127 give 2^-127 with ``saturate``, NaN without; +inf and
    values above 2^127 give 2^127 with ``saturate``, NaN without; negative
    values (undefined) as 0; NaN stays NaN.  (ONNX's reference differs at 0,
    at the ends and on f32 subnormals: 2^-127 itself rounds up to 2^-126
    there.)"""
    with np.errstate(all="ignore"):
        b = np.asarray(x).astype(np.float32).view(np.uint32).astype(np.int64)
    mag, e = b & 0x7FFFFFFF, (b >> 23) & 0xFF
    frac = np.where(e == 0, (b << 1) & 0x7FFFFF, b & 0x7FFFFF)
    inc = {"up": frac != 0, "nearest": (frac & 0x400000) != 0, "down": np.zeros_like(frac, bool)}[mode]
    code = e + inc
    code = np.where(mag > 0x7F000000, 0xFE if sat else 0xFF, code)
    code = np.where(mag < 0x00400000, 0 if sat else 0xFF, code)
    code = np.where(b >> 31 == 1, 0 if sat else 0xFF, code)
    code = np.where(mag > 0x7F800000, 0xFF, code)
    return code.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu)


def test_e8m0_rule_follows_the_table_and_onnxruntime():
    """The rule above at the points ONNX's table names, and bit for bit
    against onnxruntime (read back through a Cast to float) on random bits."""
    s = lambda v, mode="up", sat=1: float(_e8m0_spec(np.array([v], np.float32), mode, sat).astype(np.float32)[0])
    assert s(np.inf) == 2.0**127 and np.isnan(s(np.inf, "nearest", 0))
    assert s(0.0) == 2.0**-127 and np.isnan(s(0.0, "nearest", 0)) and np.isnan(s(2.0**-130, "up", 0))
    assert s(2.0**-127) == 2.0**-127 and s(1.25 * 2.0**-127) == 2.0**-126 and s(1.25 * 2.0**-127, "nearest") == 2.0**-127
    assert s(3.0, "down") == 2.0 and s(3.0, "nearest") == 4.0 and s(2.0**127 * 1.5, "down", 0) != s(2.0**127 * 1.5, "down", 0)
    ort = pytest.importorskip("onnxruntime")
    x = _cast_inputs(np.float32, 400)
    for mode in ("up", "down", "nearest"):
        for sat in (0, 1):
            nodes = [helper.make_node("Cast", ["x"], ["z"], to=TP.FLOAT8E8M0, round_mode=mode, saturate=sat),
                     helper.make_node("Cast", ["z"], ["y"], to=TP.FLOAT)]  # fmt: skip
            m = _model(nodes, [("x", TP.FLOAT, x.shape)], [("y", TP.FLOAT, x.shape)], 24)
            got = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
            assert _bits_equal(got, _e8m0_spec(x, mode, sat).astype(np.float32)).size == 0, (mode, sat)


def _e8m0(src, mode, sat):
    _check_cast(src, TP.FLOAT8E8M0, {"round_mode": mode, "saturate": sat}, 25, _cast_inputs(_SRC[src]))


@pytest.mark.parametrize("src,mode,sat", _E8M0_FAST)
def test_cast_to_e8m0_is_bit_exact(src, mode, sat):
    _e8m0(src, mode, sat)


@pytest.mark.slow
@pytest.mark.parametrize("src,mode,sat", _E8M0_CASES)
def test_cast_to_e8m0_every_source_and_mode(src, mode, sat):
    _e8m0(src, mode, sat)


@pytest.mark.parametrize("to", [TP.FLOAT, TP.FLOAT16, TP.BFLOAT16, TP.DOUBLE, TP.FLOAT8E4M3FN, TP.FLOAT8E5M2, TP.UINT8])
def test_cast_from_e8m0_every_code(to):
    codes = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu)
    if to == TP.UINT8:  # integers: in range only (NaN and large values are undefined)
        codes = codes[120:134]
    _check_cast(TP.FLOAT8E8M0, to, {}, 25, codes)


def test_cast_to_e8m0_through_castlike_rounds_up():
    _check_cast(TP.FLOAT, TP.FLOAT8E8M0, {}, 25, _cast_inputs(np.float32, 100), op="CastLike")
    _check_cast(TP.FLOAT, TP.FLOAT8E8M0, {"saturate": 0}, 25, _cast_inputs(np.float32, 100), op="CastLike")


_SMALL_TO = [(TP.FLOAT4E2M1, 23), (TP.FLOAT6E2M3, 28), (TP.FLOAT6E3M2, 28)]


@pytest.mark.parametrize("to,opset", _SMALL_TO)
@pytest.mark.parametrize("src", [TP.FLOAT, TP.FLOAT16])
def test_cast_to_4_and_6_bit_floats_is_bit_exact(src, to, opset):
    for sat in (0, 1):
        _check_cast(src, to, {"saturate": sat}, opset, _cast_inputs(_SRC[src], 300))


@pytest.mark.slow
@pytest.mark.parametrize("to,opset", _SMALL_TO)
@pytest.mark.parametrize("src", list(_SRC))
def test_cast_to_4_and_6_bit_floats_every_source(src, to, opset):
    for sat in (0, 1):
        _check_cast(src, to, {"saturate": sat}, opset, _cast_inputs(_SRC[src], 3000, seed=src))
    _check_cast(src, to, {}, opset, _cast_inputs(_SRC[src], 300), op="CastLike")


@pytest.mark.parametrize("to,opset", _SMALL_TO)
def test_cast_from_4_and_6_bit_floats_every_code(to, opset):
    dt = helper.tensor_dtype_to_np_dtype(to)
    n = 16 if to == TP.FLOAT4E2M1 else 64
    codes = np.arange(n, dtype=np.uint8).view(dt)
    for dst in (TP.FLOAT, TP.FLOAT16, TP.DOUBLE, TP.BFLOAT16, TP.FLOAT8E8M0):
        _check_cast(to, dst, {}, opset if dst != TP.FLOAT8E8M0 else max(opset, 25), codes)


def test_castlike_rounds_up_whatever_its_round_mode_says_and_unknown_modes_are_refused():
    """CastLike's function body and ONNX's reference both cast with the
    default round_mode (up); a Cast's unknown mode is an error at the node."""
    x = _cast_inputs(np.float32, 50)
    up = _e8m0_spec(x, "up", 1)
    for mode in ("down", "nearest"):
        node = helper.make_node("CastLike", ["x", "like"], ["y"], round_mode=mode)
        m = _model(node, [("x", TP.FLOAT, x.shape), ("like", TP.FLOAT8E8M0, (0,))], [("y", TP.FLOAT8E8M0, x.shape)], 25)
        got = _ours(m, {"x": x, "like": np.zeros(0, ml_dtypes.float8_e8m0fnu)})[0]
        assert _bits_equal(got, up).size == 0
    node = helper.make_node("Cast", ["x"], ["y"], name="c", to=TP.FLOAT8E8M0, round_mode="sideways")
    m = _model(node, [("x", TP.FLOAT, (3,))], [("y", TP.FLOAT8E8M0, (3,))], 25)
    with pytest.raises(ImportError_, match=r"node 'c' \(Cast\): round_mode 'sideways' is not one of"):
        _ours(m, {"x": np.ones(3, np.float32)})


# -- Det ----------------------------------------------------------------------------


def _det_model(shape, tp, opset=22):
    return _model(helper.make_node("Det", ["x"], ["y"], name="det"), [("x", tp, shape)], [("y", tp, shape[:-2])], opset)


def test_det_exact_cases():
    """Integer matrices whose determinants f64 elimination gets exactly: a
    singular one is 0, a permutation is its sign, a zero column is 0."""
    xs = np.array([
        [[1, 2, 3], [2, 4, 6], [1, 0, 1]],  # singular
        [[0, 0, 1], [1, 0, 0], [0, 1, 0]],  # a cyclic permutation: +1
        [[0, 1, 0], [1, 0, 0], [0, 0, 1]],  # a swap: -1
        [[0, 2, 3], [0, 4, 5], [0, 6, 7]],  # a zero column
        [[2, 0, 0], [0, 3, 0], [0, 0, -4]],
    ], np.float32)  # fmt: skip
    y = _ours(_det_model((5, 3, 3), TP.FLOAT), {"x": xs})[0]
    np.testing.assert_array_equal(y, np.array([0, 1, -1, 0, -24], np.float32))
    assert y.dtype == np.float32


def _det_random(seed, shapes):
    rng = np.random.default_rng(seed)
    for shape in shapes:
        for tp, dt in ((TP.FLOAT, np.float32), (TP.DOUBLE, np.float64), (TP.FLOAT16, np.float16)):
            x = rng.standard_normal(shape).astype(dt)
            m = _det_model(shape, tp)
            y = _ours(m, {"x": x})[0]
            want = np.linalg.det(x.astype(np.float64))
            assert y.dtype == dt and y.shape == want.shape
            tol = {np.float64: 1e-11, np.float32: 1e-6, np.float16: 1e-3}[dt]
            with np.errstate(over="ignore"):
                want_t = want.astype(dt).astype(np.float64)  # f16 overflows to inf past 65504
            np.testing.assert_allclose(y.astype(np.float64), np.where(np.isinf(want_t), want_t, want), rtol=tol, atol=tol * 1e-3)
            if dt == np.float32:
                np.testing.assert_allclose(y, _ort(m, {"x": x})[0], rtol=1e-4, atol=1e-6)


def test_det_against_numpy_and_onnxruntime():
    _det_random(0, [(4, 4), (2, 3, 3), (1, 1)])


@pytest.mark.slow
def test_det_against_numpy_and_onnxruntime_more():
    _det_random(1, [(3, 2, 5, 5), (8, 8), (2, 16, 16), (40, 40), (2, 1, 2, 2)])


def test_det_refusals():
    with pytest.raises(ImportError_, match=r"node 'det' \(Det\): matrices of size 65: at most 64"):
        _ours(_det_model((65, 65), TP.FLOAT), {"x": np.zeros((65, 65), np.float32)})
    with pytest.raises(ImportError_, match=r"node 'det' \(Det\): input of shape \(2, 3\): \[\.\.\., M, M\]"):
        _ours(_det_model((2, 3), TP.FLOAT), {"x": np.zeros((2, 3), np.float32)})


# -- ConvInteger, QLinearConv ------------------------------------------------------


def _conv_case(rng, r, signed_x, signed_w, per_channel, attrs_kind):
    n, c, m, g = 2, 4, 6, 1
    if attrs_kind == "group":
        g = 2
    k = [3] * r if attrs_kind != "kernel" else [2] * r
    xs = [7] * r
    attrs = {}
    if attrs_kind == "pads":
        attrs["pads"] = [1] * r + [2] * r
    elif attrs_kind == "strides":
        attrs.update(strides=[2] * r, dilations=[2] * r, pads=[1] * (2 * r))
    elif attrs_kind in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        attrs.update(auto_pad=attrs_kind, strides=[2] * r)
    elif attrs_kind == "group":
        attrs["group"] = g
    xdt = np.int8 if signed_x else np.uint8
    wdt = np.int8 if signed_w else np.uint8
    info_x, info_w = np.iinfo(xdt), np.iinfo(wdt)
    x = rng.integers(info_x.min, info_x.max + 1, [n, c, *xs]).astype(xdt)
    w = rng.integers(info_w.min, info_w.max + 1, [m, c // g, *k]).astype(wdt)
    xz = np.array(rng.integers(info_x.min, info_x.max + 1), xdt)
    wz = rng.integers(info_w.min, info_w.max + 1, [m] if per_channel else []).astype(wdt)
    return x, w, xz, wz, attrs


_CONV_KINDS = ["plain", "pads", "strides", "SAME_UPPER", "SAME_LOWER", "VALID", "group", "kernel"]


def _as_2d(m, feeds, r):
    """A 1-D convolution as the 2-D one of height 1 (the reference's per-channel
    zero points and scales are 2-D only)."""
    if r == 2:
        return m, feeds
    node = onnx.NodeProto()
    node.CopyFrom(m.graph.node[0])
    for at in node.attribute:
        if at.name in ("strides", "dilations", "kernel_shape"):
            at.ints[:] = [1] + list(at.ints)
        elif at.name == "pads":
            at.ints[:] = [0, at.ints[0], 0, at.ints[1]]
    feeds = {k: (v[:, :, None] if k in ("x", "w") else v) for k, v in feeds.items()}
    tps = {i.name: i.type.tensor_type.elem_type for i in m.graph.input}
    out = m.graph.output[0].type.tensor_type.elem_type
    return _model(node, [(k, tps[k], v.shape) for k, v in feeds.items()], [("y", out, None)], m.opset_import[0].version), feeds


def _conv_integer(seed, kinds, rs=(1, 2)):
    rng = np.random.default_rng(seed)
    tp = {np.dtype(np.int8): TP.INT8, np.dtype(np.uint8): TP.UINT8}
    for r in rs:
        for kind in kinds:
            for sx, sw, pc in ((False, False, False), (True, False, True), (False, True, True), (True, True, False)):
                x, w, xz, wz, attrs = _conv_case(rng, r, sx, sw, pc, kind)
                node = helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], **attrs)
                feeds = {"x": x, "w": w, "xz": xz, "wz": wz}
                m = _model(node, [(k, tp[v.dtype], v.shape) for k, v in feeds.items()], [("y", TP.INT32, None)], 10)
                got = _ours(m, feeds)[0]
                want = _ref(*_as_2d(m, feeds, r))[0]
                if r == 1:
                    want = want[:, :, 0]
                assert got.dtype == np.int32
                np.testing.assert_array_equal(got, want, err_msg=f"r={r} {kind} {attrs}")
                if not pc and not sx and not sw and r == 2:
                    np.testing.assert_array_equal(got, _ort(m, feeds)[0])


def test_conv_integer_against_the_reference_and_onnxruntime():
    _conv_integer(0, ["pads", "strides", "group"], rs=(2,))


@pytest.mark.slow
def test_conv_integer_against_the_reference_and_onnxruntime_every_case():
    _conv_integer(1, _CONV_KINDS)


def _qlinear_conv(seed, kinds, rs=(1, 2), bias=True):
    rng = np.random.default_rng(seed)
    tp = {np.dtype(np.int8): TP.INT8, np.dtype(np.uint8): TP.UINT8, np.dtype(np.float32): TP.FLOAT, np.dtype(np.int32): TP.INT32}
    ort_diff = 0
    for r in rs:
        for kind in kinds:
            for sx, sw, pc in ((False, False, False), (False, False, True), (True, True, True), (False, True, False)):
                x, w, xz, wz, attrs = _conv_case(rng, r, sx, sw, pc, kind)
                m_out = w.shape[0]
                xsc = np.array(rng.uniform(0.001, 0.02), np.float32)
                wsc = rng.uniform(0.001, 0.02, [m_out] if pc else []).astype(np.float32)
                ysc = np.array(rng.uniform(0.05, 0.5), np.float32)
                yz = np.array(rng.integers(0, 256) if not sx else rng.integers(-128, 128), x.dtype)
                feeds = {"x": x, "xs": xsc, "xz": xz, "w": w, "ws": wsc, "wz": wz, "ys": ysc, "yz": yz}
                if bias:
                    feeds["b"] = rng.integers(-5000, 5000, [m_out]).astype(np.int32)
                node = helper.make_node("QLinearConv", list(feeds), ["y"], **attrs)
                m = _model(node, [(k, tp[v.dtype], v.shape) for k, v in feeds.items()], [("y", tp[x.dtype], None)], 10)
                got = _ours(m, feeds)[0]
                want = _ref(*_as_2d(m, feeds, r))[0]
                np.testing.assert_array_equal(got, want[:, :, 0] if r == 1 else want, err_msg=f"{kind} {attrs}")
                theirs = _ort(m, feeds)[0]
                # onnxruntime requantizes in f32: a value next to a rounding tie may differ by one.
                d = np.abs(got.astype(np.int32) - theirs.astype(np.int32))
                assert d.max() <= 1, f"{kind} {attrs}"
                ort_diff += int((d > 0).sum())
    return ort_diff


def test_qlinear_conv_against_the_reference_and_onnxruntime():
    _qlinear_conv(0, ["pads", "strides"], rs=(2,))


@pytest.mark.slow
def test_qlinear_conv_against_the_reference_and_onnxruntime_every_case():
    _qlinear_conv(1, _CONV_KINDS)
    _qlinear_conv(2, ["plain"], bias=False)


def test_conv_integer_refuses_a_per_channel_input_zero_point():
    node = helper.make_node("ConvInteger", ["x", "w", "xz"], ["y"], name="ci")
    m = _model(node, [("x", TP.UINT8, (1, 2, 3, 3)), ("w", TP.UINT8, (1, 2, 2, 2)), ("xz", TP.UINT8, (2,))], [("y", TP.INT32, None)], 10)
    with pytest.raises(ImportError_, match=r"node 'ci' \(ConvInteger\): x_zero_point of shape \(2,\): one zero point per tensor only"):
        _ours(m, {"x": np.zeros((1, 2, 3, 3), np.uint8), "w": np.zeros((1, 2, 2, 2), np.uint8), "xz": np.zeros(2, np.uint8)})


# -- STFT, MelWeightMatrix --------------------------------------------------------------


def _stft_numpy(sig, step, n, window, onesided):
    """In f64: frames times the window, numpy's FFT, rounded to the signal's type."""
    x = sig.astype(np.float64)
    xc = x[..., 0] + (1j * x[..., 1] if x.shape[-1] == 2 else 0)
    frames = 1 + (x.shape[1] - n) // step
    fr = np.stack([xc[:, f * step:f * step + n] for f in range(frames)], 1)
    if window is not None:
        fr = fr * window.astype(np.float64)
    y = np.fft.fft(fr, axis=-1)[..., : (n // 2 + 1 if onesided else n)]
    return np.stack([y.real, y.imag], -1).astype(sig.dtype)


def _stft(seed, cases):
    rng = np.random.default_rng(seed)
    for length, c, step, n, win, onesided, dt in cases:
        tp = {np.float32: TP.FLOAT, np.float64: TP.DOUBLE}[dt]
        sig = rng.standard_normal((2, length, c)).astype(dt)
        feeds = {"sig": sig, "step": np.array(step, np.int64)}
        ins = ["sig", "step"]
        window = None
        if win:
            window = rng.uniform(0, 1, n).astype(dt)
            feeds["win"] = window
            ins.append("win")
        else:
            ins.append("")
        feeds["len"] = np.array(n, np.int64)
        ins.append("len")
        node = helper.make_node("STFT", ins, ["y"], onesided=onesided)
        inputs = [(k, {np.dtype(dt): tp, np.dtype(np.int64): TP.INT64}[v.dtype], v.shape) for k, v in feeds.items()]
        want = _stft_numpy(sig, step, n, window, onesided)
        m = _model(node, inputs, [("y", tp, want.shape)], 17)
        got = _ours(m, feeds)[0]
        assert got.dtype == dt and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6 if dt == np.float32 else 1e-12, atol=1e-5 if dt == np.float32 else 1e-12)
        if c == 1:
            np.testing.assert_allclose(got, _ort(m, feeds)[0], rtol=1e-4, atol=1e-4)


def test_stft_against_numpy_and_onnxruntime():
    _stft(0, [(64, 1, 8, 16, True, 1, np.float32), (50, 2, 7, 12, False, 0, np.float64), (33, 1, 5, 10, False, 0, np.float32)])


@pytest.mark.slow
def test_stft_against_numpy_and_onnxruntime_more():
    cases = [(length, c, step, n, win, one, dt) for length, step, n in ((64, 8, 16), (100, 9, 31), (17, 1, 17), (40, 40, 7))
             for c in (1, 2) for win in (False, True) for one in (0, 1) for dt in (np.float32, np.float64) if not (c == 2 and one)]  # fmt: skip
    _stft(1, cases)


def test_stft_refuses_a_window_of_another_length():
    node = helper.make_node("STFT", ["sig", "step", "win", "len"], ["y"], name="st")
    feeds = {"sig": np.zeros((1, 32, 1), np.float32), "step": np.array(4, np.int64), "win": np.ones(8, np.float32), "len": np.array(16, np.int64)}
    tps = {"sig": TP.FLOAT, "step": TP.INT64, "win": TP.FLOAT, "len": TP.INT64}
    m = _model(node, [(k, tps[k], v.shape) for k, v in feeds.items()], [("y", TP.FLOAT, (1, 5, 9, 2))], 17)
    with pytest.raises(ImportError_, match=r"node 'st' \(STFT\): a window of 8 values for frames of 16"):
        _ours(m, feeds)


@pytest.mark.parametrize("params", [(8, 16, 8192, 0.0, 4096.0), (20, 64, 16000, 100.0, 7000.0), (5, 33, 22050, 30.0, 10000.0)])
def test_mel_weight_matrix_against_onnxruntime(params):
    bins, dft, rate, lo, hi = params
    feeds = {"bins": np.array(bins, np.int32), "dft": np.array(dft, np.int32), "rate": np.array(rate, np.int32),
             "lo": np.array(lo, np.float32), "hi": np.array(hi, np.float32)}  # fmt: skip
    tps = {np.dtype(np.int32): TP.INT32, np.dtype(np.float32): TP.FLOAT}
    node = helper.make_node("MelWeightMatrix", list(feeds), ["y"])
    m = _model(node, [(k, tps[v.dtype], v.shape) for k, v in feeds.items()], [("y", TP.FLOAT, (dft // 2 + 1, bins))], 17)
    got = _ours(m, feeds)[0]
    np.testing.assert_array_equal(got, _ref(m, feeds)[0])
    np.testing.assert_allclose(got, _ort(m, feeds)[0], rtol=1e-6, atol=1e-7)


# -- Einsum with ellipses and repeated indices --------------------------------------------

_EINSUM = [
    ("...ii->...i", [(3, 5, 5)]), ("ii->i", [(4, 4)]), ("ii", [(4, 4)]), ("...ii", [(2, 3, 3)]), ("i...i->...", [(3, 2, 3)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]), ("...ij,...jk", [(2, 1, 3, 4), (1, 5, 4, 2)]), ("bii->b", [(2, 3, 3)]),
    ("ij...,jk...->ik...", [(2, 3, 1), (3, 2, 4)]), ("...,...->...", [(2, 3), (1, 3)]), ("Ab...,b...->...A", [(2, 3, 4), (3, 1)]), ("iij,jkk->ik", [(3, 3, 2), (2, 4, 4)]),
    ("a...a,a...->...", [(2, 3, 2), (2, 3)]), ("i,i", [(5,), (5,)]),
]  # fmt: skip


@pytest.mark.parametrize("eq,shapes", _EINSUM)
def test_einsum_ellipses_and_diagonals_against_numpy(eq, shapes):
    rng = np.random.default_rng(len(eq))
    feeds = {f"x{i}": rng.standard_normal(s) for i, s in enumerate(shapes)}
    node = helper.make_node("Einsum", list(feeds), ["y"], equation=eq)
    want = np.einsum(eq, *feeds.values())
    m = _model(node, [(k, TP.DOUBLE, v.shape) for k, v in feeds.items()], [("y", TP.DOUBLE, want.shape)], 12)
    got = _ours(m, feeds)[0]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_einsum_ellipsis_in_f32_against_onnxruntime():
    rng = np.random.default_rng(3)
    feeds = {"a": rng.standard_normal((2, 3, 4)).astype(np.float32), "b": rng.standard_normal((1, 4, 5)).astype(np.float32)}
    node = helper.make_node("Einsum", ["a", "b"], ["y"], equation="...ij,...jk->...ik")
    m = _model(node, [("a", TP.FLOAT, (2, 3, 4)), ("b", TP.FLOAT, (1, 4, 5))], [("y", TP.FLOAT, (2, 3, 5))], 12)
    np.testing.assert_allclose(_ours(m, feeds)[0], _ort(m, feeds)[0], rtol=1e-5, atol=1e-6)


def test_einsum_bad_equations_are_refused_at_the_node():
    node = helper.make_node("Einsum", ["a"], ["y"], name="es", equation="...ij->...ji")
    m = _model(node, [("a", TP.FLOAT, (3,))], [("y", TP.FLOAT, (3,))], 12)
    with pytest.raises(ImportError_, match=r"node 'es' \(Einsum\): equation '\.\.\.ij->\.\.\.ji' for operands of shapes \[\(3,\)\]"):
        _ours(m, {"a": np.zeros(3, np.float32)})
    node = helper.make_node("Einsum", ["a", "b"], ["y"], name="es", equation="...ij,...jk")
    m = _model(node, [("a", TP.FLOAT, (2, 3, 4)), ("b", TP.FLOAT, (4, 5))], [("y", TP.FLOAT, (2, 3, 5))], 12)
    with pytest.raises(ImportError_, match=r"node 'es' \(Einsum\): .* its ellipses stand for \[0, 1\] dimensions \(ONNX: every ellipsis"):
        _ours(m, {"a": np.zeros((2, 3, 4), np.float32), "b": np.zeros((4, 5), np.float32)})
    node = helper.make_node("Einsum", ["a"], ["y"], name="es", equation="i.i")
    m = _model(node, [("a", TP.FLOAT, (3, 3))], [("y", TP.FLOAT, (3,))], 12)
    with pytest.raises(ImportError_, match=r"node 'es' \(Einsum\): equation 'i\.i': 'i\.i' is not a term"):
        _ours(m, {"a": np.zeros((3, 3), np.float32)})


@pytest.mark.parametrize("eq", ["ij->ii", "ij->k", "ij,jk->ik,", "i1,1k->ik"])
def test_einsum_output_terms_are_checked(eq):
    """An output index repeated or in no operand, or a term that is not
    letters, is refused (ONNX, numpy and onnxruntime reject them; 'ij->ii'
    was imported)."""
    n = eq.split("->")[0].count(",") + 1
    node = helper.make_node("Einsum", ["a", "b"][:n], ["y"], name="es", equation=eq)
    m = _model(node, [(k, TP.FLOAT, (2, 2)) for k in ["a", "b"][:n]], [("y", TP.FLOAT, (2, 2))], 12)
    with pytest.raises(ImportError_, match=r"node 'es' \(Einsum\): equation .*: its terms must be letters"):
        import_onnx(m)
