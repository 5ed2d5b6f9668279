"""Custom forms of scf.while/parallel/execute_region/index_switch/reduce and cf.switch.

xDSL's own parser (the hand-written ``parse()`` of the op classes) is the
oracle: both frontends must build the same IR.  Where xDSL cannot parse
MLIR's syntax (``scf.parallel`` has no custom parser in xDSL; ``scf.while``
without an assignment list; comma-separated ``scf.reduce`` regions), the
expected IR comes from an equivalent text xDSL does parse.
"""

from __future__ import annotations

import pytest
from syntax_helpers import generic, render, xdsl_parse
from tfrt.dialects import make_context
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import frontend, parse_module
from tfrt.dialects.syntax.formats import STANDARD_FORMATS
from tfrt.dialects.syntax.standard_ops import cf as std_cf
from tfrt.dialects.syntax.standard_ops import scf as std_scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i64

from tfrt.diagnostics import DiagnosticError

ARGS = "%x: i32, %y: f32, %n: index, %b: i1, %fl: i32, %ix: index, %i8: i8"


def fn(body: str, results: str = "") -> str:
    ret = f" -> {results}" if results else ""
    return f"func.func @f({ARGS}){ret} {{\n{body}}}\n"


def ours(src: str):
    return parse_module(src, "t.mlir", ctx=make_context())


def same_as_xdsl(src: str, oracle: str | None = None) -> None:
    assert generic(ours(src)) == generic(xdsl_parse(oracle or src))


def round_trips(src: str) -> None:
    first = ours(src)
    printed = print_module(first)
    assert generic(ours(printed)) == generic(first)


def diag(src: str) -> str:
    with pytest.raises(DiagnosticError) as info:
        ours(src)
    return render(info.value, src)


def ops_named(module, name: str):
    return [op for op in module.walk() if op.name == name]


# ---------------------------------------------------------------- the tables


def test_every_hand_parsed_scf_op_has_a_format_and_a_conflict_free_rule():
    from xdsl.dialects.scf import Scf

    hand_parsed = {
        o.name for o in Scf.operations if o.get_irdl_definition().assembly_format is None
    }
    assert hand_parsed <= set(STANDARD_FORMATS)
    for name in std_scf.FORMATS:
        assert STANDARD_FORMATS[name] == std_scf.FORMATS[name]
    assert "SwitchOpCases" in std_cf.RULES
    fe = frontend(make_context(), "scf. cf. func.")
    ours_ = set(std_scf.FORMATS) | {"cf.switch", "cf.br", "cf.cond_br", "cf.assert"}
    assert not ours_ & set(fe.skipped)
    assert set(fe.rule_ops.values()) >= ours_
    # The one kept conflict: `{` after a reduction region may start another
    # region (xDSL's space-separated list) or an attr-dict (MLIR); the region wins.
    assert set(fe.conflicts) & ours_ <= {"scf.reduce"}


# ---------------------------------------------------------------- scf.while

WHILE_TWO = """\
  %r:2 = scf.while (%a = %x, %c = %y) : (i32, f32) -> (i32, f32) {
    %k = arith.constant 1 : i32
    %s = arith.addi %a, %k : i32
    scf.condition(%b) %s, %c : i32, f32
  } do {
  ^bb0(%a2: i32, %c2: f32):
    scf.yield %a2, %c2 : i32, f32
  }
"""

WHILE_SHAPES = {
    "two args, two results": WHILE_TWO,
    "single result without parentheses": """\
  %r = scf.while (%a = %x) : (i32) -> i32 {
    scf.condition(%b) %a : i32
  } do {
  ^bb0(%a2: i32):
    scf.yield %a2 : i32
  }
""",
    "results differ from the arguments": """\
  %r = scf.while (%a = %x) : (i32) -> f32 {
    scf.condition(%b) %y : f32
  } do {
  ^bb0(%v: f32):
    scf.yield %x : i32
  }
""",
    "no results, attributes": """\
  scf.while (%a = %x) : (i32) -> () {
    scf.condition(%b)
  } do {
    scf.yield %x : i32
  } attributes {n = 3 : i64, tag = "w"}
""",
    "empty assignment list": """\
  scf.while () : () -> () {
    scf.condition(%b)
  } do {
    scf.yield
  }
""",
}


@pytest.mark.parametrize("body", WHILE_SHAPES.values(), ids=WHILE_SHAPES)
def test_while_matches_xdsl(body):
    src = fn(body + "  func.return\n")
    same_as_xdsl(src)
    round_trips(src)


def test_while_binds_the_before_region_arguments():
    m = ours(fn(WHILE_TWO + "  func.return\n"))
    (w,) = ops_named(m, "scf.while")
    before = w.before_region.block
    assert [a.type for a in before.args] == [o.type for o in w.arguments]
    add = ops_named(m, "arith.addi")[0]
    assert add.operands[0] is before.args[0]
    cond = before.last_op
    assert cond.name == "scf.condition" and cond.args[1] is before.args[1]
    assert len(w.res) == 2
    after = w.after_region.block
    assert after.last_op.operands[0] is after.args[0]


def test_while_without_assignments_is_mlirs_spelling():
    # MLIR prints no `()` when there are no operands; xDSL needs it.
    src = fn("  scf.while : () -> () {\n    scf.condition(%b)\n  } do {\n    scf.yield\n  }\n"
             "  func.return\n")
    same_as_xdsl(src, src.replace("scf.while :", "scf.while () :"))
    round_trips(src)


# ---------------------------------------------------------------- scf.parallel
# xDSL has no custom parser (nor printer) for scf.parallel: the oracle is the
# generic form.

C = "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
CST = "  %z = arith.constant 0.0 : f32\n  %zi = arith.constant 0 : i32\n"

PARALLEL = {
    "one loop, no init": (
        C + "  scf.parallel (%i) = (%c0) to (%n) step (%c1) {\n"
        '    %u = arith.addi %i, %i : index\n    scf.reduce\n  }\n',
        C + '  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({\n'
        "  ^bb0(%i: index):\n"
        '    %u = arith.addi %i, %i : index\n    scf.reduce\n  }) : (index, index, index) -> ()\n',
    ),
    "implied scf.reduce terminator, attr-dict": (
        C + "  scf.parallel (%i, %j) = (%c0, %c1) to (%n, %ix) step (%c1, %c1) {\n"
        "  } {mapping = 7 : i64}\n",
        C + '  "scf.parallel"(%c0, %c1, %n, %ix, %c1, %c1) <{operandSegmentSizes = '
        "array<i32: 2, 2, 2, 0>}> ({\n"
        "  ^bb0(%i: index, %j: index):\n    scf.reduce\n"
        "  }) {mapping = 7 : i64} : (index, index, index, index, index, index) -> ()\n",
    ),
    "init, single result without parentheses": (
        C + CST + "  %p = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) "
        "init (%z) -> f32 {\n"
        "    %v = arith.constant 1.0 : f32\n"
        "    scf.reduce(%v : f32) {\n    ^bb0(%l: f32, %r: f32):\n"
        "      %s = arith.addf %l, %r : f32\n      scf.reduce.return %s : f32\n    }\n  }\n",
        C + CST + '  %p = "scf.parallel"(%c0, %c0, %n, %n, %c1, %c1, %z) <{operandSegmentSizes = '
        "array<i32: 2, 2, 2, 1>}> ({\n  ^bb0(%i: index, %j: index):\n"
        "    %v = arith.constant 1.0 : f32\n"
        "    scf.reduce(%v : f32) {\n    ^bb0(%l: f32, %r: f32):\n"
        "      %s = arith.addf %l, %r : f32\n      scf.reduce.return %s : f32\n    }\n"
        "  }) : (index, index, index, index, index, index, f32) -> f32\n",
    ),
    "two reductions, comma-separated regions": (
        C + CST + "  %p:2 = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%z, %zi) "
        "-> (f32, i32) {\n"
        "    scf.reduce(%z, %zi : f32, i32) {\n    ^bb0(%l: f32, %r: f32):\n"
        "      scf.reduce.return %l : f32\n    }, {\n    ^bb0(%l: i32, %r: i32):\n"
        "      %s = arith.addi %l, %r : i32\n      scf.reduce.return %s : i32\n    }\n  }\n",
        C + CST + '  %p:2 = "scf.parallel"(%c0, %n, %c1, %z, %zi) <{operandSegmentSizes = '
        "array<i32: 1, 1, 1, 2>}> ({\n  ^bb0(%i: index):\n"
        "    scf.reduce(%z, %zi : f32, i32) {\n    ^bb0(%l: f32, %r: f32):\n"
        "      scf.reduce.return %l : f32\n    } {\n    ^bb0(%l: i32, %r: i32):\n"
        "      %s = arith.addi %l, %r : i32\n      scf.reduce.return %s : i32\n    }\n"
        "  }) : (index, index, index, f32, i32) -> (f32, i32)\n",
    ),
}


@pytest.mark.parametrize("pair", PARALLEL.values(), ids=PARALLEL)
def test_parallel_matches_the_generic_form(pair):
    custom, generic_form = pair
    src = fn(custom + "  func.return\n")
    same_as_xdsl(src, fn(generic_form + "  func.return\n"))
    round_trips(src)


def test_parallel_binds_index_induction_variables():
    m = ours(fn(PARALLEL["one loop, no init"][0] + "  func.return\n"))
    (p,) = ops_named(m, "scf.parallel")
    (iv,) = p.body.block.args
    assert str(iv.type) == "index"
    assert ops_named(m, "arith.addi")[0].operands[0] is iv
    sizes = p.properties["operandSegmentSizes"]
    assert list(sizes.get_values()) == [1, 1, 1, 0]


def test_reduce_regions_may_be_separated_by_commas_or_spaces():
    custom = PARALLEL["two reductions, comma-separated regions"][0]
    spaced = custom.replace("    }, {\n", "    } {\n")
    assert spaced != custom
    assert generic(ours(fn(custom + "  func.return\n"))) == generic(
        ours(fn(spaced + "  func.return\n"))
    )


# ---------------------------------------------------------------- scf.execute_region

EXECUTE = {
    "one result": "  %r = scf.execute_region -> i32 {\n    scf.yield %x : i32\n  }\n",
    "one result in parentheses": (
        "  %r = scf.execute_region -> (i32) {\n    scf.yield %x : i32\n  }\n"
    ),
    "several results, several blocks": (
        "  %r:2 = scf.execute_region -> (i32, f32) {\n"
        "    cf.cond_br %b, ^bb1, ^bb2(%x : i32)\n"
        "  ^bb1:\n    cf.br ^bb2(%x : i32)\n"
        "  ^bb2(%v: i32):\n    scf.yield %v, %y : i32, f32\n  }\n"
    ),
    "no results": "  scf.execute_region {\n    %k = arith.constant 1 : i32\n    scf.yield\n  }\n",
}


@pytest.mark.parametrize("body", EXECUTE.values(), ids=EXECUTE)
def test_execute_region_matches_xdsl(body):
    src = fn(body + "  func.return\n")
    same_as_xdsl(src)
    # The printer prints every terminator, as MLIR does (xDSL's print()
    # drops them when there are no results, which no parser reads back).
    round_trips(src)


def test_execute_region_keeps_its_attr_dict():
    # MLIR keeps the attr-dict; xDSL's parse() drops it.
    src = fn("  %r = scf.execute_region -> i32 {\n    scf.yield %x : i32\n  } {tag = 5 : i64}\n"
             "  func.return\n")
    (op,) = ops_named(ours(src), "scf.execute_region")
    assert op.attributes["tag"] == IntegerAttr(5, i64)
    same_as_xdsl(
        src,
        fn('  %r = "scf.execute_region"() ({\n    scf.yield %x : i32\n  }) {tag = 5 : i64} '
           ": () -> i32\n  func.return\n"),
    )
    round_trips(src)


def test_execute_region_needs_its_terminator():
    # No implied terminator (MLIR's op has no SingleBlockImplicitTerminator).
    src = fn("  scf.execute_region {\n    %k = arith.constant 1 : i32\n  }\n  func.return\n")
    assert "is not a terminator" in diag(src)


# ---------------------------------------------------------------- scf.index_switch

SWITCH = {
    "results, negative and hex cases": (
        "  %r = scf.index_switch %n -> i32\n"
        "  case 2 {\n    scf.yield %x : i32\n  }\n"
        "  case -5 {\n    %k = arith.constant 7 : i32\n    scf.yield %k : i32\n  }\n"
        "  case 0x10 {\n    scf.yield %x : i32\n  }\n"
        "  default {\n    scf.yield %x : i32\n  }\n"
    ),
    "two results, attr-dict": (
        '  %r:2 = scf.index_switch %n {tag = "s"} -> i32, f32\n'
        "  case 1 {\n    scf.yield %x, %y : i32, f32\n  }\n"
        "  default {\n    scf.yield %x, %y : i32, f32\n  }\n"
    ),
    "only a default": "  scf.index_switch %ix\n  default {\n    scf.yield\n  }\n",
}


@pytest.mark.parametrize("body", SWITCH.values(), ids=SWITCH)
def test_index_switch_matches_xdsl(body):
    src = fn(body + "  func.return\n")
    same_as_xdsl(src)
    round_trips(src)


def test_index_switch_pieces():
    m = ours(fn(SWITCH["results, negative and hex cases"] + "  func.return\n"))
    (op,) = ops_named(m, "scf.index_switch")
    assert op.properties["cases"] == DenseArrayBase.from_list(i64, [2, -5, 16])
    assert len(op.case_regions) == 3
    assert op.case_regions[1].block.first_op.name == "arith.constant"


def test_index_switch_regions_get_the_implied_yield():
    # MLIR's op has SingleBlockImplicitTerminator<scf.yield>; xDSL's parse()
    # does not add it, so the oracle spells it.
    src = fn("  scf.index_switch %n\n  case 3 {\n  }\n  default {\n  }\n  func.return\n")
    spelled = src.replace("{\n  }", "{\n    scf.yield\n  }")
    same_as_xdsl(src, spelled)
    round_trips(src)


# ---------------------------------------------------------------- cf

CF_SWITCH = {
    "default only": (
        "  cf.switch %fl : i32, [\n    default: ^bb1\n  ]\n^bb1:\n  func.return\n"
    ),
    "default with operands": (
        "  cf.switch %fl : i32, [\n    default: ^bb1(%x : i32)\n  ]\n"
        "^bb1(%v: i32):\n  func.return\n"
    ),
    "cases with and without operands, attr-dict": (
        "  cf.switch %fl : i32, [\n"
        "    default: ^bb1(%x : i32),\n"
        "    42: ^bb2,\n"
        "    -3: ^bb3(%x, %fl : i32, i32),\n"
        "    0x7: ^bb1(%fl : i32)\n"
        '  ] {tag = "c"}\n'
        "^bb1(%v: i32):\n  func.return\n^bb2:\n  func.return\n"
        "^bb3(%p: i32, %q: i32):\n  func.return\n"
    ),
    "index flag": (
        "  cf.switch %ix : index, [\n    default: ^bb1,\n    5: ^bb2\n  ]\n"
        "^bb1:\n  func.return\n^bb2:\n  func.return\n"
    ),
    "i8 flag, unsigned spelling": (
        "  cf.switch %i8 : i8, [\n    default: ^bb1,\n    255: ^bb2,\n    -128: ^bb1\n  ]\n"
        "^bb1:\n  func.return\n^bb2:\n  func.return\n"
    ),
}


@pytest.mark.parametrize("body", CF_SWITCH.values(), ids=CF_SWITCH)
def test_cf_switch_matches_xdsl(body):
    src = fn(body)
    same_as_xdsl(src)
    round_trips(src)


def test_cf_switch_pieces():
    m = ours(fn(CF_SWITCH["cases with and without operands, attr-dict"]))
    (op,) = ops_named(m, "cf.switch")
    values = op.properties["case_values"]
    assert [v for v in values.get_values()] == [42, -3, 7]
    assert str(values.type) == "vector<3xi32>"
    assert list(op.properties["case_operand_segments"].get_values()) == [0, 2, 1]
    assert len(op.default_operands) == 1 and len(op.case_operands) == 3
    blocks = list(op.parent_block().parent_region().blocks)
    assert op.default_block is blocks[1]
    assert list(op.case_blocks) == [blocks[2], blocks[3], blocks[1]]
    assert op.attributes["tag"].data == "c"


def test_cf_switch_without_cases_has_no_case_values():
    m = ours(fn(CF_SWITCH["default only"]))
    (op,) = ops_named(m, "cf.switch")
    assert "case_values" not in op.properties
    assert list(op.properties["case_operand_segments"].get_values()) == []


def test_other_cf_ops_already_have_custom_forms():
    src = fn(
        '  cf.assert %b, "must hold"\n'
        "  cf.cond_br %b, ^bb1(%x : i32), ^bb2\n"
        "^bb1(%v: i32):\n  cf.br ^bb2\n"
        "^bb2:\n  cf.br ^bb3(%x, %y : i32, f32)\n"
        "^bb3(%p: i32, %q: f32):\n  cf.cond_br %b, ^bb3(%p, %q : i32, f32), ^bb4\n"
        "^bb4:\n  func.return\n"
    )
    same_as_xdsl(src)
    round_trips(src)


# ---------------------------------------------------------------- errors

ERRORS = {
    "while: types and assignments disagree": (
        "  %r = scf.while (%a = %x) : (i32, f32) -> i32 {\n",
        "t.mlir:2:19: error: expected as many input types as operands (expected 1 got 2)",
    ),
    "while: missing function type": (
        "  %r = scf.while (%a = %x) {\n",
        "t.mlir:2:28: error: unexpected '{'; expected one of: ':'",
    ),
    "while: argument bound twice": (
        "  %r:2 = scf.while (%a = %x, %a = %x) : (i32, i32) -> (i32, i32) {\n",
        "t.mlir:2:30: error: redefinition of SSA value '%a'",
    ),
    "while: result number in an argument name": (
        "  %r = scf.while (%a#1 = %x) : (i32) -> i32 {\n",
        "t.mlir:2:19: error: invalid region argument name '%a#1'",
    ),
    "while: init of the wrong type": (
        "  %r = scf.while (%a = %x) : (f32) -> f32 {\n    scf.condition(%b) %a : f32\n"
        "  } do {\n  ^bb0(%v: f32):\n    scf.yield %v : f32\n  }\n",
        "t.mlir:2:24: error: use of value '%x' expects different type than prior uses: "
        "'f32' vs 'i32'",
    ),
    "while: missing do": (
        "  scf.while (%a = %x) : (i32) -> () {\n    scf.condition(%b)\n  } {\n",
        "t.mlir:4:5: error: unexpected '{'; expected one of: 'do'",
    ),
    "parallel: fewer lower bounds than induction variables": (
        "  scf.parallel (%i, %j) = (%n) to (%n, %n) step (%n, %n) {\n",
        "t.mlir:2:28: error: expected 2 lower bounds (one per induction variable), got 1",
    ),
    "parallel: no induction variables": (
        "  scf.parallel () = () to () step () {\n",
        "t.mlir:2:3: error: 'scf.parallel' op needs at least one tuple element for "
        "lowerBound, upperBound and step",
    ),
    "parallel: init values without result types": (
        "  scf.parallel (%i) = (%n) to (%n) step (%n) init (%y) {\n",
        "t.mlir:2:52: error: 1 init values present, but 0 result types",
    ),
    "parallel: unknown keyword": (
        "  scf.parallel (%i) = (%n) to (%n) step (%n) inits (%y) -> f32 {\n",
        "t.mlir:2:46: error: unexpected operation name 'inits'; expected one of: '->', 'init', '{'",
    ),
    "parallel: bound not an index": (
        "  scf.parallel (%i) = (%x) to (%n) step (%n) {\n",
        "t.mlir:2:24: error: use of value '%x' expects different type than prior uses: "
        "'index' vs 'i32'",
    ),
    "execute_region: arrow without types": (
        "  %r = scf.execute_region -> {\n",
        "t.mlir:2:30: error: unexpected '{'; expected one of: '('",
    ),
    "index_switch: case value is not an integer": (
        "  scf.index_switch %n\n  case x {\n",
        "t.mlir:3:8: error: unexpected operation name 'x'; expected one of: integer",
    ),
    "index_switch: explicit plus sign": (
        "  scf.index_switch %n\n  case +1 {\n  }\n  default {\n  }\n",
        "t.mlir:3:8: error: expected integer value",
    ),
    "index_switch: case value beyond i64": (
        "  scf.index_switch %n\n  case 9223372036854775808 {\n  }\n  default {\n  }\n",
        "t.mlir:3:8: error: integer value 9223372036854775808 is out of the range of i64",
    ),
    "index_switch: arrow without types": (
        "  %r = scf.index_switch %n ->\n  default {\n",
        "t.mlir:3:3: error: unexpected operation name 'default'; expected one of:",
    ),
    "index_switch: duplicate case": (
        "  scf.index_switch %n\n  case 1 {\n  }\n  case 1 {\n  }\n  default {\n  }\n",
        "t.mlir:2:3: error: 'scf.index_switch' op has duplicate case value",
    ),
    "cf.switch: no default": (
        "  cf.switch %fl : i32, [\n    4: ^bb1\n  ]\n",
        "t.mlir:3:5: error: unexpected integer '4'; expected one of: 'default'",
    ),
    "cf.switch: case value out of range": (
        "  cf.switch %fl : i32, [\n    default: ^bb1,\n    4294967296: ^bb1\n  ]\n",
        "t.mlir:4:5: error: Integer value 4294967296 is out of range for type i32",
    ),
    "cf.switch: float flag": (
        "  cf.switch %y : f32, [\n    default: ^bb1,\n    4: ^bb1\n  ]\n",
        "t.mlir:4:5: error: case values need an integer or index flag type, not 'f32'",
    ),
    "cf.switch: operand and type counts differ": (
        "  cf.switch %fl : i32, [\n    default: ^bb1(%x, %x : i32)\n  ]\n",
        "t.mlir:3:19: error: 2 operands present, but expected 1",
    ),
    "cf.switch: empty operand list": (
        "  cf.switch %fl : i32, [\n    default: ^bb1()\n  ]\n",
        "t.mlir:3:19: error: unexpected ')'; expected one of: SSA value",
    ),
    "cf.switch: missing flag type": (
        "  cf.switch %fl, [\n    default: ^bb1\n  ]\n",
        "t.mlir:2:16: error: unexpected ','; expected one of: ':'",
    ),
    "cf.switch: case block missing": (
        "  cf.switch %fl : i32, [\n    default: ^bb1,\n    4: ^bb9\n  ]\n^bb1:\n  func.return\n",
        "t.mlir:4:8: error: reference to an undefined block '^bb9'",
    ),
}


@pytest.mark.parametrize("pair", ERRORS.values(), ids=ERRORS)
def test_malformed_forms_give_located_diagnostics(pair):
    body, expected = pair
    src = f"func.func @f({ARGS}) {{\n{body}  func.return\n}}\n"
    text = diag(src)
    first = text.splitlines()[0]
    assert first.startswith(expected), text
    # The caret line sits under the reported column.
    col = int(first.split(":")[2])
    assert text.splitlines()[2] == " " * (col - 1) + "^"
