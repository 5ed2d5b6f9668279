"""Helpers for the BEF tests: IR from MLIR text, and sample modules.

The BEF writer works on any xDSL IR, so these tests parse with xDSL's own
parser over a minimal context (builtin + func, unregistered ops allowed):
they exercise the writer, reader and disassembler without depending on the
dialect definitions or the lark frontend.  Explicit ``loc(...)`` suffixes
give ops source locations where a test needs them.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser


def minimal_context() -> Context:
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    return ctx


def parse(text: str, filename: str = "test.mlir") -> ModuleOp:
    if not text.strip():  # xDSL's parser wants at least one op
        return ModuleOp([])
    return Parser(minimal_context(), text, filename).parse_module()


def ret(*values_and_types: str) -> str:
    """A generic ``tfrt.return``: ret("%0: i32", "%1: f32")."""
    if not values_and_types:
        return '"tfrt.return"() : () -> ()'
    names = [v.split(":")[0].strip() for v in values_and_types]
    types = [v.split(":")[1].strip() for v in values_and_types]
    return f'"tfrt.return"({", ".join(names)}) : ({", ".join(types)}) -> ()'


# A module that touches every part of the format: arguments, every
# attribute kind, regions, function references, native and sync functions,
# locations of every kind, and a compiled module.
KITCHEN_SINK = f"""
module @kernel0 attributes {{tfrt.compiled}} {{
  func.func @main(%input: memref<?x?xf32>) {{
    func.return
  }}
}}
func.func @callee(%a: i32) -> i32 {{
  {ret("%a: i32")}
}}
func.func private @native(i32) -> i32 attributes {{tfrt.native}}
func.func @sync(%x: i32) -> i32 attributes {{tfrt.sync}} {{
  %z = "foo_kernel"(%x) : (i32) -> i32
  {ret("%z: i32")}
}}
func.func @everything(%arg: i32, %flag: i1) -> (i32, !tfrt.chain) {{
  %ch = "tfrt.new.chain"() : () -> !tfrt.chain loc("ops.mlir":3:5)
  %0 = "simple.op"(%arg, %arg) {{
      i1v = true, i8v = -3 : i8, i16v = 300 : i16, i32v = -7 : i32, i64v = 1234567890123,
      ui8v = 255 : ui8, ui16v = 65535 : ui16, ui32v = 4000000000 : ui32,
      ui64v = 18446744073709551615 : ui64,
      f16v = 1.5 : f16, bf16v = 2.5 : bf16, f32v = -0.1 : f32, f64v = 3.25 : f64,
      str = "hello", empty_str = "", ty = i32, cty = complex<f64>, sty = !corert.string,
      arr_i32 = [1 : i32, 2 : i32, 3 : i32], arr_i64 = [1, 2], arr_f32 = [1.0 : f32],
      arr_bool = [true, false], arr_ty = [f32, i8], empty = [],
      agg = [1 : i32, [2 : i32, "s"], dense<[1.0, 2.0]> : tensor<2xf64>, #corert.shape<3>],
      dense_i32 = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, splat = dense<7> : tensor<3xi64>,
      dense_i1 = dense<[true, false, true]> : tensor<3xi1>,
      dense_c64 = dense<(1.0, 2.0)> : tensor<1xcomplex<f32>>, dense_bf16 = dense<1.5> : tensor<2xbf16>,
      scalar = dense<5> : tensor<i32>,
      shape = #corert.shape<2x?x3>, unranked = #corert.shape<*>,
      _tfrt_cost = 10 : i64, kernel = @kernel0::@main}} : (i32, i32) -> i32 loc("named"("ops.mlir":4:7))
  %1 = "tfrt.call"(%0) {{callee = @callee}} : (i32) -> i32 loc(callsite("ops.mlir":5:1 at "main.mlir":1:1))
  %2 = "tfrt.cond"(%flag, %1) {{a_true_fn = @callee, b_false_fn = @native}} : (i1, i32) -> i32 loc(fused["a.mlir":1:1, "b.mlir":2:2])
  %3 = "tfrt.case"(%1, %2) {{branches = [@callee, @callee]}} : (i32, i32) -> i32
  %4 = "tfrt.if"(%flag, %3) ({{
  ^bb0(%v: i32):
    {ret("%v: i32")}
  }}, {{
  ^bb0(%v: i32):
    %c = "tfrt.constant.i32"() {{value = 1 : i32}} : () -> i32
    %s = "tfrt.add.i32"(%c, %v) : (i32, i32) -> i32
    {ret("%s: i32")}
  }}) : (i1, i32) -> i32 loc(unknown)
  "tfrt.print.i32"(%4, %ch) : (i32, !tfrt.chain) -> !tfrt.chain
  {ret("%4: i32", "%ch: !tfrt.chain")}
}}
"""

# Smaller modules for the round trip, each a distinct feature.
SAMPLES = {
    "empty": "",
    "trivial": f'func.func @trivial() {{\n  "simple.kernel"() : () -> ()\n  {ret()}\n}}',
    "args_results": f"""
func.func @args_results(%a: i32, %b: f32) -> (i8, i32) {{
  %c = "simple.kernel"(%a, %b) : (i32, f32) -> i8
  {ret("%c: i8", "%a: i32")}
}}""",
    "many_users": "func.func @many() -> i32 {\n  %a = \"tfrt.constant.i32\"() {value = 1 : i32} : () -> i32\n"
    + '  "simple.op"(%a, %a) : (i32, i32) -> ()\n' * 40
    + f"  {ret('%a: i32')}\n}}",
    "nested_regions": f"""
func.func @nested(%c: i1, %x: i32) -> i32 {{
  %r = "tfrt.if"(%c, %x) ({{
  ^bb0(%a: i32):
    %r2 = "tfrt.repeat.i32"(%a, %a) ({{
    ^bb0(%b: i32):
      {ret("%b: i32")}
    }}) : (i32, i32) -> i32
    {ret("%r2: i32")}
  }}, {{
  ^bb0(%a: i32):
    {ret("%a: i32")}
  }}) : (i1, i32) -> i32
  {ret("%r: i32")}
}}""",
    "shared_attributes": f"""
func.func @shared() {{
  "a.op"() {{x = 1 : i32, y = 1 : i32, z = 0.0 : f32, w = -0.0 : f32}} : () -> ()
  "b.op"() {{x = 1 : i32, y = "1"}} : () -> ()
  {ret()}
}}""",
    "locations": f"""
func.func @locs() {{
  "a.op"() : () -> () loc(unknown)
  "a.op"() : () -> () loc(unknown)
  "b.op"() : () -> () loc("f.mlir":1:2)
  "c.op"() : () -> () loc("n"("f.mlir":3:4))
  "d.op"() : () -> () loc("bare")
  "e.op"() : () -> () loc(fused["g.mlir":5:6, "h"])
  "f.op"() : () -> () loc(callsite("x"("f.mlir":7:8) at callsite("g.mlir":9:10 at "h.mlir":11:12)))
  {ret()}
}} loc("f.mlir":100:1)""",
    "kitchen_sink": KITCHEN_SINK,
}


# ---------------------------------------------------------------------------
# Taking BEF files apart and putting them back together (for byte-level
# checks and for building malformed files).


def split_sections(data: bytes) -> list[tuple[int, bytes, int]]:
    """(section id, payload, alignment) of each section, in file order.
    Assumes a well-formed file."""
    from tfrt.bef import encoding as enc

    out = []
    pos = 3
    while pos < len(data):
        section_id = data[pos]
        length, pos = enc.decode_vbr(data, pos + 1, len(data))
        alignment = 1
        if length & 1:
            alignment = data[pos]
            pos += 1 + enc.padding_for(pos + 1, alignment)
        length >>= 1
        out.append((section_id, data[pos : pos + length], alignment))
        pos += length
    return out


def section(data: bytes, section_id: int) -> bytes:
    for sid, payload, _ in split_sections(data):
        if sid == section_id:
            return payload
    raise KeyError(section_id)


def build_file(sections: list[tuple[int, bytes, int]], header: bytes | None = None) -> bytes:
    """Serialize sections as the writer does (alignment byte when needed)."""
    from tfrt.bef import encoding as enc

    out = bytearray(enc.HEADER if header is None else header)
    for section_id, payload, alignment in sections:
        out.append(section_id)
        length = len(payload) << 1
        if alignment > 1 and (len(out) + enc.vbr_size(length)) % alignment:
            out += enc.encode_vbr(length | 1)
            out.append(alignment)
            out += b"\xcc" * enc.padding_for(len(out), alignment)
        else:
            out += enc.encode_vbr(length)
        out += payload
    return bytes(out)


def replace_section(data: bytes, section_id: int, payload: bytes) -> bytes:
    return build_file(
        [(sid, payload if sid == section_id else p, a) for sid, p, a in split_sections(data)]
    )
