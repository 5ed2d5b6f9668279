"""The `tfrt_dht_sync` dialect: parse, print and verify every op."""

from __future__ import annotations

import re

import pytest
from xdsl.traits import Pure

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects import tfrt_dht_sync as DS
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module

# Operand names the op examples use, and their types.
ARG_TYPES = {
    "%t": "!tfrt_tensor.tensor",
    "%buf": "!ht.host_buffer",
    "%buffer": "!ht.host_buffer",
    "%shape": "!ts.shape",
    "%size": "i64",
    "%alignment": "i64",
    "%offset": "i64",
}


def _example(op) -> str:
    lines = [line.strip() for line in op.__doc__.splitlines() if line.startswith("    ")]
    assert len(lines) == 1, op.name
    return lines[0]


def _wrap(body: str, uses: list[str]) -> str:
    args = ", ".join(f"{u}: {ARG_TYPES[u]}" for u in uses)
    return f"func.func @f({args}) attributes {{tfrt.sync}} {{\n  {body}\n  tfrt.return\n}}\n"


def test_op_families_follow_tfrts_foreach():
    names = {op.name for op in DS.TFRT_DHT_SYNC_OPS}
    assert len(DS.TFRT_DHT_SYNC_OPS) == len(DS.DTYPES) * (len(DS.RANKS) + 2) + 4
    assert "tfrt_dht_sync.create_uninitialized_tensor.complex128.4" in names
    assert "tfrt_dht_sync.set_tensor_with_constant_values.bool" in names
    assert "tfrt_dht_sync.make_tensor.ui16" in names
    assert {"tfrt_dht_sync.print_tensor", "tfrt_dht_sync.get_buffer_slice"} <= names
    # The sync ops take and return no chains.
    for op in DS.TFRT_DHT_SYNC_OPS:
        for name, _ in op.get_irdl_definition().operands + op.get_irdl_definition().results:
            assert "chain" not in name, op.name
    assert DS.SyncGetTensorShapeOp.has_trait(Pure)
    assert not DS.SyncPrintTensorOp.has_trait(Pure)


@pytest.mark.parametrize("op", DS.TFRT_DHT_SYNC_OPS, ids=lambda op: op.name)
def test_docstring_example_round_trips(op):
    example = _example(op)
    uses = sorted(set(re.findall(r"%\w+", example.split(" = ", 1)[-1])))
    text = _wrap(example, uses)
    module = parse_module(text, "example.mlir")
    (parsed,) = [o for o in module.walk() if o.name == op.name]
    assert isinstance(parsed, op)
    printed = print_module(module)
    assert op.name in printed
    assert print_module(parse_module(printed)) == printed


def test_custom_form_prints_as_tfrt_does():
    module = parse_module(
        _wrap(
            "%x = tfrt_dht_sync.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]\n"
            "  tfrt_dht_sync.set_tensor_with_constant_values.i32 %x [1 : i32, 2 : i32]\n"
            "  %m = tfrt_dht_sync.make_tensor.f32 %buf, %shape\n"
            "  tfrt_dht_sync.print_tensor %m",
            ["%buf", "%shape"],
        )
    )
    printed = print_module(module)
    assert "%0 = tfrt_dht_sync.create_uninitialized_tensor.i32.2 [3, 2]\n" in printed
    assert "tfrt_dht_sync.set_tensor_with_constant_values.i32 %0 [1 : i32, 2 : i32]\n" in printed
    assert "%1 = tfrt_dht_sync.make_tensor.f32 %arg0, %arg1\n" in printed
    assert "tfrt_dht_sync.print_tensor %1\n" in printed


def test_generic_form_round_trips_to_custom_form():
    module = parse_module(
        _wrap(
            '"tfrt_dht_sync.set_tensor_with_constant_values.f32"(%t) '
            "{values = [1.0 : f32]} : (!tfrt_tensor.tensor) -> ()",
            ["%t"],
        )
    )
    assert "tfrt_dht_sync.set_tensor_with_constant_values.f32 %arg0 [1.000000e+00 : f32]" in (
        print_module(module)
    )
    generic = print_module(module, generic=True)
    assert '"tfrt_dht_sync.set_tensor_with_constant_values.f32"(%arg0)' in generic


@pytest.mark.parametrize(
    ("body", "uses", "message"),
    [
        (
            '%x = "tfrt_dht_sync.get_tensor_shape"(%t) : (!tfrt_tensor.tensor) -> i64',
            ["%t"],
            "'tfrt_dht_sync.get_tensor_shape' op result #0 must be !ts.shape type, but got 'i64'",
        ),
        (
            '%x = "tfrt_dht_sync.create_uninitialized_tensor.i32.1"() {shape = [2 : i32]} '
            ": () -> !tfrt_tensor.tensor",
            [],
            "'tfrt_dht_sync.create_uninitialized_tensor.i32.1' op attribute 'shape' failed to "
            "satisfy constraint: 64-bit integer array attribute",
        ),
        (
            '%x = "tfrt_dht_sync.make_tensor.i32"(%shape, %shape) : (!ts.shape, !ts.shape) '
            "-> !tfrt_tensor.tensor",
            ["%shape"],
            "'tfrt_dht_sync.make_tensor.i32' op operand #0 must be !ht.host_buffer type, "
            "but got '!ts.shape'",
        ),
    ],
)
def test_verifier_errors_have_locations(body, uses, message):
    with pytest.raises(DiagnosticError) as info:
        parse_module(_wrap(body, uses), "bad.mlir")
    (diag,) = info.value.diagnostics
    assert diag.message == message
    assert (diag.loc.file, diag.loc.line) == ("bad.mlir", 2)


def test_unknown_ops_are_accepted_as_in_tfrt():
    text = _wrap('"tfrt_dht_sync.no_such_op"(%t) : (!tfrt_tensor.tensor) -> ()', ["%t"])
    assert '"tfrt_dht_sync.no_such_op"(%arg0) : (!tfrt_tensor.tensor) -> ()' in print_module(
        parse_module(text)
    )
    assert DS.TFRT_DHT_SYNC.allow_unknown_operations and DS.TFRT_DHT_SYNC.allow_unknown_types
