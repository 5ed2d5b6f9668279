"""Kernels of the ``tfrt_dht`` (dense host tensor) and ``tfrt_sht`` (string host tensor) dialects.

Dense host tensors are mutable here, as in TFRT, so the kernels that write a
tensor take a chain and return one::

    %t  = tfrt_dht.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]
    %c1 = tfrt_dht.fill_tensor_with_constant.i32 %t, %c0 4 : i32
    %c2 = tfrt_dht.print_tensor %t, %c1
    // DenseHostTensor dtype = i32, shape = [3, 2], values = [4, 4, 4, 4, 4, 4]
    %eq, %c3 = tfrt_dht.tensor_equal.i32 %t, %t, %c2

Kernel families (TFRT's ``dense_host_tensor_kernels.cc``):
``create_uninitialized_tensor.<t>.<rank>`` (rank 0-5), ``fill_tensor_with_constant.<t>``,
``set_tensor_with_constant_values.<t>``, ``set_tensor_with_values.<t>``,
``make_tensor.<t>``, ``tensor_equal.<t>``,
``tensor_allclose[.3ulp|.1000ulp|.2000ulp|.100000ulp].<t>``, and
``print_tensor``, ``print_tensor_shape``, ``get_tensor_shape``, ``no_op_ht``.
``<t>`` is one of ui8 ui16 ui32 ui64 f32 f64 i8 i32 i64 bool complex64
complex128 (creation only: f16 bf16; TFRT has no ui16 kernels, but its
dialect defines the ui16 ops).

Host buffers (``!ht.host_buffer``, a :class:`HostBufferRef`):
``allocate_buffer``, ``get_buffer`` (a tensor's memory), ``get_buffer_slice``,
``print_buffer`` (``HostBuffer<pointer=0x..., size=N>``); ``make_tensor.<t>``
makes a tensor over a buffer of exactly the right size, sharing its memory::

    %buf = tfrt_dht.allocate_buffer %size, %alignment
    %t, %c1 = tfrt_dht.make_tensor.f32 %buf, %shape, %c0

``create_uninitialized_tensor`` accounts its memory with the HostContext's
allocator as TFRT's ``HostBuffer`` does (a 64-byte header plus the data), so
``--host_allocator_type test_fixed_size_1k`` fails it with ``Cannot allocate
tensor`` and the leak checker sees the tensor until its last use is done.
"""

from __future__ import annotations

import weakref

import numpy as np

from tfrt.kernels.registry import CHAIN, KernelError, kernel, print_line
from tfrt.tensor.dtype import DType
from tfrt.tensor.host_buffer import memory_owner
from tfrt.tensor.host_tensor import (
    DenseHostTensor,
    StringHostTensor,
    Tensor,
    TensorMetadata,
)
from tfrt.tensor.shape import TensorShape

# TFRT's sizeof(HostBuffer): the header HostBuffer::CreateUninitialized
# allocates in front of the data.
HOST_BUFFER_HEADER_BYTES = 64
_TENSOR_ALIGNMENT = 16

# Kernel dtype suffix -> (DType, attribute kind of one element).
DHT_TYPES: dict[str, tuple[DType, str]] = {
    "ui8": (DType.UI8, "ui8"),
    # TFRT's dialect defines the ui16 ops but registers no ui16 kernels.
    "ui16": (DType.UI16, "ui16"),
    "ui32": (DType.UI32, "ui32"),
    "ui64": (DType.UI64, "ui64"),
    "f32": (DType.F32, "f32"),
    "f64": (DType.F64, "f64"),
    "i8": (DType.I8, "i8"),
    "i32": (DType.I32, "i32"),
    "i64": (DType.I64, "i64"),
    "bool": (DType.I1, "i1"),
    "complex64": (DType.COMPLEX64, "complex64"),
    "complex128": (DType.COMPLEX128, "complex128"),
}
CREATION_ONLY_TYPES: dict[str, tuple[DType, str]] = {
    "f16": (DType.F16, "f16"),
    "bf16": (DType.BF16, "bf16"),
}
MAX_CREATE_RANK = 5
ALLCLOSE_ULPS = {"": 2, "3ulp.": 3, "1000ulp.": 1000, "2000ulp.": 2000, "100000ulp.": 100000}


def _charge(ctx, owner, nbytes: int, alignment: int):
    """Charge ``nbytes`` to the HostContext's allocator until ``owner`` dies.

    Raises MemoryError when the host allocator refuses.
    """
    host = ctx.host
    allocation = host.allocate(HOST_BUFFER_HEADER_BYTES + nbytes, alignment)
    fin = weakref.finalize(owner, host.deallocate, allocation)
    fin.atexit = False  # the leak checker must see what is still alive at exit


def create_accounted_tensor(ctx, dtype: DType, dims) -> DenseHostTensor:
    """A new tensor whose bytes are also charged to the HostContext's allocator.

    Raises KernelError("Cannot allocate tensor") when the host allocator refuses.
    """
    meta = TensorMetadata(dtype, TensorShape(dims))
    nbytes = meta.num_elements * dtype.itemsize
    tensor = DenseHostTensor.from_metadata(meta)
    try:
        _charge(ctx, memory_owner(tensor.array), nbytes, _TENSOR_ALIGNMENT)
    except MemoryError:
        raise KernelError("Cannot allocate tensor") from None
    return tensor


def _dense(t, kernel_dtype: DType | None, what: str = "tensor") -> DenseHostTensor:
    if not isinstance(t, DenseHostTensor):
        raise KernelError(f"expected a DenseHostTensor {what}, got {type(t).__name__}")
    if kernel_dtype is not None and t.dtype != kernel_dtype:
        raise KernelError(
            f"{what} has dtype {t.dtype.short_name}, the kernel expects {kernel_dtype.short_name}"
        )
    return t


def _as_elements(values, dtype: DType) -> np.ndarray:
    arr = np.asarray(values)
    if dtype.is_complex and not np.iscomplexobj(arr):
        # Complex constants arrive as interleaved (re, im) floats.
        arr = arr.reshape(-1, 2)
        arr = arr[:, 0] + 1j * arr[:, 1]
    return arr


# --------------------------------------------------------------------------
# registration, one family at a time


def _register_creation(suffix: str, dtype: DType, elem_kind: str) -> None:
    for rank in range(MAX_CREATE_RANK + 1):

        def create(ctx, shape, _dtype=dtype):
            dims = [int(d) for d in np.asarray(shape).reshape(-1)]
            if any(d < 0 for d in dims):
                raise KernelError(f"invalid tensor shape {dims}")
            return create_accounted_tensor(ctx, _dtype, dims)

        kernel(
            f"tfrt_dht.create_uninitialized_tensor.{suffix}.{rank}",
            attrs=("i64[]",),
            context=True,
        )(create)

    def fill(value, tensor, chain, _dtype=dtype):
        t = _dense(tensor, _dtype)
        t.array[...] = value
        return CHAIN

    kernel(f"tfrt_dht.fill_tensor_with_constant.{suffix}", attrs=(elem_kind,))(fill)

    array_kind = "f32[]" if dtype == DType.COMPLEX64 else (
        "f64[]" if dtype == DType.COMPLEX128 else f"{elem_kind}[]"
    )

    def set_constant_values(values, tensor, chain, _dtype=dtype):
        t = _dense(tensor, _dtype)
        vals = np.asarray(values).reshape(-1)
        n = t.num_elements
        if _dtype.is_complex:
            if vals.size != 2 * n:
                raise KernelError(
                    "Incorrect number of real and imaginary values for the complex tensor: "
                    f"{vals.size}, but expected {2 * n}"
                )
        elif vals.size != n:
            raise KernelError(
                f"Incorrect number of values for the tensor: {vals.size}, but expected {n}"
            )
        t.array.reshape(-1)[...] = _as_elements(vals, _dtype)
        return CHAIN

    kernel(f"tfrt_dht.set_tensor_with_constant_values.{suffix}", attrs=(array_kind,))(
        set_constant_values
    )

    def set_values(tensor, chain, *values, _dtype=dtype):
        t = _dense(tensor, _dtype)
        if len(values) != t.num_elements:
            raise KernelError(
                f"Incorrect number of values for the tensor: {len(values)}, "
                f"but expected {t.num_elements}"
            )
        t.array.reshape(-1)[...] = np.asarray(values, dtype=t.array.dtype)
        return CHAIN

    kernel(f"tfrt_dht.set_tensor_with_values.{suffix}")(set_values)

    def make_tensor(buffer, shape, chain, _dtype=dtype):
        buf = _buffer(buffer)
        if not isinstance(shape, TensorShape):
            raise KernelError(f"expected a !ts.shape, got {type(shape).__name__}")
        itemsize = _dtype.itemsize
        if buf.size != shape.num_elements() * itemsize:
            raise KernelError(
                f"dht.make_tensor failed: buffer_size ({buf.size}) is not equal to the number "
                f"of elements in shape ({shape}) times element size ({itemsize})"
            )
        array = buf.data.view(_dtype.np_dtype).reshape(shape.dims)
        return DenseHostTensor(TensorMetadata(_dtype, shape), array), CHAIN

    kernel(f"tfrt_dht.make_tensor.{suffix}")(make_tensor)


def _register_comparison(suffix: str, dtype: DType) -> None:
    def equal(a, b, chain, _dtype=dtype):
        return _dense(a, None).equal(_dense(b, None)), CHAIN

    kernel(f"tfrt_dht.tensor_equal.{suffix}")(equal)

    for prefix, ulp in ALLCLOSE_ULPS.items():

        def allclose(a, b, chain, _ulp=ulp):
            return _dense(a, None).allclose(_dense(b, None), _ulp), CHAIN

        kernel(f"tfrt_dht.tensor_allclose.{prefix}{suffix}")(allclose)


for _suffix, (_dt, _kind) in DHT_TYPES.items():
    _register_creation(_suffix, _dt, _kind)
    _register_comparison(_suffix, _dt)
for _suffix, (_dt, _kind) in CREATION_ONLY_TYPES.items():
    _register_creation(_suffix, _dt, _kind)


@kernel("tfrt_dht.print_tensor")
def print_tensor(tensor, chain):
    """Print any tensor as TFRT does (DenseHostTensor, String, Scalar, Coo, device tensors)."""
    if not hasattr(tensor, "print_text"):
        raise KernelError(f"cannot print a {type(tensor).__name__} as a tensor")
    print_line(tensor.print_text())
    return CHAIN


@kernel("tfrt_dht.print_tensor_shape")
def print_tensor_shape(tensor, chain):
    if not isinstance(tensor, Tensor):
        raise KernelError(f"expected a tensor, got {type(tensor).__name__}")
    print_line(str(tensor.shape))
    return CHAIN


@kernel("tfrt_dht.get_tensor_shape")
def get_tensor_shape(tensor):
    if not isinstance(tensor, Tensor):
        raise KernelError(f"expected a tensor, got {type(tensor).__name__}")
    return tensor.shape


@kernel("tfrt_dht.no_op_ht")
def no_op_ht(tensor):
    return CHAIN


# --------------------------------------------------------------------------
# host buffers (`!ht.host_buffer`)


class HostBufferRef:
    """TFRT's ``RCReference<HostBuffer>``: ``size`` bytes of host memory.

    ``data`` is a uint8 numpy view; it keeps the memory alive, so a slice
    keeps its parent's memory alive and a tensor made from a buffer shares it.
    """

    __slots__ = ("data",)

    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    @property
    def size(self) -> int:
        return int(self.data.size)

    @property
    def address(self) -> int:
        return int(self.data.__array_interface__["data"][0])

    def __str__(self) -> str:
        # llvm::format_hex(ptr, 1): "0x" and the digits, no padding.
        return f"HostBuffer<pointer={self.address:#x}, size={self.size}>"

    def __repr__(self) -> str:
        return f"<{self}>"


def _buffer(value) -> HostBufferRef:
    if not isinstance(value, HostBufferRef):
        raise KernelError(f"expected a !ht.host_buffer, got {type(value).__name__}")
    return value


@kernel("tfrt_dht.allocate_buffer", context=True)
def allocate_buffer(ctx, size, alignment):
    """``size`` uninitialized bytes aligned to ``alignment`` (a power of two)."""
    if size < 0:
        raise KernelError(f"tfrt_dht.allocate_buffer: negative size {size}")
    if alignment <= 0 or alignment & (alignment - 1):
        raise KernelError(f"tfrt_dht.allocate_buffer: alignment {alignment} is not a power of two")
    raw = np.empty(size + alignment - 1, dtype=np.uint8)
    offset = -int(raw.__array_interface__["data"][0]) % alignment
    data = raw[offset : offset + size]
    try:
        _charge(ctx, raw, size, alignment)
    except MemoryError:
        raise KernelError("Cannot allocate host buffer") from None
    return HostBufferRef(data)


@kernel("tfrt_dht.get_buffer")
def get_buffer(tensor, chain):
    """The memory behind a dense host tensor (shared, not copied)."""
    t = _dense(tensor, None)
    array = t.array
    if not array.flags.c_contiguous:
        raise KernelError("tfrt_dht.get_buffer: the tensor's memory is not contiguous")
    return HostBufferRef(array.reshape(-1).view(np.uint8)), CHAIN


@kernel("tfrt_dht.get_buffer_slice")
def get_buffer_slice(parent, offset, size):
    """``size`` bytes of ``parent`` from ``offset`` on, sharing its memory."""
    buf = _buffer(parent)
    if offset < 0 or size < 0 or offset + size > buf.size:
        raise KernelError(
            f"tfrt_dht.get_buffer_slice: [{offset}, {offset + size}) is outside the "
            f"parent buffer of {buf.size} bytes"
        )
    return HostBufferRef(buf.data[offset : offset + size])


@kernel("tfrt_dht.print_buffer")
def print_buffer(buffer, chain):
    print_line(str(_buffer(buffer)))
    return CHAIN


# --------------------------------------------------------------------------
# string host tensors


@kernel("tfrt_sht.create_tensor", attrs=("i64[]", "aggregate"))
def create_string_tensor(shape, values):
    """A StringHostTensor from ``{shape = [2], values = ["a", "b"]}``."""
    dims = [int(d) for d in np.asarray(shape).reshape(-1)]
    items = [v.decode() if isinstance(v, (bytes, bytearray)) else v for v in values]
    if any(not isinstance(v, str) for v in items):
        raise KernelError("tfrt_sht.create_tensor: values must be strings")
    shape_obj = TensorShape(dims)
    if shape_obj.num_elements() != len(items):
        raise KernelError("Shape mismatch")
    return StringHostTensor(shape_obj, items)
