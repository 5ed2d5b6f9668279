"""DTypes (names, numpy storage, TFRT's value formatting) and tensor shapes."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from tfrt.tensor.dtype import (
    DType,
    as_dtype,
    dtype_from_name,
    dtype_from_numpy,
    format_double,
    format_value,
)
from tfrt.tensor.shape import FixedRankShape, PartialTensorShape, TensorShape, as_shape


def test_enum_values_are_tfrts():
    assert [DType.UI8, DType.I1, DType.I32, DType.F32, DType.COMPLEX64, DType.F16, DType.BF16,
            DType.STRING, DType.QI32] == [1, 5, 8, 10, 12, 14, 15, 16, 23]


@pytest.mark.parametrize(
    "dtype,name,npdt",
    [
        (DType.I1, "i1", np.bool_), (DType.I8, "i8", np.int8), (DType.I16, "i16", np.int16),
        (DType.I32, "i32", np.int32), (DType.I64, "i64", np.int64), (DType.UI8, "u8", np.uint8),
        (DType.UI16, "u16", np.uint16), (DType.UI32, "u32", np.uint32), (DType.UI64, "u64", np.uint64),
        (DType.F16, "f16", np.float16), (DType.BF16, "bf16", ml_dtypes.bfloat16),
        (DType.F32, "f32", np.float32), (DType.F64, "f64", np.float64),
        (DType.COMPLEX64, "complex64", np.complex64), (DType.COMPLEX128, "complex128", np.complex128),
    ],
)
def test_names_and_storage(dtype, name, npdt):
    assert dtype.short_name == name == str(dtype)
    assert dtype.np_dtype == np.dtype(npdt)
    assert dtype_from_numpy(npdt) == dtype
    assert dtype_from_name(name) == dtype
    assert as_dtype(int(dtype)) == dtype


def test_aliases():
    assert dtype_from_name("bool") == DType.I1
    assert dtype_from_name("ui64") == DType.UI64
    assert dtype_from_name("complex<f32>") == DType.COMPLEX64
    assert dtype_from_name("!corert.string") == DType.STRING
    assert dtype_from_name("!corert.quint8") == DType.QUI8
    assert dtype_from_numpy(np.dtype("U3")) == DType.STRING
    with pytest.raises(ValueError, match="unknown dtype 'f8'"):
        dtype_from_name("f8")
    with pytest.raises(TypeError, match="no numpy storage"):
        DType.RESOURCE.np_dtype


@pytest.mark.parametrize(
    "value,text",
    [
        (1.0, "1.000000e+00"), (-0.5, "-5.000000e-01"), (312.271362, "3.122714e+02"),
        (0.0, "0.000000e+00"), (1e-300, "1.000000e-300"), (math.nan, "nan"),
        (math.inf, "INF"), (-math.inf, "-INF"),
    ],
)
def test_floats_print_like_llvm(value, text):
    assert format_double(value) == text
    assert format_value(DType.F64, value) == text


def test_formatting_of_every_kind():
    assert format_value(DType.I1, True) == "1"
    assert format_value(DType.I1, np.bool_(False)) == "0"
    assert format_value(DType.I8, np.int8(-3)) == "-3"
    assert format_value(DType.UI64, np.uint64(2**64 - 1)) == "18446744073709551615"
    assert format_value(DType.F32, np.float32(0.1)) == "1.000000e-01"
    assert format_value(DType.BF16, ml_dtypes.bfloat16(2.5)) == "bf16(16416)"
    assert format_value(DType.F16, np.float16(0)) == "fp16(0)"
    assert format_value(DType.F16, np.float16(1)) == "fp16(15360)"
    assert format_value(DType.COMPLEX64, 1 + 2j) == "(1.000000e+00,2.000000e+00)"
    assert format_value(DType.QUI8, 7) == "7"


def test_tensor_shape():
    s = TensorShape([1, 57, 92])
    assert str(s) == "[1, 57, 92]" and repr(s) == "TensorShape([1, 57, 92])"
    assert s.rank == 3 and s.num_elements() == 1 * 57 * 92 and s.dim(1) == 57
    assert s.strides() == (57 * 92, 92, 1)
    assert str(TensorShape([])) == "[]" and TensorShape([]).num_elements() == 1
    assert TensorShape([0, 5]).num_elements() == 0
    assert s == TensorShape((1, 57, 92)) and s != TensorShape([1, 57]) and hash(s) == hash(TensorShape(s))
    big = TensorShape([4294967295, 4294967295, 4294967295, 65536])
    assert str(big) == "[4294967295, 4294967295, 4294967295, 65536]"
    assert as_shape(3) == TensorShape([3]) and as_shape(s) is s
    with pytest.raises(ValueError, match="dimension 1 of a TensorShape is negative"):
        TensorShape([1, -1])


def test_fixed_rank_shape():
    f = FixedRankShape([1, 2, 3], 3)
    assert str(f) == "[1, 2, 3]" and f == TensorShape([1, 2, 3])
    with pytest.raises(ValueError, match="expected rank 2"):
        FixedRankShape([1, 2, 3], 2)


def test_partial_tensor_shape():
    p = PartialTensorShape([-1, 57, -1])
    assert str(p) == "[-1, 57, -1]" and p.rank == 3 and not p.is_fully_known()
    with pytest.raises(ValueError, match=r"Unknown dimensions at following indices = \[0, 2\]"):
        p.to_shape()
    u = PartialTensorShape(None)
    assert str(u) == "Unknown rank" and u.is_unranked() and u.rank == -1
    with pytest.raises(ValueError, match="Unknown rank"):
        u.to_shape()
    k = PartialTensorShape.from_shape(TensorShape([2, 3]))
    assert k.to_shape() == TensorShape([2, 3]) and str(PartialTensorShape([])) == "[]"
    assert p.is_compatible_with(TensorShape([4, 57, 1])) and not p.is_compatible_with(TensorShape([4, 5, 1]))
    assert u.is_compatible_with(TensorShape([9]))
    with pytest.raises(ValueError, match="< -1"):
        PartialTensorShape([-2])
