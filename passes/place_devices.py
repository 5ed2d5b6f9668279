"""``place-devices{device=cpu|gpu}``: place tensor kernels and insert the transfers.

``tfrt_array`` kernels run on the device their operands live on (numpy on
the CPU, cupy on a GPU), so placement is where the tensors are: with
``device=gpu`` each function copies its tensor arguments to the GPU once
(``tfrt_array.to_device``), and so the tensors made from no tensor operand
(splats, ``iota``, ``from_elements``) and the tensors a ``tfrt.call`` of a
public function returns; a constant crosses once, with
``tfrt_array.device_constant``, which keeps the device copy for later calls.
Every tensor kernel then runs there, and tensors the function returns come back with
``tfrt_array.to_host``.  Private functions and the loop bodies of
``tfrt.while`` are only called from the module, with device tensors, and
return them as they are.  Scalars stay on the host (``tensor.extract`` of a
device tensor gives a host scalar).  Each tensor kernel is marked with where
it runs, ``{tfrt.device = "gpu:0"}``: the IR shows the placement, and the BEF
writer leaves the mark out (the kernel goes by its operands).
``device=cpu`` changes nothing: the host is where values already are::

    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tfrt_array.elementwise %x {expr = "exp(a0)", ...}
      tfrt.return %y : tensor<4xf32>
    }
    // with device=gpu becomes
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = tfrt_array.to_device %x {device = "gpu:0"} : (tensor<4xf32>) -> tensor<4xf32>
      %y = tfrt_array.elementwise %0 {expr = "exp(a0)", ..., tfrt.device = "gpu:0"}
      %1 = tfrt_array.to_host %y : (tensor<4xf32>) -> tensor<4xf32>
      tfrt.return %1 : tensor<4xf32>
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.passes import ModulePass

from tfrt.diagnostics import Diagnostic, DiagnosticError
from tfrt.dialects.fastir import walk
from tfrt.passes.lowering import make_op, str_attr


@dataclass(frozen=True)
class PlaceDevicesPass(ModulePass):
    """Place tensor kernels on ``device`` (see the module docstring)."""

    name = "place-devices"
    device: str = "cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kind, _, index = self.device.partition(":")
        if kind not in ("cpu", "gpu") or (index and not index.isdigit()):
            raise DiagnosticError(Diagnostic("error", f"place-devices: unknown device '{self.device}' (cpu, gpu, gpu:N)"))
        if kind == "cpu":
            return
        device = self.device if index else "gpu:0"
        _check_gpu_types(op)
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp) and f.body.blocks]
        internal = internal_functions(op, functions)
        for fn in functions:
            _place(fn, device, internal)


def _check_gpu_types(module: ModuleOp) -> None:
    """CuPy has no bf16, 8/6/4-bit floats or i2/i4: a tensor kernel on them
    is an error at the op (docs/compiler.md, "Small element types")."""
    from tfrt.dialects.syntax.verify import op_error
    from tfrt.passes.lowering import element_name
    from tfrt.tensor.small_types import is_narrow
    from tfrt.kernels.expr import DTYPES

    for o in walk(module):
        if not _is_tensor_kernel(o):
            continue
        for v in (*o.operands, *o.results):
            if isinstance(v.type, TensorType):
                name = element_name(v.type)
                if name in DTYPES and is_narrow(DTYPES[name]):
                    raise op_error(o, f"cannot run on the GPU: CuPy has no {name} (compile for the CPU)")


def internal_functions(module: ModuleOp, functions: list) -> set[str]:
    """Functions that only this module calls, with tensors already on the
    device: private ones, and the loop bodies ``tfrt.while`` calls."""
    names = {f.sym_name.data for f in functions
             if f.sym_visibility is not None and f.sym_visibility.data == "private"}  # fmt: skip
    for inner in walk(module):
        if inner.name == "tfrt.while":
            body = inner.attributes.get("body_fn") or inner.properties.get("body_fn")
            if body is not None:
                names.add(body.string_value())
    return names


def _place(fn, device: str, internal: set[str]) -> None:
    block = fn.body.blocks[0]
    entry = fn.sym_name.data not in internal
    if entry:
        # Arguments come from the caller's host; results go back to it.
        first = block.first_op
        for arg in block.args:
            if isinstance(arg.type, TensorType) and arg.uses:
                move = make_op("tfrt_array.to_device", [arg], [arg.type], {"device": str_attr(device)}, at=fn)
                arg.replace_all_uses_with(move.results[0])
                move.operands[0] = arg
                block.insert_op_before(move, first)
    for inner in list(walk(fn)):
        if _is_tensor_kernel(inner):
            inner.attributes["tfrt.device"] = str_attr(device)
        if _makes_host_tensors(inner, internal):
            at = inner
            for res in inner.results:
                if not isinstance(res.type, TensorType) or not res.uses:
                    continue
                # A constant is the same every call: it crosses once and stays.
                mover = "tfrt_array.device_constant" if inner.name == "tfrt_array.constant" else "tfrt_array.to_device"
                move = make_op(mover, [res], [res.type], {"device": str_attr(device)}, at=inner)
                res.replace_all_uses_with(move.results[0])
                move.operands[0] = res
                inner.parent_block().insert_op_after(move, at)
                at = move
        elif entry and inner.name == "tfrt.return" and inner.parent_op() is fn:
            for i, v in enumerate(inner.operands):
                if isinstance(v.type, TensorType):
                    back = make_op("tfrt_array.to_host", [v], [v.type], {}, at=inner)
                    block.insert_op_before(back, inner)
                    inner.operands[i] = back.results[0]


TRANSFERS = frozenset({"tfrt_array.to_device", "tfrt_array.device_constant", "tfrt_array.to_host"})


def _is_tensor_kernel(op) -> bool:
    """A ``tfrt_array`` kernel other than the transfers themselves."""
    return op.name.startswith("tfrt_array.") and op.name not in TRANSFERS


def _makes_host_tensors(op, internal: set[str]) -> bool:
    """Whether ``op``'s tensor results are host arrays in a GPU function: a
    kernel that builds tensors from scalars or attributes alone (constants,
    splats, iota, from_elements: no tensor operand tells it the device), and
    a call of a public function, which hands its results back on the host."""
    if op.name == "tfrt.call":
        callee = op.attributes.get("callee") or op.properties.get("callee")
        return callee is None or callee.string_value() not in internal
    return _is_tensor_kernel(op) and any(isinstance(r.type, TensorType) for r in op.results) and not any(
        isinstance(v.type, TensorType) for v in op.operands
    )


PlaceDevicesPass.__doc__ = f"{PlaceDevicesPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
