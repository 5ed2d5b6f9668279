"""BEF kernels ``tfrt_tensor.<op>``: the device-dispatched tensor ops.

Every op of ``tfrt.devices.ops`` (matmul, conv2d, relu, reduce_sum, ...) is a
kernel named ``tfrt_tensor.<op>``.  The kernel runs the op on the device its
first input lives on (a DenseHostTensor lives on ``cpu``), so one program runs
on any device once its inputs were moved there with ``tfrt_tensor.to_device``::

    %w  = tfrt_tensor.constant {value = dense<...> : tensor<1024x1024xf32>}
    %g  = "tfrt_tensor.to_device"(%w) {device = "gpu:0"}
    %y  = "tfrt_tensor.matmul"(%g, %g) {transpose_a = false, transpose_b = true}
    %r  = "tfrt_tensor.relu"(%y)
    %h  = "tfrt_tensor.to_host"(%r)          // resolves when the GPU is done

Tensors are values: these kernels take no chains and never mutate inputs.
Attributes are read positionally in name order (BEF stores an op's
attributes sorted by name), so every attribute of an op must be written:
integers and integer lists as i64 (MLIR's default for ``[1, 2]``), flags as
i1, ``padding`` as a string, ``epsilon`` as f32, ``dtype`` as a type.
See docs/tensors.md for the table.

Every op is also a core-runtime op of the same name, run by the CPU op
handler (``corert.executeop(%cpu) "tfrt_tensor.relu"(%h)``).
"""

from __future__ import annotations

import numpy as np

from tfrt.devices.base import DeviceError
from tfrt.devices.ops import OPS, run_op
from tfrt.devices.registry import default_registry, device_of
from tfrt.kernels.registry import KernelError, kernel
from tfrt.tensor.host_tensor import DenseHostTensor, ScalarHostTensor, to_dense

PREFIX = "tfrt_tensor."

# Attribute name -> BEF attribute kind, shared by every op that uses the name.
ATTR_KINDS = {
    "transpose_a": "i1",
    "transpose_b": "i1",
    "keepdims": "i1",
    "padding": "str",
    "epsilon": "f32",
    "dtype": "type",
    "axis": "i64",
    "axes": "i64[]",
    "shape": "i64[]",
    "perm": "i64[]",
    "begin": "i64[]",
    "end": "i64[]",
    "size": "i64[]",
    "paddings": "i64[]",
    "message": "str",
    "strides": "i64[]",
    "ksize": "i64[]",
    "dilations": "i64[]",
}


def _as_device_tensor(t):
    # Scalar and COO host tensors take part in ops as dense host tensors.
    if isinstance(t, (ScalarHostTensor,)):
        return to_dense(t)
    return t


def _make_kernel(op_name: str, attr_names: tuple[str, ...]):
    n_attrs = len(attr_names)

    def run(*values):
        attrs = dict(zip(attr_names, values[:n_attrs]))
        inputs = [_as_device_tensor(t) for t in values[n_attrs:]]
        try:
            results = run_op(device_of(inputs), op_name, inputs, attrs)
        except DeviceError as exc:
            raise KernelError(str(exc)) from None
        return results[0] if len(results) == 1 else tuple(results)

    run.__name__ = op_name
    run.__doc__ = OPS[op_name].doc
    return run


for _op_name, _spec in OPS.items():
    _names = tuple(sorted(_spec.attrs))
    kernel(PREFIX + _op_name, attrs=tuple(ATTR_KINDS[n] for n in _names))(
        _make_kernel(_op_name, _names)
    )


# --------------------------------------------------------------------------
# The same ops for the core runtime: ``corert.executeop(%cpu) "tfrt_tensor.matmul"(%a, %b)
# {transpose_b = true}`` runs op ``matmul`` through the CPU op handler, with the
# op's metadata function as the handler's (attributes left out take their
# defaults, as in eager calls).


def _op_attrs(op_attrs, names: tuple[str, ...]) -> dict:
    out = {}
    for name in names:
        e = op_attrs.get_entry(name)
        if e is not None:
            out[name] = op_attrs.get(name)
    return out


def _corert_op(op_name: str, spec) -> None:
    from tfrt.devices.ops import infer
    from tfrt.tensor.corert import NO_SIDE_EFFECTS, CoreRuntimeError, cpu_op

    names = tuple(spec.attrs)

    def metadata(metas, op_attrs):
        try:
            return infer(op_name, metas, _op_attrs(op_attrs, names))
        except DeviceError as exc:
            raise CoreRuntimeError(str(exc)) from None

    def dispatch(exec_ctx, args, op_attrs, metas):
        try:
            return run_op(default_registry().get("cpu"), op_name, list(args), _op_attrs(op_attrs, names))
        except DeviceError as exc:
            raise CoreRuntimeError(str(exc)) from None

    cpu_op(PREFIX + op_name, NO_SIDE_EFFECTS, metadata)(dispatch)


for _op_name, _spec in OPS.items():
    _corert_op(_op_name, _spec)


@kernel("tfrt_tensor.constant", attrs=("dense",))
def constant(value):
    """A DenseHostTensor holding a copy of a dense attribute."""
    return DenseHostTensor.from_array(np.asarray(value), copy=True)


@kernel("tfrt_tensor.to_device", attrs=("str",))
def to_device(device_name, tensor):
    """Copy a tensor to the device ``device`` (``cpu``, ``gpu:0``, ...); the copy is queued."""
    try:
        dst = default_registry().get(device_name)
        src = device_of([tensor])
        if src is dst:
            return tensor
        if not isinstance(tensor, DenseHostTensor):
            # device -> device goes through the host; the wait happens on the
            # source device's completion, never on this thread.
            raise KernelError(
                f"tfrt_tensor.to_device: copy {src.name} -> {dst.name} needs tfrt_tensor.to_host first"
            )
        return dst.copy_to_device(tensor)
    except DeviceError as exc:
        raise KernelError(str(exc)) from None


@kernel("tfrt_tensor.to_host", kind="async")
def to_host(frame):
    """A DenseHostTensor copy of a device tensor; resolves when the device has finished."""
    tensor = frame.arg(0)
    if isinstance(tensor, DenseHostTensor):
        frame.set_value(0, tensor)
        return
    try:
        av = device_of([tensor]).copy_to_host(tensor)
    except DeviceError as exc:
        frame.report_error(str(exc))
        return
    frame.set_result(0, av)
