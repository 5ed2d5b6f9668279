"""``specialize-shapes``: dynamic dimensions (``?``) made static where the program fixes them.

The kernels run on static shapes.  Programs written for a compiler with
dynamic shapes still often fix every size: a ``tensor.cast`` to
``tensor<2x?xf32>`` of a ``tensor<2x3xf32>``, a ``tensor.empty(%d)`` with
``%d`` an ``arith.constant`` (or a ``tensor.dim`` of a static tensor, or
index arithmetic on those), a private function inlined with constant sizes.
This pass walks each function in order and, as MLIR's shape refinement
would:

* folds ``tensor.dim`` of a static dimension, and ``arith`` index arithmetic
  (``addi subi muli divui divsi ceildivui ceildivsi floordivsi remui remsi
  maxui minui maxsi minsi index_cast``) on constants, into constants;
* gives ``tensor.empty`` with constant sizes its static type;
* gives a result the static type that an operand decides: the source of a
  ``tensor.cast`` (which then casts nothing), the ``outs`` operand of a
  destination-style op (linalg, ``tensor.insert``, ``tensor.insert_slice``,
  ``linalg.pack``/``unpack``), the operand of an elementwise ``arith``/
  ``math`` op or of ``util.optimization_barrier``;
* and where a refined value flows into an op that fixes its operand types
  otherwise (an ``scf.for`` iteration argument, a call), casts it back to
  the type the op expects (``tensor.cast``), so the program stays valid;
* a function whose returned values became static returns them with their
  static types (its callers see the refined type through a cast).

An ``index``-typed ``util.unfoldable_constant`` counts as a constant size
here (and only here: the values a program computes from it are computed at
run time).  What stays dynamic (a size that comes from a function argument)
is refused later, at the op that needs it, with a located error.

Example::

    %c3 = arith.constant 3 : index
    %e = tensor.empty(%c3) : tensor<?x4xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
    // becomes
    %e = tensor.empty() : tensor<3x4xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import erase_op, insert_op_before, replace_all_uses, walk
from tfrt.passes.lowering import make_op

# On index values (64 bits here, as the kernels compute them); results wrap.
_FOLD = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divui": lambda a, b: a // b if b > 0 and a >= 0 else None,
    "arith.divsi": lambda a, b: (abs(a) // abs(b)) * (1 if (a >= 0) == (b > 0) else -1) if b else None,
    "arith.ceildivui": lambda a, b: -((-a) // b) if b > 0 and a >= 0 else None,
    "arith.ceildivsi": lambda a, b: -((-a) // b) if b else None,
    "arith.floordivsi": lambda a, b: a // b if b else None,
    "arith.remui": lambda a, b: a % b if b > 0 and a >= 0 else None,
    "arith.remsi": lambda a, b: (abs(a) % abs(b)) * (1 if a >= 0 else -1) if b else None,
    # The unsigned ones compare the bit patterns: -1 is the largest.
    "arith.maxui": lambda a, b: max(a % 2**64, b % 2**64),
    "arith.minui": lambda a, b: min(a % 2**64, b % 2**64),
    "arith.maxsi": max, "arith.minsi": min,
}  # fmt: skip


def _wrap64(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63

# Ops whose results take the type of their destination ("outs") operands.
_DESTINATION = ("tensor.insert", "tensor.insert_slice", "linalg.pack", "linalg.unpack")
# Ops that accept a refined (more static) operand as it is.
_ACCEPTS = (
    "tensor.cast", "tensor.dim", "tensor.extract", "tensor.extract_slice", "tensor.insert_slice",
    "tensor.insert", "tensor.collapse_shape", "tensor.expand_shape", "tensor.pad", "tensor.reshape",
    "tensor.concat", "func.return", "util.optimization_barrier", "linalg.pack", "linalg.unpack",
)  # fmt: skip


def _index_constant(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and v.op.name == "arith.constant":
        attr = v.op.properties.get("value")
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, (IndexType, IntegerType)):
            return int(attr.value.data)
    return None


def _size_constant(v: SSAValue) -> int | None:
    """A size the program fixes: an index constant, or an ``index``-typed
    ``util.unfoldable_constant`` (its value is never folded into the data a
    program computes, but a size must be known for the kernels' static shapes)."""
    found = _index_constant(v)
    if found is None and isinstance(v, OpResult) and v.op.name == "util.unfoldable_constant":
        attr = v.op.properties.get("value")
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType):
            return int(attr.value.data)
    return found


def _static(t) -> bool:
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _refines(new, old) -> bool:
    """``new`` is a static tensor type agreeing with ``old`` wherever ``old`` is static."""
    if not (isinstance(new, TensorType) and isinstance(old, TensorType)) or new == old:
        return False
    if not _static(new) or new.element_type != old.element_type:
        return False
    a, b = new.get_shape(), old.get_shape()
    return len(a) == len(b) and all(y < 0 or x == y for x, y in zip(a, b))


def _constant(at: Operation, value: int, type_) -> SSAValue:
    c = make_op("arith.constant", [], [type_], {"value": IntegerAttr(value, type_)}, at=at)
    insert_op_before(c, at)
    return c.results[0]


def _retype(v: SSAValue, new) -> None:
    """Give ``v`` the static type ``new``; uses that fix the old type get a cast back."""
    old = v.type
    v._type = new  # noqa: SLF001 - retyping in place
    for use in list(v.uses):
        user = use.operation
        if user.name in _ACCEPTS or user.name.startswith(("linalg.", "check.")) or _elementwise(user):
            continue
        back = make_op("tensor.cast", [v], [old], at=user)
        insert_op_before(back, user)
        user.operands[use.index] = back.results[0]


def _elementwise(op: Operation) -> bool:
    return op.name.startswith(("arith.", "math.")) and op.name not in ("arith.constant",)


def _specialize(op: Operation) -> None:
    name = op.name
    if name == "tensor.dim":
        src, index = op.operands
        i = _index_constant(index)
        t = src.type
        if i is not None and isinstance(t, TensorType) and 0 <= i < len(t.get_shape()) and t.get_shape()[i] >= 0:
            replace_all_uses(op.results[0], _constant(op, int(t.get_shape()[i]), op.results[0].type))
            erase_op(op)
        return
    if name in _FOLD and len(op.results) == 1 and isinstance(op.results[0].type, IndexType):
        a, b = (_size_constant(v) for v in op.operands)
        if a is not None and b is not None:
            value = _FOLD[name](a, b)
            if value is not None:
                replace_all_uses(op.results[0], _constant(op, _wrap64(value), op.results[0].type))
                erase_op(op)
        return
    if name in ("arith.index_cast", "arith.index_castui") and (a := _index_constant(op.operands[0])) is not None:
        t = op.results[0].type
        src = op.operands[0].type
        if isinstance(src, IntegerType):
            a %= 2 ** src.width.data  # index_castui zero-extends: i8 -128 is 128
            if name == "arith.index_cast" and a >= 2 ** (src.width.data - 1):
                a -= 2 ** src.width.data  # index_cast sign-extends: i1 true is -1
        if isinstance(t, IndexType) or isinstance(t, IntegerType) and t.width.data == 64:
            replace_all_uses(op.results[0], _constant(op, _wrap64(a), t))
            erase_op(op)
        return
    if name == "tensor.empty":
        t = op.results[0].type
        sizes = list(op.operands)
        values = [_size_constant(v) for v in sizes]
        if sizes and all(v is not None and v >= 0 for v in values):
            it = iter(values)
            shape = [d if d >= 0 else next(it) for d in t.get_shape()]
            new = make_op("tensor.empty", [], [TensorType(t.element_type, shape)], at=op)
            insert_op_before(new, op)
            res = new.results[0]
            old_type = op.results[0].type
            replace_all_uses(op.results[0], res)
            erase_op(op)
            res._type = old_type  # noqa: SLF001 - refined below with the cast-back rule
            _retype(res, TensorType(t.element_type, shape))
        return
    if name == "tensor.cast":
        src, res = op.operands[0], op.results[0]
        if _refines(src.type, res.type):
            _retype(res, src.type)
        return
    candidates: list[tuple[SSAValue, object]] = []
    if name.startswith("linalg.") or name in _DESTINATION:
        outs = _outs(op)
        if len(outs) == len(op.results):
            candidates = list(zip(op.results, (v.type for v in outs)))
    elif name == "util.optimization_barrier" or _elementwise(op):
        tensors = [v.type for v in op.operands if isinstance(v.type, TensorType) and _static(v.type)]
        if tensors:
            candidates = [(r, tensors[0] if name != "util.optimization_barrier" else op.operands[i].type)
                          for i, r in enumerate(op.results)]  # fmt: skip
            if name != "util.optimization_barrier":
                candidates = [(r, TensorType(r.type.element_type, tensors[0].get_shape()))
                              for r, _ in candidates if isinstance(r.type, TensorType)]  # fmt: skip
    for r, t in candidates:
        if _refines(t, r.type):
            _retype(r, t)


def _outs(op: Operation) -> list[SSAValue]:
    if op.name == "tensor.insert":
        return [op.operands[1]]
    if op.name == "tensor.insert_slice":
        return [op.operands[1]]
    if op.name in ("linalg.pack", "linalg.unpack"):
        return [op.operands[1]]
    if hasattr(op, "outputs"):
        try:
            return list(op.outputs)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - an op without that accessor
            return []
    return []


def _fix_signature(func: Operation) -> None:
    """A function returning values that became static returns them so."""
    ft = func.properties.get("function_type")
    body = func.regions[0] if func.regions else None
    if not isinstance(ft, FunctionType) or body is None or not body.blocks:
        return
    returns = [op for op in walk(func) if op.name == "func.return" and op.parent_op() is func]
    if not returns:
        return
    outputs = list(ft.outputs.data)
    new_outputs = []
    for i, t in enumerate(outputs):
        types = {r.operands[i].type for r in returns if i < len(r.operands)}
        new = next(iter(types)) if len(types) == 1 else t
        new_outputs.append(new if _refines(new, t) else t)
    # A return whose operand was refined beyond the (kept) signature casts it back.
    for r in returns:
        for i, (v, t) in enumerate(zip(list(r.operands), new_outputs)):
            if v.type != t:
                back = make_op("tensor.cast", [v], [t], at=r)
                insert_op_before(back, r)
                r.operands[i] = back.results[0]
    if new_outputs != outputs:
        func.properties["function_type"] = FunctionType.from_lists(list(ft.inputs.data), new_outputs)
        sym = func.properties.get("sym_name")
        _update_calls(func, sym.data if sym is not None else None, outputs)


def _update_calls(func: Operation, name, old_outputs) -> None:
    module = func.parent_op()
    if module is None or name is None:
        return
    new_outputs = list(func.properties["function_type"].outputs.data)
    for op in walk(module):
        if op.name == "func.call" and op.properties.get("callee") is not None:
            if op.properties["callee"].root_reference.data != name:
                continue
            for r, t in zip(op.results, new_outputs):
                if r.type != t and _refines(t, r.type):
                    _retype(r, t)


@dataclass(frozen=True)
class SpecializeShapesPass(ModulePass):
    """Make dynamic dimensions static where the program fixes them (see the module docstring)."""

    name = "specialize-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = [f for f in op.ops if f.name == "func.func"]
        # Twice: a callee refined in the first round refines its callers' uses in the second.
        for _ in range(2):
            for f in funcs:
                if not any(_dynamic_anywhere(o) for o in walk(f)):
                    continue
                for o in walk(f):
                    if o.parent is not None:
                        _specialize(o)
                _fix_signature(f)
                for o in walk(f):
                    # A packed type made static wants its constant tiles static too (MLIR's verifier).
                    if o.name in ("linalg.pack", "linalg.unpack"):
                        from tfrt.dialects.linalg_relayout import fold_static_tiles

                        fold_static_tiles(o)


def _dynamic_anywhere(op: Operation) -> bool:
    return any(isinstance(r.type, TensorType) and not _static(r.type) for r in op.results) or op.name in (
        "tensor.dim", "func.return") or (op.name in _FOLD and isinstance(op.results[0].type, IndexType))  # fmt: skip


SpecializeShapesPass.__doc__ = f"{SpecializeShapesPass.__doc__}\n\n{__doc__}"
