"""The `ts` (tensor shape) dialect, after TFRT's ``tensor_shape.td``.

Types: ``!ts.shape`` (a static shape), ``!ts.partial_shape`` (unknown rank or
dimensions allowed) and ``!ts.fixed_rank_shape.N`` for N in 0..3 (TFRT spells
those as opaque types; they are registered here so that they verify).  Other
``!ts.*`` types are accepted, as TFRT's ``allowUnknownTypes()`` does; unknown
ops are not.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, ArrayAttr, IntegerAttr, i1, i32, i64
from xdsl.irdl import operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tfrt.dialects.base import RuntimeDialect, define_op, define_type, ops_of_module
from tfrt.dialects.tfrt import ChainType

ShapeType = define_type(
    __name__, "ShapeType", "ts.shape", "``!ts.shape``: a static tensor shape."
)
PartialShapeType = define_type(
    __name__,
    "PartialShapeType",
    "ts.partial_shape",
    "``!ts.partial_shape``: a shape of unknown rank or with unknown dimensions.",
)
FIXED_RANK_SHAPE_TYPES = {
    rank: define_type(
        __name__,
        f"FixedRankShape{rank}Type",
        f"ts.fixed_rank_shape.{rank}",
        f"``!ts.fixed_rank_shape.{rank}``: a static shape of rank {rank}.",
        "fixed_rank_shape",
    )
    for rank in range(4)
}


def _op(class_name: str, doc: str, body: dict[str, object]) -> type:
    return define_op(__name__, class_name, doc, body)


BuildShapeOp = _op(
    "BuildShapeOp",
    "A static shape from the `value` list of extents.\n\n"
    "    %s = ts.build_shape [1 : i64, 57 : i64, 92 : i64]\n",
    {
        "name": "ts.build_shape",
        "value": prop_def(ArrayAttr[IntegerAttr[I64]]),
        "output": result_def(ShapeType),
        "traits": traits_def(Pure()),
        "assembly_format": "$value attr-dict",
    },
)
EqualShapeOp = _op(
    "EqualShapeOp",
    "Whether two static shapes are equal.\n\n    %eq = ts.equal_shape %a, %b\n",
    {
        "name": "ts.equal_shape",
        "lhs": operand_def(ShapeType),
        "rhs": operand_def(ShapeType),
        "result": result_def(i1),
        "assembly_format": "operands attr-dict",
    },
)
GetDimensionOp = _op(
    "GetDimensionOp",
    "The extent of a shape at an index.\n\n    %d = ts.get_dimension %s, %i\n",
    {
        "name": "ts.get_dimension",
        "shape": operand_def(ShapeType),
        "index": operand_def(i32),
        "result": result_def(i64),
        "assembly_format": "operands attr-dict",
    },
)
GetNumElementsOp = _op(
    "GetNumElementsOp",
    "The number of elements of a shape.\n\n    %n = ts.get_num_elements %s\n",
    {
        "name": "ts.get_num_elements",
        "shape": operand_def(ShapeType),
        "result": result_def(i64),
        "assembly_format": "operands attr-dict",
    },
)
PrintShapeOp = _op(
    "PrintShapeOp",
    "Prints a shape (``shape = [1, 57, 92]``); returns a chain.\n\n"
    "    %ch1 = ts.print_shape %s, %ch0\n",
    {
        "name": "ts.print_shape",
        "shape": operand_def(ShapeType),
        "in_ch": operand_def(ChainType),
        "out_ch": result_def(ChainType),
        "assembly_format": "operands attr-dict",
    },
)

AS_FIXED_RANK_SHAPE_OPS = {
    rank: _op(
        f"AsFixedRankShape{rank}Op",
        f"Converts a shape of rank {rank} to a fixed-rank shape.\n\n"
        f"    %f = ts.as_fixed_rank_shape.{rank} %s\n",
        {
            "name": f"ts.as_fixed_rank_shape.{rank}",
            "shape": operand_def(ShapeType),
            "output": result_def(FIXED_RANK_SHAPE_TYPES[rank]),
            "traits": traits_def(Pure()),
            "assembly_format": "operands attr-dict",
        },
    )
    for rank in range(4)
}
PRINT_FIXED_RANK_SHAPE_OPS = {
    rank: _op(
        f"PrintFixedRankShape{rank}Op",
        f"Prints a fixed-rank shape (``fixed_rank_shape = [...]``); returns a chain.\n\n"
        f"    %ch1 = ts.print_fixed_rank_shape.{rank} %f, %ch0\n",
        {
            "name": f"ts.print_fixed_rank_shape.{rank}",
            "shape": operand_def(FIXED_RANK_SHAPE_TYPES[rank]),
            "in_ch": operand_def(ChainType),
            "out_ch": result_def(ChainType),
            "assembly_format": "operands attr-dict",
        },
    )
    for rank in range(4)
}
globals().update({cls.__name__: cls for cls in AS_FIXED_RANK_SHAPE_OPS.values()})
globals().update({cls.__name__: cls for cls in PRINT_FIXED_RANK_SHAPE_OPS.values()})

BuildPartialShapeOp = _op(
    "BuildPartialShapeOp",
    "A partial shape from `value`; -1 marks an unknown extent.\n\n"
    "    %p = ts.build_partial_shape [-1 : i64, 57 : i64]\n",
    {
        "name": "ts.build_partial_shape",
        "value": prop_def(ArrayAttr[IntegerAttr[I64]]),
        "output": result_def(PartialShapeType),
        "traits": traits_def(Pure()),
        "assembly_format": "$value attr-dict",
    },
)
BuildUnrankedPartialShapeOp = _op(
    "BuildUnrankedPartialShapeOp",
    "A partial shape of unknown rank.\n\n    %u = ts.build_unranked_partial_shape\n",
    {
        "name": "ts.build_unranked_partial_shape",
        "output": result_def(PartialShapeType),
        "traits": traits_def(Pure()),
        "assembly_format": "attr-dict",
    },
)
PrintPartialShapeOp = _op(
    "PrintPartialShapeOp",
    "Prints a partial shape (``partial_tensor_shape = [-1, 57]``); returns a chain.\n\n"
    "    %ch1 = ts.print_partial_shape %p, %ch0\n",
    {
        "name": "ts.print_partial_shape",
        "shape": operand_def(PartialShapeType),
        "in_ch": operand_def(ChainType),
        "out_ch": result_def(ChainType),
        "assembly_format": "operands attr-dict",
    },
)
ToShapeOp = _op(
    "ToShapeOp",
    "Converts a partial shape to a static one; fails if it has unknown parts.\n\n"
    "    %s = ts.to_shape %p\n",
    {
        "name": "ts.to_shape",
        "shape": operand_def(PartialShapeType),
        "output": result_def(ShapeType),
        "assembly_format": "operands attr-dict",
    },
)
ToPartialShapeOp = _op(
    "ToPartialShapeOp",
    "Converts a static shape to a partial one.\n\n    %p = ts.to_partial_shape %s\n",
    {
        "name": "ts.to_partial_shape",
        "shape": operand_def(ShapeType),
        "output": result_def(PartialShapeType),
        "assembly_format": "operands attr-dict",
    },
)

TS_OPS = ops_of_module(globals(), __name__)

TS = RuntimeDialect(
    "ts",
    TS_OPS,
    [ShapeType, PartialShapeType, *FIXED_RANK_SHAPE_TYPES.values()],
    allow_unknown_types=True,
)
