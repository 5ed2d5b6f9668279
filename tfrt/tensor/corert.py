"""Core runtime ("corert"): op-by-op execution of named ops on op handlers.

After TFRT's ``lib/core_runtime``.  A :class:`TensorHandle` pairs a device
name, metadata (dtype and shape) and an AsyncValue of a host tensor.  An
:class:`OpHandler` turns an op name into a callable; handlers form fallback
chains (``cpu`` handles its registered ops and hands the others to its
fallback; ``null`` fails every op with ``<op> was not supported by
NullOpHandler.``; ``logging`` prints each dispatch to stderr and delegates).
:class:`CoreRuntime` is the per-HostContext registry of named handlers.

:class:`OpAttrs` is the attribute set of one op invocation, printed as TFRT
prints it::

    OpAttrs contains 2 entries:
      'shape' type=I64 value=[5]
      'values' type=I32 value=[1, 2, 3, 4, 5]

The CPU handler runs an op as TFRT's ``ExecuteOnOpHandler`` does: the
metadata function (when the op has one) checks the arguments and computes
the result metadata synchronously, scalar/string/COO arguments are converted
to dense tensors unless the op accepts them, and the dispatch function returns
tensors or AsyncValues of tensors.  The test ops TFRT's CPU tests dispatch
(``tfrt_test.create_dense_tensor``, ``add``, ``argmax``, ...) are registered
in :data:`CPU_OPS`.
"""

from __future__ import annotations

import enum
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from tfrt.async_value import CONCRETE, ERROR, AsyncValue
from tfrt.tensor.dtype import DType, as_dtype, format_double
from tfrt.tensor.host_tensor import (
    CooHostTensor,
    DenseHostTensor,
    HostTensor,
    ScalarHostTensor,
    StringHostTensor,
    TensorMetadata,
)
from tfrt.tensor.shape import TensorShape

HOST_DEVICE = "CPU:0"


class CoreRuntimeError(Exception):
    """An op could not be created or run; the message is TFRT's."""


# --------------------------------------------------------------------------
# OpAttrs


class OpAttrType(enum.Enum):
    """TFRT's OpAttrType (the name is what OpAttrs prints)."""

    DTYPE = "DTYPE"
    AGGREGATE = "AGGREGATE"
    DENSE = "DENSE"
    SHAPE = "SHAPE"
    FUNC = "FUNC"
    BF16 = "BF16"
    F16 = "F16"
    I1 = "I1"
    COMPLEX64 = "COMPLEX64"
    COMPLEX128 = "COMPLEX128"
    QUI8 = "QUI8"
    QUI16 = "QUI16"
    QI8 = "QI8"
    QI16 = "QI16"
    QI32 = "QI32"
    RESOURCE = "RESOURCE"
    VARIANT = "VARIANT"
    BOOL = "BOOL"
    CHAR = "CHAR"
    UI8 = "UI8"
    UI16 = "UI16"
    UI32 = "UI32"
    UI64 = "UI64"
    I8 = "I8"
    I16 = "I16"
    I32 = "I32"
    I64 = "I64"
    F32 = "F32"
    F64 = "F64"


_DTYPE_TO_ATTR = {
    DType.I1: OpAttrType.BOOL, DType.I8: OpAttrType.I8, DType.I16: OpAttrType.I16,
    DType.I32: OpAttrType.I32, DType.I64: OpAttrType.I64, DType.UI8: OpAttrType.UI8,
    DType.UI16: OpAttrType.UI16, DType.UI32: OpAttrType.UI32, DType.UI64: OpAttrType.UI64,
    DType.BF16: OpAttrType.BF16, DType.F16: OpAttrType.F16, DType.F32: OpAttrType.F32,
    DType.F64: OpAttrType.F64, DType.COMPLEX64: OpAttrType.COMPLEX64,
    DType.COMPLEX128: OpAttrType.COMPLEX128, DType.STRING: OpAttrType.CHAR,
    DType.RESOURCE: OpAttrType.RESOURCE, DType.VARIANT: OpAttrType.VARIANT,
    DType.QUI8: OpAttrType.QUI8, DType.QUI16: OpAttrType.QUI16, DType.QI8: OpAttrType.QI8,
    DType.QI16: OpAttrType.QI16, DType.QI32: OpAttrType.QI32,
}  # fmt: skip
_ATTR_TO_DTYPE = {v: k for k, v in _DTYPE_TO_ATTR.items()}
_ATTR_TO_DTYPE[OpAttrType.I1] = DType.I1


def attr_type_of_dtype(dtype) -> OpAttrType:
    """TFRT's GetOpAttrTypeFromDType."""
    return _DTYPE_TO_ATTR[as_dtype(int(dtype)) if not isinstance(dtype, DType) else dtype]


def dtype_of_attr_type(t: OpAttrType) -> DType:
    try:
        return _ATTR_TO_DTYPE[t]
    except KeyError:
        raise CoreRuntimeError(f"attribute type {t.value} has no dtype") from None


@dataclass(frozen=True)
class DenseAttrValue:
    """A dense attribute held by OpAttrs: the array (its dtype and shape are printed)."""

    array: np.ndarray


@dataclass(frozen=True)
class ShapeAttrValue:
    dims: tuple[int, ...] | None  # None: unranked


@dataclass(frozen=True)
class OpAttrEntry:
    type: OpAttrType
    value: Any  # scalar, tuple for arrays, DenseAttrValue, ShapeAttrValue, tuple (aggregate)
    is_array: bool = False


def _format_attr_scalar(t: OpAttrType, v) -> str:
    if t == OpAttrType.DTYPE:
        return v.value
    if t in (OpAttrType.F32, OpAttrType.F64):
        return format_double(v)
    if t in (OpAttrType.BOOL, OpAttrType.I1):
        return "1" if v else "0"
    if t == OpAttrType.CHAR:
        return str(v)
    if t == OpAttrType.DENSE:
        arr = v.array
        dt = attr_type_of_dtype(_np_to_dtype(arr.dtype))
        return f"dtype={dt.value}, rank={arr.ndim}, elt_count={arr.size}"
    if t == OpAttrType.SHAPE:
        return "<*>" if v.dims is None else "<" + "x".join(str(d) for d in v.dims) + ">"
    if t == OpAttrType.AGGREGATE:
        parts = []
        for elem in v:
            if isinstance(elem, DenseAttrValue):
                parts.append("{" + _format_attr_scalar(OpAttrType.DENSE, elem) + "}")
            elif isinstance(elem, tuple):
                parts.append("{" + _format_attr_scalar(OpAttrType.AGGREGATE, elem) + "}")
            else:
                parts.append("{unknown}")
        return f"elt_count={len(v)} [" + ", ".join(parts) + "]"
    if t == OpAttrType.FUNC:
        return f"FUNC function_name: {v}"
    if t in (OpAttrType.COMPLEX64, OpAttrType.COMPLEX128):
        c = complex(v)
        return f"({format_double(c.real)},{format_double(c.imag)})"
    return str(int(v)) if isinstance(v, (int, np.integer)) else str(v)


def _np_to_dtype(npdt) -> DType:
    from tfrt.tensor.dtype import dtype_from_numpy

    return dtype_from_numpy(npdt)


class OpAttrs:
    """A mutable name -> attribute map (TFRT's OpAttrs)."""

    def __init__(self, entries: dict[str, OpAttrEntry] | None = None):
        self._entries: dict[str, OpAttrEntry] = dict(entries or {})
        self._lock = threading.Lock()

    # -- setting -----------------------------------------------------------
    def set(self, key: str, value, type: OpAttrType) -> None:
        with self._lock:
            self._entries[key] = OpAttrEntry(type, value)

    def set_array(self, key: str, values: Sequence, type: OpAttrType) -> None:
        with self._lock:
            self._entries[key] = OpAttrEntry(type, tuple(values), True)

    def set_string(self, key: str, value: str) -> None:
        self.set_array(key, tuple(value), OpAttrType.CHAR)

    def set_dtype(self, key: str, dtype) -> None:
        self.set(key, attr_type_of_dtype(dtype), OpAttrType.DTYPE)

    # -- reading -----------------------------------------------------------
    def get_entry(self, key: str) -> OpAttrEntry | None:
        return self._entries.get(key)

    def get(self, key: str, default=None):
        e = self._entries.get(key)
        if e is None:
            return default
        if e.type == OpAttrType.CHAR and e.is_array:
            return "".join(e.value)
        return e.value

    def get_array(self, key: str) -> tuple | None:
        e = self._entries.get(key)
        return e.value if e is not None and e.is_array else None

    def __len__(self) -> int:
        return len(self._entries)

    def items(self):
        return sorted(self._entries.items())

    def freeze(self) -> "OpAttrsRef":
        with self._lock:
            return OpAttrsRef(dict(self._entries))

    def print_text(self) -> str:
        """TFRT's OpAttrsRef::Print (ends with an empty line)."""
        if not self._entries:
            return "OpAttrs is empty\n"
        lines = [f"OpAttrs contains {len(self._entries)} entries:"]
        for name, e in self.items():
            if e.is_array:
                shown = [_format_attr_scalar(e.type, v) for v in e.value[:5]]
                more = "..." if len(e.value) > 5 else ""
                text = "[" + ", ".join(shown) + more + "]"
            else:
                text = _format_attr_scalar(e.type, e.value)
            lines.append(f"  '{name}' type={e.type.value} value={text}")
        return "\n".join(lines) + "\n\n"


class OpAttrsRef(OpAttrs):
    """A frozen OpAttrs (TFRT's OpAttrsRef over ImmutableOpAttrs)."""

    def set(self, key, value, type):  # noqa: A002 - TFRT's name
        raise CoreRuntimeError("cannot modify frozen OpAttrs")

    def set_array(self, key, values, type):  # noqa: A002
        raise CoreRuntimeError("cannot modify frozen OpAttrs")


def attr_from_bef(value) -> OpAttrEntry:
    """An OpAttrs entry for a decoded BEF attribute (TFRT's SetUpOpAttrs).

    BEF's decoded scalars lose their width; integers become I32 when they fit
    (I64 otherwise) and floats F32, which is what TFRT programs write.
    """
    from tfrt.bef.program import ShapeValue

    if isinstance(value, (bool, np.bool_)):
        return OpAttrEntry(OpAttrType.BOOL, bool(value))
    if isinstance(value, (int, np.integer)):
        v = int(value)
        return OpAttrEntry(OpAttrType.I32 if -(2**31) <= v < 2**31 else OpAttrType.I64, v)
    if isinstance(value, (float, np.floating)):
        return OpAttrEntry(OpAttrType.F32, float(value))
    if isinstance(value, str):
        return OpAttrEntry(OpAttrType.CHAR, tuple(value), True)
    if isinstance(value, np.ndarray):
        arr = value.reshape(-1)
        t = attr_type_of_dtype(_np_to_dtype(arr.dtype))
        return OpAttrEntry(t, tuple(arr.tolist()), True)
    if isinstance(value, ShapeValue):
        return OpAttrEntry(OpAttrType.SHAPE, ShapeAttrValue(value.dims))
    if isinstance(value, tuple):
        if value and all(isinstance(v, enum.IntEnum) for v in value):
            return OpAttrEntry(OpAttrType.DTYPE, tuple(attr_type_of_dtype(v) for v in value), True)
        return OpAttrEntry(OpAttrType.AGGREGATE, tuple(_aggregate_elem(v) for v in value))
    if isinstance(value, enum.IntEnum):  # a type attribute (tfrt.bef.encoding.DType)
        return OpAttrEntry(OpAttrType.DTYPE, attr_type_of_dtype(value))
    raise CoreRuntimeError(f"unsupported op attribute value {value!r}")


def _aggregate_elem(v):
    if isinstance(v, np.ndarray):
        return DenseAttrValue(v)
    if isinstance(v, tuple):
        return tuple(_aggregate_elem(x) for x in v)
    return v


def op_attrs_from_bef(pairs) -> OpAttrs:
    """OpAttrs from ``corert.executeop``'s ``op_attrs`` aggregate of [key, value] pairs."""
    attrs = OpAttrs()
    for pair in pairs or ():
        if not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str):
            raise CoreRuntimeError("each op_attr should be a key-value pair, where the key is a string")
        attrs._entries[pair[0]] = attr_from_bef(pair[1])
    return attrs


# --------------------------------------------------------------------------
# TensorHandle


class TensorHandle:
    """A device, metadata (TensorMetadata or an AsyncValue of it) and an AsyncValue tensor."""

    __slots__ = ("device", "metadata", "tensor")

    def __init__(self, device: str, metadata, tensor: AsyncValue):
        self.device = device
        self.metadata = metadata
        self.tensor = tensor

    @classmethod
    def from_tensor(cls, tensor: HostTensor, device: str = HOST_DEVICE) -> "TensorHandle":
        return cls(device, tensor.metadata, AsyncValue.make_available(tensor))

    @property
    def is_metadata_available(self) -> bool:
        return isinstance(self.metadata, TensorMetadata) or self.metadata.state == CONCRETE

    @property
    def available_metadata(self) -> TensorMetadata:
        return self.metadata if isinstance(self.metadata, TensorMetadata) else self.metadata.value

    def print_text(self) -> str:
        """TFRT's ``operator<<(TensorHandle)``."""
        t = self.tensor
        if t.state == CONCRETE:
            return t.value.print_text()
        if t.state == ERROR:
            return f"Error TensorHandle: '{t.value.message}'"
        if self.is_metadata_available:
            return f"future TensorHandle with metadata {self.available_metadata}"
        return "future TensorHandle with unknown metadata"

    def __repr__(self) -> str:
        return f"<TensorHandle {self.print_text().rstrip()}>"


def predicate_value(tensor) -> bool:
    """Truthiness of a one-element tensor (TFRT's GetTensorPredicateValue)."""
    if isinstance(tensor, DenseHostTensor):
        if tensor.num_elements != 1:
            raise CoreRuntimeError(f"predicate tensor must have one element, got shape {tensor.shape}")
        if not (tensor.dtype.is_integer or tensor.dtype == DType.I1):
            raise CoreRuntimeError(f"dtype {tensor.dtype.short_name} is not supported as a predicate")
        return bool(tensor.array.reshape(-1)[0] != 0)
    if isinstance(tensor, ScalarHostTensor):
        return bool(tensor.value != 0)
    if isinstance(tensor, StringHostTensor):
        flat = tensor.strings.reshape(-1)
        return flat.size > 0 and flat[0] != ""
    raise CoreRuntimeError(f"tensor predicate does not support type {type(tensor).__name__}")


# --------------------------------------------------------------------------
# op handlers


@dataclass
class OpInvocation:
    """One op call: what an op handler's op receives."""

    exec_ctx: Any
    args: list[TensorHandle]
    attrs: OpAttrs
    num_results: int
    chain: AsyncValue | None  # the op chain (executeop.seq), else None
    report: Callable[[str], None]  # emit an error at the calling kernel's location


# An op returns (result handles, out chain or None).
CoreRuntimeOp = Callable[[OpInvocation], "tuple[list[TensorHandle], AsyncValue | None]"]


class OpHandler:
    """Makes ops by name; unknown names go to ``fallback``."""

    name = "op_handler"

    def __init__(self, fallback: "OpHandler | None" = None):
        self.fallback = fallback

    def make_op(self, op_name: str) -> CoreRuntimeOp:
        if self.fallback is None:
            raise CoreRuntimeError(f"{op_name} was not supported by {type(self).__name__}.")
        return self.fallback.make_op(op_name)


class NullOpHandler(OpHandler):
    """The end of every fallback chain: supports nothing."""

    name = "null"

    def make_op(self, op_name: str) -> CoreRuntimeOp:
        raise CoreRuntimeError(f"{op_name} was not supported by NullOpHandler.")


class CoreRuntime:
    """Named op handlers of one HostContext (``host.shared_context(CoreRuntime)``)."""

    def __init__(self, host=None):
        self.host = host
        self._handlers: dict[str, OpHandler] = {}
        self._lock = threading.Lock()

    def register_op_handler(self, name: str, handler: OpHandler) -> None:
        with self._lock:
            self._handlers[name] = handler

    def get_op_handler(self, name: str) -> OpHandler | None:
        with self._lock:
            return self._handlers.get(name)


# --------------------------------------------------------------------------
# the CPU op handler and its ops

NO_SIDE_EFFECTS = 1
ALLOWS_SCALAR = 2
ALLOWS_STRING = 4
ALLOWS_COO = 8

MetadataFn = Callable[[list[TensorMetadata], OpAttrs], list[TensorMetadata]]
DispatchFn = Callable[..., Any]


@dataclass(frozen=True)
class CpuOp:
    """A CPU op: ``dispatch(exec_ctx, args, attrs, result_metadata) -> list`` of
    tensors or AsyncValues (one per result); ``metadata`` is optional."""

    name: str
    dispatch: DispatchFn
    flags: int = 0
    metadata: MetadataFn | None = None


CPU_OPS: dict[str, CpuOp] = {}


def cpu_op(name: str, flags: int = 0, metadata: MetadataFn | None = None):
    def register(fn: DispatchFn) -> DispatchFn:
        CPU_OPS[name] = CpuOp(name, fn, flags, metadata)
        return fn

    return register


class CpuOpHandler(OpHandler):
    """Runs the ops of :data:`CPU_OPS` on host tensors; falls back for the rest."""

    name = "cpu"

    def __init__(self, fallback: OpHandler | None = None, ops: dict[str, CpuOp] | None = None):
        super().__init__(fallback)
        self.ops = CPU_OPS if ops is None else ops

    def make_op(self, op_name: str) -> CoreRuntimeOp:
        op = self.ops.get(op_name)
        if op is None and self.ops is CPU_OPS and _import_op_modules(op_name):
            op = self.ops.get(op_name)
        if op is None:
            return super().make_op(op_name)
        return lambda inv: _execute_cpu_op(op, inv)


def _import_op_modules(op_name: str) -> bool:
    """Import the kernel modules of ``op_name``'s dialect (``tfrt_tensor.matmul``:
    tfrt.kernels.tfrt_tensor), which register their CPU ops when imported: a
    program may reach an op only through ``corert.executeop``, never looking
    up one of its kernels.  True when a module was imported."""
    import importlib

    from tfrt.kernels.registry import KERNEL_MODULES_BY_DIALECT

    modules = KERNEL_MODULES_BY_DIALECT.get(op_name.split(".", 1)[0], ())
    for module in modules:
        importlib.import_module(module)
    return bool(modules)


def _convert_arg(op: CpuOp, tensor: HostTensor) -> HostTensor:
    if isinstance(tensor, ScalarHostTensor) and not op.flags & ALLOWS_SCALAR:
        return tensor.to_dense()
    if isinstance(tensor, CooHostTensor) and not op.flags & ALLOWS_COO:
        return tensor.to_dense()
    if isinstance(tensor, StringHostTensor) and not op.flags & ALLOWS_STRING:
        raise CoreRuntimeError(f"{op.name} does not accept string tensors")
    return tensor


def _execute_cpu_op(op: CpuOp, inv: OpInvocation):
    """TFRT's ExecuteOnOpHandler for the CPU handler; inputs are available."""
    metas = None
    if op.metadata is not None:
        try:
            metas = op.metadata([h.available_metadata for h in inv.args], inv.attrs)
        except CoreRuntimeError as exc:
            inv.report(str(exc))
            err = AsyncValue.make_error(str(exc))
            return [TensorHandle(HOST_DEVICE, err, err) for _ in range(inv.num_results)], err
    try:
        tensors = [_convert_arg(op, h.tensor.value) for h in inv.args]
        outs = op.dispatch(inv.exec_ctx, tensors, inv.attrs, metas)
    except CoreRuntimeError as exc:
        inv.report(str(exc))
        err = AsyncValue.make_error(str(exc))
        return [TensorHandle(HOST_DEVICE, err, err) for _ in range(inv.num_results)], err
    results = []
    reported = []

    def report_once(av: AsyncValue) -> None:
        # An error the op itself produced is reported at the calling kernel, once.
        if av.state == ERROR and not reported:
            reported.append(True)
            inv.report(av.value.message)

    for i in range(inv.num_results):
        out = outs[i]
        av = out if isinstance(out, AsyncValue) else AsyncValue.make_available(out)
        av.and_then(lambda av=av: report_once(av))
        md = metas[i] if metas is not None else _metadata_future(av)
        results.append(TensorHandle(HOST_DEVICE, md, av))
    chain = None
    if not op.flags & NO_SIDE_EFFECTS:
        chain = outs[-1] if len(outs) > inv.num_results else inv.chain
    return results, chain


def _metadata_future(tensor: AsyncValue):
    if tensor.state == CONCRETE:
        return tensor.value.metadata
    md = AsyncValue()

    def done():
        if tensor.state == ERROR:
            md.set_error(tensor.value)
        else:
            md.set_value(tensor.value.metadata)

    tensor.and_then(done)
    return md


class LoggingOpHandler(OpHandler):
    """Prints every dispatch (and its inputs, and with ``sync_log_results`` its
    outputs) to stderr, then runs the op on the fallback."""

    name = "logging"

    def __init__(self, fallback: OpHandler, sync_log_results: bool = False, stream=None):
        super().__init__(fallback)
        self.sync_log_results = sync_log_results
        self._stream = stream
        self._counter = 0
        self._lock = threading.Lock()

    def _write(self, text: str) -> None:
        out = self._stream or sys.stderr
        with self._lock:
            out.write(text)
            out.flush()

    def make_op(self, op_name: str) -> CoreRuntimeOp:
        inner = self.fallback.make_op(op_name)

        def run(inv: OpInvocation):
            with self._lock:
                n = self._counter
                self._counter += 1
            na, nr = len(inv.args), inv.num_results
            head = (
                f"[{n}] dispatch '{op_name}' {na} argument{'' if na == 1 else 's'}, "
                f"{nr} result{'' if nr == 1 else 's'}"
            )
            if len(inv.attrs) == 0:
                self._write(head + ", no attributes\n")
            else:
                self._write(head + ", " + inv.attrs.print_text())
            self._write(self._tensors_text("Inputs", "Input", n, op_name, inv.args))
            results, chain = inner(inv)
            if self.sync_log_results and results:
                inv.exec_ctx.host.await_values([h.tensor for h in results])
                self._write(self._tensors_text("Outputs", "Output", n, op_name, results))
            return results, chain

        return run

    @staticmethod
    def _tensors_text(title, each, n, op_name, handles) -> str:
        lines = [f"{title} for [{n}]: '{op_name}':"]
        for i, h in enumerate(handles):
            lines.append(f"  {each} for [{n}] tensor {i}: {h.print_text().rstrip()}")
        return "\n".join(lines) + "\n\n"


# --------------------------------------------------------------------------
# TFRT's CPU test ops (backends/cpu/lib/ops/test, backends/common/.../test_ops.cc)


def _md_shape(attrs: OpAttrs, op: str) -> TensorShape:
    shape = attrs.get_array("shape")
    if shape is None:
        raise CoreRuntimeError(f"{op} must have 'shape' attribute" if op else "missing 'shape' attribute")
    return TensorShape(shape)


def _create_dense_md(metas, attrs):
    shape = _md_shape(attrs, "")
    e = attrs.get_entry("values")
    if e is None:
        raise CoreRuntimeError("missing 'values' attribute")
    if not e.is_array:
        raise CoreRuntimeError("'values' attribute should be an array of values")
    if len(e.value) not in (1, shape.num_elements()):
        raise CoreRuntimeError("size of 'values' must either be 1 or match num of elements.")
    try:
        dt = dtype_of_attr_type(e.type)
    except CoreRuntimeError:
        raise CoreRuntimeError("tfrt_test.create_dense_tensor unsupported dtype") from None
    return [TensorMetadata(dt, shape)]


@cpu_op("tfrt_test.create_dense_tensor", NO_SIDE_EFFECTS, _create_dense_md)
def _create_dense_tensor(exec_ctx, args, attrs, metas):
    values = attrs.get_entry("values").value
    return [DenseHostTensor.from_values(metas[0].dtype, metas[0].shape, values)]


def _create_from_scalar_md(metas, attrs):
    shape = _md_shape(attrs, "tfrt_test.create_from_scalar")
    e = attrs.get_entry("value")
    if e is None or e.is_array:
        raise CoreRuntimeError("tfrt_test.create_from_scalar must have 'value' attribute")
    try:
        return [TensorMetadata(dtype_of_attr_type(e.type), shape)]
    except CoreRuntimeError:
        raise CoreRuntimeError("tfrt_test.create_from_scalar unsupported dtype") from None


@cpu_op("tfrt_test.create_from_scalar", NO_SIDE_EFFECTS, _create_from_scalar_md)
def _create_from_scalar(exec_ctx, args, attrs, metas):
    return [ScalarHostTensor(metas[0], attrs.get("value"))]


def _same_md(op_message_dtype, op_message_shape):
    def md(metas, attrs):
        a, b = metas
        if a.dtype != b.dtype:
            raise CoreRuntimeError(op_message_dtype)
        if a.shape != b.shape:
            raise CoreRuntimeError(op_message_shape)
        return [a]

    return md


@cpu_op(
    "tfrt_test.add",
    NO_SIDE_EFFECTS | ALLOWS_SCALAR,
    _same_md("incompatible dtypes for test.add", "arguments of test.add must have same shape"),
)
def _add(exec_ctx, args, attrs, metas):
    a, b = args
    if isinstance(a, ScalarHostTensor) and isinstance(b, ScalarHostTensor):
        return [ScalarHostTensor(a.metadata, a.value + b.value)]
    av = a.value if isinstance(a, ScalarHostTensor) else a.array
    bv = b.value if isinstance(b, ScalarHostTensor) else b.array
    out = DenseHostTensor.from_metadata(metas[0])
    np.add(av, bv, out=out.array, casting="unsafe")
    return [out]


@cpu_op(
    "tfrt_test.equal",
    NO_SIDE_EFFECTS,
    _same_md("incompatible dtypes for element-wise op", "arguments to element-wise op must have identical shapes"),
)
def _equal(exec_ctx, args, attrs, metas):
    out = DenseHostTensor.from_metadata(metas[0])
    out.array[...] = args[0].array == args[1].array
    return [out]


@cpu_op("tfrt_test.relu", NO_SIDE_EFFECTS, lambda metas, attrs: [metas[0]])
def _relu(exec_ctx, args, attrs, metas):
    out = DenseHostTensor.from_metadata(metas[0])
    np.maximum(args[0].array, np.zeros((), args[0].array.dtype), out=out.array)
    return [out]


def _cast_md(metas, attrs):
    target = attrs.get("type")
    if target is None:
        raise CoreRuntimeError("missing 'type' attribute")
    if target not in ("f32", "f16"):
        raise CoreRuntimeError("only casting to f32/f16 is supported")
    return [TensorMetadata(DType.F32 if target == "f32" else DType.F16, metas[0].shape)]


@cpu_op("tfrt_test.cast", NO_SIDE_EFFECTS, _cast_md)
def _cast(exec_ctx, args, attrs, metas):
    out = DenseHostTensor.from_metadata(metas[0])
    np.copyto(out.array, args[0].array, casting="unsafe")
    return [out]


def _reduce_md(result_dtype):
    def md(metas, attrs):
        axis = attrs.get("axis")
        if axis is None:
            raise CoreRuntimeError("missing 'axis' attribute")
        (m,) = metas
        if axis >= m.shape.rank:
            raise CoreRuntimeError("axis must less than input rank")
        dims = [d for i, d in enumerate(m.shape.dims) if i != axis]
        return [TensorMetadata(result_dtype or m.dtype, TensorShape(dims))]

    return md


@cpu_op("tfrt_test.argmax", NO_SIDE_EFFECTS, _reduce_md(DType.I32))
def _argmax(exec_ctx, args, attrs, metas):
    if attrs.get("axis") != 1:
        raise CoreRuntimeError("unsupported axis for argmax")
    out = DenseHostTensor.from_metadata(metas[0])
    out.array[...] = np.argmax(args[0].array, axis=1)
    return [out]


@cpu_op("tfrt_test.reduce_mean", NO_SIDE_EFFECTS, _reduce_md(None))
def _reduce_mean(exec_ctx, args, attrs, metas):
    if attrs.get("axis") != 0:
        raise CoreRuntimeError("unsupported axis for reduce_mean")
    src = args[0].array
    out = DenseHostTensor.from_metadata(metas[0])
    if src.dtype.kind in "iu":
        out.array[...] = np.trunc(src.sum(axis=0, dtype=np.int64) / max(src.shape[0], 1))
    else:
        out.array[...] = src.mean(axis=0)
    return [out]


@cpu_op("tfrt_test.odd_collector", NO_SIDE_EFFECTS)
def _odd_collector(exec_ctx, args, attrs, metas):
    (x,) = args
    if x.shape.rank != 1:
        raise CoreRuntimeError("expected a 1D tensor input")
    if x.dtype != DType.I32:
        raise CoreRuntimeError("expected a i32 element type")
    odd = x.array[(x.array & 1) != 0]
    return [DenseHostTensor.from_array(odd, copy=True)]


def _copy_tensor(t: HostTensor) -> HostTensor:
    if isinstance(t, DenseHostTensor):
        return t.copy()
    if isinstance(t, ScalarHostTensor):
        return ScalarHostTensor(t.metadata, t.value)
    if isinstance(t, StringHostTensor):
        return StringHostTensor(t.shape, t.strings.reshape(-1).tolist())
    return t


def _async_noop(exec_ctx, args, attrs, metas):
    # Copy the input and force the copy to arrive from the work queue.
    src = args[0]
    return [exec_ctx.host.enqueue_work(lambda: _copy_tensor(src))]


cpu_op("tfrt_test.async.noop", NO_SIDE_EFFECTS | ALLOWS_SCALAR, lambda metas, attrs: [metas[0]])(
    _async_noop
)
cpu_op("tfrt_test.async.noop_no_md", NO_SIDE_EFFECTS | ALLOWS_SCALAR)(_async_noop)


@cpu_op("tfrt_test.error.tensor", NO_SIDE_EFFECTS | ALLOWS_SCALAR, lambda metas, attrs: [metas[0]])
def _error_tensor(exec_ctx, args, attrs, metas):
    return [AsyncValue.make_error("error from test.error.tensor implementation")]


@cpu_op("tfrt_test.identity", NO_SIDE_EFFECTS)
def _identity(exec_ctx, args, attrs, metas):
    return [args[0]]


@cpu_op("tfrt_test.print", ALLOWS_SCALAR | ALLOWS_STRING | ALLOWS_COO)
def _print(exec_ctx, args, attrs, metas):
    from tfrt.kernels.registry import CHAIN, print_line

    print_line(args[0].print_text())
    return [AsyncValue.make_available(CHAIN)]
