"""GridSample, RoiAlign, DeformConv, MaxUnpool, MaxPool's Indices and 3-D
Conv/ConvTranspose through ``tfrt.onnx.backend``: ONNX's node tests
(expected outputs from ONNX's reference), onnxruntime on cases of our own,
and the refusals.

The default set runs a few node tests and one case per family against
onnxruntime; ``-m slow`` runs every node test of these operators and a
randomized sweep of shapes and attributes against onnxruntime.
"""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper  # noqa: E402
from tfrt.tools.import_onnx import ImportError_, StaticInputNeeded, import_onnx  # noqa: E402

from tfrt.api import ExecutionError  # noqa: E402
from tfrt.onnx import backend  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(op, ins, outs, opset, **attrs):
    """A one-node model; ``ins``: (name, array) with "" for an absent
    optional input; ``outs``: (name, element type, shape)."""
    node = helper.make_node(op, [n for n, _ in ins], [n for n, _, _ in outs], **attrs)
    vis = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in ins if n]
    g = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(n, t, s) for n, t, s in outs])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _ort(model, feeds):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _check(op, ins, outs, opset, rtol=1e-5, atol=1e-5, **attrs):
    """Our outputs against onnxruntime's (output shapes from onnxruntime)."""
    feeds = {n: a for n, a in ins if n}
    probe = _model(op, ins, [(n, t, None) for n, t in outs], opset, **attrs)
    want = _ort(probe, feeds)
    m = _model(op, ins, [(n, t, w.shape) for (n, t), w in zip(outs, want)], opset, **attrs)
    got = backend.prepare(m).run([a for n, a in ins if n])
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(g, w)
    return got


# -- ONNX's node tests ---------------------------------------------------------------------------

_MODULES = ["gridsample", "roialign", "deformconv", "maxunpool", "maxpool", "convtranspose"]
_WANTED = ("test_gridsample", "test_roialign", "test_basic_deform_conv", "test_deform_conv", "test_maxunpool",
           "test_maxpool_with_argmax", "test_convtranspose_3d")  # fmt: skip


def _node_cases():
    import onnx.backend.test.case.node as node_cases

    before = len(node_cases._NodeTestCases)
    for m in _MODULES:
        importlib.import_module(f"onnx.backend.test.case.node.{m}")
    cases = node_cases._NodeTestCases[before:] if len(node_cases._NodeTestCases) > before else node_cases._NodeTestCases
    return {c.name: c for c in cases if c.name.startswith(_WANTED)}


CASES = _node_cases()
FAST = {"test_gridsample_bicubic", "test_gridsample_reflection_padding", "test_gridsample_volumetric_bilinear_align_corners_1",
        "test_roialign_mode_max", "test_deform_conv_with_mask_bias", "test_maxunpool_export_with_output_shape",
        "test_maxpool_with_argmax_2d_precomputed_strides", "test_convtranspose_3d"}  # fmt: skip


def test_all_node_cases_found():
    assert len(CASES) == 30 and FAST <= set(CASES)


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in FAST else pytest.mark.slow) for n in sorted(CASES)])
def test_node_case(name):
    from onnx import numpy_helper
    from onnx.backend.test.runner import Runner

    case = CASES[name]

    def arrays(vs):
        return [numpy_helper.to_array(v) if isinstance(v, TensorProto) else v for v in vs]

    rep = backend.prepare(case.model)
    for ins, outs in case.data_sets:
        Runner.assert_similar_outputs(arrays(outs), list(rep.run(arrays(ins))), rtol=case.rtol, atol=case.atol)


# -- onnxruntime on our own cases ----------------------------------------------------------------


def _grid_case(rng, opset, r, mode, pad, align, dtype=np.float32, shape=None):
    shape = shape or ((2, 3) + (5, 6, 4)[:r], (2,) + (4, 3, 5)[:r])
    x = rng.standard_normal(shape[0]).astype(dtype)
    grid = (rng.random(shape[1] + (r,)) * 3 - 1.5).astype(dtype)
    if opset < 20:
        mode = {"linear": "bilinear", "cubic": "bicubic"}.get(mode, mode)
    return _check("GridSample", [("x", x), ("grid", grid)], [("y", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))], opset,
                  mode=mode, padding_mode=pad, align_corners=align)  # fmt: skip


def test_gridsample_against_onnxruntime():
    rng = np.random.default_rng(0)
    _grid_case(rng, 16, 2, "cubic", "border", 0)  # each tap clamped, not the position (as onnxruntime and PyTorch)
    _grid_case(rng, 20, 3, "nearest", "reflection", 1)
    _grid_case(rng, 22, 2, "linear", "zeros", 0, np.float64)


@pytest.mark.slow
def test_gridsample_sweep():
    rng = np.random.default_rng(1)
    for opset, r, mode, pad, align in itertools.product([16, 20, 22], [2, 3], ["linear", "nearest", "cubic"],
                                                        ["zeros", "border", "reflection"], [0, 1]):  # fmt: skip
        if (opset == 16 and r == 3) or (r == 3 and mode == "cubic"):
            continue
        _grid_case(rng, opset, r, mode, pad, align)
    _grid_case(rng, 20, 2, "linear", "reflection", 0, np.float16)
    _grid_case(rng, 20, 2, "cubic", "reflection", 1, np.float64)
    # Grid positions beyond several reflections, and a grid larger than the input.
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    grid = (rng.random((1, 7, 9, 2)) * 12 - 6).astype(np.float32)
    for mode, pad, align in itertools.product(["linear", "nearest", "cubic"], ["zeros", "border", "reflection"], [0, 1]):
        _check("GridSample", [("x", x), ("grid", grid)], [("y", F)], 20, mode=mode, padding_mode=pad, align_corners=align)


def _roi_case(rng, opset, mode, sr, ctm=None, scale=0.8, dtype=np.float32):
    x = rng.standard_normal((2, 3, 10, 12)).astype(dtype)
    rois = np.array([[0, 0, 9, 9], [1.5, 2.2, 8.3, 9.9], [-3, -2, 14, 11], [5, 5, 5.5, 6], [2, 3, 1, 1]], dtype)
    bi = np.array([0, 1, 1, 0, 1], np.int64)
    at = {"mode": mode, "sampling_ratio": sr, "output_height": 3, "output_width": 4, "spatial_scale": scale}
    if ctm:
        at["coordinate_transformation_mode"] = ctm
    return _check("RoiAlign", [("x", x), ("rois", rois), ("bi", bi)], [("y", helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))], opset, **at)


def test_roialign_against_onnxruntime():
    rng = np.random.default_rng(2)
    _roi_case(rng, 16, "avg", 0, "half_pixel")  # adaptive: specialized on the rois
    _roi_case(rng, 16, "max", 2, "output_half_pixel")
    _roi_case(rng, 10, "avg", 3)  # opset 10: output_half_pixel


@pytest.mark.slow
def test_roialign_sweep():
    rng = np.random.default_rng(3)
    for mode, sr, ctm in itertools.product(["avg", "max"], [0, 1, 2, 3], ["half_pixel", "output_half_pixel"]):
        _roi_case(rng, 16, mode, sr, ctm, scale=float(rng.choice([0.5, 1.0, 1.25])))
    _roi_case(rng, 16, "avg", 2, dtype=np.float64)


def test_roialign_opset22_against_the_reference():
    """(onnxruntime has no RoiAlign-22; its definition is opset 16's.)"""
    from onnx.reference import ReferenceEvaluator

    rng = np.random.default_rng(12)
    x = rng.standard_normal((1, 2, 6, 7)).astype(np.float32)
    rois = np.array([[0.5, 1, 5, 4.5], [-1, 0, 8, 8]], np.float32)
    bi = np.zeros(2, np.int64)
    m = _model("RoiAlign", [("x", x), ("rois", rois), ("bi", bi)], [("y", F, (2, 2, 2, 3))], 22,
               output_height=2, output_width=3, mode="max", coordinate_transformation_mode="output_half_pixel")  # fmt: skip
    want = ReferenceEvaluator(m).run(None, {"x": x, "rois": rois, "bi": bi})[0]
    np.testing.assert_allclose(backend.prepare(m).run([x, rois, bi])[0], want, rtol=1e-5, atol=1e-6)


def _deform_case(rng, g, og, mask, bias, shape=(2, 4, 7, 8), k=(3, 3), oc=6, **extra):
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((oc, shape[1] // g) + k).astype(np.float32)
    s, p, d = extra.get("strides", [1, 1]), extra.get("pads", [0] * 4), extra.get("dilations", [1, 1])
    oh = (shape[2] + p[0] + p[2] - ((k[0] - 1) * d[0] + 1)) // s[0] + 1
    ow = (shape[3] + p[1] + p[3] - ((k[1] - 1) * d[1] + 1)) // s[1] + 1
    kk = k[0] * k[1]
    off = (rng.standard_normal((shape[0], og * 2 * kk, oh, ow)) * 2).astype(np.float32)
    ins = [("x", x), ("w", w), ("off", off)]
    if bias or mask:
        ins.append(("b", rng.standard_normal(oc).astype(np.float32)) if bias else ("", None))
    if mask:
        ins.append(("m", rng.random((shape[0], og * kk, oh, ow)).astype(np.float32)))
    return _check("DeformConv", ins, [("y", F)], 19, group=g, offset_group=og, **extra)


def test_deformconv_against_onnxruntime():
    rng = np.random.default_rng(4)
    _deform_case(rng, 2, 2, True, False, strides=[2, 1], pads=[1, 2, 0, 1], dilations=[1, 2])


@pytest.mark.slow
def test_deformconv_sweep():
    rng = np.random.default_rng(5)
    for g, og, mask, bias in itertools.product([1, 2, 4], [1, 2], [False, True], [False, True]):
        _deform_case(rng, g, og, mask, bias, oc=8, kernel_shape=[3, 3])
    _deform_case(rng, 1, 1, True, True, shape=(1, 2, 5, 9), k=(2, 4), oc=3, strides=[1, 2], pads=[0, 1, 1, 0])
    _deform_case(rng, 1, 1, False, False, shape=(1, 1, 1, 6), k=(1, 3), oc=1)


def _pool_indices(x, r, k, **at):
    return _check("MaxPool", [("x", x)], [("y", helper.np_dtype_to_tensor_dtype(x.dtype)), ("i", I64)], 12, kernel_shape=[k] * r, **at)


def test_maxpool_indices_against_onnxruntime():
    rng = np.random.default_rng(6)
    # Indices count n and c too (ONNX's reference counts them only on its
    # strided path); storage_order 1 counts the spatial axes column-major.
    _pool_indices(rng.standard_normal((2, 3, 7, 6)).astype(np.float32), 2, 3, storage_order=1)
    # Ties: the first in the window.
    _pool_indices(rng.integers(-2, 2, (1, 2, 6, 6)).astype(np.int8), 2, 3, strides=[2, 1])


@pytest.mark.slow
def test_maxpool_indices_sweep():
    rng = np.random.default_rng(7)
    for r, so, at in itertools.product([1, 2, 3], [0, 1], [{}, {"pads": "p", "strides": 2}, {"ceil_mode": 1, "strides": 2},
                                                          {"dilations": 2}, {"auto_pad": "SAME_UPPER", "strides": 2}]):  # fmt: skip
        at = {key: ([1] * (2 * r) if v == "p" else [v] * r if isinstance(v, int) and key != "ceil_mode" else v) for key, v in at.items()}
        _pool_indices(rng.standard_normal((2, 3) + (7, 6, 5)[:r]).astype(np.float32), r, 3, storage_order=so, **at)
    _pool_indices(rng.integers(0, 4, (1, 2, 6, 6)).astype(np.uint8), 2, 2)


def _unpool(x, r, k, s, opset=11):
    pm = _model("MaxPool", [("x", x)], [("y", F, None), ("i", I64, None)], 12, kernel_shape=[k] * r, strides=[s] * r)
    y, i = _ort(pm, {"x": x})
    return _check("MaxUnpool", [("y", y), ("i", i)], [("z", F)], opset, kernel_shape=[k] * r, strides=[s] * r)


def test_maxunpool_against_onnxruntime():
    rng = np.random.default_rng(8)
    _unpool(rng.standard_normal((2, 3, 8, 6)).astype(np.float32), 2, 3, 1)  # overlapping windows: repeated indices


@pytest.mark.slow
def test_maxunpool_sweep():
    rng = np.random.default_rng(9)
    for r, k, s in itertools.product([1, 2, 3], [2, 3], [1, 2]):
        # Sizes the unpooling gives back ((m - 1) * s + k): every index is inside.
        spatial = tuple((m - 1) * s + k for m in (4, 3, 2)[:r])
        _unpool(rng.standard_normal((2, 3) + spatial).astype(np.float32), r, k, s, opset=int(rng.choice([11, 22])))


def test_maxunpool_index_outside_the_output_is_an_error():
    x = np.array([[[[5, 6], [7, 8]]]], np.float32)
    for bad in (16, -1):
        i = np.array([[[[5, 7], [13, bad]]]], np.int64)
        m = _model("MaxUnpool", [("x", x), ("i", i)], [("y", F, (1, 1, 4, 4))], 11, kernel_shape=[2, 2], strides=[2, 2])
        with pytest.raises(ExecutionError, match=f"index {bad} is out of bounds"):
            backend.prepare(m).run([x, i])


def _conv3d(rng, g, f=6, c=4, transpose=False, **at):
    x = rng.standard_normal((2, c, 5, 6, 7)).astype(np.float32)
    if transpose:
        w = rng.standard_normal((c, f // g, 3, 2, 3)).astype(np.float32)
    else:
        w = rng.standard_normal((f, c // g, 3, 2, 3)).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    return _check("ConvTranspose" if transpose else "Conv", [("x", x), ("w", w), ("b", b)], [("y", F)], 13, group=g, rtol=1e-4, atol=1e-4, **at)


def test_conv3d_against_onnxruntime():
    rng = np.random.default_rng(10)
    _conv3d(rng, 2, pads=[1, 0, 2, 1, 1, 0], strides=[2, 1, 2], dilations=[1, 2, 1])


@pytest.mark.slow
def test_conv3d_sweep():
    rng = np.random.default_rng(11)
    _conv3d(rng, 1)
    _conv3d(rng, 4, f=8, auto_pad="SAME_UPPER", strides=[2, 2, 2])
    _conv3d(rng, 4, f=4)  # depthwise
    _conv3d(rng, 1, transpose=True, strides=[2, 1, 2], pads=[1, 0, 0, 0, 1, 1], output_padding=[1, 0, 1])
    _conv3d(rng, 2, transpose=True, dilations=[2, 1, 1])
    # Weights given at run time.
    x = rng.standard_normal((1, 2, 4, 5, 6)).astype(np.float32)
    w = rng.standard_normal((4, 1, 2, 2, 2)).astype(np.float32)
    _check("Conv", [("x", x), ("w", w)], [("y", F)], 13, group=2, rtol=1e-4, atol=1e-4)


# -- refusals ------------------------------------------------------------------------------------


def _import_error(m):
    with pytest.raises(ImportError_) as info:
        import_onnx(m)
    return str(info.value)


def test_refusals_name_the_node_and_the_reason():
    x5 = np.zeros((1, 1, 3, 3, 3), np.float32)
    g5 = np.zeros((1, 2, 2, 2, 3), np.float32)
    m = _model("GridSample", [("x", x5), ("g", g5)], [("y", F, (1, 1, 2, 2, 2))], 20, mode="cubic")
    m.graph.node[0].name = "gs"
    assert _import_error(m) == "node 'gs' (GridSample): cubic interpolation of a volumetric input is not supported"
    m = _model("GridSample", [("x", x5), ("g", g5)], [("y", F, (1, 1, 2, 2, 2))], 16)
    assert "opset 16 defines 2-D GridSample only" in _import_error(m)
    xi = np.zeros((1, 1, 3, 3), np.int32)
    m = _model("GridSample", [("x", xi), ("g", np.zeros((1, 2, 2, 2), np.float32))], [("y", TensorProto.INT32, (1, 1, 2, 2))], 20)
    assert "mode 'linear' on element type int32 is not supported" in _import_error(m)
    x3 = np.zeros((1, 2, 5, 5, 5), np.float32)
    m = _model("DeformConv", [("x", x3), ("w", np.zeros((2, 2, 1, 1, 1), np.float32)), ("o", np.zeros((1, 3, 5, 5, 5), np.float32))],
               [("y", F, (1, 2, 5, 5, 5))], 19)  # fmt: skip
    assert "(DeformConv): a 3-D input (2-D DeformConv is supported)" in _import_error(m)


def test_roialign_adaptive_sampling_needs_the_rois():
    """sampling_ratio=0: the samples per bin come from each roi's size, so
    the rois must be known when compiling (the backend specializes on them)."""
    x = np.zeros((1, 1, 4, 4), np.float32)
    rois = np.array([[0, 0, 3, 3]], np.float32)
    bi = np.zeros(1, np.int64)
    m = _model("RoiAlign", [("x", x), ("rois", rois), ("bi", bi)], [("y", F, (1, 1, 1, 1))], 16)
    with pytest.raises(StaticInputNeeded) as info:
        import_onnx(m)
    assert info.value.inputs == ("rois",) and "rois (with sampling_ratio=0)" in str(info.value)
    # With a fixed sampling ratio the rois stay run-time values.
    m = _model("RoiAlign", [("x", x), ("rois", rois), ("bi", bi)], [("y", F, (1, 1, 1, 1))], 16, sampling_ratio=2)
    assert "func.func @main(%arg0: tensor<1x1x4x4xf32>, %arg1: tensor<1x4xf32>, %arg2: tensor<1xi64>)" in import_onnx(m)


# -- positions far outside the input --------------------------------------------------------------


def _run(op, ins, out_shape, opset, **attrs):
    m = _model(op, ins, [("y", F, out_shape)], opset, **attrs)
    return backend.prepare(m).run([a for _, a in ins])[0]


def test_gridsample_infinite_and_nan_positions():
    """A grid value whose position overflows to +-inf samples nothing
    (zeros: 0) or the edge (border), never NaN from inf - inf in the
    weights; a NaN position gives NaN in every mode (nearest too)."""
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 3, 4)
    g = np.array([[[[np.inf, 0.0], [-3e38, 0.0], [0.0, -np.inf], [np.nan, 0.0]]]], np.float32)
    for mode in ("linear", "nearest", "cubic"):
        y = _run("GridSample", [("x", x), ("g", g)], (1, 1, 1, 4), 20, mode=mode)[0, 0, 0]
        assert y[:3].tolist() == [0.0, 0.0, 0.0] and np.isnan(y[3]), mode
        y = _run("GridSample", [("x", x), ("g", g)], (1, 1, 1, 4), 20, mode=mode, padding_mode="border")[0, 0, 0]
        # +inf in x: the right edge of the middle row; -inf in x: the left; -inf in y: the top.
        if mode == "linear":
            assert y[:3].tolist() == [8.0, 5.0, 2.5], mode
        elif mode == "nearest":
            assert y[:3].tolist() == [8.0, 5.0, 3.0], mode
        else:
            assert np.isfinite(y[:3]).all() and y[0] == 8.0 and y[1] == 5.0, mode
        assert np.isnan(y[3]), mode


def test_roialign_roi_far_outside_the_input():
    """Samples past the input count zero; a roi reaching 1e30 read an index
    that overflowed (an error at run time) before."""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    rois = np.array([[0, 0, 1e30, 1e30], [1e20, 1e20, 3e38, 3e38]], np.float32)
    for mode in ("avg", "max"):
        y = _run("RoiAlign", [("x", x), ("rois", rois), ("bi", np.zeros(2, np.int64))], (2, 1, 1, 1), 16, sampling_ratio=2, mode=mode)
        assert y.ravel().tolist() == [0.0, 0.0], mode


def test_deformconv_infinite_offsets_sample_zero():
    """An infinite offset puts the tap outside the input: it adds zero
    (the weights were NaN); a NaN offset gives NaN."""
    x = np.ones((1, 1, 3, 3), np.float32)
    w = np.ones((1, 1, 1, 1), np.float32)
    off = np.zeros((1, 2, 3, 3), np.float32)
    off[0, 0, 0, 0], off[0, 1, 0, 1], off[0, 0, 1, 1], off[0, 1, 2, 2] = np.inf, -np.inf, 1e30, np.nan
    y = _run("DeformConv", [("x", x), ("w", w), ("off", off)], (1, 1, 3, 3), 19)[0, 0]
    assert y[0, 0] == 0 and y[0, 1] == 0 and y[1, 1] == 0 and np.isnan(y[2, 2])
    assert (y.ravel()[[2, 3, 5, 6, 7]] == 1).all()


def test_convtranspose_output_shape_places_the_generated_pads_as_onnx_defines():
    """With output_shape the pads are generated (the larger half at the
    start unless auto_pad is SAME_UPPER); the output was cropped at the end
    only.  An output_shape one past the natural size adds it at the end."""
    rng = np.random.default_rng(5)
    for k in [(3,), (3, 2), (3, 2, 3)]:
        r = len(k)
        x = rng.standard_normal((1, 2) + (5, 4, 3)[:r]).astype(np.float32)
        w = rng.standard_normal((2, 3) + k).astype(np.float32)
        natural = [(x.shape[2 + i] - 1) * 2 + k[i] for i in range(r)]
        for delta, extra in [(-1, {}), (-2, {}), (-3, {"auto_pad": "VALID"}), (-2, {"pads": [1] * (2 * r)}), (1, {"auto_pad": "SAME_UPPER"}),
                             (-3, {"auto_pad": "SAME_UPPER"})]:  # fmt: skip
            _check("ConvTranspose", [("x", x), ("w", w)], [("y", F)], 17, rtol=1e-4, atol=1e-4, strides=[2] * r,
                   output_shape=[n + delta for n in natural], **extra)  # fmt: skip
