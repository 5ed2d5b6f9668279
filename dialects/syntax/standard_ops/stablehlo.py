"""The lark rules of the ``stablehlo`` ops' ``custom<...>`` directives.

The directive classes (their printing, and each one's syntax in its
docstring) are in :mod:`tfrt.dialects.stablehlo_syntax`; the forms are
StableHLO's (``AssemblyFormat.cpp``, ``StablehloOps.cpp``), as JAX and
``stablehlo-opt`` print them::

    stablehlo.add %a, %b : tensor<4xf32>
    stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    stablehlo.slice %x [0:2, 1:3:2] : (tensor<4x4xf32>) -> tensor<2x1xf32>
    stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
        precision = [DEFAULT, DEFAULT] : (...) -> ...
    stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
        window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {...} : (...) -> ...
    stablehlo.while(%iterArg = %a) : tensor<i32> cond {...} do {...}
    stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (...) -> ...

Op names after ``applies`` are read as bare identifiers (the grammar expects
one there, so the op-name lexer does not turn them into an op start).
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import DenseArrayBase, FunctionType, IntegerAttr, StringAttr, TupleType, i32, i64
from xdsl.parser import Parser as XParser
from xdsl.utils.exceptions import ParseError, VerifyException

from ..attributes import parse_int
from ..directive_rules import DirectiveRule, shared_rule

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def _set_types(b, st, plan, d, types, tok) -> None:
    from ..formats import make_target

    make_target(plan, d).set(b, st, list(types), tok)


def _set_attr(st, var, attr) -> None:
    (st.props if var.is_property else st.attrs)[var.name] = attr


def _int(b, tok) -> int:
    if tok.value.startswith("+"):
        raise b.error("expected integer value", tok)
    value = parse_int(tok.value)
    if not _I64_MIN <= value <= _I64_MAX:
        raise b.error(f"integer {tok.value} does not fit in 64 bits", tok)
    return value


def _dims(b, toks) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [_int(b, t) for t in toks])


def _operand_count(st, d) -> int:
    """How many operand tokens a ``type(...)`` directive's operands have (all of them for ``operands``)."""
    inner = d.inner
    index = getattr(inner, "index", None)
    if index is None or type(inner).__name__ == "OperandsDirective":
        return sum(len(ops or ()) for ops in st.operands)
    return len(st.operands[index] or ())


def _ints_rule(gen) -> str:
    shared_rule(gen, "hlo_int_items", 'INT ("," INT)*', lambda c: c)
    return shared_rule(gen, "hlo_ints", '"[" [hlo_int_items] "]"', lambda c: c[0] or [])


# ---------------------------------------------------------------- types


class SameOperandsAndResultTypeRule(DirectiveRule):
    """``T`` or ``(T, ...) -> T``."""

    def grammar(self, d, gen) -> str:
        return "any_type"

    def apply(self, b, st, d, plan, child) -> None:
        if isinstance(child, FunctionType):
            _set_types(b, st, plan, d.operands, child.inputs.data, st.tok)
            _set_types(b, st, plan, d.results, child.outputs.data, st.tok)
            return
        n = _operand_count(st, d.operands)
        _set_types(b, st, plan, d.operands, [child] * n, st.tok)
        _set_types(b, st, plan, d.results, [child], st.tok)


class ComplexOpTypeRule(DirectiveRule):
    """``tensor<...xcomplex<T>>`` or ``(T, T) -> C``."""

    def grammar(self, d, gen) -> str:
        return "any_type"

    def apply(self, b, st, d, plan, child) -> None:
        from tfrt.dialects.stablehlo_syntax import real_of

        if isinstance(child, FunctionType):
            _set_types(b, st, plan, d.operands, child.inputs.data, st.tok)
            _set_types(b, st, plan, d.results, child.outputs.data, st.tok)
            return
        real = real_of(child)
        if real is None:
            raise b.error("expected tensor with complex element type", st.tok)
        _set_types(b, st, plan, d.operands, [real, real], st.tok)
        _set_types(b, st, plan, d.results, [child], st.tok)


class SelectOpTypeRule(DirectiveRule):
    """``P, T`` or ``(P, T, T) -> T``."""

    def grammar(self, d, gen) -> str:
        return shared_rule(gen, "hlo_select_types", 'any_type ["," type]', lambda c: c)

    def apply(self, b, st, d, plan, child) -> None:
        first, second = child
        if second is None:
            if not isinstance(first, FunctionType):
                raise b.error("expected functional type or list of two types", st.tok)
            _set_types(b, st, plan, d.operands, first.inputs.data, st.tok)
            _set_types(b, st, plan, d.results, first.outputs.data, st.tok)
            return
        if isinstance(first, FunctionType):
            raise b.error("expected functional type or list of two types", st.tok)
        _set_types(b, st, plan, d.operands, [first, second, second], st.tok)
        _set_types(b, st, plan, d.results, [second], st.tok)


class TupleOpTypeRule(DirectiveRule):
    """``tuple<T, ...>``: the operands take its element types."""

    def grammar(self, d, gen) -> str:
        return "type"

    def apply(self, b, st, d, plan, child) -> None:
        if not isinstance(child, TupleType):
            raise b.error("expected tuple type", st.tok)
        _set_types(b, st, plan, d.operands, child.types.data, st.tok)
        _set_types(b, st, plan, d.result, [child], st.tok)


class PairwiseOpTypeRule(DirectiveRule):
    """``%a, ... : T, ...`` or ``()``."""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_pairwise_some", 'ssa_uses ":" type_list', lambda c: (c[0], c[1]))
        shared_rule(gen, "hlo_pairwise_none", '"(" ")"', lambda c: ([], []))
        return shared_rule(gen, "hlo_pairwise", "hlo_pairwise_some | hlo_pairwise_none", lambda c: c[0])

    def apply(self, b, st, d, plan, child) -> None:
        uses, types = child
        if len(uses) != len(types):
            raise b.error(f"{len(uses)} operands present, but expected {len(types)}", uses[0] if uses else st.tok)
        st.operands[d.operands.index] = tuple(uses)
        _set_types(b, st, plan, d.operand_types, types, st.tok)
        _set_types(b, st, plan, d.result_types, types, st.tok)


class VariadicOperandWithAttributeRule(DirectiveRule):
    """``(%a ,)*``"""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_operand_comma", 'SSA_USE ","', lambda c: c[0])
        return shared_rule(gen, "hlo_operands_commas", "hlo_operand_comma*", lambda c: c)

    def apply(self, b, st, d, plan, child) -> None:
        st.operands[d.operands.index] = tuple(child)


class ReduceTypesRule(DirectiveRule):
    """``(inputs..., inits...) -> (results...)``: the inputs take the first half."""

    def grammar(self, d, gen) -> str:
        return "function_type"

    def apply(self, b, st, d, plan, child) -> None:
        ins = list(child.inputs.data)
        n = _operand_count(st, d.input_types)
        m = _operand_count(st, d.init_types)
        if len(ins) != n + m:
            raise b.error(f"{n + m} operands present, but expected {len(ins)}", st.tok)
        _set_types(b, st, plan, d.input_types, ins[:n], st.tok)
        _set_types(b, st, plan, d.init_types, ins[n:], st.tok)
        _set_types(b, st, plan, d.result_types, child.outputs.data, st.tok)


# ---------------------------------------------------------------- attributes


class SliceRangesRule(DirectiveRule):
    """``[start:limit(:stride)?, ...]``"""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_slice_range", 'INT ":" INT [":" INT]', lambda c: c)
        shared_rule(gen, "hlo_slice_items", 'hlo_slice_range ("," hlo_slice_range)*', lambda c: c)
        return shared_rule(gen, "hlo_slice_ranges", '"[" [hlo_slice_items] "]"', lambda c: c[0] or [])

    def apply(self, b, st, d, plan, child) -> None:
        start, limit, stride = [], [], []
        for s, l, k in child:
            start.append(_int(b, s))
            limit.append(_int(b, l))
            stride.append(1 if k is None else _int(b, k))
        for var, values in ((d.start_indices, start), (d.limit_indices, limit), (d.strides, stride)):
            _set_attr(st, var, DenseArrayBase.from_list(i64, values))


class DotDimensionNumbersRule(DirectiveRule):
    """``(batching_dims = [..] x [..] ,)? contracting_dims = [..] x [..]``"""

    def grammar(self, d, gen) -> str:
        ints = _ints_rule(gen)
        shared_rule(gen, "hlo_dims_pair", f'{ints} "x" {ints}', lambda c: (c[0], c[1]))
        shared_rule(gen, "hlo_batching_dims", '"batching_dims" "=" hlo_dims_pair ","', lambda c: c[0])
        return shared_rule(
            gen,
            "hlo_dot_dims",
            '[hlo_batching_dims] "contracting_dims" "=" hlo_dims_pair',
            lambda c: (c[0], c[1]),
        )

    def apply(self, b, st, d, plan, child) -> None:
        from tfrt.dialects.stablehlo_attrs import DotDimensionNumbersAttr

        batching, contracting = child
        lb, rb = batching if batching is not None else ([], [])
        lc, rc = contracting
        attr = DotDimensionNumbersAttr.get(
            lhs_batching_dimensions=[_int(b, t) for t in lb],
            rhs_batching_dimensions=[_int(b, t) for t in rb],
            lhs_contracting_dimensions=[_int(b, t) for t in lc],
            rhs_contracting_dimensions=[_int(b, t) for t in rc],
        )
        _set_attr(st, d.dims, attr)


def _precision_list(b, toks):
    from xdsl.dialects.builtin import ArrayAttr

    from tfrt.dialects.stablehlo_attrs import Precision, PrecisionAttr

    out = []
    for tok in toks:
        try:
            out.append(PrecisionAttr(Precision(tok.value)))
        except ValueError:
            raise b.error(
                f"expected one of [DEFAULT, HIGH, HIGHEST] for precision, got '{tok.value}'", tok
            ) from None
    return ArrayAttr(out)


def _precision_rule(gen) -> str:
    shared_rule(gen, "hlo_enum_items", 'BARE_ID ("," BARE_ID)*', lambda c: c)
    return shared_rule(
        gen, "hlo_precision", '"precision" "=" "[" [hlo_enum_items] "]"', lambda c: ("precision", c[0] or [])
    )


class PrecisionConfigRule(DirectiveRule):
    """``(, precision = [DEFAULT, ...])?``"""

    def grammar(self, d, gen) -> str:
        prec = _precision_rule(gen)
        return "[" + shared_rule(gen, "hlo_comma_precision", f'"," {prec}', lambda c: c[0]) + "]"

    def apply(self, b, st, d, plan, child) -> None:
        if child is not None:
            _set_attr(st, d.precision, _precision_list(b, child[1]))


class PrecisionConfigAndAlgorithmRule(DirectiveRule):
    """``(, precision = [..])? (, algorithm = <...>)?``"""

    def grammar(self, d, gen) -> str:
        prec = _precision_rule(gen)
        alg = shared_rule(gen, "hlo_algorithm", '"algorithm" "=" ANGLE_BODY', lambda c: ("algorithm", c[0]))
        shared_rule(gen, "hlo_prec_alg_item", f'"," ({prec} | {alg})', lambda c: c[0])
        return shared_rule(gen, "hlo_prec_alg", "hlo_prec_alg_item*", lambda c: c)

    def apply(self, b, st, d, plan, child) -> None:
        seen = set()
        for kind, value in child:
            if kind in seen:
                raise b.error(f"duplicated `{kind}` entry", st.tok)
            seen.add(kind)
            if kind == "precision":
                _set_attr(st, d.precision, _precision_list(b, value))
            else:
                _set_attr(st, d.algorithm, _parse_dialect_attr(b, "#stablehlo.dot_algorithm", value))


def _parse_dialect_attr(b, prefix: str, tok):
    text = prefix + tok.value
    try:
        p = XParser(b.ctx, text, b.filename)
        attr = p.parse_attribute()
    except ParseError as e:
        raise b.error(e.msg, tok) from None
    except (VerifyException, ValueError, TypeError) as e:
        raise b.error(str(e), tok) from None
    return attr


class ConvolutionDimensionsRule(DirectiveRule):
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]``"""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_conv_dim", "INT | BARE_ID", lambda c: c[0])
        shared_rule(gen, "hlo_conv_layout", '"[" hlo_conv_dim ("," hlo_conv_dim)* "]"', lambda c: c)
        return shared_rule(
            gen, "hlo_conv_dims", 'hlo_conv_layout "x" hlo_conv_layout "->" hlo_conv_layout', lambda c: c
        )

    def apply(self, b, st, d, plan, child) -> None:
        from tfrt.dialects.stablehlo_attrs import ConvDimensionNumbersAttr, conv_dims_from_layouts

        layouts = [[t.value for t in layout] for layout in child]
        try:
            values = conv_dims_from_layouts(layouts)
        except ValueError as e:
            raise b.error(str(e), child[0][0]) from None
        _set_attr(st, d.dims, ConvDimensionNumbersAttr.get(**values))


class WindowAttributesRule(DirectiveRule):
    """``stride = [..], pad = [[lo, hi], ..], lhs_dilate = [..], rhs_dilate = [..], reverse = [..]``"""

    KEYS = {
        "stride": "window_strides",
        "pad": "padding",
        "lhs_dilate": "lhs_dilation",
        "rhs_dilate": "rhs_dilation",
        "reverse": "window_reversal",
    }

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_int_pair", '"[" INT "," INT "]"', lambda c: (c[0], c[1]))
        shared_rule(gen, "hlo_window_value", "INT | TRUE_KW | FALSE_KW | hlo_int_pair", lambda c: c[0])
        shared_rule(gen, "hlo_window_values", 'hlo_window_value ("," hlo_window_value)*', lambda c: c)
        shared_rule(gen, "hlo_window_entry", 'BARE_ID "=" "[" [hlo_window_values] "]"', lambda c: (c[0], c[1] or []))
        return shared_rule(gen, "hlo_window", '[hlo_window_entry ("," hlo_window_entry)*]', lambda c: [x for x in c if x is not None])

    def apply(self, b, st, d, plan, child) -> None:
        from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, i1

        seen = set()
        for key_tok, values in child:
            key = key_tok.value
            name = self.KEYS.get(key)
            if name is None or key in seen:
                raise b.error(f"Unexpected keyword {key}", key_tok)
            seen.add(key)
            var = getattr(d, name)
            if key == "pad":
                flat = []
                for v in values:
                    if not isinstance(v, tuple):
                        raise b.error("expected [low, high] pairs", key_tok)
                    flat.extend(_int(b, t) for t in v)
                attr = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values), 2]), flat)
            elif key == "reverse":
                if any(isinstance(v, tuple) or v.type not in ("TRUE_KW", "FALSE_KW") for v in values):
                    raise b.error("expected true or false", key_tok)
                attr = DenseArrayBase.from_list(i1, [v.type == "TRUE_KW" for v in values])
            else:
                if any(isinstance(v, tuple) or v.type != "INT" for v in values):
                    raise b.error("expected integers", key_tok)
                attr = _dims(b, values)
            _set_attr(st, var, attr)


class CustomCallTargetRule(DirectiveRule):
    """``@target``"""

    def grammar(self, d, gen) -> str:
        return "SYMBOL"

    def apply(self, b, st, d, plan, child) -> None:
        _set_attr(st, d.target, StringAttr(b.symbol_name(child)))


class StringRule(DirectiveRule):
    """``"text"``"""

    def grammar(self, d, gen) -> str:
        return "STRING"

    def apply(self, b, st, d, plan, child) -> None:
        _set_attr(st, d.value, StringAttr(b.string_value(child, child.value)))


_EXP_MAN = re.compile(r"^e([0-9]+)m([0-9]+)$")


class ExponentMantissaRule(DirectiveRule):
    """``e5m10``"""

    def grammar(self, d, gen) -> str:
        return "BARE_ID"

    def apply(self, b, st, d, plan, child) -> None:
        m = _EXP_MAN.match(child.value)
        if m is None:
            raise b.error(f"expected exponent mantissa in format e#m#, saw {child.value}", child)
        _set_attr(st, d.exponent, IntegerAttr(int(m.group(1)), i32))
        _set_attr(st, d.mantissa, IntegerAttr(int(m.group(2)), i32))


def _enum_attr(b, plan, var, tok):
    constr = plan.op_def.properties[var.name].constr
    bases = constr.get_bases() or set()
    cls = next(iter(bases)) if len(bases) == 1 else None
    enum_type = getattr(cls, "enum_type", None)
    if enum_type is None:  # pragma: no cover - a definition error
        raise b.error(f"'{var.name}' is not an enum property", tok)
    try:
        return cls(enum_type(tok.value))
    except ValueError:
        cases = ", ".join(e.value for e in enum_type)
        raise b.error(f"expected one of [{cases}] for {cls.name.split('.', 1)[1]}, got '{tok.value}'", tok) from None


class EnumRule(DirectiveRule):
    """``GT``: the case of an enum property."""

    def grammar(self, d, gen) -> str:
        return "BARE_ID"

    def apply(self, b, st, d, plan, child) -> None:
        _set_attr(st, d.value, _enum_attr(b, plan, d.value, child))


class OptionalEnumRule(DirectiveRule):
    """``(, FLOAT)?``"""

    def grammar(self, d, gen) -> str:
        return "[" + shared_rule(gen, "hlo_comma_enum", '"," BARE_ID', lambda c: c[0]) + "]"

    def apply(self, b, st, d, plan, child) -> None:
        if child is not None:
            _set_attr(st, d.value, _enum_attr(b, plan, d.value, child))


class ConstantValueRule(DirectiveRule):
    """``dense<...> : T`` (or ``dense_resource<...> : T``, or an elements attribute of another kind)."""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_const_dense", 'DENSE ":" type', lambda c: ("dense", c))
        shared_rule(gen, "hlo_const_resource", 'DENSE_RESOURCE ":" type', lambda c: ("resource", c))
        shared_rule(gen, "hlo_const_other", 'OPAQUE_ATTR [":" type]', lambda c: ("other", c))
        return shared_rule(
            gen, "hlo_const_value", "hlo_const_dense | hlo_const_resource | hlo_const_other", lambda c: c[0]
        )

    def apply(self, b, st, d, plan, child) -> None:
        kind, parts = child
        if kind == "dense":
            attr = b.dense_attr(parts)
        elif kind == "resource":
            attr = b.dense_resource_attr(parts)
        else:
            attr = b.opaque_attr(parts[:1])
        _set_attr(st, d.value, attr)
        typ = attr.get_type() if hasattr(attr, "get_type") else getattr(attr, "type", None)
        if typ is None:
            typ = parts[1]
        _set_types(b, st, plan, d.result, [typ], st.tok)


# ---------------------------------------------------------------- while


def _bind_names(b, toks) -> None:
    seen: dict[str, object] = {}
    for tok in toks:
        if "#" in tok.value:
            raise b.error(f"invalid region argument name '{tok.value}'", tok)
        prior = seen.get(tok.value)
        if prior is not None:
            raise b.error(f"redefinition of SSA value '{tok.value}'", tok, [("previously defined here", prior)])
        seen[tok.value] = tok


class WhileHeaderRule(DirectiveRule):
    """``((%iterArg = %init, ...)) (: T, ...)?``: binds the cond and body regions' arguments."""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_assign", 'SSA_USE "=" SSA_USE', lambda c: (c[0], c[1]))
        shared_rule(gen, "hlo_assigns", 'hlo_assign ("," hlo_assign)*', lambda c: c)
        return shared_rule(
            gen, "hlo_while_header", '"(" [hlo_assigns] ")" [":" type_list]', lambda c: (c[0] or [], c[1] or [])
        )

    def apply(self, b, st, d, plan, child) -> None:
        assigns, types = child
        if len(assigns) != len(types):
            raise b.error(
                f"{len(assigns)} operands present, but expected {len(types)}", assigns[0][1] if assigns else st.tok
            )
        _bind_names(b, [name for name, _ in assigns])
        st.operands[d.operands.index] = tuple(init for _, init in assigns)
        _set_types(b, st, plan, d.operand_types, types, st.tok)
        _set_types(b, st, plan, d.result_types, types, st.tok)
        args = [(name, t) for (name, _), t in zip(assigns, types, strict=True)]
        st.region_args[0] = args
        st.region_args[1] = list(args)


# ---------------------------------------------------------------- reduce

_APPLIES = "\x00applies"


class ReduceOperandsRule(DirectiveRule):
    """``(%x init: %c), ...``"""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_reduce_pair", '"(" SSA_USE "init" ":" SSA_USE ")"', lambda c: (c[0], c[1]))
        return shared_rule(gen, "hlo_reduce_pairs", 'hlo_reduce_pair ("," hlo_reduce_pair)*', lambda c: c)

    def apply(self, b, st, d, plan, child) -> None:
        st.operands[d.inputs.index] = tuple(x for x, _ in child)
        st.operands[d.init_values.index] = tuple(c for _, c in child)


class ReduceAppliesRule(DirectiveRule):
    """``(applies op-name)?``: the body is that op over the block arguments (built before the op)."""

    def grammar(self, d, gen) -> str:
        return "[" + shared_rule(gen, "hlo_applies", '"applies" BARE_ID', lambda c: c[0]) + "]"

    def apply(self, b, st, d, plan, child) -> None:
        if child is not None:
            st.attrs[_APPLIES] = child

    def before_create(self, b, st, d, plan, operands) -> None:
        from tfrt.dialects.stablehlo import COMMUTATIVE_BINARY
        from tfrt.dialects.stablehlo_syntax import build_compact_body

        tok = st.attrs.pop(_APPLIES, None)
        index = d.body.index
        written = st.regions[index]
        if tok is None:
            if not written or written[0] is None:
                raise b.error("expected a reducer region or `applies`", st.tok)
            return
        if written and written[0] is not None:
            raise b.error("a reduce with `applies` takes no region", tok)
        name = tok.value
        if name not in COMMUTATIVE_BINARY:
            raise b.error(f"'{name}' is not a commutative binary stablehlo op that `applies` may name", tok)
        inputs = operands[0]
        if not inputs:
            raise b.error("a reduce needs at least one input", st.tok)
        from xdsl.dialects.builtin import TensorType

        first = inputs[0].type
        if not isinstance(first, TensorType):
            raise b.error("expected a ranked tensor input", st.tok)
        op_cls = b.ctx.get_optional_op(name)
        st.regions[index] = (build_compact_body(op_cls, first.element_type, len(inputs)),)


class ReducerArgsRule(DirectiveRule):
    """``(reducer (%a: T, %b: T) ...)?``: input element and accumulator, one pair per input."""

    def grammar(self, d, gen) -> str:
        shared_rule(gen, "hlo_reducer_arg", 'SSA_USE ":" type', lambda c: (c[0], c[1]))
        shared_rule(gen, "hlo_reducer_pair", '"(" hlo_reducer_arg "," hlo_reducer_arg ")"', lambda c: (c[0], c[1]))
        return "[" + shared_rule(gen, "hlo_reducer", '"reducer" hlo_reducer_pair+', lambda c: c) + "]"

    def apply(self, b, st, d, plan, child) -> None:
        if child is None:
            return
        firsts = [p[0] for p in child]
        seconds = [p[1] for p in child]
        _bind_names(b, [tok for tok, _ in firsts + seconds])
        st.region_args[d.body.index] = [*firsts, *seconds]


class ReducerRegionRule(DirectiveRule):
    """``region?``"""

    has_regions = True

    def grammar(self, d, gen) -> str:
        return "[region]"

    def apply(self, b, st, d, plan, child) -> None:
        st.regions[d.body.index] = (child,) if child is not None else ()


FORMATS: dict[str, str] = {}

DIRECTIVES: dict[str, type] = {}

RULES: dict[str, DirectiveRule] = {
    "HloSameOperandsAndResultType": SameOperandsAndResultTypeRule(),
    "HloComplexOpType": ComplexOpTypeRule(),
    "HloSelectOpType": SelectOpTypeRule(),
    "HloTupleOpType": TupleOpTypeRule(),
    "HloPairwiseOpType": PairwiseOpTypeRule(),
    "HloVariadicOperandWithAttribute": VariadicOperandWithAttributeRule(),
    "HloReduceTypes": ReduceTypesRule(),
    "HloSliceRanges": SliceRangesRule(),
    "HloDotDimensionNumbers": DotDimensionNumbersRule(),
    "HloPrecisionConfig": PrecisionConfigRule(),
    "HloPrecisionConfigAndAlgorithm": PrecisionConfigAndAlgorithmRule(),
    "HloConvolutionDimensions": ConvolutionDimensionsRule(),
    "HloWindowAttributes": WindowAttributesRule(),
    "HloCustomCallTarget": CustomCallTargetRule(),
    "HloExponentMantissa": ExponentMantissaRule(),
    "HloString": StringRule(),
    "HloEnum": EnumRule(),
    "HloOptionalEnum": OptionalEnumRule(),
    "HloConstantValue": ConstantValueRule(),
    "HloWhileHeader": WhileHeaderRule(),
    "HloReduceOperands": ReduceOperandsRule(),
    "HloReduceApplies": ReduceAppliesRule(),
    "HloReducerArgs": ReducerArgsRule(),
    "HloReducerRegion": ReducerRegionRule(),
}
