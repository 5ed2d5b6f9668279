"""The `btf` dialect: readers of TFRT's binary tensor format (BTF) files.

TFRT registers ``btf.read_dense_tensor.<dtype>.<rank>`` as kernels without op
definitions (its tests write them in generic form), so these ops have no
custom syntax.  Each reads record `index` of the BTF file at `path` into a
dense host tensor, checking the record's dtype and rank.  Other `btf` ops are
accepted as unknown ops.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i32
from xdsl.irdl import operand_def, result_def

from tfrt.dialects.base import RuntimeDialect, define_op, ops_of_module
from tfrt.dialects.tfrt import StringType
from tfrt.dialects.tfrt_tensor import TensorType

DTYPES = ("f32", "i32", "i64", "i8", "ui8")
RANKS = (0, 1, 2, 3, 4)


def _read_dense_tensor(dtype: str, rank: int) -> type:
    camel = dtype.upper()
    return define_op(
        __name__,
        f"ReadDenseTensor{camel}Rank{rank}Op",
        f"Reads record `index` of a BTF file as a rank-{rank} {dtype} dense host tensor.\n\n"
        f'    %t = "btf.read_dense_tensor.{dtype}.{rank}"(%path, %index)'
        " : (!tfrt.string, i32) -> !tfrt_tensor.tensor\n",
        {
            "name": f"btf.read_dense_tensor.{dtype}.{rank}",
            "path": operand_def(StringType),
            "index": operand_def(i32),
            "result": result_def(TensorType),
        },
    )


READ_DENSE_TENSOR_OPS = {
    (dtype, rank): _read_dense_tensor(dtype, rank) for dtype in DTYPES for rank in RANKS
}
globals().update({cls.__name__: cls for cls in READ_DENSE_TENSOR_OPS.values()})

BTF_OPS = ops_of_module(globals(), __name__)

BTF = RuntimeDialect("btf", BTF_OPS, [], allow_unknown_operations=True, allow_unknown_types=True)
