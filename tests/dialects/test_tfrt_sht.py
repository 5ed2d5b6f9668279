"""The `tfrt_sht` (string host tensor) dialect."""

from __future__ import annotations

from dialect_testing import first_error, parse, round_trip

from tfrt.dialects import tfrt_sht as SHT

SAMPLE = """
func.func @basic() {
  %a = "tfrt_sht.create_tensor"()
    {shape = [2], values = ["string", "tensor"]} : () -> !tfrt_tensor.tensor
  tfrt.return
}
"""


def test_generic_form_round_trips_with_plain_attributes():
    printed = round_trip(SAMPLE)
    assert '"tfrt_sht.create_tensor"() {' in printed  # attributes, not <{properties}>
    assert [op.name for op in SHT.TFRT_SHT_OPS] == ["tfrt_sht.create_tensor"]
    assert SHT.TFRT_SHT.allow_unknown_operations


def test_values_must_be_strings():
    module = parse(
        'func.func @f() {\n  %a = "tfrt_sht.create_tensor"() {shape = [1], values = [1]}'
        " : () -> !tfrt_tensor.tensor\n  tfrt.return\n}"
    )
    assert first_error(module) == (
        "'tfrt_sht.create_tensor' op attribute 'values' failed to satisfy constraint: "
        "string array attribute"
    )
