"""MLIR -> BEF -> MLIR -> BEF gives the same bytes, and the disassembled
MLIR parses again."""

from __future__ import annotations

import io

import pytest
from bef_testing import SAMPLES, minimal_context, parse, ret
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import FusedLoc, IntegerAttr, ModuleOp, NoneType, UnregisteredOp
from xdsl.printer import Printer

from tfrt.bef.disassembler import MISSING_SECTIONS_WARNING, bef_to_module
from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef


def xdsl_text(module: ModuleOp) -> str:
    buf = io.StringIO()
    Printer(stream=buf, print_debuginfo=True).print_op(module)
    return buf.getvalue()


def disassemble(data: bytes, warnings: list[str] | None = None) -> ModuleOp:
    sink = warnings if warnings is not None else []
    return bef_to_module(read_bef(data), ctx=minimal_context(), warn=sink.append)


def check_round_trip(text: str, optional_sections: bool = True) -> ModuleOp:
    data = write_bef(parse(text), optional_sections=optional_sections)
    module = disassemble(data)
    assert write_bef(module, optional_sections=optional_sections) == data
    # The printed disassembly parses again, to the same BEF.
    again = parse(xdsl_text(module))
    assert write_bef(again, optional_sections=optional_sections) == data
    return module


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_round_trip(name):
    check_round_trip(SAMPLES[name])


@pytest.mark.parametrize("name", ["trivial", "many_users", "nested_regions", "locations"])
def test_round_trip_without_optional_sections_keeps_the_structure(name):
    data = write_bef(parse(SAMPLES[name]), optional_sections=False)
    warnings: list[str] = []
    module = disassemble(data, warnings)
    assert warnings == [MISSING_SECTIONS_WARNING]
    # Names, types and attribute values are invented; kernels, registers,
    # function references and locations stay.
    after = read_bef(write_bef(module, optional_sections=False))
    assert structure(after) == structure(read_bef(data))


def structure(b):
    """What survives a round trip without the optional sections."""
    return [
        (f.name, f.kind, len(f.arg_types), f.num_registers, f.register_uses, f.result_registers,
         [(k.name, b.location(k.location), k.args, len(k.attrs), k.funcs, k.results, k.used_by)
          for k in f.kernels])
        for f in b.functions
    ]  # fmt: skip


def test_disassembly_without_optional_sections_follows_tfrt():
    text = f'func.func @basic.constant() -> i32 {{\n  %x = "simple.op"() {{value = 42 : i32}} : () -> i32\n  {ret("%x: i32")}\n}}'
    module = disassemble(write_bef(parse(text), optional_sections=False))
    func = module.body.block.first_op
    op = func.body.block.first_op
    assert isinstance(op, UnregisteredOp) and op.op_name.data == "simple.op"
    assert list(op.attributes) == ["attr0", "op_name__"]
    assert isinstance(op.attributes["attr0"], IntegerAttr)  # TFRT's placeholder value
    assert op.results[0].type == NoneType()


def test_disassembled_functions():
    module = check_round_trip(SAMPLES["kitchen_sink"])
    ops = {getattr(op, "sym_name", None) and op.sym_name.data: op for op in module.body.block.ops}
    assert ops["kernel0"].attributes.get("tfrt.compiled") is not None
    assert "tfrt.native" in ops["native"].attributes
    assert ops["native"].sym_visibility.data == "private"
    assert "tfrt.sync" in ops["sync"].attributes
    everything = ops["everything"]
    kernels = list(everything.body.block.ops)
    names = [op.op_name.data for op in kernels]
    assert names[-1] == "tfrt.return"
    cond = kernels[names.index("tfrt.cond")]
    assert str(cond.attributes["a_true_fn"]) == "@callee"
    assert str(kernels[names.index("tfrt.case")].attributes["branches"]) == "[@callee, @callee]"
    if_op = kernels[names.index("tfrt.if")]
    assert len(if_op.regions) == 2 and len(if_op.regions[1].block.ops) == 3


def test_function_references_without_names_come_back_as_callee():
    from tfrt.bef.encoding import SectionId

    from bef_testing import build_file, split_sections

    text = SAMPLES["kitchen_sink"]
    data = write_bef(parse(text))
    stripped = build_file([s for s in split_sections(data) if s[0] != SectionId.FUNCTION_REF_NAMES])
    module = disassemble(stripped)
    text_out = xdsl_text(module)
    assert '"tfrt.call"(%' in text_out and "callee = @callee" in text_out
    assert "callee = [@callee, @native]" in text_out  # tfrt.cond's two references


def test_virtual_locations_survive():
    text = f'func.func @f() {{\n  "a"() : () -> () loc(fused[])\n  {ret()}\n}}'
    module = check_round_trip(text)
    assert isinstance(module.body.block.first_op.body.block.first_op.location, FusedLoc)


def test_registered_ops_with_the_project_dialects():
    """With the real dialects, kernels come back as registered ops."""
    from tfrt.dialects import make_context

    ctx = make_context(allow_unregistered=True)
    text = """func.func @f() -> i32 {
  %x = "tfrt.constant.i32"() <{value = 42 : i32}> : () -> i32
  %y = "tfrt.add.i32"(%x, %x) : (i32, i32) -> i32
  "tfrt.return"(%y) : (i32) -> ()
}"""
    from xdsl.parser import Parser

    module = Parser(ctx, text).parse_module()
    data = write_bef(module)
    back = bef_to_module(read_bef(data), ctx=ctx)
    ops = list(back.body.block.first_op.body.block.ops)
    assert not any(isinstance(op, UnregisteredOp) for op in ops)
    assert ops[0].properties["value"] == module.body.block.first_op.body.block.first_op.properties["value"]
    back.verify()
    assert write_bef(back) == data


# ---------------------------------------------------------------------------
# Many generated inputs.

_ATTRIBUTES = [
    "1 : i32", "-1 : i8", "true", "false", "7 : ui16", "2.5 : f32", "-0.0 : f64", "1.0 : bf16",
    '"text"', '""', "i64", "!corert.string", "[1, 2, 3]", "[1 : i32]", "[]", "[2.0 : f16]",
    '[1 : i32, "a", [true]]', "[[1], [2]]", "dense<[1, 2]> : tensor<2xi8>",
    "dense<1.5> : tensor<2x2xf32>", "dense<true> : tensor<1xi1>", "#corert.shape<1x?>",
    "#corert.shape<*>", "[i32, f64]",
]  # fmt: skip
_TYPES = ["i32", "i1", "f32", "!tfrt.chain", "tensor<2xf32>"]


@st.composite
def modules(draw) -> str:
    functions = []
    n_functions = draw(st.integers(1, 3))
    names = [f"fn{i}" for i in range(n_functions)]
    for name in names:
        args = draw(st.lists(st.sampled_from(_TYPES), max_size=3))
        values = [(f"%a{i}", t) for i, t in enumerate(args)]
        lines = []
        for j in range(draw(st.integers(0, 6))):
            operands = draw(st.lists(st.sampled_from(values), max_size=3)) if values else []
            results = draw(st.lists(st.sampled_from(_TYPES), max_size=2))
            attrs = draw(st.dictionaries(st.sampled_from("abcdef"), st.sampled_from(_ATTRIBUTES), max_size=3))
            attr_text = ", ".join(f"{k} = {v}" for k, v in sorted(attrs.items()))
            if draw(st.booleans()) and n_functions > 1:
                attr_text = ", ".join(filter(None, [attr_text, f"fn = @{draw(st.sampled_from(names))}"]))
            region = ""
            if draw(st.integers(0, 4)) == 0:
                region = f'({{\n  ^bb0(%r: i32):\n    {ret("%r: i32")}\n  }})'
            res_names = [f"%v{j}_{k}" for k in range(len(results))]
            lhs = f"{', '.join(res_names)} = " if results else ""
            loc = draw(st.sampled_from(["", ' loc("g.mlir":3:4)', ' loc("n")', " loc(unknown)"]))
            lines.append(
                f'  {lhs}"op.k{draw(st.integers(0, 3))}"({", ".join(v for v, _ in operands)})'
                f"{region} {{{attr_text}}} : ({', '.join(t for _, t in operands)})"
                f" -> ({', '.join(results)}){loc}"
            )
            values += list(zip(res_names, results))
        returned = draw(st.lists(st.sampled_from(values), max_size=2)) if values else []
        sig = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
        result_types = ", ".join(t for _, t in returned)
        body = "\n".join(lines + ["  " + ret(*(f"{v}: {t}" for v, t in returned))])
        functions.append(f"func.func @{name}({sig}) -> ({result_types}) {{\n{body}\n}}")
    return "\n".join(functions)


@pytest.mark.slow  # a fuzz run: pytest -m slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules(), st.booleans())
def test_round_trip_generated_modules(text, optional_sections):
    data = write_bef(parse(text), optional_sections=optional_sections)
    module = disassemble(data)
    again = write_bef(module, optional_sections=optional_sections)
    if optional_sections:
        assert again == data
        assert write_bef(parse(xdsl_text(module))) == data
    else:
        assert structure(read_bef(again)) == structure(read_bef(data))


def test_round_trip_through_the_project_frontend_and_printer():
    """mlir -> bef -> mlir printed by tfrt.dialects.printer (with locations)
    and parsed by tfrt.dialects.syntax gives the same bytes."""
    from pathlib import Path

    from tfrt.dialects.printer import print_module
    from tfrt.dialects.syntax import parse_module

    text = (Path(__file__).parent / "translate_roundtrip.mlir").read_text()
    data = write_bef(parse_module(text, "roundtrip.mlir", allow_unregistered=True))
    printed = print_module(bef_to_module(read_bef(data)), debuginfo=True)
    again = parse_module(printed, "printed.mlir", allow_unregistered=True)
    assert write_bef(again) == data
