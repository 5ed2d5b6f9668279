"""ONNX sequences and optionals (``tools/onnx_ops_seq.py``) through
``tfrt.onnx.backend``: ONNX's node tests of the sequence and optional
operators (and of Identity, If and Loop carrying them), onnxruntime on
random chains of sequence operators, the backend's lists, None and its cache,
and the refusals.  ``-m slow`` runs a longer random sweep.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from tfrt.tools.import_onnx import ImportError_, import_onnx  # noqa: E402
from tfrt.tools.onnx_ops_seq import regroup  # noqa: E402

from tfrt.onnx import backend  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64

# -- ONNX's node tests ---------------------------------------------------------------------------

_MODULES = ["identity", "if_", "loop", "optionalgetelement", "optionalhaselement", "sequence_map", "sequenceinsert",
            "splittosequence"]  # fmt: skip
_WANTED = ("test_identity_sequence", "test_identity_opt", "test_if_seq", "test_if_opt", "test_loop13_seq",
           "test_loop16_seq_none", "test_optional_", "test_sequence_map_", "test_sequence_insert_",
           "test_split_to_sequence_")  # fmt: skip


def _node_cases():
    import onnx.backend.test.case.node as node_cases

    for m in _MODULES:
        importlib.import_module(f"onnx.backend.test.case.node.{m}")
    return {c.name: c for c in node_cases._NodeTestCases if c.name.startswith(_WANTED)}


CASES = _node_cases()


def _arr(v):
    return numpy_helper.to_array(v) if isinstance(v, TensorProto) else v


def _same(want, got, rtol=1e-6, atol=0.0, where="output"):
    """``got`` is ``want``: the same structure (arrays, lists, None), dtypes,
    shapes and values within the tolerances."""
    if want is None or isinstance(want, list):
        assert type(got) is type(want), f"{where}: {type(got).__name__}, expected {type(want).__name__}"
        if want is not None:
            assert len(got) == len(want), f"{where}: {len(got)} elements, expected {len(want)}"
            for k, (w, g) in enumerate(zip(want, got)):
                _same(w, g, rtol, atol, f"{where} element {k}")
        return
    want, got = np.asarray(want), np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, f"{where}: {got.dtype}{got.shape}, expected {want.dtype}{want.shape}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=where)


def test_the_node_cases_are_found():
    assert len(CASES) == 34, sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_onnx_node_case(name):
    case = CASES[name]
    rep = backend.prepare(case.model)
    for ins, outs in case.data_sets:
        got = list(rep.run([_arr(v) for v in ins]))
        assert len(got) == len(outs)
        for k, (w, g) in enumerate(zip(outs, got)):
            _same(_arr(w), g, case.rtol, case.atol, f"output {k}")


# -- models of our own ---------------------------------------------------------------------------


def _vi(name, tp):
    return helper.make_value_info(name, tp)


def _tensor(elem=F, shape=None):
    return helper.make_tensor_type_proto(elem, shape)


def _seq(elem=F, shape=None):
    return helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem, shape))


def _model(nodes, inputs, outputs, inits=(), opset=18):
    g = helper.make_graph(nodes, "g", [_vi(n, t) for n, t in inputs], [_vi(n, t) for n, t in outputs],
                          [numpy_helper.from_array(np.asarray(v), k) for k, v in inits])  # fmt: skip
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _ort(model, feeds):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _chain(rng):
    """A random chain: SplitToSequence (per index, keeping the axis or not;
    in chunks of a size; in given lengths, some 0), SequenceInsert,
    SequenceErase, SequenceAt, SequenceLength, ConcatFromSequence (stacking
    where the elements have one shape); the sequence is an output too.
    Returns (model, feeds)."""
    rank = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 5)) for _ in range(rank)]
    axis = int(rng.integers(-rank, rank))
    ax = axis % rank
    dim = shape[ax]
    dt = [np.float32, np.int64, np.int32][int(rng.integers(0, 3))]
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
    feeds = {"x": (rng.standard_normal(shape) * 10).astype(dt)}
    inputs = [("x", _tensor(elem, shape))]
    nodes, inits = [], []
    how = int(rng.integers(0, 3))
    if how == 0:
        keep = int(rng.integers(0, 2))
        nodes.append(helper.make_node("SplitToSequence", ["x"], ["s0"], axis=axis, keepdims=keep))
        n, piece = dim, [1 if j == ax else d for j, d in enumerate(shape) if keep or j != ax]
        same = True
        # an element of the same shape, inserted somewhere
        feeds["t"] = np.asarray(rng.standard_normal(piece) * 10).astype(dt)
        inputs.append(("t", _tensor(elem, piece)))
        inits.append(("pos_i", np.array(int(rng.integers(-n, n + 1)), np.int64)))
        nodes.append(helper.make_node("SequenceInsert", ["s0", "t", "pos_i"], ["s1"]))
        cur, n = "s1", n + 1
    else:
        if how == 1:
            size = int(rng.integers(1, dim + 1))
            inits.append(("split", np.array(size, np.int64)))
            n, same = -(-dim // size), dim % size == 0
        else:
            cuts = np.sort(rng.integers(0, dim + 1, size=int(rng.integers(0, 3))))
            lengths = np.diff(np.concatenate([[0], cuts, [dim]])).astype(np.int64)
            inits.append(("split", lengths))
            n, same = len(lengths), len(set(lengths.tolist())) == 1
        nodes.append(helper.make_node("SplitToSequence", ["x", "split"], ["s0"], axis=axis))
        piece, cur = list(shape), "s0"
    if n > 1:
        if rng.integers(0, 2):
            inits.append(("pos_e", np.array(int(rng.integers(-n, n)), np.int32)))
            nodes.append(helper.make_node("SequenceErase", [cur, "pos_e"], ["s2"]))
        else:
            nodes.append(helper.make_node("SequenceErase", [cur], ["s2"]))
        cur, n = "s2", n - 1
    outs = [("seq", _seq(elem)), ("len", _tensor(I64, []))]
    nodes.append(helper.make_node("Identity", [cur], ["seq"]))
    nodes.append(helper.make_node("SequenceLength", [cur], ["len"]))
    if n > 0:
        inits.append(("pos_a", np.array(int(rng.integers(-n, n)), np.int64)))
        nodes.append(helper.make_node("SequenceAt", [cur, "pos_a"], ["at"]))
        r = len(piece)
        outs.append(("at", _tensor(elem, [None] * r)))
        new_axis = int(rng.integers(0, 2)) if same else 0
        if new_axis:
            cat_axis = int(rng.integers(-r - 1, r + 1))
        else:
            cat_axis = int(rng.integers(-r, r)) if how == 0 and r else axis
        if r + new_axis > 0:
            nodes.append(helper.make_node("ConcatFromSequence", [cur], ["cat"], axis=cat_axis, new_axis=new_axis))
            outs.append(("cat", _tensor(elem, [None] * (r + new_axis))))
    return _model(nodes, inputs, outs, inits), feeds


def _check_chain(seed):
    rng = np.random.default_rng(seed)
    m, feeds = _chain(rng)
    want = _ort(m, feeds)
    got = list(backend.prepare(m).run(feeds))
    for k, (w, g) in enumerate(zip(want, got)):
        _same(w if not isinstance(w, list) else list(w), g, 0, 0, f"seed {seed} output {k}")


@pytest.mark.parametrize("seed", range(6))
def test_random_chains_against_onnxruntime(seed):
    _check_chain(seed)


@pytest.mark.slow
def test_random_chains_against_onnxruntime_sweep():
    for seed in range(100, 260):
        _check_chain(seed)


def test_sequence_input_lengths_are_part_of_the_signature():
    """A sequence input is a list: one program per length and element shapes
    (the elements are its arguments); SequenceMap's body runs per element."""
    body = helper.make_graph([helper.make_node("Mul", ["a", "b"], ["p"]), helper.make_node("ReduceSum", ["p"], ["r"], keepdims=0)],
                             "body", [_vi("a", _tensor(F, ["n"])), _vi("b", _tensor(F, ["n"]))],
                             [_vi("p", _tensor(F, ["n"])), _vi("r", _tensor(F, []))])  # fmt: skip
    m = _model([helper.make_node("SequenceMap", ["xs", "w"], ["ps", "rs"], body=body),
                helper.make_node("ConcatFromSequence", ["rs"], ["y"], axis=0, new_axis=1)],
               [("xs", _seq(F, ["n"])), ("w", _tensor(F, ["n"]))],
               [("ps", _seq(F, ["n"])), ("rs", _seq(F, [])), ("y", _tensor(F, ["k"]))])  # fmt: skip
    rep = backend.prepare(m)
    rng = np.random.default_rng(0)
    for k in (2, 3, 2, 1):
        xs = [rng.standard_normal(4).astype(np.float32) for _ in range(k)]
        w = rng.standard_normal(4).astype(np.float32)
        got = rep.run([xs, w])
        want = _ort(m, {"xs": xs, "w": w})
        for g, wt in zip(got, want):
            _same(wt, g, 1e-6, 1e-6)
    assert rep.compiles == 3


def test_a_position_from_a_graph_input_is_specialized_on():
    m = _model([helper.make_node("SequenceAt", ["xs", "i"], ["y"])], [("xs", _seq(F, [2])), ("i", _tensor(I64, []))],
               [("y", _tensor(F, [2]))])  # fmt: skip
    xs = [np.full(2, k, np.float32) for k in range(4)]
    rep = backend.prepare(m)
    for i in (0, -1, 2, 0):
        np.testing.assert_array_equal(rep.run([xs, np.array(i, np.int64)])[0], xs[i])
    assert rep.compiles == 3
    with pytest.raises(ImportError_, match=r"\(SequenceAt\): the position 4 is out of range for a sequence of 4"):
        rep.run([xs, np.array(4, np.int64)])


def test_optionals_in_and_out():
    """An optional input is None or a value; an optional output comes back
    as None or its value."""
    opt_t = helper.make_optional_type_proto(_tensor(F, [3]))
    m = _model([helper.make_node("OptionalHasElement", ["o"], ["has"]), helper.make_node("Identity", ["o"], ["same"])],
               [("o", opt_t)], [("has", _tensor(TensorProto.BOOL, [])), ("same", opt_t)])  # fmt: skip
    rep = backend.prepare(m)
    has, same = rep.run([None])
    assert has.dtype == np.bool_ and not has and same is None
    x = np.arange(3, dtype=np.float32)
    has, same = rep.run([x])
    assert has and np.array_equal(same, x)
    assert rep.compiles == 2
    # Optional and OptionalGetElement inside a graph, against onnxruntime
    m2 = _model([helper.make_node("Optional", ["x"], ["o"]), helper.make_node("OptionalGetElement", ["o"], ["g"]),
                 helper.make_node("OptionalHasElement", ["o"], ["h"]), helper.make_node("Neg", ["g"], ["y"])],
                [("x", _tensor(F, [3]))], [("y", _tensor(F, [3])), ("h", _tensor(TensorProto.BOOL, []))])  # fmt: skip
    for w, g in zip(_ort(m2, {"x": x}), backend.run_model(m2, [x])):
        _same(w, g)


def test_if_chooses_between_sequences_of_different_lengths():
    def branch(n):
        nodes = [helper.make_node("Constant", [], [f"c{k}"], value=numpy_helper.from_array(np.full(2, k, np.float32))) for k in range(n)]
        nodes.append(helper.make_node("SequenceConstruct", [f"c{k}" for k in range(n)], ["s"]))
        return helper.make_graph(nodes, f"b{n}", [], [_vi("s", _seq(F, [2]))])

    m = _model([helper.make_node("If", ["c"], ["s"], then_branch=branch(3), else_branch=branch(1)),
                helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)],
               [("c", _tensor(TensorProto.BOOL, []))], [("s", _seq(F, [2])), ("y", _tensor(F, ["n"]))])  # fmt: skip
    rep = backend.prepare(m)
    for c in (True, False):
        want = _ort(m, {"c": np.array(c)})
        got = rep.run([np.array(c)])
        _same(list(want[0]), got[0])
        _same(want[1], got[1])


def test_regroup():
    a, b, c = (np.array(k) for k in range(3))
    assert regroup(["tensor", ("seq", 2), ("opt", None), ("opt", "tensor")], [a, b, c, a])[:3] == [a, [b, c], None]
    assert regroup([("seq", 0), ("opt", ("seq", 1))], [a]) == [[], [a]]
    with pytest.raises(RuntimeError):
        regroup(["tensor"], [a, b])


# -- refusals ------------------------------------------------------------------------------------


def _refused(model, inputs, match):
    with pytest.raises(ImportError_, match=match):
        backend.prepare(model).run(inputs)


def test_refusals_name_the_node_and_the_reason():
    xs = [np.ones(2, np.float32), np.ones(3, np.float32)]
    # a sequence where a tensor is expected
    m = _model([helper.make_node("Relu", ["xs"], ["y"], name="r")], [("xs", _seq(F))], [("y", _tensor(F, [None]))])
    _refused(m, [xs], r"node 'r' \(Relu\): a sequence is given where a tensor is expected")
    # elements that do not concatenate
    m = _model([helper.make_node("ConcatFromSequence", ["xs"], ["y"], name="c", axis=0, new_axis=1)], [("xs", _seq(F))],
               [("y", _tensor(F, [None]))])  # fmt: skip
    _refused(m, [xs], r"node 'c' \(ConcatFromSequence\): element 1 has shape \(3,\), element 0 \(2,\): they do not stack")
    _refused(m, [[]], r"node 'c' \(ConcatFromSequence\): the sequence is empty")
    # an empty optional's element
    opt = helper.make_optional_type_proto(_tensor(F, [2]))
    m = _model([helper.make_node("OptionalGetElement", ["o"], ["y"], name="g")], [("o", opt)], [("y", _tensor(F, [2]))])
    _refused(m, [None], r"node 'g' \(OptionalGetElement\): the optional 'o' is empty")
    # a split that does not add up, erasing from an empty sequence, a type mismatch
    m = _model([helper.make_node("SplitToSequence", ["x", "s"], ["q"], name="s")], [("x", _tensor(F, [4]))], [("q", _seq(F))],
               [("s", np.array([1, 2], np.int64))])  # fmt: skip
    _refused(m, [np.ones(4, np.float32)], r"node 's' \(SplitToSequence\): split \[1, 2\] does not add up to 4")
    m = _model([helper.make_node("SequenceEmpty", [], ["e"]), helper.make_node("SequenceErase", ["e"], ["q"], name="e")],
               [], [("q", _seq(F))])  # fmt: skip
    _refused(m, [], r"node 'e' \(SequenceErase\): erasing from an empty sequence")
    m = _model([helper.make_node("SequenceInsert", ["xs", "t"], ["q"], name="i")], [("xs", _seq(F)), ("t", _tensor(I64, [2]))],
               [("q", _seq(F))])  # fmt: skip
    _refused(m, [xs, np.ones(2, np.int64)], r"node 'i' \(SequenceInsert\): the tensor is int64, the sequence's elements are float32")


def test_sequences_outside_the_backend_are_refused():
    """tfrt_import_onnx and tfrt.api.load compile programs of tensors: a
    sequence input has no length there, and a sequence output is refused
    rather than flattened."""
    m = _model([helper.make_node("SequenceLength", ["xs"], ["n"])], [("xs", _seq(F))], [("n", _tensor(I64, []))])
    with pytest.raises(ImportError_, match=r"input 'xs' is of sequence type: its length and element shapes must be known"):
        import_onnx(m)
    m = _model([helper.make_node("SplitToSequence", ["x"], ["q"])], [("x", _tensor(F, [3]))], [("q", _seq(F))])
    with pytest.raises(ImportError_, match=r"graph output 'q' is of sequence type: only tfrt.onnx.backend returns sequences"):
        import_onnx(m)


def test_bad_feeds_are_errors_naming_the_input():
    m = _model([helper.make_node("SequenceLength", ["xs"], ["n"])], [("xs", _seq(F))], [("n", _tensor(I64, []))])
    rep = backend.prepare(m)
    with pytest.raises(ValueError, match=r"input 'xs': a sequence \(a list of arrays\) is expected, got ndarray"):
        rep.run([np.ones(3, np.float32)])
    with pytest.raises(ValueError, match=r"input 'xs': element 1: an array is expected, got list"):
        rep.run([[np.ones(1, np.float32), [np.ones(1, np.float32)]]])
    assert rep.run([[np.ones(1, np.float32)] * 5])[0] == 5
