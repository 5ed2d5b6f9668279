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


def test_graph_region_uses_before_definitions_keep_their_producers_alive():
    """In a graph region a user may come first: liveness still reaches the
    producers (what xDSL's region_dce finds, reached with fewer walks)."""
    from xdsl.transforms.dead_code_elimination import region_dce as xdsl_region_dce

    from tfrt.dialects.printer import print_module
    from tfrt.dialects.syntax import parse_module
    from tfrt.passes.dce import region_dce

    src = (
        "%0 = arith.addi %1, %1 : i32\n"
        "%1 = arith.muli %2, %2 : i32\n"
        "%2 = arith.constant 1 : i32\n"
        "%3 = arith.constant 2 : i32\n"
        "%4 = arith.addi %3, %3 : i32\n"
        '"t.sink"(%0) : (i32) -> ()\n'
    )
    ours = parse_module(src, allow_unregistered=True, verify=False)
    theirs = ours.clone()
    assert region_dce(ours.body) and xdsl_region_dce(theirs.body)
    assert print_module(ours) == print_module(theirs)
    assert "arith.constant 2" not in print_module(ours) and "arith.muli" in print_module(ours)
