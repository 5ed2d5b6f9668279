"""The scalar kernels' C semantics: wrapping, truncating division, float32 rounding, casts."""

from __future__ import annotations

import numpy as np
import pytest

from tfrt.kernels import basic as k
from tfrt.kernels.registry import CHAIN, KernelError, default_registry


def test_i32_wraps():
    assert k.add_i32(2**31 - 1, 1) == -(2**31)
    assert k.minus_i32(-(2**31), 1) == 2**31 - 1
    assert k.mul_i32(65536, 65536) == 0
    assert k.add_i64(2**63 - 1, 1) == -(2**63)


@pytest.mark.parametrize(
    "a,b,q,r", [(7, 2, 3, 1), (-7, 2, -3, -1), (7, -2, -3, 1), (-7, -2, 3, -1), (43, 42, 1, 1)]
)
def test_div_truncates_like_c(a, b, q, r):
    assert k.div_i32(a, b) == (q, r)
    assert k.div_i64(a, b) == (q, r)


def test_div_int_min_by_minus_one_wraps():
    assert k.div_i32(-(2**31), -1) == (-(2**31), 0)


def test_divide_by_zero_is_an_error():
    for fn, zero in ((k.div_i32, 0), (k.div_i64, 0), (k.div_f32, np.float32(0)), (k.div_f64, 0.0)):
        with pytest.raises(KernelError, match="^Divide by zero$"):
            fn(1, zero)


def test_f32_rounds_to_single_precision(capsys):
    h = k.cast_i64_to_f32(737)
    w = k.cast_i64_to_f32(899)
    ratio = k.div_f32(k.constant_f32(256.0), k.minimum_f32(h, w))
    nw = k.multiply_f32(w, ratio)
    assert type(nw) is np.float32
    k.print_f32(nw, CHAIN)
    assert capsys.readouterr().out == "f32 = 312.271362\n"
    assert k.cast_f32_to_i64(nw) == 312
    k.print_f64(899 * (256.0 / 737), CHAIN)
    assert capsys.readouterr().out == "f64 = 312.271370\n"


def test_casts_truncate_toward_zero():
    assert k.cast_f64_to_i64(255.99) == 255
    assert k.cast_f64_to_i64(-2.7) == -2
    assert k.cast_f64_to_i64(float("nan")) == -(2**63)


def test_minimum_follows_std_min():
    assert k.minimum_f64(1.0, 2.0) == 1.0
    nan = float("nan")
    assert k.minimum_f64(nan, 1.0) != k.minimum_f64(nan, 1.0)  # a NaN first operand wins
    assert k.minimum_f64(1.0, nan) == 1.0


def test_prints(capsys):
    k.print_i1(True, CHAIN)
    k.print_i32(-5, CHAIN)
    k.print_i64(2**40, CHAIN)
    k.print_f64(1.56, CHAIN)
    k.print_complex64(k.constant_complex64(2.0, 1.0), CHAIN)
    k.print_f16(np.float16(1.0), CHAIN)
    assert capsys.readouterr().out.splitlines() == [
        "int1 = 1",
        "int32 = -5",
        "int64 = 1099511627776",
        "f64 = 1.560000",
        "complex64 = 1.000000+2.000000i",
        "f16 = 15360",
    ]


def test_constants_and_booleans():
    assert k.constant_i1(1) is True
    assert k.and_i1(True, False) is False
    assert k.equal_i32(3, 3) is True and k.lessequal_i32(4, 3) is False


def test_every_tfrt_kernel_tfrt_tests_use_is_registered():
    names = """tfrt.add.f32 tfrt.add.f64 tfrt.add.i32 tfrt.add.i64 tfrt.call tfrt.case
    tfrt.cast.f32_to_i64 tfrt.cast.f64_to_i64 tfrt.cast.i64_to_f32 tfrt.cast.i64_to_f64
    tfrt.cond tfrt.constant.f32 tfrt.constant.f64 tfrt.constant.i1 tfrt.constant.i32
    tfrt.constant.i64 tfrt.constant.ui32 tfrt.div.f32 tfrt.div.f64 tfrt.div.i32 tfrt.equal.i32
    tfrt.if tfrt.lessequal.i32 tfrt.merge.chains tfrt.minimum.f32 tfrt.minimum.f64
    tfrt.multiply.f32 tfrt.multiply.f64 tfrt.new.chain tfrt.once tfrt.parallel_call.i32
    tfrt.parallel_for.i32 tfrt.print.f32 tfrt.print.f64 tfrt.print.i1 tfrt.print.i32
    tfrt.print.i64 tfrt.repeat.i32 tfrt.while tfrt.alias.value tfrt.get_device""".split()
    reg = default_registry()
    assert [n for n in names if n not in reg] == []
