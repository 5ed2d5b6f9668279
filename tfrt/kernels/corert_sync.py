"""Kernels of the ``corert_sync`` dialect: Core Runtime ops in sync functions.

Each kernel calls the `corert` kernel of the same name without the chains
that `corert` threads through op-handler lookup::

    %cpu = corert_sync.get_op_handler "cpu"
    %a = corert_sync.const_dense_tensor dense<[1, 2]> : tensor<2xi32>
    %b = corert_sync.executeop(%cpu) "tfrt_test.add"(%a, %a) : 1

``corert_sync.executeop`` dispatches through the op handler exactly as
``corert.executeop`` does; its result handles are available once their
tensors are (the CPU op handler computes most ops inline).
"""

from __future__ import annotations

from typing import Any, Callable

from tfrt.kernels.registry import CHAIN, DEFINITIONS, KernelDef, kernel
from tfrt.kernels import corert as corert

# TFRT's `corert_sync` dialect defines create_dense_tensor for these dtypes.
SYNC_DENSE_DTYPES = (
    "ui8", "ui16", "ui32", "ui64",
    "i1", "i8", "i16", "i32", "i64",
    "bf16", "f16", "f32", "f64",
    "complex64", "complex128",
)  # fmt: skip


def _corert_kernel(name: str) -> KernelDef:
    """The `corert` kernel registered as ``name`` (the typed ones are closures there)."""
    for kdef in DEFINITIONS.get(corert.__name__, ()):
        if kdef.name == name:
            return kdef
    raise LookupError(f"corert kernel '{name}' is not defined")


def _register_create_dense(dtype: str) -> None:
    create = _corert_kernel(f"corert.create_dense_tensor.{dtype}")

    # A wrapper, not `create.fn` itself: the registry files a kernel under its
    # function's module, and this module's registry must hold it.
    def create_dense_tensor(shape, value, _fn: Callable[..., Any] = create.fn):
        return _fn(shape, value)

    kernel(f"corert_sync.create_dense_tensor.{dtype}", attrs=create.attrs)(create_dense_tensor)


for _dtype in SYNC_DENSE_DTYPES:
    _register_create_dense(_dtype)


@kernel("corert_sync.const_dense_tensor", attrs=("dense",))
def const_dense_tensor(value):
    return corert.const_dense_tensor(value)


@kernel("corert_sync.get_op_handler", attrs=("str",), context=True)
def get_op_handler(ctx, name):
    return corert.get_op_handler(ctx, name, CHAIN)


# Attributes in name order: op_attrs, op_func_attrs (always empty), op_name.
@kernel("corert_sync.executeop", attrs=("aggregate", "aggregate", "str"), kind="async")
def executeop(frame):
    """Run ``op_name`` on the op handler (operand 0) with the remaining operands."""
    corert.executeop(frame)
