"""The `ts` (tensor shape) dialect."""

from __future__ import annotations

from dialect_testing import first_error, parse, round_trip

from tfrt.dialects import ts as TS

SAMPLE = """
func.func @shapes(%i: i32) {
  %ch0 = tfrt.new.chain
  %s = ts.build_shape [1 : i64, 57 : i64, 92 : i64]
  %empty = ts.build_shape []
  %eq = ts.equal_shape %s, %empty
  %dim = ts.get_dimension %s, %i
  %n = ts.get_num_elements %s
  %ch1 = ts.print_shape %s, %ch0
  %f0 = ts.as_fixed_rank_shape.0 %empty
  %f1 = ts.as_fixed_rank_shape.1 %s
  %f2 = ts.as_fixed_rank_shape.2 %s
  %f3 = ts.as_fixed_rank_shape.3 %s
  %ch2 = ts.print_fixed_rank_shape.0 %f0, %ch1
  %ch3 = ts.print_fixed_rank_shape.1 %f1, %ch2
  %ch4 = ts.print_fixed_rank_shape.2 %f2, %ch3
  %ch5 = ts.print_fixed_rank_shape.3 %f3, %ch4
  %p = ts.build_partial_shape [-1 : i64, 57 : i64]
  %u = ts.build_unranked_partial_shape
  %ch6 = ts.print_partial_shape %p, %ch5
  %s2 = ts.to_shape %p
  %p2 = ts.to_partial_shape %s2
  tfrt.return
}
"""


def test_sample_round_trips_and_covers_every_op():
    printed = round_trip(SAMPLE)
    used = {op.name for op in parse(printed).walk()}
    assert not {op.name for op in TS.TS_OPS} - used
    assert "%s = ts.build_shape [1 : i64, 57 : i64, 92 : i64]" in printed
    assert "%empty = ts.build_shape []" in printed
    assert "%u = ts.build_unranked_partial_shape" in printed


def test_result_type_constraint_message():
    module = parse(
        'func.func @bad_result() {\n  %a = "ts.build_shape"() { value = [1 : i64] }: () -> i64\n'
        "  tfrt.return\n}"
    )
    assert first_error(module) == (
        "'ts.build_shape' op result #0 must be !ts.shape type, but got 'i64'"
    )


def test_types():
    assert str(TS.ShapeType()) == "!ts.shape"
    assert str(TS.PartialShapeType()) == "!ts.partial_shape"
    assert str(TS.FIXED_RANK_SHAPE_TYPES[3]()) == "!ts.fixed_rank_shape.3"
    assert TS.TS.allow_unknown_types and not TS.TS.allow_unknown_operations
