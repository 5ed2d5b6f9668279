"""``lower-tensor``: tensor dialect ops -> ``tfrt_array`` kernels.

Every op of ``dialects/tensor.py`` lowers here (docs/compiler.md has the
table).  Sizes, offsets, strides and paddings given as ``index`` constants
(``[%c0, 2]``, ``tensor.empty(%c4)``) count as static, and a result type
with ``?`` they fix is made static.  What stays dynamic is refused at the
op, with a located error, except where a kernel checks it at run time:

* ``extract``/``insert`` -> ``tfrt_array.extract``/``insert`` (an index out of
  range is a run-time error, a negative one too);
* ``extract_slice``/``insert_slice`` -> ``tfrt_array.extract_slice``/
  ``insert_slice`` when the slice is static and in bounds, else the
  ``dynamic_*`` kernels, which take run-time offsets and strides and check
  the bounds when they run (sizes must be constants);
* ``gather``/``scatter`` -> ``tfrt_array.gather_slices``/``scatter_slices``
  (coordinates checked: out of bounds, or repeated under ``unique``, is a
  run-time error naming the op);
* ``generate``, and ``pad`` whose body computes the value from the indices,
  -> a ``linalg.generic`` over the result with ``linalg.index`` for the body's
  arguments, lowered as ``lower-linalg`` lowers any generic
  (``tfrt_array.generic``); the pad then inserts the source;
* ``pad`` yielding a constant or a value from outside -> ``tfrt_array.pad``;
* ``reshape``/``collapse_shape``/``expand_shape`` -> ``tfrt_array.reshape``
  (a shape tensor known only at run time: ``reshape_checked``);
* ``concat``, ``from_elements`` -> their kernels; ``splat``, ``empty``
  (zeros), ``bitcast`` -> ``tfrt_array.elementwise``;
* ``cast`` -> nothing; ``dim``, ``rank`` -> constants (``dim`` of an index
  known only at run time: an extract from the shape, which checks it);
* ``parallel_insert_slice`` -> an error (``scf.forall`` is not compiled)::

    %s = tensor.extract_slice %t[0, 1] [2, 2] [1, 1] : tensor<4x4xf32> to tensor<2x2xf32>
    // becomes
    %s = tfrt_array.extract_slice %t {offsets = [0, 1], shape = [2, 2], sizes = [2, 2],
                                      strides = [1, 1]} : (tensor<4x4xf32>) -> tensor<2x2xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from tfrt.dialects.fastir import erase_op, replace_all_uses, walk
from tfrt.dialects.tensor import DYN, constant_index, dropped_dims, mixed
from tfrt.passes.lowering import (
    cannot_lower,
    check_value_type,
    element_name,
    elementwise,
    i1_attr,
    i64_array,
    i64_attr,
    kernel_type,
    make_op,
    replace,
    scalar_constant,
    str_attr,
)
from xdsl.context import Context
from xdsl.dialects.builtin import (
    AffineMapAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass

from tfrt.diagnostics import DiagnosticError


@dataclass
class _Builder:
    """The kernel ops that replace one tensor op (``ins``/``outs`` serve the
    general generic lowering, which reads them)."""

    op: Operation
    ops: list[Operation] = field(default_factory=list)
    ins: list[SSAValue] = field(default_factory=list)
    outs: list[SSAValue] = field(default_factory=list)

    def kernel(self, name: str, operands, result_type, attrs=None) -> SSAValue:
        k = make_op(name, list(operands), [kernel_type(result_type)], attrs or {}, at=self.op)
        self.ops.append(k)
        return k.results[0]

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def zeros(self, t: TensorType) -> SSAValue:
        return self.add(elementwise(f"cast_{element_name(t)}({_zero(t)})", [], t, self.op))

    def i64(self, value: int) -> SSAValue:
        return self.add(
            make_op(
                "tfrt_scalar.constant.i64",
                [],
                [i64],
                {"value": IntegerAttr(value, i64)},
                at=self.op,
            )
        )


def _zero(t) -> str:
    name = element_name(t)
    return "False" if name == "i1" else ("0.0" if name[:1] in "fb" else "0")


def _static_tensor(op: Operation, value: SSAValue, what: str = "operand") -> TensorType:
    """``value``'s type, which must be a static ranked tensor of a kernel element type."""
    t = value.type
    if not isinstance(t, TensorType):
        raise cannot_lower(
            op, f"unranked tensors are not supported ({t}); the kernels need static shapes"
        )
    check_value_type(op, t)
    return t


def _result(op: Operation, shape: Sequence[int]) -> TensorType:
    """The op's result type with ``shape`` (the static shape the lowering found)."""
    t = op.results[0].type
    if not isinstance(t, TensorType):
        raise cannot_lower(
            op, f"unranked tensors are not supported ({t}); the kernels need static shapes"
        )
    if any(d == DYN for d in shape):
        raise cannot_lower(
            op, f"dynamic shapes are not supported ({t}); the kernels need static shapes"
        )
    new = TensorType(t.element_type, list(shape))
    check_value_type(op, new)
    return new


def _resolved(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[int | SSAValue]:
    """Mixed static/dynamic entries, with ``index`` constants as ints."""
    out: list[int | SSAValue] = []
    for v in mixed(static, dynamic):
        if isinstance(v, int):
            out.append(v)
            continue
        c = constant_index(v)
        out.append(v if c is None else c)
    return out


def _ints(attr) -> list[int]:
    return [int(v) for v in attr.get_values()]


def _fixed_shape(t: TensorType, sizes: Sequence[SSAValue], op: Operation) -> list[int]:
    """``t``'s shape with each ``?`` replaced by its size operand's constant."""
    values = _resolved(list(t.get_shape()), list(sizes))
    for i, v in enumerate(values):
        if not isinstance(v, int):
            raise cannot_lower(
                op,
                f"dynamic shapes are not supported ({t}): size of dimension {i} is not a constant",
            )
    return values  # type: ignore[return-value]


# ---------------------------------------------------------------- element ops


def _empty(op, b: _Builder) -> SSAValue | None:
    if not op.results[0].uses:
        return None
    return b.zeros(_result(op, _fixed_shape(op.results[0].type, op.dynamic_sizes, op)))


def _splat(op, b: _Builder) -> SSAValue:
    t = _result(op, _fixed_shape(op.results[0].type, op.dynamicSizes, op))
    return b.add(elementwise("a0", [op.input], t, op))


def _extract(op, b: _Builder) -> SSAValue:
    _static_tensor(op, op.tensor)
    return b.kernel("tfrt_array.extract", [op.tensor, *op.indices], op.results[0].type)


def _insert(op, b: _Builder) -> SSAValue:
    t = _static_tensor(op, op.dest)
    return b.kernel("tfrt_array.insert", [op.scalar, op.dest, *op.indices], t)


def _from_elements(op, b: _Builder) -> SSAValue:
    t = _result(op, op.results[0].type.get_shape())
    return b.kernel("tfrt_array.from_elements", list(op.elements),
                    t, {"dtype": str_attr(element_name(t)), "shape": i64_array(t.get_shape())})  # fmt: skip


def _bitcast(op, b: _Builder) -> SSAValue:
    src = _static_tensor(op, op.source)
    t = _result(op, src.get_shape())
    if element_name(src) == element_name(t):
        return op.source
    return b.add(elementwise(f"bitcast_{element_name(t)}(a0)", [op.source], t, op))


def _cast(op, b: _Builder) -> SSAValue:
    src = _static_tensor(op, op.source)
    dest = op.results[0].type
    if isinstance(dest, TensorType):
        for i, (a, d) in enumerate(zip(src.get_shape(), dest.get_shape())):
            if d != DYN and d != a:
                raise cannot_lower(op, f"it casts {src} to {dest}: dimension {i} is {a}, not {d}")
    return op.source


def _dim(op, b: _Builder) -> SSAValue:
    src = op.source.type
    if not isinstance(src, TensorType):
        raise cannot_lower(op, f"unranked tensors are not supported ({src})")
    shape = list(src.get_shape())
    index = constant_index(op.index)
    if index is not None and 0 <= index < len(shape) and shape[index] != DYN:
        return b.i64(shape[index])
    if DYN in shape:
        raise cannot_lower(
            op, f"dynamic shapes are not supported ({src}); the kernels need static shapes"
        )
    # An index known only when the program runs (or out of range: undefined
    # in MLIR, an error here when it runs): read it from the shape.
    table_t = TensorType(i64, [len(shape)])
    table = make_op("tfrt_array.constant", [], [table_t],
                    {"value": _dense_i64(table_t, shape)}, at=op)  # fmt: skip
    b.add(table)
    return b.kernel("tfrt_array.extract", [table.results[0], op.index], i64)


def _dense_i64(t: TensorType, values: Sequence[int]) -> DenseIntOrFPElementsAttr:
    data = np.asarray(values, dtype="<i8").tobytes()
    return DenseIntOrFPElementsAttr(t, BytesAttr(data))


def _rank(op, b: _Builder) -> SSAValue:
    t = op.tensor.type
    if not isinstance(t, TensorType):
        raise cannot_lower(op, f"unranked tensors are not supported ({t})")
    return b.i64(len(t.get_shape()))


def _concat(op, b: _Builder) -> SSAValue:
    inputs = list(op.inputs)
    shapes = [_static_tensor(op, v).get_shape() for v in inputs]
    axis = op.dim.value.data
    shape = list(shapes[0])
    shape[axis] = sum(s[axis] for s in shapes)
    t = _result(op, shape)
    return b.kernel("tfrt_array.concat", inputs, t, {"axis": i64_attr(axis)})


# ---------------------------------------------------------------- reshapes


def _reshape_to(op, b: _Builder, src: SSAValue, shape: Sequence[int]) -> SSAValue:
    t = _result(op, shape)
    # A reshape of a reshape reads the first one's source (a view either way).
    while isinstance(src, OpResult) and src.op.name == "tfrt_array.reshape":
        src = src.op.operands[0]
    if src.type == t:
        return src
    return b.kernel("tfrt_array.reshape", [src], t, {"shape": i64_array(t.get_shape())})


def _collapse(op, b: _Builder) -> SSAValue:
    src = _static_tensor(op, op.src)
    shape = []
    start = 0
    for g in op.reassociation.data:
        size = 1
        for d in src.get_shape()[start : start + len(g.data)]:
            size *= d
        shape.append(size)
        start += len(g.data)
    return _reshape_to(op, b, op.src, shape)


def _expand(op, b: _Builder) -> SSAValue:
    src = _static_tensor(op, op.src)
    out = _resolved(_ints(op.static_output_shape), list(op.dynamic_output_shape))
    start = 0
    for g, size in zip(op.reassociation.data, src.get_shape()):
        dims = list(range(start, start + len(g.data)))
        unknown = [d for d in dims if not isinstance(out[d], int)]
        if len(unknown) == 1:
            # The source fixes the one size the group leaves open.
            known = 1
            for d in dims:
                if isinstance(out[d], int):
                    known *= out[d]  # type: ignore[operator]
            if known and size % known == 0:
                out[unknown[0]] = size // known
        start += len(g.data)
    if any(not isinstance(v, int) for v in out):
        raise cannot_lower(op, f"dynamic shapes are not supported ({op.results[0].type}); "
                               "an output_shape size is not a constant")  # fmt: skip
    product = 1
    for v in out:
        product *= v  # type: ignore[operator]
    count = 1
    for d in src.get_shape():
        count *= d
    if product != count:
        raise cannot_lower(op, f"output_shape {out} does not hold the {count} elements of {src}")
    return _reshape_to(op, b, op.src, out)  # type: ignore[arg-type]


def _reshape(op, b: _Builder) -> SSAValue:
    src = _static_tensor(op, op.source)
    shape_v = op.shape
    holds = _constant_values(shape_v)
    rtype = op.results[0].type
    count = 1
    for d in src.get_shape():
        count *= d
    if holds is not None:
        if any(v < 0 for v in holds) or int(np.prod(holds, dtype=np.int64)) != count:
            raise cannot_lower(op, f"the shape operand holds {holds}, which does not hold the {count} elements "
                                   f"of {src}")  # fmt: skip
        if isinstance(rtype, TensorType):
            for i, (h, d) in enumerate(zip(holds, rtype.get_shape())):
                if d != DYN and d != h:
                    raise cannot_lower(
                        op, f"the shape operand holds {holds}, but the result type is {rtype}"
                    )
        return _reshape_to(op, b, op.source, holds)
    t = _result(op, rtype.get_shape() if isinstance(rtype, TensorType) else [DYN])
    _static_tensor(op, shape_v)
    return b.kernel(
        "tfrt_array.reshape_checked", [op.source, shape_v], t, {"shape": i64_array(t.get_shape())}
    )


def _constant_values(v: SSAValue) -> list[int] | None:
    if not isinstance(v, OpResult) or v.op.name not in ("arith.constant", "tfrt_array.constant"):
        return None
    attr = v.op.properties.get("value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    return [int(x) for x in attr.get_values()]


# ---------------------------------------------------------------- slices


def _slice_parts(op) -> tuple[list, list[int], list]:
    offsets = _resolved(_ints(op.static_offsets), list(op.offsets))
    sizes = _resolved(_ints(op.static_sizes), list(op.sizes))
    strides = _resolved(_ints(op.static_strides), list(op.strides))
    for i, s in enumerate(sizes):
        if not isinstance(s, int):
            raise cannot_lower(op, f"size #{i} is not a constant; the kernels need static shapes")
    return offsets, sizes, strides  # type: ignore[return-value]


def _static_in_bounds(shape, offsets, sizes, strides) -> bool:
    """The slice is all integers, with positive strides, inside ``shape``."""
    for dim, o, n, s in zip(shape, offsets, sizes, strides):
        if not (isinstance(o, int) and isinstance(s, int)) or s <= 0 or o < 0:
            return False
        if n > 0 and o + (n - 1) * s >= dim:
            return False
        if n == 0 and o > dim:
            return False
    return True


def _positions(offsets, strides) -> tuple[list[int], list[SSAValue]]:
    static, values = [], []
    for v in (*offsets, *strides):
        if isinstance(v, int):
            static.append(v)
        else:
            static.append(DYN)
            values.append(v)
    return static, values


def _extract_slice(op, b: _Builder) -> SSAValue:
    src = _static_tensor(op, op.source)
    offsets, sizes, strides = _slice_parts(op)
    rtype = op.results[0].type
    dropped = (
        dropped_dims(list(rtype.get_shape()), sizes) if isinstance(rtype, TensorType) else set()
    )
    t = _result(op, [s for i, s in enumerate(sizes) if i not in dropped])
    if _static_in_bounds(src.get_shape(), offsets, sizes, strides):
        return b.kernel("tfrt_array.extract_slice", [op.source], t, {
            "offsets": i64_array(offsets), "shape": i64_array(t.get_shape()),
            "sizes": i64_array(sizes), "strides": i64_array(strides),
        })  # fmt: skip
    static, values = _positions(offsets, strides)
    n = len(offsets)
    return b.kernel("tfrt_array.dynamic_extract_slice", [op.source, *values], t, {
        "offsets": i64_array(static[:n]), "shape": i64_array(t.get_shape()),
        "sizes": i64_array(sizes), "strides": i64_array(static[n:]),
    })  # fmt: skip


def _insert_slice(op, b: _Builder) -> SSAValue:
    dest = _static_tensor(op, op.dest)
    _static_tensor(op, op.source)
    offsets, sizes, strides = _slice_parts(op)
    return _insert_slice_of(op, b, op.source, op.dest, dest, offsets, sizes, strides)


def _insert_slice_of(
    op, b: _Builder, source, dest_v, dest: TensorType, offsets, sizes, strides
) -> SSAValue:
    if _static_in_bounds(dest.get_shape(), offsets, sizes, strides):
        return b.kernel("tfrt_array.insert_slice", [source, dest_v], dest, {
            "inplace": i64_attr(-1), "offsets": i64_array(offsets),
            "sizes": i64_array(sizes), "strides": i64_array(strides),
        })  # fmt: skip
    static, values = _positions(offsets, strides)
    n = len(offsets)
    return b.kernel("tfrt_array.dynamic_insert_slice", [source, dest_v, *values], dest, {
        "offsets": i64_array(static[:n]), "sizes": i64_array(sizes), "strides": i64_array(static[n:]),
    })  # fmt: skip


def _parallel_insert_slice(op, b: _Builder) -> SSAValue:
    raise cannot_lower(op, "scf.forall, whose updates it makes, is not supported")


# ---------------------------------------------------------------- gather / scatter


def _gather(op, b: _Builder) -> SSAValue:
    _static_tensor(op, op.source)
    _static_tensor(op, op.indices)
    t = _result(op, op.results[0].type.get_shape())
    return b.kernel("tfrt_array.gather_slices", [op.source, op.indices], t, {
        "dims": i64_array(_ints(op.gather_dims)), "shape": i64_array(t.get_shape()),
        "unique": i1_attr(op.unique is not None),
    })  # fmt: skip


def _scatter(op, b: _Builder) -> SSAValue:
    dest = _static_tensor(op, op.dest)
    _static_tensor(op, op.source)
    _static_tensor(op, op.indices)
    rtype = op.results[0].type
    if isinstance(rtype, TensorType):
        for i, (r, d) in enumerate(zip(rtype.get_shape(), dest.get_shape())):
            if r != DYN and r != d:
                raise cannot_lower(op, f"the result type {rtype} is not the dest type {dest}")
    return b.kernel("tfrt_array.scatter_slices", [op.source, op.dest, op.indices], dest, {
        "dims": i64_array(_ints(op.scatter_dims)), "unique": i1_attr(op.unique is not None),
    })  # fmt: skip


# ---------------------------------------------------------------- bodies


def _body_as_generic(op, b: _Builder, block: Block, t: TensorType) -> SSAValue:
    """The tensor of ``t`` whose element at each index is what ``block`` (index
    arguments, ``tensor.yield``) computes: MLIR's lowering of such a body, a
    ``linalg.generic`` with ``linalg.index`` for the arguments, then the
    general generic lowering."""
    from tfrt.passes.linalg_generic import lower_generic
    from xdsl.dialects.linalg.ops import GenericOp

    rank = len(t.get_shape())
    body = Block(arg_types=[t.element_type])
    for d, arg in enumerate(list(block.args)):
        index = make_op("linalg.index", [], [IndexType()], {"dim": IntegerAttr(d, i64)}, at=op)
        body.add_op(index)
        replace_all_uses(arg, index.results[0])
    yielded = block.last_op
    for inner in list(block.ops):
        if inner is yielded:
            break
        inner.detach()
        body.add_op(inner)
    body.add_op(make_op("linalg.yield", [yielded.operands[0]], [], at=op))
    init = b.zeros(t)
    identity = AffineMap.identity(rank)
    generic = GenericOp([], [init], Region(body), [AffineMapAttr(identity)], _parallel(rank), [t])
    generic.location = op.location
    b.outs = [init]
    try:
        results = lower_generic(generic, b, [identity], ["parallel"] * rank)
    except DiagnosticError as e:
        raise _renamed(e, op) from None
    finally:
        erase_op(generic, safe_erase=False)
    return results[0]


def _parallel(rank: int):
    from xdsl.dialects.linalg.attrs import IteratorTypeAttr

    return [IteratorTypeAttr.parallel() for _ in range(rank)]


def _renamed(e: DiagnosticError, op: Operation) -> DiagnosticError:
    """An error the generic lowering reports at the generic it was given, as
    the op the program wrote."""
    prefix = "'linalg.generic' op cannot be lowered: "
    message = e.diagnostics[0].message if e.diagnostics else ""
    if message.startswith(prefix):
        return cannot_lower(op, message[len(prefix) :])
    return e


def _fold_in_body(block: Block) -> None:
    """``tensor.dim`` and ``tensor.rank`` of static tensors inside a body become
    index constants (the generic lowering reads constants, not these)."""
    from xdsl.dialects import arith

    for inner in list(block.ops):
        value = None
        if inner.name == "tensor.dim" and isinstance(inner.operands[0].type, TensorType):
            shape = inner.operands[0].type.get_shape()
            i = constant_index(inner.operands[1])
            if i is not None and 0 <= i < len(shape) and shape[i] != DYN:
                value = shape[i]
        elif inner.name == "tensor.rank" and isinstance(inner.operands[0].type, TensorType):
            value = len(inner.operands[0].type.get_shape())
        if value is not None:
            c = arith.ConstantOp(IntegerAttr(value, IndexType()))
            c.location = inner.location
            block.insert_op_before(c, inner)
            replace_all_uses(inner.results[0], c.result)
            erase_op(inner)


def _generate(op, b: _Builder) -> SSAValue:
    t = _result(op, _fixed_shape(op.results[0].type, op.dynamic_extents, op))
    block = op.body.blocks[0]
    _fold_in_body(block)
    return _body_as_generic(op, b, block, t)


def _pad(op, b: _Builder) -> SSAValue:
    src = _static_tensor(op, op.source)
    low = _resolved(_ints(op.static_low), list(op.low))
    high = _resolved(_ints(op.static_high), list(op.high))
    for name, values in (("low", low), ("high", high)):
        for i, v in enumerate(values):
            if not isinstance(v, int):
                raise cannot_lower(
                    op, f"{name} padding #{i} is not a constant; the kernels need static shapes"
                )
            if v < 0:
                raise cannot_lower(op, f"{name} padding #{i} is negative ({v})")
    t = _result(op, [s + lo + hi for s, lo, hi in zip(src.get_shape(), low, high)])  # type: ignore[operator]
    block = op.region.blocks[0]
    yielded = block.last_op.operands[0]
    owner = yielded.owner if isinstance(yielded, OpResult) else None
    inside = owner is not None and owner.parent_block() is block
    if scalar_constant(yielded) is not None and inside and len(owner.operands) == 0:
        owner.detach()
        b.ops.append(owner)
        inside = False
    if not inside and yielded not in block.args:
        check_value_type(op, yielded.type)
        return b.kernel("tfrt_array.pad", [op.source, yielded], t,
                        {"high": i64_array(high), "low": i64_array(low)})  # fmt: skip
    # The value depends on the position: the padding everywhere, computed as
    # tensor.generate computes, then the source inserted (MLIR's lowering).
    _fold_in_body(block)
    filled = _body_as_generic(op, b, block, t)
    n = len(low)
    return _insert_slice_of(op, b, op.source, filled, t, low, list(src.get_shape()), [1] * n)


# ---------------------------------------------------------------- the pass

_LOWER = {
    "tensor.bitcast": _bitcast,
    "tensor.cast": _cast,
    "tensor.collapse_shape": _collapse,
    "tensor.concat": _concat,
    "tensor.dim": _dim,
    "tensor.empty": _empty,
    "tensor.expand_shape": _expand,
    "tensor.extract": _extract,
    "tensor.extract_slice": _extract_slice,
    "tensor.from_elements": _from_elements,
    "tensor.gather": _gather,
    "tensor.generate": _generate,
    "tensor.insert": _insert,
    "tensor.insert_slice": _insert_slice,
    "tensor.pad": _pad,
    "tensor.parallel_insert_slice": _parallel_insert_slice,
    "tensor.rank": _rank,
    "tensor.reshape": _reshape,
    "tensor.scatter": _scatter,
    "tensor.splat": _splat,
}


def _lower(op: Operation) -> None:
    fn = _LOWER.get(op.name)
    if fn is None:
        raise cannot_lower(op, "no kernel implements it")
    b = _Builder(op)
    result = fn(op, b)
    if result is None:  # an unused tensor.empty: linalg `outs` that are never read
        erase_op(op)
        return
    replace(op, b.ops, [result] if op.results else [])


# Ops whose regions the lowering of their parent consumes.
_BODY_OWNERS = ("tensor.generate", "tensor.pad")


@dataclass(frozen=True)
class LowerTensorPass(ModulePass):
    """Lower tensor dialect ops to ``tfrt_array`` kernels (see the module docstring)."""

    name = "lower-tensor"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        todo = []
        for o in walk(op):
            if not o.name.startswith("tensor.") or o.name == "tensor.yield":
                continue
            parent = o.parent_op()
            # A linalg body keeps its tensor.extract (the linalg lowering reads
            # it); a generate or pad body is lowered with its op.
            if parent is not None and (
                parent.name.startswith("linalg.") or _inside(o, _BODY_OWNERS)
            ):
                continue
            todo.append(o)
        for o in todo:
            _lower(o)


def _inside(op: Operation, names: Sequence[str]) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.name in names:
            return True
        parent = parent.parent_op()
    return False


LowerTensorPass.__doc__ = (
    f"{LowerTensorPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
)
