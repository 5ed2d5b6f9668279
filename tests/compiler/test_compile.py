"""The compiler end to end: high-level MLIR -> tfrt_compile's pipeline -> BEF -> executor,
checked against numpy, plus the errors a user gets for what cannot be compiled."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfrt.api

BIN = Path(sys.executable).parent
RNG = np.random.default_rng(0)


def _run(text: str, name: str, *args):
    return tfrt.api.load(text).call(name, *args)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


BATCH_MATMUL = """
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %m: tensor<3x4xf32>, %v: tensor<4xf32>)
    -> (tensor<2x3x5xf32>, tensor<3xf32>, tensor<f32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%f : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %e2 = tensor.empty() : tensor<3xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<3xf32>) -> tensor<3xf32>
  %mv = linalg.matvec ins(%m, %v : tensor<3x4xf32>, tensor<4xf32>) outs(%f2 : tensor<3xf32>) -> tensor<3xf32>
  %e3 = tensor.empty() : tensor<f32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%v, %v : tensor<4xf32>, tensor<4xf32>) outs(%f3 : tensor<f32>) -> tensor<f32>
  return %r, %mv, %d : tensor<2x3x5xf32>, tensor<3xf32>, tensor<f32>
}"""


def test_batch_matmul_matvec_and_dot():
    text = BATCH_MATMUL
    a, b, m, v = _f32(2, 3, 4), _f32(2, 4, 5), _f32(3, 4), _f32(4)
    r, mv, d = _run(text, "f", a, b, m, v)
    np.testing.assert_allclose(r, a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv, m @ v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d, v @ v, rtol=1e-5)


MATMUL_INTO_INIT = """
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}"""


def test_matmul_accumulates_into_a_nonzero_init():
    text = MATMUL_INTO_INIT
    a, b, c = _f32(2, 3), _f32(3, 2), _f32(2, 2)
    np.testing.assert_allclose(_run(text, "f", a, b, c), c + a @ b, rtol=1e-5, atol=1e-6)
    assert np.all(c == c)  # the caller's init is not written


def _conv_ref(x, w, stride=1):
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, oh, ow, f), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride : i * stride + kh, j * stride : j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


CONVOLUTIONS = """
func.func @f(%x: tensor<1x6x6x3xf32>, %w: tensor<3x3x3x4xf32>, %xc: tensor<1x3x6x6xf32>, %wc: tensor<4x3x3x3xf32>,
             %dw: tensor<3x3x3xf32>) -> (tensor<1x2x2x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x3xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %w : tensor<1x6x6x3xf32>, tensor<3x3x3x4xf32>) outs(%f : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %e2 = tensor.empty() : tensor<1x4x4x4xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%xc, %wc : tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) outs(%f2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e3 = tensor.empty() : tensor<1x4x4x3xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %r3 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %dw : tensor<1x6x6x3xf32>, tensor<3x3x3xf32>) outs(%f3 : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %r, %r2, %r3 : tensor<1x2x2x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x3xf32>
}"""


def test_convolutions_nhwc_nchw_and_depthwise():
    text = CONVOLUTIONS
    x, w, xc, wc, dw = _f32(1, 6, 6, 3), _f32(3, 3, 3, 4), _f32(1, 3, 6, 6), _f32(4, 3, 3, 3), _f32(3, 3, 3)
    r, r2, r3 = _run(text, "f", x, w, xc, wc, dw)
    np.testing.assert_allclose(r, _conv_ref(x, w, 2), rtol=1e-4, atol=1e-5)
    ref2 = _conv_ref(xc.transpose(0, 2, 3, 1), wc.transpose(2, 3, 1, 0)).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(r2, ref2, rtol=1e-4, atol=1e-5)
    ref3 = np.stack([_conv_ref(x[..., c : c + 1], dw[:, :, c : c + 1, None])[..., 0] for c in range(3)], -1)
    np.testing.assert_allclose(r3, ref3, rtol=1e-4, atol=1e-5)


POOLING_AND_REDUCE = """
func.func @f(%x: tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x3x3x2xf32>, tensor<1x2xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %win = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %win : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%f : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %e2 = tensor.empty() : tensor<1x3x3x2xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %win : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%f2 : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %e3 = tensor.empty() : tensor<1x2xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x2xf32>) -> tensor<1x2xf32>
  %r = linalg.reduce ins(%x : tensor<1x4x4x2xf32>) outs(%f3 : tensor<1x2xf32>) dimensions = [1, 2]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %p, %s, %r : tensor<1x2x2x2xf32>, tensor<1x3x3x2xf32>, tensor<1x2xf32>
}"""


def test_pooling_and_reduce():
    text = POOLING_AND_REDUCE
    x = _f32(1, 4, 4, 2)
    p, s, r = _run(text, "f", x)
    np.testing.assert_allclose(p, x.reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4)))
    ref = sum(x[:, i : i + 3, j : j + 3, :] for i in range(2) for j in range(2))
    np.testing.assert_allclose(s, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r, x.sum(axis=(1, 2)), rtol=1e-5, atol=1e-6)


MIN_POOLING = """
func.func @f(%x: tensor<1x4x4x3xi32>) -> tensor<1x2x2x3xi32> {
  %big = arith.constant 2147483647 : i32
  %win = tensor.empty() : tensor<2x2xi32>
  %e = tensor.empty() : tensor<1x2x2x3xi32>
  %f = linalg.fill ins(%big : i32) outs(%e : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  %p = linalg.pooling_nhwc_min {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %win : tensor<1x4x4x3xi32>, tensor<2x2xi32>) outs(%f : tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  return %p : tensor<1x2x2x3xi32>
}"""


def test_min_pooling():
    text = MIN_POOLING
    x = RNG.integers(-100, 100, (1, 4, 4, 3)).astype(np.int32)
    np.testing.assert_array_equal(_run(text, "f", x), x.reshape(1, 2, 2, 2, 2, 3).min(axis=(2, 4)))


GENERIC_REDUCTION_WITH_INDEX = """
func.func @f(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%f : tensor<4xf32>) {
    ^bb0(%a: f32, %o: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %fi = arith.sitofp %ii : i64 to f32
      %m = arith.mulf %a, %fi : f32
      %s = arith.addf %o, %m : f32
      linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}"""


def test_generic_reduction_with_transposed_maps_and_index():
    # out[j] = sum_i x[i, j] * i  (a reduction over d0 of a body that uses linalg.index)
    text = GENERIC_REDUCTION_WITH_INDEX
    x = _f32(3, 4)
    np.testing.assert_allclose(_run(text, "f", x), (x * np.arange(3)[:, None]).sum(0), rtol=1e-5, atol=1e-6)


TENSOR_OPS = """
func.func @f(%x: tensor<4x4xf32>, %s: tensor<2x2xf32>, %v: f32) -> (tensor<2x2xf32>, tensor<4x4xf32>, tensor<6x6xf32>,
    tensor<8x4xf32>, tensor<16xf32>, tensor<2x8xf32>, f32, tensor<4x4xf32>, tensor<2xf32>) {
  %a = tensor.extract_slice %x[1, 0] [2, 2] [2, 1] : tensor<4x4xf32> to tensor<2x2xf32>
  %b = tensor.insert_slice %s into %x[0, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  %p = tensor.pad %x low[1, 1] high[1, 1] {
    ^bb0(%i: index, %j: index):
      tensor.yield %v : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  %c = tensor.concat dim(0) %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  %q = tensor.expand_shape %r [[0, 1]] output_shape [2, 8] : tensor<16xf32> into tensor<2x8xf32>
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %e = tensor.extract %x[%i1, %i2] : tensor<4x4xf32>
  %n = tensor.insert %v into %x[%i2, %i1] : tensor<4x4xf32>
  %fe = tensor.from_elements %e, %v : tensor<2xf32>
  return %a, %b, %p, %c, %r, %q, %e, %n, %fe : tensor<2x2xf32>, tensor<4x4xf32>, tensor<6x6xf32>, tensor<8x4xf32>,
    tensor<16xf32>, tensor<2x8xf32>, f32, tensor<4x4xf32>, tensor<2xf32>
}"""


def test_tensor_ops():
    text = TENSOR_OPS
    x, s, v = _f32(4, 4), _f32(2, 2), np.float32(7.5)
    a, b, p, c, r, q, e, n, fe = _run(text, "f", x, s, v)
    np.testing.assert_array_equal(a, x[1:4:2, 0:2])
    ref_b = x.copy()
    ref_b[0:2, 2:4] = s
    np.testing.assert_array_equal(b, ref_b)
    np.testing.assert_array_equal(p, np.pad(x, 1, constant_values=v))
    np.testing.assert_array_equal(c, np.concatenate([x, x]))
    np.testing.assert_array_equal(r, x.reshape(16))
    np.testing.assert_array_equal(q, x.reshape(2, 8))
    assert e == x[1, 2]
    ref_n = x.copy()
    ref_n[2, 1] = v
    np.testing.assert_array_equal(n, ref_n)
    np.testing.assert_array_equal(fe, [x[1, 2], v])


def test_scalar_integer_semantics_wrap_and_truncate():
    text = """
func.func @f(%a: i32, %b: i32) -> (i32, i32, i32, i1, i64) {
  %s = arith.addi %a, %b : i32
  %d = arith.divsi %a, %b : i32
  %r = arith.remsi %a, %b : i32
  %c = arith.cmpi ult, %a, %b : i32
  %e = arith.extui %a : i32 to i64
  return %s, %d, %r, %c, %e : i32, i32, i32, i1, i64
}"""
    s, d, r, c, e = _run(text, "f", 2**31 - 1, -2)
    # -2 read as unsigned is 2**32 - 2, so a <u b.
    assert (int(s), int(d), int(r), bool(c), int(e)) == (2**31 - 3, -(2**30 - 1), 1, True, 2**31 - 1)
    s, d, r, c, e = _run(text, "f", -7, 2)
    assert (int(d), int(r), bool(c), int(e)) == (-3, -1, False, 2**32 - 7)


def test_constant_folding_and_fusion_shape_the_kernel_ir():
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c2 = arith.constant 2.0 : f32
  %c3 = arith.constant 3.0 : f32
  %k = arith.mulf %c2, %c3 : f32
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %k : f32
      linalg.yield %m : f32
  } -> tensor<4xf32>
  %t = math.tanh %y : tensor<4xf32>
  return %t : tensor<4xf32>
}"""
    out = subprocess.run([str(BIN / "tfrt_compile"), "-", "--emit=mlir"], input=text, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    kernels = [line for line in out.stdout.splitlines() if " = tfrt_" in line]
    assert len(kernels) == 1, out.stdout  # 2*3 folded, generic and tanh fused
    assert 'expr = "tanh(a0 * cast_f32(6.0))"' in kernels[0]
    x = _f32(4)
    np.testing.assert_allclose(_run(text, "f", x), np.tanh(x * 6), rtol=1e-6)


@pytest.mark.parametrize(
    "rtype, body, message",
    [
        ("tensor<?xf32>", "%r = tensor.empty(%n) : tensor<?xf32>", "'tensor.empty' op cannot be lowered: dynamic shapes"),
        ("f32", '%r = "mylib.op"() : () -> f32', "'mylib.op' op cannot be lowered: no pass in the pipeline lowers it"),
        ("i128", "%r = arith.constant 1 : i128", "'arith.constant' op cannot be lowered: unsupported type i128"),
        ("tensor<2xf32>", "%r = arith.constant dense_resource<__elided__> : tensor<2xf32>",
         "cannot be lowered: dense_resource<__elided__> has no blob in the file's dialect_resources section"),
        # an op of another dialect in a linalg body: no kernel, no general lowering
        ("tensor<2x4xf32>",
         "%ids = arith.constant dense<[1, 2]> : tensor<2xi64>\n"
         "  %e = tensor.empty() : tensor<2x4xf32>\n"
         "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], "
         'iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<2xi64>) outs(%e : tensor<2x4xf32>) {\n'
         '  ^bb0(%i: i64, %o: f32):\n    %v = "mylib.f"(%i) : (i64) -> f32\n    linalg.yield %v : f32\n  } -> tensor<2x4xf32>',
         "'linalg.generic' op cannot be lowered: its body holds 'mylib.f', which has no elementwise equivalent"),
    ],
)
def test_what_cannot_be_compiled_is_reported_at_the_op(tmp_path, rtype, body, message):
    src = tmp_path / "bad.mlir"
    src.write_text(f"func.func @f(%n: index) -> {rtype} {{\n  {body}\n  return %r : {rtype}\n}}\n")
    out = subprocess.run([str(BIN / "tfrt_compile"), str(src), "-o", str(tmp_path / "o.bef")],
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 1
    at = 2 + body[: body.index("%r = ")].count("\n")
    assert f"{src}:{at}:3: error:" in out.stderr and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "o.bef").exists()


def test_bef_executor_and_tfrt_opt_accept_the_pass_names(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text("""
func.func @main() -> i32 {
  %a = arith.constant 40 : i32
  %b = arith.constant 2 : i32
  %s = arith.addi %a, %b : i32
  return %s : i32
}
""")
    out = subprocess.run([str(BIN / "bef_executor"), str(src)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "'main' returned 42" in out.stdout
    bef = tmp_path / "m.bef"
    out = subprocess.run([str(BIN / "tfrt_compile"), str(src), "-O0", "-o", str(bef)], capture_output=True, text=True)
    assert out.returncode == 0 and bef.read_bytes()[:2] == b"\x0b\xef", out.stderr


def _streams(text: str) -> dict[str, set[int]]:
    from tfrt.passes.compiler import compile_text_to_bef

    prog = tfrt.api.load(compile_text_to_bef(text))
    return {f.name: {k.stream for k in f.plan.kernels[1:]} for f in prog._program.functions if f.plan}


def test_cheap_kernels_share_one_stream_and_expensive_ones_get_their_own():
    """Compiled kernels are costed from their types: small independent work
    runs inline in one stream; two independent 512x512x512 matmuls get a
    stream each, which a threaded work queue runs side by side."""
    small = """
    func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
      %0 = arith.addf %a, %b : tensor<4x4xf32>
      %1 = arith.mulf %a, %b : tensor<4x4xf32>
      return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
    }"""
    assert _streams(small)["f"] == {0}
    big = """
    func.func @g(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
      %e = tensor.empty() : tensor<512x512xf32>
      %0 = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
      %1 = linalg.matmul ins(%b, %a : tensor<512x512xf32>, tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
      return %0, %1 : tensor<512x512xf32>, tensor<512x512xf32>
    }"""
    assert len(_streams(big)["g"]) == 2


def test_mlir_timing_reports_the_parse_each_pass_and_the_bef_writer(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text(
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = arith.addf %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
    )
    out = subprocess.run([str(BIN / "tfrt_compile"), str(src), "-o", str(tmp_path / "m.bef"), "--mlir-timing"],
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 0, out.stderr
    names = [line.split(")", 1)[1].strip() for line in out.stderr.splitlines() if "%)" in line]
    assert names[:3] == ["Read input", "Imports (xDSL, lark)", "Parser"]
    for name in ("Inliner", "LowerArith", "InsertChains", "Verifier", "BEF writer", "Rest", "Total"):
        assert name in names, names
    assert (tmp_path / "m.bef").read_bytes()[:2] == b"\x0b\xef"


def test_a_gpu_program_without_cupy_says_what_to_install(monkeypatch):
    from tfrt.passes.compiler import compile_text_to_bef

    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` fails
    prog = tfrt.api.load(compile_text_to_bef(MATMUL_INTO_INIT, "t.mlir", device="gpu"))
    with pytest.raises(tfrt.api.ExecutionError, match=r"needs cupy \(pip install 'tfrt-py\[gpu\]'\) \(at t.mlir:"):
        prog.call("f", _f32(2, 3), _f32(3, 2), _f32(2, 2))


ZERO_SIZE_MATMULS = """
func.func @f(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>, %c: tensor<0x2xf32>) -> (tensor<2x3xf32>, tensor<0x3xf32>) {
  %z = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x0xf32>, tensor<0x3xf32>) outs(%f : tensor<2x3xf32>) -> tensor<2x3xf32>
  %e2 = tensor.empty() : tensor<0x3xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<0x3xf32>) -> tensor<0x3xf32>
  %m2 = linalg.matmul ins(%c, %m : tensor<0x2xf32>, tensor<2x3xf32>) outs(%f2 : tensor<0x3xf32>) -> tensor<0x3xf32>
  return %m, %m2 : tensor<2x3xf32>, tensor<0x3xf32>
}
"""


@pytest.mark.parametrize("opt_level", [0, 2])
def test_zero_size_matmuls_compile_and_run(opt_level):
    """An empty constant is no splat (the -O2 fusion asked xDSL, which indexed its first element)."""
    from tfrt.passes.compiler import compile_text_to_bef

    prog = tfrt.api.load(compile_text_to_bef(ZERO_SIZE_MATMULS, "t.mlir", opt_level=opt_level))
    m, m2 = prog.call("f", np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32), np.zeros((0, 2), np.float32))
    np.testing.assert_array_equal(m, np.full((2, 3), 1.5, np.float32))
    assert m2.shape == (0, 3)


I1_SUM = """
func.func @f(%x: tensor<2x3xi1>) -> tensor<2xi1> {
  %z = arith.constant false
  %e = tensor.empty() : tensor<2xi1>
  %acc = linalg.fill ins(%z : i1) outs(%e : tensor<2xi1>) -> tensor<2xi1>
  %s = linalg.reduce ins(%x : tensor<2x3xi1>) outs(%acc : tensor<2xi1>) dimensions = [1]
    (%a: i1, %b: i1) {
      %r = arith.addi %a, %b : i1
      linalg.yield %r : i1
    }
  return %s : tensor<2xi1>
}
"""


@pytest.mark.parametrize("opt_level", [0, 2])
def test_an_i1_sum_wraps(opt_level):
    """arith.addi on i1 wraps: a sum of booleans is their exclusive or, not their or."""
    from tfrt.passes.compiler import compile_text_to_bef

    prog = tfrt.api.load(compile_text_to_bef(I1_SUM, "t.mlir", opt_level=opt_level))
    x = np.array([[1, 1, 0], [1, 1, 1]], bool)
    np.testing.assert_array_equal(prog.call("f", x), [False, True])
