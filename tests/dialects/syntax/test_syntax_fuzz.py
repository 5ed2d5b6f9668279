"""Random mutations of valid MLIR: the frontend answers with a diagnostic or IR,
never with a Python traceback (or an "internal error")."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from syntax_helpers import fmt_context

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects.syntax import parse_module

CORPUS = [
    """\
func.func @f(%c: i1, %a: i32, %b: f32) -> i32 attributes {tfrt.sync} {
  %x = fmt.const 42
  %y = fmt.add %x, %a
  %r:2 = fmt.call(%y, %b) : (i32, f32) -> (i32, f32)
  %z = fmt.if %c, %y, %b unit : (i32, f32) -> (i32) {
    %q = fmt.add %y, %y
    fmt.ret %q : i32
  } attributes {hint = "x"}
  fmt.pair [%x, %y] [%z]
  fmt.ret %z : i32
}
""",
    """\
#map = affine_map<(d0) -> (d0)>
!t = tensor<2x?xf32>
module @m attributes {k = [1, "s", @sym::@nested, dense<[1, 2]> : tensor<2xi32>]} {
  func.func private @decl(i32) -> (i32 {a})
  func.func @g(%a: i32) -> i32 {
    %0:2 = "t.two"(%a) {m = #map} : (i32) -> (i32, !t)
    "t.br"(%0#0)[^bb1] : (i32) -> ()
  ^bb1:
    %1 = "t.c"() <{v = 0x7FC00000 : f32}> : () -> f32 loc("f.py":1:2)
    func.return %0#0 : i32
  } loc(#loc0)
}
#loc0 = loc(fused["a", callsite("b" at "c":1:1)])
""",
    """\
func.func @h(%n: index) -> i32 {
  %c = arith.constant 3 : i32
  %z = arith.constant 0 : index
  %s = scf.for %i = %z to %n step %n iter_args(%acc = %c) -> (i32) {
    %v = arith.addi %acc, %c : i32
    scf.yield %v : i32
  }
  %ch = tfrt.new.chain
  %t = tfrt.constant.i32 1
  %p = tfrt.print.i32 %t, %ch
  func.return %s : i32
}
""",
    """func.func @t(%c: i1, %a: i32, %h: !corert.ophandler, %x: !corert.tensorhandle) -> i32 {
  %r = tfrt.if %c, %a : (i32) -> (i32) {
    %s = tfrt.add.i32 %a, %a
    tfrt.return %s : i32
  } else {
    tfrt.return %a : i32
  }
  tfrt_test.benchmark "bm"(%a : i32) duration_secs = 1, max_count = 2 {
    tfrt.return %a : i32
  }
  %y = corert.executeop(%h) "tf.Add"(%x, %x) {T = f32} {f = @t} : 1
  %n:2 = tfrt.repeat.i32 %a, %a, %c : i32, i1 {
    tfrt.return %a, %c : i32, i1
  }
  tfrt.return %r : i32
}
""",
]

TOKENS = [
    "%x",
    "%a",
    "%0#1",
    "^bb0",
    "^bb1(%q: i32):",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ":",
    ",",
    "=",
    "->",
    '"',
    '"s"',
    "@f",
    '@"q"',
    "!tfrt.chain",
    "!t",
    "#map",
    "#loc9",
    "dense<",
    "dense<[1, 2]> : tensor<3xi32>",
    "loc(",
    "loc(unknown)",
    "i32",
    "f32",
    "tensor<",
    "x",
    "?",
    "0x",
    "1.5e",
    "-",
    "fmt.add",
    "fmt.if",
    "scf.for",
    "func.func",
    "module",
    "true",
    "unit",
    "//",
    "\n",
    "\\",
    "array<i32:",
    "affine_map<",
    "%x:2 =",
    "%y =",
    "tfrt.return",
    "9999999999999999999999",
    "\t",
    "'",
    "\x00",
    "é",
]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "swap"]))
        if kind == "delete":
            j = draw(st.integers(i, min(len(text), i + 12)))
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif kind == "duplicate":
            j = draw(st.integers(i, min(len(text), i + 30)))
            text = text[:j] + text[i:j] + text[j:]
        elif i + 1 < len(text):
            text = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.booleans())
def test_mutations_give_diagnostics_not_tracebacks(text, allow_unregistered):
    ctx = fmt_context(allow_unregistered)
    try:
        parse_module(text, "fuzz.mlir", ctx=ctx, allow_unregistered=allow_unregistered)
    except DiagnosticError as e:
        for d in e.diagnostics:
            assert "internal error" not in d.message, d.message
            assert d.message


def test_corpus_is_valid():
    for text in CORPUS:
        parse_module(text, ctx=fmt_context(True), allow_unregistered=True)
