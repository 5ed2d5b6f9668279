"""The compiled GPU path (``--device=gpu``), on the CuPy stand-in and on CuPy itself.

Each program is compiled twice, for the CPU and for the GPU, and both run;
the GPU run goes through ``place-devices`` (arguments and constants copied
to the device, results back), the ``tfrt_array`` kernels' device code with
cupy as their array module, and the fused element-wise kernels as generated
CUDA C.  Every test runs twice (the ``gpu`` fixture):

* on the stand-in (tests/compiler/cupy_standin.py), which compiles the CUDA C
  as host C++ and refuses what CuPy refuses.  Results must equal the CPU's:
  matmuls and convolutions are the same numpy calls on both sides, and the
  generated C rounds each f32 operation once, as numpy does; the few
  transcendental functions may differ in the last bits between libm and
  numpy.  Only there are kernel launches and transfers counted.
* on CuPy, where it imports and sees a CUDA device (skipped otherwise).
  cuBLAS sums in another order than numpy, NVRTC contracts ``a * b + c``
  into one rounding and CUDA's math functions differ from libm in the last
  bits: floating-point results agree within a tolerance, integer ones
  exactly.

tests/runtime/test_expr_cuda.py runs the element-wise kernels through cupy
itself too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given

import test_compile as programs
import tfrt.api
from gpu_fixture import gpu  # noqa: F401 - the fixture
from test_differential import SETTINGS, dense_layers, elementwise_programs, int_loops, row_sums
from tfrt.kernels import expr_cuda, tfrt_array
from tfrt.passes.compiler import compile_text_to_bef

RNG = np.random.default_rng(0)
ROOT = Path(__file__).resolve().parents[2]


# Every test here runs on the stand-in and on CuPy (tests/compiler/gpu_fixture.py).
pytestmark = pytest.mark.usefixtures("gpu")


def _on_standin() -> bool:
    """Whether this test's ``cupy`` is the stand-in (which counts launches and transfers)."""
    return sys.modules["cupy"].__dict__.get("launches") is not None


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
    cancellation meet, as in a layer norm).  On a real GPU floating-point
    results are compared as :func:`_assert_close` does."""
    cpu = _run(text, name, args, "cpu")
    gpu = _run(text, name, args, "gpu")
    assert len(cpu) == len(gpu)
    for c, g in zip(cpu, gpu):
        assert not hasattr(g, "__cuda_array_interface__"), "a result stayed on the device"
        g = np.asarray(g)
        assert g.shape == np.shape(c) and g.dtype == np.asarray(c).dtype
        if exact and (_on_standin() or g.dtype.kind not in "fc"):
            np.testing.assert_array_equal(g, c)
        elif _on_standin():
            np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6 * max(1.0, float(np.abs(c).max())))
        else:
            _assert_close(g, c)
    return gpu


def _assert_close(got, want) -> None:
    """A real GPU's floating-point result against the CPU's: 1e-4 relative
    for f32 (1e-9 for f64, 8 ulps for f16), and as much of the result's
    largest magnitude (sums in another order, contracted multiply-adds,
    CUDA's math functions, and pow or exp amplifying a last-bit difference)."""
    want = np.asarray(want)
    if want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want)
        return
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    rtol = {2: 8 * 2.0**-10, 4: 1e-4}.get(want.dtype.itemsize, 1e-9)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True)


def _onnx_models():
    """tests/onnx/onnx_models.py (the models built with onnx.helper)."""
    pytest.importorskip("onnx")
    if str(ROOT / "tests" / "onnx") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests" / "onnx"))
    import onnx_models

    return onnx_models


def _resnet(onnx_models):
    """ResNet-50 at 32x32 on a GPU; on the stand-in, which runs each operation
    through numpy and each call through CuPy's signatures, the same blocks
    narrower and one per stage (the same kernels, a few times faster)."""
    if _on_standin():
        return onnx_models.resnet50(size=32, classes=10, widths=(8, 16, 32, 64), blocks=(1, 1, 1, 1))
    return onnx_models.resnet50(size=32)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_a_matmul_with_its_fused_epilogue_runs_as_a_generated_kernel(gpu):
    text = (ROOT / "samples" / "mlp_linalg.mlir").read_text()
    x = _f32(2, 4)
    _same_on_gpu(text, "mlp", [x])
    if _on_standin():
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
    assert got.dtype == np.float16
    if _on_standin():
        assert sum(gpu.launches.values()) == 1
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
        (_resnet(onnx_models), {"input": _f32(1, 3, 32, 32)}, True),
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
        if _on_standin():
            gpu.launches.clear()
        _same_on_gpu(text, "main", list(feeds.values()), exact=exact)
        if _on_standin():
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
        if device == "gpu" and not _on_standin():
            _assert_close(got, x * np.float32(2) + x)
        else:
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
    if _on_standin():
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
    for device, (r, pair) in zip(("cpu", "gpu"), results):
        assert type(r) is np.ndarray and type(pair) is np.ndarray
        if device == "gpu" and not _on_standin():
            _assert_close(r, q + 3 * x)
            _assert_close(pair, 2 * np.array([q[0], k], np.float32))
        else:
            np.testing.assert_array_equal(r, q + 3 * x)
            np.testing.assert_array_equal(pair, 2 * np.array([q[0], k], np.float32))


def test_a_float16_resnet_runs_on_the_device(gpu):
    """ResNet-50 imported with float16=True, compiled --device=gpu: its
    element-wise kernels are f16 CUDA C computing in float; the result
    agrees with the CPU's f16 run within f16 precision."""
    onnx_models = _onnx_models()

    from tfrt.tools.import_onnx import import_onnx

    text = import_onnx(_resnet(onnx_models), float16=True)
    x = _f32(1, 3, 32, 32).astype(np.float16)
    cpu, gpu_result = (_run(text, "main", [x], device)[0] for device in ("cpu", "gpu"))
    assert gpu_result.dtype == np.float16 and type(gpu_result) is np.ndarray
    if _on_standin():
        assert sum(gpu.launches.values()) > 0
    scale = float(np.max(np.abs(cpu.astype(np.float32))))
    assert np.max(np.abs(gpu_result.astype(np.float32) - cpu.astype(np.float32))) <= 8 * 2**-10 * scale


# -- the device code against CuPy's rules, kernel by kernel --------------------
#
# Each of these failed on CuPy (and fails on the stand-in, which refuses what
# CuPy refuses) before the device code was fixed.


def _host(a):
    return sys.modules["cupy"].asnumpy(a)


def _check(got, want) -> None:
    """A device result (moved to the host) against the host kernel's."""
    got = _host(got)
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    if _on_standin() or np.asarray(want).dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want)
    else:
        _assert_close(got, want)


def test_device_kernels_write_in_place_only_into_arrays_that_own_their_memory(gpu):
    """CuPy's flags have no ``writeable`` (all its arrays may be written): an
    in-place element-wise kernel, a matmul's epilogue and insert_slice write
    into a device array only when it owns its memory and is no constant."""
    run = tfrt_array.elementwise("a0 + a1", 0, [2, 3], "f32,f32")
    y = gpu.asarray(np.ones((2, 3), np.float32))
    owned = gpu.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert run(owned, y) is owned  # a buffer of the program's own: reused
    np.testing.assert_array_equal(_host(owned), np.arange(6, dtype=np.float32).reshape(2, 3) + 1)

    base = gpu.asarray(np.arange(6, dtype=np.float32))
    view = base.reshape(2, 3)  # another value's memory
    out = run(view, y)
    assert out is not view
    np.testing.assert_array_equal(_host(base), np.arange(6, dtype=np.float32))

    constant = np.arange(6, dtype=np.float32).reshape(2, 3)
    constant.flags.writeable = False  # as a BEF constant is
    on_device = tfrt_array.to_device("gpu", constant)
    for _ in range(2):
        out = run(on_device, y)
        assert out is not on_device
        np.testing.assert_array_equal(_host(on_device), constant)

    a, b, bias = _f32(2, 3), _f32(3, 2), _f32(2)
    mm = tfrt_array.matmul("maximum(a0 + a1, 0.0)", [2, 2], False, False, "f32,f32")
    _check(mm(gpu.asarray(a), gpu.asarray(b), gpu.asarray(bias)), mm(a, b, bias))

    dest = gpu.asarray(np.zeros((3, 4), np.float32))
    src = gpu.asarray(np.ones((2, 2), np.float32))
    assert tfrt_array.insert_slice(1, [1, 1], [2, 2], [1, 1], src, dest) is dest
    const_dest = tfrt_array.to_device("gpu", np.broadcast_to(np.float32(0), (3, 4)))
    out = tfrt_array.insert_slice(1, [1, 1], [2, 2], [1, 1], src, const_dest)
    assert out is not const_dest and float(_host(const_dest).sum()) == 0


@pytest.mark.parametrize("groups", [1, 2])
def test_device_convolutions_and_pooling_take_windows_without_writeable(gpu, groups):
    """CuPy's ``as_strided`` takes no ``writeable``: every device conv2d and
    pool2d takes its windows with it."""
    x = _f32(1, 5, 5, 4)
    w = _f32(3, 3, 4 // groups, 4)
    conv = tfrt_array.conv2d([1, 1], "", groups, [1, 1, 1, 1], [1, 5, 5, 4], [1, 1], "")
    _check(conv(gpu.asarray(x), gpu.asarray(w)), conv(x, w))
    for kind in ("max", "min", "sum", "avg"):
        pool = tfrt_array.pool2d([1, 1], kind, [1, 1, 1, 1], [1, 3, 3, 4], [2, 2], [3, 3])
        _check(pool(gpu.asarray(x)), pool(x))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_device_maxnum_and_minnum_reductions_skip_nans(gpu, dtype):
    """CuPy's ``ufunc.reduce`` is add and multiply only: ``fmax.reduce`` is a
    ReductionKernel on a GPU, NaN-ignoring as numpy's (NaN where all are)."""
    x = RNG.standard_normal((3, 4, 5)).astype(dtype)
    x[0] = np.nan  # a slice of NaNs only
    x[1, 0, 2] = x[2, 3, :] = np.nan
    for kind in ("maxnum", "minnum"):
        for axes in ([2], [0, 2], [0, 1, 2], [1]):
            for keep in (False, True):
                got = tfrt_array.reduce(axes, keep, kind, gpu.asarray(x))
                want = tfrt_array.reduce(axes, keep, kind, x)
                np.testing.assert_array_equal(_host(got), want)  # max and min are exact


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.int64])
def test_device_bitwise_reductions(gpu, dtype):
    if dtype == np.bool_:
        x = RNG.integers(0, 2, (4, 6)).astype(bool)
    else:
        x = RNG.integers(-100, 100, (4, 6)).astype(dtype)
    for kind in ("and", "or", "xor"):
        for axes in ([1], [0], [0, 1]):
            got = tfrt_array.reduce(axes, False, kind, gpu.asarray(x))
            np.testing.assert_array_equal(_host(got), tfrt_array.reduce(axes, False, kind, x))
    empty = np.zeros((0, 3), dtype)
    for kind in ("and", "or", "xor"):  # the identities
        got = tfrt_array.reduce([0], False, kind, gpu.asarray(empty))
        np.testing.assert_array_equal(_host(got), tfrt_array.reduce([0], False, kind, empty))


@pytest.mark.parametrize("t", ["f16", "f32", "f64"])
def test_nan_and_infinity_literals_compile_for_the_device(gpu, t):
    """NVRTC has no <math.h>: the generated CUDA C writes NaN and infinities
    with CuPy's math_constants.h names (a max-pool's fill, a ``-inf`` init)."""
    expr = "maximum(a0, -inf) + minimum(a0, inf) + fmax(a0, nan) + where(gt(a0, 1.0), inf, a0 * 0.0)"
    dt = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
    x = (RNG.standard_normal(64) * 2).astype(dt)
    x[::7] = np.nan
    run = tfrt_array.elementwise(expr, -1, [64], t)
    with np.errstate(all="ignore"):
        want = run(x)
    _check(run(gpu.asarray(x)), want)


INF_CONSTANTS = """
func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %lo = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = arith.maximumf %x, %lo : tensor<4xf32>
  %n = linalg.fill ins(%nan : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %k = arith.maxnumf %x, %n : tensor<4xf32>
  return %m, %k : tensor<4xf32>, tensor<4xf32>
}
"""


def test_a_program_with_infinite_and_nan_constants_runs_on_the_device():
    """The constants become literals of the fused expressions."""
    _same_on_gpu(INF_CONSTANTS, "f", [np.array([1, np.nan, -np.inf, 4], np.float32)])


def test_device_gather_refuses_out_of_range_indices(gpu):
    """CuPy's ``take`` wraps an out-of-range index around: the device gather
    checks its indices, as numpy's take does."""
    from tfrt.kernels.registry import KernelError

    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ok = np.array([[0, 3], [-4, -1]], np.int64)
    _check(tfrt_array.gather(0, gpu.asarray(table), gpu.asarray(ok)), tfrt_array.gather(0, table, ok))
    _check(tfrt_array.gather(1, gpu.asarray(table), gpu.asarray(ok % 3)), tfrt_array.gather(1, table, ok % 3))
    for bad in ([0, 4], [-5, 1]):
        with pytest.raises(KernelError, match="out of bounds"):
            tfrt_array.gather(0, table, np.array(bad))
        with pytest.raises(KernelError, match="out of bounds"):
            tfrt_array.gather(0, gpu.asarray(table), gpu.asarray(np.array(bad)))
    # A gather that reads nothing (an empty table with other axes left) checks
    # nothing, on the host as on the device.
    empty = np.zeros((0, 2, 4), np.float32)
    far = np.array([5], np.int64)
    _check(tfrt_array.gather(1, gpu.asarray(empty), gpu.asarray(far)), tfrt_array.gather(1, empty, far))


def test_a_generated_kernel_copies_an_operand_that_overlaps_its_output(gpu):
    """CuPy's ElementwiseKernel copies nothing: with ``x`` as the output,
    ``x.T`` as an operand would be read after other threads wrote it (the
    stand-in refuses such a launch; a GPU gives a wrong sum)."""
    m = RNG.standard_normal((1024, 1024)).astype(np.float32)
    run = expr_cuda.compile_cupy("a0 + a1", ("f32", "f32"), gpu)
    x = gpu.asarray(m)
    assert run(x, x, x.T) is x
    np.testing.assert_array_equal(_host(x), m + m.T)
    x = gpu.asarray(m)
    run(x, x, x)  # the output itself: each thread reads its element before writing it
    np.testing.assert_array_equal(_host(x), m + m)


def test_an_i1_sum_wraps_on_the_device():
    """The device's i1 sum is the exclusive or too (tests/compiler/test_compile.py)."""
    x = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 0]], bool)
    text = programs.I1_SUM.replace("2x3xi1", "3x3xi1").replace("tensor<2xi1>", "tensor<3xi1>")
    (got,) = _same_on_gpu(text, "f", [x])
    np.testing.assert_array_equal(got, [False, True, False])

