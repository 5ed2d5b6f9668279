"""``outline-cuda-graphs``: run each GPU entry function's device work as one CUDA graph.

After ``place-devices{device=gpu}`` an entry function copies its tensor
arguments to the device, runs device kernels and copies its tensor results
back.  This pass moves the kernels between those transfers into a private
function, ``@<name>.cuda_graph``, which the entry function calls with
``tfrt_array.graph_call``; at run time that kernel captures the callee once
as a CUDA graph and replays it on later calls
(``tfrt/kernels/tfrt_array_gpu.py``)::

    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = tfrt_array.to_device %x {device = "gpu:0"}
      %y = tfrt_array.elementwise %0 {expr = "exp(a0)", ...}
      %1 = tfrt_array.to_host %y
      tfrt.return %1 : tensor<4xf32>
    }
    // becomes
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = tfrt_array.to_device %x {device = "gpu:0"}
      %y = tfrt_array.graph_call @f.cuda_graph(%0) : (tensor<4xf32>) -> tensor<4xf32>
      %1 = tfrt_array.to_host %y
      tfrt.return %1 : tensor<4xf32>
    }
    func.func private @f.cuda_graph(%0: tensor<4xf32>) -> tensor<4xf32> {
      %y = tfrt_array.elementwise %0 {expr = "exp(a0)", ...}
      tfrt.return %y : tensor<4xf32>
    }

Host work that needs no device value (scalar arithmetic, tensors made from
scalars and their transfers to the device) stays in the entry function and
runs each call; its results are the graph's operands, since a graph cannot
replay a host-to-device copy.  A function is left as it is when its device
work hands a scalar back to the host part (a graph's outputs are device
arrays), when it (or a function it calls) has an effect a replay would not
repeat (a print, a chain), or when it takes no tensor argument.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr, TensorType
from xdsl.ir import Block, BlockArgument, Region
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.passes.lowering import make_op
from tfrt.passes.place_devices import internal_functions

SUFFIX = ".cuda_graph"
# Ops a graph may hold: the array and scalar kernels, and calls of functions
# that hold only these.  (Anything printing, or taking a chain, is an effect.)
_CALLS = {"tfrt.call": "callee", "tfrt.while": "body_fn"}


@dataclass(frozen=True)
class OutlineCudaGraphsPass(ModulePass):
    """Outline each GPU entry function's device work for ``graph_call`` (see the module docstring)."""

    name = "outline-cuda-graphs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = {f.sym_name.data: f for f in op.regions[0].blocks[0].ops
                     if isinstance(f, func.FuncOp) and f.body.blocks}  # fmt: skip
        # Entry functions only: place-devices's internal ones (private, loop
        # bodies) take and return device tensors, with no transfers to keep out.
        internal = internal_functions(op, list(functions.values()))
        pure: dict[str, bool] = {}
        for name, fn in list(functions.items()):
            if name not in internal and _replayable(fn, functions, pure):
                _outline(op, fn)


def _replayable(fn, functions: dict, pure: dict[str, bool]) -> bool:
    """Whether ``fn`` and every function it calls hold only kernels a graph replays."""
    name = fn.sym_name.data
    if name in pure:
        return pure[name]
    pure[name] = True  # a recursive call does not make it impure by itself
    ok = True
    for inner in walk(fn):
        if inner is fn or inner.name in ("tfrt.return",):
            continue
        dialect = inner.name.split(".", 1)[0]
        if "print" in inner.name or any("chain" in str(v.type) for v in (*inner.operands, *inner.results)):
            ok = False
        elif inner.name in _CALLS:
            ref = inner.attributes.get(_CALLS[inner.name]) or inner.properties.get(_CALLS[inner.name])
            callee = functions.get(ref.string_value()) if ref is not None else None
            ok = callee is not None and _replayable(callee, functions, pure)
        elif dialect not in ("tfrt_array", "tfrt_scalar"):
            ok = False
        if not ok:
            break
    pure[name] = ok
    return ok


_CONSTANTS = ("tfrt_array.constant", "tfrt_scalar.constant.")


def _device_part(head: list, rest: list) -> list:
    """The ops of ``rest`` a graph holds: those that use a device value (an
    argument's transfer, or another such op's result), the device constants,
    and constants only they use.  The others (host work: scalar arithmetic,
    tensors made from scalars and their transfers) stay outside and run each
    call, their results becoming the graph's operands: a graph cannot replay
    a host-to-device copy."""
    device = {r for o in head for r in o.results}
    chosen: set[int] = set()
    for o in rest:
        if o.name == "tfrt_array.device_constant" or any(v in device for n in walk(o) for v in n.operands):
            chosen.add(id(o))
            device.update(o.results)
    for o in reversed(rest):
        if id(o) not in chosen and not o.operands and o.name.startswith(_CONSTANTS) and all(
            id(u.operation) in chosen for r in o.results for u in r.uses
        ) and any(r.uses for r in o.results):
            chosen.add(id(o))
    return [o for o in rest if id(o) in chosen]


def _outline(module: ModuleOp, fn) -> None:
    block = fn.body.blocks[0]
    ops = list(block.ops)
    ret = ops[-1]
    if ret.name != "tfrt.return":
        return
    head = [o for o in ops if o.name == "tfrt_array.to_device"
            and isinstance(o.operands[0], BlockArgument) and o.operands[0].owner is block]  # fmt: skip
    tail = [o for o in ops if o.name == "tfrt_array.to_host" and o.results[0].uses
            and all(u.operation is ret for u in o.results[0].uses)]  # fmt: skip
    outside = {id(o) for o in (*head, *tail, ret)}
    rest = [o for o in ops if id(o) not in outside]
    body = _device_part(head, rest)
    if not head or not body:
        return
    inside = {id(o) for o in body}
    for o in body:
        inside.update(id(n) for n in walk(o))

    def defined_inside(v) -> bool:
        owner = v.owner
        if isinstance(v, BlockArgument):
            owner = owner.parent_op() if owner is not block else None
        return owner is not None and id(owner) in inside

    # In order of first use, each once.
    inputs = list(dict.fromkeys(v for o in body for n in walk(o) for v in n.operands if not defined_inside(v)))
    outputs = [r for o in body for r in o.results if any(id(u.operation) not in inside for u in r.uses)]
    if not outputs or not all(isinstance(v.type, TensorType) for v in outputs):
        return  # a scalar goes back to the host part: no graph for it

    name = fn.sym_name.data + SUFFIX
    new_block = Block(arg_types=[v.type for v in inputs])
    for v, arg in zip(inputs, new_block.args):
        for use in list(v.uses):
            if id(use.operation) in inside:
                use.operation.operands[use.index] = arg
    call = make_op("tfrt_array.graph_call", list(inputs), [v.type for v in outputs],
                   {"callee": SymbolRefAttr(name)}, at=fn)  # fmt: skip
    # After the last op that is not a result's transfer or the return: every
    # input is defined above it (an argument's transfer, a host op, a block
    # argument), every use of an output below it.
    last = max(i for i, o in enumerate(ops) if id(o) not in outside)
    block.insert_op_before(call, ops[last + 1])
    for o in body:
        o.detach()
        new_block.add_op(o)
    for v, replacement in zip(outputs, call.results):
        for use in list(v.uses):
            if id(use.operation) not in inside:
                use.operation.operands[use.index] = replacement
    new_block.add_op(make_op("tfrt.return", list(outputs), [], {}, at=ret))
    graph_fn = func.FuncOp.from_region(
        name, [v.type for v in inputs], [v.type for v in outputs], Region(new_block), visibility="private"
    )
    graph_fn.location = fn.location
    module.regions[0].blocks[0].insert_op_after(graph_fn, fn)


OutlineCudaGraphsPass.__doc__ = f"{OutlineCudaGraphsPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
