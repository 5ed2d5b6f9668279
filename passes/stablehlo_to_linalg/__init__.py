"""``stablehlo-legalize-to-linalg``: StableHLO and CHLO -> linalg, tensor, arith, math, scf.

The input JAX, TensorFlow and PyTorch/XLA export (docs/stablehlo.md) becomes
the ops the rest of the lowering knows, in the manner of StableHLO's own
StablehloToLinalg conversion:

* element-wise ops (and ``compare``, ``select``, ``clamp``, ``convert``,
  CHLO's ``broadcast_*`` and unary functions): a ``linalg.generic`` whose
  body is the ``arith``/``math`` op on one element (:mod:`.scalar`);
* ``broadcast_in_dim``, ``broadcast``, ``reverse``, ``iota``: a
  ``linalg.generic`` whose indexing maps broadcast or reverse;
* ``reshape``, ``transpose``, ``concatenate``, ``slice``, ``pad`` (negative
  and interior too), ``dynamic_slice``, ``dynamic_update_slice`` (start
  indices clamped as the specification says): ``tensor`` ops and
  ``linalg.transpose``/``linalg.fill``;
* ``dot``, ``dot_general`` (any batch and contracting dimensions): a
  ``linalg.generic`` contraction, the product computed in the result type;
* ``reduce`` (any body, several operands): a ``linalg.generic`` reduction
  whose body is the reducer on scalars;
* ``while``, ``if``, ``case``: ``scf.while``, ``scf.if``, ``scf.index_switch``;
* the ops in :mod:`.windows`, :mod:`.gather_scatter` and :mod:`.misc`
  (convolution, reduce_window, select_and_scatter, gather, scatter, sort,
  rng_bit_generator, cholesky, triangular_solve, fft, ...) where present.

Integer element types become signless throughout (function signatures
too); ``ui*`` operands pick the unsigned ``arith`` ops.  An op the
conversion does not take — ``custom_call`` (named by its target; JAX's
``shape_assertion`` checks are dropped, shapes being static here),
collectives, dynamic shapes — is an error at the op's location.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tfrt.diagnostics import DiagnosticError
from tfrt.passes.lowering import replace

from .common import Emitter, attr, cannot_lower, quantized, signless
from .scalar import ELEMENTWISE, scalar_op
from . import structural as S

Converter = Callable[[Operation, Emitter], list[SSAValue]]

CONVERSIONS: dict[str, Converter] = {
    "stablehlo.constant": S.convert_constant,
    "stablehlo.iota": S.convert_iota,
    "stablehlo.broadcast_in_dim": S.convert_broadcast_in_dim,
    "stablehlo.broadcast": S.convert_broadcast,
    "stablehlo.reshape": S.convert_reshape,
    "stablehlo.transpose": S.convert_transpose,
    "stablehlo.concatenate": S.convert_concatenate,
    "stablehlo.slice": S.convert_slice,
    "stablehlo.dynamic_slice": S.convert_dynamic_slice,
    "stablehlo.dynamic_update_slice": S.convert_dynamic_update_slice,
    "stablehlo.pad": S.convert_pad,
    "stablehlo.reverse": S.convert_reverse,
    "stablehlo.dot_general": S.convert_dot_general,
    "stablehlo.dot": S.convert_dot,
    "stablehlo.reduce": S.convert_reduce,
    "stablehlo.while": S.convert_while,
    "stablehlo.if": S.convert_if,
    "stablehlo.case": S.convert_case,
}
for _name in ELEMENTWISE:
    CONVERSIONS.setdefault(_name, S.convert_elementwise)

# Ops whose region is a body on scalars: their inner ops are read, not converted.
SCALAR_BODIES = {"stablehlo.reduce", "stablehlo.reduce_window", "stablehlo.scatter",
                 "stablehlo.select_and_scatter", "stablehlo.sort", "stablehlo.map"}  # fmt: skip

# Modules that add conversions (each defines CONVERSIONS: name -> function).
EXTENSIONS = ("windows", "gather_scatter", "misc", "quant")


def _load_extensions() -> None:
    for mod in EXTENSIONS:
        try:
            m = importlib.import_module(f"{__name__}.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{mod}":
                raise
            continue
        CONVERSIONS.update(getattr(m, "CONVERSIONS", {}))


_load_extensions()


def _identity(op: Operation, e: Emitter) -> list[SSAValue]:
    return list(op.operands)


CONVERSIONS["stablehlo.optimization_barrier"] = _identity


def _chlo_broadcast(op: Operation, e: Emitter) -> list[SSAValue]:
    """CHLO's implicitly broadcasting binary ops: numpy's rule (trailing
    dimensions aligned) or ``broadcast_dimensions``; then the StableHLO op."""
    from xdsl.ir.affine import AffineConstantExpr, AffineMap

    from .common import d, int_list, shape, static_type

    out_t = static_type(op, op.results[0].type)
    out_t = TensorType(signless(out_t.element_type), out_t.get_shape())
    out_shape = out_t.get_shape()
    rank = len(out_shape)
    dims = int_list(op, "broadcast_dimensions")
    maps = []
    shapes = [shape(static_type(op, o.type)) for o in op.operands]
    max_rank = max(len(s) for s in shapes)
    for s in shapes:
        if dims is not None and len(s) < max_rank:
            placed = list(dims)
        else:
            placed = list(range(rank - len(s), rank))
        exprs = [AffineConstantExpr(0) if (n == 1 and out_shape[p] != 1) else d(p) for n, p in zip(s, placed)]
        maps.append(AffineMap(rank, 0, tuple(exprs)))
    base = "stablehlo." + op.name.removeprefix("chlo.broadcast_")
    return [e.map(list(op.operands), out_t, lambda inner, args: scalar_op(inner, op, args, base), maps)]


def _refuse_quantized(op: Operation) -> None:
    """Only quantize, dequantize and ops that move stored elements take
    quantized values; anything else would compute on the stored integers."""
    from .common import quantized
    from .quant import MOVES_ONLY, QUANT_OPS

    if op.name in QUANT_OPS or op.name in MOVES_ONLY:
        return
    for v in (*op.operands, *op.results):
        if quantized(v.type) is not None:
            raise cannot_lower(op, f"quantized operands or results ('{v.type}') are supported by "
                                   "uniform_quantize, uniform_dequantize and ops that only move elements")


def _convert(op: Operation) -> None:
    name = op.name
    if name == "stablehlo.custom_call":
        target = attr(op, "call_target_name")
        target = getattr(target, "data", target)
        if target == "shape_assertion" and not op.results:
            # JAX's check of a shape-polymorphic program's dimensions: shapes
            # here are static, fixed when it was exported (JAX lets a platform
            # drop these, as IREE does).
            replace(op, [], [])
            return
        raise cannot_lower(op, f"custom_call target '{target}' is not supported")
    _refuse_quantized(op)
    fn = CONVERSIONS.get(name)
    if fn is None and name.startswith("chlo.broadcast_"):
        fn = _chlo_broadcast
    if fn is None:
        raise cannot_lower(op, "no conversion to linalg for this op")
    e = Emitter(op)
    try:
        results = fn(op, e)
    except DiagnosticError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure is reported at the op
        raise cannot_lower(op, _why(op, exc)) from exc
    _keep_original_types(op, results)
    replace(op, e.ops, results)


def _why(op: Operation, exc: Exception) -> str:
    from .common import is_complex

    values = (*op.operands, *op.results)
    if any(isinstance(v.type, TensorType) and is_complex(v.type) for v in values):
        return "complex numbers are not supported by this conversion"
    detail = str(exc).strip().splitlines()
    return f"the conversion failed ({type(exc).__name__}{': ' + detail[0] if detail else ''})"


def _keep_original_types(op: Operation, results: list[SSAValue]) -> None:
    """A result that is the signless form of ``op``'s unsigned result takes the
    unsigned type back until the end of the pass: the ops that read it convert
    later and pick signed or unsigned ``arith`` ops from their operands' types
    (``_signless_everywhere`` makes every type signless at the end)."""
    for new, old in zip(results, op.results):
        orig = old.type
        if new.type != orig and signless(orig) == new.type:
            new._type = orig  # noqa: SLF001 - retyping in place, as _retype_all does


def _collect(block: Block, out: list[Operation]) -> None:
    for op in block.ops:
        dialect = op.name.split(".", 1)[0]
        ours = dialect in ("stablehlo", "chlo")
        if not (ours and op.name in SCALAR_BODIES):
            for region in op.regions:
                for b in region.blocks:
                    _collect(b, out)
        if ours and op.name != "stablehlo.return":
            out.append(op)


def _public_signatures(module: ModuleOp) -> list[tuple[Operation, FunctionType]]:
    """Public functions and their types, before the types become signless."""
    out = []
    for op in module.walk():
        if op.name != "func.func":
            continue
        vis = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
        ft = op.properties.get("function_type")
        if getattr(vis, "data", None) == "private" or not isinstance(ft, FunctionType):
            continue
        ins = [_boundary(t) for t in ft.inputs.data]
        outs = [_boundary(t) for t in ft.outputs.data]
        if any(signless(t) != t for t in (*ins, *outs)):
            out.append((op, FunctionType.from_lists(ins, outs)))
    return out


def _boundary(t: Attribute) -> Attribute:
    """The type a public function's argument or result has outside: quantized
    values cross as their storage integers (``u8`` storage as ``ui8``)."""
    from xdsl.dialects.builtin import IntegerType, Signedness

    q = quantized(t)
    if q is None or not isinstance(t, TensorType):
        return t
    sign = Signedness.SIGNLESS if q.is_signed else Signedness.UNSIGNED
    return TensorType(IntegerType(q.storage.width.data, sign), t.get_shape())


def _keep_signature(func: Operation, ft: FunctionType) -> None:
    """``func`` takes and returns its original (unsigned) types again: a
    ``tensor.bitcast`` to the signless type at entry and back before each return."""
    from tfrt.dialects.fastir import insert_op_before, replace_all_uses
    from tfrt.dialects.tensor import BitcastOp

    block = func.regions[0].blocks.first
    if block is None:
        return
    first = block.first_op
    for arg, orig in zip(block.args, ft.inputs.data):
        if arg.type == orig or not isinstance(orig, TensorType):
            continue
        inner_t = arg.type
        arg._type = orig  # noqa: SLF001 - retyping in place
        cast = BitcastOp.build(operands=[arg], result_types=[inner_t])
        cast.location = func.location
        replace_all_uses(arg, cast.results[0])
        cast.operands = [arg]  # the cast itself reads the argument
        insert_op_before(cast, first)
    for ret in [o for o in func.walk() if o.name == "func.return" and o.parent_op() is func]:
        operands = list(ret.operands)
        changed = False
        for i, (v, orig) in enumerate(zip(operands, ft.outputs.data)):
            if v.type != orig and isinstance(orig, TensorType):
                cast = BitcastOp.build(operands=[v], result_types=[orig])
                cast.location = ret.location
                insert_op_before(cast, ret)
                operands[i] = cast.results[0]
                changed = True
        if changed:
            ret.operands = operands
    func.properties["function_type"] = ft


def _signless_everywhere(module: ModuleOp) -> None:
    """Integer element types signless: values, block arguments, function types, constants.
    Public functions keep their signatures (unsigned results come back unsigned)."""
    public = _public_signatures(module)
    _retype_all(module)
    for func, ft in public:
        _keep_signature(func, ft)


def _retype_all(module: ModuleOp) -> None:
    from tfrt.dialects.fastir import walk

    for op in walk(module):
        for r in op.results:
            t = signless(r.type)
            if t is not r.type:
                r._type = t  # noqa: SLF001 - retyping in place
        for region in op.regions:
            for b in region.blocks:
                for a in b.args:
                    t = signless(a.type)
                    if t is not a.type:
                        a._type = t  # noqa: SLF001
        ft = op.properties.get("function_type")
        if isinstance(ft, FunctionType):
            ins = [signless(t) for t in ft.inputs.data]
            outs = [signless(t) for t in ft.outputs.data]
            if ins != list(ft.inputs.data) or outs != list(ft.outputs.data):
                op.properties["function_type"] = FunctionType.from_lists(ins, outs)
        for table in (op.properties, op.attributes):
            for key, value in list(table.items()):
                if isinstance(value, DenseIntOrFPElementsAttr) and signless(value.type) != value.type:
                    table[key] = S._signless_dense(value)


def _compose_broadcasts(todo: list[Operation]) -> None:
    """``broadcast_in_dim`` of a ``broadcast_in_dim``: one, from the inner
    operand (dimension i goes to outer[inner[i]]), so that one broadcasting
    generic folds into the op that reads it.  The inner one stays for the
    others that read it (or for DCE)."""
    from xdsl.dialects.builtin import DenseArrayBase, i64

    from .common import int_list

    for op in todo:
        if op.name != "stablehlo.broadcast_in_dim":
            continue
        inner = getattr(op.operands[0], "op", None)
        if inner is None or inner.name != "stablehlo.broadcast_in_dim":
            continue
        outer_dims = int_list(op, "broadcast_dimensions", ())
        inner_dims = int_list(inner, "broadcast_dimensions", ())
        composed = [outer_dims[d] for d in inner_dims]
        op.operands = [inner.operands[0]]
        op.properties["broadcast_dimensions"] = DenseArrayBase.from_list(i64, composed)


def _has_input_ops(module: ModuleOp) -> bool:
    from tfrt.dialects.fastir import walk

    return any(op.name.startswith(("stablehlo.", "chlo.")) for op in walk(module))


@dataclass(frozen=True)
class StablehloLegalizeToLinalgPass(ModulePass):
    """Convert StableHLO and CHLO ops to linalg/tensor/arith/math/scf; integer
    types become signless.  An op it cannot convert is an error at its location.

    Example::

        %0 = stablehlo.add %a, %b : tensor<4xf32>
        // becomes
        %e = tensor.empty() : tensor<4xf32>
        %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
            ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
        ^bb0(%x: f32, %y: f32, %o: f32):
          %s = arith.addf %x, %y : f32
          linalg.yield %s : f32
        } -> tensor<4xf32>
    """

    name = "stablehlo-legalize-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not _has_input_ops(op):
            return
        todo: list[Operation] = []
        for region in op.regions:
            for b in region.blocks:
                _collect(b, todo)
        _compose_broadcasts(todo)
        for o in todo:
            if o.parent is None:
                continue  # already replaced by an earlier conversion (a tuple's get_tuple_element)
            _convert(o)
        _signless_everywhere(op)
