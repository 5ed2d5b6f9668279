"""Every `tfrt_tensor` compute op, written in its custom form, through BEF and
the kernels: the result equals the eager op on the same inputs.  This checks
the attribute plumbing (BEF sorts attributes by name, kernels read them by
position and kind) for every op and attribute."""

from __future__ import annotations

import numpy as np
import pytest

from tfrt.devices import dispatch
from tfrt.devices.ops import OPS
from tfrt.tensor.dtype import DType
from tfrt.tensor.host_tensor import DenseHostTensor

from .pipeline import run_mlir

F = np.float32
A = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -1.5]], F)
POS = np.array([[0.5, 1.0, 2.0], [4.0, 9.0, 0.25]], F)
IMG = np.arange(16, dtype=F).reshape(1, 4, 4, 1)

# name -> (inputs, attributes as Python values for the eager call)
CASES = {
    **{op: ([A, np.array([0.5, 2.0, -1.0], F)], {}) for op in
       ("add", "sub", "mul", "div", "maximum", "minimum")},
    **{op: ([A], {}) for op in ("relu", "neg", "abs", "sigmoid", "tanh", "exp")},
    **{op: ([POS], {}) for op in ("log", "sqrt", "rsqrt")},
    "bias_add": ([A, np.array([1.0, 2.0, 3.0], F)], {}),
    "matmul": ([A, np.arange(8, dtype=F).reshape(2, 4)], {"transpose_a": True, "transpose_b": False}),
    "conv2d": (
        [IMG, np.array([1.0, -1.0, 2.0, 0.5, 0.0, 1.0, 3.0, -2.0], F).reshape(2, 2, 1, 2)],
        {"dilations": [1, 1], "padding": "SAME", "strides": [2, 1]},
    ),
    "max_pool": ([IMG], {"ksize": [3, 3], "padding": "SAME", "strides": [2, 2]}),
    "avg_pool": ([IMG], {"ksize": [3, 2], "padding": "VALID", "strides": [1, 2]}),
    "batch_norm": (
        [A, np.array([1.0, 2.0, 0.5], F), np.array([0.0, 1.0, -1.0], F),
         np.array([0.5, 0.0, 1.0], F), np.array([1.0, 4.0, 0.25], F)],
        {"epsilon": 0.125},
    ),
    "softmax": ([A], {"axis": 0}),
    "reduce_sum": ([A], {"axes": [0], "keepdims": True}),
    "reduce_mean": ([A], {"axes": [], "keepdims": False}),
    "reduce_max": ([A], {"axes": [1], "keepdims": False}),
    "argmax": ([A], {"axis": 0}),
    "reshape": ([A], {"shape": [-1, 2]}),
    "transpose": ([A], {"perm": [1, 0]}),
    "broadcast_to": ([np.array([1.0, 2.0, 3.0], F)], {"shape": [2, 2, 3]}),
    "concat": ([A, POS, A], {"axis": 1}),
    "slice": ([A], {"begin": [0, 1], "size": [2, -1]}),
    "cast": ([np.array([1.7, -2.3, 0.0, 300.5], F)], {"dtype": DType.I32}),
    **{op: ([A, np.array([0.5, -2.0, -1.0], F)], {}) for op in
       ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal")},
    "pow": ([POS, np.array([0.5, 2.0, -1.0], F)], {}),
    "where": ([np.array([True, False, True]), A, POS], {}),
    "check_numerics": ([A], {"message": "checked"}),
    "reduce_min": ([A], {"axes": [0], "keepdims": False}),
    "strided_slice": ([A], {"begin": [0, 0], "end": [2, 3], "strides": [1, 2]}),
    "pad": ([A], {"paddings": [1, 0, 0, 2]}),
    "copy": ([A], {}),
}  # fmt: skip


def _attr_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, DType):
        return value.short_name
    if isinstance(value, float):
        return f"{value!r} : f32"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def _constant(name: str, array: np.ndarray) -> str:
    dims = "x".join(str(d) for d in array.shape)
    if array.dtype == np.bool_:
        values = str(array.tolist()).replace("True", "true").replace("False", "false")
        return f"  {name} = tfrt_tensor.constant dense<{values}> : tensor<{dims}xi1>"
    return f"  {name} = tfrt_tensor.constant dense<{array.tolist()}> : tensor<{dims}xf32>"


def test_cases_cover_every_op():
    assert set(CASES) == set(OPS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_the_eager_op(name):
    inputs, attrs = CASES[name]
    lines = [_constant(f"%in{i}", x) for i, x in enumerate(inputs)]
    operands = ", ".join(f"%in{i}" for i in range(len(inputs)))
    attr_dict = ", ".join(f"{k} = {_attr_text(v)}" for k, v in attrs.items())
    attr_dict = f" {{{attr_dict}}}" if attr_dict else ""
    lines.append(f"  %r = tfrt_tensor.{name} {operands}{attr_dict}")
    run = run_mlir(
        "func.func @f() -> !tfrt.chain {\n  %ch0 = tfrt.new.chain\n"
        + "\n".join(lines)
        + "\n  %ch1 = tfrt_dht.print_tensor %r, %ch0\n  tfrt.return %ch1 : !tfrt.chain\n}\n"
    )
    assert run.diagnostics == []
    expected = dispatch(name, *[DenseHostTensor.from_array(x) for x in inputs], **attrs)
    assert run.lines == [expected.print_text()]
