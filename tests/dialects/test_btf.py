"""The `btf` dialect (binary tensor format readers)."""

from __future__ import annotations

from dialect_testing import first_error, parse, round_trip

from tfrt.dialects import btf as BTF


def test_every_reader_parses_in_generic_form():
    lines = [
        f'  %t{i} = "btf.read_dense_tensor.{dtype}.{rank}"(%path, %index)'
        " : (!tfrt.string, i32) -> !tfrt_tensor.tensor"
        for i, (dtype, rank) in enumerate(BTF.READ_DENSE_TENSOR_OPS)
    ]
    text = "func.func @f(%path: !tfrt.string, %index: i32) {\n" + "\n".join(lines) + "\n  tfrt.return\n}"
    printed = round_trip(text)
    used = {op.name for op in parse(printed).walk()}
    assert not {op.name for op in BTF.BTF_OPS} - used
    assert len(BTF.BTF_OPS) == 25


def test_path_must_be_a_string():
    module = parse(
        'func.func @f(%index: i32) {\n  %t = "btf.read_dense_tensor.i32.2"(%index, %index)'
        " : (i32, i32) -> !tfrt_tensor.tensor\n  tfrt.return\n}"
    )
    assert first_error(module) == (
        "'btf.read_dense_tensor.i32.2' op operand #0 must be !tfrt.string type, but got 'i32'"
    )
