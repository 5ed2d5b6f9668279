"""The `tfrt_dht_sync` dialect, after TFRT's ``dense_host_tensor_sync.td``.

The dense host tensor ops for sync functions (``attributes {tfrt.sync}``):
the same tensors, shapes and host buffers as `tfrt_dht`, but no chains.  A
sync function runs its kernels one after the other in program order, so an op
that writes a tensor needs no chain to order later reads::

    func.func @f() attributes {tfrt.sync} {
      %t = tfrt_dht_sync.create_uninitialized_tensor.i32.1 [2 : i64]
      tfrt_dht_sync.set_tensor_with_constant_values.i32 %t [1 : i32, 2 : i32]
      tfrt_dht_sync.print_tensor %t
      tfrt.return
    }

The typed ops exist for each dtype of `DTYPES` (and ranks 0..4 for
`create_uninitialized_tensor`), as TFRT's TableGen ``foreach`` generates them.
Unknown ops and types of the dialect are accepted, as TFRT's dialect allows
them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, ArrayAttr, IntegerAttr, i64
from xdsl.irdl import operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tfrt.dialects.base import RuntimeDialect, define_op, ops_of_module
from tfrt.dialects.ht import HostBufferType
from tfrt.dialects.tfrt_tensor import TensorType
from tfrt.dialects.ts import ShapeType

# TFRT's sync dialect instantiates the same dtypes and ranks as `tfrt_dht`.
from tfrt.dialects.tfrt_dht import DTYPES, RANKS, _camel  # noqa: E402


def _op(class_name: str, doc: str, body: dict[str, object]) -> type:
    return define_op(__name__, class_name, doc, body)


def _create_uninitialized(dtype: str, rank: int) -> type:
    shape = ", ".join(["2 : i64"] * rank)
    return _op(
        f"SyncCreateUninitializedTensor{_camel(dtype)}Rank{rank}Op",
        f"A new rank-{rank} {dtype} tensor of the given shape; its contents are undefined.\n\n"
        f"    %t = tfrt_dht_sync.create_uninitialized_tensor.{dtype}.{rank} [{shape}]\n",
        {
            "name": f"tfrt_dht_sync.create_uninitialized_tensor.{dtype}.{rank}",
            "shape": prop_def(ArrayAttr[IntegerAttr[I64]]),
            "result": result_def(TensorType),
            "traits": traits_def(Pure()),
            "assembly_format": "$shape attr-dict",
        },
    )


def _set_values(dtype: str) -> type:
    return _op(
        f"SyncSetTensorWithConstantValues{_camel(dtype)}Op",
        f"Sets the elements of a {dtype} tensor, in row-major order, from `values`.\n\n"
        f"    tfrt_dht_sync.set_tensor_with_constant_values.{dtype} %t [1 : i32]\n",
        {
            "name": f"tfrt_dht_sync.set_tensor_with_constant_values.{dtype}",
            "tensor": operand_def(TensorType),
            "values": prop_def(ArrayAttr),
            "assembly_format": "$tensor $values attr-dict",
        },
    )


def _make_tensor(dtype: str) -> type:
    return _op(
        f"SyncMakeTensor{_camel(dtype)}Op",
        f"A {dtype} tensor of the given shape that shares the memory of a host buffer;\n"
        "the buffer's size must be exactly the tensor's.\n\n"
        f"    %t = tfrt_dht_sync.make_tensor.{dtype} %buffer, %shape\n",
        {
            "name": f"tfrt_dht_sync.make_tensor.{dtype}",
            "buffer": operand_def(HostBufferType),
            "shape": operand_def(ShapeType),
            "tensor": result_def(TensorType),
            "assembly_format": "operands attr-dict",
        },
    )


CREATE_UNINITIALIZED_TENSOR_OPS = {
    (dtype, rank): _create_uninitialized(dtype, rank) for dtype in DTYPES for rank in RANKS
}
SET_TENSOR_OPS = {dtype: _set_values(dtype) for dtype in DTYPES}
MAKE_TENSOR_OPS = {dtype: _make_tensor(dtype) for dtype in DTYPES}
for _family in (CREATE_UNINITIALIZED_TENSOR_OPS, SET_TENSOR_OPS, MAKE_TENSOR_OPS):
    globals().update({cls.__name__: cls for cls in _family.values()})

SyncPrintTensorOp = _op(
    "SyncPrintTensorOp",
    "Prints a host tensor (``DenseHostTensor dtype = i32, shape = [2], values = [1, 2]``).\n\n"
    "    tfrt_dht_sync.print_tensor %t\n",
    {
        "name": "tfrt_dht_sync.print_tensor",
        "tensor": operand_def(TensorType),
        "assembly_format": "operands attr-dict",
    },
)
SyncAllocateBufferOp = _op(
    "SyncAllocateBufferOp",
    "A new host buffer of `size` bytes with the given alignment (a power of two).\n\n"
    "    %buf = tfrt_dht_sync.allocate_buffer %size, %alignment\n",
    {
        "name": "tfrt_dht_sync.allocate_buffer",
        "size": operand_def(i64),
        "alignment": operand_def(i64),
        "buffer": result_def(HostBufferType),
        "assembly_format": "operands attr-dict",
    },
)
SyncGetTensorShapeOp = _op(
    "SyncGetTensorShapeOp",
    "The shape of a host tensor.\n\n    %s = tfrt_dht_sync.get_tensor_shape %t\n",
    {
        "name": "tfrt_dht_sync.get_tensor_shape",
        "tensor": operand_def(TensorType),
        "shape": result_def(ShapeType),
        "traits": traits_def(Pure()),
        "assembly_format": "operands attr-dict",
    },
)
SyncGetBufferSliceOp = _op(
    "SyncGetBufferSliceOp",
    "A buffer that views `size` bytes of a parent buffer from `offset` on.\n\n"
    "    %slice = tfrt_dht_sync.get_buffer_slice %buf, %offset, %size\n",
    {
        "name": "tfrt_dht_sync.get_buffer_slice",
        "parent_buffer": operand_def(HostBufferType),
        "offset": operand_def(i64),
        "size": operand_def(i64),
        "buffer": result_def(HostBufferType),
        "assembly_format": "operands attr-dict",
    },
)

TFRT_DHT_SYNC_OPS = ops_of_module(globals(), __name__)

TFRT_DHT_SYNC = RuntimeDialect(
    "tfrt_dht_sync",
    TFRT_DHT_SYNC_OPS,
    [],
    allow_unknown_operations=True,
    allow_unknown_types=True,
)
