"""Kernels of the ``tfrt_dht_sync`` dialect: `tfrt_dht` for sync functions.

A sync function (``attributes {tfrt.sync}``) runs its kernels in program
order, so these kernels take and return no chains; otherwise each one is the
`tfrt_dht` kernel of the same name (this module calls it, so the two cannot
drift apart)::

    %t = tfrt_dht_sync.create_uninitialized_tensor.i32.1 [2 : i64]
    tfrt_dht_sync.set_tensor_with_constant_values.i32 %t [1 : i32, 2 : i32]
    tfrt_dht_sync.print_tensor %t
    // DenseHostTensor dtype = i32, shape = [2], values = [1, 2]

Families: ``create_uninitialized_tensor.<t>.<rank>`` (rank 0-4),
``set_tensor_with_constant_values.<t>``, ``make_tensor.<t>`` for the dtypes of
TFRT's sync dialect (`tfrt.dialects.tfrt_dht_sync.DTYPES`), and
``print_tensor``, ``allocate_buffer``, ``get_buffer_slice``,
``get_tensor_shape``.
"""

from __future__ import annotations

from typing import Any, Callable

from tfrt.kernels.registry import CHAIN, DEFINITIONS, KernelDef, KernelError, kernel
from tfrt.kernels import tfrt_dht as dht

# The dtypes and ranks of TFRT's `dense_host_tensor_sync.td` (kept here rather
# than imported: the runtime does not import the compiler's dialects).
SYNC_DTYPES = ("ui8", "ui16", "ui32", "ui64", "i32", "f32", "i64", "bool", "complex64", "complex128")
SYNC_RANKS = (0, 1, 2, 3, 4)


def _dht_kernel(name: str) -> KernelDef:
    """The `tfrt_dht` kernel registered as ``name`` (families are closures there)."""
    for kdef in DEFINITIONS.get(dht.__name__, ()):
        if kdef.name == name:
            return kdef
    raise LookupError(f"tfrt_dht kernel '{name}' is not defined")


def _register_typed(dtype: str) -> None:
    for rank in SYNC_RANKS:
        create = _dht_kernel(f"tfrt_dht.create_uninitialized_tensor.{dtype}.{rank}")

        # A wrapper, not `create.fn` itself: the registry files a kernel under
        # its function's module, and this module's registry must hold it.
        def create_uninitialized(ctx, shape, _fn: Callable[..., Any] = create.fn):
            return _fn(ctx, shape)

        kernel(
            f"tfrt_dht_sync.create_uninitialized_tensor.{dtype}.{rank}",
            attrs=create.attrs,
            context=True,
        )(create_uninitialized)

    set_values = _dht_kernel(f"tfrt_dht.set_tensor_with_constant_values.{dtype}")

    def set_constant_values(values, tensor, _fn: Callable[..., Any] = set_values.fn):
        _fn(values, tensor, CHAIN)

    kernel(f"tfrt_dht_sync.set_tensor_with_constant_values.{dtype}", attrs=set_values.attrs)(
        set_constant_values
    )

    make = _dht_kernel(f"tfrt_dht.make_tensor.{dtype}")

    def make_tensor(buffer, shape, _fn: Callable[..., Any] = make.fn):
        try:
            tensor, _ = _fn(buffer, shape, CHAIN)
        except KernelError as exc:
            # TFRT's sync kernel names itself in the size mismatch message.
            message = exc.message.replace(
                "dht.make_tensor failed", "tfrt_dht_sync.make_tensor failed", 1
            )
            raise KernelError(message, exc.code) from None
        return tensor

    kernel(f"tfrt_dht_sync.make_tensor.{dtype}")(make_tensor)


for _dtype in SYNC_DTYPES:
    _register_typed(_dtype)


@kernel("tfrt_dht_sync.print_tensor")
def print_tensor(tensor):
    dht.print_tensor(tensor, CHAIN)


@kernel("tfrt_dht_sync.get_tensor_shape")
def get_tensor_shape(tensor):
    return dht.get_tensor_shape(tensor)


@kernel("tfrt_dht_sync.allocate_buffer", context=True)
def allocate_buffer(ctx, size, alignment):
    return dht.allocate_buffer(ctx, size, alignment)


@kernel("tfrt_dht_sync.get_buffer_slice")
def get_buffer_slice(parent, offset, size):
    return dht.get_buffer_slice(parent, offset, size)
