"""The `linalg` dialect as the compiler reads it.

xDSL's ``generic``, ``yield``, ``index``, ``transpose``, ``broadcast`` and
``reduce``, and every named op of MLIR's linalg from
:mod:`tfrt.dialects.linalg_named` (one table: matmul and its batched,
transposed, vector and quantized forms, ``contract``, ``mmt4d``, every
convolution, depthwise convolution and pooling layout, ``fill``, ``copy``,
``fill_rng_2d``, ``elementwise`` and the elementwise named ops).  Those
replace xDSL's own named ops, which build their bodies without the casts
MLIR's OpDSL puts there (``linalg.matmul`` of ``i8`` into ``i32`` failed to
verify).  The Winograd ops are not defined.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntElementsAttr
from xdsl.dialects.linalg import Linalg as _XdslLinalg
from xdsl.ir import Attribute, Dialect

from tfrt.dialects.linalg_named import ATTRIBUTES, OPS, PREFIXED, WINDOW_2D, IndexOp, MapOp
from tfrt.dialects.linalg_relayout import RELAYOUT_OPS

# The frontend's grammar for these takes the prefix MLIR writes before the
# attribute dictionary (`kind=...`, `indexing_maps = [...]`); the format is
# the frontend's only (xDSL parses and prints them with the class's own code).
_PREFIX = {
    "linalg.elementwise": "`kind` `=` qualified($kind) (`indexing_maps` `=` $indexing_maps^)? ",
    "linalg.contract": "`indexing_maps` `=` $indexing_maps ",
    # Read by the frontend once its table of standard formats leaves matmul
    # to the op (it gives matmul the shared named-op syntax, without the prefix).
    "linalg.matmul": "(`indexing_maps` `=` $indexing_maps^)? ",
    "linalg.batch_matmul": "(`indexing_maps` `=` $indexing_maps^)? ",
    "linalg.batch_reduce_matmul": "(`indexing_maps` `=` $indexing_maps^)? ",
}
_NAMED_FORMAT = (
    "custom<LinalgProps>() attr-dict custom<LinalgNamedOperands>($inputs, type($inputs), $outputs, "
    "type($outputs), type($res)) custom<LinalgNamedBody>($body)"
)
for _name, _prefix in _PREFIX.items():
    OPS[_name].get_irdl_definition().assembly_format = _prefix + _NAMED_FORMAT
# linalg.map's long form, with the reduce op's pieces: ins, outs, attributes,
# then the body's arguments and the body.
MapOp.get_irdl_definition().assembly_format = (
    "custom<LinalgReduceOperands>($inputs, type($inputs), $init, type($init), type($result), ref($mapper)) "
    "attr-dict custom<LinalgReduceBody>($mapper)"
)

#: Named ops the frontend reads with the shared named-op syntax.
EXTRA_NAMES = tuple(sorted(n for n in OPS if n not in PREFIXED))
#: Named ops whose `strides`/`dilations` default to `dense<1> : tensor<2xi64>`.
WINDOW_NAMES = tuple(sorted(WINDOW_2D))
EXTRA_OPS = list(OPS.values())

# linalg.index too: xDSL's allows only linalg.generic as its parent.
_KEPT = [op for op in _XdslLinalg.operations if op.name not in OPS and op.name != IndexOp.name]

Linalg = Dialect(
    "linalg",
    [*_KEPT, IndexOp, MapOp, *EXTRA_OPS, *RELAYOUT_OPS],
    [*_XdslLinalg.attributes, *ATTRIBUTES],
)

__all__ = ["EXTRA_NAMES", "EXTRA_OPS", "WINDOW_NAMES", "Attribute", "DenseIntElementsAttr", "Linalg"]
