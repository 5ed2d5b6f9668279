"""NonZero, NonMaxSuppression, Compress and Unique: operators whose result
shapes depend on data, run between compiled stages (``tfrt.onnx.staged``).

Every case is compared with onnxruntime (and the kernels with the rules of
the ONNX specification); the slow tests repeat that on many random inputs.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto as T
from onnx import helper
from ort_compare import assert_same as _same
from ort_compare import model as _model
from ort_compare import run_ort as _ort
from tfrt.tools.import_onnx import ImportError_, import_onnx

import tfrt.api
from tfrt.kernels.dynamic_shape import compress, non_max_suppression, non_zero, unique
from tfrt.kernels.registry import KernelError, default_registry
from tfrt.onnx import backend
from tfrt.onnx.staged import StagedProgram, plan

vi = helper.make_tensor_value_info


# ---------------------------------------------------------------------------
# The kernels, against the specification's rules


def test_kernels_are_in_the_registry():
    reg = default_registry()
    for name in ("non_zero", "non_max_suppression", "compress", "unique"):
        assert reg.get(f"tfrt_onnx.{name}") is not None


def test_non_zero_is_row_major():
    x = np.array([[0, 2, 0], [3, 0, 4]], np.float32)
    np.testing.assert_array_equal(non_zero(x), [[0, 1, 1], [1, 0, 2]])
    assert non_zero(x).dtype == np.int64
    assert non_zero(np.zeros((2, 2), np.int32)).shape == (2, 0)
    # A 0-d input: rank 0 rows, as ONNX's shape inference says.
    assert non_zero(np.array(5.0)).shape == (0, 1)


def test_compress_condition_shorter_and_longer():
    x = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(compress(1, x, np.array([0, 1], bool)), x[:, [1]])
    np.testing.assert_array_equal(compress(None, x, np.array([1, 0, 1], bool)), [0, 2])
    np.testing.assert_array_equal(compress(-2, x, np.array([1, 0, 1], bool)), x[[0, 2]])
    with pytest.raises(KernelError, match="4 entries, more than the 3 of axis 0"):
        compress(0, x, np.array([1, 0, 1, 0], bool))
    with pytest.raises(KernelError, match="axis 2 is out of range"):
        compress(2, x, np.array([1], bool))


def test_nms_ties_take_the_lower_index_and_limit_per_class():
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [0, 0, 1, 1.1]]], np.float32)
    scores = np.array([[[0.5, 0.5, 0.5, 0.9], [0.1, 0.2, 0.3, 0.4]]], np.float32)
    got = non_max_suppression(0, boxes, scores, np.array([2]), np.array([0.5], np.float32), None)
    # Class 0: box 3 (best), boxes 0 and 1 overlap it, box 2 is next. Class 1 likewise.
    np.testing.assert_array_equal(got, [[0, 0, 3], [0, 0, 2], [0, 1, 3], [0, 1, 2]])
    # Without max_output_boxes_per_class nothing is selected.
    assert non_max_suppression(0, boxes, scores, None, None, None).shape == (0, 3)
    # A score threshold is strict.
    got = non_max_suppression(0, boxes, scores, np.array(10), None, np.array(0.4, np.float32))
    np.testing.assert_array_equal(got, [[0, 0, 3], [0, 0, 2]])
    with pytest.raises(KernelError, match="scores must have shape"):
        non_max_suppression(0, boxes, scores[:, :, :3], np.array(1), None, None)


def test_nms_suppresses_only_above_the_iou_threshold():
    # Intersection 1, union 2: an IoU of exactly 0.5, which does not suppress at 0.5.
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 2]]], np.float32)
    scores = np.array([[[0.9, 0.8]]], np.float32)
    at = non_max_suppression(0, boxes, scores, np.array(5), np.array(0.5, np.float32), None)
    np.testing.assert_array_equal(at, [[0, 0, 0], [0, 0, 1]])
    below = non_max_suppression(0, boxes, scores, np.array(5), np.array(0.49, np.float32), None)
    np.testing.assert_array_equal(below, [[0, 0, 0]])
    # The same boxes by center and size.
    centered = np.array([[[0.5, 0.5, 1, 1], [1, 0.5, 2, 1]]], np.float32)
    got = non_max_suppression(1, centered, scores, np.array(5), np.array(0.49, np.float32), None)
    np.testing.assert_array_equal(got, [[0, 0, 0]])
    # A box with no area never suppresses.
    flat = np.array([[[0, 0, 1, 1], [0, 0, 0, 1]]], np.float32)
    got = non_max_suppression(0, flat, scores, np.array(5), np.array(0.0, np.float32), None)
    np.testing.assert_array_equal(got, [[0, 0, 0], [0, 0, 1]])


def test_unique_unsorted_keeps_first_occurrences():
    x = np.array([[3, 1], [1, 2], [3, 0]], np.float32)
    y, idx, inv, cnt = unique(None, 0, x)
    np.testing.assert_array_equal(y, [3, 1, 2, 0])
    np.testing.assert_array_equal(idx, [0, 1, 3, 5])
    np.testing.assert_array_equal(inv, [0, 1, 1, 2, 0, 3])
    np.testing.assert_array_equal(cnt, [2, 2, 1, 1])
    y, idx, inv, cnt = unique(1, 0, np.array([[3, 1, 3], [1, 2, 1]], np.int32))
    np.testing.assert_array_equal(y, [[3, 1], [1, 2]])
    np.testing.assert_array_equal(inv, [0, 1, 0])


def test_the_kernels_module_needs_no_compiler():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('xdsl', 'lark', 'onnx'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import numpy as np\n"
        "from tfrt.kernels.registry import default_registry\n"
        "k = default_registry().get('tfrt_onnx.non_zero')\n"
        "print(k.fn(np.array([0, 1, 1])).tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[[1, 2]]"


# ---------------------------------------------------------------------------
# Graphs: the operators' results feed further operators


def _nms_model(center=0, with_threshold=True):
    """Scores -> NMS -> Gather of the selected boxes (a detection model's tail)."""
    nodes = [
        helper.make_node("Sigmoid", ["logits"], ["scores"]),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score_thr"][: 5 if with_threshold else 4],
                         ["sel"], center_point_box=center),
        helper.make_node("Gather", ["sel", "two"], ["box_idx"], axis=1),
        helper.make_node("Squeeze", ["boxes", "zero"], ["boxes2d"]),
        helper.make_node("Gather", ["boxes2d", "box_idx"], ["picked"], axis=0),
        helper.make_node("Mul", ["picked", "scale"], ["out"]),
    ]  # fmt: skip
    inits = [
        helper.make_tensor("max_out", T.INT64, [1], [3]),
        helper.make_tensor("iou", T.FLOAT, [1], [0.4]),
        helper.make_tensor("score_thr", T.FLOAT, [1], [0.3]),
        helper.make_tensor("two", T.INT64, [], [2]),
        helper.make_tensor("zero", T.INT64, [1], [0]),
        helper.make_tensor("scale", T.FLOAT, [], [2.0]),
    ]
    return _model(nodes, [vi("boxes", T.FLOAT, [1, 12, 4]), vi("logits", T.FLOAT, [1, 2, 12])],
                  [vi("out", T.FLOAT, ["n", 4]), vi("sel", T.INT64, ["n", 3])], inits)  # fmt: skip


def _random_boxes(rng, n, batches=1, center=0):
    if center:
        xy = rng.uniform(0, 4, (batches, n, 2))
        wh = rng.uniform(0.2, 2, (batches, n, 2))
        return np.concatenate([xy, wh], -1).astype(np.float32)
    a = rng.uniform(0, 4, (batches, n, 2))
    b = a + rng.uniform(0.2, 2, (batches, n, 2))
    # Corners in either order (ONNX allows flipped boxes).
    return np.concatenate([a, b], -1)[..., rng.permutation([0, 1, 2, 3])].astype(np.float32)


def test_nms_feeds_a_gather_and_the_cache_counts():
    model = _nms_model()
    rep = backend.prepare(model)
    assert rep.staged is not None
    rng = np.random.default_rng(0)
    counts = set()
    for _ in range(4):
        boxes = _random_boxes(rng, 12)
        logits = rng.standard_normal((1, 2, 12)).astype(np.float32)
        got = rep.run([boxes, logits])
        _same(got, _ort(model, {"boxes": boxes, "logits": logits}))
        counts.add(got.sel.shape[0])
    staged = rep.staged
    # One compile of stage 0, one of stage 1 per distinct number of boxes.
    assert staged.compiles == 1 + len(counts) == rep.compiles
    assert staged.misses == staged.compiles and staged.hits == 4 * 2 - staged.misses
    # The same inputs again: only cache hits.
    before = staged.compiles
    rep.run([boxes, logits])
    assert staged.compiles == before


def test_nonzero_then_reshape_and_add():
    nodes = [
        helper.make_node("Greater", ["x", "t"], ["mask"]),
        helper.make_node("NonZero", ["mask"], ["nz"]),
        helper.make_node("Transpose", ["nz"], ["rows"]),
        helper.make_node("Reshape", ["rows", "flat"], ["r"]),
        helper.make_node("Add", ["r", "ten"], ["y"]),
        helper.make_node("GatherND", ["x", "rows"], ["vals"]),
    ]
    inits = [helper.make_tensor("t", T.FLOAT, [], [0.5]), helper.make_tensor("flat", T.INT64, [1], [-1]),
             helper.make_tensor("ten", T.INT64, [], [10])]  # fmt: skip
    model = _model(nodes, [vi("x", T.FLOAT, [3, 5])], [vi("y", T.INT64, ["n"]), vi("vals", T.FLOAT, ["m"])], inits)
    rep = backend.prepare(model)
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = rng.uniform(0, 1, (3, 5)).astype(np.float32)
        _same(rep.run([x]), _ort(model, {"x": x}))
    x = np.zeros((3, 5), np.float32)  # nothing selected: zero-sized results
    _same(rep.run([x]), _ort(model, {"x": x}))


def test_compress_and_unique_feed_reductions():
    nodes = [
        helper.make_node("Greater", ["x", "zero"], ["pos"]),
        helper.make_node("Cast", ["pos"], ["pos_f"], to=T.FLOAT),
        helper.make_node("ReduceMax", ["pos_f"], ["any"], axes=[1], keepdims=0),
        helper.make_node("Cast", ["any"], ["cond"], to=T.BOOL),
        helper.make_node("Compress", ["x", "cond"], ["rows"], axis=0),
        helper.make_node("ReduceSum", ["rows"], ["s"], axes=[0], keepdims=0),
        helper.make_node("Unique", ["k"], ["u", "ui", "inv", "cnt"], sorted=0),
        helper.make_node("Gather", ["u", "inv"], ["back"], axis=0),
        helper.make_node("Mul", ["cnt", "cnt"], ["cnt2"]),
    ]
    model = _model(nodes, [vi("x", T.FLOAT, [6, 3]), vi("k", T.INT64, [10])],
                   [vi("s", T.FLOAT, [3]), vi("back", T.INT64, [10]), vi("cnt2", T.INT64, ["u"]), vi("ui", T.INT64, ["u"])],
                   [helper.make_tensor("zero", T.FLOAT, [], [0.0])], opset=12)  # fmt: skip
    rep = backend.prepare(model)
    rng = np.random.default_rng(2)
    for _ in range(3):
        x = (rng.standard_normal((6, 3)) - 1).astype(np.float32)
        k = rng.integers(0, 5, 10).astype(np.int64)
        _same(rep.run([x, k]), _ort(model, {"x": x, "k": k}))


def test_a_reshape_by_a_computed_shape_is_specialized():
    """A shape that comes from NonZero's values: the next stage is compiled
    for each value (it must be known when compiling)."""
    nodes = [
        helper.make_node("NonZero", ["m"], ["nz"]),
        helper.make_node("ReduceMax", ["nz"], ["mx"], keepdims=0),
        helper.make_node("Add", ["mx", "one"], ["d"]),
        helper.make_node("Unsqueeze", ["d", "zero"], ["shape"]),
        helper.make_node("Concat", ["shape", "minus1"], ["shape2"], axis=0),
        helper.make_node("Reshape", ["x", "shape2"], ["y"]),
    ]
    inits = [helper.make_tensor("one", T.INT64, [], [1]), helper.make_tensor("zero", T.INT64, [1], [0]),
             helper.make_tensor("minus1", T.INT64, [1], [-1])]  # fmt: skip
    model = _model(nodes, [vi("m", T.BOOL, [8]), vi("x", T.FLOAT, [24])], [vi("y", T.FLOAT, ["a", "b"])], inits)
    rep = backend.prepare(model)
    x = np.arange(24, dtype=np.float32)
    for last in (3, 5, 3):
        m = np.zeros(8, bool)
        m[last] = True
        m[0] = True
        got = rep.run([m, x])
        assert got.y.shape == (last + 1, 24 // (last + 1))
        _same(got, _ort(model, {"m": m, "x": x}))
    assert rep.staged.compiles == 2 and rep.staged.hits == 1


def test_a_model_without_them_is_one_program():
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])])
    assert plan(model) is None
    rep = backend.prepare(model)
    assert rep.staged is None
    x = np.array([[-1, 2, 3], [4, -5, 6]], np.float32)
    _same(rep.run([x]), [np.maximum(x, 0)])
    assert rep.compiles == 1


def test_constant_inputs_and_a_constant_condition_need_no_stages():
    nodes = [
        helper.make_node("Constant", [], ["c"], value=helper.make_tensor("cv", T.BOOL, [3], [1, 0, 1])),
        helper.make_node("Compress", ["x", "c"], ["y"], axis=1),
        helper.make_node("NonZero", ["c"], ["nz"]),
    ]
    model = _model(nodes, [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 2]), vi("nz", T.INT64, [1, 2])])
    assert plan(model) is None
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    rep = backend.prepare(model)
    _same(rep.run([x]), _ort(model, {"x": x}))
    assert rep.compiles == 1


def test_inside_a_scan_body_is_refused_at_the_node():
    # A Loop or If with such a body runs on the host (tests/onnx/test_staged_control_flow.py); a Scan does not.
    body = helper.make_graph(
        [helper.make_node("NonZero", ["x_in"], ["nz"], name="nz_in_body"),
         helper.make_node("Identity", ["x_in"], ["x_out"])],
        "body", [vi("x_in", T.FLOAT, [3])], [vi("x_out", T.FLOAT, [3])],
    )  # fmt: skip
    nodes = [helper.make_node("Scan", ["x"], ["xo"], body=body, num_scan_inputs=1, name="scan")]
    model = _model(nodes, [vi("x", T.FLOAT, [2, 3])], [vi("xo", T.FLOAT, [2, 3])])
    with pytest.raises(ImportError_, match=r"node 'scan' \(Scan\): in its body: node 'scan/nz_in_body' \(NonZero\): "
                                           r"the shape of its output depends on the values of its inputs"):
        backend.prepare(model).run([np.ones((2, 3), np.float32)])


def test_the_importer_alone_refuses_with_the_reason():
    model = _model([helper.make_node("NonZero", ["x"], ["y"], name="nz")], [vi("x", T.FLOAT, [3])],
                   [vi("y", T.INT64, [1, "n"])])  # fmt: skip
    with pytest.raises(ImportError_, match=r"node 'nz' \(NonZero\): the shape of its output depends"):
        import_onnx(model)


def test_a_kernel_error_names_the_node():
    model = _model([helper.make_node("Compress", ["x", "c"], ["y"], axis=0, name="cmp")],
                   [vi("x", T.FLOAT, [2, 2]), vi("c", T.BOOL, [3])], [vi("y", T.FLOAT, ["n", 2])], opset=11)  # fmt: skip
    with pytest.raises(tfrt.api.ExecutionError, match=r"node 'cmp' \(Compress\): the condition has 3 entries"):
        backend.prepare(model).run([np.ones((2, 2), np.float32), np.ones(3, bool)])


def test_api_load_of_an_onnx_path(tmp_path):
    model = _nms_model(center=1)
    path = tmp_path / "nms.onnx"
    onnx.save(model, path)
    prog = tfrt.api.load(str(path))
    assert isinstance(prog, StagedProgram) and prog.functions == ["main"]
    rng = np.random.default_rng(3)
    boxes = _random_boxes(rng, 12, center=1)
    logits = rng.standard_normal((1, 2, 12)).astype(np.float32)
    _same(prog.call("main", boxes, logits), _ort(model, {"boxes": boxes, "logits": logits}))
    with pytest.raises(TypeError, match="takes 2 arguments"):
        prog.call("main", boxes)
    with pytest.raises(ValueError, match=r"argument 0 \('boxes'\): shape \(1, 3, 4\)"):
        prog.call("main", boxes[:, :3], logits)
    with pytest.raises(ValueError, match=r"argument 1 \('logits'\): complex64 does not convert to float32"):
        prog.call("main", boxes, logits + 0j)
    # A float64 array is rounded to the model's float32, as a program's argument is.
    _same(prog.call("main", boxes.astype(np.float64), logits), _ort(model, {"boxes": boxes, "logits": logits}))
    # Without such a node the path still loads as one compiled program.
    plain = tmp_path / "relu.onnx"
    onnx.save(_model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])]), plain)
    prog = tfrt.api.load(str(plain))
    assert isinstance(prog, tfrt.api.Program)
    np.testing.assert_array_equal(prog.call("main", np.array([-1, 2], np.float32)), [0, 2])


# ---------------------------------------------------------------------------
# Single operators against onnxruntime on random inputs


def _single(op, inputs, n_out, opset, **attrs):
    node = helper.make_node(op, [n for n, _ in inputs], [f"o{i}" for i in range(n_out)], **attrs)
    ins = [vi(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in inputs]
    model = _model([node], ins, [vi(f"o{i}", 0, None) for i in range(n_out)], opset=opset)
    return onnx.shape_inference.infer_shapes(model)


def _check_single(op, arrays, n_out, opset, **attrs):
    model = _single(op, arrays, n_out, opset, **attrs)
    feeds = dict(arrays)
    got = backend.prepare(model).run([a for _, a in arrays])
    _same(got, _ort(model, feeds))


def _nms_case(rng, center):
    b, c, n = rng.integers(1, 3), rng.integers(1, 4), rng.integers(1, 40)
    boxes = _random_boxes(rng, n, b, center)
    # Few distinct scores: ties are common.
    scores = rng.choice(np.linspace(0, 1, 7, dtype=np.float32), (b, c, n)).astype(np.float32)
    ins = [("boxes", boxes), ("scores", scores), ("max_out", np.array([rng.integers(0, 8)], np.int64)),
           ("iou", np.array([rng.choice([0.0, 0.3, 0.5, 0.9])], np.float32))]  # fmt: skip
    if rng.integers(0, 2):
        ins.append(("score_thr", np.array([rng.choice([0.0, 0.2, 0.5])], np.float32)))
    return ins


def _unique_case(rng):
    shape = tuple(int(d) for d in rng.integers(1, 5, rng.integers(1, 4)))
    dtype = rng.choice([np.float32, np.int64, np.int8, np.float64])
    x = rng.integers(-2, 3, shape).astype(dtype)
    attrs = {"sorted": int(rng.integers(0, 2))}
    if rng.integers(0, 2):
        attrs["axis"] = int(rng.integers(-len(shape), len(shape)))
    return x, attrs


def _compress_case(rng):
    shape = tuple(int(d) for d in rng.integers(1, 5, rng.integers(1, 4)))
    x = rng.standard_normal(shape).astype(np.float32)
    attrs = {}
    if rng.integers(0, 2):
        attrs["axis"] = int(rng.integers(-len(shape), len(shape)))
        size = shape[attrs["axis"]]
    else:
        size = x.size
    cond = rng.integers(0, 2, rng.integers(1, size + 1)).astype(bool)
    return x, cond, attrs


def _random_run(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        _check_single("NonMaxSuppression", _nms_case(rng, 0), 1, 11)
        _check_single("NonMaxSuppression", _nms_case(rng, 1), 1, 11, center_point_box=1)
        x, attrs = _unique_case(rng)
        _check_single("Unique", [("x", x)], 4, 11, **attrs)
        x, cond, attrs = _compress_case(rng)
        _check_single("Compress", [("x", x), ("c", cond)], 1, 11, **attrs)
        x = rng.integers(0, 2, tuple(int(d) for d in rng.integers(1, 4, rng.integers(1, 4)))).astype(np.float32)
        _check_single("NonZero", [("x", x)], 1, 13)


def test_random_cases_against_onnxruntime():
    _random_run(10, 6)


@pytest.mark.slow
def test_many_random_cases_against_onnxruntime():
    _random_run(11, 300)


@pytest.mark.slow
def test_nms_at_detection_sizes_against_onnxruntime():
    """YOLO-sized inputs: 2 images, 80 classes, 2000 boxes."""
    rng = np.random.default_rng(12)
    boxes = _random_boxes(rng, 2000, 2)
    scores = rng.uniform(0, 1, (2, 80, 2000)).astype(np.float32)
    ins = [("boxes", boxes), ("scores", scores), ("max_out", np.array([100], np.int64)),
           ("iou", np.array([0.45], np.float32)), ("score_thr", np.array([0.25], np.float32))]  # fmt: skip
    _check_single("NonMaxSuppression", ins, 1, 11)


def test_no_box_selected_flows_into_a_gather():
    """NonMaxSuppression selecting nothing gives [0, 3]; the Gather of its
    box column after it slices an axis of size 0 (an empty tensor, not a
    slice the verifier refuses)."""
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "thr"], ["sel"]),
        helper.make_node("Gather", ["sel", "two"], ["idx"], axis=1),
        helper.make_node("Gather", ["boxes2d", "idx"], ["kept"], axis=0),
        helper.make_node("Squeeze", ["boxes", "zero"], ["boxes2d"]),
    ]
    nodes = [nodes[0], nodes[3], nodes[1], nodes[2]]
    inits = [helper.make_tensor("max_out", T.INT64, [1], [3]), helper.make_tensor("iou", T.FLOAT, [1], [0.5]),
             helper.make_tensor("two", T.INT64, [], [2]), helper.make_tensor("zero", T.INT64, [1], [0])]  # fmt: skip
    model = _model(nodes, [vi("boxes", T.FLOAT, [1, 3, 4]), vi("scores", T.FLOAT, [1, 1, 3]), vi("thr", T.FLOAT, [1])],
                   [vi("kept", T.FLOAT, ["n", 4])], inits)  # fmt: skip
    boxes = np.array([[[0, 0, 1, 1], [2, 2, 3, 3], [0, 0, 1, 1.1]]], np.float32)
    scores = np.array([[[0.5, 0.4, 0.9]]], np.float32)
    rep = backend.prepare(model)
    for thr in (0.95, 0.3, 0.95):
        feeds = {"boxes": boxes, "scores": scores, "thr": np.array([thr], np.float32)}
        _same(rep.run(feeds), _ort(model, feeds))
    # The same on a graph input of shape [0, 3], compiled in one program.
    one = _model([helper.make_node("Gather", ["x", "two"], ["y"], axis=1)], [vi("x", T.INT64, [0, 3])],
                 [vi("y", T.INT64, [0])], [helper.make_tensor("two", T.INT64, [], [2])])  # fmt: skip
    x = np.zeros((0, 3), np.int64)
    _same(backend.prepare(one).run({"x": x}), _ort(one, {"x": x}))


def test_nms_iou_threshold_outside_0_1_and_compress_of_a_scalar_are_errors():
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1.1]]], np.float32)
    scores = np.array([[[0.9, 0.8]]], np.float32)
    for iou in (-0.5, 1.5, np.nan):
        with pytest.raises(KernelError, match="iou_threshold must be in"):
            non_max_suppression(0, boxes, scores, np.array(5), np.array(iou, np.float32), None)
    for iou in (0.0, 1.0):
        assert non_max_suppression(0, boxes, scores, np.array(5), np.array(iou, np.float32), None).shape[1] == 3
    with pytest.raises(KernelError, match="scalar"):
        compress(None, np.array(2.0, np.float32), np.array([True]))
    # A constant condition (a gather in the program): refused at import.
    m = _model([helper.make_node("Compress", ["x", "c"], ["y"], name="cp")], [vi("x", T.FLOAT, [])], [vi("y", T.FLOAT, [1])],
               [helper.make_tensor("c", T.BOOL, [1], [True])])  # fmt: skip
    with pytest.raises(ImportError_, match=r"node 'cp' \(Compress\): the input is a scalar"):
        import_onnx(m)
