"""``lower-linalg``: linalg on tensors -> ``tfrt_array`` kernels.

* ``matmul``, ``batch_matmul``, ``matvec``, ``vecmat``, ``dot`` ->
  ``tfrt_array.matmul``; convolutions (``conv_2d_nhwc_hwcf``,
  ``conv_2d_nhwc_fhwc``, ``conv_2d_nchw_fchw``, ``depthwise_conv_2d_nhwc_hwc``)
  -> ``tfrt_array.conv2d`` (NCHW through transposes); poolings
  (``pooling_nhwc_max/sum/min``, ``pooling_nchw_max``) -> ``tfrt_array.pool2d``.
  The ``outs`` operand is the accumulator: when the program fills it with the
  operation's identity (zeros for a matmul) it is dropped, otherwise its
  contribution becomes an elementwise op (which ``fuse-linear`` folds into the
  kernel's epilogue).
* ``fill`` -> an elementwise broadcast of the scalar; ``transpose``,
  ``broadcast`` -> views; ``copy`` -> its input (tensors are values);
  ``reduce`` -> ``tfrt_array.reduce`` (+ the initial value).
* ``linalg.generic`` and the elementwise named ops: the body becomes one
  expression; each operand is brought to the iteration space by its indexing
  map (a transpose and a reshape: views).  All-parallel ops become one
  ``tfrt_array.elementwise``; ops with reduction iterators whose body is
  ``out = combine(out, f(inputs))`` become ``f`` over the iteration space,
  then ``tfrt_array.reduce`` over the reduction dimensions, or one
  ``tfrt_array.einsum`` when ``f`` is a product of two inputs and ``combine``
  an addition.
* Anything else — indexing maps that are not projected permutations
  (strided and dilated windows), reductions whose body reads the accumulator
  in other ways (argmax, Welford), several results, ``tensor.extract`` in the
  body — becomes one ``tfrt_array.generic`` (``passes/linalg_generic.py``),
  which runs the body as linalg defines it: a valid op is never refused for
  the shape of its body or maps.

Example::

    %0 = linalg.matmul ins(%x, %w : tensor<1x4xf32>, tensor<4x3xf32>) outs(%z : tensor<1x3xf32>) -> tensor<1x3xf32>
    // with %z = linalg.fill ins(%zero) outs(...), %zero = 0.0, becomes
    %0 = tfrt_array.matmul %x, %w {epilogue = "", shape = [1, 3], ...} : (...) -> tensor<1x3xf32>
"""

from __future__ import annotations

import functools

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, TensorType, i64
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects.fastir import canon, walk
from tfrt.passes.linalg_generic import lower_generic
from tfrt.passes.lowering import (
    EXPR_OPS,
    cannot_lower,
    check_value_type,
    element_name,
    elementwise,
    i1_attr,
    i64_array,
    i64_attr,
    is_zero,
    literal,
    make_op,
    op_expr,
    replace,
    scalar_constant,
    shape_of,
    splat_constant,
    str_attr,
    tensor_type,
)

_MATMULS = {"linalg.matmul", "linalg.batch_matmul", "linalg.matvec", "linalg.vecmat", "linalg.dot"}
_CONVS = {
    "linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nhwc_fhwc", "linalg.conv_2d_nchw_fchw",
    "linalg.depthwise_conv_2d_nhwc_hwc",
}  # fmt: skip
_POOLS = {
    "linalg.pooling_nhwc_max": "max", "linalg.pooling_nhwc_sum": "sum",
    "linalg.pooling_nhwc_min": "min", "linalg.pooling_nchw_max": "max",
}  # fmt: skip

# Combiner op -> (reduce kind, expression combining a0 (init) and a1 (partial), identity test).
_COMBINERS = {
    "arith.addf": "sum", "arith.addi": "sum", "arith.mulf": "prod", "arith.muli": "prod",
    "arith.maximumf": "max", "arith.minimumf": "min", "arith.maxsi": "max", "arith.minsi": "min",
    "arith.maxnumf": "maxnum", "arith.minnumf": "minnum",
    "arith.andi": "and", "arith.ori": "or", "arith.xori": "xor",
}  # fmt: skip
_COMBINE_EXPR = {
    "sum": "(a0 + a1)", "prod": "(a0 * a1)", "max": "maximum(a0, a1)", "min": "minimum(a0, a1)",
    "maxnum": "fmax(a0, a1)", "minnum": "fmin(a0, a1)", "and": "bitand(a0, a1)",
    "or": "bitor(a0, a1)", "xor": "bitxor(a0, a1)",
}  # fmt: skip


def _is_identity(kind: str, attr) -> bool:
    if attr is None:
        return False
    v = attr.value.data
    if kind == "sum" or kind in ("or", "xor"):
        return is_zero(attr) if kind == "sum" else v == 0
    if kind == "prod":
        return v == 1
    if kind in ("max", "maxnum"):
        return v == float("-inf")
    if kind in ("min", "minnum"):
        return v == float("inf")
    return False


def _ints(attr) -> list[int]:
    """Values of a DenseIntElementsAttr / DenseArray / ArrayAttr of ints."""
    if hasattr(attr, "get_values"):
        return [int(v) for v in attr.get_values()]
    if hasattr(attr, "data"):
        return [int(getattr(a, "value", a).data if hasattr(a, "value") else a) for a in attr.data]
    return list(attr)


class _Builder:
    """Collects the new ops for one linalg op, in order; ``ins`` and ``outs``
    are the op's ``inputs`` and ``outputs`` (read once: xDSL's accessors
    decode the segment sizes on every access)."""

    def __init__(self, at: Operation):
        self.at = at
        self.ops: list[Operation] = []
        self.ins, self.outs = _io(at)

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def kernel(self, name: str, operands, result_type, attrs=None) -> SSAValue:
        return self.add(make_op(name, operands, [result_type], attrs or {}, at=self.at))

    def transpose(self, x: SSAValue, perm: Sequence[int]) -> SSAValue:
        if list(perm) == list(range(len(perm))):
            return x
        t = x.type
        shape = [shape_of(t)[p] for p in perm]
        return self.kernel("tfrt_array.transpose", [x], tensor_type(shape, t.element_type),
                           {"perm": i64_array(perm)})  # fmt: skip

    def reshape(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        if list(shape_of(x.type)) == list(shape):
            return x
        return self.kernel("tfrt_array.reshape", [x], tensor_type(shape, x.type.element_type),
                           {"shape": i64_array(shape)})  # fmt: skip

    def elementwise(self, expr: str, operands, result_type) -> SSAValue:
        return self.add(elementwise(expr, operands, result_type, self.at))

    def combine_init(self, kind: str, init: SSAValue, partial: SSAValue, result_type) -> SSAValue:
        """``partial`` combined with the accumulator ``init`` (dropped when it is the
        identity, or a ``tensor.empty`` whose contents are undefined)."""
        if _is_identity(kind, splat_constant(init)) or getattr(getattr(init, "op", None), "name", "") == "tensor.empty":
            return partial
        return self.elementwise(_COMBINE_EXPR[kind], [init, partial], result_type)


def _io(op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
    """``op.inputs`` and ``op.outputs`` (empty for ops without them)."""
    sizes = op.properties.get("operandSegmentSizes")
    if isinstance(sizes, DenseArrayBase) and _inputs_then_outputs(type(op)):
        n_in, n_out = _segment_sizes(sizes)
        operands = op._operands  # noqa: SLF001 - no view object
        return list(operands[:n_in]), list(operands[n_in : n_in + n_out])
    if hasattr(op, "inputs") and hasattr(op, "outputs"):
        return list(op.inputs), list(op.outputs)  # type: ignore[attr-defined]
    return [], []


@functools.cache
def _inputs_then_outputs(cls: type) -> bool:
    defined = getattr(cls, "get_irdl_definition", None)
    return defined is not None and [n for n, _ in defined().operands] == ["inputs", "outputs"]


def _segment_sizes(sizes: DenseArrayBase) -> tuple[int, ...]:
    # Attributes are shared (the parser makes one per set of sizes): decoded
    # once per object.
    found = _SIZES.get(id(sizes))
    if found is None or found[0] is not sizes:
        if len(_SIZES) > 1024:
            _SIZES.clear()
        found = _SIZES[id(sizes)] = (sizes, tuple(sizes.get_values()))
    return found[1]


_SIZES: dict[int, tuple[DenseArrayBase, tuple[int, ...]]] = {}


def _maps(op: Operation) -> list[AffineMap]:
    if op.name == "linalg.generic":
        return [m.data for m in op.indexing_maps.data]  # type: ignore[attr-defined]
    return list(op.get_default_indexing_maps())  # type: ignore[attr-defined]


def _iterators(op: Operation) -> list[str]:
    its = op.iterator_types if op.name == "linalg.generic" else op.get_iterator_types()  # type: ignore[attr-defined]
    found = _ITERATORS.get(id(its))
    if found is None or found[0] is not its:
        if len(_ITERATORS) > 1024:
            _ITERATORS.clear()
        names = [str(it.data.value) if hasattr(it.data, "value") else str(it.data) for it in its.data]
        found = _ITERATORS[id(its)] = (its, names)
    return list(found[1])


# id(iterator_types attribute) -> (the attribute, its iterator names).
_ITERATORS: dict[int, tuple] = {}


def _dims(m: AffineMap, op: Operation) -> list[int]:
    found = _DIMS.get(id(m))
    if found is not None and found[0] is m:
        return list(found[1])
    dims = _dims_of(m, op)
    if len(_DIMS) > 1024:
        _DIMS.clear()
    _DIMS[id(m)] = (m, tuple(dims))
    return dims


# id(map) -> (the map, its result dimensions): maps are shared attributes.
_DIMS: dict[int, tuple] = {}


def _dims_of(m: AffineMap, op: Operation) -> list[int]:
    dims = []
    for e in m.results:
        if not isinstance(e, AffineDimExpr):
            raise cannot_lower(op, f"indexing map {m} is not a projected permutation")
        dims.append(e.position)
    if len(set(dims)) != len(dims):
        raise cannot_lower(op, f"indexing map {m} repeats a dimension")
    return dims


@dataclass
class _Body:
    """A region body as expressions over kernel operands."""

    operands: list[SSAValue]
    exprs: dict[SSAValue, str]


def _body_expr(op: Operation, block: Block, arg_values: dict[SSAValue, str], add_operand,
               index_operand) -> dict[SSAValue, str]:  # fmt: skip
    """Expressions for the values of ``block``'s ops (``arg_values`` gives the
    block arguments' expressions; ``add_operand(v)`` names a captured scalar)."""
    exprs = arg_values

    def ref(v: SSAValue) -> str:
        if v in exprs:
            return exprs[v]
        const = scalar_constant(v)
        if const is not None:
            text = literal(const)
            if text is not None:
                return text
        if isinstance(v.type, TensorType):
            raise cannot_lower(op, "the body uses a tensor defined outside it")
        check_value_type(op, v.type)
        exprs[v] = add_operand(v)
        return exprs[v]

    inner = block.first_op
    while inner is not None:
        if inner.name in ("linalg.yield",):
            inner = inner.next_op
            continue
        if inner.name == "linalg.index":
            exprs[inner.results[0]] = index_operand(inner.properties["dim"].value.data)
        elif inner.name == "arith.constant":
            text = literal(inner.properties["value"])
            if text is None:
                raise cannot_lower(inner, "only scalar constants can be used in a linalg body")
            exprs[inner.results[0]] = text
        elif inner.name not in EXPR_OPS:
            raise cannot_lower(op, f"its body holds '{inner.name}', which has no elementwise kernel")
        else:
            exprs[inner.results[0]] = op_expr(inner, [ref(v) for v in inner._operands])  # noqa: SLF001
        inner = inner.next_op
    return exprs


class _Exprs(dict):
    """Expressions of a body's values; a block argument's is made (its
    operand aligned) on first use."""

    def __init__(self, arg_index: dict, align):
        super().__init__()
        self.arg_index = arg_index
        self.align = align

    def __contains__(self, v):
        return dict.__contains__(self, v) or v in self.arg_index

    def __getitem__(self, v):
        if not dict.__contains__(self, v) and v in self.arg_index:
            return self.align(self.arg_index[v])
        return dict.__getitem__(self, v)


def _lower_structured(op: Operation, b: _Builder) -> list[SSAValue]:
    """linalg.generic and the named ops given by maps and a body: the fast
    patterns below, else the general ``tfrt_array.generic``
    (``passes/linalg_generic.py``), which runs any valid body and maps."""
    try:
        return _lower_patterns(op, b)
    except DiagnosticError:
        del b.ops[:]
        return lower_generic(op, b, _maps(op), _iterators(op))


def _lower_patterns(op: Operation, b: _Builder) -> list[SSAValue]:
    ins, outs = b.ins, b.outs
    for v in (*ins, *outs):
        check_value_type(op, v.type)
    maps = _maps(op)
    iterators = _iterators(op)
    n_dims = len(iterators)
    ranges: list[int | None] = [None] * n_dims
    operand_dims = []
    for v, m in zip((*ins, *outs), maps):
        dims = _dims(m, op)
        operand_dims.append(dims)
        shape = shape_of(v.type) if isinstance(v.type, TensorType) else ()
        for j, d in enumerate(dims):
            if ranges[d] is None:
                ranges[d] = shape[j]
            elif ranges[d] != shape[j]:
                raise cannot_lower(op, f"dimension d{d} is {ranges[d]} for one operand and {shape[j]} for another")
    if any(r is None for r in ranges):
        raise cannot_lower(op, "a loop dimension is used by no operand")
    full = [int(r) for r in ranges]  # type: ignore[arg-type]
    block = op.regions[0].first_block
    assert block is not None
    yield_op = block.last_op
    assert yield_op is not None

    # Kernel operands: each tensor aligned to the iteration space on first use.
    operands: list[SSAValue] = []
    aligned: dict[int, str] = {}

    def align(i: int) -> str:
        if i in aligned:
            return aligned[i]
        v = (*ins, *outs)[i]
        if not isinstance(v.type, TensorType):
            operands.append(v)
        else:
            dims = operand_dims[i]
            perm = sorted(range(len(dims)), key=lambda j: dims[j])
            x = b.transpose(v, perm)
            present = sorted(dims)
            if present == list(range(n_dims - len(present), n_dims)):
                operands.append(x)  # missing leading dimensions broadcast as they are
            else:
                operands.append(b.reshape(x, [full[d] if d in present else 1 for d in range(n_dims)]))
        aligned[i] = f"a{len(operands) - 1}"
        return aligned[i]

    iotas: dict[int, str] = {}

    def index_operand(d: int) -> str:
        if d not in iotas:
            operands.append(b.kernel("tfrt_array.iota", [], tensor_type(full, i64),
                                     {"dim": i64_attr(d), "shape": i64_array(full)}))  # fmt: skip
            iotas[d] = f"a{len(operands) - 1}"
        return iotas[d]

    # Block arguments resolve lazily, so unused operands cost nothing.
    args = list(block.args)
    arg_index = {a: i for i, a in enumerate(args)}

    def add_operand(v: SSAValue) -> str:
        operands.append(v)
        return f"a{len(operands) - 1}"

    # Captured scalars go to the kernel operands too (after the aligned ones
    # used so far; the names are resolved at the end).
    exprs = _body_expr(op, block, _Exprs(arg_index, align), add_operand, index_operand)

    def final(v: SSAValue) -> str:
        return exprs[v] if v in exprs else literal(scalar_constant(v)) or ""

    results: list[SSAValue] = []
    parallel = all(it == "parallel" for it in iterators)
    for o, (out, yielded) in enumerate(zip(outs, yield_op.operands)):
        out_dims = operand_dims[len(ins) + o]
        rtype = op.results[o].type
        if parallel:
            expr = final(yielded)
            res = b.elementwise(expr, operands, tensor_type(full, rtype.element_type))
            # Iteration order -> the output's order.
            results.append(b.transpose(res, out_dims) if out_dims != list(range(n_dims)) else res)
            continue
        results.append(_lower_reduction(op, b, o, yielded, out, out_dims, iterators, full, exprs,
                                        operands, arg_index, args, len(ins), maps))  # fmt: skip
    return results


def _lower_reduction(op, b, o, yielded, out, out_dims, iterators, full, exprs, operands,
                     arg_index, args, n_ins, maps) -> SSAValue:  # fmt: skip
    out_arg = args[n_ins + o]
    if not isinstance(yielded, OpResult) or yielded.op.name not in _COMBINERS:
        raise cannot_lower(op, "a reduction body must yield combine(out, f(inputs)) with combine one of "
                               "addf/addi/mulf/muli/maximumf/minimumf/maxsi/minsi/maxnumf/minnumf/andi/ori/xori")
    comb = yielded.op
    kind = _COMBINERS[comb.name]
    a, c = comb.operands
    if c is out_arg:
        a, c = c, a
    if a is not out_arg or _uses(c, out_arg):
        raise cannot_lower(op, "a reduction body must combine the output argument with a value computed from the inputs")
    par = [d for d, it in enumerate(iterators) if it == "parallel"]
    red = [d for d, it in enumerate(iterators) if it != "parallel"]
    if sorted(out_dims) != par:
        raise cannot_lower(op, "the output's indexing map must use exactly the parallel dimensions")
    rtype = op.results[o].type
    # einsum: f = in_i * in_j (the raw block arguments), combine = add.
    if kind == "sum" and isinstance(c, OpResult) and c.op.name in ("arith.mulf", "arith.muli"):
        x, y = c.op.operands
        if x in arg_index and y in arg_index and arg_index[x] < n_ins and arg_index[y] < n_ins:
            letters = "abcdefghijklmnopqrstuvwxyz"
            ins = b.ins
            spec_in = []
            for v in (x, y):
                dims = _dims(maps[arg_index[v]], op)
                spec_in.append("".join(letters[d] for d in dims))
            spec = f"{','.join(spec_in)}->{''.join(letters[d] for d in out_dims)}"
            partial = b.kernel("tfrt_array.einsum", [ins[arg_index[x]], ins[arg_index[y]]], rtype,
                               {"shape": i64_array(rtype.get_shape()), "spec": str_attr(spec)})  # fmt: skip
            return b.combine_init(kind, out, partial, rtype)
    expr = exprs[c] if c in exprs else None
    if expr is None:
        raise cannot_lower(op, "cannot evaluate the reduction body")
    contrib = b.elementwise(expr, operands, tensor_type(full, rtype.element_type))
    red_shape = [full[d] for d in par]
    reduced = b.kernel("tfrt_array.reduce", [contrib], tensor_type(red_shape, rtype.element_type),
                       {"axes": i64_array(red), "keepdims": i1_attr(False), "kind": str_attr(kind)})  # fmt: skip
    perm = [par.index(d) for d in out_dims]
    reduced = b.transpose(reduced, perm)
    return b.combine_init(kind, out, reduced, rtype)


def _uses(v: SSAValue, target: SSAValue, depth: int = 0) -> bool:
    if v is target:
        return True
    if not isinstance(v, OpResult) or depth > 64:
        return False
    return any(_uses(x, target, depth + 1) for x in v.op.operands)


# ---------------------------------------------------------------------------
# Named ops with kernels of their own


@functools.cache
def _matmul_maps() -> list[AffineMap]:
    """linalg.matmul's default indexing maps."""
    return [
        AffineMap.from_callable(lambda i, _, k: (i, k)),
        AffineMap.from_callable(lambda _, j, k: (k, j)),
        AffineMap.from_callable(lambda i, j, _: (i, j)),
    ]


@functools.cache
def _matmul_maps_number() -> int:
    """``canon`` of the default maps as an ``indexing_maps`` attribute: equal
    maps, equal numbers (the maps are compared without walking them)."""
    from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr

    return canon(ArrayAttr([AffineMapAttr(m) for m in _matmul_maps()]))


def _matmul(op: Operation, b: _Builder) -> SSAValue:
    lhs, rhs = b.ins
    (init,) = b.outs
    if op.name == "linalg.matmul":
        if canon(op.indexing_maps) != _matmul_maps_number():  # type: ignore[attr-defined]
            return None  # type: ignore[return-value]  # the generic path handles it
    rtype = op.results[0].type
    for v in (lhs, rhs, init):
        check_value_type(op, v.type)
    attrs = {
        "epilogue": str_attr(""), "shape": i64_array(shape_of(rtype)),
        "transpose_a": i1_attr(False), "transpose_b": i1_attr(False), "types": str_attr(""),
    }  # fmt: skip
    product = b.kernel("tfrt_array.matmul", [lhs, rhs], tensor_type(shape_of(rtype), rtype.element_type), attrs)
    return b.combine_init("sum", init, product, rtype)


def _conv(op: Operation, b: _Builder) -> SSAValue:
    x, w = b.ins
    (init,) = b.outs
    for v in (x, w, init):
        check_value_type(op, v.type)
    strides = _ints(op.strides)  # type: ignore[attr-defined]
    dilations = _ints(op.dilations)  # type: ignore[attr-defined]
    rtype = op.results[0].type
    out_shape = list(rtype.get_shape())
    groups = 1
    if op.name == "linalg.conv_2d_nchw_fchw":
        x = b.transpose(x, [0, 2, 3, 1])
        w = b.transpose(w, [2, 3, 1, 0])
        n, f, oh, ow = out_shape
        out_shape = [n, oh, ow, f]
    elif op.name == "linalg.conv_2d_nhwc_fhwc":
        w = b.transpose(w, [1, 2, 3, 0])
    elif op.name == "linalg.depthwise_conv_2d_nhwc_hwc":
        kh, kw, c = w.type.get_shape()
        w = b.reshape(w, [kh, kw, 1, c])
        groups = c
    attrs = {
        "dilations": i64_array(dilations), "epilogue": str_attr(""), "groups": i64_attr(groups),
        "padding": i64_array([0, 0, 0, 0]), "shape": i64_array(out_shape),
        "strides": i64_array(strides), "types": str_attr(""),
    }  # fmt: skip
    res = b.kernel("tfrt_array.conv2d", [x, w], tensor_type(out_shape, rtype.element_type), attrs)
    if op.name == "linalg.conv_2d_nchw_fchw":
        res = b.transpose(res, [0, 3, 1, 2])
    return b.combine_init("sum", init, res, rtype)


def _pool(op: Operation, b: _Builder) -> SSAValue:
    x, window = b.ins
    (init,) = b.outs
    for v in (x, init):
        check_value_type(op, v.type)
    kind = _POOLS[op.name]
    rtype = op.results[0].type
    out_shape = list(rtype.get_shape())
    nchw = op.name == "linalg.pooling_nchw_max"
    if nchw:
        x = b.transpose(x, [0, 2, 3, 1])
        n, c, oh, ow = out_shape
        out_shape = [n, oh, ow, c]
    attrs = {
        "dilations": i64_array(_ints(op.dilations)), "kind": str_attr(kind),  # type: ignore[attr-defined]
        "padding": i64_array([0, 0, 0, 0]), "shape": i64_array(out_shape),
        "strides": i64_array(_ints(op.strides)),  # type: ignore[attr-defined]
        "window": i64_array(window.type.get_shape()),
    }  # fmt: skip
    res = b.kernel("tfrt_array.pool2d", [x], tensor_type(out_shape, rtype.element_type), attrs)
    if nchw:
        res = b.transpose(res, [0, 3, 1, 2])
    return b.combine_init(kind, init, res, rtype)


def _reduce(op: Operation, b: _Builder) -> list[SSAValue]:
    n = len(op.results)
    ins, inits = list(op.operands[:-n]), list(op.operands[-n:])
    if len(ins) != 1 or len(inits) != 1:
        raise cannot_lower(op, "only single-input linalg.reduce is supported")
    x, init = ins[0], inits[0]
    check_value_type(op, x.type)
    block = op.regions[0].blocks[0]
    yielded = block.last_op.operands[0]  # type: ignore[union-attr]
    if not isinstance(yielded, OpResult) or yielded.op.name not in _COMBINERS or set(yielded.op.operands) != set(block.args):
        raise cannot_lower(op, "the reduction body must be one combiner op of its two arguments")
    kind = _COMBINERS[yielded.op.name]
    dims = _ints(op.dimensions)  # type: ignore[attr-defined]
    rtype = op.results[0].type
    red = b.kernel("tfrt_array.reduce", [x], tensor_type(rtype.get_shape(), rtype.element_type),
                   {"axes": i64_array(dims), "keepdims": i1_attr(False), "kind": str_attr(kind)})  # fmt: skip
    return [b.combine_init(kind, init, red, rtype)]


def _gather(op: Operation, b: _Builder) -> SSAValue | None:
    """A gather (an embedding lookup) written as a generic, or None::

        out[i..., j...] = table[index_cast(ids[i...]), j...]

    the body being ``arith.index_cast`` of the one input, ``linalg.index`` of
    each trailing dimension in order, ``tensor.extract`` and the yield."""
    if len(b.ins) != 1 or len(b.outs) != 1:
        return None
    (ids,) = b.ins
    block = op.regions[0].blocks[0]
    last = block.last_op
    if last is None or last.name != "linalg.yield" or getattr(last.prev_op, "name", "") != "tensor.extract":
        return None  # not a gather: most generics leave here
    ops = list(block.ops)
    if len(ops) < 3 or ops[-1].name != "linalg.yield" or ops[-2].name != "tensor.extract":
        return None
    extract, cast = ops[-2], ops[0]
    if cast.name != "arith.index_cast" or cast.operands[0] is not block.args[0]:
        return None
    if extract.results[0] is not ops[-1].operands[0] or not isinstance(ids.type, TensorType):
        return None
    table, *indices = extract.operands
    if table.owner is op or getattr(table.owner, "parent_op", lambda: None)() is op:
        return None  # the table must come from outside the body
    k = len(ids.type.get_shape())
    rtype = op.results[0].type
    rank = len(rtype.get_shape())
    maps = _maps(op)
    if maps[0] != AffineMap(rank, 0, tuple(AffineDimExpr(i) for i in range(k))) or maps[1] != AffineMap.identity(rank):
        return None
    index_ops = ops[1:-2]
    if indices[0] is not cast.results[0] or len(indices) - 1 != rank - k or len(index_ops) != rank - k:
        return None
    for j, (v, iop) in enumerate(zip(indices[1:], index_ops)):
        if iop.name != "linalg.index" or v is not iop.results[0] or iop.dim.value.data != k + j:  # type: ignore[attr-defined]
            return None
    if tuple(table.type.get_shape()[1:]) != tuple(rtype.get_shape()[k:]):
        return None
    check_value_type(op, rtype)
    return b.kernel("tfrt_array.gather", [table, ids], rtype, {"axis": i64_attr(0)})


def _lower(op: Operation) -> None:
    b = _Builder(op)
    name = op.name
    results: list[SSAValue]
    if name in _MATMULS:
        r = _matmul(op, b)
        results = [r] if r is not None else _lower_structured(op, b)
    elif name in _CONVS:
        results = [_conv(op, b)]
    elif name in _POOLS:
        results = [_pool(op, b)]
    elif name == "linalg.fill":
        (value,) = b.ins
        (init,) = b.outs
        check_value_type(op, init.type)
        results = [b.elementwise("a0", [value], init.type)]
    elif name == "linalg.transpose":
        (x,) = b.ins
        check_value_type(op, x.type)
        results = [b.transpose(x, _ints(op.permutation))]  # type: ignore[attr-defined]
    elif name == "linalg.broadcast":
        x = op.input  # type: ignore[attr-defined]
        rtype = op.results[0].type
        check_value_type(op, rtype)
        dims = set(_ints(op.dimensions))  # type: ignore[attr-defined]
        out_shape = list(rtype.get_shape())
        source = [1 if d in dims else s for d, s in enumerate(out_shape)]
        results = [b.kernel("tfrt_array.broadcast", [x], rtype,
                            {"shape": i64_array(out_shape), "source_shape": i64_array(source)})]  # fmt: skip
    elif name == "linalg.copy":
        (x,) = b.ins
        results = [x]
    elif name == "linalg.reduce":
        results = _reduce(op, b)
    elif name == "linalg.yield" or name == "linalg.index":
        return
    elif name == "linalg.generic" and (g := _gather(op, b)) is not None:
        results = [g]
    elif op.regions and (
        _inputs_then_outputs(type(op)) or (hasattr(op, "inputs") and hasattr(op, "outputs"))
    ):
        results = _lower_structured(op, b)
    else:
        raise cannot_lower(op, "no kernel implements it")
    if len(op.results) != len(results):
        raise cannot_lower(op, "linalg ops on memrefs (no results) are not supported; use tensors")
    replace(op, b.ops, results)


@dataclass(frozen=True)
class LowerLinalgPass(ModulePass):
    """Lower linalg ops on tensors to ``tfrt_array`` kernels (see the module docstring)."""

    name = "lower-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        todo = []
        for o in walk(op):
            if o.name.startswith("linalg."):
                parent = o.parent_op()
                if parent is not None and not parent.name.startswith("linalg."):
                    todo.append(o)
        for o in todo:
            _lower(o)


LowerLinalgPass.__doc__ = f"{LowerLinalgPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
