"""The Binary Tensor Format reader and writer (TFRT's layout and error messages)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tfrt.tensor import btf
from tfrt.tensor.dtype import DType
from tfrt.tensor.host_tensor import DenseHostTensor


def test_layout_matches_tfrts_writer(tmp_path):
    data = btf.encode([np.array([[1, 2], [3, 4]], np.int32), np.arange(5, dtype=np.int32),
                       np.zeros((0,), np.int32)])
    num, *offsets = struct.unpack_from("<4Q", data)
    assert num == 3 and offsets[0] == 8 * 4
    rank, code, layout = struct.unpack_from("<QBB6x", data, offsets[0])
    assert (rank, code, layout) == (2, 2, btf.LAYOUT_RMD)
    assert struct.unpack_from("<2Q", data, offsets[0] + 16) == (2, 2)
    assert all(off % 8 == 0 for off in offsets)
    # Record 1: header 16 + dims 8 + 20 bytes data, padded to 48.
    assert offsets[2] - offsets[1] == 16 + 8 + 24


@pytest.mark.parametrize(
    "array",
    [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array([-1, 2, -3], np.int8),
        np.array([[1]], np.int16),
        np.array(7, np.int64),
        np.arange(24, dtype=np.float64).reshape(2, 3, 4),
        np.array([1, 2], np.uint8),
        np.array([3], np.uint16),
        np.array([4], np.uint32),
        np.array([2**63], np.uint64),
    ],
)
def test_round_trip(tmp_path, array):
    path = tmp_path / "t.btf"
    btf.write(path, [array, DenseHostTensor.from_array(array)])
    for i in range(2):
        t = btf.read_dense_tensor(path, i)
        assert t.array.dtype == array.dtype and t.shape.dims == array.shape
        np.testing.assert_array_equal(t.array, array)
    assert len(btf.read_all(path)) == 2


def test_typed_reads_check_dtype_rank_and_index(tmp_path):
    path = tmp_path / "t.btf"
    btf.write(path, [np.zeros((2, 2), np.int32)])
    assert btf.read_dense_tensor(path, 0, dtype=DType.I32, rank=2).shape.dims == (2, 2)
    with pytest.raises(btf.BTFError, match=r"^unexpected tensor dtype 2\. Expected dtype is 4$"):
        btf.read_dense_tensor(path, 0, dtype=DType.F32, rank=2)
    with pytest.raises(btf.BTFError, match=r"^unexpected tensor rank 2\. Expected rank is 1$"):
        btf.read_dense_tensor(path, 0, dtype=DType.I32, rank=1)
    with pytest.raises(btf.BTFError, match=f"invalid tensor index 1 to read tensor from path {path} which contains 1 tensors"):
        btf.read_dense_tensor(path, 1)


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.btf"
    with pytest.raises(btf.BTFError, match=f"^failed to open file {missing} for reading$"):
        btf.read_dense_tensor(missing, 0)
    with pytest.raises(btf.BTFError, match="failed to open file"):
        btf.read_all(missing)


def test_corrupt_files(tmp_path):
    path = tmp_path / "bad.btf"
    path.write_bytes(b"\x01\x00")
    with pytest.raises(btf.BTFError, match="failed to read tensor num_tensors"):
        btf.read_dense_tensor(path, 0)
    good = btf.encode([np.arange(4, dtype=np.int32)])
    path.write_bytes(good[:-8])
    with pytest.raises(btf.BTFError, match="failed to read tensor data from stream at offset 16"):
        btf.read_dense_tensor(path, 0)
    coo = bytearray(good)
    coo[16 + 9] = btf.LAYOUT_COO_EXPERIMENTAL
    path.write_bytes(bytes(coo))
    with pytest.raises(btf.BTFError, match="unexpected tensor layout 1"):
        btf.read_dense_tensor(path, 0)
    unknown = bytearray(good)
    unknown[16 + 8] = 42
    path.write_bytes(bytes(unknown))
    with pytest.raises(btf.BTFError, match="unknown BTF dtype code 42"):
        btf.read_all(path)


def test_unsupported_dtype():
    with pytest.raises(btf.BTFError, match="unsupported dtype f16"):
        btf.encode([np.zeros(2, np.float16)])


def test_tfrt_test_data_file(tmp_path):
    # The bytes of TFRT's mnist/test_data/test_tensor.btf: three i32 tensors.
    data = btf.encode([np.array([[1, 2], [3, 4]], np.int32), np.arange(5, dtype=np.int32),
                       np.zeros((0,), np.int32)])
    path = tmp_path / "test_tensor.btf"
    path.write_bytes(data)
    texts = [str(t) for t in btf.read_all(path)]
    assert texts == [
        "DenseHostTensor dtype = i32, shape = [2, 2], values = [1, 2, 3, 4]",
        "DenseHostTensor dtype = i32, shape = [5], values = [0, 1, 2, 3, 4]",
        "DenseHostTensor dtype = i32, shape = [0], values = []",
    ]
