"""Every op gets the file:line:col of its first token, or its explicit loc(...)."""

from __future__ import annotations

from syntax_helpers import fmt_context
from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    ModuleOp,
    NameLoc,
    NoneAttr,
    UnknownLoc,
)

from tfrt.dialects import make_context
from tfrt.dialects.syntax import parse_module
from tfrt.dialects.syntax.verify import op_name


def _parse(src: str, **kw):
    return parse_module(
        src, "loc.mlir", ctx=make_context(True), allow_unregistered=True, verify=False, **kw
    )


def _flc(loc) -> tuple[str, int, int]:
    assert isinstance(loc, FileLineColLoc), loc
    return loc.filename.data, loc.line.data, loc.column.data


def test_each_op_points_at_its_first_token():
    src = (
        "func.func @f(%a: i32) -> i32 {\n"
        '  %x = "t.a"(%a) : (i32) -> i32\n'
        '     "t.b"() : () -> ()\n'
        "  %p, %q:2 =\n"
        '      "t.c"() : () -> (i1, i1, i1)\n'
        "  func.return %x : i32\n"
        "}\n"
    )
    m = _parse(src)
    ops = [op for op in m.walk() if not isinstance(op, ModuleOp)]
    got = [(op_name(op), _flc(op.location)[1:]) for op in ops]
    assert got == [
        ("func.func", (1, 1)),
        ("t.a", (2, 3)),
        ("t.b", (3, 6)),
        ("t.c", (4, 3)),  # the result list is the first token, as in MLIR
        ("func.return", (6, 3)),
    ]
    assert _flc(ops[1].location)[0] == "loc.mlir"


def test_custom_form_ops_and_nested_regions():
    src = (
        "func.func @f(%c: i1, %a: i32) -> i32 {\n"
        "  %r = fmt.if %c, %a : (i32) -> (i32) {\n"
        "    %s = fmt.add %a, %a\n"
        "    fmt.ret %s : i32\n"
        "  }\n"
        "  fmt.ret %r : i32\n"
        "}\n"
    )
    m = parse_module(src, "c.mlir", ctx=fmt_context())
    got = {op.name: _flc(op.location)[1:] for op in m.walk() if not isinstance(op, ModuleOp)}
    assert got["fmt.if"] == (2, 3)
    assert got["fmt.add"] == (3, 5)


def test_file_string_attr_is_shared():
    m = _parse('"t.a"() : () -> ()\n"t.b"() : () -> ()\n')
    a, b = list(m.body.block.ops)
    assert a.location.filename is b.location.filename


def test_explicit_locations_win():
    src = (
        '"t.a"() : () -> () loc("f.py":3:4)\n'
        '"t.b"() : () -> () loc(unknown)\n'
        '"t.c"() : () -> () loc("scope/name")\n'
        '"t.d"() : () -> () loc("outer"("in.py":1:2))\n'
        '"t.e"() : () -> () loc(fused["a", "b.py":1:2])\n'
        '"t.f"() : () -> () loc(callsite("foo" at "bar.py":42:314))\n'
        '"t.g"() : () -> () loc(fused<"meta">["x"])\n'
    )
    a, b, c, d, e, f, g = list(_parse(src).body.block.ops)
    assert _flc(a.location) == ("f.py", 3, 4)
    assert isinstance(b.location, UnknownLoc)
    assert isinstance(c.location, NameLoc) and c.location.desc.data == "scope/name"
    assert isinstance(c.location.location, NoneAttr)
    assert _flc(d.location.location) == ("in.py", 1, 2)
    assert isinstance(e.location, FusedLoc) and len(e.location.locations.data) == 2
    assert isinstance(f.location, CallSiteLoc)
    assert _flc(f.location.caller) == ("bar.py", 42, 314)
    assert isinstance(g.location, FusedLoc)


def test_location_aliases_defined_after_use():
    src = (
        "func.func @f() {\n"
        '  "t.a"() : () -> () loc(#loc0)\n'
        '  "t.b"() : () -> () loc(fused[#loc1, "x"])\n'
        "  func.return\n"
        "} loc(#loc1)\n"
        '#loc0 = loc("myScope/kernel")\n'
        '#loc1 = loc("file.py":7:8)\n'
    )
    m = _parse(src)
    func = m.body.block.first_op
    a, b, _ = list(func.body.block.ops)
    assert a.location.desc.data == "myScope/kernel"
    assert _flc(b.location.locations.data[0]) == ("file.py", 7, 8)
    assert _flc(func.location) == ("file.py", 7, 8)


def test_location_alias_defined_before_use():
    src = '#l = loc("a.py":1:1)\n"t.a"() : () -> () loc(#l)\n'
    assert _flc(_parse(src).body.block.first_op.location) == ("a.py", 1, 1)


def test_block_argument_locations_are_accepted():
    src = (
        'func.func @f(%a: i32 loc("arg":1:1)) {\n'
        '  "t.x"() ({\n'
        "  ^bb0(%b: i32 loc(unknown)):\n"
        '    "t.y"(%b) : (i32) -> ()\n'
        "  }) : () -> ()\n"
        "  func.return\n"
        "}\n"
    )
    _parse(src)


def test_implicit_module_location():
    m = _parse('"t.a"() : () -> ()')
    assert _flc(m.location) == ("loc.mlir", 0, 0)


def test_explicit_module_keeps_its_location():
    m = _parse('module @m {\n  "t.a"() : () -> ()\n}\n')
    assert m.sym_name.data == "m"
    assert _flc(m.location)[1:] == (1, 1)


def test_function_arguments_keep_their_locations():
    src = (
        'func.func @f(%a: i32 loc("a.py":7:9), %b: i32, %c: i32 loc(#later)) -> i32 {\n'
        '  func.return %a : i32\n'
        "}\n"
        '#later = loc("b.py":1:2)\n'
    )
    func = next(iter(_parse(src).body.ops))
    a, b, c = func.body.block.args
    assert _flc(a.location) == ("a.py", 7, 9)
    assert _flc(b.location) == ("loc.mlir", 1, 39)  # where the name stands
    assert _flc(c.location) == ("b.py", 1, 2)
