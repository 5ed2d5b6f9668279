"""Argument conversion and iree-run-module value syntax (tfrt.values)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tfrt.values import (
    NpyReader,
    TensorType,
    ValueRangeError,
    ValueSpecError,
    converter,
    format_result,
    format_value,
    parse_input,
    parse_type,
)


def test_parse_type():
    assert parse_type("tensor<2x3xf32>") == TensorType((2, 3), "f32")
    assert parse_type("tensor<i1>") == TensorType((), "i1")
    assert parse_type("i64") == "i64"
    assert parse_type("!tfrt.chain") is None
    assert parse_type("tensor<?x3xf32>") is None


def test_tensor_converter_passes_matching_arrays_without_copy():
    conv = converter("tensor<2x2xf32>")
    a = np.ones((2, 2), np.float32)
    assert conv(a) is a
    b = conv([[1, 2], [3, 4]])
    assert b.dtype == np.float32 and b.tolist() == [[1, 2], [3, 4]]
    assert conv(np.ones((2, 2))).dtype == np.float32  # f64 -> f32 is same_kind
    with pytest.raises(ValueSpecError, match="got shape 3x2"):
        conv(np.ones((3, 2), np.float32))
    with pytest.raises(ValueSpecError, match="complex64"):
        conv(np.ones((2, 2), np.complex64))
    with pytest.raises(ValueSpecError, match="float32"):
        converter("tensor<2xi32>")(np.ones(2, np.float32))


def test_scalar_converters_check_range_and_kind():
    assert converter("i32")(np.int64(5)) == 5
    with pytest.raises(ValueRangeError):
        converter("i8")(300)
    with pytest.raises(OverflowError):  # ValueRangeError is also an OverflowError
        converter("i32")(1 << 40)
    with pytest.raises(ValueSpecError, match="1.5"):
        converter("i64")(1.5)
    assert type(converter("f32")(1)) is np.float32
    assert type(converter("f16")(1)) is np.float16
    assert converter("i1")(np.bool_(True)) is True
    with pytest.raises(ValueSpecError, match="shape"):
        converter("f32")(np.ones(3))
    assert converter("!tfrt.chain") is None


@pytest.mark.parametrize(
    "spec,declared,expected",
    [
        ("2x2xf32=1,2,3,4", "tensor<2x2xf32>", np.array([[1, 2], [3, 4]], np.float32)),
        ("2x2xf32=[1 2][3 4]", None, np.array([[1, 2], [3, 4]], np.float32)),
        ("3xi32=7", "tensor<3xi32>", np.array([7, 7, 7], np.int32)),
        ("2x3xi8", "tensor<2x3xi8>", np.zeros((2, 3), np.int8)),
        ("4xi1=1,0,true,false", None, np.array([1, 0, 1, 0], bool)),
        ("i64=0x10", "tensor<i64>", np.array(16, np.int64)),
    ],
)
def test_parse_tensor_inputs(spec, declared, expected):
    got = parse_input(spec, declared)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_parse_scalar_inputs_take_the_declared_type():
    assert parse_input("7", "i32") == 7
    assert parse_input("i32=7", "i32") == 7
    v = parse_input("f32=2.5", "f32")
    assert type(v) is np.float32 and v == 2.5
    assert parse_input("1", "i1") is True


@pytest.mark.parametrize(
    "spec,declared,message",
    [
        ("2x2xf32=1,2,3", "tensor<2x2xf32>", "needs 4 values, got 3"),
        ("2x2xf32=1,2,3,4", "tensor<2x3xf32>", "takes tensor<2x3xf32>, got 2x2xf32"),
        ("2x2xi32=1,2,3,4", "tensor<2x2xf32>", "got 2x2xi32"),
        ("i32=1.5", "i32", "'1.5' is not an integer"),
        ("i8=1000", "i8", "does not fit in i8"),
        ("3xq9=1", None, "is not SHAPExTYPE"),
        ("hello", "tensor<2xf32>", "expected SHAPExTYPE=VALUES"),
        ("@/nonexistent/x.npy", None, "cannot open"),
    ],
)
def test_bad_inputs_name_the_problem(spec, declared, message):
    with pytest.raises(ValueSpecError, match=message):
        parse_input(spec, declared)


def test_npy_inputs_read_successive_arrays(tmp_path):
    path = tmp_path / "x.npy"
    with open(path, "wb") as f:
        np.save(f, np.arange(3, dtype=np.float32))
        np.save(f, np.ones((2, 2), np.int32))
    npy = NpyReader()
    a = parse_input(f"@{path}", "tensor<3xf32>", npy)
    b = parse_input(f"@{path}", "tensor<2x2xi32>", npy)
    with pytest.raises(ValueSpecError, match="no more arrays"):
        parse_input(f"@{path}", None, npy)
    npy.close()
    assert a.tolist() == [0, 1, 2] and b.tolist() == [[1, 1], [1, 1]]
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not numpy")
    with pytest.raises(ValueSpecError, match="not a numpy"):
        parse_input(f"@{bad}", None)


def test_npy_inputs_reject_other_files_by_name(tmp_path):
    # np.load alone would hand back an NpzFile for an archive, and blame pickling for text.
    npz = tmp_path / "w.npz"
    np.savez(npz, a=np.zeros(2, np.float32))
    with pytest.raises(ValueSpecError, match=r"is an \.npz archive"):
        parse_input(f"@{npz}", "tensor<2xf32>")
    text = tmp_path / "w.npy"
    text.write_text("1 2 3\n")
    with pytest.raises(ValueSpecError, match=r"'.*w\.npy' is not a numpy \.npy file$"):
        parse_input(f"@{text}", None)
    empty = tmp_path / "e.npy"
    empty.write_bytes(b"")
    with pytest.raises(ValueSpecError, match="is empty"):
        parse_input(f"@{empty}", None)
    r, w = os.pipe()
    os.close(w)
    with pytest.raises(ValueSpecError, match="not a regular file"):
        parse_input(f"@/dev/fd/{r}", None)
    os.close(r)


def test_raw_binary_inputs(tmp_path):
    path = tmp_path / "x.bin"
    np.arange(4, dtype="<i4").tofile(path)
    assert parse_input(f"2x2xi32=@{path}", None).tolist() == [[0, 1], [2, 3]]
    with pytest.raises(ValueSpecError, match="holds 4 i32 elements"):
        parse_input(f"3xi32=@{path}", None)


def test_format_like_iree_run_module():
    a = np.array([[0, 0.5], [1, 1.5]], np.float32)
    assert format_value(a) == "2x2xf32=[0 0.5][1 1.5]"
    assert format_value(np.arange(3, dtype=np.int64)) == "3xi64=0 1 2"
    assert format_value(np.arange(8, dtype=np.int32).reshape(2, 2, 2)) == "2x2x2xi32=[[0 1][2 3]][[4 5][6 7]]"
    assert format_value(np.array([True, False])) == "2xi1=1 0"
    assert format_value(np.array([np.nan, np.inf, -np.inf], np.float64)) == "3xf64=NAN INF -INF"
    assert format_value(np.arange(10, dtype=np.int32), max_elements=3) == "10xi32=0 1 2..."
    assert format_result(0, a, "tensor<2x2xf32>") == "result[0]: hal.buffer_view\n2x2xf32=[0 0.5][1 1.5]"
    assert format_result(1, 7, "i32") == "result[1]: i32=7"
    assert format_result(2, np.float32(2.5), "f32") == "result[2]: f32=2.5"
    assert format_result(3, np.array(4.0, np.float32), "tensor<f32>") == "result[3]: hal.buffer_view\nf32=4"


_ADD = """
func.func @add(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = tensor.empty() : tensor<2x2xf32>
  %r = linalg.add ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
"""


@pytest.fixture(scope="module")
def add_program():
    import tfrt.api

    return tfrt.api.load(_ADD)


@pytest.mark.parametrize(
    "a",
    [
        np.ones((2, 2), np.float32),  # as declared: passed as is
        np.ones((2, 2), np.float64),  # converted
        np.ones((2, 2), np.dtype(">f4")),  # equal values, other byte order: converted
        np.ones((2, 4), np.float32)[:, ::2],  # a strided view
        [[1, 1], [1, 1]],  # a nested list
    ],
)
def test_call_accepts_what_converts_to_the_declared_type(add_program, a):
    b = np.arange(4, dtype=np.float32).reshape(2, 2)
    got = add_program.call("add", a, b)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, b + 1)


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.ones((2, 3), np.float32), "'add' argument 1: expected tensor<2x2xf32>, got shape 2x3"),
        (np.ones((2, 2), np.complex64), "'add' argument 1: expected tensor<2x2xf32>, got an array of complex64"),
        ("x", "'add' argument 1: expected tensor<2x2xf32>"),
    ],
)
def test_call_names_the_argument_that_does_not_convert(add_program, bad, message):
    a = np.ones((2, 2), np.float32)
    with pytest.raises(ValueSpecError) as info:
        add_program.call("add", a, bad)
    assert str(info.value).startswith(message), str(info.value)
