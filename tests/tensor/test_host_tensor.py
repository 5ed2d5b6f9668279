"""Host tensors: construction, TFRT's print forms, COO conversion (and its quirk), memory."""

from __future__ import annotations

import gc

import ml_dtypes
import numpy as np
import pytest

from tfrt.tensor.dtype import DType
from tfrt.tensor.host_buffer import HostBuffer, default_host_allocator, detached_view, owning_buffer
from tfrt.tensor.host_tensor import (
    CooHostTensor,
    DenseHostTensor,
    ScalarHostTensor,
    StringHostTensor,
    TensorMetadata,
    elements_close,
    print_tensor,
    to_dense,
)


def dht(values, dtype=None):
    return DenseHostTensor.from_array(np.asarray(values, dtype=dtype))


def test_dense_print_forms():
    assert str(dht([[1, 2], [3, 4]], np.int32)) == (
        "DenseHostTensor dtype = i32, shape = [2, 2], values = [1, 2, 3, 4]"
    )
    assert str(dht([1.0, 2.0], np.float32)) == (
        "DenseHostTensor dtype = f32, shape = [2], values = [1.000000e+00, 2.000000e+00]"
    )
    assert str(dht(np.zeros((0,), np.int32))) == "DenseHostTensor dtype = i32, shape = [0], values = []"
    assert str(dht(np.array(5, np.int64))) == "DenseHostTensor dtype = i64, shape = [], values = [5]"
    assert str(dht([True, False])) == "DenseHostTensor dtype = i1, shape = [2], values = [1, 0]"
    assert str(dht([2.5], ml_dtypes.bfloat16)) == (
        "DenseHostTensor dtype = bf16, shape = [1], values = [bf16(16416)]"
    )
    assert str(dht([0.0], np.float16)) == "DenseHostTensor dtype = f16, shape = [1], values = [fp16(0)]"
    assert str(dht([1 + 2j], np.complex128)).endswith("values = [(1.000000e+00,2.000000e+00)]")
    assert str(dht([2], np.uint64)) == "DenseHostTensor dtype = u64, shape = [1], values = [2]"


def test_dense_prints_at_most_sixteen_values():
    t = dht(np.arange(17, dtype=np.int32))
    assert str(t).endswith("values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ... ]")
    assert "..." not in str(dht(np.arange(16, dtype=np.int32)))


def test_scalar_string_coo_print_forms():
    s = ScalarHostTensor.make(DType.I32, [2, 2], 1)
    assert str(s) == "ScalarHostTensor dtype = i32, shape = [2, 2], value = 1"
    assert to_dense(s).array.tolist() == [[1, 1], [1, 1]]
    sht = StringHostTensor([2], ["string", "tensor"])
    assert str(sht) == 'StringHostTensor shape = [2], values = ["string", "tensor"]'
    assert print_tensor(sht) == str(sht)
    with pytest.raises(TypeError, match="cannot print"):
        print_tensor(3)


def test_string_tensor_ellipsis_threshold_is_tfrts():
    # TFRT prints 16 strings, but only adds ", ... " past 32 elements.
    twenty = StringHostTensor([20], [str(i) for i in range(20)])
    assert str(twenty).count('"') == 32 and "..." not in str(twenty)
    many = StringHostTensor([33], [str(i) for i in range(33)])
    assert str(many).endswith('"15", ... ]')
    with pytest.raises(ValueError, match="1 strings for a string tensor of shape"):
        StringHostTensor([2], ["x"])
    assert StringHostTensor([2, 1], ["a", "b"]).equal(StringHostTensor([2, 1], ["a", "b"]))


def test_coo_from_dense_replicates_the_tfrt_index_quirk():
    t = DenseHostTensor.from_array(np.full((3, 2), 4, np.int32))
    coo = CooHostTensor.from_dense(t)
    assert str(coo) == (
        "CooHostTensor dtype = i32, shape = [3, 2], indices = [0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2], "
        "values = [4, 4, 4, 4, 4, 4]\n"
    )
    zeros = CooHostTensor.from_dense(DenseHostTensor.from_array(np.zeros((2, 3), np.int32)))
    assert str(zeros) == "CooHostTensor dtype = i32, shape = [2, 3], indices = [], values = []\n"


def test_coo_round_trip_of_square_tensors_is_exact():
    rng = np.random.default_rng(0)
    a = (rng.integers(-2, 3, size=(5, 5))).astype(np.int32)
    coo = CooHostTensor.from_dense(DenseHostTensor.from_array(a))
    back = coo.to_dense()
    np.testing.assert_array_equal(back.array, a)
    assert coo.equal(CooHostTensor.from_dense(back))
    other = CooHostTensor.from_dense(DenseHostTensor.from_array(a + 1))
    assert not coo.equal(other)


def test_coo_rank_one_and_three():
    v = np.array([0, 3, 0, 5], np.float32)
    coo = CooHostTensor.from_dense(DenseHostTensor.from_array(v))
    assert coo.indices.array.tolist() == [[1], [3]]
    np.testing.assert_array_equal(coo.to_dense().array, v)
    cube = np.arange(8, dtype=np.int32).reshape(2, 2, 2)
    np.testing.assert_array_equal(CooHostTensor.from_dense(DenseHostTensor.from_array(cube)).to_dense().array, cube)


def test_coo_validation():
    idx = DenseHostTensor.from_array(np.zeros((1, 2), np.int64))
    vals = DenseHostTensor.from_array(np.zeros((2,), np.int32))
    with pytest.raises(ValueError, match="do not match indices"):
        CooHostTensor([2, 2], DType.I32, idx, vals)
    with pytest.raises(ValueError, match="i64 matrix"):
        CooHostTensor([2, 2], DType.I32, vals, vals)
    bad = CooHostTensor([2, 2], DType.I32, DenseHostTensor.from_array(np.array([[5, 5]], np.int64)),
                        DenseHostTensor.from_array(np.array([1], np.int32)))
    with pytest.raises(ValueError, match="out of range"):
        bad.to_dense()


def test_equal_and_allclose():
    a = dht([1.0, 2.0], np.float32)
    assert a.equal(a.copy()) and not a.equal(dht([1.0, 2.0], np.float64))
    near = dht(np.nextafter(np.float32([1.0, 2.0]), np.float32(3)), np.float32)
    assert a.allclose(near) and not a.equal(near)
    assert not a.allclose(dht([1.0, 2.1], np.float32))
    assert dht([3], np.int32).allclose(dht([3], np.int32))
    tiny = np.finfo(np.float32).tiny
    assert elements_close(DType.F32, np.float32([0.0]), np.float32([tiny / 4]))
    assert elements_close(DType.COMPLEX64, np.complex64([1 + 1j]), np.complex64([1 + 1j]))
    assert not elements_close(DType.F32, np.zeros(2, np.float32), np.zeros(3, np.float32))


def test_from_values_and_reshape():
    t = DenseHostTensor.from_values(DType.I32, [2, 2], [7])
    assert t.array.tolist() == [[7, 7], [7, 7]]
    t = DenseHostTensor.from_values("f64", [3], [1, 2, 3])
    assert t.dtype == DType.F64 and t.reshaped([3, 1]).shape.dims == (3, 1)
    with pytest.raises(ValueError, match="2 values for a tensor of shape"):
        DenseHostTensor.from_values(DType.I32, [3], [1, 2])
    with pytest.raises(ValueError, match="cannot reshape"):
        t.reshaped([2])
    with pytest.raises(TypeError, match="cannot hold strings"):
        DenseHostTensor.create_uninitialized(DType.STRING, [1])
    assert TensorMetadata.make("i32", [2]) == t.reshaped([3]).metadata.__class__(DType.I32, t.shape.__class__([2]))
    assert str(TensorMetadata.make("i32", [2, 2])) == "i32 [2, 2]"


def test_noncontiguous_arrays_are_copied():
    base = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = DenseHostTensor.from_array(base.T)
    assert t.array.flags.c_contiguous and t.array.tolist() == base.T.tolist()


def test_memory_returns_to_the_host_cache_only_when_every_view_is_gone():
    alloc = default_host_allocator()
    gc.collect()
    before = alloc.stats().bytes_in_use
    t = DenseHostTensor.create_uninitialized(DType.F32, [10000])
    view = t.array[10:20]
    assert isinstance(owning_buffer(view), HostBuffer)
    del t
    gc.collect()
    assert alloc.stats().bytes_in_use > before  # the view still holds the block
    view[...] = 1.0
    del view
    gc.collect()
    assert alloc.stats().bytes_in_use == before


def test_detached_view_does_not_hold_the_buffer():
    alloc = default_host_allocator()
    gc.collect()
    before = alloc.stats().bytes_in_use
    t = DenseHostTensor.create_uninitialized(DType.I64, [4096])
    t.array[...] = 3
    raw = detached_view(t.array)
    assert raw.tolist() == [3] * 4096
    del t
    gc.collect()
    assert alloc.stats().bytes_in_use == before
    plain = np.zeros(3)
    assert detached_view(plain) is plain


def test_small_tensors_use_numpy_memory_and_large_ones_the_cache():
    from tfrt.tensor.host_buffer import memory_owner
    from tfrt.tensor.host_tensor import SMALL_TENSOR_BYTES

    small = DenseHostTensor.create_uninitialized(DType.F32, [4])
    assert owning_buffer(small.array) is None and memory_owner(small.array[1:]) is small.array
    large = DenseHostTensor.create_uninitialized(DType.UI8, [SMALL_TENSOR_BYTES])
    assert isinstance(memory_owner(large.array), HostBuffer)
