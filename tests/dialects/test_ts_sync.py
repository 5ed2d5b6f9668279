"""The `ts_sync` dialect: parse, print and verify every op."""

from __future__ import annotations

import pytest
from xdsl.traits import Pure

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects import ts_sync as TSS
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module

SAMPLE = """\
func.func @shapes() -> i64 attributes {tfrt.sync} {
  %s = ts_sync.build_shape [1 : i64, 57 : i64, 92 : i64]
  %empty = ts_sync.build_shape []
  %n = ts_sync.get_num_elements %s
  %p = ts_sync.build_partial_shape [-1 : i64, 57 : i64]
  %s2 = ts_sync.to_shape %p
  %p2 = ts_sync.to_partial_shape %s2
  tfrt.return %n : i64
}
"""

PRINTED = """\
builtin.module {
  func.func @shapes() -> i64 attributes {tfrt.sync} {
    %0 = ts_sync.build_shape [1, 57, 92]
    %1 = ts_sync.build_shape []
    %2 = ts_sync.get_num_elements %0
    %3 = ts_sync.build_partial_shape [-1, 57]
    %4 = ts_sync.to_shape %3
    %5 = ts_sync.to_partial_shape %4
    tfrt.return %2 : i64
  }
}
"""


def test_sample_covers_every_op_and_round_trips():
    module = parse_module(SAMPLE, "sample.mlir")
    assert {op.name for op in TSS.TS_SYNC_OPS} == {
        op.name for op in module.walk() if op.name.startswith("ts_sync.")
    }
    printed = print_module(module)
    assert print_module(parse_module(printed)) == printed


def test_printed_form():
    printed = print_module(parse_module(SAMPLE))
    # The module header is the printer's business; the body is ours.
    body = printed[printed.index("func.func") :]
    assert body == PRINTED[PRINTED.index("func.func") :]


def test_traits_follow_the_td_file():
    pure = {op.name for op in TSS.TS_SYNC_OPS if op.has_trait(Pure)}
    assert pure == {"ts_sync.build_shape", "ts_sync.build_partial_shape"}
    assert not TSS.TS_SYNC.allow_unknown_operations


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '%x = "ts_sync.get_num_elements"(%p) : (!ts.partial_shape) -> i64',
            "'ts_sync.get_num_elements' op operand #0 must be !ts.shape type, "
            "but got '!ts.partial_shape'",
        ),
        (
            '%x = "ts_sync.to_shape"(%p) : (!ts.partial_shape) -> !ts.partial_shape',
            "'ts_sync.to_shape' op result #0 must be !ts.shape type, but got '!ts.partial_shape'",
        ),
        (
            '%x = "ts_sync.build_partial_shape"() {value = [1 : i32]} : () -> !ts.partial_shape',
            "'ts_sync.build_partial_shape' op attribute 'value' failed to satisfy constraint: "
            "64-bit integer array attribute",
        ),
    ],
)
def test_verifier_errors_have_locations(line, message):
    text = f"func.func @f(%p: !ts.partial_shape) {{\n  {line}\n  tfrt.return\n}}\n"
    with pytest.raises(DiagnosticError) as info:
        parse_module(text, "bad.mlir")
    (diag,) = info.value.diagnostics
    assert diag.message == message
    assert (diag.loc.file, diag.loc.line) == ("bad.mlir", 2)


def test_unknown_op_is_an_error():
    with pytest.raises(DiagnosticError, match="'ts_sync.bogus' is unknown"):
        parse_module("func.func @f() {\n  ts_sync.bogus\n  tfrt.return\n}\n", "bad.mlir")
