"""Loop and If whose bodies hold a node with a data-dependent result shape
(NonZero, NonMaxSuppression...): run on the host between compiled stages,
each body a staged model of its own (``tfrt.onnx.staged``).  Every case is
compared with onnxruntime on random inputs."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto as T
from onnx import helper
from ort_compare import assert_same as _same
from ort_compare import model as _model
from ort_compare import run_ort as _ort

import tfrt.api
from tfrt.onnx import backend

vi = helper.make_tensor_value_info
node = helper.make_node


def _check(model, feeds_list, tmp_path=None):
    """Each feeds against onnxruntime, through the backend and (once) through
    ``tfrt.api.load`` of a saved file."""
    rep = backend.prepare(model)
    assert rep.staged is not None
    for feeds in feeds_list:
        _same(rep.run([feeds[i.name] for i in model.graph.input]), _ort(model, feeds))
    if tmp_path is not None:
        path = tmp_path / "m.onnx"
        onnx.save(model, path)
        prog = tfrt.api.load(str(path))
        for feeds in feeds_list:
            got = prog.call("main", *[feeds[i.name] for i in model.graph.input])
            _same(got if isinstance(got, tuple) else (got,), _ort(model, feeds))
    return rep


def _nms_loop_model():
    """Per image of a batch: NonMaxSuppression, then a Gather of the kept
    boxes, appended to a loop-carried [n, 4] (a tf2onnx pattern)."""
    c = lambda name, v: helper.make_tensor(name, T.INT64, [len(v)], v)
    body = helper.make_graph(
        [node("Gather", ["boxes", "i"], ["b"], axis=0),
         node("Gather", ["scores", "i"], ["s"], axis=0),
         node("Unsqueeze", ["b", "ax0"], ["b1"]),
         node("Unsqueeze", ["s", "ax0"], ["s1"]),
         node("NonMaxSuppression", ["b1", "s1", "maxk", "iou"], ["sel"], name="nms"),
         node("Gather", ["sel", "two"], ["idx"], axis=1),
         node("Gather", ["b", "idx"], ["kept"], axis=0),
         node("Concat", ["acc_in", "kept"], ["acc_out"], axis=0),
         node("Identity", ["cond_in"], ["cond_out"])],
        "body", [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("acc_in", T.FLOAT, ["n", 4])],
        [vi("cond_out", T.BOOL, []), vi("acc_out", T.FLOAT, ["m", 4])],
        initializer=[c("ax0", [0]), helper.make_tensor("two", T.INT64, [], [2])],
    )  # fmt: skip
    nodes = [node("Shape", ["boxes"], ["shp"]),
             node("Gather", ["shp", "zero"], ["batch"], axis=0),
             node("Loop", ["batch", "", "acc0"], ["acc"], body=body, name="per_image"),
             node("Relu", ["acc"], ["y"])]  # fmt: skip
    inits = [helper.make_tensor("zero", T.INT64, [], [0]), helper.make_tensor("acc0", T.FLOAT, [0, 4], []),
             c("maxk", [3]), helper.make_tensor("iou", T.FLOAT, [1], [0.3])]  # fmt: skip
    return _model(nodes, [vi("boxes", T.FLOAT, ["B", 6, 4]), vi("scores", T.FLOAT, ["B", 2, 6])],
                  [vi("y", T.FLOAT, ["k", 4])], inits)  # fmt: skip


def test_nms_in_a_loop_over_the_batch(tmp_path):
    rng = np.random.default_rng(0)
    feeds = []
    for b in (2, 3, 2):
        corner = rng.uniform(0, 4, (b, 6, 2)).astype(np.float32)
        boxes = np.concatenate([corner, corner + rng.uniform(0.5, 3, (b, 6, 2)).astype(np.float32)], axis=2)
        feeds.append({"boxes": boxes, "scores": rng.uniform(0, 1, (b, 2, 6)).astype(np.float32)})
    rep = _check(_nms_loop_model(), feeds, tmp_path)
    # The body is built once and its stages' programs are reused across iterations.
    assert len(rep.staged.bodies) == 1
    body = next(iter(rep.staged.bodies.values()))
    assert body.hits > body.misses


def _count_loop_model():
    """While i < limit (cond) for at most M iterations: the number of
    positive entries of row i as a scan output (shape []), their sum
    loop-carried."""
    body = helper.make_graph(
        [node("Gather", ["x", "i"], ["row"], axis=0),
         node("Greater", ["row", "zf"], ["pos"]),
         node("NonZero", ["pos"], ["nz"], name="nz"),
         node("Size", ["nz"], ["cnt"]),
         node("Add", ["tot_in", "cnt"], ["tot_out"]),
         node("Add", ["i", "one"], ["i1"]),
         node("Less", ["i1", "limit"], ["cond_out"])],
        "body", [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("tot_in", T.INT64, [])],
        [vi("cond_out", T.BOOL, []), vi("tot_out", T.INT64, []), vi("cnt", T.INT64, [])],
    )  # fmt: skip
    nodes = [node("Less", ["zero", "limit"], ["c0"]),
             node("Loop", ["M", "c0", "zero"], ["tot", "cnts"], body=body, name="count")]  # fmt: skip
    inits = [helper.make_tensor("zero", T.INT64, [], [0]), helper.make_tensor("one", T.INT64, [], [1]),
             helper.make_tensor("zf", T.FLOAT, [], [0.0])]  # fmt: skip
    return _model(nodes, [vi("x", T.FLOAT, ["r", 5]), vi("M", T.INT64, []), vi("limit", T.INT64, [])],
                  [vi("tot", T.INT64, []), vi("cnts", T.INT64, ["k"])], inits)  # fmt: skip


def test_a_scan_output_of_constant_shape_and_a_condition(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    cases = [(6, 6), (6, 3), (4, 9), (6, 1)]
    feeds = [{"x": x, "M": np.array(m, np.int64), "limit": np.array(lim, np.int64)} for m, lim in cases]
    _check(_count_loop_model(), feeds, tmp_path)


def test_a_loop_of_no_iteration(tmp_path):
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    feeds = [{"x": x, "M": np.array(0, np.int64), "limit": np.array(3, np.int64)},
             {"x": x, "M": np.array(3, np.int64), "limit": np.array(0, np.int64)}]  # fmt: skip
    rep = _check(_count_loop_model(), feeds, tmp_path)
    tot, cnts = rep.run([x, np.array(0, np.int64), np.array(3, np.int64)])
    assert tot == 0 and cnts.shape == (0,) and cnts.dtype == np.int64


def _if_model():
    then = helper.make_graph([node("NonZero", ["x"], ["nz"], name="nz")], "then", [], [vi("nz", T.INT64, [1, "n"])])
    other = helper.make_graph([node("Constant", [], ["c"], value=helper.make_tensor("cv", T.INT64, [1, 2], [7, 8]))],
                              "else", [], [vi("c", T.INT64, [1, 2])])  # fmt: skip
    nodes = [node("ReduceSum", ["x"], ["s"], keepdims=0),
             node("Greater", ["s", "zf"], ["pos"]),
             node("If", ["pos"], ["r"], then_branch=then, else_branch=other, name="pick"),
             node("Mul", ["r", "two"], ["y"])]  # fmt: skip
    inits = [helper.make_tensor("zf", T.FLOAT, [], [0.0]), helper.make_tensor("two", T.INT64, [], [2])]
    return _model(nodes, [vi("x", T.FLOAT, [8])], [vi("y", T.INT64, [1, "n"])], inits)


def test_if_with_nonzero_in_one_branch(tmp_path):
    rng = np.random.default_rng(3)
    feeds = [{"x": (rng.standard_normal(8) + off).astype(np.float32)} for off in (2.0, -2.0, 0.5, 1.0, -3.0)]
    _check(_if_model(), feeds, tmp_path)


def test_if_nested_in_a_loop(tmp_path):
    then = helper.make_graph([node("NonZero", ["row"], ["nz"], name="nz"), node("Squeeze", ["nz", "ax0"], ["sel"])],
                             "then", [], [vi("sel", T.INT64, ["n"])])  # fmt: skip
    other = helper.make_graph([node("Identity", ["none"], ["e"])], "else", [], [vi("e", T.INT64, [0])])
    body = helper.make_graph(
        [node("Gather", ["x", "i"], ["row"], axis=0),
         node("ReduceSum", ["row"], ["s"], keepdims=0),
         node("Greater", ["s", "zf"], ["pos"]),
         node("If", ["pos"], ["part"], then_branch=then, else_branch=other, name="inner"),
         node("Concat", ["acc_in", "part"], ["acc_out"], axis=0),
         node("Identity", ["cond_in"], ["cond_out"])],
        "body", [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("acc_in", T.INT64, ["a"])],
        [vi("cond_out", T.BOOL, []), vi("acc_out", T.INT64, ["b"])],
    )  # fmt: skip
    nodes = [node("Loop", ["M", "", "none"], ["acc"], body=body, name="outer")]
    inits = [helper.make_tensor("zf", T.FLOAT, [], [0.0]), helper.make_tensor("none", T.INT64, [0], []),
             helper.make_tensor("ax0", T.INT64, [1], [0]), helper.make_tensor("M", T.INT64, [], [4])]  # fmt: skip
    model = _model(nodes, [vi("x", T.FLOAT, [4, 6])], [vi("acc", T.INT64, ["k"])], inits)
    rng = np.random.default_rng(4)
    _check(model, [{"x": (rng.standard_normal((4, 6)) + 0.3).astype(np.float32)} for _ in range(3)], tmp_path)


def test_scan_outputs_of_different_shapes_are_an_error():
    body = helper.make_graph([node("NonZero", ["row"], ["nz"], name="nz"), node("Gather", ["x", "i"], ["row"], axis=0),
                              node("Identity", ["cond_in"], ["cond_out"])],
                             "body", [vi("i", T.INT64, []), vi("cond_in", T.BOOL, [])],
                             [vi("cond_out", T.BOOL, []), vi("nz", T.INT64, [1, "n"])])  # fmt: skip
    body.node.insert(0, body.node.pop(1))
    model = _model([node("Loop", ["M", ""], ["nzs"], body=body, name="rows")], [vi("x", T.FLOAT, [2, 3])],
                   [vi("nzs", T.INT64, [2, 1, "n"])], [helper.make_tensor("M", T.INT64, [], [2])])  # fmt: skip
    rep = backend.prepare(model)
    _same(rep.run([np.array([[1, 0, 1], [0, 2, 3]], np.float32)]), [np.array([[[0, 2]], [[1, 2]]], np.int64)])
    with pytest.raises(tfrt.api.ExecutionError, match=r"node 'rows' \(Loop\): scan output 'nz' has shape \(1, 2\) "
                                                      r"in iteration 0 and \(1, 1\) in iteration 1"):
        rep.run([np.array([[1, 0, 1], [0, 0, 3]], np.float32)])


def test_an_empty_scan_output_of_unknown_shape_is_refused():
    body = helper.make_graph([node("NonZero", ["x"], ["nz"], name="nz"), node("Identity", ["cond_in"], ["cond_out"])],
                             "body", [vi("i", T.INT64, []), vi("cond_in", T.BOOL, [])],
                             [vi("cond_out", T.BOOL, []), vi("nz", T.INT64, [1, "n"])])  # fmt: skip
    model = _model([node("Loop", ["M", ""], ["nzs"], body=body, name="rows")],
                   [vi("x", T.FLOAT, [3]), vi("M", T.INT64, [])], [vi("nzs", T.INT64, ["k", 1, "n"])])  # fmt: skip
    rep = backend.prepare(model)
    x = np.array([1, 0, 2], np.float32)
    _same(rep.run([x, np.array(2, np.int64)]), _ort(model, {"x": x, "M": np.array(2, np.int64)}))
    with pytest.raises(tfrt.api.ExecutionError, match=r"node 'rows' \(Loop\): the loop ran no iteration and the "
                                                      r"shape of its scan output 'nz' is not known"):
        rep.run([x, np.array(0, np.int64)])


def test_loop_without_cond_input_stops_at_cond_out(tmp_path):
    """A Loop with M and no cond input still ends when the body's cond_out
    turns false (onnxruntime, ONNX's reference, the importer's unrolled
    Loop): counts of NonZero summed until they reach ``lim``."""
    body = helper.make_graph(
        [node("Cast", ["i"], ["fi"], to=T.FLOAT),
         node("Greater", ["x", "fi"], ["gt"]),
         node("NonZero", ["gt"], ["nz"]),
         node("Shape", ["nz"], ["sh"]),
         node("Gather", ["sh", "one"], ["cnt"], axis=0),
         node("Add", ["s_in", "cnt"], ["s_out"]),
         node("Less", ["s_out", "lim"], ["cond_out"]),
         node("Identity", ["cnt"], ["scan"])],
        "body", [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("s_in", T.INT64, [])],
        [vi("cond_out", T.BOOL, []), vi("s_out", T.INT64, []), vi("scan", T.INT64, [])],
        initializer=[helper.make_tensor("one", T.INT64, [], [1])],
    )  # fmt: skip
    m = _model([node("Loop", ["M", "", "s0"], ["s", "sc"], body=body)],
               [vi("x", T.FLOAT, [6]), vi("M", T.INT64, []), vi("lim", T.INT64, []), vi("s0", T.INT64, [])],
               [vi("s", T.INT64, []), vi("sc", T.INT64, ["k"])])  # fmt: skip
    x = np.arange(6, dtype=np.float32)
    feeds = [{"x": x, "M": np.array(mv, np.int64), "lim": np.array(lim, np.int64), "s0": np.array(0, np.int64)}
             for mv, lim in ((7, 5), (7, 100), (1, 5), (2**62, 5))]  # fmt: skip
    _check(m, feeds, tmp_path)
