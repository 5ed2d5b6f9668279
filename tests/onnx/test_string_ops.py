"""String tensors: the nodes that read or produce them run on the host
(``tfrt.kernels.strings``) between compiled stages (``tfrt.onnx.staged``).

ONNX's node tests of the string operators, cases against onnxruntime
(``-m slow``: a randomized sweep), a small BiDAF-like graph (string tokens
-> CategoryMapper -> Gather from an embedding -> MatMul) through
``tfrt.onnx.backend`` and ``tfrt.api.load``, and the refusals.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper
from tfrt.tools.import_onnx import ImportError_

import tfrt.api
from tfrt.onnx import backend

S, F, I64, B = TensorProto.STRING, TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
ML = helper.make_opsetid("ai.onnx.ml", 4)

# ONNX's case modules of the string operators (their cases register when imported).
CASE_MODULES = ["string_concat", "string_split", "stringnormalizer", "regex_full_match", "ai_onnx_ml.label_encoder", "equal"]  # fmt: skip


def _cases():
    import onnx.backend.test.case.node as node_cases

    for m in CASE_MODULES:
        importlib.import_module(f"onnx.backend.test.case.node.{m}")
    keep = ("test_string_", "test_strnormalizer", "test_regex_full_match", "test_ai_onnx_ml_label_encoder", "test_equal_string")
    return {c.name: c for c in node_cases._NodeTestCases if c.name.startswith(keep)}


CASES = _cases()


def _arrays(values):
    return [numpy_helper.to_array(v) if isinstance(v, TensorProto) else v for v in values]


def test_the_node_cases_are_found():
    assert len(CASES) == 26


@pytest.mark.parametrize("name", sorted(CASES))
def test_onnx_node_case(name):
    case = CASES[name]
    rep = backend.prepare(case.model)
    for ins, outs in case.data_sets:
        got = list(rep.run(_arrays(ins)))
        want = _arrays(outs)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, (g, w)
            assert np.array_equal(g, w), (g, w)
            if g.dtype == object:
                assert all(type(v) is str for v in g.reshape(-1))


# ---------------------------------------------------------------------------
# Models built here, compared with onnxruntime


def _model(nodes, inputs, outputs, inits=(), opset=21, ml=False):
    """A model of ``nodes``; an input of shape None is 1-D of any length,
    an output of shape None gets the type and shape ONNX's shape inference
    gives it (the checker wants shapes)."""
    g = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, ["n"] if s is None else s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits],
    )
    ops = [helper.make_opsetid("", opset)] + ([ML] if ml else [])
    model = helper.make_model(g, opset_imports=ops)
    inferred = {o.name: o for o in onnx.shape_inference.infer_shapes(model).graph.output}
    for i, (n, _t, s) in enumerate(outputs):
        if s is None and inferred[n].type.tensor_type.HasField("shape"):
            model.graph.output[i].CopyFrom(inferred[n])
    return model


def _ort(model, feeds):
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _same(model, feeds):
    got = list(backend.prepare(model).run(feeds))
    want = _ort(model, feeds)
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g, w)
        if g.dtype.kind == "f":
            np.testing.assert_array_equal(g, w)
        else:
            assert np.array_equal(g, w), (g, w)
    return got


def _strings(values, shape=None):
    a = np.empty(len(values), object)
    a[:] = list(values)
    return a if shape is None else a.reshape(shape)


def test_string_ops_and_moves_against_onnxruntime():
    """Concat, Split, Normalizer, Equal, then Reshape, Transpose, Slice,
    Gather, Squeeze, Unsqueeze, Concat, Identity on the strings."""
    nodes = [
        helper.make_node("StringConcat", ["a", "b"], ["c"]),
        helper.make_node("StringSplit", ["c"], ["parts", "n"], delimiter="-"),
        helper.make_node("Equal", ["a", "b"], ["eq"]),
        helper.make_node("Reshape", ["c", "shape"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0]),
        helper.make_node("Slice", ["t", "starts", "ends"], ["sl"]),
        helper.make_node("Gather", ["c", "idx"], ["g"], axis=0),
        helper.make_node("Unsqueeze", ["g", "ax0"], ["u"]),
        helper.make_node("Squeeze", ["u", "ax0"], ["sq"]),
        helper.make_node("Concat", ["sq", "a"], ["cat"], axis=0),
        helper.make_node("Identity", ["cat"], ["id"]),
        helper.make_node("StringNormalizer", ["id"], ["norm"], case_change_action="UPPER", stopwords=["X-"], locale="C"),
    ]
    model = _model(
        nodes,
        [("a", S, [6]), ("b", S, [6])],
        [("parts", S, None), ("n", I64, None), ("eq", B, None), ("sl", S, None), ("norm", S, None)],
        [("shape", np.array([2, 3])), ("starts", np.array([1])), ("ends", np.array([3])),
         ("idx", np.array([5, -1, 0])), ("ax0", np.array([0]))],  # fmt: skip
    )
    a = _strings(["x-", "é-ü", "", "a--b", "Q", "zz"])
    b = _strings(["y", "-", "", "-c-", "Q", "zz"])
    _same(model, {"a": a, "b": b})


def test_casts_against_onnxruntime():
    """Numbers to text as onnxruntime writes them, text to numbers."""
    x = np.array([0.1, 1 / 3, 1e-7, 1e20, 123456789.0, np.nan, np.inf, -np.inf, -0.0, 100.5, 3.0, 1e-4], np.float32)
    for t, dt in ((F, np.float32), (TensorProto.DOUBLE, np.float64), (TensorProto.FLOAT16, np.float16)):
        m = _model([helper.make_node("Cast", ["x"], ["y"], to=S)], [("x", t, None)], [("y", S, None)])
        with np.errstate(over="ignore"):
            _same(m, {"x": x.astype(dt)})
    for t, v in ((I64, np.array([1, -5, 2**62])), (TensorProto.UINT8, np.array([0, 255], np.uint8)),
                 (B, np.array([True, False]))):  # fmt: skip
        m = _model([helper.make_node("Cast", ["x"], ["y"], to=S)], [("x", t, None)], [("y", S, None)])
        _same(m, {"x": v})
    s = ["0.47892547", "NaN", "INF", "+INF", "-INF", "inf", "1e-5", " 2.5", "100.5", "+3", "-0", ".5"]
    for t, more in ((F, ["1E8"]), (TensorProto.DOUBLE, ["1E8", "-1e300"]), (TensorProto.FLOAT16, ["1e-6"])):
        m = _model([helper.make_node("Cast", ["x"], ["y"], to=t)], [("x", S, None)], [("y", t, None)])
        _same(m, {"x": _strings(s + more)})
    s = _strings(["12", "-3", "+7", "007", " 5 "])
    for t in (I64, TensorProto.INT32, TensorProto.INT8):
        m = _model([helper.make_node("Cast", ["x"], ["y"], to=t)], [("x", S, None)], [("y", t, None)])
        _same(m, {"x": s})


def test_cast_of_text_that_is_no_number_is_an_error_naming_the_node():
    m = _model([helper.make_node("Cast", ["x"], ["y"], to=I64, name="c")], [("x", S, None)], [("y", I64, None)])
    with pytest.raises(tfrt.api.ExecutionError, match=r"node 'c' \(Cast\): element 1 \('2.5'\) is not an integer"):
        backend.prepare(m).run([_strings(["1", "2.5"])])
    m = _model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT8, name="c")], [("x", S, None)],
               [("y", TensorProto.INT8, None)])  # fmt: skip
    with pytest.raises(tfrt.api.ExecutionError, match="out of the range of int8"):
        backend.prepare(m).run([_strings(["300"])])


def test_label_encoder_forms_against_onnxruntime():
    x = _strings(["a", "b", "zz", "c", ""])
    cases = [
        dict(keys_strings=["a", "b", "c"], values_int64s=[1, 2, 3]),
        dict(keys_strings=["a", "b", "c"], values_floats=[0.5, 1.5, -2.0], default_float=7.0),
        dict(keys_strings=["a", "b", "c"], values_strings=["x", "y", "z"], default_string="?"),
        dict(keys_tensor=numpy_helper.from_array(_strings(["a", "c"]), "k"),
             values_tensor=numpy_helper.from_array(np.array([5, 6], np.int64), "v"),
             default_tensor=numpy_helper.from_array(np.array([-9], np.int64), "d")),  # fmt: skip
    ]
    for attrs in cases:
        m = _model([helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", **attrs)], [("x", S, None)],
                   [("y", 0, None)], ml=True)  # fmt: skip
        _same(m, {"x": x})
    # int64 and float keys (every LabelEncoder runs on the host).
    m = _model([helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", keys_int64s=[3, 1],
                                 values_strings=["three", "one"])], [("x", I64, [2, 2])], [("y", S, None)], ml=True)  # fmt: skip
    _same(m, {"x": np.array([[1, 2], [3, 3]])})
    m = _model([helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", keys_floats=[0.5, -1.0],
                                 values_int64s=[10, 20])], [("x", F, None)], [("y", I64, None)], ml=True)  # fmt: skip
    _same(m, {"x": np.array([0.5, -1.0, 2.0, 0.5], np.float32)})


def test_category_mapper_both_ways_against_onnxruntime():
    attrs = dict(cats_strings=["cat", "dog", "fish"], cats_int64s=[7, 3, 9], default_int64=-5, default_string="none")
    m = _model([helper.make_node("CategoryMapper", ["x"], ["y"], domain="ai.onnx.ml", **attrs)], [("x", S, [2, 2])],
               [("y", I64, None)], ml=True)  # fmt: skip
    _same(m, {"x": _strings(["dog", "bird", "fish", "cat"], (2, 2))})
    m = _model([helper.make_node("CategoryMapper", ["x"], ["y"], domain="ai.onnx.ml", **attrs)], [("x", I64, None)],
               [("y", S, None)], ml=True)  # fmt: skip
    _same(m, {"x": np.array([3, 4, 9])})


def test_repeated_keys_and_categories():
    """LabelEncoder-4: the last of repeated keys wins (the specification and
    ONNX's reference; onnxruntime takes the first).  Before version 4 the
    specification does not say: a key repeated with another value is an
    error naming the node.  CategoryMapper: the last wins, as onnxruntime."""
    x = _strings(["a", "b", "c"])

    def le(version, values):
        g = helper.make_graph([helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", name="le",
                                                keys_strings=["a", "b", "a"], values_int64s=values)], "g",
                              [helper.make_tensor_value_info("x", S, [3])], [helper.make_tensor_value_info("y", I64, [3])])  # fmt: skip
        ops = [helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", version)]
        return backend.prepare(helper.make_model(g, opset_imports=ops))

    assert list(le(4, [1, 2, 3]).run([x])[0]) == [3, 2, -1]
    assert list(le(2, [1, 2, 1]).run([x])[0]) == [1, 2, -1]
    with pytest.raises(tfrt.api.ExecutionError, match=r"node 'le' \(LabelEncoder\): key 'a' is repeated"):
        le(2, [1, 2, 3]).run([x])
    attrs = dict(cats_strings=["a", "b", "a"], cats_int64s=[1, 2, 3], default_int64=-5)
    m = _model([helper.make_node("CategoryMapper", ["x"], ["y"], domain="ai.onnx.ml", **attrs)], [("x", S, None)],
               [("y", I64, None)], ml=True)  # fmt: skip
    assert list(_same(m, {"x": x})[0]) == [3, 2, -5]
    attrs = dict(cats_strings=["a", "b", "c"], cats_int64s=[1, 2, 1], default_string="none")
    m = _model([helper.make_node("CategoryMapper", ["x"], ["y"], domain="ai.onnx.ml", **attrs)], [("x", I64, None)],
               [("y", S, None)], ml=True)  # fmt: skip
    assert list(_same(m, {"x": np.array([1, 2, 3])})[0]) == ["c", "b", "none"]


def test_cast_of_digits_or_spaces_outside_ascii_is_an_error():
    # Python's int() and float() read other scripts' digits and strip Unicode
    # spaces; C's strtol/strtod (onnxruntime) do not.
    for to, text in ((I64, "\u0661\u0662"), (F, "\u0661.5"), (I64, "\u00a012"), (F, "12\u2003")):
        m = _model([helper.make_node("Cast", ["x"], ["y"], to=to, name="c")], [("x", S, None)], [("y", to, None)])
        with pytest.raises(tfrt.api.ExecutionError, match=r"node 'c' \(Cast\): element 0 .* is not a"):
            backend.prepare(m).run([_strings([text])])
    m = _model([helper.make_node("Cast", ["x"], ["y"], to=I64)], [("x", S, None)], [("y", I64, None)])
    assert list(backend.prepare(m).run([_strings([" 12\t", "-3"])])[0]) == [12, -3]


def test_slice_clamps_as_onnx_says_on_strings_and_numbers():
    """Negative starts and ends count from the end, then a negative step's
    start is clamped to [0, dim - 1] and its end to [-1, dim - 1]
    (onnxruntime agrees; numpy's slicing, which ONNX's reference uses,
    gives nothing where the start lies before the first element)."""
    big = 2**63 - 1
    cases = [((-10, -10, -1), [0]), ((-9, -7, -2), [0]), ((-7, big, -1), []), ((10, -10, -1), [4, 3, 2, 1, 0]),
             ((4, -6, -1), [4, 3, 2, 1, 0]), ((-1, -7, -2), [4, 2, 0]), ((-big - 1, 3, 1), [0, 1, 2]), ((5, 0, -1), [4, 3, 2, 1])]  # fmt: skip
    for (st, en, sp), want in cases:
        for t, x in ((S, _strings(list("abcde"))), (F, np.arange(5, dtype=np.float32))):
            inits = [("s", np.array([st])), ("e", np.array([en])), ("a", np.array([0])), ("p", np.array([sp]))]
            m = _model([helper.make_node("Slice", ["x", "s", "e", "a", "p"], ["y"])], [("x", t, [5])], [("y", t, None)],
                       inits)  # fmt: skip
            got = backend.prepare(m).run([x])[0]
            assert list(got) == list(x[want]), ((st, en, sp), t, list(got))


REGEX_TEXT = ["abc", "ABC", "a1", "a\n", "www.x.com", "x@gmail.com", "", "ab", "é1", "a b", "a\x0bb"]


@pytest.mark.parametrize(
    "pattern",
    [r"a.c", r"[a-z]+\d", r"(?i)abc", r"a$", r"\w+@(gmail|yahoo)\.com", r"\d*", r"a\sb", r"[^\s]+",
     r"a|ab", r"(a)(b)?", r"[]a]+", r"\bab\b", r"\S+\.\S+\.com"],
)  # fmt: skip
def test_regex_full_match_against_onnxruntime(pattern):
    m = _model([helper.make_node("RegexFullMatch", ["x"], ["y"], pattern=pattern)], [("x", S, None)], [("y", B, None)])
    x = _strings([s for s in REGEX_TEXT if not (pattern.startswith("(?i)") and not s.isascii())])
    _same(m, {"x": x})


@pytest.mark.parametrize(
    ("pattern", "why"),
    [(r"a(?=b)", "lookaround"), (r"(a)\1", "backreferences"), (r"[[:alpha:]]+", "POSIX classes"),
     (r"\pL", r"\\p"), (r"a{,2}", r"\{,n\}"), (r"a*+", "possessive"), (r"(?U)a+", "flag"),
     (r"(?P<n>a)(?P=n)", "named backreferences")],
)  # fmt: skip
def test_regex_read_otherwise_by_python_is_refused(pattern, why):
    m = _model([helper.make_node("RegexFullMatch", ["x"], ["y"], pattern=pattern, name="rx")], [("x", S, None)],
               [("y", B, None)])  # fmt: skip
    with pytest.raises(tfrt.api.ExecutionError, match=rf"node 'rx' \(RegexFullMatch\): pattern .*{why}"):
        backend.prepare(m).run([_strings(["ab"])])


def test_split_at_whitespace_other_than_spaces_is_refused():
    m = _model([helper.make_node("StringSplit", ["x"], ["y", "n"], name="sp")], [("x", S, None)],
               [("y", S, None), ("n", I64, None)])  # fmt: skip
    with pytest.raises(tfrt.api.ExecutionError, match=r"node 'sp' \(StringSplit\): .*whitespace other than spaces"):
        backend.prepare(m).run([_strings(["a\tb"])])


def test_string_normalizer_maps_case_as_towupper_and_towlower():
    """Unicode's simple case mapping, one character to one (glibc's towlower
    and towupper, which onnxruntime's default locale uses): U+0130 lowercases
    to i, U+1F80 uppercases to U+1F88, ß and the ligature ﬁ stay."""
    words = ["İstanbul", "ᾀ", "ß", "ﬁne", "ΣΑΣ"]
    for action, want in (("LOWER", ["istanbul", "ᾀ", "ß", "ﬁne", "σασ"]),
                         ("UPPER", ["İSTANBUL", "ᾈ", "ß", "ﬁNE", "ΣΑΣ"])):  # fmt: skip
        m = _model([helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action=action)], [("x", S, None)],
                   [("y", S, None)])  # fmt: skip
        got = backend.prepare(m).run([_strings(words)])[0]
        assert list(got) == want, (action, list(got))
    # Stopwords compare lowercased the same way: İSTANBUL drops İstanbul.
    m = _model([helper.make_node("StringNormalizer", ["x"], ["y"], stopwords=["istanbul"])], [("x", S, None)],
               [("y", S, None)])  # fmt: skip
    assert list(backend.prepare(m).run([_strings(["İSTANBUL", "a"])])[0]) == ["a"]


def test_string_normalizer_refuses_another_locale():
    m = _model([helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action="LOWER", locale="tr_TR",
                                 name="n")], [("x", S, None)], [("y", S, None)])  # fmt: skip
    with pytest.raises(tfrt.api.ExecutionError, match=r"node 'n' \(StringNormalizer\): locale 'tr_TR'"):
        backend.prepare(m).run([_strings(["I"])])


def test_a_string_node_with_no_host_kernel_is_refused_naming_it():
    m = _model([helper.make_node("ReduceMax", ["x"], ["y"], name="rm")], [("x", S, None)], [("y", S, None)])
    with pytest.raises(ImportError_, match=r"node 'rm' \(ReduceMax\): reads the string tensor 'x'"):
        backend.prepare(m)


def test_a_number_given_for_a_string_input_is_an_error():
    m = _model([helper.make_node("Identity", ["x"], ["y"])], [("x", S, None)], [("y", S, None)])
    from tfrt.values import ValueSpecError

    with pytest.raises(ValueSpecError, match=r"argument 0 \('x'\): .*must be a string tensor"):
        backend.prepare(m).run([np.array([1.0])])


def test_numpy_str_arrays_and_bytes_are_accepted():
    m = _model([helper.make_node("StringConcat", ["x", "x"], ["y"])], [("x", S, None)], [("y", S, None)])
    rep = backend.prepare(m)
    for x in (np.array(["ab", "c"]), np.array([b"ab", b"c"], object)):
        (y,) = rep.run([x])
        assert y.dtype == object and y.tolist() == ["abab", "cc"]


# ---------------------------------------------------------------------------
# A BiDAF-like graph: tokens -> CategoryMapper -> Gather from an embedding -> MatMul


def _bidaf_like():
    rng = np.random.default_rng(0)
    vocab = ["the", "cat", "sat", "on", "mat", "<unk>"]
    emb = rng.standard_normal((len(vocab), 8)).astype(np.float32)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    nodes = [
        helper.make_node("StringNormalizer", ["tokens"], ["lower"], case_change_action="LOWER", locale="C"),
        helper.make_node("CategoryMapper", ["lower"], ["ids"], domain="ai.onnx.ml", cats_strings=vocab,
                         cats_int64s=list(range(len(vocab))), default_int64=len(vocab) - 1),  # fmt: skip
        helper.make_node("Gather", ["emb", "ids"], ["vecs"], axis=0),
        helper.make_node("MatMul", ["vecs", "w"], ["proj"]),
        helper.make_node("Relu", ["proj"], ["out"]),
    ]
    model = _model(nodes, [("tokens", S, [5])], [("out", F, [5, 4])], [("emb", emb), ("w", w)], ml=True)
    ids = np.array([0, 1, 2, 5, 4])
    return model, np.maximum(emb[ids] @ w, 0)


def test_bidaf_like_graph_through_the_backend():
    model, want = _bidaf_like()
    tokens = _strings(["The", "CAT", "sat", "under", "mat"])
    rep = backend.prepare(model)
    (out,) = rep.run([tokens])
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out, _ort(model, {"tokens": tokens})[0], rtol=1e-6, atol=1e-6)
    # The compiled stage after the kernels is compiled once for these shapes.
    compiles = rep.staged.compiles
    rep.run([_strings(["mat", "on", "the", "cat", "sat"])])
    assert rep.staged.compiles == compiles == 1


def test_bidaf_like_graph_through_api_load(tmp_path):
    model, want = _bidaf_like()
    path = tmp_path / "bidaf_like.onnx"
    onnx.save(model, str(path))
    prog = tfrt.api.load(str(path))
    out = prog.call("main", np.array(["The", "CAT", "sat", "under", "mat"]))
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    with pytest.raises(Exception, match=r"argument 0 \('tokens'\): shape \(4,\)"):
        prog.call("main", _strings(["a", "b", "c", "d"]))


def test_a_string_output_computed_from_numbers():
    """A numeric stage, then a Cast to strings and a Concat with a constant."""
    nodes = [
        helper.make_node("Add", ["x", "x"], ["y"]),
        helper.make_node("Cast", ["y"], ["s"], to=S),
        helper.make_node("Constant", [], ["suffix"], value=numpy_helper.from_array(_strings(["!"]), "c")),
        helper.make_node("StringConcat", ["s", "suffix"], ["z"]),
    ]
    m = _model(nodes, [("x", F, [3])], [("z", S, [3])])
    _same(m, {"x": np.array([0.25, 1.5, -3.0], np.float32)})


# ---------------------------------------------------------------------------
# A randomized sweep against onnxruntime


@pytest.mark.slow
def test_random_string_cases_against_onnxruntime():
    rng = np.random.default_rng(1)
    alphabet = list("ab- .AB1é") + ["  "]

    def words(n):
        return _strings(["".join(rng.choice(alphabet, rng.integers(0, 6))) for _ in range(n)])

    for _ in range(300):
        n = int(rng.integers(1, 6))
        x, y = words(n), words(n)
        delim = str(rng.choice(["-", " ", "", "ab", "."]))
        maxsplit = int(rng.integers(1, 4))
        nodes = [
            helper.make_node("StringSplit", ["x"], ["p", "c"], delimiter=delim, maxsplit=maxsplit),
            helper.make_node("StringConcat", ["x", "y"], ["xy"]),
            helper.make_node("Equal", ["x", "y"], ["eq"]),
            helper.make_node("StringNormalizer", ["xy"], ["norm"], case_change_action=str(rng.choice(["LOWER", "UPPER", "NONE"])),
                             is_case_sensitive=int(rng.integers(0, 2)), stopwords=list(words(2)), locale="C"),  # fmt: skip
            helper.make_node("RegexFullMatch", ["x"], ["rm"], pattern=str(rng.choice([r"[ab]*", r"\w+", r"a.*-", r"\s*\S*"]))),
        ]
        m = _model(nodes, [("x", S, [n]), ("y", S, [n])],
                   [("p", S, None), ("c", I64, None), ("xy", S, None), ("eq", B, None), ("norm", S, None), ("rm", B, None)])  # fmt: skip
        _same(m, {"x": x, "y": y})
        vals = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)).astype(np.float32)
        m = _model([helper.make_node("Cast", ["v"], ["s"], to=S), helper.make_node("Cast", ["s"], ["back"], to=F)],
                   [("v", F, [n])], [("s", S, None), ("back", F, None)])  # fmt: skip
        _same(m, {"v": vals})
