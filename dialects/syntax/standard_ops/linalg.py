"""Custom forms of the ``linalg`` ops whose xDSL class parses by hand.

The syntax is MLIR's (``LinalgOps.cpp``: parseCommonStructuredOpParts,
parseNamedStructuredOp, GenericOp/ReduceOp/TransposeOp/BroadcastOp::parse):

* named ops with a hidden body (``linalg.sub/mul/exp/log/sqrt/max/min/select/
  copy/quantized_matmul/pooling_nchw_max/conv_2d_*``)::

      linalg.sub (<{props}>)? {attrs}? (ins(%a, ... : T, ...))? (outs(%o, ... : T, ...))?
                 (attrs = {attrs})? (-> T | -> (T, ...))?

  The body is built from the operand types.  ``attrs = {...}`` after
  ``outs`` is how xDSL prints the discardable attributes of the
  elementwise ops; it is accepted besides MLIR's leading dictionary.
  Entries naming a property of the op (``strides``, ``dilations``, ...) become
  properties.  Convolutions and poolings without ``strides``/``dilations`` get
  MLIR's default, ``dense<1> : tensor<2xi64>`` (xDSL requires the properties).
* ``linalg.generic {indexing_maps = [...], iterator_types = [...], doc?,
  library_call?, other attrs} (<{props}>)? {attrs}? ins(...)? outs(...)?
  (attrs = {attrs})? {body} (-> T | -> (T, ...))?``: the leading dictionary
  is required; iterator types may be strings (``"parallel"``) or
  ``#linalg.iterator_type<...>``; one of ``ins``/``outs``/``attrs =`` must
  come before the body (MLIR reads a ``{`` right after the dictionaries, or
  right after ``attrs =``, as a dictionary).
* ``linalg.transpose``/``linalg.broadcast (<{props}>)? {attrs}? ins(%x : T)
  outs(%y : U) permutation|dimensions = [i, ...] {attrs}?``: a tensor ``outs``
  gives the result; the body yields the input element.
* ``linalg.reduce ({ payload.op {attrs}? })? (<{props}>)? {attrs}? ins(...)
  outs(...) dimensions = [i, ...] {attrs}? ((%in: T, %init: T) {body})?``:
  either the short form with a payload op (called as ``op(%init, %in)``, its
  result yielded) or region arguments followed by the body.  A ``{`` right
  after ``linalg.reduce`` is always the payload, as in MLIR, so a leading
  attribute dictionary needs the payload or ``<{props}>`` before it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntElementsAttr,
    DictionaryAttr,
    ShapedType,
    StringAttr,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    OperandDirective,
    ParsingState,
    PrintingState,
    RegionDirective,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from ...fastir import append_op, create_op, new_block, new_region
from ..directive_rules import DirectiveRule, shared_rule


def _yield(*values):
    """A ``linalg.yield`` (xDSL's linalg module is imported when first needed)."""
    from xdsl.dialects.linalg.ops import YieldOp

    return YieldOp(*values)


def _hand_parsed(name: str, parser: Parser) -> None:
    parser.raise_error(
        f"custom<{name}> only exists for the lark frontend; xDSL parses the op "
        "with its own parse()"
    )


class _Directive(CustomDirective):
    """Shared by the directives below: grammar only, never parsed or printed by xDSL."""

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _hand_parsed(type(self).__name__, parser)

    def print(self, printer: Printer, state: PrintingState, op) -> None:
        """Never used: the ops print with xDSL's own print()."""


def _set_types(b, st, plan, d, types, tok) -> None:
    # The target of a directive of a plan never changes: made once.
    targets = plan.__dict__.setdefault("_linalg_targets", {})
    target = targets.get(id(d))
    if target is None:
        from ..formats import make_target

        target = targets[id(d)] = make_target(plan, d)
    target.set(b, st, list(types), tok)


def _store_dict(st, plan, entries: dict[str, Attribute] | None) -> None:
    """An attribute dictionary of the text: names of the op's properties become
    properties (MLIR moves inherent attributes there), the rest attributes."""
    if not entries:
        return
    props = plan.op_def.properties
    for key, value in entries.items():
        (st.props if key in props else st.attrs)[key] = value


def element_type_or_self(t: Attribute) -> Attribute:
    if isinstance(t, ShapedType | UnrankedTensorType | UnrankedMemRefType):
        return t.get_element_type()
    return t


# ---------------------------------------------------------------- shared pieces


def _operand_list(keyword: str):
    def cb(c):
        return (c[0], c[1])

    return f'"{keyword}" "(" ssa_uses ":" type_list ")"', cb


def _ins(gen) -> str:
    return shared_rule(gen, "linalg_ins", *_operand_list("ins"))


def _outs(gen) -> str:
    return shared_rule(gen, "linalg_outs", *_operand_list("outs"))


def _props(gen) -> str:
    return shared_rule(gen, "linalg_props", '"<" attr_dict ">"', lambda c: c[0])


def _attrs(gen) -> str:
    # MLIR reads the dictionary as optional, but a `{` after `attrs =` is
    # always taken as one, so it cannot be left out before a body.
    return shared_rule(gen, "linalg_attrs", '"attrs" "=" attr_dict', lambda c: c[0])


def _results(gen) -> str:
    return shared_rule(gen, "linalg_results", '"->" fn_results', lambda c: c[0])


def _set_io(b, st, plan, d, ins, outs) -> tuple[list, list]:
    """Store ``ins(...)``/``outs(...)`` into the operands of ``d``; returns their types."""
    for part, var, types_d, what in (
        (ins, d.inputs, d.input_types, "ins"),
        (outs, d.outputs, d.output_types, "outs"),
    ):
        uses, types = part if part is not None else ([], [])
        if len(uses) != len(types):
            raise b.error(
                f"{len(uses)} operands present, but expected {len(types)}",
                uses[0] if uses else st.tok,
            )
        if not isinstance(var, VariadicOperandVariable) and len(uses) != 1:
            raise b.error(
                f"'{plan.name}' expects exactly one operand in '{what}', got {len(uses)}",
                uses[0] if uses else st.tok,
            )
        st.operands[var.index] = tuple(uses)
        _set_types(b, st, plan, types_d, types, uses[0] if uses else st.tok)
    return (ins[1] if ins else []), (outs[1] if outs else [])


def _tensor_results(b, st, plan, d, out_types) -> None:
    """Destination-style ops: one result per ranked tensor ``outs`` operand."""
    _set_types(b, st, plan, d, [t for t in out_types if isinstance(t, TensorType)], st.tok)


# ---------------------------------------------------------------- <{props}>


@irdl_custom_directive
class LinalgProps(_Directive):
    """``(<{name = value, ...}>)?``: properties spelled as such."""


class LinalgPropsRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return f"[{_props(gen)}]"

    def apply(self, b, st, d, plan, child) -> None:
        if child:
            st.props.update(child)


# ---------------------------------------------------------------- named ops

# MLIR's default for the window attributes of the 2-D convolutions and poolings.
_WINDOW_DEFAULT = DenseIntElementsAttr.from_list(TensorType(i64, [2]), [1, 1])
from tfrt.dialects.linalg import EXTRA_NAMES as _EXTRA_NAMES
from tfrt.dialects.linalg import WINDOW_NAMES as _EXTRA_WINDOW_NAMES
from tfrt.dialects.linalg_named import PREFIXED as _PREFIXED

_WINDOW_OPS = frozenset(
    {
        *_EXTRA_WINDOW_NAMES,
        "linalg.pooling_nchw_max",
        "linalg.conv_2d_nchw_fchw",
        "linalg.conv_2d_nhwgc_gfhwc",
        "linalg.conv_2d_nhwc_hwcf",
        "linalg.conv_2d_ngchw_gfchw",
        "linalg.conv_2d_ngchw_fgchw",
        "linalg.conv_2d_nhwc_fhwc",
    }
)


@irdl_custom_directive
class LinalgNamedOperands(_Directive):
    """``ins(...)? outs(...)? (attrs = {...})? (-> T | -> (T, ...))?``."""

    inputs: OperandDirective
    input_types: TypeDirective
    outputs: OperandDirective
    output_types: TypeDirective
    results: TypeDirective


class LinalgNamedOperandsRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return shared_rule(
            gen,
            "linalg_named_operands",
            f"[{_ins(gen)}] [{_outs(gen)}] [{_attrs(gen)}] [{_results(gen)}]",
            lambda c: c,
        )

    def apply(self, b, st, d: LinalgNamedOperands, plan, child) -> None:
        ins, outs, attrs, results = child
        _set_io(b, st, plan, d, ins, outs)
        _set_types(b, st, plan, d.results, results or [], st.tok)
        _store_dict(st, plan, attrs)
        if plan.name in _WINDOW_OPS:
            for name in ("strides", "dilations"):
                st.props.setdefault(name, _WINDOW_DEFAULT)


# (op class, operand types) -> how to rebuild the class's hidden body.
_BODY_RECIPES: dict = {}
# (op class, ids of the operand types) -> (the types, the recipe).
_BODY_BY_ID: dict = {}
_BODY_LOCK = threading.Lock()


def _hidden_region(cls, ins, outs) -> Region:
    """The hidden body ``cls.get_hidden_region(ins, outs)`` builds, rebuilt
    from a recipe recorded the first time: xDSL's builder re-runs its Python
    body and verifies each op, several times the cost of creating them."""
    types = tuple(v.type for v in (*ins, *outs))
    # Types are shared objects: looked up by identity first (hashing a
    # tensor type hashes its whole shape), then by value.
    fast_key = (cls, *map(id, types))
    found = _BODY_BY_ID.get(fast_key)
    if found is not None and all(a is b for a, b in zip(found[0], types)):
        recipe = found[1]
    else:
        key = (cls, *types)
        recipe = _BODY_RECIPES.get(key)
        if recipe is None:
            recipe = _record_body(cls.get_hidden_region(ins, outs))
            if recipe is None:  # not a plain single-block body: build it each time
                return cls.get_hidden_region(ins, outs)
            with _BODY_LOCK:
                _BODY_RECIPES[key] = recipe
        with _BODY_LOCK:
            if len(_BODY_BY_ID) > 1024:
                _BODY_BY_ID.clear()
            _BODY_BY_ID[fast_key] = (types, recipe)
    arg_types, steps = recipe
    block = new_block(arg_types)
    args = block._args  # noqa: SLF001
    made = []
    for op_cls, sources, result_types, props, attrs in steps:
        values = [args[i] if j < 0 else made[j].results[i] for j, i in sources]
        op = create_op(op_cls, values, result_types, props, attrs)
        append_op(block, op)
        made.append(op)
    return new_region(block)


def _record_body(region: Region):
    """``(arg types, steps)`` replaying ``region``'s one block, or None."""
    if len(region.blocks) != 1:
        return None
    block = region.blocks[0]
    where = {arg: (-1, i) for i, arg in enumerate(block.args)}
    steps = []
    for j, op in enumerate(block.ops):
        if op.regions or op.successors:
            return None
        try:
            sources = tuple(where[v] for v in op.operands)
        except KeyError:  # a value from outside the body
            return None
        steps.append((type(op), sources, tuple(r.type for r in op.results),
                      dict(op.properties), dict(op.attributes)))  # fmt: skip
        for i, res in enumerate(op.results):
            where[res] = (j, i)
    return tuple(a.type for a in block.args), tuple(steps)


@irdl_custom_directive
class LinalgNamedBody(_Directive):
    """No text: the body of a named op, built by its class from the operand types."""

    body: RegionDirective


class LinalgNamedBodyRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return ""

    def apply(self, b, st, d, plan, child) -> None:
        return None

    def before_create(self, b, st, d, plan, operands) -> None:
        ins, outs = operands[0], operands[1]
        try:
            region = _hidden_region(plan.cls, ins, outs)
        except Exception as e:  # noqa: BLE001 - the class's builder; report, don't crash
            detail = f": {e}" if str(e) else ""
            raise b.error(
                f"'{plan.name}' op cannot build its body for operands of types "
                f"({', '.join(str(v.type) for v in (*ins, *outs))}){detail}",
                st.tok,
            ) from None
        st.regions[d.body.index] = (region,)


# ---------------------------------------------------------------- destination-style ops


@irdl_custom_directive
class LinalgDstOperands(_Directive):
    """``(<{props}>)? {attrs}? ins(...) outs(...)``: a tensor ``outs`` is a result."""

    inputs: OperandDirective
    input_types: TypeDirective
    outputs: OperandDirective
    output_types: TypeDirective
    results: TypeDirective


class LinalgDstOperandsRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return shared_rule(
            gen,
            "linalg_dst_operands",
            f"[{_props(gen)}] [attr_dict] {_ins(gen)} {_outs(gen)}",
            lambda c: c,
        )

    def apply(self, b, st, d: LinalgDstOperands, plan, child) -> None:
        props, attrs, ins, outs = child
        if props:
            st.props.update(props)
        _store_dict(st, plan, attrs)
        _, out_types = _set_io(b, st, plan, d, ins, outs)
        _tensor_results(b, st, plan, d.results, out_types)


@irdl_custom_directive
class LinalgIdentityBody(_Directive):
    """No text: a body that yields its first argument (transpose, broadcast)."""

    body: RegionDirective


class LinalgIdentityBodyRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return ""

    def apply(self, b, st, d, plan, child) -> None:
        return None

    def before_create(self, b, st, d, plan, operands) -> None:
        values = [v for vals in operands for v in vals]
        block = Block(arg_types=[element_type_or_self(v.type) for v in values])
        if block.args:
            block.add_op(_yield(block.args[0]))
        st.regions[d.body.index] = (Region(block),)


# ---------------------------------------------------------------- linalg.reduce

# The argument list of a reduce body is read after the op's head (the body
# follows an optional attribute dictionary, so the head must end before it);
# the head leaves the list that becomes the body's entry-block arguments here
# and the argument-list rule fills it before the body's `{` is read.
_PENDING = threading.local()


def _region_args(children):
    args = [a for a in children if a is not None]
    target = getattr(_PENDING, "args", None)
    _PENDING.args = None
    if target is not None:
        target.extend(args)
    return args


@irdl_custom_directive
class LinalgReduceOperands(_Directive):
    """``({ op {attrs}? })? (<{props}>)? {attrs}? ins(%x : T) outs(%y : U)``."""

    inputs: OperandDirective
    input_types: TypeDirective
    outputs: OperandDirective
    output_types: TypeDirective
    results: TypeDirective
    body: RegionDirective


def _reduce_prefix(c):
    # `{payload} <props>? {attrs}?` or `<props> {attrs}?`
    return list(c) if len(c) == 3 else [None, *c]


class LinalgReduceOperandsRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        payload = shared_rule(
            gen, "linalg_payload", '"{" BARE_ID [attr_dict] "}"', lambda c: (c[0], c[1])
        )
        props = _props(gen)
        prefix = shared_rule(
            gen,
            "linalg_reduce_prefix",
            f"{payload} [{props}] [attr_dict] | {props} [attr_dict]",
            _reduce_prefix,
        )
        # `ins` may be absent: a linalg.map of no inputs (linalg.reduce's
        # single input is then reported missing).
        return shared_rule(
            gen,
            "linalg_reduce_operands",
            f"[{prefix}] [{_ins(gen)}] {_outs(gen)}",
            lambda c: c,
        )

    def apply(self, b, st, d: LinalgReduceOperands, plan, child) -> None:
        prefix, ins, outs = child
        payload, props, attrs = prefix if prefix is not None else (None, None, None)
        if props:
            st.props.update(props)
        _store_dict(st, plan, attrs)
        in_types, out_types = _set_io(b, st, plan, d, ins, outs)
        _tensor_results(b, st, plan, d.results, out_types)
        index = d.body.index
        if payload is None:
            args: list = []
            st.region_args[index] = args
            _PENDING.args = args
            return
        if plan.name == "linalg.map":
            # `op(%in...)`, of the init's element type (the body's arguments
            # are the inputs', as the class's own parse() builds them).
            result = element_type_or_self(out_types[0]) if out_types else None
            body = _payload_body(b, st, payload, in_types, init_first=False, result=result)
        else:
            body = _payload_body(b, st, payload, [*in_types, *out_types])
        st.regions[index] = (body,)


def _payload_body(
    b, st, payload, types: Sequence[Attribute], init_first: bool = True, result: Attribute | None = None
) -> Region:
    """MLIR's short form: `op(%init, %in...)` (`op(%in...)` without
    ``init_first``) on the element types, its result yielded."""
    name_tok, entries = payload
    info = b.op_info(name_tok.value, name_tok)
    block = Block(arg_types=[element_type_or_self(t) for t in types])
    args = list(block.args)
    props: dict[str, Attribute] = {}
    attrs: dict[str, Attribute] = {}
    for key, value in (entries or {}).items():
        (props if key in info.prop_names else attrs)[key] = value
    if result is None and args:
        result = block.args[-1].type
    operands = ([args[-1], *args[:-1]] if init_first else args) if args else []
    try:
        op = info.cls.create(
            operands=operands,
            result_types=[result] if result is not None else [],
            properties=props,
            attributes=attrs,
        )
    except (ValueError, TypeError) as e:
        raise b.error(f"'{name_tok.value}' op {e}", name_tok) from None
    block.add_op(op)
    block.add_op(_yield(*op.results))
    return Region(block)


@irdl_custom_directive
class LinalgReduceBody(_Directive):
    """``((%in: T, %init: U) {body})?``: absent in the short form."""

    body: RegionDirective


class LinalgReduceBodyRule(DirectiveRule):
    has_regions = True

    def grammar(self, d, gen) -> str:
        args = shared_rule(
            gen,
            "linalg_region_args",
            '"(" [block_arg ("," block_arg)*] ")"',
            _region_args,
        )
        return "[" + shared_rule(gen, "linalg_reduce_body", f"{args} region", list) + "]"

    def apply(self, b, st, d: LinalgReduceBody, plan, child) -> None:
        index = d.body.index
        built = st.regions[index]
        if child is None:
            if built is None:
                raise b.error(
                    f"'{plan.name}' expects a payload op '{{ op }}' before 'ins', "
                    "or region arguments and a body after the attributes",
                    st.tok,
                )
            return
        args, region = child
        if built is not None:
            first = args[0][0] if args else st.tok
            raise b.error(
                f"'{plan.name}' has a payload op, so it takes no region arguments or body",
                first,
            )
        seen: dict[str, object] = {}
        for tok, _ in args:
            prior = seen.get(tok.value)
            if prior is not None:
                raise b.error(
                    f"redefinition of SSA value '{tok.value}'",
                    tok,
                    [("previously defined here", prior)],
                )
            seen[tok.value] = tok
        st.regions[index] = (region,)


# ---------------------------------------------------------------- linalg.generic


@irdl_custom_directive
class LinalgGenericTraits(_Directive):
    """``{indexing_maps = [...], iterator_types = [...], doc?, library_call?, ...}``."""

    indexing_maps: AttributeVariable
    iterator_types: AttributeVariable
    doc: AttributeVariable
    library_call: AttributeVariable


def _store(st, var: AttributeVariable, value: Attribute) -> None:
    (st.props if var.is_property else st.attrs)[var.name] = value


def _traits(c):
    # `#trait`: an alias of the whole dictionary (MLIR's tests name it so).
    if len(c) == 1 and getattr(c[0], "type", None) == "HASH_ID":
        return c[0]
    return [e for e in c if e is not None]


class LinalgGenericTraitsRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        # The entries keep their key tokens, for error positions.
        return shared_rule(
            gen, "linalg_traits", '"{" [attr_entry ("," attr_entry)*] "}" | HASH_ID', _traits
        )

    def apply(self, b, st, d: LinalgGenericTraits, plan, child) -> None:
        if getattr(child, "type", None) == "HASH_ID":
            value = b.alias(child)
            if value is None:
                raise b.error(f"undefined symbol alias id '{child.value[1:]}'", child)
            if not isinstance(value, DictionaryAttr):
                raise b.error(
                    f"expected '{child.value}' to be a dictionary attribute of the op's traits", child
                )
            child = [(key, v, child) for key, v in value.data.items()]
        entries: dict[str, tuple[Attribute, object]] = {}
        for key, value, tok in child:
            if key in entries:
                raise b.error(f"duplicate key '{key}' in dictionary attribute", tok)
            entries[key] = (value, tok)
        maps, _ = entries.pop(d.indexing_maps.name, (None, None))
        if maps is None:
            raise b.error(f"'{plan.name}' op requires attribute 'indexing_maps'", st.tok)
        iterators, tok = entries.pop(d.iterator_types.name, (None, st.tok))
        if not isinstance(iterators, ArrayAttr):
            raise b.error("expected iterator_types array attribute", tok)
        kinds = []
        for it in iterators.data:
            if isinstance(it, IteratorTypeAttr):
                kinds.append(it)
                continue
            text = it.data if isinstance(it, StringAttr) else str(it)
            try:
                kinds.append(_iterator_type(text))
            except ValueError:
                raise b.error(f"unexpected iterator_type ({text})", tok) from None
        _store(st, d.indexing_maps, maps)
        _store(st, d.iterator_types, _iterator_types(tuple(kinds)))
        for var in (d.doc, d.library_call):
            value, _ = entries.pop(var.name, (None, None))
            if value is not None:
                _store(st, var, value)
        st.attrs.update((key, value) for key, (value, _) in entries.items())


@functools.lru_cache(maxsize=64)
def _iterator_type(text: str) -> Attribute:
    """``#linalg.iterator_type<text>`` (attributes are immutable: shared)."""
    return IteratorTypeAttr(IteratorType(text))


@functools.lru_cache(maxsize=256)
def _iterator_types(kinds: tuple[Attribute, ...]) -> ArrayAttr:
    return ArrayAttr(kinds)


@irdl_custom_directive
class LinalgGenericOperands(_Directive):
    """``ins(...)? outs(...)? (attrs = {...})?``, at least one of them."""

    inputs: OperandDirective
    input_types: TypeDirective
    outputs: OperandDirective
    output_types: TypeDirective


def _generic_operands(c):
    # ins outs? attrs? | outs attrs? | attrs
    if len(c) == 3:
        return list(c)
    if len(c) == 2:
        return [None, *c]
    return [None, None, c[0]]


class LinalgGenericOperandsRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        attrs, ins, outs = _attrs(gen), _ins(gen), _outs(gen)
        return shared_rule(
            gen,
            "linalg_generic_operands",
            f"{ins} [{outs}] [{attrs}] | {outs} [{attrs}] | {attrs}",
            _generic_operands,
        )

    def apply(self, b, st, d: LinalgGenericOperands, plan, child) -> None:
        ins, outs, attrs = child
        _set_io(b, st, plan, d, ins, outs)
        if attrs:
            st.attrs.update(attrs)


@irdl_custom_directive
class LinalgResults(_Directive):
    """``(-> T | -> (T, ...))?``."""

    results: TypeDirective


class LinalgResultsRule(DirectiveRule):
    def grammar(self, d, gen) -> str:
        return f"[{_results(gen)}]"

    def apply(self, b, st, d: LinalgResults, plan, child) -> None:
        _set_types(b, st, plan, d.results, child or [], st.tok)


# ---------------------------------------------------------------- formats

_IO = "$inputs, type($inputs), $outputs, type($outputs)"
_NAMED = (
    f"custom<LinalgProps>() attr-dict custom<LinalgNamedOperands>({_IO}, type($res)) "
    "custom<LinalgNamedBody>($body)"
)

_NAMED_OPS = (
    "linalg.add",
    "linalg.fill",
    "linalg.matmul",
    "linalg.sub",
    "linalg.mul",
    "linalg.exp",
    "linalg.log",
    "linalg.sqrt",
    "linalg.max",
    "linalg.min",
    "linalg.select",
    "linalg.copy",
    "linalg.quantized_matmul",
    *sorted(_WINDOW_OPS),
    *_EXTRA_NAMES,
)

FORMATS: dict[str, str] = {
    # The ops MLIR writes with a prefix (`indexing_maps = [...]` of matmul,
    # `kind = ...` of elementwise) read the format their class gives them.
    **{name: _NAMED for name in _NAMED_OPS if name not in _PREFIXED},
    "linalg.generic": (
        "custom<LinalgGenericTraits>($indexing_maps, $iterator_types, $doc, $library_call) "
        f"custom<LinalgProps>() attr-dict custom<LinalgGenericOperands>({_IO}) "
        "$body custom<LinalgResults>(type($res))"
    ),
    "linalg.transpose": (
        f"custom<LinalgDstOperands>({_IO}, type($res)) `permutation` `=` $permutation "
        "attr-dict custom<LinalgIdentityBody>($body)"
    ),
    "linalg.broadcast": (
        "custom<LinalgDstOperands>($input, type($input), $init, type($init), type($result)) "
        "`dimensions` `=` $dimensions attr-dict custom<LinalgIdentityBody>($hidden_region)"
    ),
    "linalg.reduce": (
        "custom<LinalgReduceOperands>($input, type($input), $init, type($init), "
        "type($result), ref($region)) `dimensions` `=` $dimensions attr-dict "
        "custom<LinalgReduceBody>($region)"
    ),
}

DIRECTIVES: dict[str, type[CustomDirective]] = {
    "LinalgProps": LinalgProps,
    "LinalgNamedOperands": LinalgNamedOperands,
    "LinalgNamedBody": LinalgNamedBody,
    "LinalgDstOperands": LinalgDstOperands,
    "LinalgIdentityBody": LinalgIdentityBody,
    "LinalgReduceOperands": LinalgReduceOperands,
    "LinalgReduceBody": LinalgReduceBody,
    "LinalgGenericTraits": LinalgGenericTraits,
    "LinalgGenericOperands": LinalgGenericOperands,
    "LinalgResults": LinalgResults,
}

RULES: dict[str, DirectiveRule] = {
    "LinalgProps": LinalgPropsRule(),
    "LinalgNamedOperands": LinalgNamedOperandsRule(),
    "LinalgNamedBody": LinalgNamedBodyRule(),
    "LinalgDstOperands": LinalgDstOperandsRule(),
    "LinalgIdentityBody": LinalgIdentityBodyRule(),
    "LinalgReduceOperands": LinalgReduceOperandsRule(),
    "LinalgReduceBody": LinalgReduceBodyRule(),
    "LinalgGenericTraits": LinalgGenericTraitsRule(),
    "LinalgGenericOperands": LinalgGenericOperandsRule(),
    "LinalgResults": LinalgResultsRule(),
}
