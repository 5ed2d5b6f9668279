"""dense<...> literals go through numpy into raw bytes, never element by element."""

from __future__ import annotations

import time

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

from tfrt.dialects import make_context
from tfrt.dialects.syntax import parse_module


def dense(text: str) -> DenseIntOrFPElementsAttr:
    m = parse_module(
        f'"t.op"() {{a = {text}}} : () -> ()',
        ctx=make_context(True),
        allow_unregistered=True,
        verify=False,
    )
    return m.body.block.first_op.attributes["a"]


@pytest.fixture
def no_element_wise(monkeypatch):
    """Fail the test if the slow element-by-element constructor is used."""

    def refuse(*args, **kwargs):
        raise AssertionError("DenseIntOrFPElementsAttr.from_list used")

    monkeypatch.setattr(DenseIntOrFPElementsAttr, "from_list", staticmethod(refuse))


@pytest.mark.parametrize(
    "text, dtype, values",
    [
        ("dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>", "<i4", [[1, 2], [3, 4]]),
        ("dense<7> : tensor<3xi64>", "<i8", [7, 7, 7]),
        ("dense<[0.5, -1.5e3]> : tensor<2xf64>", "<f8", [0.5, -1500.0]),
        ("dense<[1.0, 2.0]> : tensor<2xf16>", "<f2", [1.0, 2.0]),
        ("dense<[255, 0]> : tensor<2xui8>", "<u1", [255, 0]),
        ("dense<[4294967295]> : tensor<1xi32>", "<i4", [-1]),
        ("dense<[0x7F, 0x10]> : tensor<2xi8>", "<i1", [127, 16]),
        ("dense<[true, false, true]> : tensor<3xi1>", "<i1", [-1, 0, -1]),
        ("dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>", "<f4", [[1.0, 2.0]]),
        ('dense<"0x0100000002000000"> : tensor<2xi32>', "<i4", [1, 2]),
        ('dense<"0x05000000"> : tensor<2x2xi32>', "<i4", [[5, 5], [5, 5]]),
        ("dense<3> : tensor<i32>", "<i4", 3),
    ],
)
def test_dense_values(text, dtype, values, no_element_wise):
    a = dense(text)
    got = np.frombuffer(a.data.data, dtype=dtype)
    assert got.tolist() == np.asarray(values).reshape(-1).tolist()


def test_bf16_uses_ml_dtypes_layout(no_element_wise):
    a = dense("dense<[1.0, 2.5]> : tensor<2xbf16>")
    assert np.frombuffer(a.data.data, dtype=ml_dtypes.bfloat16).tolist() == [1.0, 2.5]


def test_dense_bytes_equal_xdsl_element_wise_result():
    from syntax_helpers import xdsl_parse

    for text in (
        "dense<[[1, -2], [3, 4]]> : tensor<2x2xi16>",
        "dense<[true, false]> : tensor<2xi1>",
        "dense<1.25> : tensor<2x3xf32>",
        "dense<[(1, 2)]> : tensor<1xcomplex<i8>>",
    ):
        theirs = xdsl_parse(f'"t.op"() {{a = {text}}} : () -> ()').body.block.first_op.attributes[
            "a"
        ]
        assert dense(text) == theirs


def test_large_decimal_dense_is_fast(no_element_wise):
    n = 200_000
    values = np.arange(n, dtype=np.float32) * 0.5
    body = "[" + ", ".join(f"{v:.1f}" for v in values) + "]"
    t0 = time.perf_counter()
    a = dense(f"dense<{body}> : tensor<{n}xf32>")
    elapsed = time.perf_counter() - t0
    assert np.array_equal(np.frombuffer(a.data.data, dtype="<f4"), values)
    # Element by element (xDSL's path) takes seconds for this; numpy well under one.
    assert elapsed < 2.0, elapsed


def test_large_hex_blob_is_fast(no_element_wise):
    values = np.arange(500_000, dtype="<i4")
    t0 = time.perf_counter()
    a = dense(f'dense<"0x{values.tobytes().hex()}"> : tensor<500000xi32>')
    assert time.perf_counter() - t0 < 2.0
    assert a.data.data == values.tobytes()
