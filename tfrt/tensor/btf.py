"""TFRT's Binary Tensor Format (``.btf``): a reader and a writer.

Layout (all little-endian; TFRT's ``btf.h``/``btf_util.cc``)::

    file    := u64 num_tensors, u64 record_offset[num_tensors], record*
    record  := u64 rank, u8 dtype, u8 layout, u8 reserved[6], payload, pad to 8
    payload := u64 dims[rank], raw row-major data         (layout 0, RMD)

The dtype byte is BTF's own code (0 i8, 1 i16, 2 i32, 3 i64, 4 f32, 5 f64,
6 u8, 7 u16, 8 u32, 9 u64), not a DType value.  Layout 1 (COO, experimental)
is recognised but, as in TFRT, the dense readers refuse it.

``read_dense_tensor(path, index, dtype=, rank=)`` performs the checks of
TFRT's ``ReadTensorFromBTFHelper`` and raises ``BTFError`` with TFRT's messages
(``failed to open file PATH for reading``, ``invalid tensor index ...``,
``unexpected tensor dtype ...``, ``unexpected tensor rank ...``).
"""

from __future__ import annotations

import os
import struct
from typing import BinaryIO, Sequence

import numpy as np

from tfrt.tensor.dtype import DType, dtype_from_numpy
from tfrt.tensor.host_tensor import DenseHostTensor

LAYOUT_RMD = 0
LAYOUT_COO_EXPERIMENTAL = 1

_BTF_TO_DTYPE = {
    0: DType.I8,
    1: DType.I16,
    2: DType.I32,
    3: DType.I64,
    4: DType.F32,
    5: DType.F64,
    6: DType.UI8,
    7: DType.UI16,
    8: DType.UI32,
    9: DType.UI64,
}
_DTYPE_TO_BTF = {v: k for k, v in _BTF_TO_DTYPE.items()}

_HEADER = struct.Struct("<QBB6x")


class BTFError(Exception):
    """A BTF file cannot be read as asked; the message is TFRT's."""


def btf_dtype_code(dtype: DType) -> int:
    try:
        return _DTYPE_TO_BTF[dtype]
    except KeyError:
        raise BTFError(f"unsupported dtype {dtype.short_name} for BTF") from None


def _read_exact(f: BinaryIO, n: int) -> bytes | None:
    data = f.read(n)
    return data if len(data) == n else None


def read_offsets(f: BinaryIO) -> list[int]:
    """The record offsets of an open BTF file (the stream must be at its start)."""
    raw = _read_exact(f, 8)
    if raw is None:
        raise BTFError("failed to read num_tensors")
    (n,) = struct.unpack("<Q", raw)
    raw = _read_exact(f, 8 * n)
    if raw is None:
        raise BTFError("failed to read tensor record offsets")
    return list(struct.unpack(f"<{n}Q", raw))


def _read_record(f: BinaryIO, offset: int, dtype: DType | None, rank: int | None):
    f.seek(offset)
    raw = _read_exact(f, _HEADER.size)
    if raw is None:
        raise BTFError(f"failed to read tensor header from stream at offset {offset}")
    rec_rank, code, layout = _HEADER.unpack(raw)
    if dtype is not None and code != _DTYPE_TO_BTF.get(dtype, -1):
        raise BTFError(
            f"unexpected tensor dtype {code}. Expected dtype is {btf_dtype_code(dtype)}"
        )
    if rank is not None and rec_rank != rank:
        raise BTFError(f"unexpected tensor rank {rec_rank}. Expected rank is {rank}")
    if layout != LAYOUT_RMD:
        raise BTFError(f"unexpected tensor layout {layout}")
    if code not in _BTF_TO_DTYPE:
        raise BTFError(f"unknown BTF dtype code {code}")
    raw = _read_exact(f, 8 * rec_rank)
    if raw is None:
        raise BTFError(f"failed to read tensor dims at offset {offset}")
    dims = struct.unpack(f"<{rec_rank}Q", raw)
    tensor = DenseHostTensor.create_uninitialized(_BTF_TO_DTYPE[code], dims)
    nbytes = tensor.array.nbytes
    if nbytes:
        # readinto fills the tensor's own buffer: no intermediate copy.
        view = memoryview(tensor.array.reshape(-1).view(np.uint8))
        got = f.readinto(view)
        if got != nbytes:
            raise BTFError(f"failed to read tensor data from stream at offset {offset}")
    if tensor.array.dtype.byteorder == ">":  # pragma: no cover - big-endian hosts
        tensor.array.byteswap(inplace=True)
    return tensor


def read_dense_tensor(
    path: str | os.PathLike, index: int, *, dtype: DType | None = None, rank: int | None = None
) -> DenseHostTensor:
    """Read record ``index`` of a BTF file as a DenseHostTensor.

    ``dtype`` and ``rank``, when given, must match the record (the typed TFRT
    readers ``btf.read_dense_tensor.<dtype>.<rank>`` check both).
    """
    try:
        f = open(path, "rb")
    except OSError:
        raise BTFError(f"failed to open file {os.fspath(path)} for reading") from None
    with f:
        raw = _read_exact(f, 8)
        if raw is None:
            raise BTFError(f"failed to read tensor num_tensors from path {os.fspath(path)}")
        (num,) = struct.unpack("<Q", raw)
        if index < 0 or index >= num:
            raise BTFError(
                f"invalid tensor index {index} to read tensor from path {os.fspath(path)} "
                f"which contains {num} tensors"
            )
        f.seek(8 * (index + 1))
        raw = _read_exact(f, 8)
        if raw is None:
            raise BTFError(
                f"failed to read tensor offset from {os.fspath(path)} for tensor index {index}"
            )
        (offset,) = struct.unpack("<Q", raw)
        return _read_record(f, offset, dtype, rank)


def read_all(path: str | os.PathLike) -> list[DenseHostTensor]:
    """Every record of a BTF file."""
    try:
        f = open(path, "rb")
    except OSError:
        raise BTFError(f"failed to open file {os.fspath(path)} for reading") from None
    with f:
        return [_read_record(f, off, None, None) for off in read_offsets(f)]


def encode(tensors: Sequence[DenseHostTensor | np.ndarray]) -> bytes:
    """The BTF bytes of ``tensors`` (TFRT's WriteTensorsToBTF layout)."""
    arrays = [t.array if isinstance(t, DenseHostTensor) else np.asarray(t) for t in tensors]
    out = bytearray(struct.pack("<Q", len(arrays)))
    records = []
    offset = 8 * (1 + len(arrays))
    offsets = []
    for arr in arrays:
        code = btf_dtype_code(dtype_from_numpy(arr.dtype))
        data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        rec = bytearray(_HEADER.pack(arr.ndim, code, LAYOUT_RMD))
        rec += struct.pack(f"<{arr.ndim}Q", *arr.shape)
        rec += data
        rec += b"\0" * (-len(data) % 8)
        offsets.append(offset)
        offset += len(rec)
        records.append(rec)
    out += struct.pack(f"<{len(offsets)}Q", *offsets)
    for rec in records:
        out += rec
    return bytes(out)


def write(path: str | os.PathLike, tensors: Sequence[DenseHostTensor | np.ndarray]) -> None:
    with open(path, "wb") as f:
        f.write(encode(tensors))
