"""Mixed static/dynamic index lists: the slicing and reshaping ops.

``custom<DynamicIndexList>($dynamic, $static)`` is MLIR's (and xDSL's)
directive for a bracketed list that mixes SSA values and integer literals:

    [%i, 0, %j]     ->  dynamic = (%i, %j), static = array<i64: kDynamic, 0, kDynamic>

Each SSA value becomes an operand of the variadic group ``$dynamic`` (of
``index`` type, as the op definitions fix) and leaves MLIR's ``kDynamic``
sentinel (``ShapedType::kDynamic``, the minimum int64) in its place in the
static ``DenseI64ArrayAttr``.  An empty list ``[]`` is allowed (0-D).  The
integers are MLIR integer literals (decimal or hex, possibly negative) that
must fit in 64 bits.

xDSL's own ``tensor``/``memref`` formats already use the directive
(``tensor.extract_slice``, ``tensor.insert_slice``, ``tensor.pad``,
``memref.subview``, ``memref.reinterpret_cast``, ``memref.expand_shape``);
``tensor.expand_shape`` parses by hand in xDSL and gets MLIR's format here:

    tensor.expand_shape %t [[0, 1], [2]] output_shape [2, %d, 4]
        : tensor<6x?xf32> into tensor<2x?x4xf32>
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, i64
from xdsl.dialects.utils import DynamicIndexList

from ..attributes import parse_int
from ..directive_rules import DirectiveRule, shared_rule

_I64_MIN = -(1 << 63)
_I64_MAX = (1 << 63) - 1


class DynamicIndexListRule(DirectiveRule):
    """``'[' ((ssa-use | integer) (',' (ssa-use | integer))*)? ']'``."""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "slices_index", "SSA_USE | INT", lambda c: c[0])
        shared_rule(gen, "slices_indices", 'slices_index ("," slices_index)*', lambda c: c)
        return shared_rule(
            gen, "slices_index_list", '"[" [slices_indices] "]"', lambda c: c[0] or []
        )

    def apply(self, b, st, d: DynamicIndexList, plan, child) -> None:
        dynamic = []
        static = []
        for tok in child:
            if tok.type == "SSA_USE":
                dynamic.append(tok)
                static.append(DYNAMIC_INDEX)
                continue
            if tok.value.startswith("+"):
                raise b.error("expected SSA value or integer", tok)
            value = parse_int(tok.value)
            if not _I64_MIN <= value <= _I64_MAX:
                raise b.error(f"integer {tok.value} does not fit in 64 bits", tok)
            static.append(value)
        st.operands[d.dynamic_position.index] = tuple(dynamic)
        var = d.static_position
        (st.props if var.is_property else st.attrs)[var.name] = DenseArrayBase.from_list(
            i64, static
        )


FORMATS: dict[str, str] = {
    # MLIR's TensorOps.td format; the result type is spelled, nothing is inferred.
    "tensor.expand_shape": (
        "$src $reassociation `output_shape` "
        "custom<DynamicIndexList>($dynamic_output_shape, $static_output_shape) "
        "attr-dict `:` type($src) `into` type($result)"
    ),
}

DIRECTIVES: dict[str, type] = {"DynamicIndexList": DynamicIndexList}

RULES: dict[str, DirectiveRule] = {"DynamicIndexList": DynamicIndexListRule()}
