"""Matrix products of device arrays through cuBLAS's C API (``cublasGemmEx``).

CuPy refuses every cuBLAS call while a stream captures a CUDA graph
(``cupy_backends/cuda/libs/cublas.pyx``, ``setStream``: "calling cuBLAS API
during stream capture is currently unsupported"), though cuBLAS itself
supports capture when the handle has a workspace of its own (cuBLAS's
documentation, "CUDA Graphs Support").  So the GPU kernels multiply through
the library directly: one handle per thread and device, its stream set to CuPy's current stream
before each call and then its own workspace (cublasSetStream resets the
workspace to cuBLAS's pool), which a captured graph keeps alive.  Captured or not, a product takes the same path, so a
graph's results are the uncaptured ones.

Row-major ``C = A @ B`` is column-major ``C^T = B^T A^T``: one
``cublasGemmEx`` for 2-D operands (a leading batch of ``a`` folds into its
rows), one ``cublasGemmStridedBatchedEx`` for 3-D operands of one batch.
f16, f32 and f64 only, f16 accumulating in f32 as CuPy's own f16 products
do (no TF32).  Anything else returns None and the caller uses
``cupy.matmul``.

``LIBRARY`` is the loaded library (``None`` until first use, ``False`` when
none could be found).
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import numpy as np

# cudaDataType_t, cublasComputeType_t (library_types.h, cublas_api.h)
_TYPES = {
    np.dtype(np.float16): (2, 68),  # CUDA_R_16F, CUBLAS_COMPUTE_32F
    np.dtype(np.float32): (0, 68),  # CUDA_R_32F, CUBLAS_COMPUTE_32F
    np.dtype(np.float64): (1, 70),  # CUDA_R_64F, CUBLAS_COMPUTE_64F
}
_OP_N = 0
_GEMM_DEFAULT = -1
WORKSPACE_BYTES = 32 << 20

LIBRARY: Any = None
_load_lock = threading.Lock()
_local = threading.local()


class CublasError(RuntimeError):
    pass


class _Library:
    """The cuBLAS entry points this module calls, over ctypes."""

    def __init__(self, cdll: ctypes.CDLL) -> None:
        vp, i32, i64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong
        self.create = cdll.cublasCreate_v2
        self.create.argtypes = [ctypes.POINTER(vp)]
        self.set_stream = cdll.cublasSetStream_v2
        self.set_stream.argtypes = [vp, vp]
        self.set_workspace = cdll.cublasSetWorkspace_v2
        self.set_workspace.argtypes = [vp, vp, ctypes.c_size_t]
        self.gemm = cdll.cublasGemmEx
        self.gemm.argtypes = [vp, i32, i32, i32, i32, i32, vp, vp, i32, i32, vp, i32, i32, vp, vp, i32, i32, i32,
                              i32]  # fmt: skip
        self.gemm_batched = cdll.cublasGemmStridedBatchedEx
        self.gemm_batched.argtypes = [vp, i32, i32, i32, i32, i32, vp, vp, i32, i32, i64, vp, i32, i32, i64, vp, vp,
                                      i32, i32, i64, i32, i32, i32]  # fmt: skip


def _find_cdll() -> ctypes.CDLL | None:
    """The libcublas CuPy loaded (found in this process's mappings), else the usual names."""
    try:
        import cupy_backends.cuda.libs.cublas  # noqa: F401, PLC0415 - makes CuPy load it
    except Exception:  # noqa: BLE001 - no CuPy build with cuBLAS
        pass
    paths = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.rsplit(None, 1)[-1] if "/" in line else ""
                if "libcublas.so" in path and "libcublasLt" not in path and path not in paths:
                    paths.append(path)
    except OSError:
        pass
    for name in (*paths, "libcublas.so.13", "libcublas.so.12", "libcublas.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def library(cp: Any = None) -> Any:
    """The cuBLAS library, loaded once; False where there is none.  A module
    standing in for CuPy brings its own (``_tfrt_cublas``): its arrays are
    not device memory."""
    own = getattr(cp, "_tfrt_cublas", None)
    if own is not None:
        return own
    global LIBRARY
    if LIBRARY is None:
        with _load_lock:
            if LIBRARY is None:
                cdll = _find_cdll()
                try:
                    LIBRARY = _Library(cdll) if cdll is not None else False
                except AttributeError:  # an old cuBLAS without these entry points
                    LIBRARY = False
    return LIBRARY


def _check(status: int, what: str) -> None:
    if status != 0:
        raise CublasError(f"cuBLAS {what} failed (cublasStatus_t {status})")


def thread_workspaces() -> list:
    """This thread's handles' workspaces (a captured graph keeps them alive)."""
    return [workspace for _, workspace in getattr(_local, "handles", {}).values()]


def _handle(lib: Any, cp: Any) -> tuple[Any, Any]:
    """This thread's handle for the current device, and its workspace."""
    handles = _local.__dict__.setdefault("handles", {})
    device = cp.cuda.Device().id
    entry = handles.get((id(lib), device))
    if entry is None:
        handle = ctypes.c_void_p()
        _check(lib.create(ctypes.byref(handle)), "cublasCreate")
        workspace = cp.empty(WORKSPACE_BYTES, np.uint8)
        _check(lib.set_workspace(handle, workspace.data.ptr, WORKSPACE_BYTES), "cublasSetWorkspace")
        entry = handles[(id(lib), device)] = (handle, workspace)
    return entry


def matmul(cp: Any, a: Any, b: Any, out: Any = None) -> Any:
    """``a @ b`` into ``out`` (or a new array) on cuBLAS; None when the
    operands are not a case this module handles (see the module docstring)."""
    dtype = a.dtype
    if b.dtype != dtype or dtype not in _TYPES or a.ndim < 2 or b.ndim not in (2, a.ndim):
        return None
    if b.ndim == 3 and a.ndim == 3 and a.shape[0] != b.shape[0]:
        return None
    if b.ndim > 3:
        return None
    lib = library(cp)
    if not lib:
        return None
    k = a.shape[-1]
    if b.shape[-2] != k:
        return None
    shape = (*a.shape[:-1], b.shape[-1])
    if out is None:
        out = cp.empty(shape, dtype)
    elif out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous:
        return None
    a = cp.ascontiguousarray(a)
    b = cp.ascontiguousarray(b)
    if out.size == 0:
        return out
    if k == 0:
        out.fill(0)
        return out
    dtype_code, compute = _TYPES[dtype]
    scalar = ctypes.c_double if compute == 70 else ctypes.c_float
    one, zero = scalar(1), scalar(0)
    handle, workspace = _handle(lib, cp)
    _check(lib.set_stream(handle, cp.cuda.get_current_stream().ptr), "cublasSetStream")
    # cublasSetStream puts the handle back on cuBLAS's own workspace pool: the
    # handle's workspace is set again after it.
    _check(lib.set_workspace(handle, workspace.data.ptr, WORKSPACE_BYTES), "cublasSetWorkspace")
    n = b.shape[-1]
    if b.ndim == 2:
        m = int(np.prod(a.shape[:-1], dtype=np.int64))
        _check(lib.gemm(handle, _OP_N, _OP_N, n, m, k, ctypes.byref(one), b.data.ptr, dtype_code, n,
                        a.data.ptr, dtype_code, k, ctypes.byref(zero), out.data.ptr, dtype_code, n, compute,
                        _GEMM_DEFAULT), "cublasGemmEx")  # fmt: skip
    else:
        batch, m = a.shape[0], a.shape[1]
        _check(lib.gemm_batched(handle, _OP_N, _OP_N, n, m, k, ctypes.byref(one), b.data.ptr, dtype_code, n, k * n,
                                a.data.ptr, dtype_code, k, m * k, ctypes.byref(zero), out.data.ptr, dtype_code, n,
                                m * n, batch, compute, _GEMM_DEFAULT), "cublasGemmStridedBatchedEx")  # fmt: skip
    return out
