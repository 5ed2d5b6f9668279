"""Host tensors: dense, scalar, string and COO, with TFRT's exact print forms.

``DenseHostTensor`` is a numpy array with TFRT's metadata and printing; the
dense kernels mutate it in place (TFRT's ``tfrt_dht`` tensors are mutable and
threaded with chains).  ``ScalarHostTensor`` is one value broadcast to a
shape, ``StringHostTensor`` an array of strings, ``CooHostTensor`` a sparse
tensor of ``indices`` (i64 ``[N, rank]``) and ``values`` (``[N]``).

Printing (what ``tfrt_dht.print_tensor`` writes)::

    DenseHostTensor dtype = i32, shape = [2, 2], values = [1, 2, 3, 4]
    ScalarHostTensor dtype = i32, shape = [2, 2], value = 1
    StringHostTensor shape = [2], values = ["string", "tensor"]
    CooHostTensor dtype = i32, shape = [3, 2], indices = [0, 0, 0, 1], values = [4, 4]

A DenseHostTensor prints at most 16 values followed by ``, ... ``; a COO tensor
prints all of them and, like TFRT's, ends with a newline of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from tfrt.tensor.dtype import DType, as_dtype, dtype_from_numpy, format_value, format_values
from tfrt.tensor.host_buffer import HostBuffer
from tfrt.tensor.shape import TensorShape, as_shape

PRINT_THRESHOLD = 16
SMALL_TENSOR_BYTES = 16 * 1024


@dataclass(frozen=True)
class TensorMetadata:
    """A tensor's dtype and shape (TFRT's ``TensorMetadata``)."""

    dtype: DType
    shape: TensorShape

    @classmethod
    def make(cls, dtype, shape) -> "TensorMetadata":
        return cls(as_dtype(dtype), as_shape(shape))

    @property
    def num_elements(self) -> int:
        return self.shape.num_elements()

    def __str__(self) -> str:
        return f"{self.dtype.short_name} {self.shape}"


class Tensor:
    """Base of every tensor: metadata plus the device the data lives on."""

    __slots__ = ("metadata",)

    device_name = "cpu:0"

    def __init__(self, metadata: TensorMetadata):
        self.metadata = metadata

    @property
    def dtype(self) -> DType:
        return self.metadata.dtype

    @property
    def shape(self) -> TensorShape:
        return self.metadata.shape

    @property
    def num_elements(self) -> int:
        return self.metadata.shape.num_elements()

    def print_text(self) -> str:  # pragma: no cover - every subclass overrides
        raise TypeError(f"{type(self).__name__} cannot be printed")

    def __str__(self) -> str:
        return self.print_text()


class HostTensor(Tensor):
    """A tensor whose data is in host memory."""

    __slots__ = ()


class DenseHostTensor(HostTensor):
    """A dense row-major host tensor over a numpy array."""

    __slots__ = ("array",)

    def __init__(self, metadata: TensorMetadata, array: np.ndarray):
        super().__init__(metadata)
        self.array = array

    # -- construction ----------------------------------------------------

    @classmethod
    def create_uninitialized(cls, dtype, shape, allocator=None) -> "DenseHostTensor":
        """A tensor whose contents are undefined (a reused cache block, say).

        Without an explicit ``allocator``, buffers below ``SMALL_TENSOR_BYTES``
        come from numpy directly: its small-block cache is faster than ours,
        and memory pressure is about the large buffers the cache holds.
        """
        metadata = shape if isinstance(shape, TensorMetadata) else TensorMetadata.make(dtype, shape)
        return cls.from_metadata(metadata, allocator)

    @classmethod
    def from_metadata(cls, metadata: TensorMetadata, allocator=None) -> "DenseHostTensor":
        """An uninitialised tensor of ``metadata`` (see create_uninitialized)."""
        dt = metadata.dtype
        if dt == DType.STRING:
            raise TypeError("a DenseHostTensor cannot hold strings; use StringHostTensor")
        npdt = dt.np_dtype
        dims = metadata.shape.dims
        nbytes = metadata.shape.num_elements() * npdt.itemsize
        if allocator is None and nbytes < SMALL_TENSOR_BYTES:
            return cls(metadata, np.empty(dims, npdt))
        return cls(metadata, HostBuffer(nbytes, allocator).view(npdt, dims))

    @classmethod
    def from_array(cls, array, dtype=None, *, copy: bool = False) -> "DenseHostTensor":
        """Wrap a numpy array (copied when ``copy`` or when it is not C-contiguous)."""
        target = as_dtype(dtype) if dtype is not None else None
        arr = np.asarray(array, dtype=target.np_dtype if target is not None else None)
        dt = target if target is not None else dtype_from_numpy(arr.dtype)
        if dt == DType.STRING:
            raise TypeError("a DenseHostTensor cannot hold strings; use StringHostTensor")
        if copy or not arr.flags.c_contiguous:
            out = cls.create_uninitialized(dt, arr.shape)
            np.copyto(out.array, arr, casting="unsafe")
            return out
        return cls(TensorMetadata(dt, TensorShape(arr.shape)), arr)

    @classmethod
    def from_values(cls, dtype, shape, values: Sequence) -> "DenseHostTensor":
        """A tensor from a flat list of values; one value is splatted (TFRT's create)."""
        t = cls.create_uninitialized(dtype, shape)
        flat = t.array.reshape(-1)
        if len(values) == 1:
            flat[...] = values[0]
        elif len(values) == flat.size:
            flat[...] = np.asarray(values, dtype=t.array.dtype)
        else:
            raise ValueError(
                f"{len(values)} values for a tensor of shape {t.shape} "
                f"({flat.size} elements)"
            )
        return t

    # -- access ----------------------------------------------------------

    def numpy(self) -> np.ndarray:
        return self.array

    @property
    def nbytes(self) -> int:
        return self.array.nbytes

    def fill(self, value) -> None:
        self.array[...] = value

    def copy(self) -> "DenseHostTensor":
        return DenseHostTensor.from_array(self.array, self.dtype, copy=True)

    def reshaped(self, shape) -> "DenseHostTensor":
        """A tensor sharing this one's data with another shape of the same size."""
        shape = as_shape(shape)
        if shape.num_elements() != self.num_elements:
            raise ValueError(f"cannot reshape {self.shape} to {shape}")
        return DenseHostTensor(TensorMetadata(self.dtype, shape), self.array.reshape(shape.dims))

    def equal(self, other: "DenseHostTensor") -> bool:
        """TFRT's ``TensorEqual``: same metadata and the same elements."""
        if self.metadata != other.metadata:
            return False
        return bool(np.array_equal(self.array, other.array))

    def allclose(self, other: "DenseHostTensor", ulp: int = 2) -> bool:
        """TFRT's ``TensorApproxEqual<T, ULP>`` (integers compare exactly)."""
        if self.metadata != other.metadata:
            return False
        return elements_close(self.dtype, self.array, other.array, ulp)

    def print_text(self) -> str:
        flat = self.array.reshape(-1)
        values = ", ".join(format_values(self.dtype, flat, PRINT_THRESHOLD))
        more = ", ... " if flat.size > PRINT_THRESHOLD else ""
        return (
            f"DenseHostTensor dtype = {self.dtype.short_name}, shape = {self.shape}, "
            f"values = [{values}{more}]"
        )

    def __repr__(self) -> str:
        return f"<{self.print_text()}>"


def elements_close(dtype: DType, a: np.ndarray, b: np.ndarray, ulp: int = 2) -> bool:
    """|x-y| <= eps*|x+y|*ulp or |x-y| < tiny, elementwise, as TFRT's TensorElementsClose."""
    if a.shape != b.shape:
        return False
    if dtype.is_complex:
        return elements_close(
            DType.F32 if dtype == DType.COMPLEX64 else DType.F64, a.real, b.real, ulp
        ) and elements_close(DType.F32 if dtype == DType.COMPLEX64 else DType.F64, a.imag, b.imag, ulp)
    if not dtype.is_float:
        return bool(np.array_equal(a, b))
    npdt = dtype.np_dtype
    if dtype in (DType.F16, DType.BF16):
        a = a.astype(np.float32)
        b = b.astype(np.float32)
    finfo = np.finfo(npdt) if dtype != DType.BF16 else None
    eps = float(finfo.eps) if finfo is not None else 2.0**-7
    tiny = float(finfo.tiny) if finfo is not None else 2.0**-126
    with np.errstate(over="ignore", invalid="ignore"):
        diff = np.abs(a - b)
        ok = (diff <= eps * np.abs(a + b) * ulp) | (diff < tiny)
    return bool(np.all(ok))


class ScalarHostTensor(HostTensor):
    """One value broadcast to a shape (TFRT's ``ScalarHostTensor<T>``)."""

    __slots__ = ("value",)

    def __init__(self, metadata: TensorMetadata, value):
        super().__init__(metadata)
        self.value = metadata.dtype.np_dtype.type(value)

    @classmethod
    def make(cls, dtype, shape, value) -> "ScalarHostTensor":
        return cls(TensorMetadata.make(dtype, shape), value)

    def to_dense(self) -> DenseHostTensor:
        out = DenseHostTensor.create_uninitialized(self.dtype, self.shape)
        out.array[...] = self.value
        return out

    def print_text(self) -> str:
        return (
            f"ScalarHostTensor dtype = {self.dtype.short_name}, shape = {self.shape}, "
            f"value = {format_value(self.dtype, self.value)}"
        )

    def __repr__(self) -> str:
        return f"<{self.print_text()}>"


class StringHostTensor(HostTensor):
    """A tensor of strings, row-major in a numpy object array."""

    __slots__ = ("strings",)

    def __init__(self, shape, strings: Iterable[str] | None = None):
        shape = as_shape(shape)
        super().__init__(TensorMetadata(DType.STRING, shape))
        n = shape.num_elements()
        arr = np.empty(n, dtype=object)
        if strings is None:
            arr[...] = ""
        else:
            items = list(strings)
            if len(items) != n:
                raise ValueError(
                    f"{len(items)} strings for a string tensor of shape {shape} ({n} elements)"
                )
            arr[...] = items
        self.strings = arr.reshape(shape.dims)

    def numpy(self) -> np.ndarray:
        return self.strings

    def equal(self, other: "StringHostTensor") -> bool:
        return self.shape == other.shape and bool(np.array_equal(self.strings, other.strings))

    def print_text(self) -> str:
        flat = self.strings.reshape(-1)
        values = ", ".join(f'"{s}"' for s in flat[:PRINT_THRESHOLD])
        # TFRT prints 16 strings but adds the ellipsis only past 32 of them.
        more = ", ... " if flat.size > 2 * PRINT_THRESHOLD else ""
        return f"StringHostTensor shape = {self.shape}, values = [{values}{more}]"

    def __repr__(self) -> str:
        return f"<{self.print_text()}>"


class CooHostTensor(HostTensor):
    """A sparse tensor in coordinate format."""

    __slots__ = ("indices", "values")

    def __init__(self, shape, dtype, indices: DenseHostTensor, values: DenseHostTensor):
        shape = as_shape(shape)
        dtype = as_dtype(dtype)
        super().__init__(TensorMetadata(dtype, shape))
        if indices.dtype != DType.I64 or indices.shape.rank != 2:
            raise ValueError(f"COO indices must be an i64 matrix, got {indices.metadata}")
        if values.shape.rank != 1 or values.shape.dim(0) != indices.shape.dim(0):
            raise ValueError(
                f"COO values {values.shape} do not match indices {indices.shape}"
            )
        if indices.shape.dim(1) != shape.rank:
            raise ValueError(f"COO indices have {indices.shape.dim(1)} columns for rank {shape.rank}")
        self.indices = indices
        self.values = values

    @classmethod
    def from_dense(cls, dense: DenseHostTensor) -> "CooHostTensor":
        """The non-zero elements of ``dense``.

        The coordinates reproduce TFRT's ``coo.convert_dht_to_coo``, which
        decomposes the row-major linear index with the dimensions taken in
        *forward* order while filling coordinates from the last column: for
        rank 2 and shape [d0, d1], column 1 gets ``i % d0`` and column 0 gets
        ``(i // d0) % d1``.  For a [3, 2] tensor this prints the pairs
        (0,0) (0,1) (0,2) (1,0) ... although (0,2) is out of range, as TFRT does.
        """
        dims = dense.shape.dims
        rank = len(dims)
        flat = dense.array.reshape(-1)
        nz = np.flatnonzero(flat)
        idx = nz.astype(np.int64)
        indices = DenseHostTensor.create_uninitialized(DType.I64, (nz.size, rank))
        for r in range(rank):
            d = dims[r]
            col = rank - r - 1
            if d == 0:
                indices.array[:, col] = 0
                continue
            indices.array[:, col] = idx % d
            idx = idx // d
        values = DenseHostTensor.create_uninitialized(dense.dtype, (nz.size,))
        values.array[...] = flat[nz]
        return cls(dense.shape, dense.dtype, indices, values)

    def to_dense(self) -> DenseHostTensor:
        """Scatter into a zero-filled dense tensor (TFRT's ConvertToDHTTensorHelper).

        The linear offset uses the true row-major strides, so an index produced
        by ``from_dense``'s quirk lands wherever TFRT's arithmetic puts it; an
        offset outside the tensor is an error instead of a memory overwrite.
        """
        out = DenseHostTensor.create_uninitialized(self.dtype, self.shape)
        out.array[...] = 0
        if self.values.num_elements == 0:
            return out
        strides = np.asarray(self.shape.strides(), dtype=np.int64)
        offsets = self.indices.array @ strides if self.shape.rank else np.zeros(
            self.values.num_elements, np.int64
        )
        flat = out.array.reshape(-1)
        if offsets.size and (offsets.min() < 0 or offsets.max() >= flat.size):
            raise ValueError(f"COO index out of range for shape {self.shape}")
        flat[offsets] = self.values.array
        return out

    def equal(self, other: "CooHostTensor") -> bool:
        """TFRT's ``coo.tensor_equal``: values approximately and indices exactly equal."""
        return self.values.allclose(other.values) and self.indices.allclose(other.indices)

    def print_text(self) -> str:
        indices = ", ".join(str(v) for v in self.indices.array.reshape(-1).tolist())
        values = ", ".join(format_values(self.dtype, self.values.array.reshape(-1)))
        return (
            f"CooHostTensor dtype = {self.dtype.short_name}, shape = {self.shape}, "
            f"indices = [{indices}], values = [{values}]\n"
        )

    def __repr__(self) -> str:
        return f"<{self.print_text().rstrip()}>"


def to_dense(tensor: Tensor) -> DenseHostTensor:
    """Convert any numeric host tensor to a DenseHostTensor (TFRT's conversion registry)."""
    if isinstance(tensor, DenseHostTensor):
        return tensor
    if isinstance(tensor, (ScalarHostTensor, CooHostTensor)):
        return tensor.to_dense()
    raise TypeError(f"cannot convert {type(tensor).__name__} to a DenseHostTensor")


def print_tensor(tensor) -> str:
    """The text ``tfrt_dht.print_tensor`` writes for ``tensor`` (without the final newline)."""
    if isinstance(tensor, Tensor):
        return tensor.print_text()
    raise TypeError(f"cannot print a {type(tensor).__name__} as a tensor")
