"""Tensor ops: one name, one specification, an implementation per device.

An op is specified once here (its inputs, attributes with defaults, and a
*metadata function* that computes result dtypes and shapes and rejects bad
arguments); each device implements it (``tfrt.devices.array_ops`` for every
device with a numpy-compatible array module: numpy on ``cpu``, cupy on
``gpu``).  Because the metadata function runs first, every device reports the
same error for the same mistake, and the ``null`` device can produce correctly
shaped results without computing anything.

Three ways in, all ending in :func:`run_op`:

* eager Python: ``device.ops.matmul(a, b, transpose_b=True)`` or
  ``tfrt.devices.dispatch("matmul", a, b, transpose_b=True)`` (device taken
  from the inputs);
* BEF kernels ``tfrt_tensor.<op>`` (``tfrt.kernels.tfrt_tensor``);
* the compiler lowers to those kernels.

Example::

    >>> from tfrt.devices import get_device
    >>> cpu = get_device("cpu")
    >>> a = cpu.copy_to_device(np.ones((2, 3), np.float32))
    >>> str(cpu.ops.reduce_sum(a, axes=[1]))
    'DenseHostTensor dtype = f32, shape = [2], values = [3.000000e+00, 3.000000e+00]'

The op list and the attribute conventions are documented in docs/tensors.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from tfrt.devices.errors import DeviceError
from tfrt.tensor.dtype import DType, as_dtype
from tfrt.tensor.host_tensor import TensorMetadata
from tfrt.tensor.shape import TensorShape

REQUIRED = object()  # marks an attribute without a default


class OpError(DeviceError):
    """An op was called with bad inputs or attributes."""


@dataclass(frozen=True)
class OpSpec:
    """How an op looks to every device.

    ``num_inputs`` is None for variadic ops.  ``attrs`` maps each attribute
    name to its default (or REQUIRED).  ``infer(metas, attrs)`` returns the
    result metadata or raises OpError.  ``view`` ops (reshape) may return a
    tensor that shares its input's memory.
    """

    name: str
    num_inputs: int | None
    attrs: dict[str, Any]
    infer: Callable[[list[TensorMetadata], dict[str, Any]], list[TensorMetadata]]
    doc: str
    view: bool = False
    float_only: bool = False
    normalize: dict[str, Callable[[Any], Any]] = field(default_factory=dict)


OPS: dict[str, OpSpec] = {}


def _op(name, num_inputs, attrs=None, *, doc, view=False, float_only=False, normalize=None):
    def register(infer):
        OPS[name] = OpSpec(
            name, num_inputs, dict(attrs or {}), infer, doc, view, float_only, dict(normalize or {})
        )
        return infer

    return register


# --------------------------------------------------------------------------
# attribute coercion


def _ints(value) -> tuple[int, ...]:
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    return tuple(int(v) for v in value)


def _bool(value) -> bool:
    return bool(value)


def _padding(value) -> str:
    text = value.decode() if isinstance(value, bytes) else str(value)
    up = text.upper()
    if up not in ("SAME", "VALID"):
        raise OpError(f"padding '{text}' is not recognized (expected SAME or VALID)")
    return up


def _dtype_attr(value) -> DType:
    try:
        return as_dtype(value)
    except (ValueError, TypeError) as exc:
        raise OpError(str(exc)) from None


def _pair(name: str):
    """Accept [h, w] or TF's NHWC-style [1, h, w, 1]."""

    def coerce(value):
        vals = _ints(value)
        if len(vals) == 4:
            vals = vals[1:3]
        if len(vals) == 1:
            vals = vals * 2
        if len(vals) != 2 or any(v <= 0 for v in vals):
            raise OpError(f"{name} must be two positive integers, got {list(_ints(value))}")
        return vals

    return coerce


# --------------------------------------------------------------------------
# metadata helpers


def _meta(dtype: DType, dims) -> TensorMetadata:
    return TensorMetadata(dtype, TensorShape(dims))


def _same_dtype(op: str, metas: Sequence[TensorMetadata]) -> DType:
    dt = metas[0].dtype
    for i, m in enumerate(metas[1:], 1):
        if m.dtype != dt:
            raise OpError(f"{op}: input {i} has dtype {m.dtype.short_name}, expected {dt.short_name}")
    return dt


_NUMERIC = frozenset(d for d in DType if d.is_float or d.is_integer or d.is_complex or d == DType.I1)


def _numeric(op: str, dt: DType) -> None:
    if dt not in _NUMERIC:
        raise OpError(f"{op}: dtype {dt.short_name} is not numeric")


def _float(op: str, dt: DType) -> None:
    if not dt.is_float:
        raise OpError(f"{op}: dtype {dt.short_name} is not a floating-point type")


def _broadcast(op: str, a: TensorShape, b: TensorShape) -> tuple[int, ...]:
    if a.dims == b.dims:
        return a.dims
    try:
        return tuple(np.broadcast_shapes(a.dims, b.dims))
    except ValueError:
        raise OpError(f"{op}: shapes {a} and {b} are not broadcast-compatible") from None


def _axis(op: str, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise OpError(f"{op}: axis {axis} is out of range for rank {rank}")
    return axis % rank


def _rank(op: str, m: TensorMetadata, rank: int, what: str) -> None:
    if m.shape.rank != rank:
        raise OpError(f"{op}: {what} must have rank {rank}, got shape {m.shape}")


# --------------------------------------------------------------------------
# elementwise

BINARY_OPS = ("add", "sub", "mul", "div", "maximum", "minimum")
UNARY_OPS = ("relu", "neg", "abs", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt")
_FLOAT_UNARY = frozenset({"sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt"})


def _binary_infer(op):
    def infer(metas, attrs):
        a, b = metas
        if a == b and a.dtype in _NUMERIC:
            return [a]  # the common case, without building anything
        dt = _same_dtype(op, metas)
        _numeric(op, dt)
        return [_meta(dt, _broadcast(op, a.shape, b.shape))]

    return infer


def _unary_infer(op):
    def infer(metas, attrs):
        dt = metas[0].dtype
        if op in _FLOAT_UNARY:
            _float(op, dt)
        else:
            _numeric(op, dt)
        return [metas[0]]

    return infer


for _name in BINARY_OPS:
    _op(_name, 2, doc=f"Elementwise {_name} with numpy broadcasting; both inputs share a dtype.")(
        _binary_infer(_name)
    )
for _name in UNARY_OPS:
    _op(_name, 1, doc=f"Elementwise {_name}.", float_only=_name in _FLOAT_UNARY)(
        _unary_infer(_name)
    )


# Comparisons: one dtype in, i1 out, numpy broadcasting.
COMPARE_OPS = ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal")


def _compare_infer(op):
    def infer(metas, attrs):
        a, b = metas
        dt = _same_dtype(op, metas)
        _numeric(op, dt)
        return [_meta(DType.I1, _broadcast(op, a.shape, b.shape))]

    return infer


for _name in COMPARE_OPS:
    _op(_name, 2, doc=f"Elementwise {_name.replace('_', ' ')} comparison (i1 result), with broadcasting.")(
        _compare_infer(_name)
    )


@_op("pow", 2, doc="Elementwise a ** b (floating point), with numpy broadcasting.", float_only=True)
def _pow(metas, attrs):
    a, b = metas
    dt = _same_dtype("pow", metas)
    _float("pow", dt)
    return [_meta(dt, _broadcast("pow", a.shape, b.shape))]


@_op("where", 3, doc="Elementwise select: x where cond (i1) is true, else y; all three broadcast.")
def _where(metas, attrs):
    c, x, y = metas
    if c.dtype != DType.I1:
        raise OpError(f"where: the condition has dtype {c.dtype.short_name}, expected i1")
    dt = _same_dtype("where", [x, y])
    shape = _broadcast("where", x.shape, y.shape)
    return [_meta(dt, _broadcast("where", c.shape, TensorShape(shape)))]


@_op(
    "check_numerics",
    1,
    {"message": ""},
    doc="The input unchanged; fails (at run time) when it holds a NaN or an infinity.",
    float_only=True,
    normalize={"message": lambda v: v.decode() if isinstance(v, bytes) else str(v)},
)
def _check_numerics(metas, attrs):
    _float("check_numerics", metas[0].dtype)
    return [metas[0]]


@_op(
    "bias_add",
    2,
    doc="x + bias along the last dimension (bias has rank 1).",
)
def _bias_add(metas, attrs):
    x, b = metas
    dt = _same_dtype("bias_add", metas)
    _numeric("bias_add", dt)
    if b.shape.rank != 1 or x.shape.rank < 1 or b.shape.dim(0) != x.shape.dim(-1):
        raise OpError(f"bias_add: bias shape {b.shape} does not match the last dimension of {x.shape}")
    return [x]


# --------------------------------------------------------------------------
# matmul and convolution


@_op(
    "matmul",
    2,
    {"transpose_a": False, "transpose_b": False},
    doc="Matrix product of the last two dimensions (leading dimensions broadcast).",
    normalize={"transpose_a": _bool, "transpose_b": _bool},
)
def _matmul(metas, attrs):
    a, b = metas
    dt = _same_dtype("matmul", metas)
    _numeric("matmul", dt)
    if a.shape.rank < 2 or b.shape.rank < 2:
        raise OpError(f"matmul: inputs must have rank >= 2, got {a.shape} and {b.shape}")
    m, k = a.shape.dims[-2:]
    if attrs["transpose_a"]:
        m, k = k, m
    k2, n = b.shape.dims[-2:]
    if attrs["transpose_b"]:
        k2, n = n, k2
    if k != k2:
        raise OpError(
            f"matmul: contraction dimensions differ ({k} vs {k2}) for shapes {a.shape} and {b.shape}"
        )
    try:
        batch = np.broadcast_shapes(a.shape.dims[:-2], b.shape.dims[:-2])
    except ValueError:
        raise OpError(f"matmul: batch dimensions of {a.shape} and {b.shape} differ") from None
    return [_meta(dt, (*batch, m, n))]


def window_output(op: str, size: int, k: int, stride: int, dilation: int, padding: str):
    """(output size, padding before) of one spatial dimension, TensorFlow's rules."""
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        if size < eff:
            raise OpError(f"{op}: window of {eff} does not fit an input of {size} with VALID padding")
        return (size - eff) // stride + 1, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return out, total // 2


@_op(
    "conv2d",
    2,
    {"strides": (1, 1), "padding": "VALID", "dilations": (1, 1)},
    doc="2-D convolution, input NHWC, filter HWIO (TensorFlow's Conv2D).",
    normalize={"strides": _pair("strides"), "padding": _padding, "dilations": _pair("dilations")},
)
def _conv2d(metas, attrs):
    x, f = metas
    dt = _same_dtype("conv2d", metas)
    _numeric("conv2d", dt)
    _rank("conv2d", x, 4, "the input (NHWC)")
    _rank("conv2d", f, 4, "the filter (HWIO)")
    n, h, w, c = x.shape.dims
    kh, kw, ci, co = f.shape.dims
    if ci != c:
        raise OpError(f"conv2d: filter {f.shape} expects {ci} input channels, input {x.shape} has {c}")
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]
    oh, _ = window_output("conv2d", h, kh, sh, dh, attrs["padding"])
    ow, _ = window_output("conv2d", w, kw, sw, dw, attrs["padding"])
    return [_meta(dt, (n, oh, ow, co))]


def _pool_infer(op):
    def infer(metas, attrs):
        (x,) = metas
        _numeric(op, x.dtype)
        if op == "avg_pool":
            _float(op, x.dtype)
        _rank(op, x, 4, "the input (NHWC)")
        n, h, w, c = x.shape.dims
        (kh, kw), (sh, sw) = attrs["ksize"], attrs["strides"]
        oh, _ = window_output(op, h, kh, sh, 1, attrs["padding"])
        ow, _ = window_output(op, w, kw, sw, 1, attrs["padding"])
        return [_meta(x.dtype, (n, oh, ow, c))]

    return infer


for _name in ("max_pool", "avg_pool"):
    _op(
        _name,
        1,
        {"ksize": REQUIRED, "strides": REQUIRED, "padding": "VALID"},
        doc=f"{'Max' if _name == 'max_pool' else 'Average'} pooling over NHWC windows "
        "(SAME averages count only the real elements, as TensorFlow does).",
        normalize={"ksize": _pair("ksize"), "strides": _pair("strides"), "padding": _padding},
    )(_pool_infer(_name))


@_op(
    "batch_norm",
    5,
    {"epsilon": 1e-3},
    doc="Inference batch norm over the last dimension: inputs x, scale, offset, mean, variance.",
    normalize={"epsilon": float},
)
def _batch_norm(metas, attrs):
    x = metas[0]
    dt = _same_dtype("batch_norm", metas)
    _float("batch_norm", dt)
    if x.shape.rank < 1:
        raise OpError("batch_norm: the input must have rank >= 1")
    c = x.shape.dim(-1)
    for i, name in enumerate(("scale", "offset", "mean", "variance"), 1):
        if metas[i].shape.dims != (c,):
            raise OpError(f"batch_norm: {name} has shape {metas[i].shape}, expected [{c}]")
    return [x]


@_op(
    "softmax",
    1,
    {"axis": -1},
    doc="exp(x - max) / sum(exp(x - max)) along ``axis``.",
    float_only=True,
    normalize={"axis": int},
)
def _softmax(metas, attrs):
    (x,) = metas
    _float("softmax", x.dtype)
    if x.shape.rank == 0:
        raise OpError("softmax: the input must have rank >= 1")
    _axis("softmax", attrs["axis"], x.shape.rank)
    return [x]


# --------------------------------------------------------------------------
# reductions


def reduction_axes(op: str, axes: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """Normalised axes; an empty list means every axis."""
    if not axes:
        return tuple(range(rank))
    out = sorted({_axis(op, a, rank) for a in axes})
    if len(out) != len(axes):
        raise OpError(f"{op}: axes {list(axes)} repeat a dimension")
    return tuple(out)


def _reduce_infer(op):
    def infer(metas, attrs):
        (x,) = metas
        _numeric(op, x.dtype)
        axes = reduction_axes(op, attrs["axes"], x.shape.rank)
        if op in ("reduce_max", "reduce_min") and x.num_elements == 0 and any(x.shape.dim(a) == 0 for a in axes):
            raise OpError(f"{op}: cannot reduce an empty dimension of {x.shape}")
        dims = [
            (1 if i in axes else d)
            for i, d in enumerate(x.shape.dims)
            if attrs["keepdims"] or i not in axes
        ]
        return [_meta(_reduce_dtype(op, x.dtype), dims)]

    return infer


def _reduce_dtype(op: str, dt: DType) -> DType:
    """As numpy: the sum of booleans counts them (i64), their mean is a
    fraction (f64: the accuracy ``(pred == y).mean()``); max and min of
    booleans are any and all."""
    if dt == DType.I1 and op == "reduce_sum":
        return DType.I64
    if dt == DType.I1 and op == "reduce_mean":
        return DType.F64
    return dt


for _name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min"):
    _op(
        _name,
        1,
        {"axes": (), "keepdims": False},
        doc=f"{_name[7:].capitalize()} over ``axes`` (empty: every axis).",
        normalize={"axes": _ints, "keepdims": _bool},
    )(_reduce_infer(_name))


@_op("argmax", 1, {"axis": 0}, doc="Index (i64) of the largest element along ``axis``.",
     normalize={"axis": int})
def _argmax(metas, attrs):
    (x,) = metas
    _numeric("argmax", x.dtype)
    axis = _axis("argmax", attrs["axis"], x.shape.rank)
    if x.shape.dim(axis) == 0:
        raise OpError(f"argmax: dimension {axis} of {x.shape} is empty")
    dims = [d for i, d in enumerate(x.shape.dims) if i != axis]
    return [_meta(DType.I64, dims)]


# --------------------------------------------------------------------------
# shape ops


def resolve_reshape(op: str, src: TensorShape, shape: tuple[int, ...]) -> tuple[int, ...]:
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1 or any(d < -1 for d in shape):
        raise OpError(f"{op}: invalid target shape {list(shape)}")
    n = src.num_elements()
    if unknown:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or n % known:
            raise OpError(f"{op}: cannot reshape {src} to {list(shape)}")
        shape = tuple(n // known if d == -1 else d for d in shape)
    if math.prod(shape) != n:
        raise OpError(f"{op}: cannot reshape {src} ({n} elements) to {list(shape)}")
    return shape


@_op("reshape", 1, {"shape": REQUIRED}, doc="Same data, new shape (one -1 is inferred).",
     view=True, normalize={"shape": _ints})
def _reshape(metas, attrs):
    (x,) = metas
    return [_meta(x.dtype, resolve_reshape("reshape", x.shape, attrs["shape"]))]


@_op("transpose", 1, {"perm": REQUIRED}, doc="Permute dimensions: out.shape[i] = in.shape[perm[i]].",
     normalize={"perm": _ints})
def _transpose(metas, attrs):
    (x,) = metas
    perm = attrs["perm"]
    if sorted(perm) != list(range(x.shape.rank)):
        raise OpError(f"transpose: perm {list(perm)} is not a permutation of rank {x.shape.rank}")
    return [_meta(x.dtype, [x.shape.dim(p) for p in perm])]


@_op("broadcast_to", 1, {"shape": REQUIRED}, doc="Broadcast to ``shape`` (numpy rules).",
     normalize={"shape": _ints})
def _broadcast_to(metas, attrs):
    (x,) = metas
    shape = attrs["shape"]
    try:
        if tuple(np.broadcast_shapes(x.shape.dims, shape)) != tuple(shape):
            raise ValueError
    except ValueError:
        raise OpError(f"broadcast_to: cannot broadcast {x.shape} to {list(shape)}") from None
    return [_meta(x.dtype, shape)]


@_op("concat", None, {"axis": 0}, doc="Join inputs along ``axis`` (variadic).",
     normalize={"axis": int})
def _concat(metas, attrs):
    if not metas:
        raise OpError("concat: needs at least one input")
    dt = _same_dtype("concat", metas)
    rank = metas[0].shape.rank
    if rank == 0:
        raise OpError("concat: inputs must have rank >= 1")
    axis = _axis("concat", attrs["axis"], rank)
    dims = list(metas[0].shape.dims)
    for i, m in enumerate(metas[1:], 1):
        other = m.shape.dims
        if len(other) != rank or any(
            a != b for j, (a, b) in enumerate(zip(dims, other)) if j != axis
        ):
            raise OpError(f"concat: input {i} has shape {m.shape}, incompatible with {metas[0].shape}")
        dims[axis] += other[axis]
    return [_meta(dt, dims)]


def resolve_slice(op: str, shape: TensorShape, begin, size) -> tuple[tuple[int, int], ...]:
    if len(begin) != shape.rank or len(size) != shape.rank:
        raise OpError(f"{op}: begin {list(begin)} and size {list(size)} must have rank {shape.rank}")
    out = []
    for i, (b, s, d) in enumerate(zip(begin, size, shape.dims)):
        if s == -1:
            s = d - b
        if b < 0 or s < 0 or b + s > d:
            raise OpError(f"{op}: begin {list(begin)} size {list(size)} is out of bounds for {shape}")
        out.append((b, b + s))
    return tuple(out)


@_op("slice", 1, {"begin": REQUIRED, "size": REQUIRED},
     doc="TensorFlow's Slice: ``size[i] == -1`` means to the end.",
     normalize={"begin": _ints, "size": _ints})
def _slice(metas, attrs):
    (x,) = metas
    bounds = resolve_slice("slice", x.shape, attrs["begin"], attrs["size"])
    return [_meta(x.dtype, [e - b for b, e in bounds])]


@_op("strided_slice", 1, {"begin": REQUIRED, "end": REQUIRED, "strides": REQUIRED},
     doc="Python's x[b0:e0:s0, ...] for every dimension: 0 <= begin, end <= dim, stride >= 1.",
     normalize={"begin": _ints, "end": _ints, "strides": _ints})
def _strided_slice(metas, attrs):
    (x,) = metas
    begin, end, strides = attrs["begin"], attrs["end"], attrs["strides"]
    rank = x.shape.rank
    if not len(begin) == len(end) == len(strides) == rank:
        raise OpError(
            f"strided_slice: begin {list(begin)}, end {list(end)} and strides {list(strides)} "
            f"must have rank {rank}"
        )
    dims = []
    for b, e, s, d in zip(begin, end, strides, x.shape.dims):
        if s < 1 or not 0 <= b <= d or not 0 <= e <= d:
            raise OpError(
                f"strided_slice: begin {list(begin)} end {list(end)} strides {list(strides)} "
                f"is out of bounds for {x.shape}"
            )
        dims.append(max(0, -(-(e - b) // s)))
    return [_meta(x.dtype, dims)]


@_op("pad", 1, {"paddings": REQUIRED},
     doc="Zero padding: ``paddings`` is [before_0, after_0, before_1, after_1, ...].",
     normalize={"paddings": _ints})
def _pad(metas, attrs):
    (x,) = metas
    pads = attrs["paddings"]
    if len(pads) != 2 * x.shape.rank or any(p < 0 for p in pads):
        raise OpError(
            f"pad: paddings {list(pads)} must be {2 * x.shape.rank} non-negative integers for {x.shape}"
        )
    return [_meta(x.dtype, [d + pads[2 * i] + pads[2 * i + 1] for i, d in enumerate(x.shape.dims)])]


@_op("cast", 1, {"dtype": REQUIRED}, doc="Convert elements to ``dtype`` (C-style for floats to ints).",
     normalize={"dtype": _dtype_attr})
def _cast(metas, attrs):
    (x,) = metas
    _numeric("cast", x.dtype)
    _numeric("cast", attrs["dtype"])
    return [_meta(attrs["dtype"], x.shape.dims)]


@_op("copy", 1, doc="A copy of the input on the same device.")
def _copy(metas, attrs):
    return [metas[0]]


# --------------------------------------------------------------------------
# the driver


def normalize_attrs(spec: OpSpec, attrs: dict[str, Any]) -> dict[str, Any]:
    if not spec.attrs and not attrs:
        return attrs
    unknown = set(attrs) - set(spec.attrs)
    if unknown:
        raise OpError(f"{spec.name}: unknown attribute(s) {sorted(unknown)}")
    out = {}
    for name, default in spec.attrs.items():
        if name in attrs:
            value = attrs[name]
        elif default is REQUIRED:
            raise OpError(f"{spec.name}: missing attribute '{name}'")
        else:
            value = default
        coerce = spec.normalize.get(name)
        if coerce is not None:
            try:
                value = coerce(value)
            except OpError:
                raise
            except (TypeError, ValueError) as exc:
                raise OpError(f"{spec.name}: bad attribute '{name}': {exc}") from None
        out[name] = value
    return out


def get_spec(name: str) -> OpSpec:
    spec = OPS.get(name)
    if spec is None:
        raise OpError(f"unknown tensor op '{name}'")
    return spec


def infer(name: str, metas: Sequence[TensorMetadata], attrs: dict[str, Any]) -> list[TensorMetadata]:
    """The result metadata of op ``name`` (raises OpError for bad inputs)."""
    spec = get_spec(name)
    return spec.infer(list(metas), normalize_attrs(spec, attrs))


def run_op(device, name: str, inputs: list[Any], attrs: dict[str, Any]) -> list[Any]:
    """Validate and run op ``name`` on ``device``; return the result tensors."""
    spec = get_spec(name)
    if spec.num_inputs is not None and len(inputs) != spec.num_inputs:
        raise OpError(f"{name}: expects {spec.num_inputs} inputs, got {len(inputs)}")
    for i, t in enumerate(inputs):
        if not device.owns(t):
            where = getattr(t, "device_name", type(t).__name__)
            raise OpError(f"{name}: input {i} is on {where}, not on {device.name}")
    norm = normalize_attrs(spec, attrs)
    out_metas = spec.infer([t.metadata for t in inputs], norm)
    return device.execute(spec, inputs, out_metas, norm)




class OpTable:
    """A device's ops as Python callables: ``device.ops.add(a, b)``, ``device.ops["add"]``."""

    def __init__(self, device):
        self._device = device

    def __getitem__(self, name: str) -> Callable[..., Any]:
        spec = get_spec(name)
        device = self._device

        def call(*inputs: Any, **attrs: Any):
            results = run_op(device, spec.name, list(inputs), attrs)
            return results[0] if len(results) == 1 else tuple(results)

        call.__name__ = name
        call.__doc__ = spec.doc
        return call

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except OpError:
            raise AttributeError(f"no tensor op named '{name}'") from None

    def __contains__(self, name: str) -> bool:
        return name in OPS

    @staticmethod
    def names() -> list[str]:
        return sorted(OPS)
