"""The compiled GPU path (``--device=gpu``) run on the CuPy stand-in.

Each program is compiled twice, for the CPU and for the GPU, and both run;
the GPU run goes through ``place-devices`` (arguments and constants copied
to the device, results back), the ``tfrt_array`` kernels' device code with
cupy as their array module, and the fused element-wise kernels as generated
CUDA C, which the stand-in (tests/compiler/cupy_standin.py) compiles as
host C++ and executes.  Results must equal the CPU's: matmuls and
convolutions are the same numpy calls on both sides, and the generated C
rounds each f32 operation once, as numpy does; the few transcendental
functions may differ in the last bits between libm and numpy.

With a real GPU, tests/runtime/test_expr_cuda.py runs the same element-wise
kernels through cupy itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given

import cupy_standin
import test_compile as programs
import tfrt.api
from test_differential import SETTINGS, dense_layers, elementwise_programs, int_loops, row_sums
from tfrt.kernels import expr_cuda, tfrt_array
from tfrt.passes.compiler import compile_text_to_bef

pytestmark = pytest.mark.skipif(not cupy_standin.HAVE_CXX, reason="the stand-in runs CUDA C through g++")

RNG = np.random.default_rng(0)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def gpu(monkeypatch):
    """The stand-in as ``cupy``, with the kernels' caches of compiled
    element-wise functions emptied (they are kept per array module)."""
    mod = cupy_standin.make_module()
    monkeypatch.setitem(sys.modules, "cupy", mod)
    monkeypatch.setattr(tfrt_array, "_COMPILED", {})
    monkeypatch.setattr(expr_cuda, "_KERNELS", {})
    return mod


def _run(text: str, name: str, args, device: str) -> list:
    prog = tfrt.api.load(compile_text_to_bef(text, "t.mlir", device=device))
    try:
        out = prog.call(name, *args)
    finally:
        prog.close()
    return list(out) if isinstance(out, tuple) else [out]


def _same_on_gpu(text: str, name: str, args, exact: bool = True) -> list:
    """Run on both devices; the GPU's results are host arrays equal to the
    CPU's (with ``exact=False``: within 1e-5 relative, or 1e-6 of the
    result's largest magnitude where transcendental functions and
    cancellation meet, as in a layer norm)."""
    cpu = _run(text, name, args, "cpu")
    gpu = _run(text, name, args, "gpu")
    assert len(cpu) == len(gpu)
    for c, g in zip(cpu, gpu):
        assert not hasattr(g, "__cuda_array_interface__"), "a result stayed on the device"
        g = np.asarray(g)
        assert g.shape == np.shape(c) and g.dtype == np.asarray(c).dtype
        if exact:
            np.testing.assert_array_equal(g, c)
        else:
            np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6 * max(1.0, float(np.abs(c).max())))
    return gpu


def _onnx_models():
    """tests/onnx/onnx_models.py (the models built with onnx.helper)."""
    pytest.importorskip("onnx")
    if str(ROOT / "tests" / "onnx") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests" / "onnx"))
    import onnx_models

    return onnx_models


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_a_matmul_with_its_fused_epilogue_runs_as_a_generated_kernel(gpu):
    text = (ROOT / "samples" / "mlp_linalg.mlir").read_text()
    x = _f32(2, 4)
    _same_on_gpu(text, "mlp", [x])
    # bias + relu ran as one element-wise kernel per layer, on the "device";
    # the input went there and the result came back.
    assert sum(gpu.launches.values()) == 2, gpu.launches
    assert gpu.transfers["to_device"] >= 1 and gpu.transfers["to_host"] == 1


@pytest.mark.parametrize(
    "text,name,args",
    [
        (programs.BATCH_MATMUL, "f", lambda: [_f32(2, 3, 4), _f32(2, 4, 5), _f32(3, 4), _f32(4)]),
        (programs.MATMUL_INTO_INIT, "f", lambda: [_f32(2, 3), _f32(3, 2), _f32(2, 2)]),
        (programs.CONVOLUTIONS, "f",
         lambda: [_f32(1, 6, 6, 3), _f32(3, 3, 3, 4), _f32(1, 3, 6, 6), _f32(4, 3, 3, 3), _f32(3, 3, 3)]),
        (programs.POOLING_AND_REDUCE, "f", lambda: [_f32(1, 4, 4, 2)]),
        (programs.MIN_POOLING, "f", lambda: [RNG.integers(-100, 100, (1, 4, 4, 3)).astype(np.int32)]),
        (programs.GENERIC_REDUCTION_WITH_INDEX, "f", lambda: [_f32(3, 4)]),
        (programs.TENSOR_OPS, "f", lambda: [_f32(4, 4), _f32(2, 2), np.float32(7.5)]),
    ],
    ids=["batch_matmul", "matmul_into_init", "convolutions", "pooling_and_reduce", "min_pooling",
         "generic_reduction_with_index", "tensor_ops"],
)  # fmt: skip
def test_lowered_ops_match_the_cpu(text, name, args):
    _same_on_gpu(text, name, args())


@SETTINGS
@given(elementwise_programs())
def test_fused_elementwise_bodies_match_the_cpu(case):
    text, args, _ = case
    _same_on_gpu(text, "f", args)


@SETTINGS
@given(dense_layers())
def test_dense_layers_match_the_cpu(case):
    text, args, _ = case
    _same_on_gpu(text, "layer", args)


@SETTINGS
@given(row_sums())
def test_reductions_match_the_cpu(case):
    text, args, _ = case
    _same_on_gpu(text, "rows", args)


@SETTINGS
@given(int_loops())
def test_loops_carrying_device_tensors_match_the_cpu(case):
    text, args = case
    _same_on_gpu(text, "loop", args)


F16_BODY = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<4x8xf16>, %y: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %half = arith.constant 0.5 : f16
  %e = tensor.empty() : tensor<4x8xf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf16>, tensor<4x8xf16>) outs(%e : tensor<4x8xf16>) {
    ^bb0(%a: f16, %b: f16, %o: f16):
      %m = arith.mulf %a, %half : f16
      %s = arith.addf %m, %b : f16
      %t = math.tanh %s : f16
      %z = arith.maximumf %t, %a : f16
      linalg.yield %z : f16
  } -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}
"""


def test_f16_bodies_are_computed_in_f32_and_rounded_once(gpu):
    """On the GPU an f16 body runs in float registers and rounds when it
    stores; the CPU rounds after each op.  They agree within a few f16 ULPs,
    and the GPU's result is the f32 computation rounded once."""
    x = RNG.uniform(-2, 2, (4, 8)).astype(np.float16)
    y = RNG.uniform(-2, 2, (4, 8)).astype(np.float16)
    (got,) = _run(F16_BODY, "f", [x, y], "gpu")
    assert got.dtype == np.float16 and sum(gpu.launches.values()) == 1
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    once = np.maximum(np.tanh(xf * np.float32(0.5) + yf), xf).astype(np.float16)
    ulp = np.spacing(np.abs(once).astype(np.float16)).astype(np.float32)
    assert np.all(np.abs(got.astype(np.float32) - once.astype(np.float32)) <= ulp)
    (cpu,) = _run(F16_BODY, "f", [x, y], "cpu")
    np.testing.assert_allclose(got.astype(np.float32), cpu.astype(np.float32), rtol=4e-3, atol=4e-3)


def test_onnx_models_match_the_cpu(gpu):
    onnx_models = _onnx_models()

    from tfrt.tools.import_onnx import import_onnx

    # ResNet-50's convolutions, batch norms folded into them and fused
    # epilogues are the CPU's numpy calls and f32 arithmetic, so exact; the
    # encoder layer has erf, exp and layer norms.
    cases = [
        (onnx_models.resnet50(size=32), {"input": _f32(1, 3, 32, 32)}, True),
        (onnx_models.mobilenet_block(), None, True),
        (onnx_models.bert_layer(), None, False),
    ]
    for model, feeds, exact in cases:
        if feeds is None:
            feeds = {}
            for inp in model.graph.input:
                dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
                if inp.type.tensor_type.elem_type == 7:  # int64 ids
                    feeds[inp.name] = RNG.integers(0, 50, dims).astype(np.int64)
                else:
                    feeds[inp.name] = RNG.standard_normal(dims).astype(np.float32)
        text = import_onnx(model)
        gpu.launches.clear()
        _same_on_gpu(text, "main", list(feeds.values()), exact=exact)
        assert sum(gpu.launches.values()) > 0


MADE_FROM_SCALARS = """
#id = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<4xf32>, %s: f32) -> (tensor<4xf32>, tensor<2xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4xf32>
  %splat = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = arith.addf %x, %splat : tensor<4xf32>
  %v = tensor.extract %sum[%c0] : tensor<4xf32>
  %pair = tensor.from_elements %v, %s : tensor<2xf32>
  %two = tensor.extract_slice %sum[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  %mixed = arith.mulf %pair, %two : tensor<2xf32>
  %pos = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %o: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %r = arith.mulf %a, %fi : f32
      linalg.yield %r : f32
  } -> tensor<4xf32>
  return %sum, %mixed, %pos : tensor<4xf32>, tensor<2xf32>, tensor<4xf32>
}
"""


def test_tensors_made_from_scalars_meet_device_tensors_on_the_device():
    """A splat, from_elements of an extracted scalar, and an index-valued
    body: each is made on the host from no tensor operand and must be moved
    before it meets a device tensor (cupy refuses numpy operands)."""
    _same_on_gpu(MADE_FROM_SCALARS, "f", [_f32(4), np.float32(1.5)])


CALLS = """
func.func private @scale(%x: tensor<3xf32>, %k: f32) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %splat = linalg.fill ins(%k : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = arith.mulf %x, %splat : tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %two = arith.constant 2.0 : f32
  %y = func.call @scale(%x, %two) : (tensor<3xf32>, f32) -> tensor<3xf32>
  %z = arith.addf %y, %x : tensor<3xf32>
  return %z : tensor<3xf32>
}
"""


def test_a_call_result_meets_device_tensors_on_the_device():
    """-O0 keeps the call: the callee returns its result on the host."""
    x = _f32(3)
    for device in ("cpu", "gpu"):
        prog = tfrt.api.load(compile_text_to_bef(CALLS, "t.mlir", device=device, opt_level=0))
        got = prog.call("f", x)
        prog.close()
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, x * np.float32(2) + x)


WHILE_LOOP = """
func.func @f(%x: tensor<3xf32>, %n: i32) -> tensor<3xf32> {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r:2 = scf.while (%i = %zero, %acc = %x) : (i32, tensor<3xf32>) -> (i32, tensor<3xf32>) {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i, %acc : i32, tensor<3xf32>
  } do {
  ^bb0(%j: i32, %a: tensor<3xf32>):
    %a2 = arith.addf %a, %x : tensor<3xf32>
    %j2 = arith.addi %j, %one : i32
    scf.yield %j2, %a2 : i32, tensor<3xf32>
  }
  %out = arith.mulf %r#1, %x : tensor<3xf32>
  return %out : tensor<3xf32>
}
"""


@pytest.mark.parametrize("n", [0, 1, 4])
def test_a_while_loop_keeps_its_tensors_on_the_device(gpu, n):
    """scf.while's body becomes a function that tfrt.while calls: its tensors
    stay on the device from one iteration to the next."""
    _same_on_gpu(WHILE_LOOP, "f", [np.arange(3, dtype=np.float32), np.int32(n)])
    # The GPU run: the argument went over once, the result came back once.
    assert gpu.transfers == {"to_device": 1, "to_host": 1}


@pytest.mark.parametrize("opt_level", [0, 2])
def test_calls_loops_and_scalars_of_place_devices_mlir_run(opt_level):
    """tests/compiler/place_devices.mlir (whose IR FileCheck checks) runs, with
    its calls kept (-O0) or inlined."""
    text = (ROOT / "tests" / "compiler" / "place_devices.mlir").read_text()
    x, k = _f32(3), np.float32(0.5)
    results = []
    for device in ("cpu", "gpu"):
        prog = tfrt.api.load(compile_text_to_bef(text, "place_devices.mlir", device=device, opt_level=opt_level))
        results.append(prog.call("main", x, k))
        prog.close()
    q = (x * k) * 2
    for r, pair in results:
        assert type(r) is np.ndarray and type(pair) is np.ndarray
        np.testing.assert_array_equal(r, q + 3 * x)
        np.testing.assert_array_equal(pair, 2 * np.array([q[0], k], np.float32))


def test_a_float16_resnet_runs_on_the_device(gpu):
    """ResNet-50 imported with float16=True, compiled --device=gpu: its
    element-wise kernels are f16 CUDA C computing in float; the result
    agrees with the CPU's f16 run within f16 precision."""
    onnx_models = _onnx_models()

    from tfrt.tools.import_onnx import import_onnx

    text = import_onnx(onnx_models.resnet50(size=32), float16=True)
    x = _f32(1, 3, 32, 32).astype(np.float16)
    cpu, gpu_result = (_run(text, "main", [x], device)[0] for device in ("cpu", "gpu"))
    assert gpu_result.dtype == np.float16 and type(gpu_result) is np.ndarray
    assert sum(gpu.launches.values()) > 0
    scale = float(np.max(np.abs(cpu.astype(np.float32))))
    assert np.max(np.abs(gpu_result.astype(np.float32) - cpu.astype(np.float32))) <= 8 * 2**-10 * scale
