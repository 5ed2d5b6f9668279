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
