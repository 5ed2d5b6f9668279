"""dce: dead chains go, effects and terminators stay."""

from __future__ import annotations

from pass_testing import body, run


def test_removes_dead_chains():
    out = run(
        """
        func.func @f(%x: i32) -> i32 {
          %a = arith.addi %x, %x : i32
          %b = arith.muli %a, %a : i32
          %c = arith.subi %b, %x : i32
          func.return %x : i32
        }
        """,
        "dce",
    )
    assert body(out) == ["func.func @f(%arg0: i32) -> i32 {", "return %arg0 : i32", "}"]


def test_keeps_used_values_and_unknown_effects():
    out = run(
        """
        func.func @f(%x: i32) -> i32 {
          %a = arith.addi %x, %x : i32
          "t.sink"(%x) : (i32) -> ()
          %unused = "t.maybe_effect"() : () -> i32
          func.return %a : i32
        }
        """,
        "dce",
    )
    assert "arith.addi" in out and '"t.sink"' in out and '"t.maybe_effect"' in out


def test_removes_unreachable_blocks():
    out = run(
        """
        func.func @f(%x: i32) -> i32 {
          func.return %x : i32
        ^dead:
          %a = arith.addi %x, %x : i32
          func.return %a : i32
        }
        """,
        "dce",
    )
    assert "^bb1" not in out
