"""Kernels of the ``corert`` dialect (TFRT's ``lib/core_runtime/kernels.cc``)::

    %null = "corert.create_null_op_handler"() : () -> !corert.ophandler
    %cpu = "corert.create_cpu_op_handler"(%null) : (!corert.ophandler) -> !corert.ophandler
    %ch1 = corert.register_op_handler %cpu "cpu"
    %h = corert.get_op_handler %ch1 "cpu"
    %t = corert.executeop(%h) "tfrt_test.create_dense_tensor"() {shape = [1, 3], values = [1 : i32]} : 1
    %ch2 = "corert.print_tensorhandle"(%t, %ch1) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain
    // DenseHostTensor dtype = i32, shape = [1, 3], values = [1, 1, 1]

``corert.executeop`` reads its attributes as BEF stores them, sorted by name:
``op_attrs`` (an aggregate of [key, value] pairs), ``op_func_attrs`` and
``op_name``.  Its result handles become available when their tensors do; a
tensor that fails makes the handle an error (the error is reported once, at
the executeop, by the op handler).  Also here: the op-attribute kernels and
TFRT's core-runtime test kernels (``tfrt_test.corert.op_attrs_print`` ...,
``tfrt_test.error_tensorhandle``).
"""

from __future__ import annotations

import sys

import numpy as np

from tfrt.async_value import CONCRETE, ERROR, AsyncValue, run_when_ready
from tfrt.kernels.registry import CHAIN, KernelError, kernel, print_line
from tfrt.tensor.corert import (
    HOST_DEVICE,
    CoreRuntime,
    CoreRuntimeError,
    CpuOpHandler,
    DenseAttrValue,
    LoggingOpHandler,
    NullOpHandler,
    OpAttrEntry,
    OpAttrs,
    OpAttrType,
    OpHandler,
    OpInvocation,
    ShapeAttrValue,
    TensorHandle,
    attr_type_of_dtype,
    op_attrs_from_bef,
    predicate_value,
)
from tfrt.tensor.dtype import DType
from tfrt.tensor.host_tensor import DenseHostTensor, HostTensor, StringHostTensor, to_dense
from tfrt.tensor.shape import TensorShape


def _runtime(host) -> CoreRuntime:
    return host.shared_context(CoreRuntime)


def _handle(value, what: str = "argument") -> TensorHandle:
    if not isinstance(value, TensorHandle):
        raise KernelError(f"expected a !corert.tensorhandle {what}, got {type(value).__name__}")
    return value


def _handle_result(th: TensorHandle) -> AsyncValue:
    """The AsyncValue of a result handle: available when its tensor is (TFRT's
    AsyncWaitForResultsFromTensorHandles)."""
    t = th.tensor
    if t.state == CONCRETE:
        return AsyncValue.make_available(th)
    if t.state == ERROR:
        return AsyncValue(ERROR, t.value)
    out = AsyncValue()

    def done() -> None:
        if t.state == ERROR:
            out.set_error(t.value)
        else:
            out.set_value(th)

    t.and_then(done)
    return out


# --------------------------------------------------------------------------
# op handlers


@kernel("corert.create_null_op_handler")
def create_null_op_handler():
    return NullOpHandler()


@kernel("corert.create_cpu_op_handler")
def create_cpu_op_handler(fallback):
    if not isinstance(fallback, OpHandler):
        raise KernelError("corert.create_cpu_op_handler: the fallback must be an op handler")
    return CpuOpHandler(fallback)


@kernel("corert.create_logging_op_handler", attrs=("i1",))
def create_logging_op_handler(sync_log_results, fallback):
    if not isinstance(fallback, OpHandler):
        raise KernelError("corert.create_logging_op_handler: the fallback must be an op handler")
    return LoggingOpHandler(fallback, bool(sync_log_results))


@kernel("corert.register_op_handler", attrs=("str",), context=True)
def register_op_handler(ctx, name, handler):
    if not isinstance(handler, OpHandler):
        raise KernelError("corert.register_op_handler: expected an op handler")
    _runtime(ctx.host).register_op_handler(name, handler)
    return CHAIN


@kernel("corert.get_op_handler", attrs=("str",), context=True)
def get_op_handler(ctx, name, chain):
    handler = _runtime(ctx.host).get_op_handler(name)
    if handler is None:
        raise KernelError(f"op_handler not found: {name}")
    return handler


# --------------------------------------------------------------------------
# executing ops


def _invoke(frame, handler, op_name: str, op_attrs, op_func_attrs, args, chain, first: int) -> None:
    if not isinstance(handler, OpHandler):
        frame.report_error(f"{op_name}: expected an op handler, got {type(handler).__name__}")
        return
    try:
        attrs = op_attrs_from_bef(op_attrs)
        for pair in op_func_attrs or ():
            attrs._entries[pair[0]] = OpAttrEntry(OpAttrType.FUNC, pair[1])
        op = handler.make_op(op_name)
    except CoreRuntimeError as exc:
        frame.report_error(str(exc))
        return
    handles = [frame.arg(i) for i in args]
    for h in handles:
        if not isinstance(h, TensorHandle):
            frame.report_error(f"{op_name}: operands must be tensor handles, got {type(h).__name__}")
            return
    num_results = frame.num_results - first
    inv = OpInvocation(frame.exec_ctx, handles, attrs, num_results, chain, frame.emit_error)
    results, out_chain = op(inv)
    if first:
        frame.set_result(0, out_chain if out_chain is not None else AsyncValue.make_available(CHAIN))
    for i, th in enumerate(results):
        frame.set_result(first + i, _handle_result(th))


@kernel("corert.executeop", attrs=("aggregate", "aggregate", "str"), kind="async")
def executeop(frame):
    """Run ``op_name`` on the op handler (operand 0) with the remaining operands."""
    op_attrs, op_func_attrs, op_name = frame.attrs[:3]
    _invoke(frame, frame.arg(0), op_name, op_attrs, op_func_attrs, range(1, len(frame.args)), None, 0)


@kernel("corert.executeop.seq", attrs=("aggregate", "aggregate", "str"), kind="async")
def executeop_seq(frame):
    """executeop threaded by a chain (operand 1); result 0 is the out chain."""
    op_attrs, op_func_attrs, op_name = frame.attrs[:3]
    chain = frame.args[1]
    _invoke(frame, frame.arg(0), op_name, op_attrs, op_func_attrs, range(2, len(frame.args)), chain, 1)


class CompositeOp:
    """An op implemented by a BEF function ``(chain, handles...) -> (chain, handles...)``."""

    def __init__(self, fn):
        self.fn = fn

    def __repr__(self) -> str:
        return f"<CompositeOp @{self.fn.name}>"


@kernel("corert.make_composite_op", kind="async")
def make_composite_op(frame):
    if not frame.funcs:
        frame.report_error("corert.make_composite_op needs a function attribute")
        return
    frame.set_value(0, CompositeOp(frame.funcs[0]))


@kernel("corert.execute_crt_op", attrs=("aggregate", "aggregate"), kind="async")
def execute_crt_op(frame):
    """Run a composite op: call its function with a fresh chain and the handles."""
    op = frame.arg(0)
    if not isinstance(op, CompositeOp):
        frame.report_error(f"corert.execute_crt_op: expected a !corert.op, got {type(op).__name__}")
        return
    args = [AsyncValue.make_available(CHAIN)] + list(frame.args[1:])
    outs = op.fn.execute(frame.exec_ctx, args)
    for i in range(frame.num_results):
        frame.set_result(i, outs[i + 1])


# --------------------------------------------------------------------------
# tensor handles


@kernel("corert.print_tensorhandle")
def print_tensorhandle(th, chain):
    print_line(_handle(th).print_text())
    return CHAIN


@kernel("corert.tensorhandle_to_shape", kind="async")
def tensorhandle_to_shape(frame):
    th = frame.arg(0)
    if not isinstance(th, TensorHandle):
        frame.report_error("corert.tensorhandle_to_shape: expected a tensor handle")
        return
    if th.is_metadata_available:
        frame.set_value(0, th.available_metadata.shape)
        return
    md = th.metadata
    out = frame.allocate_result(0)

    def done() -> None:
        if md.state == ERROR:
            out.set_error(md.value)
        else:
            out.set_value(md.value.shape)

    md.and_then(done)


@kernel("corert.tensorhandle_to_ht", kind="async")
def tensorhandle_to_ht(frame):
    th = frame.arg(0)
    if not isinstance(th, TensorHandle):
        frame.report_error("corert.tensorhandle_to_ht: expected a tensor handle")
        return
    frame.set_result(0, th.tensor)


@kernel("corert.ht_to_tensorhandle")
def ht_to_tensorhandle(tensor, *chain):
    if not isinstance(tensor, HostTensor):
        raise KernelError("corert.ht_to_tensorhandle: expected a host tensor")
    return TensorHandle.from_tensor(tensor)


@kernel("corert.tensorhandle_to_int32")
def tensorhandle_to_int32(th):
    t = _handle(th).tensor.value
    if not isinstance(t, DenseHostTensor) or t.dtype != DType.I32 or t.num_elements != 1:
        raise KernelError("corert.tensorhandle_to_int32 expects a one-element i32 dense tensor")
    return int(t.array.reshape(-1)[0])


@kernel("corert.const_dense_tensor", attrs=("dense",))
def const_dense_tensor(value):
    return TensorHandle.from_tensor(DenseHostTensor.from_array(np.asarray(value), copy=True))


@kernel("corert.const_string_tensor", attrs=("i64[]", "aggregate"))
def const_string_tensor(shape, value):
    dims = TensorShape([int(d) for d in np.asarray(shape).reshape(-1)])
    items = [v.decode() if isinstance(v, (bytes, bytearray)) else v for v in value]
    n = dims.num_elements()
    if len(items) == 1:
        items = items * n  # one stored string is splatted, as TFRT does
    if len(items) != n:
        raise KernelError(f"{len(items)} strings for a string tensor of shape {dims}")
    return TensorHandle.from_tensor(StringHostTensor(dims, items))


CREATE_DENSE_TYPES = {
    "ui8": (DType.UI8, "ui8"), "ui16": (DType.UI16, "ui16"), "ui32": (DType.UI32, "ui32"),
    "ui64": (DType.UI64, "ui64"), "i1": (DType.I1, "i1"), "i8": (DType.I8, "i8"),
    "i16": (DType.I16, "i16"), "i32": (DType.I32, "i32"), "i64": (DType.I64, "i64"),
    "f16": (DType.F16, "f16"), "bf16": (DType.BF16, "bf16"), "f32": (DType.F32, "f32"),
    "f64": (DType.F64, "f64"),
}  # fmt: skip


def _make_create_dense(dtype: DType):
    def create(shape, value):
        dims = [int(d) for d in np.asarray(shape).reshape(-1)]
        try:
            return TensorHandle.from_tensor(
                DenseHostTensor.from_values(dtype, dims, list(np.asarray(value).reshape(-1)))
            )
        except ValueError as exc:
            raise KernelError(str(exc)) from None

    return create


for _suffix, (_dt, _kind) in CREATE_DENSE_TYPES.items():
    kernel(f"corert.create_dense_tensor.{_suffix}", attrs=("i64[]", f"{_kind}[]"))(_make_create_dense(_dt))


def _make_create_dense_complex(dtype: DType):
    # Complex values are written as interleaved (real, imaginary) floats, as
    # `tfrt_dht.set_tensor_with_constant_values.complex64` takes them.
    def create(shape, value):
        parts = np.asarray(value).reshape(-1)
        if parts.size % 2:
            raise KernelError(
                f"{parts.size} floats for a complex tensor: expected (real, imaginary) pairs"
            )
        values = list(parts[0::2] + 1j * parts[1::2])
        return _make_create_dense(dtype)(shape, values)

    return create


kernel("corert.create_dense_tensor.complex64", attrs=("i64[]", "f32[]"))(
    _make_create_dense_complex(DType.COMPLEX64)
)
kernel("corert.create_dense_tensor.complex128", attrs=("i64[]", "f64[]"))(
    _make_create_dense_complex(DType.COMPLEX128)
)


# --------------------------------------------------------------------------
# transfers between devices


class TensorTypeName:
    """A ``!tfrt.tensor_type`` value: the kind of tensor a device holds."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorTypeName) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"TensorTypeName({self.name!r})"


DENSE_HOST = TensorTypeName("DenseHost")
# TFRT's names for the dense tensor type of a device kind; other kinds'
# tensors are this runtime's DeviceTensor.
_DENSE_TYPE_OF_KIND = {"cpu": DENSE_HOST, "gpu": TensorTypeName("DenseGpu")}
_DENSE_DEVICE = TensorTypeName("DenseDevice")


def _device(value):
    from tfrt.devices.base import Device

    if not isinstance(value, Device):
        raise KernelError(f"expected a !tfrt.device, got {type(value).__name__}")
    return value


def dense_tensor_type(device) -> TensorTypeName:
    """The tensor type a dense tensor has on ``device``."""
    if "compute" not in device.capabilities:
        raise KernelError(f"device {device.name} holds no tensor values")
    return _DENSE_TYPE_OF_KIND.get(device.kind, _DENSE_DEVICE)


def _when_available(th: TensorHandle, frame, on_tensor) -> None:
    """Resolve result 0 with ``on_tensor(tensor)`` once the handle's tensor is available."""
    t = th.tensor
    out = frame.allocate_result(0)

    def done() -> None:
        if t.state == ERROR:
            out.set_error(t.value)
            return
        try:
            out.set_value(on_tensor(t.value))
        except KernelError as exc:
            out.set_error(frame.emit_error(exc.message).value)

    t.and_then(done)


@kernel("corert.get_dst_tensor_type", kind="async")
def get_dst_tensor_type(frame):
    """The tensor type the handle's tensor would have on the device (once it is computed)."""
    th, device = frame.arg(0), frame.arg(1)
    if not isinstance(th, TensorHandle):
        frame.report_error("corert.get_dst_tensor_type: expected a tensor handle")
        return
    try:
        device = _device(device)
    except KernelError as exc:
        frame.report_error(exc.message)
        return

    def pick(tensor) -> TensorTypeName:
        if isinstance(tensor, StringHostTensor):
            return TensorTypeName("StringHost")  # unsupported dtypes keep their type
        try:
            return dense_tensor_type(device)
        except KernelError:
            raise KernelError(
                f"failed to find dst device type for src_tensor_type={type(tensor).__name__} "
                f"and dst_device_type={device.kind}"
            ) from None

    _when_available(th, frame, pick)


def _transfer(th: TensorHandle, device, dst_type: TensorTypeName | None, frame) -> None:
    from tfrt.devices.base import DeviceError, DeviceTensor

    expected = dense_tensor_type(device)
    if dst_type is not None and dst_type != expected:
        raise KernelError(f"cannot transfer to {device.name} as a {dst_type} tensor")
    handle_device = HOST_DEVICE if expected is DENSE_HOST else device.name
    out = frame.allocate_result(0)
    src = th.tensor

    def resolve(value: AsyncValue) -> None:
        def done() -> None:
            if value.state == ERROR:
                out.set_error(value.value)
                return
            tensor = value.value
            out.set_value(TensorHandle(handle_device, tensor.metadata, AsyncValue.make_available(tensor)))

        value.and_then(done)

    def start() -> None:
        if src.state == ERROR:
            out.set_error(src.value)
            return
        tensor = src.value
        try:
            if isinstance(tensor, DeviceTensor):
                if tensor.device is device:
                    resolve(AsyncValue.make_available(tensor))
                    return
                # Between devices through the host, as TFRT's transfer does.
                host_av = tensor.device.copy_to_host(tensor)
                if expected is DENSE_HOST:
                    resolve(host_av)
                    return
                staged = AsyncValue()

                def copy_on() -> None:
                    if host_av.state == ERROR:
                        staged.set_error(host_av.value)
                        return
                    try:
                        staged.set_value(device.copy_to_device(host_av.value))
                    except DeviceError as exc:
                        staged.set_error(frame.emit_error(str(exc)).value)

                host_av.and_then(copy_on)
                resolve(staged)
                return
            dense = to_dense(tensor)
            if expected is DENSE_HOST:
                resolve(AsyncValue.make_available(dense))
            else:
                resolve(AsyncValue.make_available(device.copy_to_device(dense)))
        except (TypeError, DeviceError) as exc:
            out.set_error(frame.emit_error(f"cannot transfer to {device.name}: {exc}").value)

    src.and_then(start)


@kernel("corert.transfer", kind="async")
def transfer(frame):
    """The handle's tensor on ``device`` as the tensor type ``dst_tensor_type``.

    Host tensors are converted to dense ones on the host (``DenseHost``) or
    copied to a device; device tensors go through the host.
    """
    th, device, dst_type = frame.arg(0), frame.arg(1), frame.arg(2)
    try:
        if not isinstance(th, TensorHandle):
            raise KernelError("corert.transfer: expected a tensor handle")
        if not isinstance(dst_type, TensorTypeName):
            raise KernelError("corert.transfer: expected a !tfrt.tensor_type")
        _transfer(th, _device(device), dst_type, frame)
    except KernelError as exc:
        frame.report_error(exc.message)


@kernel("corert.transfer_inferred_tensortype", kind="async")
def transfer_inferred_tensortype(frame):
    """``corert.transfer`` to the dense tensor type of ``device``."""
    th, device = frame.arg(0), frame.arg(1)
    try:
        if not isinstance(th, TensorHandle):
            raise KernelError("corert.transfer_inferred_tensortype: expected a tensor handle")
        _transfer(th, _device(device), None, frame)
    except KernelError as exc:
        frame.report_error(exc.message)


# --------------------------------------------------------------------------
# control flow on tensor handles


def _forward(results: list[AsyncValue], values: list[AsyncValue]) -> None:
    for r, v in zip(results, values):
        if v.state:
            r._resolve(v.state, v.value)
        else:
            v.and_then(lambda r=r, v=v: r._resolve(v.state, v.value))


@kernel("corert.cond", kind="async")
def corert_cond(frame):
    """Call ``a_true_fn`` or ``b_false_fn`` with (chain, args...) by the handle's truth."""
    th = frame.arg(0)
    if len(frame.funcs) != 2 or not isinstance(th, TensorHandle):
        frame.report_error("corert.cond takes a tensor handle and two functions")
        return
    try:
        taken = predicate_value(th.tensor.value)
    except CoreRuntimeError as exc:
        frame.report_error(str(exc))
        return
    fn = frame.funcs[0] if taken else frame.funcs[1]
    outs = fn.execute(frame.exec_ctx, list(frame.args[1:]))
    results = [frame.allocate_result(i) for i in range(frame.num_results)]
    _forward(results, outs)


@kernel("corert.while", kind="async")
def corert_while(frame):
    """While ``a_cond_fn(chain, args)`` returns a truthy handle, ``args = b_body_fn(chain, args)``."""
    if len(frame.funcs) != 2:
        frame.report_error("corert.while takes two functions")
        return
    cond_fn, body_fn = frame.funcs
    exec_ctx = frame.exec_ctx
    results = [frame.allocate_result(i) for i in range(frame.num_results)]

    def fail(error) -> None:
        for r in results:
            if not r.available:
                r.set_error(error)

    def first_error(values):
        for v in values:
            if v.state == ERROR:
                return v.value
        return None

    def loop(args: list[AsyncValue]) -> None:
        # Iterate while every value is already available; continue from a
        # callback (without growing the stack per iteration) otherwise.
        while True:
            outs = cond_fn.execute(exec_ctx, args)
            if any(not o.available for o in outs):
                run_when_ready(outs, lambda: after_cond(args, outs))
                return
            nxt = step(args, outs)
            if nxt is None:
                return
            if any(not v.available for v in nxt):
                run_when_ready(nxt, lambda: after_body(nxt))
                return
            err = first_error(nxt)
            if err is not None:
                fail(err)
                return
            args = nxt

    def step(args, outs):
        err = first_error(outs)
        if err is not None:
            fail(err)
            return None
        handle = outs[-1].value
        try:
            go = predicate_value(_handle(handle, "condition").tensor.value)
        except (CoreRuntimeError, KernelError) as exc:
            fail(frame.emit_error(str(exc)).value)
            return None
        if not go:
            _forward(results, args)
            return None
        return body_fn.execute(exec_ctx, [outs[0]] + list(args[1:]))

    def after_cond(args, outs):
        nxt = step(args, outs)
        if nxt is None:
            return
        if any(not v.available for v in nxt):
            run_when_ready(nxt, lambda: after_body(nxt))
            return
        after_body(nxt)

    def after_body(nxt):
        err = first_error(nxt)
        if err is not None:
            fail(err)
            return
        exec_ctx.host.enqueue_task(lambda: loop(nxt))

    loop(list(frame.args))


# --------------------------------------------------------------------------
# op attributes


@kernel("corert.create_op_attrs")
def create_op_attrs():
    return OpAttrs()


def _attrs(value) -> OpAttrs:
    if not isinstance(value, OpAttrs):
        raise KernelError(f"expected !corert.opattrs, got {type(value).__name__}")
    return value


_SCALAR_SETTERS = {
    "bool": ("i1", OpAttrType.BOOL, bool),
    "i32": ("i32", OpAttrType.I32, int),
    "i64": ("i64", OpAttrType.I64, int),
    "f32": ("f32", OpAttrType.F32, float),
    "f64": ("f64", OpAttrType.F64, float),
}
_ARRAY_SETTERS = {
    "i32": ("i32[]", OpAttrType.I32, int),
    "i64": ("i64[]", OpAttrType.I64, int),
    "f32": ("f32[]", OpAttrType.F32, float),
}


def _make_setter(attr_type: OpAttrType, convert):
    def setter(key, value, attrs, chain):
        _attrs(attrs).set(key, convert(value), attr_type)
        return CHAIN

    return setter


def _make_array_setter(attr_type: OpAttrType, convert):
    def setter(key, value, attrs, chain):
        _attrs(attrs).set_array(key, [convert(v) for v in np.asarray(value).reshape(-1)], attr_type)
        return CHAIN

    return setter


for _suffix, (_kind, _t, _conv) in _SCALAR_SETTERS.items():
    kernel(f"corert.op_attrs_set.{_suffix}", attrs=("str", _kind))(_make_setter(_t, _conv))
for _suffix, (_kind, _t, _conv) in _ARRAY_SETTERS.items():
    kernel(f"corert.op_attrs_set_array.{_suffix}", attrs=("str", _kind))(_make_array_setter(_t, _conv))


@kernel("corert.op_attrs_set.dtype", attrs=("str", "type"))
def op_attrs_set_dtype(key, value, attrs, chain):
    _attrs(attrs).set(key, attr_type_of_dtype(value), OpAttrType.DTYPE)
    return CHAIN


@kernel("corert.op_attrs_set.dense", attrs=("str", "dense"))
def op_attrs_set_dense(key, value, attrs, chain):
    _attrs(attrs).set(key, DenseAttrValue(np.asarray(value)), OpAttrType.DENSE)
    return CHAIN


@kernel("corert.op_attrs_set.aggregate", attrs=("str", "aggregate"))
def op_attrs_set_aggregate(key, value, attrs, chain):
    entry_value = tuple(DenseAttrValue(v) if isinstance(v, np.ndarray) else v for v in value)
    _attrs(attrs).set(key, entry_value, OpAttrType.AGGREGATE)
    return CHAIN


@kernel("corert.op_attrs_set.shape", attrs=("str", "shape"))
def op_attrs_set_shape(key, value, attrs, chain):
    dims = getattr(value, "dims", value)
    _attrs(attrs).set(key, ShapeAttrValue(None if dims is None else tuple(dims)), OpAttrType.SHAPE)
    return CHAIN


@kernel("corert.op_attrs_set.str", attrs=("str", "str"))
def op_attrs_set_str(key, value, attrs, chain):
    _attrs(attrs).set_string(key, value)
    return CHAIN


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


@kernel("tfrt_test.corert.op_attrs_print")
def op_attrs_print(attrs, chain):
    _write(_attrs(attrs).print_text())
    return CHAIN


@kernel("tfrt_test.corert.op_attrs_freeze")
def op_attrs_freeze(attrs, chain):
    return _attrs(attrs).freeze(), CHAIN


@kernel("tfrt_test.corert.op_attrs_ref_print")
def op_attrs_ref_print(attrs, chain):
    _write(_attrs(attrs).print_text())
    return CHAIN


@kernel("tfrt_test.error_tensorhandle")
def error_tensorhandle():
    raise KernelError("invalid tensorhandle")


__all__ = ["CompositeOp", "HOST_DEVICE"]
