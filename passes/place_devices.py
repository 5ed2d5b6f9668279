"""``place-devices{device=cpu|gpu}``: place tensor kernels and insert the transfers.

``tfrt_array`` kernels run on the device their operands live on (numpy on
the CPU, cupy on a GPU), so placement is where the tensors are: with
``device=gpu`` each function copies its tensor arguments and the constants it
uses to the GPU once (``tfrt_array.to_device``), every tensor kernel then
runs there, and tensors it returns come back with ``tfrt_array.to_host``;
scalars stay on the host.  ``device=cpu`` changes nothing: the host is where
values already are::

    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = tfrt_array.elementwise %x {expr = "exp(a0)", ...}
      tfrt.return %y : tensor<4xf32>
    }
    // with device=gpu becomes
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = tfrt_array.to_device %x {device = "gpu:0"} : (tensor<4xf32>) -> tensor<4xf32>
      %y = tfrt_array.elementwise %0 {expr = "exp(a0)", ...}
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
        for fn in op.walk():
            if not isinstance(fn, func.FuncOp) or not fn.body.blocks:
                continue
            block = fn.body.blocks[0]
            first = block.first_op
            for arg in block.args:
                if isinstance(arg.type, TensorType) and arg.uses:
                    move = make_op("tfrt_array.to_device", [arg], [arg.type], {"device": str_attr(device)}, at=fn)
                    arg.replace_all_uses_with(move.results[0])
                    move.operands[0] = arg
                    block.insert_op_before(move, first)
            for inner in walk(fn):
                if inner.name == "tfrt_array.constant":
                    res = inner.results[0]
                    move = make_op("tfrt_array.to_device", [res], [res.type], {"device": str_attr(device)}, at=inner)
                    res.replace_all_uses_with(move.results[0])
                    move.operands[0] = res
                    inner.parent_block().insert_op_after(move, inner)
                elif inner.name == "tfrt.return" and inner.parent_op() is fn:
                    for i, v in enumerate(inner.operands):
                        if isinstance(v.type, TensorType):
                            back = make_op("tfrt_array.to_host", [v], [v.type], {}, at=inner)
                            block.insert_op_before(back, inner)
                            inner.operands[i] = back.results[0]


PlaceDevicesPass.__doc__ = f"{PlaceDevicesPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
