"""Affine maps and integer sets as MLIR's AsmPrinter writes them.

Expressions print with binding strengths: ``+`` binds weakly, ``*``,
``floordiv``, ``ceildiv`` and ``mod`` strongly, and a strong operator puts
parentheses around a binary operand.  Additions are prettified the MLIR way::

    x + y * -1      ->  x - y
    x + y * -3      ->  x - y * 3
    x + -5          ->  x - 5
    x * -1          ->  -x
    (d0 + d1) mod 3 ->  (d0 + d1) mod 3

Integer set constraints print as ``expr >= 0`` or ``expr == 0``: MLIR keeps
only these two forms, so a constraint stored as ``lhs <= rhs`` prints as
``rhs - lhs >= 0`` and one with a non-zero right-hand side as
``lhs - rhs >= 0`` (what MLIR's parser builds from the same text).

One deliberate difference: MLIR prints ``x + (y + z)`` (an addition whose
right operand is an addition) without parentheses, which reads back as
``(x + y) + z``; here the parentheses stay so that the text parses back to
the same expression.

:func:`assign_aliases` numbers the ``#map``/``#set`` aliases MLIR's printer
gives affine map and integer set attributes.
"""

from __future__ import annotations

from typing import Iterable, Union

from xdsl.dialects.builtin import AffineMapAttr, AffineSetAttr
from xdsl.ir import Attribute
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.ir.affine.affine_set import AffineConstraintExpr, AffineConstraintKind, AffineSet

__all__ = [
    "affine_attr_text",
    "affine_expr_text",
    "affine_map_text",
    "affine_set_text",
    "alias_base",
    "assign_aliases",
    "constraint_expr",
]

_WEAK = False
_STRONG = True

# A piece of output: literal text, or an expression still to print with the
# binding strength of its context.
_Piece = Union[str, tuple[AffineExpr, bool]]


def _is_add(expr: AffineExpr) -> bool:
    return isinstance(expr, AffineBinaryOpExpr) and expr.kind is AffineBinaryOpKind.Add


def _constant(expr: AffineExpr) -> int | None:
    return expr.value if isinstance(expr, AffineConstantExpr) else None


def _expand(expr: AffineExpr, strong: bool) -> list[_Piece]:
    """One step of MLIR's ``printAffineExprInternal``: the text around the
    operands of ``expr`` and the strengths they print with."""
    if isinstance(expr, AffineDimExpr):
        return [f"d{expr.position}"]
    if isinstance(expr, AffineSymExpr):
        return [f"s{expr.position}"]
    if isinstance(expr, AffineConstantExpr):
        return [str(expr.value)]
    if not isinstance(expr, AffineBinaryOpExpr):
        return [str(expr)]
    open_, close = (["("], [")"]) if strong else ([], [])
    lhs, rhs = expr.lhs, expr.rhs

    if expr.kind is not AffineBinaryOpKind.Add:
        if expr.kind is AffineBinaryOpKind.Mul and _constant(rhs) == -1:
            return [*open_, "-", (lhs, _STRONG), *close]
        token = expr.kind.get_token()
        return [*open_, (lhs, _STRONG), f" {token} ", (rhs, _STRONG), *close]

    # Addition of a product with a negative constant factor: a subtraction.
    if isinstance(rhs, AffineBinaryOpExpr) and rhs.kind is AffineBinaryOpKind.Mul:
        factor = _constant(rhs.rhs)
        if factor == -1:
            inner = _STRONG if _is_add(rhs.lhs) else _WEAK
            return [*open_, (lhs, _WEAK), " - ", (rhs.lhs, inner), *close]
        if factor is not None and factor < -1:
            return [*open_, (lhs, _WEAK), " - ", (rhs.lhs, _STRONG), f" * {-factor}", *close]
    # Addition of a negative constant: a subtraction.
    value = _constant(rhs)
    if value is not None and value < 0:
        return [*open_, (lhs, _WEAK), f" - {-value}", *close]
    # MLIR prints a right operand that is itself an addition without
    # parentheses; they are kept here so the text reads back unchanged.
    right = _STRONG if _is_add(rhs) else _WEAK
    return [*open_, (lhs, _WEAK), " + ", (rhs, right), *close]


def affine_expr_text(expr: AffineExpr) -> str:
    """``expr`` as MLIR prints it (``d0 * 2 + s0 - 1``)."""
    out: list[str] = []
    # An explicit stack: long sums nest as deep as they have terms.
    stack: list[_Piece] = [(expr, _WEAK)]
    while stack:
        piece = stack.pop()
        if isinstance(piece, str):
            out.append(piece)
        else:
            stack.extend(reversed(_expand(*piece)))
    return "".join(out)


def _space(num_dims: int, num_symbols: int) -> str:
    text = "(" + ", ".join(f"d{i}" for i in range(num_dims)) + ")"
    if num_symbols:
        text += "[" + ", ".join(f"s{i}" for i in range(num_symbols)) + "]"
    return text


def affine_map_text(affine_map: AffineMap) -> str:
    """``(d0, d1)[s0] -> (d1, d0 + s0)``, without ``affine_map<...>``."""
    results = ", ".join(affine_expr_text(e) for e in affine_map.results)
    return f"{_space(affine_map.num_dims, affine_map.num_symbols)} -> ({results})"


def constraint_expr(constraint: AffineConstraintExpr) -> tuple[AffineExpr, bool]:
    """The expression MLIR stores for ``constraint`` (compared with 0) and
    whether it is an equality."""
    lhs, rhs = constraint.lhs, constraint.rhs
    kind = constraint.kind
    if kind is AffineConstraintKind.le:
        lhs, rhs = rhs, lhs
    if _constant(rhs) == 0:
        return lhs, kind is AffineConstraintKind.eq
    try:
        expr = lhs - rhs
    except (NotImplementedError, ValueError):
        negated = AffineBinaryOpExpr(AffineBinaryOpKind.Mul, rhs, AffineConstantExpr(-1))
        expr = AffineBinaryOpExpr(AffineBinaryOpKind.Add, lhs, negated)
    return expr, kind is AffineConstraintKind.eq


def affine_set_text(affine_set: AffineSet) -> str:
    """``(d0)[s0] : (d0 - s0 >= 0, d0 == 0)``, without ``affine_set<...>``."""
    parts = []
    for constraint in affine_set.constraints:
        expr, is_eq = constraint_expr(constraint)
        parts.append(affine_expr_text(expr) + (" == 0" if is_eq else " >= 0"))
    space = _space(affine_set.num_dims, affine_set.num_symbols)
    return f"{space} : ({', '.join(parts)})"


def affine_attr_text(attr: AffineMapAttr | AffineSetAttr) -> str:
    """The attribute spelled out: ``affine_map<...>`` or ``affine_set<...>``."""
    if isinstance(attr, AffineMapAttr):
        return f"affine_map<{affine_map_text(attr.data)}>"
    return f"affine_set<{affine_set_text(attr.data)}>"


def alias_base(attr: Attribute) -> str | None:
    """The alias name the builtin dialect gives ``attr``, if any."""
    if isinstance(attr, AffineMapAttr):
        return "map"
    if isinstance(attr, AffineSetAttr):
        return "set"
    return None


def assign_aliases(visited: Iterable[Attribute]) -> dict[Attribute, str]:
    """MLIR's alias numbering for the attributes met while printing, in the
    order met: every distinct attribute once, ordered by alias name (all
    ``map`` before all ``set``) and then by first appearance; the first of
    each name has no number (``#map``, ``#map1``, ``#map2``, ...).  The
    result's order is the order the definitions print in."""
    firsts: dict[Attribute, str] = {}
    for attr in visited:
        if attr not in firsts:
            base = alias_base(attr)
            if base is not None:
                firsts[attr] = base
    ordered = sorted(firsts.items(), key=lambda item: item[1])  # stable
    counts: dict[str, int] = {}
    names: dict[Attribute, str] = {}
    for attr, base in ordered:
        index = counts.get(base, 0)
        counts[base] = index + 1
        names[attr] = f"#{base}{index}" if index else f"#{base}"
    return names
