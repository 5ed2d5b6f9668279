"""substitute() prints what ast.unparse prints for the substituted tree."""

from __future__ import annotations

import random

import pytest

from tfrt.passes.fuse_elementwise import _substitute_ast, substitute


@pytest.mark.parametrize(
    "expr, mapping, want",
    [
        ("maximum((a0 + a1), cast_f32(0.0))", {"a0": "a1", "a1": "a0"}, "maximum(a1 + a0, cast_f32(0.0))"),
        ("a0 * a0", {"a0": "(a0 + a1)"}, "(a0 + a1) * (a0 + a1)"),
        ("a0 ** a1", {"a0": "-a0", "a1": "a1 ** 2"}, "(-a0) ** a1 ** 2"),
        ("-a0", {"a0": "a0 - a1"}, "-(a0 - a1)"),
        ("where(a0, a1, (-inf))", {}, "where(a0, a1, -inf)"),
        # ast.unparse keeps the precedence a replacement last had where a call
        # argument sets none: the same text, the same way.
        ("a1 * maximum(a1, 2)", {"a1": "(x + y)"}, "(x + y) * maximum((x + y), 2)"),
        ("maximum(a1, 2) * a1", {"a1": "(x + y)"}, "maximum(x + y, 2) * (x + y)"),
        ("a0 < a1", {"a0": "a1"}, "a1 < a1"),  # no fast path: ast prints it
    ],
)
def test_examples(expr, mapping, want):
    assert substitute(expr, mapping) == want == _substitute_ast(expr, mapping)


def _expr(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.25:
        return rng.choice(["a0", "a1", "a2", "cast_f32(1.0)", "2", "0.5", "True", "nan", "(-inf)"])
    sub = [_expr(rng, depth - 1) for _ in range(3)]
    return rng.choice(
        [
            f"({sub[0]} {rng.choice(['+', '-', '*', '/', '**', '%', '//'])} {sub[1]})",
            f"{sub[0]} {rng.choice(['+', '-', '*', '/'])} {sub[1]}",
            f"-{sub[0]}",
            f"(-({sub[0]}))",
            f"{rng.choice(['maximum', 'where', 'exp'])}({', '.join(sub[: rng.randrange(1, 4)])})",
        ]
    )


def test_random_expressions_print_as_ast_prints_them():
    rng = random.Random(7)
    for _ in range(3000):
        expr = _expr(rng, 4)
        mapping = {
            f"a{j}": rng.choice([f"a{rng.randrange(4)}", f"({_expr(rng, 2)})", _expr(rng, 2)])
            for j in range(3)
            if rng.random() < 0.6
        }
        assert substitute(expr, mapping) == _substitute_ast(expr, mapping), (expr, mapping)
