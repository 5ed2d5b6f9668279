"""The `tfrt_tensor` dialect: op definitions, docstring examples, static metadata."""

from __future__ import annotations

import re

import pytest
from xdsl.traits import Pure

from tfrt.devices.ops import OPS
from tfrt.dialects import tfrt_tensor as TT
from tfrt.dialects.syntax import parse_module
from tfrt.tensor.dtype import DType


def _example(op) -> str:
    lines = [line.strip() for line in op.__doc__.splitlines() if line.startswith("    %")]
    assert len(lines) == 1, op.name
    return lines[0]


def test_every_kernel_op_is_defined():
    names = {op.name for op in TT.TFRT_TENSOR_OPS}
    expected = {f"tfrt_tensor.{n}" for n in OPS} | {
        "tfrt_tensor.constant",
        "tfrt_tensor.to_device",
        "tfrt_tensor.to_host",
    }
    assert names == expected
    assert all(op.has_trait(Pure) for op in TT.TFRT_TENSOR_OPS)


@pytest.mark.parametrize("op", TT.TFRT_TENSOR_OPS, ids=lambda op: op.name)
def test_docstring_example_parses_and_verifies(op):
    example = _example(op)
    result, rhs = example.split(" = ", 1)
    assert rhs.startswith(op.name + " ")
    uses = sorted(set(re.findall(r"%\w+", rhs)))
    args = ", ".join(f"{u}: !tfrt_tensor.tensor" for u in uses)
    module = parse_module(f"func.func @f({args}) {{\n  {example}\n  tfrt.return\n}}\n")
    (parsed,) = [o for o in module.walk() if o.name == op.name]
    assert isinstance(parsed, op)


def _meta(text: str, index: int = -1):
    """The static metadata of the result of the body's op ``index`` (default: the last)."""
    module = parse_module(f"func.func @f(%arg: !tfrt_tensor.tensor) {{\n{text}\n  tfrt.return\n}}\n")
    body = [op for op in module.walk() if op.name not in ("builtin.module", "func.func", "tfrt.return")]
    return TT.static_metadata(body[index].results[0])


def test_static_metadata_follows_constants_and_ops():
    meta = _meta(
        "  %a = tfrt_tensor.constant dense<1> : tensor<2x3xi32>\n"
        "  %t = tfrt_tensor.transpose %a {perm = [1, 0]}\n"
        "  %r = tfrt_tensor.reduce_sum %t {axes = [1], keepdims = true}"
    )
    assert meta.dtype == DType.I32 and meta.shape.dims == (3, 1)
    meta = _meta(
        "  %a = tfrt_tensor.constant dense<1.0> : tensor<4xf32>\n"
        "  %d = tfrt_tensor.to_device %a \"cpu_async\"\n"
        "  %r = tfrt_tensor.argmax %d {axis = 0}"
    )
    assert meta.dtype == DType.I64 and meta.shape.dims == ()


def test_static_metadata_is_unknown_for_arguments_and_other_kernels():
    assert _meta("  %r = tfrt_tensor.relu %arg") is None
    assert _meta("  %r = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]") is None


def test_long_chains_stay_cheap():
    # A chain longer than the walk budget: its end is unknown, not an error.
    body = "\n".join(f"  %v{i + 1} = tfrt_tensor.relu %v{i}" for i in range(100))
    text = f"  %v0 = tfrt_tensor.constant dense<1.0> : tensor<2xf32>\n{body}"
    assert _meta(text) is None
    assert _meta(text, TT._MAX_WALK - 1).shape.dims == (2,)


def test_op_specs_cover_the_kernel_table():
    assert set(TT.OP_SPECS) == set(OPS)
    assert TT.COMPUTE_OPS["matmul"].ATTR_KINDS == {"transpose_a": "i1", "transpose_b": "i1"}
