"""inline: calls to single-block functions are replaced by the callee body."""

from __future__ import annotations

from pass_testing import body, context, parse, run
from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, ModuleOp

from tfrt.passes.inline import InlinerPass

NO_SIMPLIFY = 'inline{default-pipeline=""}'


def test_inlines_func_call_and_erases_the_dead_private_callee():
    out = run(
        """
        func.func private @callee(%a: i32, %b: i32) -> (i32, i32) {
          %s = arith.addi %a, %b : i32
          func.return %s, %a : i32, i32
        }
        func.func @caller(%x: i32) -> i32 {
          %r:2 = func.call @callee(%x, %x) : (i32, i32) -> (i32, i32)
          %t = arith.muli %r#0, %r#1 : i32
          func.return %t : i32
        }
        """,
        NO_SIMPLIFY,
    )
    assert body(out) == [
        "func.func @caller(%arg0: i32) -> i32 {",
        "%0 = arith.addi %arg0, %arg0 : i32",
        "%1 = arith.muli %0, %arg0 : i32",
        "return %1 : i32",
        "}",
    ]


def test_inlines_tfrt_call_with_tfrt_return():
    out = run(
        """
        func.func private @callee(%ch: !tfrt.chain) -> (!tfrt.chain, !corert.tensorhandle) {
          %0 = corert.const_dense_tensor dense<1> : tensor<i32>
          tfrt.return %ch, %0 : !tfrt.chain, !corert.tensorhandle
        }
        func.func @caller(%ch: !tfrt.chain) -> (!tfrt.chain, !corert.tensorhandle) {
          %0, %1 = tfrt.call @callee(%ch) : (!tfrt.chain) -> (!tfrt.chain, !corert.tensorhandle)
          tfrt.return %0, %1 : !tfrt.chain, !corert.tensorhandle
        }
        """,
        "inline",
    )
    assert "@callee" not in out and "tfrt.call" not in out
    assert body(out)[1:3] == [
        "%0 = corert.const_dense_tensor dense<1> : tensor<i32>",
        "tfrt.return %arg0, %0 : !tfrt.chain, !corert.tensorhandle",
    ]


def test_keeps_public_callees_declarations_and_recursion():
    out = run(
        """
        func.func @pub(%a: i32) -> i32 {
          func.return %a : i32
        }
        func.func private @decl(i32) -> i32
        func.func private @unused(%a: i32) -> i32 {
          func.return %a : i32
        }
        func.func @rec(%a: i32) -> i32 {
          %r = func.call @rec(%a) : (i32) -> i32
          func.return %r : i32
        }
        func.func @caller(%x: i32) -> i32 {
          %a = func.call @pub(%x) : (i32) -> i32
          %b = func.call @decl(%a) : (i32) -> i32
          %c = func.call @rec(%b) : (i32) -> i32
          func.return %c : i32
        }
        """,
        NO_SIMPLIFY,
    )
    assert "func.func @pub" in out and "@decl" in out and "@unused" not in out
    assert "call @pub" not in out
    assert "%0 = call @decl(%arg0)" in out
    assert "call @rec(%0)" in out and "%0 = call @rec(%arg0)" in out


def test_skips_multi_block_callees_and_inlines_nested_calls_transitively():
    out = run(
        """
        func.func private @multi(%a: i32) -> i32 {
          cf.br ^next
        ^next:
          func.return %a : i32
        }
        func.func private @leaf(%a: i32) -> i32 {
          %m = arith.muli %a, %a : i32
          func.return %m : i32
        }
        func.func private @mid(%a: i32) -> i32 {
          %l = func.call @leaf(%a) : (i32) -> i32
          func.return %l : i32
        }
        func.func @top(%x: i32) -> i32 {
          %a = func.call @mid(%x) : (i32) -> i32
          %b = func.call @multi(%a) : (i32) -> i32
          func.return %b : i32
        }
        """,
        NO_SIMPLIFY,
    )
    assert "@mid" not in out and "@leaf" not in out
    assert "%0 = arith.muli %arg0, %arg0 : i32" in out
    assert "call @multi(%0)" in out


def test_default_pipeline_canonicalizes_after_inlining():
    text = """
    func.func private @k() -> i32 {
      %a = arith.constant 20 : i32
      %b = arith.constant 22 : i32
      %c = arith.addi %a, %b : i32
      func.return %c : i32
    }
    func.func @f() -> i32 {
      %r = func.call @k() : () -> i32
      func.return %r : i32
    }
    """
    assert "%c42_i32 = arith.constant 42 : i32" in run(text, "inline")
    assert "arith.addi" in run(text, NO_SIMPLIFY)


def test_inlined_ops_get_call_site_locations():
    module = parse(
        'func.func private @g(%a: i32) -> i32 {\n'
        '  %m = arith.muli %a, %a : i32 loc("g.mlir":2:3)\n'
        '  func.return %m : i32\n'
        '}\n'
        'func.func @f(%x: i32) -> i32 {\n'
        '  %r = func.call @g(%x) : (i32) -> i32 loc("f.mlir":6:8)\n'
        '  func.return %r : i32\n'
        '}\n'
    )
    InlinerPass(default_pipeline="").apply(context(), module)
    assert isinstance(module, ModuleOp)
    (fn,) = list(module.body.ops)
    mul = fn.regions[0].blocks.first.first_op
    assert mul.name == "arith.muli"
    loc = mul.location
    assert isinstance(loc, CallSiteLoc)
    assert isinstance(loc.callee, FileLineColLoc) and loc.callee.line.data == 2
    assert isinstance(loc.caller, FileLineColLoc) and loc.caller.line.data == 6
