"""Adagrad, Adam, Momentum (ai.onnx.preview.training), Binarizer,
ArrayFeatureExtractor, TreeEnsemble (ai.onnx.ml) and TfIdfVectorizer through
``tfrt.onnx.backend``: ONNX's node tests, ONNX's reference (the optimizers:
onnxruntime has no training operators) and onnxruntime on cases of our own,
and the refusals.  ``-m slow`` runs a longer sweep of random forests.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.helper import make_tensor  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from tfrt.onnx import backend  # noqa: E402
from tfrt.tools.import_onnx import ImportError_, import_onnx  # noqa: E402

TRAINING = [helper.make_opsetid("ai.onnx.preview.training", 1), helper.make_opsetid("", 18)]
ML = [helper.make_opsetid("ai.onnx.ml", 5), helper.make_opsetid("", 21)]


def _model(node, ins, outs, opsets):
    vis = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in ins]
    g = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(n, t, s) for n, t, s in outs])
    return helper.make_model(g, opset_imports=opsets)


def _ours_and(node, ins, outs, opsets, want_fn, theirs=None):
    """Our outputs and ``want_fn(model)``'s (output shapes from theirs);
    ``theirs``: another node for the other runtime (a different encoding)."""
    probe = _model(theirs or node, ins, [(n, t, None) for n, t in outs], opsets)
    want = want_fn(probe, dict(ins))
    m = _model(node, ins, [(n, t, w.shape) for (n, t), w in zip(outs, want)], opsets)
    got = backend.prepare(m).run([a for _, a in ins])
    return list(got), want


def _ort(model, feeds):
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)


def _ref(model, feeds):
    return ReferenceEvaluator(model).run(None, feeds)


# -- ONNX's node tests ---------------------------------------------------------------------------

_MODULES = ["adagrad", "adam", "momentum", "ai_onnx_ml.binarizer", "ai_onnx_ml.array_feature_extractor",
            "ai_onnx_ml.tree_ensemble", "tfidfvectorizer"]  # fmt: skip
_WANTED = ("test_adagrad", "test_adam", "test_momentum", "test_nesterov_momentum", "test_ai_onnx_ml_binarizer",
           "test_ai_onnx_ml_array_feature_extractor", "test_ai_onnx_ml_tree_ensemble", "test_tfidfvectorizer")  # fmt: skip


def _node_cases():
    import onnx.backend.test.case.node as node_cases

    for m in _MODULES:
        importlib.import_module(f"onnx.backend.test.case.node.{m}")
    return {c.name: c for c in node_cases._NodeTestCases if c.name.startswith(_WANTED)}


CASES = _node_cases()


def test_the_node_cases_are_found():
    assert len(CASES) == 18, sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_onnx_node_case(name):
    from onnx.backend.test.runner import Runner

    case = CASES[name]
    rep = backend.prepare(case.model)
    for ins, outs in case.data_sets:
        ins = [numpy_helper.to_array(v) if isinstance(v, TensorProto) else v for v in ins]
        outs = [numpy_helper.to_array(v) if isinstance(v, TensorProto) else v for v in outs]
        got = list(rep.run(ins))
        Runner.assert_similar_outputs(outs, got, rtol=case.rtol, atol=case.atol)
        for g, w in zip(got, outs):
            assert g.dtype == w.dtype and g.shape == w.shape


# -- the optimizers against ONNX's reference -----------------------------------------------------

_OPTIMIZERS = {
    "adagrad": ("Adagrad", 3, dict(norm_coefficient=0.01, epsilon=1e-6, decay_factor=0.3)),
    "adam": ("Adam", 4, dict(alpha=0.8, beta=0.95, epsilon=1e-7, norm_coefficient=0.02, norm_coefficient_post=0.1)),
    "adam_defaults": ("Adam", 4, dict()),
    "momentum": ("Momentum", 3, dict(alpha=0.9, beta=0.7, mode="standard", norm_coefficient=0.05)),
    "nesterov": ("Momentum", 3, dict(alpha=0.9, beta=0.7, mode="nesterov", norm_coefficient=0.05)),
}


@pytest.mark.parametrize("which", sorted(_OPTIMIZERS))
@pytest.mark.parametrize("dt,rdt", [(np.float32, np.float32), (np.float64, np.float64), (np.float32, np.float64)])
@pytest.mark.parametrize("t", [0, 3])
def test_optimizer_against_reference(which, dt, rdt, t):
    op, groups, attrs = _OPTIMIZERS[which]
    rng = np.random.default_rng(len(which) * 7 + t)
    shapes = [(3,), (2, 4)]
    names = ["R", "T"] + [f"{k}{i}" for k in "XGVH"[:groups] for i in range(2)]
    arrs = [np.array(0.1, rdt), np.array(t, np.int64)]
    for k in range(groups):
        for i in range(2):
            v = rng.standard_normal(shapes[i]).astype(dt)
            arrs.append(np.abs(v) if k == groups - 1 and op != "Momentum" else v)
    outs = [f"o{j}" for j in range((groups - 1) * 2)]
    node = helper.make_node(op, names, outs, domain="ai.onnx.preview.training", **attrs)
    et = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
    got, want = _ours_and(node, list(zip(names, arrs)), [(o, et) for o in outs], TRAINING, _ref)
    for g, w in zip(got, want):
        assert g.dtype == np.dtype(dt) and g.shape == w.shape
        # ONNX's reference takes 1 - alpha (and the like) in float32 and,
        # for several tensors, returns Adam's results as float32: within
        # that rounding, and exactly where it computes as the spec says.
        tol = 2e-7 if op == "Adam" else 0
        np.testing.assert_allclose(g, w.astype(dt), rtol=tol, atol=tol)


def test_momentum_first_iteration_has_gradient_coefficient_one():
    # With T = 0, beta is replaced by 1 (the spec): V_new = alpha * V + G.
    x, g, v = np.array([1.0], np.float32), np.array([2.0], np.float32), np.array([3.0], np.float32)
    ins = [("R", np.array(0.5, np.float32)), ("T", np.array(0, np.int64)), ("X", x), ("G", g), ("V", v)]
    node = helper.make_node("Momentum", ["R", "T", "X", "G", "V"], ["Xn", "Vn"], domain="ai.onnx.preview.training",
                            alpha=0.5, beta=0.25, mode="standard", norm_coefficient=0.0)  # fmt: skip
    m = _model(node, ins, [("Xn", TensorProto.FLOAT, [1]), ("Vn", TensorProto.FLOAT, [1])], TRAINING)
    xn, vn = backend.prepare(m).run([a for _, a in ins])
    assert vn[0] == 0.5 * 3 + 2 and xn[0] == 1 - 0.5 * 3.5


# -- Binarizer, ArrayFeatureExtractor ------------------------------------------------------------


@pytest.mark.parametrize("thr", [0.5, -1.25, 0.0])
def test_binarizer_against_onnxruntime(thr):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3, 5)) * 3).astype(np.float32)
    x[0, 1] = thr
    node = helper.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml", threshold=thr)
    got, want = _ours_and(node, [("x", x)], [("y", TensorProto.FLOAT)], ML, _ort)
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("dt", [np.int64, np.int32, np.float64])
def test_binarizer_other_types(dt):
    # onnxruntime has float only; ONNX's reference: (x > threshold) in x's type.
    x = np.array([[-3, -2, -1], [0, 1, 2]], dt)
    node = helper.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml", threshold=-1.5)
    got, want = _ours_and(node, [("x", x)], [("y", helper.np_dtype_to_tensor_dtype(np.dtype(dt)))], ML, _ref)
    assert got[0].dtype == np.dtype(dt)
    np.testing.assert_array_equal(got[0], [[0, 0, 1], [1, 1, 1]])
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("shape,idx", [((3, 5), [4, 0, 2]), ((5,), [1, 1]), ((2, 3, 4), [[3, 0]])])
def test_array_feature_extractor_against_onnxruntime(shape, idx):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * 1.5
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain="ai.onnx.ml")
    got, want = _ours_and(node, [("x", x), ("i", np.array(idx, np.int64))], [("y", TensorProto.FLOAT)], ML, _ort)
    assert got[0].shape == want[0].shape
    np.testing.assert_array_equal(got[0], want[0])


def test_array_feature_extractor_constant_index_out_of_range_is_refused():
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain="ai.onnx.ml", name="afe")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.array([3], np.int64), "i")])  # fmt: skip
    with pytest.raises(ImportError_, match=r"node 'afe' \(ArrayFeatureExtractor\).*index 3 is out of range"):
        import_onnx(helper.make_model(g, opset_imports=ML))


def test_array_feature_extractor_negative_index_given_at_run_time_is_an_error():
    """A negative index is out of range when it comes at run time too (not
    the last column, as a numpy take would pick): an error, not a value."""
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain="ai.onnx.ml")
    x, i = np.arange(10, dtype=np.float32).reshape(2, 5), np.array([0, -1], np.int64)
    rep = backend.prepare(_model(node, [("x", x), ("i", i)], [("y", TensorProto.FLOAT, [2, 2])], ML))
    np.testing.assert_array_equal(rep.run([x, np.array([4, 0], np.int64)])[0], [[4, 0], [9, 5]])
    with pytest.raises(Exception, match="out of bounds"):
        rep.run([x, i])


# -- TreeEnsemble ----------------------------------------------------------------------------------


def _forest(rng, ntrees, nfeat, ntargets, dt):
    """A random forest in TreeEnsemble's encoding (every mode, set members,
    missing values tracking either way), thresholds and members integral."""
    modes, feats, splits, tn, fn, tl, fl, mt, lt, lw, roots, mem = ([] for _ in range(12))
    grid = np.round(rng.standard_normal(6) * 2)

    def grow(depth):
        i = len(modes)
        m = int(rng.integers(0, 7))
        modes.append(m)
        feats.append(int(rng.integers(0, nfeat)))
        mt.append(int(rng.integers(0, 2)))
        splits.append(0.0 if m == 6 else float(rng.choice(grid)))
        if m == 6:
            mem.extend([*rng.choice(grid, size=int(rng.integers(1, 4)), replace=False), np.nan])
        tn.append(0), fn.append(0), tl.append(0), fl.append(0)
        for ids, leafs in ((tn, tl), (fn, fl)):
            if depth >= 3 or rng.random() < 0.3:
                ids[i], leafs[i] = len(lw), 1
                lw.append(float(np.round(rng.standard_normal(), 3)))
                lt.append(int(rng.integers(0, ntargets)))
            else:
                ids[i] = grow(depth + 1)
        return i

    for _ in range(ntrees):
        roots.append(grow(0))
    et = helper.np_dtype_to_tensor_dtype(np.dtype(dt))
    kw = dict(n_targets=ntargets, tree_roots=roots, nodes_featureids=feats, nodes_truenodeids=tn, nodes_falsenodeids=fn,
              nodes_trueleafs=tl, nodes_falseleafs=fl, leaf_targetids=lt, nodes_missing_value_tracks_true=mt,
              nodes_modes=make_tensor("m", TensorProto.UINT8, (len(modes),), np.array(modes, np.uint8)),
              nodes_splits=make_tensor("s", et, (len(splits),), np.array(splits, dt)),
              leaf_weights=make_tensor("w", et, (len(lw),), np.array(lw, dt)))  # fmt: skip
    if mem:
        kw["membership_values"] = make_tensor("mv", et, (len(mem),), np.array(mem, dt))
    return kw


def _forest_case(seed):
    rng = np.random.default_rng(seed)
    dt = [np.float32, np.float64][seed % 2]
    agg, post = int(rng.integers(0, 4)), int(rng.integers(0, 3))
    kw = _forest(rng, int(rng.integers(1, 5)), 3, 3, dt)
    x = np.round(rng.standard_normal((20, 3)) * 2).astype(dt)
    x[rng.random(x.shape) < 0.1] = np.nan
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml", aggregate_function=agg, post_transform=post, **kw)
    # onnxruntime (1.32) numbers post_transform as its older operators do
    # (1 LOGISTIC, 2 SOFTMAX); the spec has 1 SOFTMAX, 2 LOGISTIC.
    theirs = helper.make_node("TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml", aggregate_function=agg,
                              post_transform=[0, 2, 1][post], **kw)  # fmt: skip
    got, want = _ours_and(node, [("x", x)], [("y", helper.np_dtype_to_tensor_dtype(np.dtype(dt)))], ML, _ort, theirs)
    assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
    # Sums are taken in f64 and rounded once (onnxruntime: in the leaf
    # weights' type, tree by tree); onnxruntime's transforms are in f32.
    np.testing.assert_allclose(got[0], want[0], rtol=2e-7, atol=2e-7)


@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_tree_ensemble_against_onnxruntime(seed):
    _forest_case(seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6, 46))
def test_tree_ensemble_against_onnxruntime_sweep(seed):
    _forest_case(seed)


def test_tree_ensemble_post_transforms_follow_the_spec():
    # One tree, one split: scores (1, -2) or (-1, 3).
    kw = dict(n_targets=2, tree_roots=[0], nodes_featureids=[0], nodes_truenodeids=[0], nodes_falsenodeids=[2],
              nodes_trueleafs=[1], nodes_falseleafs=[1], leaf_targetids=[0, 1, 0, 1],
              nodes_modes=make_tensor("m", TensorProto.UINT8, (1,), np.array([0], np.uint8)),
              nodes_splits=make_tensor("s", TensorProto.FLOAT, (1,), [0.5]),
              leaf_weights=make_tensor("w", TensorProto.FLOAT, (4,), [1, -2, -1, 3]))  # fmt: skip
    # (the true branch reaches leaf 0 only; leaf 1 is unreachable)
    kw["nodes_truenodeids"] = [0]
    x = np.array([[0.0], [1.0]], np.float32)
    scores = np.array([[1.0, 0.0], [-1.0, 0.0]])
    for post, fn in [(0, lambda s: s), (1, lambda s: np.exp(s) / np.exp(s).sum(1, keepdims=True)), (2, lambda s: 1 / (1 + np.exp(-s)))]:
        node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml", post_transform=post, **kw)
        m = _model(node, [("x", x)], [("y", TensorProto.FLOAT, [2, 2])], ML)
        np.testing.assert_allclose(backend.prepare(m).run([x])[0], fn(scores), rtol=1e-6)


def test_tree_ensemble_refusals():
    kw = dict(n_targets=1, tree_roots=[0], nodes_featureids=[0], nodes_truenodeids=[0], nodes_falsenodeids=[0],
              nodes_trueleafs=[1], nodes_falseleafs=[1], leaf_targetids=[0],
              nodes_modes=make_tensor("m", TensorProto.UINT8, (1,), np.array([0], np.uint8)),
              nodes_splits=make_tensor("s", TensorProto.FLOAT, (1,), [0.5]),
              leaf_weights=make_tensor("w", TensorProto.FLOAT, (1,), [1]))  # fmt: skip
    x = np.zeros((2, 1), np.float32)
    for extra, msg in [(dict(post_transform=4), "post_transform 4 .PROBIT. is not supported"),
                       (dict(nodes_featureids=[3]), "feature id 3 is out of range for 1 features"),
                       (dict(leaf_targetids=[2]), "leaf target id 2 is out of range")]:  # fmt: skip
        node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml", name="te", **{**kw, **extra})
        with pytest.raises(ImportError_, match=r"node 'te' \(TreeEnsemble\): " + msg):
            import_onnx(_model(node, [("x", x)], [("y", TensorProto.FLOAT, None)], ML))


# -- TfIdfVectorizer -----------------------------------------------------------------------------

_TFIDF = [
    dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=2, ngram_counts=[0, 4], ngram_indexes=list(range(7)),
         pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7]),
    dict(mode="IDF", min_gram_length=2, max_gram_length=3, max_skip_count=1, ngram_counts=[0, 3, 7], ngram_indexes=[0, 1, 2, 3, 4, 5, 6],
         pool_int64s=[2, 3, 4, 2, 3, 3, 4, 2, 3, 4, 3, 4, 2], weights=[0.5, 1.5, 2.0, 2.5, 3.0, 0.25, 4.0]),
    dict(mode="TFIDF", min_gram_length=1, max_gram_length=1, max_skip_count=3, ngram_counts=[0], ngram_indexes=[2, 0, 1],
         pool_int64s=[4, 2, 3], weights=[0.5, 1.5, 2.0]),
    dict(mode="TFIDF", min_gram_length=1, max_gram_length=3, max_skip_count=0, ngram_counts=[0, 2, 6], ngram_indexes=[0, 1, 2, 3, 4],
         pool_int64s=[2, 3, 2, 3, 3, 2, 2, 3, 2]),
]  # fmt: skip


@pytest.mark.parametrize("k", range(len(_TFIDF)))
@pytest.mark.parametrize("shape,dt", [((12,), np.int64), ((3, 9), np.int32)])
def test_tfidf_against_onnxruntime(k, shape, dt):
    rng = np.random.default_rng(k)
    x = rng.integers(2, 6, size=shape).astype(dt)
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **_TFIDF[k])
    got, want = _ours_and(node, [("x", x)], [("y", TensorProto.FLOAT)], [helper.make_opsetid("", 21)], _ort)
    assert got[0].shape == want[0].shape
    np.testing.assert_array_equal(got[0], want[0])


def test_tfidf_strings_are_refused():
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], name="tfidf", **{k: v for k, v in _TFIDF[0].items() if k != "pool_int64s"},
                            pool_strings=["a", "b"])  # fmt: skip
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.INT64, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])  # fmt: skip
    with pytest.raises(ImportError_, match=r"node 'tfidf' \(TfIdfVectorizer\): a pool of strings"):
        import_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]))


def test_other_ml_operators_stay_refused():
    node = helper.make_node("Scaler", ["x"], ["y"], domain="ai.onnx.ml", name="sc", scale=[2.0], offset=[0.0])
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])  # fmt: skip
    with pytest.raises(ImportError_, match=r"node 'sc' \(Scaler\): operators of domain 'ai.onnx.ml' are not supported"):
        import_onnx(helper.make_model(g, opset_imports=ML))


def test_optimizer_with_mismatched_tensors_is_refused():
    node = helper.make_node("Adagrad", ["R", "T", "X", "G", "H"], ["Xn", "Hn"], domain="ai.onnx.preview.training", name="ada")
    ins = [("R", np.array(0.1, np.float32)), ("T", np.array(0, np.int64)), ("X", np.zeros(3, np.float32)),
           ("G", np.zeros(4, np.float32)), ("H", np.zeros(3, np.float32))]  # fmt: skip
    with pytest.raises(ImportError_, match=r"node 'ada' \(Adagrad\): 'G' is float32\[4\], 'X' is float32\[3\]: they must agree"):
        import_onnx(_model(node, ins, [("Xn", TensorProto.FLOAT, None), ("Hn", TensorProto.FLOAT, None)], TRAINING))
