"""canonicalize: folding, op patterns through the trait, DCE, locations."""

from __future__ import annotations

from pass_testing import body, context, run
from xdsl.dialects.builtin import i32
from xdsl.ir import Dialect, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait, Pure


class _ForwardIdentity(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, IdentityOp):
            rewriter.replace(op, [], [op.input])


class _IdentityCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        return (_ForwardIdentity(),)


@irdl_op_definition
class IdentityOp(IRDLOperation):
    """`ctest.identity %x : i32`, canonicalized to `%x`."""

    name = "ctest.identity"
    input = operand_def(i32)
    output = result_def(i32)
    traits = traits_def(_IdentityCanonicalization())


@irdl_op_definition
class PinOp(IRDLOperation):
    """A pure op with a pattern that never matches."""

    name = "ctest.pure"
    input = operand_def(i32)
    output = result_def(i32)
    traits = traits_def(Pure())


CTEST = Dialect("ctest", [IdentityOp, PinOp])


def test_folds_constants_and_keeps_the_folded_op_location():
    out = run(
        """
        func.func @f(%x: i32) -> i32 {
          %a = arith.constant 1 : i32 loc("in.mlir":2:3)
          %b = arith.constant 2 : i32 loc("in.mlir":3:3)
          %c = arith.addi %a, %b : i32 loc("in.mlir":4:3)
          %d = arith.muli %x, %c : i32
          func.return %d : i32
        }
        """,
        "canonicalize",
        debuginfo=True,
    )
    assert '%c3_i32 = arith.constant 3 : i32 loc("in.mlir":4:3)' in out
    assert "arith.addi" not in out
    assert "%0 = arith.muli %arg0, %c3_i32 : i32" in out


def test_applies_patterns_the_op_declares_through_its_trait():
    out = run(
        """
        func.func @f(%x: i32) -> i32 {
          %y = "ctest.identity"(%x) : (i32) -> i32
          %z = "ctest.identity"(%y) : (i32) -> i32
          func.return %z : i32
        }
        """,
        "canonicalize",
        ctx=context(CTEST),
    )
    assert body(out) == ["func.func @f(%arg0: i32) -> i32 {", "return %arg0 : i32", "}"]


def test_removes_dead_pure_ops_and_keeps_effects():
    out = run(
        """
        func.func @f(%x: i32) -> i32 {
          %dead = "ctest.pure"(%x) : (i32) -> i32
          %dead2 = arith.addi %dead, %x : i32
          %kept = "ctest.unknown"(%x) : (i32) -> i32
          func.return %x : i32
        }
        """,
        "canonicalize",
        ctx=context(CTEST),
    )
    assert "ctest.pure" not in out and "arith.addi" not in out
    assert '"ctest.unknown"(%arg0)' in out


def test_merges_straight_line_blocks():
    out = run(
        """
        func.func @f(%x: i32) -> i32 {
          cf.br ^next(%x : i32)
        ^next(%y: i32):
          func.return %y : i32
        }
        """,
        "canonicalize",
    )
    assert body(out) == ["func.func @f(%arg0: i32) -> i32 {", "return %arg0 : i32", "}"]


def test_is_idempotent():
    text = """
    func.func @f(%x: i32) -> i32 {
      %a = arith.constant 4 : i32
      %b = arith.muli %x, %a : i32
      func.return %b : i32
    }
    """
    once = run(text, "canonicalize")
    assert run(once, "canonicalize") == once


def test_hoists_constants_to_the_entry_block_and_merges_equal_ones():
    out = run(
        """
        func.func @f(%x: i32, %b: i1) -> i32 {
          %y = arith.addi %x, %x : i32
          %a = arith.constant 5 : i32
          %z = arith.muli %y, %a : i32
          %r = scf.if %b -> (i32) {
            %k = arith.constant 5 : i32
            %k64 = arith.constant 5 : i64
            %t = arith.trunci %k64 : i64 to i32
            %m = arith.subi %z, %k : i32
            %n = arith.addi %m, %t : i32
            scf.yield %n : i32
          } else {
            %k2 = arith.constant 9 : i32
            %n2 = arith.addi %z, %k2 : i32
            scf.yield %n2 : i32
          }
          func.return %r : i32
        }
        """,
        "canonicalize",
    )
    lines = body(out)
    # The constants come first, once each, in the order they first appear;
    # 5 : i32 and 5 : i64 are different constants.
    assert lines[1:4] == [
        "%c5_i32 = arith.constant 5 : i32",
        "%c5_i64 = arith.constant 5 : i64",
        "%c9_i32 = arith.constant 9 : i32",
    ]
    assert sum("arith.constant" in line for line in lines) == 3
    assert "%3 = arith.trunci %c5_i64 : i64 to i32" in lines
    assert "%4 = arith.subi %1, %c5_i32 : i32" in lines
    assert "%3 = arith.addi %1, %c9_i32 : i32" in lines


def test_constants_stay_inside_isolated_regions():
    out = run(
        """
        func.func @f(%ch: !tfrt.chain) -> !tfrt.chain {
          %n = tfrt.constant.i32 3
          %r = tfrt.repeat.i32 %n, %ch : !tfrt.chain {
          ^bb0(%c: !tfrt.chain):
            %v = tfrt.constant.i32 3
            %w = tfrt.constant.i32 3
            %c1 = tfrt.print.i32 %v, %c
            %c2 = tfrt.print.i32 %w, %c1
            tfrt.return %c2 : !tfrt.chain
          }
          tfrt.return %r : !tfrt.chain
        }
        """,
        "canonicalize",
    )
    lines = body(out)
    inner = lines[lines.index(next(x for x in lines if "tfrt.repeat.i32" in x)) + 1 :]
    assert inner[0] == "%2 = tfrt.constant.i32 3"
    assert "%3 = tfrt.print.i32 %2, %arg0" in inner
    assert "%4 = tfrt.print.i32 %2, %3" in inner
    assert sum("tfrt.constant.i32" in line for line in lines) == 2


def test_worklist_order_is_xdsls():
    """The walker fills its worklist as xDSL's does (the order rewrites happen in)."""
    from xdsl.pattern_rewriter import PatternRewriteWalker, RewritePattern

    from tfrt.dialects.syntax import parse_module
    from tfrt.passes.canonicalize import _Walker

    class Nothing(RewritePattern):
        def match_and_rewrite(self, op, rewriter):
            pass

    m = parse_module(
        """
        func.func @f(%x: i32) -> i32 {
          %a = "t.a"(%x) ({
            "t.b"() : () -> ()
          ^bb1:
            "t.c"() ({ "t.d"() : () -> () }) : () -> ()
          }) : (i32) -> i32
          func.return %a : i32
        }
        func.func @g() { func.return }
        """,
        allow_unregistered=True,
    )
    theirs, ours = PatternRewriteWalker(Nothing()), _Walker(Nothing())
    theirs._populate_worklist(m.body)
    ours._populate_worklist(m.body)
    assert ours._worklist._stack == theirs._worklist._stack
    assert ours._worklist._map == theirs._worklist._map
