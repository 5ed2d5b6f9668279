"""cse: identical pure ops merge, effects and regions are respected."""

from __future__ import annotations

from pass_testing import body, run


def test_merges_identical_pure_ops():
    out = run(
        """
        func.func @f(%x: i32) -> i32 {
          %a = arith.constant 1 : i32
          %b = arith.constant 1 : i32
          %c = arith.addi %x, %a : i32
          %d = arith.addi %x, %b : i32
          %e = arith.muli %c, %d : i32
          func.return %e : i32
        }
        """,
        "cse",
    )
    assert body(out) == [
        "func.func @f(%arg0: i32) -> i32 {",
        "%c1_i32 = arith.constant 1 : i32",
        "%0 = arith.addi %arg0, %c1_i32 : i32",
        "%1 = arith.muli %0, %0 : i32",
        "return %1 : i32",
        "}",
    ]


def test_keeps_ops_with_unknown_effects_and_different_attributes():
    out = run(
        """
        func.func @f(%x: i32) {
          %a = "t.effect"(%x) : (i32) -> i32
          %b = "t.effect"(%x) : (i32) -> i32
          %c = arith.constant 1 : i32
          %d = arith.constant 2 : i32
          "t.use"(%c, %d) : (i32, i32) -> ()
          func.return
        }
        """,
        "cse",
    )
    assert out.count('"t.effect"') == 2
    assert "%c1_i32" in out and "%c2_i32" in out


def test_does_not_merge_across_sibling_regions():
    out = run(
        """
        func.func @f(%x: i32) {
          "t.two"() ({
            %a = arith.addi %x, %x : i32
            "t.use"(%a) : (i32) -> ()
          }, {
            %b = arith.addi %x, %x : i32
            "t.use"(%b) : (i32) -> ()
          }) : () -> ()
          func.return
        }
        """,
        "cse",
    )
    assert out.count("arith.addi") == 2
