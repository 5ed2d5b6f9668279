"""The ONNX importer: every operator and three model families against onnxruntime."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import onnx_models as M  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

import tfrt.api  # noqa: E402
from tfrt.tools.import_onnx import ImportError_, import_onnx, import_onnx_batches  # noqa: E402

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def run_both(model, feeds, rtol=1e-4, atol=1e-5):
    """Our result and onnxruntime's; the max abs/rel error is printed."""
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, feeds)
    got = tfrt.api.load(import_onnx(model)).call("main", *feeds.values())
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        err = float(np.max(np.abs(g.astype(np.float64) - w))) if w.size else 0.0
        scale = float(np.max(np.abs(w))) if w.size else 1.0
        print(f"max abs error {err:.3g}, relative to max |output| {err / max(scale, 1e-30):.3g}")
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * max(scale, 1.0))
    return got


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def one(op_type, inputs, out_shape, inits=(), out_type=F, **attrs):
    node = helper.make_node(op_type, [n for n, *_ in inputs] + [k for k, _ in inits], ["y"], name="n0", **attrs)
    return M.model([node], [(n, t, s) for n, t, s in inputs], [("y", out_type, out_shape)], inits)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
def test_binary_ops_broadcast_like_numpy(op):
    m = one(op, [("a", F, [2, 3, 4]), ("b", F, [3, 1])], [2, 3, 4])
    run_both(m, {"a": rand(2, 3, 4), "b": rand(3, 1, seed=1) + 3})


@pytest.mark.parametrize("op", ["Relu", "Sigmoid", "Tanh", "Exp", "Erf", "Neg"])
def test_unary_ops(op):
    run_both(one(op, [("x", F, [2, 5])], [2, 5]), {"x": rand(2, 5)})


def test_sqrt_and_pow():
    run_both(one("Sqrt", [("x", F, [6])], [6]), {"x": np.abs(rand(6)) + 0.1})
    run_both(one("Pow", [("x", F, [6])], [6], inits=[("e", np.float32(2))]), {"x": rand(6)})
    run_both(one("Pow", [("x", F, [6])], [6], inits=[("e", np.float32(1.5))]), {"x": np.abs(rand(6)) + 0.1})


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    node = helper.make_node("Gelu", ["x"], ["y"], name="n0", approximate=approximate)
    m = M.model([node], [("x", F, [2, 7])], [("y", F, [2, 7])], opset=20)
    run_both(m, {"x": rand(2, 7)})


def test_clip_with_and_without_bounds():
    run_both(one("Clip", [("x", F, [8])], [8], inits=[("lo", np.float32(-0.5)), ("hi", np.float32(0.5))]), {"x": rand(8)})
    node = helper.make_node("Clip", ["x", "", "hi"], ["y"], name="n0")
    m = M.model([node], [("x", F, [8])], [("y", F, [8])], [("hi", np.float32(0.2))])
    run_both(m, {"x": rand(8)})


@pytest.mark.parametrize("trans_b", [0, 1])
def test_gemm_and_matmul(trans_b):
    w = rand(5, 4, seed=2) if trans_b else rand(4, 5, seed=2)
    m = one("Gemm", [("x", F, [3, 4])], [3, 5], inits=[("w", w), ("c", rand(5, seed=3))], transB=trans_b, alpha=0.5, beta=2.0)
    run_both(m, {"x": rand(3, 4)})
    run_both(one("MatMul", [("x", F, [2, 3, 4])], [2, 3, 5], inits=[("w", rand(4, 5, seed=4))]), {"x": rand(2, 3, 4)})
    run_both(one("MatMul", [("x", F, [2, 3, 4]), ("z", F, [2, 4, 6])], [2, 3, 6]), {"x": rand(2, 3, 4), "z": rand(2, 4, 6, seed=5)})


@pytest.mark.parametrize("group, pads, strides", [(1, [1, 1, 1, 1], [1, 1]), (1, [0, 1, 2, 0], [2, 2]), (4, [1, 1, 1, 1], [2, 1])])
def test_conv(group, pads, strides):
    m = one("Conv", [("x", F, [1, 4, 9, 9])], None, inits=[("w", rand(4, 4 // group, 3, 3, seed=6)), ("b", rand(4, seed=7))],
            kernel_shape=[3, 3], pads=pads, strides=strides, group=group)  # fmt: skip
    m.graph.output[0].type.tensor_type.ClearField("shape")
    run_both(m, {"x": rand(1, 4, 9, 9)})


def test_conv_same_padding_and_dilation():
    m = one("Conv", [("x", F, [1, 2, 8, 8])], None, inits=[("w", rand(3, 2, 3, 3, seed=8))],
            kernel_shape=[3, 3], auto_pad="SAME_UPPER", strides=[2, 2])  # fmt: skip
    m.graph.output[0].type.tensor_type.ClearField("shape")
    run_both(m, {"x": rand(1, 2, 8, 8)})
    m = one("Conv", [("x", F, [1, 2, 9, 9])], None, inits=[("w", rand(3, 2, 3, 3, seed=8))], kernel_shape=[3, 3], dilations=[2, 2])
    m.graph.output[0].type.tensor_type.ClearField("shape")
    run_both(m, {"x": rand(1, 2, 9, 9)})


def test_batch_norm_alone_and_folded_into_conv():
    bn = [("s", rand(3, seed=1) + 1), ("b", rand(3, seed=2)), ("m", rand(3, seed=3)), ("v", np.abs(rand(3, seed=4)) + 0.5)]
    run_both(one("BatchNormalization", [("x", F, [2, 3, 4, 4])], [2, 3, 4, 4], inits=bn), {"x": rand(2, 3, 4, 4)})
    b = M.Builder(3)
    y = b.conv_bn("x", 3, 5, 3, relu=True)
    b.nodes[-1].output[0] = "y"
    m = M.model(b.nodes, [("x", F, [1, 3, 6, 6])], [("y", F, [1, 5, 6, 6])], b.inits)
    text = import_onnx(m)
    assert "BatchNormalization" not in text and text.count("linalg.conv_2d_nhwc_hwcf") == 1
    run_both(m, {"x": rand(1, 3, 6, 6)})


@pytest.mark.parametrize("op, attrs", [
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("AveragePool", {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1]}),
    ("AveragePool", {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
])  # fmt: skip
def test_pooling(op, attrs):
    m = one(op, [("x", F, [1, 3, 7, 7])], None, **attrs)
    m.graph.output[0].type.tensor_type.ClearField("shape")
    run_both(m, {"x": rand(1, 3, 7, 7)})


def test_global_average_pool_flatten_softmax():
    b = M.Builder()
    y = b.op("GlobalAveragePool", ["x"])
    y = b.op("Flatten", [y], axis=1)
    y = b.op("Softmax", [y], axis=1)
    b.nodes[-1].output[0] = "y"
    run_both(M.model(b.nodes, [("x", F, [2, 6, 3, 3])], [("y", F, [2, 6])]), {"x": rand(2, 6, 3, 3)})


def test_shapes_transpose_concat_slice_squeeze():
    b = M.Builder()
    t = b.op("Transpose", ["x"], perm=[0, 2, 1])
    c = b.op("Concat", [t, t], axis=2)
    s = b.op("Slice", [c, b.init(np.array([1], np.int64)), b.init(np.array([6], np.int64)),
                       b.init(np.array([2], np.int64)), b.init(np.array([2], np.int64))])  # fmt: skip
    u = b.op("Unsqueeze", [s, b.init(np.array([0], np.int64))])
    q = b.op("Squeeze", [u, b.init(np.array([0], np.int64))])
    r = b.op("Reshape", [q, b.init(np.array([0, -1], np.int64))])
    b.nodes[-1].output[0] = "y"
    run_both(M.model(b.nodes, [("x", F, [2, 3, 4])], [("y", F, [2, 12])], b.inits), {"x": rand(2, 3, 4)})


def test_layer_norm_reduce_mean_and_cast():
    run_both(one("LayerNormalization", [("x", F, [2, 3, 8])], [2, 3, 8], inits=[("g", rand(8, seed=1)), ("b", rand(8, seed=2))],
                 axis=-1, epsilon=1e-5), {"x": rand(2, 3, 8)})  # fmt: skip
    run_both(one("ReduceMean", [("x", F, [2, 3, 4])], [2, 1, 4], axes=[1]), {"x": rand(2, 3, 4)})
    run_both(one("ReduceMean", [("x", F, [2, 3, 4])], [2], axes=[1, 2], keepdims=0), {"x": rand(2, 3, 4)})
    run_both(one("Cast", [("x", I64, [5])], [5], to=TensorProto.FLOAT), {"x": np.arange(5, dtype=np.int64)})


def test_gather_embedding_and_constant_shape_arithmetic():
    b = M.Builder()
    table = b.init(rand(10, 4))
    g = b.op("Gather", [table, "ids"], axis=0)
    shp = b.op("Shape", [g])
    n = b.op("Gather", [shp, b.init(np.array(2, np.int64))], axis=0)
    new = b.op("Concat", [b.op("Unsqueeze", [n, b.init(np.array([0], np.int64))]), b.init(np.array([-1], np.int64))], axis=0)
    y = b.op("Reshape", [g, new])
    b.nodes[-1].output[0] = "y"
    m = M.model(b.nodes, [("ids", I64, [2, 3])], [("y", F, [4, 6])], b.inits)
    run_both(m, {"ids": np.array([[0, 9, 3], [3, 3, 1]], np.int64)})


def test_constant_nodes_and_folded_shape_arithmetic():
    """Constant nodes and what exporters compute from shapes (Shape, Mod, Max,
    Range, ConstantOfShape, Expand, Where, ...) become constants at import."""
    b = M.Builder()
    k = b.op("Constant", [], value=numpy_helper_from(rand(3, 4, seed=3)))
    two = b.op("Constant", [], value_int=2)
    half = b.op("Constant", [], value_float=0.5)
    shp = b.op("Shape", ["x"])  # [6, 4]
    n = b.op("Gather", [shp, b.init(np.array(0, np.int64))], axis=0)
    n = b.op("Max", [b.op("Mod", [n, b.init(np.array(4, np.int64))]), two])  # max(6 % 4, 2) = 2
    rows = b.op("Div", [b.op("Gather", [shp, b.init(np.array(0, np.int64))], axis=0), n])  # 3
    new = b.op("Concat", [b.op("Unsqueeze", [rows, b.init(np.array([0], np.int64))]), b.init(np.array([-1], np.int64))], axis=0)
    xr = b.op("Reshape", ["x", new])  # [3, 8]
    ones = b.op("ConstantOfShape", [b.op("Shape", [k])], value=numpy_helper_from(np.array([1.0], np.float32)))
    r = b.op("Cast", [b.op("Range", [b.init(np.array(0, np.int64)), b.init(np.array(4, np.int64)), b.init(np.array(1, np.int64))])],
             to=TensorProto.FLOAT)  # fmt: skip
    mask = b.op("Where", [b.op("Less", [r, b.init(np.float32(2))]), r, b.op("Neg", [r])])  # [0, 1, -2, -3]
    kk = b.op("Mul", [b.op("Add", [k, b.op("Expand", [mask, b.op("Shape", [k])])]), b.op("Mul", [ones, half])])
    left = b.op("Slice", [xr, b.init(np.array([0], np.int64)), b.init(np.array([4], np.int64)), b.init(np.array([1], np.int64))])
    b.op("Add", [left, kk])
    b.nodes[-1].output[0] = "y"
    m = M.model(b.nodes, [("x", F, [6, 4])], [("y", F, [3, 4])], b.inits)
    run_both(m, {"x": rand(6, 4)})


def numpy_helper_from(a):
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(a))


def test_mobilenet_v2_block():
    run_both(M.mobilenet_block(), {"x": rand(1, 16, 16, 16)})


def test_one_module_per_batch_size_shares_the_weights():
    """import_onnx_batches: a function per batch size, each weight one resource."""
    m = M.resnet50(batch="N", size=32, widths=(8, 8, 8, 8), blocks=(1, 1, 1, 1), classes=10)
    text = import_onnx_batches(m, {"main_b1": 1, "main_b3": 3})
    one_fn = import_onnx(m, batch=1)
    assert text.count("dialect_resources") == 1
    section = text[text.index("{-#"):]
    assert section == one_fn[one_fn.index("{-#"):]  # the same keys, once
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    prog = tfrt.api.load(text)
    for fn, b in (("main_b1", 1), ("main_b3", 3)):
        x = rand(b, 3, 32, 32, seed=b)
        np.testing.assert_allclose(prog.call(fn, x), sess.run(None, {"input": x})[0], rtol=1e-4, atol=1e-4)


def test_bert_style_encoder_layer():
    ids = np.random.default_rng(1).integers(0, 50, (1, 8)).astype(np.int64)
    run_both(M.bert_layer(), {"ids": ids})


def test_resnet50_small_input():
    """ResNet-50's full architecture (random weights) at 64x64."""
    run_both(M.resnet50(size=64), {"input": rand(1, 3, 64, 64)}, rtol=1e-4, atol=1e-5)


def test_unsupported_operator_names_the_node():
    m = one("NoSuchOperator", [("x", F, [2, 3])], [2, 3])
    with pytest.raises(ImportError_, match=r"^node 'n0' \(NoSuchOperator\): unsupported operator$"):
        import_onnx(m)


def test_dynamic_input_shape_needs_a_static_one(tmp_path):
    m = one("Relu", [("x", F, ["N", 3])], ["N", 3])
    with pytest.raises(ImportError_, match=r"input 'x' has a dynamic dimension 'N': give a static shape"):
        import_onnx(m)
    run = tfrt.api.load(import_onnx(m, input_shapes={"x": (2, 3)}))
    x = rand(2, 3)
    np.testing.assert_array_equal(run.call("main", x), np.maximum(x, 0))


def _tool(name, *args, cwd):
    code = f"import sys; from tfrt.tools.{name} import main; sys.argv[0] = {name!r}; main()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_weights_are_resources_and_load_zero_copy(tmp_path):
    """Initializers become dense_resource blobs named after them; in the BEF they
    are tensors that are views of the mapped file."""
    from tfrt.bef.reader import read_bef
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module
    from tfrt.passes.compiler import compile_module

    m = M.mobilenet_block()
    text = import_onnx(m)
    body, _, section = text.partition("\n{-#\n")
    assert "dense_resource<w1__bn_folded> : tensor<1x1x16x96xf32>" in body
    assert '"0x' not in body  # no weight bytes inline
    assert section.startswith("  dialect_resources: {\n    builtin: {\n      w1__bn_folded: \"0x04000000")
    module = parse_module(text, "block.mlir")
    compile_module(module)
    (tmp_path / "block.bef").write_bytes(write_bef(module))
    bef = read_bef(tmp_path / "block.bef")
    fn = bef.function("main")
    mapped = np.frombuffer(bef.source, np.uint8)
    tensors = [bef.attribute(off) for k, names in zip(fn.kernels, fn.attribute_names) if k.name == "tfrt_array.constant"
               for off in k.attrs]  # fmt: skip
    tensors = [t for t in tensors if isinstance(t, np.ndarray) and t.size > 16]
    assert len(tensors) >= 3
    assert all(np.shares_memory(t, mapped) for t in tensors)


def test_tools_import_compile_and_run(tmp_path):
    m = M.mobilenet_block()
    onnx.save(m, tmp_path / "block.onnx")
    r = _tool("import_onnx", "block.onnx", "-o", "block.mlir", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "block.mlir").read_text().startswith("// Imported from ONNX")
    r = _tool("tfrt_compile", "block.onnx", "-o", "block.bef", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    x = rand(1, 16, 16, 16)
    np.save(tmp_path / "x.npy", x)
    r = _tool("bef_executor", "block.bef", "--function=main", "--input=@x.npy", "--output=@y.npy", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), want, rtol=1e-4, atol=1e-5)
    # tfrt.api.load takes the .onnx file too
    np.testing.assert_allclose(tfrt.api.load(tmp_path / "block.onnx").call("main", x), want, rtol=1e-4, atol=1e-5)


def test_bad_files_are_clear_errors(tmp_path):
    (tmp_path / "junk.onnx").write_bytes(b"\x00\x01 not a protobuf \xff\xfe")
    for tool in ("import_onnx", "tfrt_compile"):
        r = _tool(tool, "junk.onnx", "-o", "out", cwd=tmp_path)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert "junk.onnx' is not an ONNX model" in r.stderr, r.stderr
    r = _tool("import_onnx", "missing.onnx", cwd=tmp_path)
    assert r.returncode == 1 and "cannot read 'missing.onnx'" in r.stderr, r.stderr
    onnx.save(one("Unique", [("x", F, [2, 3])], [2, 3]), tmp_path / "h.onnx")
    r = _tool("tfrt_compile", "h.onnx", cwd=tmp_path)
    assert r.returncode == 1 and "node 'n0' (Unique): the shape of its output depends on the values" in r.stderr, r.stderr


def test_external_weights_are_read_from_the_models_folder(tmp_path):
    m = M.mobilenet_block()
    x = rand(1, 16, 16, 16)
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    onnx.save(m, tmp_path / "block.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
              location="block.weights", size_threshold=0)  # fmt: skip
    assert (tmp_path / "block.weights").stat().st_size > 10_000
    got = tfrt.api.load(tmp_path / "block.onnx").call("main", x)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    (tmp_path / "block.weights").unlink()
    r = _tool("import_onnx", "block.onnx", cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "'block.onnx': cannot read its external weights" in r.stderr, r.stderr


def test_resnet50_224_through_the_tools(tmp_path):
    """ResNet-50 at batch 1, 224x224: tfrt_compile model.onnx, bef_executor --input=@x.npy."""
    m = M.resnet50()
    onnx.save(m, tmp_path / "resnet50.onnx")
    r = _tool("tfrt_compile", "resnet50.onnx", "-o", "resnet50.bef", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    x = rand(1, 3, 224, 224, seed=5)
    np.save(tmp_path / "x.npy", x)
    r = _tool("bef_executor", "resnet50.bef", "--function=main", "--input=@x.npy", "--output=@y.npy", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"input": x})[0]
    got = np.load(tmp_path / "y.npy")
    err = float(np.max(np.abs(got - want)))
    print(f"ResNet-50 224: max abs error {err:.3g}, relative to max |logit| {err / float(np.max(np.abs(want))):.3g}")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * float(np.max(np.abs(want))))


@pytest.mark.parametrize("name", ["resnet50", "mobilenet_block", "bert_layer"])
def test_float16_import_computes_in_f16_within_its_precision(name):
    """--float16: inputs, outputs, weights and every op in f16; the result
    agrees with onnxruntime's f32 within a few f16 ULPs of the output's
    largest magnitude (measured: 1.3e-3, 3.0e-3 and 1.2e-3)."""
    m = M.resnet50(size=32) if name == "resnet50" else getattr(M, name)()
    rng = np.random.default_rng(0)
    feeds = {}
    for inp in m.graph.input:
        dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        if inp.type.tensor_type.elem_type == I64:
            feeds[inp.name] = rng.integers(0, 50, dims).astype(np.int64)
        else:
            feeds[inp.name] = rng.standard_normal(dims).astype(np.float32)
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    text = import_onnx(m, float16=True)
    signature = text[text.index("func.func") : text.index("{", text.index("func.func"))]
    assert "f32" not in signature and "f16" in signature, signature
    args = [v.astype(np.float16) if v.dtype == np.float32 else v for v in feeds.values()]
    got = tfrt.api.load(text).call("main", *args)
    assert got.dtype == np.float16 and got.shape == want.shape
    err = float(np.max(np.abs(got.astype(np.float64) - want)))
    print(f"max abs error {err:.3g}, relative to max |output| {err / np.max(np.abs(want)):.3g}")
    assert err <= 8 * float(np.finfo(np.float16).eps) * float(np.max(np.abs(want)))
    # The f32 weights were not changed in place.
    assert tfrt.api.load(import_onnx(m)).call("main", *feeds.values()).dtype == np.float32


@pytest.mark.parametrize("op,shape,out_shape,attrs", [
    ("GlobalAveragePool", [1, 4, 16, 16], [1, 4, 1, 1], {}),
    ("ReduceMean", [2, 3, 512], [2, 3], {"axes": [2], "keepdims": 0}),
    ("LayerNormalization", [2, 1024], [2, 1024], {"axis": -1}),
])  # fmt: skip
def test_float16_means_do_not_overflow_where_the_mean_fits(op, shape, out_shape, attrs):
    """Values near 1,000: their f16 sum (or sum of squares) is past f16's
    65,504 though their mean is not; the sums are taken in f32, as
    onnxruntime takes them, so the result is finite and right.  (The
    LayerNormalization has ONNX's default epsilon.)"""
    x = (1000 + 50 * rand(*shape)).astype(np.float32)
    inits = []
    if op == "LayerNormalization":
        inits = [("scale", np.ones(shape[-1], np.float32)), ("bias", np.zeros(shape[-1], np.float32))]
    m = one(op, [("x", F, shape)], out_shape, inits=inits, **attrs)
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = tfrt.api.load(import_onnx(m, float16=True)).call("main", x.astype(np.float16))
    assert got.dtype == np.float16 and np.all(np.isfinite(got))
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=4e-3, atol=4e-3 * float(np.abs(want).max()))


@pytest.mark.parametrize("x,epsilon", [
    ([-600, -300, -100, 0, 100, 300, 600, 0], 1e-5),  # squares past 65,504
    ([3, 3, 3, 3, 3, 3, 3, 3], 1e-12),  # BERT's epsilon: 0 in f16
    ([0, 1, 2, 3, 4, 5, 6, 7], 1e20),  # past f16's range
])  # fmt: skip
def test_float16_layer_norm_normalizes_in_f32(x, epsilon):
    """f16 LayerNormalization computes the variance, epsilon and rsqrt in f32
    and rounds once, as onnxruntime does; in f16 these gave the bias alone,
    NaN, and an import error."""
    x = np.array([x], np.float32)
    inits = [("scale", np.ones(8, np.float32)), ("bias", np.full(8, 0.5, np.float32))]
    m = one("LayerNormalization", [("x", F, [1, 8])], [1, 8], inits=inits, axis=-1, epsilon=epsilon)
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = tfrt.api.load(import_onnx(m, float16=True)).call("main", x.astype(np.float16))
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=2e-3)


def test_f64_float_attributes_are_mlir_literals():
    """An f64 Clip bound of 1e-05 (Python's spelling; MLIR needs 1.0e-05)."""
    m = one("Clip", [("x", TensorProto.DOUBLE, [3])], [3],
            inits=[("lo", np.float64(1e-5)), ("hi", np.float64(10.0))], out_type=TensorProto.DOUBLE)  # fmt: skip
    x = np.array([-1.0, 0.5, 20.0])
    np.testing.assert_array_equal(tfrt.api.load(import_onnx(m)).call("main", x), [1e-5, 0.5, 10.0])


def test_float16_flag_of_the_importer_tool(tmp_path):
    onnx.save(M.mobilenet_block(), tmp_path / "block.onnx")
    r = _tool("import_onnx", "block.onnx", "--float16", "-o", "block16.mlir", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    x = rand(1, 16, 16, 16).astype(np.float16)
    got = tfrt.api.load(tmp_path / "block16.mlir").call("main", x)
    assert got.dtype == np.float16


def test_float16_flag_of_tfrt_compile(tmp_path):
    onnx.save(M.mobilenet_block(), tmp_path / "block.onnx")
    r = _tool("tfrt_compile", "block.onnx", "--float16", "-o", "block16.bef", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = tfrt.api.load(tmp_path / "block16.bef").call("main", rand(1, 16, 16, 16).astype(np.float16))
    assert got.dtype == np.float16
    (tmp_path / "m.mlir").write_text("func.func @f() {\n  return\n}\n")
    r = _tool("tfrt_compile", "m.mlir", "--float16", cwd=tmp_path)
    assert r.returncode == 1
    assert "--float16 converts ONNX models; 'm.mlir' is not a .onnx file" in r.stderr
    assert "Traceback" not in r.stderr
