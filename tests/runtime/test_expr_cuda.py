"""The CUDA C that fused elementwise kernels become on a GPU (tfrt.kernels.expr_cuda).

Without a GPU the generated source is compiled as host C++ (``__device__``
dropped) and run with ctypes over random operands; its results must equal
the numpy path's (tfrt.kernels.expr.compile_array) bit for bit, NaNs
included.  On a machine with cupy the same expressions run as
cupy.ElementwiseKernel; without one, where nvcc is installed, every kernel
(f16 ones included) is compiled as device code for a GPU architecture, as
cupy's NVRTC would, so the CUDA C is checked by a CUDA compiler."""

from __future__ import annotations

import ctypes
import re
import shutil
import subprocess

import numpy as np
import pytest

from tfrt.kernels.expr import compile_array, dtype_of
from tfrt.kernels.expr_cuda import cuda_source

CASES = [
    ("maximum(a0 + a1, 0.0)", ("f32", "f32")),
    ("a0 * cast_f32(0.5) * (erf(a0 * cast_f32(0.7071067690849304)) + cast_f32(1.0))", ("f32",)),
    ("where(lt(a0, a1), exp(a0), log1p(abs(a1)))", ("f64", "f64")),
    ("sigmoid(a0) * tanh(a1) - rsqrt(abs(a0) + 1.0)", ("f32", "f32")),
    ("minimum(a0, a1) + fmax(a0, a1) + sign(a0) + floor(a1) + roundeven(a0 * 3.0) + round(a1 * 3.0)", ("f64", "f64")),
    ("pow(abs(a0), a1) + copysign(a0, a1) + atan2(a0, a1) + rem(a0, a1)", ("f64", "f64")),
    ("a0 / a1 + rem(a0, a1) * 3 - floordiv(a0, a1) + ceildiv(a0, a1)", ("i32", "i32")),
    ("a0 * a1 + 100", ("i8", "i8")),
    ("udiv(a0, a1) + urem(a0, a1) + umax(a0, a1) - umin(a0, a1)", ("i32", "i32")),
    ("bitxor(bitand(a0, a1), bitor(a0, bitnot(a1))) + ctpop(a0)", ("i64", "i64")),
    ("shl(a0, a1) + shrs(a0, a1) + shru(a0, a1)", ("i16", "i16")),
    ("pow(a0, cast_i32(3)) + abs(a1) + maximum(a0, a1)", ("i32", "i32")),
    ("cast_f32(a0) * a1 + cast_f32(ult(a0, cast_i64(5)))", ("i64", "f32")),
    ("where(ord(a0, a1), cast_i32(a0), cast_i32(isnan(a1)))", ("f32", "f32")),
    ("bitcast_i32(a0) + ucast_i32(cast_i8(a1))", ("f32", "i32")),
    ("bitcast_f64(a0) + cast_f64(uno(a1, a1))", ("i64", "f64")),
    ("eq(a0, a1)", ("i1", "i1")),
    # i1 adds modulo 2 and orders true (-1) below false; a cast to i1 keeps the low bit.
    ("bitor(a0 + a1, lt(a0, a1))", ("i1", "i1")),
    ("bitxor(cast_i1(a0), maximum(cast_i1(a1), cast_i1(a0)))", ("i32", "i32")),
    ("fma(a0, a1, a0) + powi(a1, cast_i32(3)) + maximum(a0 * 0.0, a1 * 0.0)", ("f64", "f64")),
    ("ctlz(a0) + cttz(a1)", ("i32", "i32")),
]

_TRANSCENDENTAL = ("exp", "log", "erf", "tanh", "sigmoid", "rsqrt", "pow", "atan")

_CTYPES = {"i1": "bool", "i8": "signed char", "i16": "short", "i32": "int", "i64": "long long",
           "f32": "float", "f64": "double"}  # fmt: skip


def _operands(types, rng, n=257):
    out = []
    for t in types:
        dt = dtype_of(t)
        if dt.kind == "f":
            a = (rng.standard_normal(n) * 4).astype(dt)
            a[::17] = 0
            a[5::31] = np.nan
            a[7::37] = np.inf
        elif dt.kind == "b":
            a = rng.integers(0, 2, n).astype(bool)
        else:
            info = np.iinfo(dt)
            a = rng.integers(max(info.min, -40), min(info.max, 40), n).astype(dt)
            a[::13] = 0
            a[3::29] = info.min
            if t in ("i16", "i32", "i64"):
                a[4::23] = 17  # shifts past the width of i16
        out.append(a)
    return out


def _host_library(tmp_path, cases):
    """Compile every case's kernel body as host C++; return the loaded library."""
    lines = ["#include <cmath>", "#include <cstring>", "using namespace std;",
             "#define __device__", "#define __popcll __builtin_popcountll",
             "#define __clzll(x) ((x) == 0 ? 64 : __builtin_clzll(x))", "#define __ffsll __builtin_ffsll"]  # fmt: skip
    for k, (expr, types) in enumerate(cases):
        in_params, out_params, operation, preamble = cuda_source(expr, types)
        if k == 0:
            lines.append(preamble)
        out_t = _CTYPES[{"bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
                         "float32": "f32", "float64": "f64"}[out_params.split()[0]]]  # fmt: skip
        params = ", ".join(f"const {_CTYPES[t]}* p{i}" for i, t in enumerate(types))
        lines.append(f'extern "C" void k{k}(long n, {params}, {out_t}* po) {{')
        lines.append("  for (long i = 0; i < n; ++i) {")
        for i, t in enumerate(types):
            lines.append(f"    {_CTYPES[t]} a{i} = p{i}[i];")
        lines.append(f"    {out_t}& out = po[i];")
        lines.append(f"    {operation}")
        lines.append("  }")
        lines.append("}")
    src = tmp_path / "kernels.cc"
    src.write_text("\n".join(lines) + "\n")
    lib = tmp_path / "kernels.so"
    proc = subprocess.run(["g++", "-O1", "-fno-fast-math", "-ffp-contract=off", "-shared", "-fPIC",
                           "-o", str(lib), str(src)], capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return ctypes.CDLL(str(lib))


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs a host C++ compiler to check the CUDA source")
def test_generated_source_matches_numpy_path(tmp_path):
    lib = _host_library(tmp_path, CASES)
    rng = np.random.default_rng(0)
    for k, (expr, types) in enumerate(CASES):
        args = _operands(types, rng)
        fn = compile_array(expr, types, np, -1)
        from tfrt.kernels.expr import _typed_tree

        out_dt = _typed_tree(expr, types).dtype
        with np.errstate(all="ignore"):
            want = fn(np.empty(args[0].shape, out_dt), *args)
        got = np.empty(args[0].shape, out_dt)
        ptrs = [a.ctypes.data_as(ctypes.c_void_p) for a in args]
        getattr(lib, f"k{k}")(ctypes.c_long(got.size), *ptrs, got.ctypes.data_as(ctypes.c_void_p))
        if out_dt.kind == "f":
            # Arithmetic is exact; libm and numpy's transcendental functions
            # may differ in the last bits (erf on f32: numpy's path uses a
            # rational approximation with |err| < 1.5e-7).
            tol = 0.0
            if any(f in expr for f in _TRANSCENDENTAL):
                tol = 4e-7 if "erf" in expr and out_dt == np.float32 else 4 * float(np.finfo(out_dt).eps)
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=expr)
        else:
            np.testing.assert_array_equal(got, want, err_msg=expr)


# f16 is computed in float and stored rounded; these exercise that path.
F16_CASES = [
    ("maximum(a0 + a1, 0.0)", ("f16", "f16")),
    ("a0 * cast_f16(0.5) * (erf(a0 * cast_f16(0.7071067690849304)) + cast_f16(1.0))", ("f16",)),
    ("where(lt(a0, a1), exp(a0), log1p(abs(a1)))", ("f16", "f16")),
    ("cast_f32(a0) * a1", ("f16", "f32")),
]

_DTYPE_NAMES = {"bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
                "float16": "f16", "float32": "f32", "float64": "f64"}  # fmt: skip


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc to compile the CUDA source as device code")
def test_generated_source_compiles_as_device_code(tmp_path):
    """Each kernel as cupy.ElementwiseKernel lays it out: one thread per
    element, operands read into locals named by in_params, ``out`` a
    reference to the element written.  cupy's float16 is stood in for by
    CUDA's __half, which converts to and from float as cupy's does."""
    ctypes_ = dict(_CTYPES, f16="float16")
    lines = ["#include <cuda_fp16.h>", "typedef __half float16;"]
    for k, (expr, types) in enumerate(CASES + F16_CASES):
        in_params, out_params, operation, preamble = cuda_source(expr, types)
        if k == 0:
            lines.append(preamble)
        assert in_params == ", ".join(f"{n} a{i}" for i, n in enumerate(
            {v: k for k, v in _DTYPE_NAMES.items()}[t] for t in types))  # fmt: skip
        out_t = ctypes_[_DTYPE_NAMES[out_params.split()[0]]]
        params = ", ".join(f"const {ctypes_[t]}* p{i}" for i, t in enumerate(types))
        lines.append(f'extern "C" __global__ void k{k}(long long n, {params}, {out_t}* po) {{')
        lines.append("  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;")
        lines.append("  if (i >= n) return;")
        for i, t in enumerate(types):
            lines.append(f"  const {ctypes_[t]} a{i} = p{i}[i];")
        lines.append(f"  {out_t}& out = po[i];")
        lines.append(f"  {operation}")
        lines.append("}")
    src = tmp_path / "kernels.cu"
    src.write_text("\n".join(lines) + "\n")
    proc = subprocess.run(["nvcc", "-c", "-arch=sm_80", "-Werror", "all-warnings", "-o", str(tmp_path / "kernels.o"),
                           str(src)], capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_source_shape():
    in_params, out_params, operation, _ = cuda_source("maximum(a0 + a1, 0.0)", ("f16", "f16"))
    assert in_params == "float16 a0, float16 a1"
    assert out_params == "float16 out"
    # f16 is computed in float registers and rounded once, when stored.
    assert operation.startswith("out = (float16)(") and "((float)a0)" in operation


def test_runs_as_cupy_elementwise_kernel():
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver or device
        pytest.skip("no GPU")
    from tfrt.kernels.expr_cuda import compile_cupy

    rng = np.random.default_rng(1)
    for expr, types in CASES:
        if "i1" in types:
            continue
        args = _operands(types, rng)
        if re.search(r"\bcast_i\d+\(a\d\)", expr):
            # A float-to-integer cast out of the type's range is undefined (MLIR's
            # fptosi gives poison): CUDA saturates, x86 gives the minimum.  Those
            # inputs are left out of the comparison.
            args = [np.where(np.isinf(a), a.dtype.type(3), a) if a.dtype.kind == "f" else a for a in args]
        from tfrt.kernels.expr import _typed_tree

        out_dt = _typed_tree(expr, types).dtype
        with np.errstate(all="ignore"):
            want = compile_array(expr, types, np, -1)(np.empty(args[0].shape, out_dt), *args)
        run = compile_cupy(expr, types, cupy)
        got = run(cupy.empty(args[0].shape, out_dt), *[cupy.asarray(a) for a in args]).get()
        if out_dt.kind == "f":
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6, equal_nan=True, err_msg=expr)
        else:
            np.testing.assert_array_equal(got, want, err_msg=expr)
