"""``lower-linalg``: linalg on tensors -> ``tfrt_array`` kernels.

* Named ops (``dialects/linalg_named.py``; docs/compiler.md, "Named linalg
  ops"), each first cast to its accumulator's type as OpDSL says:
  contractions -> ``tfrt_array.matmul`` (plain, transposed, batched, matvec)
  or ``tfrt_array.einsum`` (vecmat, dot, mmt4d, batch_reduce_matmul,
  contract); every convolution layout (1-D, 2-D, 3-D, grouped, depthwise,
  quantized) -> ``tfrt_array.conv2d`` through transposes, reshapes and depth
  slices; every pooling -> ``tfrt_array.pool2d`` (unsigned max/min by
  flipping the sign bit).  The ``outs`` operand is the accumulator: when the
  program fills it with the operation's identity (zeros for a matmul) it is
  dropped, otherwise its contribution becomes an elementwise op (which
  ``fuse-linear`` folds into the kernel's epilogue).
* ``fill`` and ``copy`` -> an elementwise cast of the scalar or input;
  ``transpose``, ``broadcast`` -> views; ``reduce`` -> ``tfrt_array.reduce``
  (+ the initial value); ``map`` -> one elementwise kernel.
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

import re

import functools

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, TensorType, i64
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects.fastir import walk
from tfrt.dialects.linalg_named import NamedStructuredOp, sync_body
from tfrt.passes.linalg_generic import i1_kind, lower_generic
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
        # A reshape of a reshape reads the first one's source (a view either way).
        while isinstance(x, OpResult) and x.op.name == "tfrt_array.reshape":
            x = x.op.operands[0]
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
            text = op_expr(inner, [ref(v) for v in inner._operands])  # noqa: SLF001
            # One expression repeats a value it uses twice: a body whose values
            # are reused round after round (a hash, a PRNG) grows exponentially.
            # The general kernel names every value once.
            if len(text) > _MAX_EXPR:
                raise cannot_lower(op, "its body is too large for one expression")
            exprs[inner.results[0]] = text
        inner = inner.next_op
    return exprs


_MAX_EXPR = 1 << 16


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
        if v in exprs:
            return exprs[v]
        text = literal(scalar_constant(v))
        if text:
            return text
        # A scalar from outside the body, yielded as it is: a kernel operand.
        if isinstance(v.type, TensorType):
            raise cannot_lower(op, "the body yields a tensor defined outside it")
        check_value_type(op, v.type)
        exprs[v] = add_operand(v)
        return exprs[v]

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
    kind = i1_kind(comb.name, yielded.type) or _COMBINERS[comb.name]
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
            covered: set[int] = set()
            for v in (x, y):
                dims = _dims(maps[arg_index[v]], op)
                covered.update(dims)
                spec_in.append("".join(letters[d] for d in dims))
            spec = f"{','.join(spec_in)}->{''.join(letters[d] for d in out_dims)}"
            # (A loop only another operand indexes is not in the spec: einsum
            # would drop it, and its sum with it; the general path runs it.)
            if covered >= set(par) | set(red):
                operands2 = [ins[arg_index[x]], ins[arg_index[y]]]
                canonical = _canonical_spec([maps[arg_index[x]], maps[arg_index[y]], maps[n_ins + o]])
                found = _matmul_spec(canonical) if canonical is not None else None
                if found is not None and all(v.type.element_type == rtype.element_type for v in operands2):
                    # A matrix product (plain, transposed, batched): BLAS, as the named ops.
                    ta, tb = found
                    attrs = {
                        "epilogue": str_attr(""), "shape": i64_array(rtype.get_shape()),
                        "transpose_a": i1_attr(ta), "transpose_b": i1_attr(tb), "types": str_attr(""),
                    }  # fmt: skip
                    partial = b.kernel("tfrt_array.matmul", operands2, rtype, attrs)
                else:
                    partial = b.kernel("tfrt_array.einsum", operands2, rtype,
                                       {"shape": i64_array(rtype.get_shape()), "spec": str_attr(spec)})  # fmt: skip
                return b.combine_init(kind, out, partial, rtype)
    expr = exprs[c] if c in exprs else None
    if expr is None:
        raise cannot_lower(op, "cannot evaluate the reduction body")
    contrib_t = tensor_type(full, rtype.element_type)
    only = re.fullmatch(r"a(\d+)", expr)
    if only is not None and int(only.group(1)) < len(operands) and operands[int(only.group(1))].type == contrib_t:
        contrib = operands[int(only.group(1))]  # an input itself: no copy
    else:
        contrib = b.elementwise(expr, operands, contrib_t)
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
#
# Each named op computes in its accumulator's element type: the operands are
# cast first, as its body does (``cast_signed``/``cast_unsigned``, see
# tfrt.dialects.linalg_named), and quantized ops subtract their zero points
# after the cast; then one kernel runs in that type.  Contractions become
# ``tfrt_array.matmul`` (plain, transposed and batched products) or
# ``tfrt_array.einsum``; convolutions of any layout, 1-D, 2-D, 3-D,
# grouped and depthwise, become ``tfrt_array.conv2d`` through transposes and
# reshapes (a 1-D one is a 2-D one of height 1, a 3-D one the sum over the
# depth taps of 2-D ones); poolings become ``tfrt_array.pool2d`` the same
# way.  What no pattern takes (a broadcast matmul map, ...) goes to
# _lower_structured.


def _cast_expr(src: str, dst: str, unsigned: bool, x: str = "a0") -> str:
    """``x`` of element type ``src`` cast to ``dst`` as mlir::convertScalarToDtype
    does: extsi/extui, trunci, sitofp/uitofp, fptosi/fptoui, extf/truncf."""
    if src == dst:
        return x
    src_int, dst_int = src[0] == "i", dst[0] == "i"
    if src == "i1" and not unsigned:  # extsi / sitofp: true is -1
        return f"where({x}, cast_{dst}(-1), cast_{dst}(0))"
    widens = src_int and (not dst_int or int(dst[1:]) > int(src[1:]))
    return f"{'ucast' if unsigned and widens else 'cast'}_{dst}({x})"


def _cast_to(b: _Builder, v: SSAValue, elem: Attribute, unsigned: bool) -> SSAValue:
    """Tensor ``v`` with its elements cast to ``elem``."""
    src, dst = element_name(v.type), element_name(elem)
    if src == dst:
        return v
    return b.elementwise(_cast_expr(src, dst, unsigned), [v], tensor_type(shape_of(v.type), elem))


def _shifted(b: _Builder, v: SSAValue, zero_point: SSAValue, elem: Attribute) -> SSAValue:
    """``cast(v) - cast(zero_point)`` in ``elem`` (the quantized ops' operands)."""
    dst = element_name(elem)
    x = _cast_expr(element_name(v.type), dst, False, "a0")
    z = _cast_expr(element_name(zero_point.type), dst, False, "a1")
    return b.elementwise(f"({x} - {z})", [v, zero_point], tensor_type(shape_of(v.type), elem))


def _unsigned(op: Operation) -> bool:
    """The op casts its operands unsigned (its ``cast`` attribute or its name)."""
    attr = op.properties.get("cast")
    if attr is not None:
        return str(getattr(attr.data, "value", attr.data)) == "cast_unsigned"
    return op.name.endswith("_unsigned")


def _operands_in(op: Operation, b: _Builder, elem: Attribute) -> list[SSAValue]:
    """The tensor inputs cast to ``elem``; a ``_q`` or ``quantized_`` op's
    two scalar zero points are subtracted from the two tensors."""
    ins = list(b.ins)
    if len(ins) == 4 and not isinstance(ins[2].type, TensorType):
        x, w, xz, wz = ins
        return [_shifted(b, x, xz, elem), _shifted(b, w, wz, elem)]
    if op.name.startswith("linalg.pooling_"):
        ins = ins[:1]
    unsigned = _unsigned(op)
    return [_cast_to(b, v, elem, unsigned) for v in ins]


_LETTERS = "abcdefghijklmnopqrstuvwxyz"

def _matmul_specs() -> dict[str, tuple[bool, bool]]:
    """einsum spec (see _canonical_spec) -> (transpose_a, transpose_b) of the
    products tfrt_array.matmul computes: plain, transposed, batched, matvec."""
    out = {}
    for batch in (False, True):
        d = [AffineDimExpr(i) for i in range(4 if batch else 3)]
        bt, (m, n, k) = (d[:1], d[1:]) if batch else ([], d)
        for ta in (False, True):
            for tb in (False, True):
                a = (*bt, k, m) if ta else (*bt, m, k)
                w = (*bt, n, k) if tb else (*bt, k, n)
                maps = [AffineMap(len(d), 0, r) for r in (a, w, (*bt, m, n))]
                out[_canonical_spec(maps)] = (ta, tb)
    m, n = AffineDimExpr(0), AffineDimExpr(1)
    out[_canonical_spec([AffineMap(2, 0, (m, n)), AffineMap(2, 0, (n,)), AffineMap(2, 0, (m,))])] = (False, False)
    return out


def _canonical_spec(maps: Sequence[AffineMap]) -> str | None:
    """The einsum spec of a contraction's maps with letters renamed in order of
    appearance, or None when a map is not a projected permutation."""
    rename: dict[int, str] = {}
    parts = []
    for m in maps:
        letters = []
        for e in m.results:
            if not isinstance(e, AffineDimExpr):
                return None
            letters.append(rename.setdefault(e.position, _LETTERS[len(rename)]))
        parts.append("".join(letters))
    return f"{parts[0]},{parts[1]}->{parts[2]}"


@functools.cache
def _matmul_spec_table() -> dict[str, tuple[bool, bool]]:
    return _matmul_specs()


def _matmul_spec(spec: str) -> tuple[bool, bool] | None:
    return _matmul_spec_table().get(spec)


def _contraction(op: Operation, b: _Builder) -> SSAValue | None:
    """matmul, its transposed, batched, vector, tiled and quantized forms, dot, contract."""
    (init,) = b.outs
    for v in (*b.ins, init):
        check_value_type(op, v.type)
    maps = _maps(op)
    spec = _canonical_spec([maps[0], maps[1], maps[-1]])
    if spec is None:
        return None
    ins_part, out = spec.split("->")
    if any(c not in ins_part for c in out) or any(len(set(p)) != len(p) for p in (*ins_part.split(","), out)):
        return None  # a dimension only the output has (a broadcast operand), or a diagonal
    rtype = op.results[0].type
    x, w = _operands_in(op, b, rtype.element_type)
    shape = shape_of(rtype)
    found = _matmul_spec(spec)
    if found is not None:
        ta, tb = found
        attrs = {
            "epilogue": str_attr(""), "shape": i64_array(shape), "transpose_a": i1_attr(ta),
            "transpose_b": i1_attr(tb), "types": str_attr(""),
        }  # fmt: skip
        product = b.kernel("tfrt_array.matmul", [x, w], tensor_type(shape, rtype.element_type), attrs)
    else:
        product = b.kernel("tfrt_array.einsum", [x, w], tensor_type(shape, rtype.element_type),
                           {"shape": i64_array(shape), "spec": str_attr(spec)})  # fmt: skip
    return b.combine_init("sum", init, product, rtype)


# Convolution layouts, by the letters of their operands' axes: N batch, C
# input channels, F output channels (per group), G groups, M depthwise
# multiplier, D/H/W the input's and output's spatial axes, d/h/w the
# filter's.  "depthwise": each input channel has its own filters.
_CONV_LAYOUTS = {
    "conv_1d": ("W", "w", "W"), "conv_2d": ("HW", "hw", "HW"), "conv_3d": ("DHW", "dhw", "DHW"),
    "conv_1d_nwc_wcf": ("NWC", "wCF", "NWF"), "conv_1d_ncw_fcw": ("NCW", "FCw", "NFW"),
    "conv_2d_nhwc_hwcf": ("NHWC", "hwCF", "NHWF"), "conv_2d_nhwc_fhwc": ("NHWC", "FhwC", "NHWF"),
    "conv_2d_nchw_fchw": ("NCHW", "FChw", "NFHW"), "conv_2d_ngchw_fgchw": ("NGCHW", "FGChw", "NGFHW"),
    "conv_2d_ngchw_gfchw": ("NGCHW", "GFChw", "NGFHW"), "conv_2d_nhwgc_gfhwc": ("NHWGC", "GFhwC", "NHWGF"),
    "conv_3d_ndhwc_dhwcf": ("NDHWC", "dhwCF", "NDHWF"), "conv_3d_ncdhw_fcdhw": ("NCDHW", "FCdhw", "NFDHW"),
    "depthwise_conv_1d_nwc_wc": ("NWC", "wC", "NWC"), "depthwise_conv_1d_ncw_cw": ("NCW", "Cw", "NCW"),
    "depthwise_conv_1d_nwc_wcm": ("NWC", "wCM", "NWCM"), "depthwise_conv_2d_nhwc_hwc": ("NHWC", "hwC", "NHWC"),
    "depthwise_conv_2d_nchw_chw": ("NCHW", "Chw", "NCHW"), "depthwise_conv_2d_nhwc_hwcm": ("NHWC", "hwCM", "NHWCM"),
    "depthwise_conv_3d_ndhwc_dhwc": ("NDHWC", "dhwC", "NDHWC"), "depthwise_conv_3d_ncdhw_cdhw": ("NCDHW", "Cdhw", "NCDHW"),
    "depthwise_conv_3d_ndhwc_dhwcm": ("NDHWC", "dhwCM", "NDHWCM"),
}  # fmt: skip
_POOL_LAYOUTS = {"nhwc": "NHWC", "nchw": "NCHW", "nwc": "NWC", "ncw": "NCW", "ndhwc": "NDHWC"}


def _conv_layout(name: str) -> tuple[str, str, str] | None:
    base = name[len("linalg."):]
    return _CONV_LAYOUTS.get(base.removesuffix("_q"))


def _to_layout(b: _Builder, v: SSAValue, have: str, want: str) -> SSAValue:
    """``v`` with axes ``have`` transposed to the order of ``want`` (letters of
    ``want`` it lacks are size-1 axes, inserted by a reshape)."""
    present = [c for c in want if c in have]
    x = b.transpose(v, [have.index(c) for c in present])
    sizes = dict(zip(present, shape_of(x.type)))
    return b.reshape(x, [sizes.get(c, 1) for c in want])


def _merge(b: _Builder, v: SSAValue, groups: Sequence[int]) -> SSAValue:
    """Reshape ``v`` merging consecutive axes: ``groups`` counts the axes of each new one."""
    shape = shape_of(v.type)
    out, i = [], 0
    for n in groups:
        size = 1
        for d in shape[i : i + n]:
            size *= d
        out.append(size)
        i += n
    return b.reshape(v, out)


def _conv(op: Operation, b: _Builder) -> SSAValue | None:
    layout = _conv_layout(op.name)
    if layout is None:
        return None
    (init,) = b.outs
    for v in (*b.ins, init):
        check_value_type(op, v.type)
    xl, wl, ol = layout
    rtype = op.results[0].type
    elem = rtype.element_type
    x, w = _operands_in(op, b, elem)
    spatial = "".join(c for c in "DHW" if c in xl)
    kspatial = spatial.lower()
    depthwise = "M" in wl or "F" not in wl and "C" in wl
    grouped = "G" in xl
    # Canonical: x (N, spatial..., [G,] C), w (spatial..., C, [G,] F) or, depthwise,
    # (spatial..., C, M); the output (N, spatial..., [G,] F) or (N, spatial..., C, M).
    xc = "N" + spatial + ("GC" if grouped else "C")
    x = _to_layout(b, x, xl, xc)
    if depthwise:
        wc = kspatial + "CM"
        oc = "N" + spatial + "CM"
    else:
        wc = kspatial + ("CGF" if grouped else "CF")
        oc = "N" + spatial + ("GF" if grouped else "F")
    w = _to_layout(b, w, wl, wc)
    r = len(spatial)
    xs, ws = shape_of(x.type), shape_of(w.type)
    if grouped:
        x = _merge(b, x, [1] * (r + 1) + [2])
        w = _merge(b, w, [1] * (r + 1) + [2])
        groups = xs[-2]
    elif depthwise:
        # Each input channel is a group of one channel with M filters.
        w = b.reshape(w, [*ws[:r], 1, ws[-2] * ws[-1]])
        groups = ws[-2]
    else:
        groups = 1
    strides, dilations = (list(v) for v in op.window_values()) if r and _has_window(op) else ([1] * r, [1] * r)
    out_c = _out_shape(rtype, ol, oc)
    res = _conv_nd(b, x, w, groups, strides, dilations, out_c, r, elem)
    res = b.reshape(res, out_c)
    res = _to_layout(b, res, oc, ol) if set(oc) == set(ol) else _from_canonical(b, res, oc, ol)
    return b.combine_init("sum", init, res, rtype)


def _has_window(op: Operation) -> bool:
    return hasattr(op, "window_values") and getattr(op, "SPEC", None) is not None and op.SPEC.window > 0  # type: ignore[attr-defined]


def _out_shape(rtype, ol: str, oc: str) -> list[int]:
    """The canonical output shape: the sizes of ``oc``'s axes in ``rtype`` (1 where absent)."""
    sizes = dict(zip(ol, shape_of(rtype)))
    return [sizes.get(c, 1) for c in oc]


def _from_canonical(b: _Builder, v: SSAValue, oc: str, ol: str) -> SSAValue:
    """Drop the size-1 canonical axes the op's output lacks, then transpose."""
    kept = "".join(c for c in oc if c in ol)
    x = b.reshape(v, [d for d, c in zip(shape_of(v.type), oc) if c in ol])
    return b.transpose(x, [kept.index(c) for c in ol])


def _conv_nd(b: _Builder, x, w, groups, strides, dilations, out_c, r, elem) -> SSAValue:
    """The canonical convolution of rank ``r`` through 2-D ones; returns (N, O..., F)."""
    n = out_c[0]
    f = shape_of(w.type)[-1]
    if r == 1:
        x = b.reshape(x, [shape_of(x.type)[0], 1, *shape_of(x.type)[1:]])
        w = b.reshape(w, [1, *shape_of(w.type)])
        return _conv2d(b, x, w, groups, [1, strides[0]], [1, dilations[0]], [n, 1, out_c[1], f], elem)
    if r == 2:
        return _conv2d(b, x, w, groups, strides, dilations, [n, out_c[1], out_c[2], f], elem)
    # 3-D: the sum over the depth taps of 2-D convolutions of strided depth slices.
    xs, ws = shape_of(x.type), shape_of(w.type)
    od, oh, ow = out_c[1], out_c[2], out_c[3]
    total = None
    for kd in range(ws[0]):
        sl = b.kernel("tfrt_array.extract_slice", [x], tensor_type([n, od, *xs[2:]], elem),
                      {"offsets": i64_array([0, kd * dilations[0], 0, 0, 0]), "shape": i64_array([n, od, *xs[2:]]),
                       "sizes": i64_array([n, od, *xs[2:]]), "strides": i64_array([1, strides[0], 1, 1, 1])})  # fmt: skip
        sl = b.reshape(sl, [n * od, *xs[2:]])
        tap = b.kernel("tfrt_array.extract_slice", [w], tensor_type(ws[1:], elem),
                       {"offsets": i64_array([kd, 0, 0, 0, 0]), "shape": i64_array(ws[1:]),
                        "sizes": i64_array([1, *ws[1:]]), "strides": i64_array([1] * 5)})  # fmt: skip
        part = _conv2d(b, sl, tap, groups, strides[1:], dilations[1:], [n * od, oh, ow, f], elem)
        total = part if total is None else b.elementwise("(a0 + a1)", [total, part], part.type)
    assert total is not None
    return b.reshape(total, [n, od, oh, ow, f])


def _conv2d(b: _Builder, x, w, groups, strides, dilations, out_shape, elem) -> SSAValue:
    attrs = {
        "dilations": i64_array(dilations), "epilogue": str_attr(""), "groups": i64_attr(groups),
        "padding": i64_array([0, 0, 0, 0]), "shape": i64_array(out_shape),
        "strides": i64_array(strides), "types": str_attr(""),
    }  # fmt: skip
    return b.kernel("tfrt_array.conv2d", [x, w], tensor_type(out_shape, elem), attrs)


def _signed_order(elem: Attribute) -> str | None:
    """For an integer type: the constant whose xor maps unsigned order onto
    signed order (the sign bit), as an expression; None for floats."""
    name = element_name(elem)
    if name[0] != "i" or name == "i1":
        return None
    return f"cast_{name}({-(1 << (int(name[1:]) - 1))})"


def _pool(op: Operation, b: _Builder) -> SSAValue | None:
    """pooling_{nhwc,nchw,nwc,ncw,ndhwc}_{sum,max,min}[_unsigned]."""
    parts = op.name[len("linalg.pooling_"):].split("_", 1)
    layout = _POOL_LAYOUTS.get(parts[0])
    if layout is None or len(parts) != 2:
        return None
    kind, unsigned = parts[1].removesuffix("_unsigned"), parts[1].endswith("_unsigned")
    (init,) = b.outs
    for v in (b.ins[0], init):
        check_value_type(op, v.type)
    rtype = op.results[0].type
    elem = rtype.element_type
    (x,) = _operands_in(op, b, elem)
    flip = _signed_order(elem) if unsigned and kind != "sum" else None
    if flip is not None:  # unsigned max/min: the same order after flipping the sign bit
        x = b.elementwise(f"bitxor(a0, {flip})", [x], x.type)
    spatial = "".join(c for c in "DHW" if c in layout)
    canonical = "N" + spatial + "C"
    x = _to_layout(b, x, layout, canonical)
    window = list(shape_of(b.ins[1].type))
    strides, dilations = (list(v) for v in op.window_values())  # type: ignore[attr-defined]
    out_c = _out_shape(rtype, layout, canonical)
    n, c = out_c[0], out_c[-1]
    r = len(spatial)
    if r == 1:
        x = b.reshape(x, [shape_of(x.type)[0], 1, *shape_of(x.type)[1:]])
        res = _pool2d(b, x, kind, [1, *window], [1, *strides], [1, *dilations], [n, 1, out_c[1], c], elem)
    elif r == 2:
        res = _pool2d(b, x, kind, window, strides, dilations, out_c, elem)
    else:
        xs = shape_of(x.type)
        od = out_c[1]
        res = None
        for kd in range(window[0]):
            sl = b.kernel("tfrt_array.extract_slice", [x], tensor_type([n, od, *xs[2:]], elem),
                          {"offsets": i64_array([0, kd * dilations[0], 0, 0, 0]),
                           "shape": i64_array([n, od, *xs[2:]]), "sizes": i64_array([n, od, *xs[2:]]),
                           "strides": i64_array([1, strides[0], 1, 1, 1])})  # fmt: skip
            sl = b.reshape(sl, [n * od, *xs[2:]])
            part = _pool2d(b, sl, kind, window[1:], strides[1:], dilations[1:], [n * od, *out_c[2:4], c], elem)
            res = part if res is None else b.elementwise(_COMBINE_EXPR[kind], [res, part], part.type)
        assert res is not None
    res = b.reshape(res, out_c)
    res = b.transpose(res, [canonical.index(a) for a in layout])
    if flip is not None:
        res = b.elementwise(f"bitxor(a0, {flip})", [res], res.type)
        if _is_identity("sum" if kind == "max" else "", splat_constant(init)) or _is_empty(init):
            return res  # 0 is the identity of an unsigned max
        return b.elementwise(f"u{kind}(a0, a1)", [init, res], rtype)
    return b.combine_init(kind, init, res, rtype)


def _is_empty(v: SSAValue) -> bool:
    return getattr(getattr(v, "op", None), "name", "") == "tensor.empty"


def _pool2d(b: _Builder, x, kind, window, strides, dilations, out_shape, elem) -> SSAValue:
    attrs = {
        "dilations": i64_array(dilations), "kind": str_attr(kind), "padding": i64_array([0, 0, 0, 0]),
        "shape": i64_array(out_shape), "strides": i64_array(strides), "window": i64_array(window),
    }  # fmt: skip
    return b.kernel("tfrt_array.pool2d", [x], tensor_type(out_shape, elem), attrs)


_UNSIGNED_COMBINERS = {"arith.maxui": "max", "arith.minui": "min"}


def _reduce(op: Operation, b: _Builder) -> list[SSAValue]:
    """linalg.reduce of one input whose body is ``combine(init, f(in))``:
    ``f`` as an elementwise kernel, then ``tfrt_array.reduce``."""
    n = len(op.results)
    ins, inits = list(op.operands[:-n]), list(op.operands[-n:])
    if len(ins) != 1 or len(inits) != 1:
        raise cannot_lower(op, "only single-input linalg.reduce is supported")
    x, init = ins[0], inits[0]
    check_value_type(op, x.type)
    block = op.regions[0].blocks[0]
    in_arg, out_arg = block.args
    yielded = block.last_op.operands[0]  # type: ignore[union-attr]
    comb = yielded.op if isinstance(yielded, OpResult) else None
    name = getattr(comb, "name", "")
    if name not in _COMBINERS and name not in _UNSIGNED_COMBINERS:
        raise cannot_lower(op, "the reduction body must combine the accumulator with one of "
                               "addf/addi/mulf/muli/maximumf/minimumf/maxsi/minsi/maxui/minui/maxnumf/minnumf/andi/ori/xori")  # fmt: skip
    a, c = comb.operands  # type: ignore[union-attr]
    if c is out_arg:
        a, c = c, a
    if a is not out_arg or _uses(c, out_arg):
        raise cannot_lower(op, "the reduction body must combine the accumulator with a value computed from the input")
    rtype = op.results[0].type
    elem = rtype.element_type
    if c is not in_arg:  # f(in): one elementwise kernel over the input (and captured scalars)
        operands = [x]

        def capture(v: SSAValue) -> str:
            operands.append(v)
            return f"a{len(operands) - 1}"

        # The combiner is translated too; the accumulator's name is never used.
        exprs = _body_expr(op, block, {in_arg: "a0", out_arg: "ACC"}, capture, _no_index(op))
        x = b.elementwise(exprs[c], operands, tensor_type(shape_of(x.type), elem))
    dims = _ints(op.dimensions)  # type: ignore[attr-defined]
    unsigned = name in _UNSIGNED_COMBINERS and i1_kind(name, elem) is None
    kind = i1_kind(name, elem) or (_UNSIGNED_COMBINERS[name] if unsigned else _COMBINERS[name])
    flip = _signed_order(elem) if unsigned else None
    if flip is not None:
        x = b.elementwise(f"bitxor(a0, {flip})", [x], x.type)
    red = b.kernel("tfrt_array.reduce", [x], tensor_type(rtype.get_shape(), elem),
                   {"axes": i64_array(dims), "keepdims": i1_attr(False), "kind": str_attr(kind)})  # fmt: skip
    if flip is None:
        return [b.combine_init(kind, init, red, rtype)]
    red = b.elementwise(f"bitxor(a0, {flip})", [red], red.type)
    if _is_empty(init) or (kind == "max" and _is_identity("sum", splat_constant(init))):
        return [red]
    return [b.elementwise(f"u{kind}(a0, a1)", [init, red], rtype)]


def _no_index(op: Operation):
    def index(d: int) -> str:
        raise cannot_lower(op, f"'{op.name}' has no loop indices")

    return index


def _copy(op: Operation, b: _Builder) -> SSAValue:
    """linalg.copy: its input, cast to the output's element type."""
    (x,) = b.ins
    (out,) = b.outs
    check_value_type(op, x.type)
    return _cast_to(b, x, out.type.element_type, _unsigned(op))  # type: ignore[attr-defined]


def _fill(op: Operation, b: _Builder) -> SSAValue:
    """linalg.fill: the scalar, cast_signed to the output's element type, everywhere."""
    (value,) = b.ins
    (init,) = b.outs
    check_value_type(op, init.type)
    expr = _cast_expr(element_name(value.type), element_name(init.type), False)
    return b.elementwise(expr, [value], init.type)


def _map(op: Operation, b: _Builder) -> SSAValue:
    """linalg.map: its body as one elementwise kernel over the inputs (and the
    scalars it captures)."""
    ins = list(op.inputs)  # type: ignore[attr-defined]
    init = op.init  # type: ignore[attr-defined]
    for v in (*ins, init):
        check_value_type(op, v.type)
    block = op.regions[0].blocks[0]
    operands = list(ins)

    def capture(v: SSAValue) -> str:
        operands.append(v)
        return f"a{len(operands) - 1}"

    exprs = _body_expr(op, block, {a: f"a{i}" for i, a in enumerate(block.args)}, capture, _no_index(op))
    yielded = block.last_op.operands[0]  # type: ignore[union-attr]
    expr = exprs[yielded] if yielded in exprs else literal(scalar_constant(yielded)) or ""
    if not expr:
        raise cannot_lower(op, "cannot evaluate the body")
    return b.elementwise(expr, operands, init.type)


def _named_fast(op: Operation, b: _Builder) -> SSAValue | None:
    """A named op's kernel pattern (None: the op goes to _lower_structured)."""
    name = op.name
    base = name[len("linalg."):]
    if base in _CONTRACTIONS:
        return _contraction(op, b)
    if base.startswith("pooling_"):
        return _pool(op, b)
    if "conv" in base:
        return _conv(op, b)
    return None


_CONTRACTIONS = frozenset({
    "matmul", "matmul_transpose_a", "matmul_transpose_b", "matmul_unsigned", "quantized_matmul", "mmt4d",
    "batch_mmt4d", "batch_matmul", "batch_matmul_transpose_a", "batch_matmul_transpose_b",
    "quantized_batch_matmul", "batch_reduce_matmul", "matvec", "vecmat", "batch_matvec", "batch_vecmat", "dot",
    "contract",
})  # fmt: skip


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
    if isinstance(op, NamedStructuredOp):
        sync_body(op)  # a body that depends on attributes the parser did not pass on
    if name == "linalg.fill":
        results = [_fill(op, b)]
    elif name == "linalg.copy":
        results = [_copy(op, b)]
    elif isinstance(op, NamedStructuredOp) and (r := _named_fast(op, b)) is not None:
        results = [r]
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
    elif name == "linalg.reduce":
        results = _reduce(op, b)
    elif name == "linalg.map":
        results = [_map(op, b)]
    elif name == "linalg.yield" or name == "linalg.index":
        return
    elif name == "linalg.generic" and (g := _gather(op, b)) is not None:
        results = [g]
    elif op.regions and (
        _inputs_then_outputs(type(op)) or (hasattr(op, "inputs") and hasattr(op, "outputs"))
    ):
        del b.ops[:]  # what a fast path began before it declined
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
