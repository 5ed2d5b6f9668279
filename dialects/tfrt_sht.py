"""The `tfrt_sht` (string host tensor) dialect.

TFRT registers the kernel `tfrt_sht.create_tensor` without an op definition,
so its tests write it in generic form; it is defined here with no custom
syntax and with its data as plain (discardable-style) attributes, which is how
TFRT prints an op it does not know.  Other `tfrt_sht` ops are accepted as
unknown ops.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, ArrayAttr, IntegerAttr, StringAttr
from xdsl.irdl import attr_def, result_def

from tfrt.dialects.base import RuntimeDialect, define_op, ops_of_module
from tfrt.dialects.tfrt_tensor import TensorType

CreateTensorOp = define_op(
    __name__,
    "CreateTensorOp",
    "A string host tensor of `shape` holding `values` (row-major).\n\n"
    '    %t = "tfrt_sht.create_tensor"() {shape = [2], values = ["a", "b"]}'
    " : () -> !tfrt_tensor.tensor\n",
    {
        "name": "tfrt_sht.create_tensor",
        "shape": attr_def(ArrayAttr[IntegerAttr[I64]]),
        "values": attr_def(ArrayAttr[StringAttr]),
        "result": result_def(TensorType),
    },
)

TFRT_SHT_OPS = ops_of_module(globals(), __name__)

TFRT_SHT = RuntimeDialect(
    "tfrt_sht", TFRT_SHT_OPS, [], allow_unknown_operations=True, allow_unknown_types=True
)
