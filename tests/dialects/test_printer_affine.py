"""Affine maps and integer sets in the MLIR-exact printer: MLIR's expression
syntax, the ``#map``/``#set`` aliases (numbering, sharing, order, generic
form, nesting in other attributes and in types), and that what is printed
parses back to the same IR."""

from __future__ import annotations

import io
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    FunctionType,
    FusedLoc,
    IntAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    f32,
)
from xdsl.ir import Block, Region
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
from xdsl.parser import Parser

from tfrt.dialects import make_context
from tfrt.dialects.affine_printing import (
    affine_attr_text,
    affine_expr_text,
    affine_map_text,
    affine_set_text,
    assign_aliases,
)
from tfrt.dialects.printer import MLIRPrinter, print_module
from tfrt.dialects.syntax import parse_module

d0, d1, d2 = (AffineDimExpr(i) for i in range(3))
s0, s1 = AffineSymExpr(0), AffineSymExpr(1)


def _bin(kind: AffineBinaryOpKind, lhs: AffineExpr, rhs: AffineExpr | int) -> AffineExpr:
    """A binary node as given, without xDSL's simplifications."""
    if isinstance(rhs, int):
        rhs = AffineConstantExpr(rhs)
    return AffineBinaryOpExpr(kind, lhs, rhs)


ADD, MUL = AffineBinaryOpKind.Add, AffineBinaryOpKind.Mul


def xdsl_attr(text: str):
    """An affine attribute as xDSL's parser (the one our frontend uses for
    ``affine_map<...>``) builds it."""
    return Parser(make_context(), text).parse_attribute()


def frontend(text: str, **kw) -> ModuleOp:
    return parse_module(textwrap.dedent(text), "test.mlir", allow_unregistered=True, **kw)


def frontend_print(text: str, **flags) -> str:
    return print_module(frontend(text), **flags)


def module_of(attrs: dict) -> ModuleOp:
    """``module { func.func @f() attributes {attrs} { return } }``."""
    block = Block()
    block.add_op(func.ReturnOp())
    fn = func.FuncOp("f", FunctionType.from_lists([], []), Region(block))
    fn.attributes.update(attrs)
    return ModuleOp([fn])


# ---------------------------------------------------------------------------
# Expressions, maps and sets


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("d0 - 1", "d0 - 1"),
        ("d0 + -1", "d0 - 1"),
        ("d1 * 2 + s0", "d1 * 2 + s0"),
        ("d0 floordiv 4", "d0 floordiv 4"),
        ("d0 ceildiv 4", "d0 ceildiv 4"),
        ("-d1", "-d1"),
        ("d1 * -1", "-d1"),
        ("(d0 + d1) mod 3", "(d0 + d1) mod 3"),
        ("d0 * -2", "d0 * -2"),
        ("d0 - d1", "d0 - d1"),
        ("d0 + d1 * -1", "d0 - d1"),
        ("d0 - d1 * 3", "d0 - d1 * 3"),
        ("d0 + d1 * -3", "d0 - d1 * 3"),
        ("-d0 + 5", "-d0 + 5"),
        ("5 - d0", "-d0 + 5"),
        ("s0 * 4 - d0", "s0 * 4 - d0"),
        ("d0 mod 4 - d1 floordiv 2", "d0 mod 4 - d1 floordiv 2"),
        ("d0 - (d1 floordiv 2) * 3", "d0 - (d1 floordiv 2) * 3"),
        ("(d0 floordiv 2) floordiv 3", "(d0 floordiv 2) floordiv 3"),
        ("-(d0 floordiv 2)", "-(d0 floordiv 2)"),
        ("(-d0) floordiv 2", "(-d0) floordiv 2"),
        ("((d0 * 2) mod 5) * 3", "((d0 * 2) mod 5) * 3"),
        ("(d0 + 1) floordiv 2 + d1", "(d0 + 1) floordiv 2 + d1"),
        ("d0 + d1 + d2 - 7", "d0 + d1 + d2 - 7"),
        ("2 * d0 + 3", "d0 * 2 + 3"),
        ("d0 floordiv -2", "d0 floordiv -2"),
        ("42", "42"),
        ("-7", "-7"),
        ("s0", "s0"),
    ],
)
def test_expressions_print_like_mlir(source, expected):
    attr = xdsl_attr(f"affine_map<(d0, d1, d2)[s0] -> ({source})>")
    assert affine_expr_text(attr.data.results[0]) == expected


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        # Trees xDSL's construction would simplify away, printed by MLIR's rules.
        (_bin(ADD, d0, _bin(MUL, _bin(ADD, d1, d2), -1)), "d0 - (d1 + d2)"),
        (_bin(MUL, _bin(ADD, d0, d1), 2), "(d0 + d1) * 2"),
        (_bin(MUL, _bin(ADD, d0, d1), -1), "-(d0 + d1)"),
        (_bin(MUL, d0, s0), "d0 * s0"),
        (_bin(ADD, _bin(MUL, d0, -1), -3), "-d0 - 3"),
        (_bin(MUL, _bin(MUL, d0, -1), 2), "(-d0) * 2"),
        (_bin(ADD, d0, _bin(MUL, _bin(MUL, d1, 2), -1)), "d0 - d1 * 2"),
        (_bin(ADD, d0, _bin(MUL, _bin(AffineBinaryOpKind.Mod, d1, 4), -5)), "d0 - (d1 mod 4) * 5"),
        # MLIR would drop these parentheses; kept so the text reads back as
        # the same tree.
        (_bin(ADD, d0, _bin(ADD, d1, d2)), "d0 + (d1 + d2)"),
        (_bin(ADD, d0, _bin(ADD, _bin(MUL, d1, -1), _bin(MUL, d2, -1))), "d0 + (-d1 - d2)"),
    ],
)
def test_unsimplified_trees_print_like_mlir(expr, expected):
    assert affine_expr_text(expr) == expected


def test_long_sums_do_not_recurse():
    expr: AffineExpr = d0
    for i in range(5000):
        expr = _bin(ADD, expr, d1 if i % 2 else _bin(MUL, d2, -1))
    text = affine_expr_text(expr)
    assert text.startswith("d0 - d2 + d1 - d2 + d1") and text.count(" ") == 10000


@pytest.mark.parametrize(
    ("map_", "expected"),
    [
        (AffineMap(0, 0, ()), "() -> ()"),
        (AffineMap(0, 0, (AffineConstantExpr(0),)), "() -> (0)"),
        (AffineMap(0, 2, (s0 + s1,)), "()[s0, s1] -> (s0 + s1)"),
        (AffineMap(2, 0, (d1, d0)), "(d0, d1) -> (d1, d0)"),
        (AffineMap(3, 0, ()), "(d0, d1, d2) -> ()"),
        (AffineMap(1, 1, (d0 - s0, d0 * 4)), "(d0)[s0] -> (d0 - s0, d0 * 4)"),
    ],
)
def test_map_text(map_, expected):
    assert affine_map_text(map_) == expected
    assert affine_attr_text(AffineMapAttr(map_)) == f"affine_map<{expected}>"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("(d0)[s0] : (d0 - s0 >= 0, d0 == 0)", "(d0)[s0] : (d0 - s0 >= 0, d0 == 0)"),
        ("(d0)[s0] : (d0 >= s0)", "(d0)[s0] : (d0 - s0 >= 0)"),
        ("(d0, d1) : (d0 - d1 == 2)", "(d0, d1) : (d0 - d1 - 2 == 0)"),
        # xDSL builds `d0 - (d1 + 2)` as `d0 + (d1 * -1 + -2)`: the inner sum
        # keeps its parentheses, or the text would read back as another tree.
        ("(d0, d1) : (d0 == d1 + 2)", "(d0, d1) : (d0 + (-d1 - 2) == 0)"),
        ("(d0) : (3 == d0)", "(d0) : (-d0 + 3 == 0)"),
        # MLIR keeps only `>= 0` and `== 0`: `a <= b` is `b - a >= 0`.
        ("(d0) : (d0 <= 5)", "(d0) : (-d0 + 5 >= 0)"),
        ("(d0)[s0] : (d0 floordiv 2 <= s0)", "(d0)[s0] : (-(d0 floordiv 2) + s0 >= 0)"),
        ("() : ()", "() : ()"),
        ("()[s0] : (s0 - 1 >= 0)", "()[s0] : (s0 - 1 >= 0)"),
    ],
)
def test_set_text(source, expected):
    attr = xdsl_attr(f"affine_set<{source}>")
    assert affine_set_text(attr.data) == expected


def test_constraints_with_a_right_hand_side_print_as_differences():
    constraints = (
        AffineConstraintExpr(AffineConstraintKind.ge, d0, AffineConstantExpr(3), canonicalize=False),
        AffineConstraintExpr(AffineConstraintKind.eq, d0, s0, canonicalize=False),
        AffineConstraintExpr(AffineConstraintKind.le, d0, s0, canonicalize=False),
    )
    text = affine_set_text(AffineSet(1, 1, constraints))
    assert text == "(d0)[s0] : (d0 - 3 >= 0, d0 - s0 == 0, s0 - d0 >= 0)"


# ---------------------------------------------------------------------------
# Aliases


def test_the_brief_example_prints_exactly_like_mlir():
    out = frontend_print(
        """
        #map = affine_map<(d0, d1)[s0] -> (d0 - 1, d1 * 2 + s0, d0 floordiv 4, -d1, (d0 + d1) mod 3, d0 * -2)>
        func.func @f() attributes {m = #map} { return }
        """
    )
    assert out == textwrap.dedent(
        """\
        #map = affine_map<(d0, d1)[s0] -> (d0 - 1, d1 * 2 + s0, d0 floordiv 4, -d1, (d0 + d1) mod 3, d0 * -2)>
        module {
          func.func @f() attributes {m = #map} {
            return
          }
        }
        """
    )


def test_aliases_are_shared_numbered_by_first_use_and_maps_come_before_sets():
    out = frontend_print(
        """
        #a = affine_map<(d0) -> (d0 + 1)>
        #b = affine_map<(d0) -> (d0 + 2)>
        func.func @f() attributes {
            a_set = affine_set<(d0) : (d0 >= 0)>,
            b = #b,
            c = [#a, #b, affine_set<(d0) : (d0 == 0)>],
            d = {k = #a, z = affine_set<(d0) : (d0 >= 0)>}} {
          return
        }
        """
    )
    assert out == textwrap.dedent(
        """\
        #map = affine_map<(d0) -> (d0 + 2)>
        #map1 = affine_map<(d0) -> (d0 + 1)>
        #set = affine_set<(d0) : (d0 >= 0)>
        #set1 = affine_set<(d0) : (d0 == 0)>
        module {
          func.func @f() attributes {a_set = #set, b = #map, c = [#map1, #map, #set1], d = {k = #map1, z = #set}} {
            return
          }
        }
        """
    )


def test_the_source_alias_names_are_not_kept_and_equal_maps_share_one():
    out = frontend_print(
        """
        #first = affine_map<(i, j) -> (j, i)>
        #second = affine_map<(d0, d1) -> (d1, d0)>
        func.func @f() attributes {x = #first, y = #second, z = affine_map<(a, b) -> (b, a)>} { return }
        """
    )
    assert out.splitlines()[0] == "#map = affine_map<(d0, d1) -> (d1, d0)>"
    assert out.splitlines()[1] == "module {"
    assert "{x = #map, y = #map, z = #map}" in out


def test_maps_in_types_get_aliases_too():
    out = frontend_print(
        """
        func.func @f(%a: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>) -> memref<8xf32, affine_map<(d0)[s0] -> (d0 + s0)>> {
          %0 = "t.op"(%a) : (memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>) -> memref<8xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
          return %0 : memref<8xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
        }
        """
    )
    assert out == textwrap.dedent(
        """\
        #map = affine_map<(d0, d1) -> (d1, d0)>
        #map1 = affine_map<(d0)[s0] -> (d0 + s0)>
        module {
          func.func @f(%arg0: memref<4x4xf32, #map>) -> memref<8xf32, #map1> {
            %0 = "t.op"(%arg0) : (memref<4x4xf32, #map>) -> memref<8xf32, #map1>
            return %0 : memref<8xf32, #map1>
          }
        }
        """
    )


def test_strided_layouts_keep_their_own_syntax():
    out = frontend_print(
        """
        func.func @f(%a: memref<8x8xf32, strided<[8, 1], offset: ?>>) { return }
        """
    )
    assert "#" not in out
    assert "memref<8x8xf32, strided<[8, 1], offset: ?>>" in out


def test_an_identity_layout_is_kept():
    # MLIR elides an identity layout (it is the default one); xDSL keeps it
    # in the type, so it prints, under an alias, to read back unchanged.
    text = "func.func @f(%a: memref<2x3xf32, affine_map<(d0, d1) -> (d0, d1)>>) { return }"
    out = frontend_print(text)
    assert out.startswith("#map = affine_map<(d0, d1) -> (d0, d1)>\nmodule {\n")
    assert "memref<2x3xf32, #map>" in out
    assert frontend(out).is_structurally_equivalent(frontend(text))


def test_linalg_generic_indexing_maps():
    out = frontend_print(
        """
        #a = affine_map<(m, n, k) -> (m, k)>
        #b = affine_map<(m, n, k) -> (k, n)>
        #c = affine_map<(m, n, k) -> (m, n)>
        func.func @mm(%x: tensor<4x8xf32>, %y: tensor<8x2xf32>, %z: tensor<4x2xf32>) -> tensor<4x2xf32> {
          %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<4x8xf32>, tensor<8x2xf32>) outs(%z : tensor<4x2xf32>) {
          ^bb0(%p: f32, %q: f32, %r: f32):
            %m = arith.mulf %p, %q : f32
            %s = arith.addf %r, %m : f32
            linalg.yield %s : f32
          } -> tensor<4x2xf32>
          %1 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %y : tensor<4x8xf32>, tensor<8x2xf32>) outs(%0 : tensor<4x2xf32>) {
          ^bb0(%p: f32, %q: f32, %r: f32):
            %m = arith.mulf %p, %q : f32
            %s = arith.addf %r, %m : f32
            linalg.yield %s : f32
          } -> tensor<4x2xf32>
          return %1 : tensor<4x2xf32>
        }
        """
    )
    lines = out.splitlines()
    assert lines[:4] == [
        "#map = affine_map<(d0, d1, d2) -> (d0, d2)>",
        "#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>",
        "#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>",
        "module {",
    ]
    assert "%0 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types" in out
    assert "%1 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types" in out


GENERIC_ORDER_SOURCE = """
func.func @f(%a: memref<4xf32, affine_map<(d0) -> (d0 + 3)>>) attributes {m = affine_map<(d0) -> (d0 + 1)>} {
  "t.op"() {x = affine_map<(d0) -> (d0 + 2)>} : () -> ()
  return
}
"""


def test_custom_form_numbers_in_text_order():
    out = frontend_print(GENERIC_ORDER_SOURCE)
    assert out.splitlines()[:3] == [
        "#map = affine_map<(d0) -> (d0 + 3)>",
        "#map1 = affine_map<(d0) -> (d0 + 1)>",
        "#map2 = affine_map<(d0) -> (d0 + 2)>",
    ]


def test_generic_form_numbers_regions_before_the_ops_own_attributes():
    # MLIR's alias walk visits a generic op's regions, then its types, then
    # its attributes and properties by name.
    out = frontend_print(GENERIC_ORDER_SOURCE, generic=True)
    assert out == textwrap.dedent(
        """\
        #map = affine_map<(d0) -> (d0 + 3)>
        #map1 = affine_map<(d0) -> (d0 + 2)>
        #map2 = affine_map<(d0) -> (d0 + 1)>
        "builtin.module"() ({
          "func.func"() <{function_type = (memref<4xf32, #map>) -> (), sym_name = "f"}> ({
          ^bb0(%arg0: memref<4xf32, #map>):
            "t.op"() {x = #map1} : () -> ()
            "func.return"() : () -> ()
          }) {m = #map2} : () -> ()
        }) : () -> ()
        """
    )


def test_generic_form_merges_properties_and_attributes_by_name():
    # Properties and discardable attributes are one dictionary to MLIR's
    # walk: `a` (an attribute) before `function_type` (a property) before `z`.
    out = frontend_print(
        """
        func.func @f(%a: memref<2xf32, affine_map<(d0) -> (d0 + 2)>>) attributes {
            a = affine_map<(d0) -> (d0 + 1)>, z = affine_map<(d0) -> (d0 + 3)>} {
          return
        }
        """,
        generic=True,
    )
    # The entry block's argument comes first (regions are walked first).
    assert out.splitlines()[:3] == [
        "#map = affine_map<(d0) -> (d0 + 2)>",
        "#map1 = affine_map<(d0) -> (d0 + 1)>",
        "#map2 = affine_map<(d0) -> (d0 + 3)>",
    ]
    op_only = module_of({"a": AffineMapAttr(AffineMap(1, 0, (d0 + 1,)))})
    fn = op_only.body.block.first_op
    fn.properties["function_type"] = FunctionType.from_lists(
        [MemRefType(f32, [2], AffineMapAttr(AffineMap(1, 0, (d0 + 2,))))], []
    )
    fn.attributes["z"] = AffineMapAttr(AffineMap(1, 0, (d0 + 3,)))
    lines = print_module(op_only, generic=True).splitlines()
    # No region mentions a map here: a, function_type, z.
    assert lines[:3] == [
        "#map = affine_map<(d0) -> (d0 + 1)>",
        "#map1 = affine_map<(d0) -> (d0 + 2)>",
        "#map2 = affine_map<(d0) -> (d0 + 3)>",
    ]


def test_unregistered_ops_use_the_generic_walk_in_the_custom_form():
    out = frontend_print(
        """
        "t.outer"() ({
          "t.inner"() {x = affine_map<() -> (2)>} : () -> ()
        }) {y = affine_map<() -> (1)>} : () -> ()
        """
    )
    assert out.splitlines()[:2] == ["#map = affine_map<() -> (2)>", "#map1 = affine_map<() -> (1)>"]


def test_debuginfo_keeps_aliases_and_inline_locations():
    out = frontend_print(
        """
        func.func @f() attributes {m = affine_map<(d0) -> (d0 floordiv 2)>} { return }
        """,
        debuginfo=True,
    )
    assert out.startswith("#map = affine_map<(d0) -> (d0 floordiv 2)>\nmodule {\n")
    assert 'attributes {m = #map} {' in out
    assert 'return loc("test.mlir":2:' in out


def test_maps_inside_locations_print_inline():
    loc = FileLineColLoc(StringAttr("a.mlir"), IntAttr(1), IntAttr(2))
    meta = AffineMapAttr(AffineMap(1, 0, (d0 * 2,)))
    module = module_of({"m": meta})
    module.body.block.first_op.location = FusedLoc(ArrayAttr([loc]), meta)
    out = print_module(module, debuginfo=True)
    assert out.startswith("#map = affine_map<(d0) -> (d0 * 2)>\nmodule {\n")
    assert 'loc(fused<affine_map<(d0) -> (d0 * 2)>>["a.mlir":1:2])' in out
    # A map that only a location mentions gets no alias.
    module = module_of({})
    module.body.block.first_op.location = FusedLoc(ArrayAttr([loc]), meta)
    assert print_module(module, debuginfo=True).startswith("module {\n")


def test_without_affine_attributes_nothing_changes():
    out = frontend_print('func.func @f() attributes {s = "affine_map"} { return }')
    assert out == 'module {\n  func.func @f() attributes {s = "affine_map"} {\n    return\n  }\n}\n'


def test_a_printer_without_a_top_level_op_prints_inline():
    buf = io.StringIO()
    attr = DictionaryAttr({"m": AffineMapAttr(AffineMap(1, 0, (d0 - 1,)))})
    MLIRPrinter(stream=buf).print_attribute(attr)
    assert buf.getvalue() == "{m = affine_map<(d0) -> (d0 - 1)>}"


def test_assign_aliases_orders_by_name_then_first_use():
    m1 = AffineMapAttr(AffineMap(1, 0, (d0,)))
    m2 = AffineMapAttr(AffineMap(1, 0, (d0 + 1,)))
    s1 = AffineSetAttr(AffineSet(1, 0, ()))
    names = assign_aliases([s1, m2, f32, m1, m2, s1])
    assert list(names.items()) == [(m2, "#map"), (m1, "#map1"), (s1, "#set")]


# ---------------------------------------------------------------------------
# What is printed parses back to the same IR


ROUND_TRIP_SOURCES = [
    """
    #map = affine_map<(d0, d1)[s0] -> (d0 - 1, d1 * 2 + s0, d0 floordiv 4, -d1, (d0 + d1) mod 3, d0 * -2)>
    func.func @f() attributes {m = #map, n = [#map, affine_map<() -> ()>], s = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0)>} { return }
    """,
    """
    func.func @g(%a: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, %i: index) -> memref<4xf32, affine_map<(d0)[s0] -> (d0 + s0)>> {
      %b = memref.alloc()[%i] : memref<4xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
      return %b : memref<4xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
    }
    """,
    """
    func.func @h(%t: tensor<4x8xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
      %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%t : tensor<4x8xf32>) outs(%o : tensor<4xf32>) attrs = {tag = affine_set<(d0) : (d0 - 1 >= 0)>} {
      ^bb0(%p: f32, %q: f32):
        %s = arith.addf %p, %q : f32
        linalg.yield %s : f32
      } -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    """,
    """
    func.func @nested() attributes {m = affine_map<(d0) -> (d0 + (d0 + 1), d0 - (d0 - 2), (d0 floordiv 2) * 3 - d0 mod 5)>} {
      "t.op"() ({
        "t.in"() {x = affine_map<(d0) -> (d0 + (d0 + 1), d0 - (d0 - 2), (d0 floordiv 2) * 3 - d0 mod 5)>} : () -> ()
      }) : () -> ()
      return
    }
    """,
]


@pytest.mark.parametrize("source", ROUND_TRIP_SOURCES)
@pytest.mark.parametrize("generic", [False, True])
def test_printed_text_parses_back_to_the_same_ir(source, generic):
    original = frontend(source)
    text = print_module(original, generic=generic)
    again = frontend(text)
    assert again.is_structurally_equivalent(original)
    assert print_module(again, generic=generic) == text
    # Either form reads back as the other.
    other = print_module(original, generic=not generic)
    assert frontend(other).is_structurally_equivalent(original)


_CONSTS = st.integers(-9, 9)


@st.composite
def _exprs(draw, depth: int = 0) -> AffineExpr:
    if depth >= 4 or draw(st.integers(0, 3)) == 0:
        kind = draw(st.sampled_from(["d", "s", "c"]))
        if kind == "d":
            return AffineDimExpr(draw(st.integers(0, 2)))
        if kind == "s":
            return AffineSymExpr(draw(st.integers(0, 1)))
        return AffineConstantExpr(draw(_CONSTS))
    lhs = draw(_exprs(depth + 1))
    op = draw(st.sampled_from(["+", "-", "*", "neg", "floordiv", "ceildiv", "mod", "nest"]))
    if op in ("+", "-", "nest"):
        rhs = draw(_exprs(depth + 1))
        if op == "+":
            return lhs + rhs
        if op == "-":
            return lhs - rhs
        return lhs + (rhs + draw(_exprs(depth + 1)))
    if op == "*":
        return lhs * draw(_CONSTS)
    if op == "neg":
        return -lhs
    divisor = draw(st.integers(1, 7))
    if op == "floordiv":
        return lhs // divisor
    if op == "ceildiv":
        return lhs.ceil_div(divisor)
    return lhs % divisor


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_exprs(), min_size=0, max_size=3), st.lists(_exprs(), min_size=1, max_size=2))
def test_random_maps_and_sets_read_back_unchanged(results, constraints):
    map_attr = AffineMapAttr(AffineMap(3, 2, tuple(results)))
    set_attr = AffineSetAttr(
        AffineSet(3, 2, tuple(AffineConstraintExpr(AffineConstraintKind.ge, c, AffineConstantExpr(0)) for c in constraints))
    )
    module = module_of({"m": map_attr, "s": set_attr})
    text = print_module(module)
    parsed = frontend(text)
    attrs = parsed.body.block.first_op.attributes
    assert attrs["m"] == map_attr, text
    assert attrs["s"] == set_attr, text
    assert print_module(parsed) == text
