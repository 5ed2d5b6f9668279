"""The `tfrt_tensor` dialect: the tensor type and the device-generic tensor ops.

``!tfrt_tensor.tensor`` is TFRT's generic tensor type (``tensor.td``); the
tensor kernels of the `tfrt_dht`, `coo`, `tfrt_sht` and `btf` dialects produce
and consume it.  Unknown types of the dialect are accepted, as TFRT's
``allowUnknownTypes()`` does.

The ops are the tensor compute kernels ``tfrt_tensor.<op>``
(``tfrt.kernels.tfrt_tensor``): each runs its op of ``tfrt.devices.ops`` on
the device its first input lives on.  Tensors are values: no chains, inputs
are never written, so every op is Pure.  A small MLP layer::

    %x = tfrt_tensor.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
    %w = tfrt_tensor.constant dense<0.5> : tensor<2x3xf32>
    %b = tfrt_tensor.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
    %m = tfrt_tensor.matmul %x, %w {transpose_a = false, transpose_b = false}
    %z = tfrt_tensor.bias_add %m, %b
    %y = tfrt_tensor.relu %z

BEF stores an op's attributes sorted by name and the kernels read them by
position, so every attribute is required here (no defaults are filled in):
flags are ``i1``, integers and integer lists ``i64`` (MLIR's default for
``1`` and ``[1, 2]``), ``padding`` a string, ``epsilon`` an ``f32`` and
``dtype`` a type.  ``OP_SPECS`` lists each op's operands and attribute kinds;
``tests/test_registry_consistency.py`` checks them against the kernels.

Verifiers run the op's metadata function from ``tfrt.devices.ops`` (the one
every device runs before it computes), so a bad attribute, and a shape or
dtype error among values whose metadata is known at compile time (constants
and the ops computed from them), are reported where the op is written, with
the message the kernel would give at run time.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import (
    I1,
    I64,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, OpResult, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.constraints import AnyAttr
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import (
    RuntimeDialect,
    RuntimeOp,
    define_op,
    define_type,
    ops_of_module,
    type_dtype,
)

if TYPE_CHECKING:
    from tfrt.tensor.host_tensor import TensorMetadata


@functools.cache
def _runtime() -> SimpleNamespace:
    """The runtime pieces the verifiers use, imported on first use: they bring
    in numpy and the tensor package, which parsing and printing do not need."""
    from tfrt.devices.base import DeviceError
    from tfrt.devices.ops import OPS, infer, normalize_attrs
    from tfrt.devices.registry import parse_device_name
    from tfrt.tensor.dtype import DType
    from tfrt.tensor.host_tensor import TensorMetadata
    from tfrt.tensor.shape import TensorShape

    return SimpleNamespace(
        DeviceError=DeviceError,
        OPS=OPS,
        infer=infer,
        normalize_attrs=normalize_attrs,
        parse_device_name=parse_device_name,
        DType=DType,
        TensorMetadata=TensorMetadata,
        TensorShape=TensorShape,
        # The element types BEF's dense attributes hold (TFRT's DType codes 1-15).
        DENSE_DTYPES=frozenset(d for d in DType if 1 <= d.value <= 15),
    )

TensorType = define_type(
    __name__,
    "TensorType",
    "tfrt_tensor.tensor",
    "``!tfrt_tensor.tensor``: a tensor of any kind (dense, string, COO) on any device.",
)

# --------------------------------------------------------------------------
# Attribute kinds: how each is written in MLIR and read by the kernels.
# --------------------------------------------------------------------------

_ATTR_CONSTRAINTS: dict[str, Any] = {
    "i1": IntegerAttr[I1],
    "i64": IntegerAttr[I64],
    "i64[]": ArrayAttr[IntegerAttr[I64]],
    "str": StringAttr,
    "f32": FloatAttr[Float32Type],
    # Any type; the verifier checks that it names a tensor element type.
    "type": AnyAttr(),
}


def _python_attr(kind: str, attr: Attribute) -> Any:
    """An attribute as the kernel receives it (ints, lists, str, float, DType)."""
    if kind in ("i1", "i64"):
        return attr.value.data  # type: ignore[attr-defined]
    if kind == "i64[]":
        return [a.value.data for a in attr.data]  # type: ignore[attr-defined]
    if kind == "str":
        return attr.data  # type: ignore[attr-defined]
    if kind == "f32":
        return attr.value.data  # type: ignore[attr-defined]
    dtype = type_dtype(attr) if isinstance(attr, TypeAttribute) else None
    if dtype is None:
        raise VerifyException(f"attribute 'dtype' must be a tensor element type, but got {attr}")
    return dtype


def _strip_op_prefix(message: str, op_name: str) -> str:
    # The ops' messages start with the op's name ("matmul: ..."); the driver
    # already names the op.
    prefix = f"{op_name}: "
    return message[len(prefix) :] if message.startswith(prefix) else message


# --------------------------------------------------------------------------
# Static metadata: what is known about a tensor value at compile time.
# --------------------------------------------------------------------------

# Producers looked at per query; beyond that a value is unknown.  Every op's
# verifier walks up from its operands, so this bounds verification at a few
# dozen metadata computations per op (the checks cover the constants' first
# layers, where shapes are wired; a 1000-op chain verifies in a fraction of a
# second instead of seconds).
_MAX_WALK = 32


def static_metadata(value: SSAValue) -> TensorMetadata | None:
    """The dtype and shape of a tensor value when the program fixes them.

    Known: `tfrt_tensor.constant` results, the copies, and the results of
    compute ops whose inputs are known (through the op's metadata function).
    Anything else (function arguments, tensors built by `tfrt_dht` kernels,
    or values more than ``_MAX_WALK`` producers away) is None.
    """
    memo: dict[SSAValue, TensorMetadata | None] = {}
    budget = [_MAX_WALK]
    return _metadata(value, memo, budget)


def _metadata(value: SSAValue, memo: dict, budget: list[int]) -> TensorMetadata | None:
    if value in memo:
        return memo[value]
    memo[value] = None  # a cycle (graph regions) or an exhausted budget: unknown
    if not isinstance(value, OpResult) or budget[0] <= 0:
        return None
    budget[0] -= 1
    op = value.op
    meta: TensorMetadata | None = None
    if isinstance(op, ConstantOp):
        meta = op.metadata()
    elif isinstance(op, (ToDeviceOp, ToHostOp)):
        meta = _metadata(op.operands[0], memo, budget)
    elif isinstance(op, TensorComputeOp) and len(op.results) == 1:
        metas = []
        for operand in op.operands:
            m = _metadata(operand, memo, budget)
            if m is None:
                break
            metas.append(m)
        else:
            try:
                meta = op.infer_metadata(metas)[0]
            except (VerifyException, _runtime().DeviceError):
                meta = None  # the producer's own verifier reports it
    memo[value] = meta
    return meta


# --------------------------------------------------------------------------
# Compute ops
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class OpSpec:
    """How one compute op is written: its operands and its attribute kinds.

    ``operands`` names the operands in order; ``VARIADIC`` marks an op with a
    single variadic operand group (`concat`).  ``attrs`` maps each attribute
    to its kind (``i1``, ``i64``, ``i64[]``, ``str``, ``f32``, ``type``).
    """

    mnemonic: str
    class_name: str
    operands: tuple[str, ...]
    attrs: dict[str, str]
    summary: str
    example: str

    VARIADIC: ClassVar[tuple[str, ...]] = ("inputs",)


class TensorComputeOp(RuntimeOp):
    """Base of the compute ops: one `!tfrt_tensor.tensor` result, Pure.

    ``KERNEL_OP`` is the op's name in ``tfrt.devices.ops`` and ``ATTR_KINDS``
    its attribute kinds (see `OpSpec`).
    """

    KERNEL_OP: ClassVar[str] = ""
    ATTR_KINDS: ClassVar[dict[str, str]] = {}

    def kernel_attrs(self) -> dict[str, Any]:
        """The attributes as Python values, as the kernel reads them."""
        out: dict[str, Any] = {}
        for name, kind in self.ATTR_KINDS.items():
            attr = self.properties.get(name)
            if attr is None:
                raise VerifyException(f"requires attribute '{name}'")
            out[name] = _python_attr(kind, attr)
        return out

    def normalized_attrs(self) -> dict[str, Any]:
        rt = _runtime()
        try:
            return rt.normalize_attrs(rt.OPS[self.KERNEL_OP], self.kernel_attrs())
        except rt.DeviceError as exc:
            raise VerifyException(_strip_op_prefix(str(exc), self.KERNEL_OP)) from None

    def infer_metadata(self, metas: Sequence[TensorMetadata]) -> list[TensorMetadata]:
        """The result metadata for inputs `metas` (raises VerifyException)."""
        rt = _runtime()
        try:
            return rt.infer(self.KERNEL_OP, metas, self.kernel_attrs())
        except rt.DeviceError as exc:
            raise VerifyException(_strip_op_prefix(str(exc), self.KERNEL_OP)) from None

    def verify_(self) -> None:
        self.normalized_attrs()
        if self.KERNEL_OP == "concat" and not self.operands:
            raise VerifyException("needs at least one input")
        metas = [static_metadata(v) for v in self.operands]
        if all(m is not None for m in metas):
            self.infer_metadata(metas)  # type: ignore[arg-type]


_BINARY = {
    "add": "The elementwise sum",
    "sub": "The elementwise difference",
    "mul": "The elementwise product",
    "div": "The elementwise quotient (integers truncate toward zero)",
    "maximum": "The elementwise maximum",
    "minimum": "The elementwise minimum",
}
_COMPARE = {
    "less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
    "equal": "==", "not_equal": "!=",
}  # fmt: skip
_UNARY = {
    "relu": ("max(x, 0)", "any numeric dtype"),
    "neg": ("-x", "any numeric dtype"),
    "abs": ("|x|", "any numeric dtype"),
    "sigmoid": ("1 / (1 + exp(-x))", "floating point"),
    "tanh": ("tanh(x)", "floating point"),
    "exp": ("exp(x)", "floating point"),
    "log": ("the natural logarithm of x", "floating point"),
    "sqrt": ("the square root of x", "floating point"),
    "rsqrt": ("1 / sqrt(x)", "floating point"),
}


def _class_name(mnemonic: str) -> str:
    return "".join(part.capitalize() for part in mnemonic.split("_")) + "Op"


def _specs() -> list[OpSpec]:
    specs: list[OpSpec] = []
    for name, what in _BINARY.items():
        specs.append(
            OpSpec(
                name, _class_name(name), ("lhs", "rhs"), {},
                f"{what} of two tensors of one dtype, with numpy broadcasting.",
                f"%c = tfrt_tensor.{name} %a, %b",
            )
        )  # fmt: skip
    for name, symbol in _COMPARE.items():
        specs.append(
            OpSpec(
                name, _class_name(name), ("lhs", "rhs"), {},
                f"Elementwise `lhs {symbol} rhs` of two tensors of one dtype (an i1\n"
                "tensor), with numpy broadcasting.",
                f"%c = tfrt_tensor.{name} %a, %b",
            )
        )  # fmt: skip
    for name, (formula, dtypes) in _UNARY.items():
        specs.append(
            OpSpec(
                name, _class_name(name), ("input",), {},
                f"Elementwise {formula}; {dtypes}.",
                f"%y = tfrt_tensor.{name} %x",
            )
        )  # fmt: skip
    pool_attrs = {"ksize": "i64[]", "padding": "str", "strides": "i64[]"}
    reduce_attrs = {"axes": "i64[]", "keepdims": "i1"}
    specs += [
        OpSpec(
            "pow", "PowOp", ("lhs", "rhs"), {},
            "Elementwise `lhs ** rhs` of two floating-point tensors, with numpy broadcasting.",
            "%c = tfrt_tensor.pow %a, %b",
        ),
        OpSpec(
            "where", "WhereOp", ("condition", "lhs", "rhs"), {},
            "Elementwise select: `lhs` where the i1 `condition` is true, else `rhs`\n"
            "(all three broadcast).",
            "%y = tfrt_tensor.where %c, %a, %b",
        ),
        OpSpec(
            "check_numerics", "CheckNumericsOp", ("input",), {"message": "str"},
            "The input unchanged; the kernel fails when it holds a NaN or an infinity\n"
            "(the error names `message`).",
            "%y = tfrt_tensor.check_numerics %x {message = \"logits\"}",
        ),
        OpSpec(
            "bias_add", "BiasAddOp", ("input", "bias"), {},
            "`input + bias` along the last dimension; `bias` has rank 1.",
            "%y = tfrt_tensor.bias_add %x, %b",
        ),
        OpSpec(
            "matmul", "MatmulOp", ("a", "b"), {"transpose_a": "i1", "transpose_b": "i1"},
            "The matrix product of the last two dimensions (leading dimensions\n"
            "broadcast), each operand transposed first when its flag is set.",
            "%y = tfrt_tensor.matmul %a, %b {transpose_a = false, transpose_b = true}",
        ),
        OpSpec(
            "conv2d", "Conv2DOp", ("input", "filter"),
            {"dilations": "i64[]", "padding": "str", "strides": "i64[]"},
            "2-D convolution of an NHWC input with an HWIO filter (TensorFlow's\n"
            "Conv2D; `strides` and `dilations` are `[h, w]` or `[1, h, w, 1]`,\n"
            "`padding` is \"SAME\" or \"VALID\").",
            "%y = tfrt_tensor.conv2d %x, %w {dilations = [1, 1], padding = \"SAME\", strides = [1, 1]}",
        ),
        OpSpec(
            "max_pool", "MaxPoolOp", ("input",), pool_attrs,
            "Max pooling over `ksize` windows of an NHWC input.",
            "%y = tfrt_tensor.max_pool %x {ksize = [2, 2], padding = \"VALID\", strides = [2, 2]}",
        ),
        OpSpec(
            "avg_pool", "AvgPoolOp", ("input",), pool_attrs,
            "Average pooling over `ksize` windows of an NHWC input (SAME padding\n"
            "averages only the real elements, as TensorFlow does).",
            "%y = tfrt_tensor.avg_pool %x {ksize = [2, 2], padding = \"SAME\", strides = [1, 1]}",
        ),
        OpSpec(
            "batch_norm", "BatchNormOp", ("input", "scale", "offset", "mean", "variance"),
            {"epsilon": "f32"},
            "Inference batch normalization over the last dimension:\n"
            "`(x - mean) * scale / sqrt(variance + epsilon) + offset`.",
            "%y = tfrt_tensor.batch_norm %x, %scale, %offset, %mean, %var {epsilon = 1.000000e-03 : f32}",
        ),
        OpSpec(
            "softmax", "SoftmaxOp", ("input",), {"axis": "i64"},
            "`exp(x - max) / sum(exp(x - max))` along `axis`; floating point.",
            "%y = tfrt_tensor.softmax %x {axis = -1}",
        ),
        OpSpec(
            "reduce_sum", "ReduceSumOp", ("input",), reduce_attrs,
            "The sum over `axes` (`[]`: every axis).",
            "%s = tfrt_tensor.reduce_sum %x {axes = [1], keepdims = false}",
        ),
        OpSpec(
            "reduce_mean", "ReduceMeanOp", ("input",), reduce_attrs,
            "The mean over `axes` (`[]`: every axis); integer means truncate.",
            "%m = tfrt_tensor.reduce_mean %x {axes = [], keepdims = false}",
        ),
        OpSpec(
            "reduce_max", "ReduceMaxOp", ("input",), reduce_attrs,
            "The maximum over `axes` (`[]`: every axis).",
            "%m = tfrt_tensor.reduce_max %x {axes = [0], keepdims = true}",
        ),
        OpSpec(
            "reduce_min", "ReduceMinOp", ("input",), reduce_attrs,
            "The minimum over `axes` (`[]`: every axis).",
            "%m = tfrt_tensor.reduce_min %x {axes = [0], keepdims = true}",
        ),
        OpSpec(
            "argmax", "ArgmaxOp", ("input",), {"axis": "i64"},
            "The index (an i64 tensor) of the largest element along `axis`.",
            "%i = tfrt_tensor.argmax %x {axis = 1}",
        ),
        OpSpec(
            "reshape", "ReshapeOp", ("input",), {"shape": "i64[]"},
            "The same elements in a new shape (one -1 dimension is inferred).",
            "%y = tfrt_tensor.reshape %x {shape = [1, -1]}",
        ),
        OpSpec(
            "transpose", "TransposeOp", ("input",), {"perm": "i64[]"},
            "Permutes the dimensions: `out.shape[i] = in.shape[perm[i]]`.",
            "%y = tfrt_tensor.transpose %x {perm = [1, 0]}",
        ),
        OpSpec(
            "broadcast_to", "BroadcastToOp", ("input",), {"shape": "i64[]"},
            "Broadcasts to `shape` by numpy's rules.",
            "%y = tfrt_tensor.broadcast_to %x {shape = [4, 3]}",
        ),
        OpSpec(
            "concat", "ConcatOp", OpSpec.VARIADIC, {"axis": "i64"},
            "Joins one or more tensors along `axis`.",
            "%y = tfrt_tensor.concat %a, %b, %c {axis = 0}",
        ),
        OpSpec(
            "slice", "SliceOp", ("input",), {"begin": "i64[]", "size": "i64[]"},
            "TensorFlow's Slice: `size[i]` elements from `begin[i]` (-1: to the end).",
            "%y = tfrt_tensor.slice %x {begin = [0, 1], size = [-1, 2]}",
        ),
        OpSpec(
            "strided_slice", "StridedSliceOp", ("input",),
            {"begin": "i64[]", "end": "i64[]", "strides": "i64[]"},
            "Python's `x[b0:e0:s0, b1:e1:s1, ...]`, one entry per dimension\n"
            "(`0 <= begin, end <= dim`, `stride >= 1`).",
            "%y = tfrt_tensor.strided_slice %x {begin = [0, 1], end = [2, 3], strides = [1, 2]}",
        ),
        OpSpec(
            "pad", "PadOp", ("input",), {"paddings": "i64[]"},
            "Zero padding: `paddings` is `[before_0, after_0, before_1, after_1, ...]`.",
            "%y = tfrt_tensor.pad %x {paddings = [0, 0, 1, 1]}",
        ),
        OpSpec(
            "cast", "CastOp", ("input",), {"dtype": "type"},
            "Converts the elements to `dtype` (floats to integers truncate; NaN and\n"
            "infinities give 0).",
            "%y = tfrt_tensor.cast %x {dtype = i32}",
        ),
        OpSpec(
            "copy", "CopyOp", ("input",), {},
            "A copy of a tensor on its own device.",
            "%y = tfrt_tensor.copy %x",
        ),
    ]  # fmt: skip
    return specs


OP_SPECS: dict[str, OpSpec] = {spec.mnemonic: spec for spec in _specs()}


def _define_compute(spec: OpSpec) -> type[IRDLOperation]:
    doc = f"{spec.summary}\n\n    {spec.example}\n"
    body: dict[str, object] = {
        "name": f"tfrt_tensor.{spec.mnemonic}",
        "KERNEL_OP": spec.mnemonic,
        "ATTR_KINDS": dict(spec.attrs),
        "__annotations__": {"KERNEL_OP": ClassVar[str], "ATTR_KINDS": ClassVar[dict[str, str]]},
        "result": result_def(TensorType),
        "traits": traits_def(Pure()),
        "assembly_format": "operands attr-dict",
    }
    if spec.operands is OpSpec.VARIADIC:
        body["inputs"] = var_operand_def(TensorType)
    else:
        for operand in spec.operands:
            body[operand] = operand_def(TensorType)
    for attr, kind in spec.attrs.items():
        body[attr] = prop_def(_ATTR_CONSTRAINTS[kind])
    return define_op(__name__, spec.class_name, doc, body, base=TensorComputeOp)


COMPUTE_OPS: dict[str, type[IRDLOperation]] = {
    name: _define_compute(spec) for name, spec in OP_SPECS.items()
}
globals().update({cls.__name__: cls for cls in COMPUTE_OPS.values()})

# --------------------------------------------------------------------------
# Constants and copies between devices
# --------------------------------------------------------------------------


def _constant_body() -> dict[str, object]:
    return {
        "name": "tfrt_tensor.constant",
        "value": prop_def(DenseIntOrFPElementsAttr),
        "result": result_def(TensorType),
        "traits": traits_def(Pure()),
        "assembly_format": "$value attr-dict",
    }


_CONSTANT_DOC = """A dense host tensor holding the `value` attribute (copied at run time).

    %w = tfrt_tensor.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
"""


class _ConstantBase(RuntimeOp):
    __doc__ = _CONSTANT_DOC

    def metadata(self) -> TensorMetadata | None:
        value = self.properties.get("value")
        if not isinstance(value, DenseIntOrFPElementsAttr):
            return None
        dtype = type_dtype(value.get_element_type())
        shape = tuple(value.get_shape())
        if dtype is None or any(d < 0 for d in shape):
            return None
        rt = _runtime()
        return rt.TensorMetadata(dtype, rt.TensorShape(shape))

    def verify_(self) -> None:
        value = self.properties["value"]
        if any(d < 0 for d in value.get_shape()):
            raise VerifyException("requires a statically shaped value")
        dtype = type_dtype(value.get_element_type())
        if dtype is None or dtype not in _runtime().DENSE_DTYPES:
            raise VerifyException(
                f"element type {value.get_element_type()} cannot be stored in a dense host tensor"
            )


ConstantOp = define_op(
    __name__, "ConstantOp", _CONSTANT_DOC, _constant_body(), _ConstantBase
)


_TO_DEVICE_DOC = """Copies a host tensor to the device named `device` (``cpu``, ``gpu:0``,
any registered kind); the copy is queued on the device, and a tensor already
there is returned as is.

    %g = tfrt_tensor.to_device %w "gpu:0"
"""


class _ToDeviceBase(RuntimeOp):
    __doc__ = _TO_DEVICE_DOC

    def verify_(self) -> None:
        name = self.properties["device"].data
        rt = _runtime()
        try:
            rt.parse_device_name(name)
        except rt.DeviceError as exc:
            raise VerifyException(str(exc)) from None


ToDeviceOp = define_op(
    __name__,
    "ToDeviceOp",
    _TO_DEVICE_DOC,
    {
        "name": "tfrt_tensor.to_device",
        "input": operand_def(TensorType),
        "device": prop_def(StringAttr),
        "result": result_def(TensorType),
        "traits": traits_def(Pure()),
        "assembly_format": "$input $device attr-dict",
    },
    _ToDeviceBase,
)

ToHostOp = define_op(
    __name__,
    "ToHostOp",
    "A dense host tensor copy of a device tensor; available when the device has\n"
    "finished computing it (a host tensor is returned as is).\n\n"
    "    %h = tfrt_tensor.to_host %g\n",
    {
        "name": "tfrt_tensor.to_host",
        "input": operand_def(TensorType),
        "result": result_def(TensorType),
        "traits": traits_def(Pure()),
        "assembly_format": "operands attr-dict",
    },
)

TFRT_TENSOR_OPS = ops_of_module(globals(), __name__)

TFRT_TENSOR = RuntimeDialect("tfrt_tensor", TFRT_TENSOR_OPS, [TensorType], allow_unknown_types=True)
