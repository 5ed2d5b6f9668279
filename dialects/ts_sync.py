"""The `ts_sync` dialect, after TFRT's ``tensor_shape_sync.td``.

The tensor shape ops for sync functions (``attributes {tfrt.sync}``).  They
work on the `ts` dialect's ``!ts.shape`` and ``!ts.partial_shape`` values
(TFRT's sync dialect defines no types of its own)::

    func.func @f() -> i64 attributes {tfrt.sync} {
      %p = ts_sync.build_partial_shape [2 : i64, 3 : i64]
      %s = ts_sync.to_shape %p
      %n = ts_sync.get_num_elements %s
      tfrt.return %n : i64
    }
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, ArrayAttr, IntegerAttr, i64
from xdsl.irdl import operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tfrt.dialects.base import RuntimeDialect, define_op, ops_of_module
from tfrt.dialects.ts import PartialShapeType, ShapeType


def _op(class_name: str, doc: str, body: dict[str, object]) -> type:
    return define_op(__name__, class_name, doc, body)


SyncBuildShapeOp = _op(
    "SyncBuildShapeOp",
    "A static shape from the `value` list of extents.\n\n"
    "    %s = ts_sync.build_shape [1 : i64, 57 : i64, 92 : i64]\n",
    {
        "name": "ts_sync.build_shape",
        "value": prop_def(ArrayAttr[IntegerAttr[I64]]),
        "output": result_def(ShapeType),
        "traits": traits_def(Pure()),
        "assembly_format": "$value attr-dict",
    },
)
SyncGetNumElementsOp = _op(
    "SyncGetNumElementsOp",
    "The number of elements of a static shape.\n\n    %n = ts_sync.get_num_elements %s\n",
    {
        "name": "ts_sync.get_num_elements",
        "shape": operand_def(ShapeType),
        "result": result_def(i64),
        "assembly_format": "operands attr-dict",
    },
)
SyncBuildPartialShapeOp = _op(
    "SyncBuildPartialShapeOp",
    "A partial shape from `value`; -1 marks an unknown extent.\n\n"
    "    %p = ts_sync.build_partial_shape [-1 : i64, 57 : i64]\n",
    {
        "name": "ts_sync.build_partial_shape",
        "value": prop_def(ArrayAttr[IntegerAttr[I64]]),
        "output": result_def(PartialShapeType),
        "traits": traits_def(Pure()),
        "assembly_format": "$value attr-dict",
    },
)
SyncToShapeOp = _op(
    "SyncToShapeOp",
    "Converts a partial shape to a static one; fails if it has unknown parts.\n\n"
    "    %s = ts_sync.to_shape %p\n",
    {
        "name": "ts_sync.to_shape",
        "shape": operand_def(PartialShapeType),
        "output": result_def(ShapeType),
        "assembly_format": "operands attr-dict",
    },
)
SyncToPartialShapeOp = _op(
    "SyncToPartialShapeOp",
    "Converts a static shape to a partial one.\n\n    %p = ts_sync.to_partial_shape %s\n",
    {
        "name": "ts_sync.to_partial_shape",
        "shape": operand_def(ShapeType),
        "output": result_def(PartialShapeType),
        "assembly_format": "operands attr-dict",
    },
)

TS_SYNC_OPS = ops_of_module(globals(), __name__)

TS_SYNC = RuntimeDialect("ts_sync", TS_SYNC_OPS, [])
