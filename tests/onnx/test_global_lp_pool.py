"""GlobalLpPool: LpPool with one window over all the spatial axes, checked
against onnxruntime (f32; it has no f64 kernel) and numpy in f64 (f64, f16;
ONNX's reference has no implementation)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from tfrt.onnx.backend import prepare  # noqa: E402

TYPES = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.float16: TensorProto.FLOAT16}


def model(shape, p, dtype):
    node = helper.make_node("GlobalLpPool", ["x"], ["y"], p=p)
    out = [shape[0], shape[1]] + [1] * (len(shape) - 2)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TYPES[dtype], shape)],
                          [helper.make_tensor_value_info("y", TYPES[dtype], out)])  # fmt: skip
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    return m


@pytest.mark.parametrize("shape", [(1, 3, 4, 5), (2, 2, 7), (1, 1, 2, 3, 4)])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_against_onnxruntime(shape, p):
    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(len(shape) * 10 + p)
    for dtype in (np.float32, np.float64):
        m = model(shape, p, dtype)
        x = rng.standard_normal(shape).astype(dtype)
        if dtype is np.float32:
            ref = ort.InferenceSession(m.SerializeToString()).run(None, {"x": x})[0]
        else:
            ref = lp(x, p)
        got = prepare(m).run([x])[0]
        assert got.dtype == ref.dtype and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=1e-12 if dtype is np.float64 else 1e-5)


def lp(x, p):
    axes = tuple(range(2, x.ndim))
    y = (np.abs(x.astype(np.float64)) ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)
    return y.astype(x.dtype)


def test_float16_against_numpy():
    m = model((2, 3, 4, 4), 2, np.float16)
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 4)).astype(np.float16)
    ref = lp(x, 2)
    got = prepare(m).run([x])[0]
    assert got.dtype == np.float16 and got.shape == (2, 3, 1, 1)
    np.testing.assert_allclose(got.astype(np.float32), ref.astype(np.float32), rtol=2e-3)


def test_rank_two_is_refused_naming_the_node():
    from tfrt.tools.import_onnx import ImportError_

    node = helper.make_node("GlobalLpPool", ["x"], ["y"], name="glp")
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])  # fmt: skip
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    with pytest.raises(ImportError_, match="glp.*GlobalLpPool.*rank 2"):
        prepare(m).run([np.zeros((2, 3), np.float32)])
