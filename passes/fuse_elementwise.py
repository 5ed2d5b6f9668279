"""``fuse-elementwise``: chains of elementwise kernels become one kernel.

A ``tfrt_array.elementwise`` (or ``tfrt_scalar.eval``) whose only use is
another one of the same shape is substituted into it: the consumer's
expression takes the producer's expression in place of the operand, and the
producer's operands join the consumer's (each SSA value once).  A producer
the consumer's expression reads twice is inlined only when it is cheap
(arithmetic, comparisons, casts) and small: an ``exp`` or ``erf`` is not
computed twice, and no fused expression grows past 256 nodes.
Scalar constants, and tensor constants that are one value splatted, feeding
an expression become literals.  One fused kernel makes one
pass over memory, through ``out=`` buffers, instead of one per op::

    %s = tfrt_array.elementwise %x, %b {expr = "(a0 + a1)", ...}
    %r = tfrt_array.elementwise %s {expr = "maximum(a0, cast_f32(0.0))", ...}
    // becomes
    %r = tfrt_array.elementwise %x, %b {expr = "maximum((a0 + a1), cast_f32(0.0))", ...}
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import erase_op, walk
from tfrt.passes.lowering import (
    element_name,
    literal,
    make_op,
    replace,
    scalar_constant,
    shape_of,
    splat_constant,
    str_attr,
)

_FUSIBLE = ("tfrt_array.elementwise", "tfrt_scalar.eval")


def _expr_field(op: Operation) -> str:
    return "epilogue" if op.name in ("tfrt_array.matmul", "tfrt_array.conv2d") else "expr"


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, ast.AST]):
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:  # noqa: N802 - ast API
        repl = self.mapping.get(node.id)
        return repl if repl is not None else node


def substitute(expr: str, mapping: dict[str, str]) -> str:
    """``expr`` with each operand name replaced by an expression, printed as
    ``ast.unparse`` prints the substituted tree (parentheses where the
    precedence needs them)."""
    # Layers of a model fuse the same expressions the same way.
    key = (expr, tuple(mapping.items()))
    found = _SUBSTITUTED.get(key)
    if found is None:
        found = _substitute(expr, mapping)
        if len(_SUBSTITUTED) > 8192:
            _SUBSTITUTED.clear()
        _SUBSTITUTED[key] = found
    return found


_SUBSTITUTED: dict[tuple, str] = {}


def _substitute(expr: str, mapping: dict[str, str]) -> str:
    tree = _tree(expr)
    if tree is not None:
        nodes: dict[str, tuple | None] = {}
        for k, v in mapping.items():
            if k != v:
                nodes[k] = ("n", v) if v.isidentifier() else _tree(v)
        if None not in nodes.values():
            out: list[str] = []
            _render(tree, _TEST, False, nodes, {}, out)
            return "".join(out)
    return _substitute_ast(expr, mapping)


def _substitute_ast(expr: str, mapping: dict[str, str]) -> str:
    """:func:`substitute` with Python's ast (any expression)."""
    tree = ast.parse(expr, mode="eval")
    nodes = {
        k: ast.Name(id=v, ctx=ast.Load()) if v.isidentifier() else ast.parse(v, mode="eval").body
        for k, v in mapping.items()
        if k != v
    }
    return ast.unparse(_Rename(nodes).visit(tree))


# ast.unparse's operator precedences (ast._Precedence), as numbers.
_P = {name: i for i, name in enumerate(ast._Precedence.__members__)}  # noqa: SLF001
_TEST = _P["TEST"]
_ATOM = _P["ATOM"]
_BINOPS = {
    ast.Add: ("+", _P["ARITH"]), ast.Sub: ("-", _P["ARITH"]), ast.Mult: ("*", _P["TERM"]),
    ast.Div: ("/", _P["TERM"]), ast.Mod: ("%", _P["TERM"]), ast.FloorDiv: ("//", _P["TERM"]),
    ast.Pow: ("**", _P["POWER"]), ast.LShift: ("<<", _P["SHIFT"]), ast.RShift: (">>", _P["SHIFT"]),
    ast.BitOr: ("|", _P["BOR"]), ast.BitXor: ("^", _P["BXOR"]), ast.BitAnd: ("&", _P["BAND"]),
}  # fmt: skip
_UNOPS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}  # all of FACTOR precedence


@functools.lru_cache(maxsize=8192)
def _tree(expr: str) -> tuple | None:
    """``expr`` as a tuple tree for :func:`_render`, or None when it holds
    something the renderer does not print (then ast does the work)::

        ("n", name)  ("c", text)  ("b", op, prec, left, right)
        ("u", op, operand)  ("f", func, args)
    """
    try:
        body = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None
    return _convert(body)


def _convert(node) -> tuple | None:
    if isinstance(node, ast.Name):
        return ("n", node.id)
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool) or (isinstance(v, (int, float)) and v == v and abs(v) != float("inf")):
            if node.kind is None:
                return ("c", repr(v))
        return None
    if isinstance(node, ast.BinOp):
        op = _BINOPS.get(type(node.op))
        left, right = _convert(node.left), _convert(node.right)
        if op is None or left is None or right is None:
            return None
        return ("b", op[0], op[1], left, right)
    if isinstance(node, ast.UnaryOp):
        op = _UNOPS.get(type(node.op))
        operand = _convert(node.operand)
        if op is None or operand is None:
            return None
        return ("u", op, operand)
    if isinstance(node, ast.Call):
        if node.keywords:
            return None
        func = _convert(node.func)
        args = [_convert(a) for a in node.args]
        if func is None or any(a is None for a in args):
            return None
        return ("f", func, tuple(args))
    return None


_FACTOR = _P["FACTOR"]


def _render(node: tuple, prec: int, is_set: bool, mapping, last: dict, out: list[str]) -> None:
    """Print ``node`` where its context asks for precedence ``prec``, as
    ast.unparse does.  ``is_set``: the context sets that precedence (operands
    of operators, a call's function); call arguments and the whole
    expression do not.  ast.unparse remembers the precedence last set on a
    node, and a replacement is one node wherever its name occurs, so an
    unset place reuses the precedence the replacement last had (``last``)."""
    kind = node[0]
    if kind == "n":
        name = node[1]
        repl = mapping.get(name)
        if repl is None:
            out.append(name)
            return
        if is_set:
            last[name] = prec
        else:
            prec = last.get(name, _TEST)
        _render(repl, prec, True, _EMPTY, {}, out)
        return
    if kind == "c":
        out.append(node[1])
    elif kind == "b":
        _, op, own, left, right = node
        parens = prec > own
        if parens:
            out.append("(")
        if op == "**":  # right-associative
            _render(left, own + 1, True, mapping, last, out)
            out.append(" ** ")
            _render(right, own, True, mapping, last, out)
        else:
            _render(left, own, True, mapping, last, out)
            out.append(f" {op} ")
            _render(right, own + 1, True, mapping, last, out)
        if parens:
            out.append(")")
    elif kind == "u":
        parens = prec > _FACTOR
        if parens:
            out.append("(")
        out.append(node[1])
        _render(node[2], _FACTOR, True, mapping, last, out)
        if parens:
            out.append(")")
    else:  # call
        _render(node[1], _ATOM, True, mapping, last, out)
        out.append("(")
        for i, arg in enumerate(node[2]):
            if i:
                out.append(", ")
            _render(arg, _TEST, False, mapping, last, out)
        out.append(")")


_EMPTY: dict = {}


def rebuild(op: Operation, expr: str, operands: list[SSAValue], first: int = 0) -> Operation:
    """A copy of ``op`` computing ``expr`` over ``operands`` (after the first ``first``
    fixed operands, which keep their place)."""
    attrs = dict(op.properties)
    field = _expr_field(op)
    attrs[field] = str_attr(expr)
    types = [element_name(v.type) for v in operands[first:]]
    if field == "epilogue":
        types = [element_name(op.results[0].type if not op.properties[field].data else _product_type(op))] + types
    attrs["types"] = str_attr(",".join(types))
    return make_op(op.name, operands, [r.type for r in op.results], attrs, at=op)


def _product_type(op: Operation):
    return op.operands[0].type


def fuse_into(consumer: Operation, k: int, producer: Operation, first: int = 0) -> Operation:
    """``consumer`` with its operand ``k`` (an elementwise producer's result) inlined."""
    field = _expr_field(consumer)
    operands = list(consumer.operands)
    names: dict[str, str] = {}
    new_operands = operands[:first] + [v for i, v in enumerate(operands) if i >= first and i != k]
    index = {v: i for i, v in enumerate(new_operands) if i >= first}
    shift = 1 if field == "epilogue" else 0  # a0 is the product in an epilogue
    for i, v in enumerate(operands):
        if i < first or i == k:
            continue
        names[f"a{i - first + shift}"] = f"a{index[v] - first + shift}"
    inner: dict[str, str] = {}
    for j, v in enumerate(producer.operands):
        if v not in index:
            index[v] = len(new_operands)
            new_operands.append(v)
        inner[f"a{j}"] = f"a{index[v] - first + shift}"
    produced = substitute(producer.properties["expr"].data, inner)
    names[f"a{k - first + shift}"] = f"({produced})"
    expr = substitute(consumer.properties[field].data, names)
    return rebuild(consumer, expr, new_operands, first)


def inline_constants(op: Operation) -> Operation | None:
    """``op`` with its scalar-constant operands, and tensors it knows to be
    splats of one value, written as literals (None if it has none)."""
    operands = list(op.operands)
    consts = {}
    for i, v in enumerate(operands):
        attr = scalar_constant(v)
        if attr is None and op.name == "tfrt_array.elementwise":
            attr = splat_constant(v)
        text = literal(attr) if attr is not None else None
        if text is not None:
            consts[i] = text
    if not consts or len(consts) == len(operands):
        return None  # all constant: fold-constants' business
    keep = [v for i, v in enumerate(operands) if i not in consts]
    mapping: dict[str, str] = {}
    j = 0
    for i in range(len(operands)):
        if i in consts:
            mapping[f"a{i}"] = consts[i]
        else:
            mapping[f"a{i}"] = f"a{j}"
            j += 1
    return rebuild(op, substitute(op.properties["expr"].data, mapping), keep)


# Functions cheap enough to compute twice rather than store once.
_CHEAP_CALLS = frozenset({"maximum", "minimum", "abs", "neg", "sign", "fmax", "fmin", "where",
                          "lt", "le", "gt", "ge", "eq", "ne"} | {f"cast_{t}" for t in
                         ("i1", "i8", "i16", "i32", "i64", "f16", "f32", "f64")})  # fmt: skip


@functools.lru_cache(maxsize=8192)
def _facts(expr: str) -> tuple[int, bool, dict[str, int]]:
    """``expr``'s size in AST nodes, whether it is cheap (arithmetic and
    comparisons only: no exp, log, erf...), and how often it reads each name."""
    size = 0
    cheap = True
    reads: dict[str, int] = {}
    for node in ast.walk(ast.parse(expr, mode="eval")):
        size += 1
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _CHEAP_CALLS:
                cheap = False
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.Mod, ast.FloorDiv)):
            cheap = False
        elif isinstance(node, ast.Name):
            reads[node.id] = reads.get(node.id, 0) + 1
    return size, cheap, reads


def _cheap(expr: str) -> bool:
    """True when ``expr`` is arithmetic and comparisons only (no exp, log, erf...)."""
    return _facts(expr)[1]


#: A producer read more than once is inlined only up to this many AST nodes,
#: and no fused expression grows past MAX_NODES (re-reads would otherwise
#: grow a chain like t = t * t + t exponentially).
MAX_REPEATED_NODES = 16
MAX_NODES = 256


def _size(expr: str) -> int:
    return _facts(expr)[0]


def _references(expr: str, name: str) -> int:
    return _facts(expr)[2].get(name, 0)


def _shape(v: SSAValue):
    return shape_of(v.type) if isinstance(v.type, TensorType) else None


@dataclass(frozen=True)
class FuseElementwisePass(ModulePass):
    """Fuse chains of elementwise kernels (see the module docstring)."""

    name = "fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in walk(op):
            if o.name not in _FUSIBLE or o.parent is None:
                continue
            new = inline_constants(o)
            if new is not None:
                replace(o, [new], new.results)
                o = new
            changed = True
            while changed:
                changed = False
                for k, v in enumerate(o.operands):
                    producer = getattr(v, "op", None)
                    if producer is None or producer.name not in _FUSIBLE:
                        continue
                    if not producer.results[0].has_one_use() or producer.parent is not o.parent:
                        continue
                    vt, ot = v.type, o.results[0].type
                    if vt is not ot and _shape(v) is not None and _shape(v) != _shape(o.results[0]):
                        continue  # fusing would recompute a broadcast producer per element
                    reads = _references(o.properties["expr"].data, f"a{k}")
                    produced = producer.properties["expr"].data
                    if reads > 1 and (not _cheap(produced) or _size(produced) > MAX_REPEATED_NODES):
                        continue  # fusing would compute an expensive producer twice
                    if _size(o.properties["expr"].data) + reads * _size(produced) > MAX_NODES:
                        continue
                    new = fuse_into(o, k, producer)
                    replace(o, [new], new.results)
                    erase_op(producer)
                    o = new
                    changed = True
                    break


FuseElementwisePass.__doc__ = f"{FuseElementwisePass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
