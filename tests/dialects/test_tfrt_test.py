"""The `tfrt_test` dialect (and the `proto` type it uses)."""

from __future__ import annotations

import pytest
from dialect_testing import first_error, parse, round_trip

from tfrt.dialects import tfrt_test as TT

SAMPLE = """
func.func @sink(%x: i32) {
  tfrt.return
}
func.func @all(%x: i32, %y: i64, %s: !tfrt.string, %t: !tfrt_tensor.tensor) -> i32 {
  %a, %b, %c = tfrt_test.count3.i32 %x
  %d, %e, %f = tfrt_test.count3.i64 %y
  %small = tfrt_test.resize_bilinear %t, %y, %y
  %ex = tfrt_test.parse_example_from_bytes %s
  %bytes = tfrt_test.get_bytes_field_from_example %ex, %s
  %n = tfrt_test.get_int64_field_from_example %ex, %s
  %str = tfrt_test.get_string {value = "hello"}
  %str2 = tfrt_test.get_string_sync {value = "hello"}
  %cost = tfrt_test.test_cost %x, %a {id = 0 : i64, _tfrt_cost = 100 : i64} : i32, i32
  %r = tfrt_test.do.async %x, %a : (i32, i32) -> (i32) {
  ^bb0(%p: i32, %q: i32):
    %sum = tfrt.add.i32 %p, %q
    tfrt.return %sum : i32
  }
  %bm = tfrt_test.benchmark "add.i32"(%x : i32) duration_secs = 1, max_count = 100 {
  ^bb0(%p: i32):
    %sum = tfrt.add.i32 %p, %p
    tfrt.return %sum : i32
  }
  tfrt_test.sync_benchmark @sink(%x : i32) duration_secs = 1, max_count = 2, num_warmup_runs = 3
  %u = "tfrt_test.print_hello"(%bm) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %r : i32
}
"""


def test_sample_round_trips_and_covers_every_op():
    # xDSL's parser does not know TFRT's unknown-op rule: allow unregistered.
    printed = round_trip(SAMPLE, allow_unregistered=True)
    used = {op.name for op in parse(printed, allow_unregistered=True).walk()}
    assert not {op.name for op in TT.TFRT_TEST_OPS} - used
    assert "%cost = tfrt_test.test_cost %x, %a {id = 0 : i64, _tfrt_cost = 100 : i64} : i32, i32" in printed
    assert "%a, %b, %c = tfrt_test.count3.i32 %x" in printed
    assert "!proto.example" not in printed  # inferred, never spelled
    assert TT.TFRT_TEST.allow_unknown_operations


def test_test_cost_verifier():
    module = parse(
        "func.func @f(%arg: i32) {\n"
        "  %r = tfrt_test.test_cost %arg {id = 0 : i64, _tfrt_cost = 0 : i64} : i32\n"
        "  tfrt.return\n}"
    )
    assert first_error(module) == "'tfrt_test.test_cost' op cost value must be larger than 0"


def test_do_async_verifier():
    assert TT.DoAsyncOp.implicit_region_operands(2, 0) == [0, 1]
    module = parse(
        "func.func @f(%x: i32) {\n  %r = tfrt_test.do.async %x : (i32) -> (i32) {\n"
        "  ^bb0(%a: i32):\n    %c = tfrt.new.chain\n    tfrt.return %c : !tfrt.chain\n  }\n"
        "  tfrt.return\n}"
    )
    assert first_error(module) == (
        "'tfrt.return' op operand types don't match 'tfrt_test.do.async' result"
    )
    module = parse(
        "func.func @f(%x: i32) {\n  tfrt_test.do.async %x : (i32) -> () {\n"
        "  ^bb0(%a: i32):\n    %c = tfrt.new.chain\n  }\n  tfrt.return\n}"
    )
    assert first_error(module) == "'tfrt_test.do.async' op expected tfrt.return in body"


@pytest.mark.parametrize(
    "body, message",
    [
        ("%c = tfrt.new.chain", "missing return statement"),
        ("tfrt.return", "incorrect number of return values. One return value is expected"),
    ],
)
def test_benchmark_verifier(body, message):
    module = parse(
        'func.func @f() {\n  tfrt_test.benchmark "b"() duration_secs = 1, max_count = 1 {\n'
        f"    {body}\n  }}\n  tfrt.return\n}}"
    )
    assert first_error(module) == f"'tfrt_test.benchmark' op {message}"
    assert TT.BenchmarkOp.implicit_region_operands(3, 0) == [0, 1, 2]


@pytest.mark.parametrize(
    "callee, call, message",
    [
        ("@g", "@nope()", "'nope' does not reference a valid function"),
        ("@g(%a: i32)", "@g()", "incorrect number of operands for callee"),
        ("@g(%a: i64)", "@g(%x : i32)", "operand type mismatch"),
        ("@g(%a: i32) -> i32", "@g(%x : i32)", "Target benchmark function must return zero value."),
    ],
)
def test_sync_benchmark_verifier(callee, call, message):
    signature = callee[2:] if "(" in callee else "()"
    ret = "%a : i32" if "-> i32" in callee else ""
    module = parse(
        f"func.func @g{signature} {{\n  tfrt.return {ret}\n}}\n"
        "func.func @f(%x: i32) {\n"
        f"  tfrt_test.sync_benchmark {call} duration_secs = 1, max_count = 1\n  tfrt.return\n}}"
    )
    assert first_error(module) == f"'tfrt_test.sync_benchmark' op {message}"
