"""The `coo` (COO sparse host tensor) dialect, after TFRT's ``coo_host_tensor.td``.

Conversions between dense and COO tensors and a COO equality test exist for
dtypes i32 and f32 and ranks 0..3, so the ops are generated per dtype and
rank.  Unknown ops and types of the dialect are accepted, as TFRT's
``allowUnknownOperations()`` does.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i1
from xdsl.irdl import operand_def, result_def

from tfrt.dialects.base import RuntimeDialect, define_op, ops_of_module
from tfrt.dialects.tfrt import ChainType
from tfrt.dialects.tfrt_tensor import TensorType

DTYPES = ("i32", "f32")
RANKS = (0, 1, 2, 3)


def _op(class_name: str, doc: str, body: dict[str, object]) -> type:
    return define_op(__name__, class_name, doc, body)


def _convert(direction: str, dtype: str, rank: int) -> type:
    source, target = direction.split("_to_")
    class_part = "CooToDht" if source == "coo" else "DhtToCoo"
    return _op(
        f"Convert{class_part}{dtype.upper()}Rank{rank}Op",
        f"Converts a rank-{rank} {dtype} {source.upper()} tensor to a {target.upper()} tensor; "
        f"the chains order it.\n\n"
        f"    %t2, %ch1 = coo.convert_{direction}.{dtype}.{rank} %t, %ch0\n",
        {
            "name": f"coo.convert_{direction}.{dtype}.{rank}",
            "tensor": operand_def(TensorType),
            "in_chain": operand_def(ChainType),
            "result": result_def(TensorType),
            "out_chain": result_def(ChainType),
            "assembly_format": "operands attr-dict",
        },
    )


def _tensor_equal(dtype: str, rank: int) -> type:
    return _op(
        f"TensorEqual{dtype.upper()}Rank{rank}Op",
        f"Whether two rank-{rank} {dtype} COO tensors are equal.\n\n"
        f"    %eq, %ch1 = coo.tensor_equal.{dtype}.{rank} %a, %b, %ch0\n",
        {
            "name": f"coo.tensor_equal.{dtype}.{rank}",
            "lhs": operand_def(TensorType),
            "rhs": operand_def(TensorType),
            "in_chain": operand_def(ChainType),
            "equal": result_def(i1),
            "out_chain": result_def(ChainType),
            "assembly_format": "operands attr-dict",
        },
    )


CONVERT_COO_TO_DHT_OPS = {
    (dtype, rank): _convert("coo_to_dht", dtype, rank) for dtype in DTYPES for rank in RANKS
}
CONVERT_DHT_TO_COO_OPS = {
    (dtype, rank): _convert("dht_to_coo", dtype, rank) for dtype in DTYPES for rank in RANKS
}
TENSOR_EQUAL_OPS = {(dtype, rank): _tensor_equal(dtype, rank) for dtype in DTYPES for rank in RANKS}
for _family in (CONVERT_COO_TO_DHT_OPS, CONVERT_DHT_TO_COO_OPS, TENSOR_EQUAL_OPS):
    globals().update({cls.__name__: cls for cls in _family.values()})

PrintTensorOp = _op(
    "PrintTensorOp",
    "Prints a COO tensor; returns a chain.\n\n    %ch1 = coo.print_tensor %t, %ch0\n",
    {
        "name": "coo.print_tensor",
        "tensor": operand_def(TensorType),
        "in_chain": operand_def(ChainType),
        "out_chain": result_def(ChainType),
        "assembly_format": "operands attr-dict",
    },
)

COO_OPS = ops_of_module(globals(), __name__)

COO = RuntimeDialect(
    "coo", COO_OPS, [], allow_unknown_operations=True, allow_unknown_types=True
)
