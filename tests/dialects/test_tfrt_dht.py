"""The `tfrt_dht` (dense host tensor) dialect and the `tfrt_tensor` / `ht` types."""

from __future__ import annotations

from dialect_testing import first_error, parse, round_trip

from tfrt.dialects import ht, tfrt_tensor
from tfrt.dialects import tfrt_dht as D

_LINES = []
for _i, (_dtype, _rank) in enumerate(D.CREATE_UNINITIALIZED_TENSOR_OPS):
    _shape = ", ".join(["2 : i64"] * _rank)
    _LINES.append(f"  %u{_i} = tfrt_dht.create_uninitialized_tensor.{_dtype}.{_rank} [{_shape}]")
for _dtype in D.DTYPES:
    _LINES += [
        f"  %fc_{_dtype} = tfrt_dht.fill_tensor_with_constant.{_dtype} %t, %ch 0 : i32",
        f"  %mt_{_dtype}, %mc_{_dtype} = tfrt_dht.make_tensor.{_dtype} %buf, %shape, %ch",
        f"  %sc_{_dtype} = tfrt_dht.set_tensor_with_constant_values.{_dtype} %t, %ch [1 : i32]",
        f"  %eq_{_dtype}, %ec_{_dtype} = tfrt_dht.tensor_equal.{_dtype} %t, %t, %ch",
    ]

SAMPLE = (
    "func.func @all(%t: !tfrt_tensor.tensor, %buf: !ht.host_buffer, %shape: !ts.shape,\n"
    "               %n: i64) {\n"
    "  %ch = tfrt.new.chain\n"
    + "\n".join(_LINES)
    + """
  %p = tfrt_dht.print_tensor %t, %ch
  %b = tfrt_dht.allocate_buffer %n, %n
  %gb, %gc = tfrt_dht.get_buffer %t, %ch
  %sl = tfrt_dht.get_buffer_slice %b, %n, %n
  %pb = tfrt_dht.print_buffer %b, %ch
  %s = tfrt_dht.get_tensor_shape %t
  tfrt.return
}
"""
)


def test_sample_round_trips_and_covers_every_op():
    printed = round_trip(SAMPLE)
    used = {op.name for op in parse(printed).walk()}
    assert not {op.name for op in D.TFRT_DHT_OPS} - used
    assert len(D.TFRT_DHT_OPS) == 96
    assert "tfrt_dht.create_uninitialized_tensor.i32.2 [2 : i64, 2 : i64]" in printed
    assert "tfrt_dht.fill_tensor_with_constant.i32 %t, %ch 0 : i32" in printed
    assert "tfrt_dht.set_tensor_with_constant_values.f32 %t, %ch [1 : i32]" in printed


def test_types_and_flags():
    assert str(tfrt_tensor.TensorType()) == "!tfrt_tensor.tensor"
    assert str(ht.HostBufferType()) == "!ht.host_buffer"
    assert D.TFRT_DHT.allow_unknown_operations


def test_operand_type_message():
    module = parse(
        'func.func @f(%x: i32) {\n  %ch = tfrt.new.chain\n'
        '  %c = "tfrt_dht.print_tensor"(%x, %ch) : (i32, !tfrt.chain) -> !tfrt.chain\n'
        "  tfrt.return\n}"
    )
    assert first_error(module) == (
        "'tfrt_dht.print_tensor' op operand #0 must be !tfrt_tensor.tensor type, but got 'i32'"
    )
