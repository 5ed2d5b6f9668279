"""The `tfrt_dht` (dense host tensor) dialect, after TFRT's ``dense_host_tensor.td``.

The typed kernels exist for each dtype of `DTYPES` (and each rank 0..4 for
`create_uninitialized_tensor`), so the ops are generated per dtype, as TFRT's
TableGen ``foreach`` does.  Unknown ops and types of the dialect are accepted
(TFRT's ``allowUnknownOperations()``): kernels without an op definition, such as
``"tfrt_dht.tensor_allclose.f32"``, are written in generic form.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, ArrayAttr, IntegerAttr, i1, i64
from xdsl.irdl import operand_def, prop_def, result_def, traits_def
from xdsl.irdl.constraints import AnyAttr
from xdsl.traits import Pure

from tfrt.dialects.base import RuntimeDialect, define_op, ops_of_module
from tfrt.dialects.ht import HostBufferType
from tfrt.dialects.tfrt import ChainType
from tfrt.dialects.tfrt_tensor import TensorType
from tfrt.dialects.ts import ShapeType

DTYPES = ("ui8", "ui16", "ui32", "ui64", "i32", "f32", "i64", "bool", "complex64", "complex128")
RANKS = (0, 1, 2, 3, 4)


def _camel(dtype: str) -> str:
    return dtype.upper() if dtype[0] in "iuf" else dtype.capitalize()


def _op(class_name: str, doc: str, body: dict[str, object]) -> type:
    return define_op(__name__, class_name, doc, body)


def _create_uninitialized(dtype: str, rank: int) -> type:
    shape = ", ".join(["2 : i64"] * rank)
    return _op(
        f"CreateUninitializedTensor{_camel(dtype)}Rank{rank}Op",
        f"A new rank-{rank} {dtype} tensor of the given shape; its contents are undefined.\n\n"
        f"    %t = tfrt_dht.create_uninitialized_tensor.{dtype}.{rank} [{shape}]\n",
        {
            "name": f"tfrt_dht.create_uninitialized_tensor.{dtype}.{rank}",
            "shape": prop_def(ArrayAttr[IntegerAttr[I64]]),
            "result": result_def(TensorType),
            "traits": traits_def(Pure()),
            "assembly_format": "$shape attr-dict",
        },
    )


def _fill(dtype: str) -> type:
    return _op(
        f"FillTensorWithConstant{_camel(dtype)}Op",
        f"Fills a {dtype} tensor with `value` once the chain is ready; returns a chain.\n\n"
        f"    %ch1 = tfrt_dht.fill_tensor_with_constant.{dtype} %t, %ch0 0 : {dtype}\n",
        {
            "name": f"tfrt_dht.fill_tensor_with_constant.{dtype}",
            "tensor": operand_def(TensorType),
            "in_chain": operand_def(ChainType),
            "value": prop_def(AnyAttr()),
            "out_chain": result_def(ChainType),
            "assembly_format": "operands $value attr-dict",
        },
    )


def _make_tensor(dtype: str) -> type:
    return _op(
        f"MakeTensor{_camel(dtype)}Op",
        f"A {dtype} tensor of the given shape that shares the memory of a host buffer.\n\n"
        f"    %t, %ch1 = tfrt_dht.make_tensor.{dtype} %buffer, %shape, %ch0\n",
        {
            "name": f"tfrt_dht.make_tensor.{dtype}",
            "buffer": operand_def(HostBufferType),
            "shape": operand_def(ShapeType),
            "in_chain": operand_def(ChainType),
            "tensor": result_def(TensorType),
            "out_chain": result_def(ChainType),
            "assembly_format": "operands attr-dict",
        },
    )


def _set_values(dtype: str) -> type:
    return _op(
        f"SetTensorWithConstantValues{_camel(dtype)}Op",
        f"Sets the elements of a {dtype} tensor from the `values` list; returns a chain.\n\n"
        f"    %ch1 = tfrt_dht.set_tensor_with_constant_values.{dtype} %t, %ch0 [1 : i32]\n",
        {
            "name": f"tfrt_dht.set_tensor_with_constant_values.{dtype}",
            "tensor": operand_def(TensorType),
            "in_chain": operand_def(ChainType),
            "values": prop_def(ArrayAttr),
            "out_chain": result_def(ChainType),
            "assembly_format": "operands $values attr-dict",
        },
    )


def _tensor_equal(dtype: str) -> type:
    return _op(
        f"TensorEqual{_camel(dtype)}Op",
        f"Whether two {dtype} tensors are equal; the chain orders later writes.\n\n"
        f"    %eq, %ch1 = tfrt_dht.tensor_equal.{dtype} %a, %b, %ch0\n",
        {
            "name": f"tfrt_dht.tensor_equal.{dtype}",
            "lhs": operand_def(TensorType),
            "rhs": operand_def(TensorType),
            "in_chain": operand_def(ChainType),
            "equal": result_def(i1),
            "out_chain": result_def(ChainType),
            "assembly_format": "operands attr-dict",
        },
    )


CREATE_UNINITIALIZED_TENSOR_OPS = {
    (dtype, rank): _create_uninitialized(dtype, rank) for dtype in DTYPES for rank in RANKS
}
FILL_TENSOR_OPS = {dtype: _fill(dtype) for dtype in DTYPES}
MAKE_TENSOR_OPS = {dtype: _make_tensor(dtype) for dtype in DTYPES}
SET_TENSOR_OPS = {dtype: _set_values(dtype) for dtype in DTYPES}
TENSOR_EQUAL_OPS = {dtype: _tensor_equal(dtype) for dtype in DTYPES}
for _family in (
    CREATE_UNINITIALIZED_TENSOR_OPS,
    FILL_TENSOR_OPS,
    MAKE_TENSOR_OPS,
    SET_TENSOR_OPS,
    TENSOR_EQUAL_OPS,
):
    globals().update({cls.__name__: cls for cls in _family.values()})

PrintTensorOp = _op(
    "PrintTensorOp",
    "Prints any host tensor (``DenseHostTensor dtype = i32, shape = [2], values = [1, 2]``);\n"
    "returns a chain.\n\n"
    "    %ch1 = tfrt_dht.print_tensor %t, %ch0\n",
    {
        "name": "tfrt_dht.print_tensor",
        "tensor": operand_def(TensorType),
        "in_chain": operand_def(ChainType),
        "out_chain": result_def(ChainType),
        "assembly_format": "operands attr-dict",
    },
)
AllocateBufferOp = _op(
    "AllocateBufferOp",
    "A new host buffer of `size` bytes with the given alignment.\n\n"
    "    %buf = tfrt_dht.allocate_buffer %size, %alignment\n",
    {
        "name": "tfrt_dht.allocate_buffer",
        "size": operand_def(i64),
        "alignment": operand_def(i64),
        "buffer": result_def(HostBufferType),
        "assembly_format": "operands attr-dict",
    },
)
GetBufferOp = _op(
    "GetBufferOp",
    "The host buffer behind a dense host tensor.\n\n"
    "    %buf, %ch1 = tfrt_dht.get_buffer %t, %ch0\n",
    {
        "name": "tfrt_dht.get_buffer",
        "tensor": operand_def(TensorType),
        "in_chain": operand_def(ChainType),
        "buffer": result_def(HostBufferType),
        "out_chain": result_def(ChainType),
        "assembly_format": "operands attr-dict",
    },
)
GetBufferSliceOp = _op(
    "GetBufferSliceOp",
    "A buffer that views `size` bytes of a parent buffer from `offset` on.\n\n"
    "    %slice = tfrt_dht.get_buffer_slice %buf, %offset, %size\n",
    {
        "name": "tfrt_dht.get_buffer_slice",
        "parent_buffer": operand_def(HostBufferType),
        "offset": operand_def(i64),
        "size": operand_def(i64),
        "buffer": result_def(HostBufferType),
        "assembly_format": "operands attr-dict",
    },
)
PrintBufferOp = _op(
    "PrintBufferOp",
    "Prints the bytes of a host buffer; returns a chain.\n\n"
    "    %ch1 = tfrt_dht.print_buffer %buf, %ch0\n",
    {
        "name": "tfrt_dht.print_buffer",
        "buffer": operand_def(HostBufferType),
        "in_chain": operand_def(ChainType),
        "out_chain": result_def(ChainType),
        "assembly_format": "operands attr-dict",
    },
)
GetTensorShapeOp = _op(
    "GetTensorShapeOp",
    "The shape of a dense host tensor.\n\n    %s = tfrt_dht.get_tensor_shape %t\n",
    {
        "name": "tfrt_dht.get_tensor_shape",
        "tensor": operand_def(TensorType),
        "shape": result_def(ShapeType),
        "traits": traits_def(Pure()),
        "assembly_format": "operands attr-dict",
    },
)

TFRT_DHT_OPS = ops_of_module(globals(), __name__)

TFRT_DHT = RuntimeDialect(
    "tfrt_dht",
    TFRT_DHT_OPS,
    [],
    allow_unknown_operations=True,
    allow_unknown_types=True,
)
