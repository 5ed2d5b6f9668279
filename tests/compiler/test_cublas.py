"""Device matrix products through cuBLAS's C API (tfrt.kernels.cublas).

On the CuPy stand-in the library is its ``Cublas`` (products over the
operands' addresses); with a GPU and CuPy, the real libcublas.  The results
must be numpy's (within float rounding), and a product CuPy would refuse to
run while a stream captures must be capturable this way.
"""

from __future__ import annotations


import numpy as np
import pytest

import cupy_standin
from tfrt.kernels import cublas
from gpu_fixture import gpu  # noqa: F401 - the fixture


@pytest.fixture
def cp(gpu):
    """The ``gpu`` fixture (tests/compiler/gpu_fixture.py): the stand-in, or CuPy on a GPU."""
    return gpu


def test_libcublas_loads_beside_cupy(cp):
    assert cublas.library(cp), "no libcublas beside CuPy"


RNG = np.random.default_rng(3)
TOL = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-12}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((5, 7), (7, 3)), ((2, 5, 7), (7, 3)), ((4, 5, 7), (4, 7, 3)),
                                    ((1, 1), (1, 1)), ((3, 64), (64, 130))])  # fmt: skip
def test_products_match_numpy(cp, dtype, shapes):
    a = RNG.standard_normal(shapes[0]).astype(dtype)
    b = RNG.standard_normal(shapes[1]).astype(dtype)
    got = cublas.matmul(cp, cp.asarray(a), cp.asarray(b))
    assert got is not None
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(cp.asnumpy(got).astype(np.float64), want, rtol=TOL[dtype], atol=TOL[dtype] * 8)


def test_a_transposed_operand_and_an_output_array(cp):
    a = RNG.standard_normal((6, 4)).astype(np.float32)
    b = RNG.standard_normal((5, 6)).astype(np.float32)
    out = cp.empty((4, 5), np.float32)
    got = cublas.matmul(cp, cp.asarray(a).T, cp.asarray(b).T, out)
    assert got is out
    np.testing.assert_allclose(cp.asnumpy(out), a.T @ b.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("a_shape,b_shape,dtype", [
    ((3, 4), (4,), np.float32),  # a vector: cupy.matmul's
    ((2, 3, 4), (5, 4, 2), np.float32),  # batches that broadcast
    ((3, 4), (4, 2), np.int32),  # integers
    ((3, 4), (4, 2), np.complex64),
])  # fmt: skip
def test_other_cases_are_left_to_cupy(cp, a_shape, b_shape, dtype):
    a, b = np.ones(a_shape, dtype), np.ones(b_shape, dtype)
    assert cublas.matmul(cp, cp.asarray(a), cp.asarray(b)) is None


def test_a_capturing_stream_records_the_product(cp):
    """CuPy's own matmul refuses while a stream captures; this one is recorded
    and replays over new contents of the same operands."""
    a = cp.asarray(RNG.standard_normal((8, 16)).astype(np.float32))
    b = cp.asarray(RNG.standard_normal((16, 4)).astype(np.float32))
    out = cp.empty((8, 4), np.float32)
    cublas.matmul(cp, a, b, out)  # the handle exists before the capture
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            with pytest.raises(NotImplementedError, match="cuBLAS"):
                cp.matmul(a, b)
        finally:
            try:
                stream.end_capture()
            except Exception:  # noqa: BLE001 - whether the refusal invalidated the capture is CUDA's business
                pass
    with stream:
        stream.begin_capture()
        cublas.matmul(cp, a, b, out)
        graph = stream.end_capture()
    for _ in range(2):
        x = RNG.standard_normal((8, 16)).astype(np.float32)
        cp.copyto(a, cp.asarray(x))
        graph.launch()
        np.testing.assert_allclose(cp.asnumpy(out), x @ cp.asnumpy(b), rtol=1e-5, atol=1e-5)


def test_each_product_runs_on_the_handles_own_workspace():
    """cublasSetStream puts a handle back on cuBLAS's workspace pool: the
    handle's own workspace is set again after it, before every product."""
    cp = cupy_standin.make_module()
    lib = cp._tfrt_cublas
    a = cp.asarray(np.ones((2, 3), np.float32))
    for _ in range(3):
        cublas.matmul(cp, a, a.T)
    assert lib.calls["gemm"] == 3 and lib.calls["set_workspace"] == 1 + 3
