"""The `coo` (sparse host tensor) dialect."""

from __future__ import annotations

from dialect_testing import parse, round_trip

from tfrt.dialects import coo as COO

_LINES = []
for _dtype in COO.DTYPES:
    for _rank in COO.RANKS:
        _s = f"{_dtype}_{_rank}"
        _LINES += [
            f"  %c{_s}, %cc{_s} = coo.convert_dht_to_coo.{_dtype}.{_rank} %t, %ch",
            f"  %d{_s}, %dc{_s} = coo.convert_coo_to_dht.{_dtype}.{_rank} %t, %ch",
            f"  %e{_s}, %ec{_s} = coo.tensor_equal.{_dtype}.{_rank} %t, %t, %ch",
        ]
SAMPLE = (
    "func.func @all(%t: !tfrt_tensor.tensor) {\n  %ch = tfrt.new.chain\n"
    + "\n".join(_LINES)
    + "\n  %p = coo.print_tensor %t, %ch\n  tfrt.return\n}"
)


def test_sample_round_trips_and_covers_every_op():
    printed = round_trip(SAMPLE)
    used = {op.name for op in parse(printed).walk()}
    assert not {op.name for op in COO.COO_OPS} - used
    assert "%ci32_2, %cci32_2 = coo.convert_dht_to_coo.i32.2 %t, %ch" in printed
    assert COO.COO.allow_unknown_operations
