"""The general lowering of a structured linalg op: ``tfrt_array.generic``.

``lower-linalg``'s patterns turn a ``linalg.generic`` (or a named op, through
its maps and body) into fast kernels when its indexing maps are projected
permutations and each reduction body is ``combine(out, f(inputs))``.  Every
other valid op comes here and becomes one ``tfrt_array.generic``
(``tfrt/kernels/array_generic.py``), which runs the body as linalg defines it:
any affine indexing maps (strides and dilations ``d1 * 2 + d4``, constants,
``floordiv``/``mod``/``ceildiv``), any number of results, reductions whose
body reads the accumulators in any way (argmax/argmin, Welford), ``linalg.index``,
``tensor.extract`` of a tensor defined outside the body, scalars captured
from outside.  It is the safety net under every pattern: a valid op is never
refused for its shape of body or maps; what is refused (an op in the body
without an elementwise equivalent, a loop whose extent no operand gives) is
refused with a located error.

Example::

    %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>,
                                            affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
        ins(%x : tensor<8xf32>) outs(%m0, %i0 : tensor<f32>, tensor<i64>) {
    ^bb0(%in: f32, %m: f32, %i: i64):
      %j = linalg.index 0 : index
      %jj = arith.index_cast %j : index to i64
      %gt = arith.cmpf ogt, %in, %m : f32
      %nm = arith.select %gt, %in, %m : f32
      %ni = arith.select %gt, %jj, %i : i64
      linalg.yield %nm, %ni : f32, i64
    } -> (tensor<f32>, tensor<i64>)
    // becomes
    %r:2 = tfrt_array.generic %x, %m0, %i0 {body = "t0 = gt(a0, a1) : in0, acc0 ...",
        iterators = "r", kinds = ",", maps = "d0;;", n_inputs = 1, ranges = [8], yields = "t2,t3"} ...
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr

from tfrt.passes import op_name
from tfrt.passes.lowering import (
    EXPR_OPS,
    cannot_lower,
    check_value_type,
    element_name,
    i64_array,
    i64_attr,
    kernel_type,
    literal,
    make_op,
    op_expr,
    scalar_constant,
    shape_of,
    str_attr,
)

_COMBINERS = {
    "arith.addf": "sum", "arith.addi": "sum", "arith.mulf": "prod", "arith.muli": "prod",
    "arith.maximumf": "max", "arith.minimumf": "min", "arith.maxsi": "max", "arith.minsi": "min",
    "arith.maxnumf": "maxnum", "arith.minnumf": "minnum",
    "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor",
}  # fmt: skip


# On i1, signed order reads true as -1: maxsi is an and, minsi an or (and the
# unsigned maxui/minui an or/and), not numpy's boolean max/min.
_I1_KINDS = {"arith.maxsi": "and", "arith.minsi": "or", "arith.maxui": "or", "arith.minui": "and"}


def i1_kind(op_name: str, type_) -> str | None:
    """The reduction kind of combiner ``op_name`` on ``i1`` values (None otherwise)."""
    if isinstance(type_, IntegerType) and type_.width.data == 1:
        return _I1_KINDS.get(op_name)
    return None


def affine_text(e, op: Operation) -> str:
    """An affine expression in the kernel's syntax (``d0 * 2 + d1``, ``cdiv(a, b)``)."""
    if isinstance(e, AffineDimExpr):
        return f"d{e.position}"
    if isinstance(e, AffineConstantExpr):
        return str(e.value)
    if isinstance(e, AffineBinaryOpExpr):
        a, b = affine_text(e.lhs, op), affine_text(e.rhs, op)
        k = e.kind
        if k == AffineBinaryOpKind.Add:
            return f"({a} + {b})"
        if k == AffineBinaryOpKind.Mul:
            return f"({a} * {b})"
        if k == AffineBinaryOpKind.Mod:
            return f"({a} % {b})"
        if k == AffineBinaryOpKind.FloorDiv:
            return f"({a} // {b})"
        return f"(-((-{a}) // {b}))"  # ceildiv, with no comma: the kernel splits results at commas
    raise cannot_lower(op, f"indexing map expression {e} uses a symbol; only dimensions and constants are supported")


def lower_generic(op: Operation, b, maps, iterators) -> list[SSAValue]:
    """``op`` (a structured op with ``b.ins``/``b.outs``, ``maps``, ``iterators``)
    as one ``tfrt_array.generic``; the new ops go to ``b``."""
    ins, outs = list(b.ins), list(b.outs)
    operands = [*ins, *outs]
    if len(maps) != len(operands):
        raise cannot_lower(op, f"{len(maps)} indexing maps for {len(operands)} operands")
    for v in operands:
        check_value_type(op, v.type)
    n_dims = len(iterators)
    ranges: list[int | None] = [None] * n_dims
    for v, m in zip(operands, maps):
        shape = shape_of(v.type) if isinstance(v.type, TensorType) else ()
        if len(m.results) != len(shape):
            raise cannot_lower(op, f"indexing map {m} has {len(m.results)} results for a rank-{len(shape)} operand")
        for e, size in zip(m.results, shape):
            if isinstance(e, AffineDimExpr):
                if ranges[e.position] is None:
                    ranges[e.position] = size
                elif ranges[e.position] != size:
                    raise cannot_lower(op, f"loop d{e.position} is {ranges[e.position]} for one operand and {size} for another")
    for d, r in enumerate(ranges):
        if r is None:
            raise cannot_lower(op, f"the extent of loop d{d} is given by no operand (it appears only inside compound expressions)")
    red = {d for d, it in enumerate(iterators) if it != "parallel"}
    for o, m in enumerate(maps[len(ins):]):
        used = set()
        for e in m.results:
            used |= _dims_in(e)
        if used & red:
            raise cannot_lower(op, f"output {o}'s indexing map uses a reduction loop")
    block = op.regions[0].first_block
    assert block is not None
    yield_op = block.last_op
    assert yield_op is not None

    program: list[str] = []
    names: dict[SSAValue, str] = {}
    literals: dict[SSAValue, str] = {}
    captures: list[SSAValue] = []
    for i, a in enumerate(block.args):
        names[a] = f"in{i}" if i < len(ins) else f"acc{i - len(ins)}"

    def ref(v: SSAValue) -> str:
        if v in names:
            return names[v]
        if isinstance(v, OpResult) and v.op.parent_block() is block:
            raise cannot_lower(op, f"the body uses {v.name_hint or 'a value'} before defining it")
        # Defined outside the body: a captured scalar or tensor.
        check_value_type(op, v.type)
        captures.append(v)
        names[v] = f"cap{len(captures) - 1}"
        return names[v]

    def statement(expr: str, refs: list[str], result: SSAValue) -> None:
        name = f"t{len(program)}"
        program.append(f"{name} = {expr} : {', '.join(refs)}")
        names[result] = name

    inner = block.first_op
    while inner is not None and inner is not yield_op:
        if inner.name == "linalg.index":
            d = inner.properties["dim"].value.data
            if not 0 <= d < n_dims:
                raise cannot_lower(inner, f"linalg.index {d} of an op with {n_dims} loops")
            names[inner.results[0]] = f"idx{d}"
        elif inner.name == "arith.constant":
            text = literal(inner.properties["value"])
            if text is None:
                raise cannot_lower(inner, "only scalar constants can be used in a linalg body")
            literals[inner.results[0]] = text
        elif inner.name == "tensor.extract":
            refs = [_lit_ref(inner, v) if v in literals else ref(v) for v in inner.operands]
            statement("extract", refs, inner.results[0])
        elif inner.name in EXPR_OPS:
            refs: list[str] = []
            args = []
            for v in inner.operands:
                if v in literals:
                    args.append(literals[v])
                    continue
                c = scalar_constant(v) if v not in names else None
                text = literal(c) if c is not None else None
                if text is not None:
                    args.append(text)
                    continue
                refs.append(ref(v))
                args.append(f"a{len(refs) - 1}")
            statement(op_expr(inner, args), refs, inner.results[0])
        else:
            raise cannot_lower(op, f"its body holds '{op_name(inner)}', which has no elementwise equivalent")
        inner = inner.next_op

    yields: list[str] = []
    kinds: list[str] = []
    out_args = list(block.args)[len(ins):]
    for o, y in enumerate(yield_op.operands):
        kind, contribution = _combination(y, out_args[o], out_args) if red else ("", None)
        if kind and contribution is not None:
            yields.append(_yield_ref(contribution, names, literals, ref, statement))
        else:
            kinds = []
            break
        kinds.append(kind)
    if len(kinds) != len(outs):
        kinds = []
        yields = [_yield_ref(y, names, literals, ref, statement) for y in yield_op.operands]
    attrs = {
        "body": str_attr("\n".join(_live(program, yields))),
        "iterators": str_attr("".join("p" if it == "parallel" else "r" for it in iterators)),
        "kinds": str_attr(",".join(kinds)),
        "maps": str_attr(";".join(",".join(affine_text(e, op) for e in m.results) for m in maps)
                         + ";" * len(captures)),
        "n_inputs": i64_attr(len(ins)),
        "ranges": i64_array([int(r) for r in ranges]),  # type: ignore[arg-type]
        "types": str_attr(",".join(element_name(v.type) for v in [*operands, *captures])),
        "yields": str_attr(",".join(yields)),
    }  # fmt: skip
    result_types = [kernel_type(r.type) for r in op.results]
    new = make_op("tfrt_array.generic", [*operands, *captures], result_types, attrs, at=op)
    b.ops.append(new)
    return list(new.results)


def _lit_ref(at: Operation, v: SSAValue) -> str:
    c = scalar_constant(v)
    if c is None:
        raise cannot_lower(at, "tensor.extract indices must be index values")
    return f"#{c.value.data}"


def _yield_ref(v: SSAValue, names, literals, ref, statement) -> str:
    if v in names:
        return names[v]
    text = literals.get(v)
    if text is None:
        c = scalar_constant(v)
        text = literal(c) if c is not None else None
    if text is not None:
        # A constant yielded: a statement of no operands.
        statement(text, [], v)
        return names[v]
    return ref(v)


def _live(program: list[str], yields: list[str]) -> list[str]:
    """The statements the yields need (a combination's final step is the kernel's)."""
    needed = set(yields)
    kept = []
    for stmt in reversed(program):
        name, rest = stmt.split(" = ", 1)
        if name in needed:
            kept.append(stmt)
            needed.update(r.strip() for r in rest.rsplit(" : ", 1)[1].split(",") if r.strip())
    return kept[::-1]


def _dims_in(e) -> set[int]:
    if isinstance(e, AffineDimExpr):
        return {e.position}
    if isinstance(e, AffineBinaryOpExpr):
        return _dims_in(e.lhs) | _dims_in(e.rhs)
    return set()


def _combination(y: SSAValue, out_arg: SSAValue, out_args) -> tuple[str, SSAValue | None]:
    """(kind, contribution) when ``y`` is ``combine(out_arg, c)`` with ``c`` not
    reading any accumulator; ("", None) otherwise."""
    if not isinstance(y, OpResult) or y.op.name not in _COMBINERS:
        return "", None
    a, c = y.op.operands
    if c is out_arg:
        a, c = c, a
    if a is not out_arg or any(_reads(c, acc) for acc in out_args):
        return "", None
    return i1_kind(y.op.name, y.type) or _COMBINERS[y.op.name], c


def _reads(v: SSAValue, target: SSAValue, depth: int = 0) -> bool:
    if v is target:
        return True
    if not isinstance(v, OpResult) or depth > 256:
        return depth > 256
    return any(_reads(x, target, depth + 1) for x in v.op.operands)
