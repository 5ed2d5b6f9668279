"""The ``tensor`` dialect: every op of MLIR's ``TensorOps.td``, with its syntax and verifier.

xDSL defines ``cast``, ``collapse_shape``, ``concat``, ``dim``, ``empty``,
``expand_shape``, ``extract``, ``extract_slice``, ``from_elements``,
``insert``, ``insert_slice``, ``pad``, ``reshape``, ``splat`` and ``yield``,
with verifiers that let through programs MLIR rejects (slice sizes that
disagree with the result type, offsets past the end, a pad whose type is not
the inferred one, ...) and wordings of their own.  It lacks ``bitcast``,
``gather``, ``generate``, ``parallel_insert_slice``, ``rank`` and
``scatter``.  This module defines all of them, under the same names and
with the same custom syntax, field names and generic form as xDSL's and
MLIR's, and verifies what MLIR's ``TensorOps.cpp`` verifies, in its words::

    %g = tensor.gather %src[%idx] gather_dims([1]) unique
        : (tensor<4x5xf32>, tensor<3x1xindex>) -> tensor<3x4x1xf32>
    %s = tensor.scatter %g into %src[%idx] scatter_dims([1]) unique
        : (tensor<3x4x1xf32>, tensor<4x5xf32>, tensor<3x1xindex>) -> tensor<4x5xf32>
    %t = tensor.generate %n {
    ^bb0(%i: index):
      %f = arith.index_cast %i : index to i32
      tensor.yield %f : i32
    } : tensor<?xi32>

Semantics (as MLIR states them):

* ``gather``: the indices tensor is ``L x k``; each of its ``L`` coordinate
  tuples picks, along the ``k`` ``gather_dims``, one position of the source,
  and the result at those leading indices is the whole source slice there
  (the gathered dimensions of size 1, or dropped in the rank-reduced form).
* ``scatter``: the inverse; ``unique`` is required (MLIR's verifier), and
  coordinates that are not unique are undefined behaviour in MLIR.
* ``generate``: the body yields the element at each index of the result.
* ``pad``: the body yields the padding value at each index of the result.

Canonicalization folds ``index`` constants given as SSA values
(``[%c0, 2]``, ``tensor.generate %c4``) into the static attributes and the
result type, with a ``tensor.cast`` back to the type the program wrote, as
MLIR's patterns do; ``specialize-shapes`` then makes the cast's type static.
``passes/lower_tensor.py`` lowers the ops (docs/compiler.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import ClassVar

from tfrt.dialects.base import PlainVerifyException, runtime_op
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    i64,
)
from xdsl.dialects.utils import DynamicIndexList
from xdsl.ir import Attribute, Dialect, Operation, OpResult, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    IsTerminator,
    NoMemoryEffect,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "BitcastOp",
    "CastOp",
    "CollapseShapeOp",
    "ConcatOp",
    "DimOp",
    "EmptyOp",
    "ExpandShapeOp",
    "ExtractOp",
    "ExtractSliceOp",
    "FromElementsOp",
    "GatherOp",
    "GenerateOp",
    "InsertOp",
    "InsertSliceOp",
    "PadOp",
    "ParallelInsertSliceOp",
    "RankOp",
    "ReshapeOp",
    "ScatterOp",
    "SplatOp",
    "Tensor",
    "YieldOp",
    "constant_index",
    "dropped_dims",
    "gather_result_shape",
    "mixed",
]

DYN = DYNAMIC_INDEX

# Parents that combine parallel_insert_slice updates (MLIR's
# ParallelCombiningOpInterface): scf.forall's terminator.
PARALLEL_COMBINING = frozenset({"scf.forall.in_parallel"})


# ---------------------------------------------------------------- helpers


def constant_index(value: SSAValue) -> int | None:
    """The integer an ``index`` (or integer) value is an ``arith.constant`` of, or None."""
    if not isinstance(value, OpResult) or value.op.name != "arith.constant":
        return None
    attr = value.op.properties.get("value")
    if attr is None:
        attr = value.op.attributes.get("value")
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    return None


def mixed(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[int | SSAValue]:
    """MLIR's ``getMixedValues``: each static entry, or the SSA value of a ``kDynamic`` one."""
    it = iter(dynamic)
    return [next(it, None) if s == DYN else s for s in static]  # type: ignore[misc]


def _quote(t: Attribute) -> str:
    # MLIR quotes types and attributes streamed into a diagnostic.
    return f"'{t}'"


def _ranked(t: Attribute) -> bool:
    return isinstance(t, TensorType)


def _any_tensor(t: Attribute) -> bool:
    return isinstance(t, (TensorType, UnrankedTensorType))


def _index(t: Attribute) -> bool:
    return isinstance(t, IndexType)


def _signless_int_or_index(t: Attribute) -> bool:
    return isinstance(t, IndexType) or (
        isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS
    )


def _shape(t: Attribute) -> tuple[int, ...]:
    return tuple(t.get_shape())  # type: ignore[attr-defined]


def _tensor(shape: Sequence[int], element: Attribute) -> TensorType:
    return TensorType(element, list(shape))


_RANKED = "ranked tensor of any type values"
_TENSOR = "tensor of any type values"


def _check_values(
    kind: str, groups: Sequence[tuple[Sequence[SSAValue], bool, str, object]]
) -> None:
    """MLIR's ODS type checks: ``operand #N must be <summary>, but got '<type>'``,
    numbering the values across the groups (a variadic one says so)."""
    index = 0
    for values, variadic, summary, accepts in groups:
        for v in values:
            if not accepts(v.type):  # type: ignore[operator]
                text = f"variadic of {summary}" if variadic else summary
                raise VerifyException(f"{kind} #{index} must be {text}, but got {_quote(v.type)}")
            index += 1


def _ints(attr: Attribute) -> list[int]:
    return [int(v) for v in attr.get_values()]  # type: ignore[attr-defined]


def _dense_i64(op: IRDLOperation, name: str) -> list[int]:
    attr = op.properties.get(name)
    if attr is None:
        raise VerifyException(f"requires attribute '{name}'")
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i64:
        raise VerifyException(
            f"attribute '{name}' failed to satisfy constraint: i64 dense array attribute"
        )
    return _ints(attr)


def _compatible_shapes(a: Attribute, b: Attribute) -> bool:
    """MLIR's ``verifyCompatibleShape`` for two tensor types."""
    if not (_ranked(a) and _ranked(b)):
        return True
    sa, sb = _shape(a), _shape(b)
    return len(sa) == len(sb) and all(x == y or DYN in (x, y) for x, y in zip(sa, sb))


def _bit_width(t: Attribute) -> int | None:
    width = getattr(t, "bitwidth", None)
    if isinstance(t, IndexType) or not isinstance(width, int):
        return None
    return width


# ---------------------------------------------------------------- slices


def _offset_size_stride(op: IRDLOperation, rank: int) -> tuple[list[int], list[int], list[int]]:
    """MLIR's ``verifyOffsetSizeAndStrideOp`` (``ViewLikeInterface.cpp``), the
    checks every slicing op makes before its own verifier."""
    offsets = _dense_i64(op, "static_offsets")
    sizes = _dense_i64(op, "static_sizes")
    strides = _dense_i64(op, "static_strides")
    _check_values(
        "operand", [(list(op.offsets) + list(op.sizes) + list(op.strides), True, "index", _index)]
    )  # type: ignore[attr-defined]
    for name, static, values in (
        ("sizes", sizes, op.sizes),  # type: ignore[attr-defined]
        ("strides", strides, op.strides),  # type: ignore[attr-defined]
        ("offsets", offsets, op.offsets),  # type: ignore[attr-defined]
    ):
        n = sum(1 for s in static if s == DYN)
        if len(values) != n:
            raise PlainVerifyException(
                f"expected the number of '{name}' to match the number of dynamic entries in "
                f"'static_{name}' ({len(values)} vs {n})"
            )
    if len(offsets) != len(sizes):
        raise PlainVerifyException(
            f"expected mixed offsets rank to match mixed sizes rank ({len(offsets)} vs {len(sizes)}) "
            "so the rank of the result type is well-formed."
        )
    if len(sizes) != len(strides):
        raise PlainVerifyException(
            f"expected mixed sizes rank to match mixed strides rank ({len(sizes)} vs {len(strides)}) "
            "so the rank of the result type is well-formed."
        )
    for name, static in (("offset", offsets), ("size", sizes), ("stride", strides)):
        if len(static) != rank:
            raise PlainVerifyException(f"expected {rank} {name} values, got {len(static)}")
    for o in offsets:
        if o < 0 and o != DYN:
            raise PlainVerifyException(f"expected offsets to be non-negative, but got {o}")
    for s in sizes:
        if s < 0 and s != DYN:
            raise PlainVerifyException(f"expected sizes to be non-negative, but got {s}")
    return offsets, sizes, strides


def rank_reduction_mask(original: Sequence[int], reduced: Sequence[int]) -> set[int] | None:
    """MLIR's ``computeRankReductionMask``: the unit dimensions of ``original``
    that ``reduced`` drops (matched greedily), or None if it is not such a drop."""
    unused: set[int] = set()
    r = 0
    for i, size in enumerate(original):
        if r < len(reduced) and size == reduced[r]:
            r += 1
            continue
        unused.add(i)
        if size != 1:
            return None
    return unused if r == len(reduced) else None


def _slice_type_error(expected: TensorType, actual: Attribute) -> None:
    """MLIR's ``isRankReducedType`` + ``produceSliceErrorMsg``."""
    if expected == actual:
        return
    if len(_shape(actual)) > len(_shape(expected)):
        raise PlainVerifyException("expected rank to be smaller or equal to the other rank. ")
    if rank_reduction_mask(_shape(expected), _shape(actual)) is None:
        raise PlainVerifyException(
            f"expected type to be {_quote(expected)} or a rank-reduced version. (size mismatch) "
        )
    if expected.element_type != actual.element_type:  # type: ignore[attr-defined]
        raise PlainVerifyException(f"expected element type to be {_quote(expected.element_type)}")


def _in_bounds(shape: Sequence[int], offsets, sizes, strides) -> None:
    """MLIR's ``verifyInBoundsSlice``."""
    for i, dim in enumerate(shape):
        if dim == DYN or offsets[i] == DYN:
            continue
        if offsets[i] >= dim:
            raise PlainVerifyException(f"offset {i} is out-of-bounds: {offsets[i]} >= {dim}")
        if sizes[i] == DYN or strides[i] == DYN:
            continue
        last = offsets[i] + (sizes[i] - 1) * strides[i]
        if last >= dim:
            raise PlainVerifyException(
                f"slice along dimension {i} runs out-of-bounds: {last} >= {dim}"
            )


def dropped_dims(reduced: Sequence[int], sizes: Sequence[int | SSAValue]) -> set[int]:
    """MLIR's ``getDroppedDims``: the static unit sizes a rank-reducing slice
    drops, matched from the back."""
    dropped: set[int] = set()
    pos = len(reduced) - 1
    for idx in range(len(sizes) - 1, -1, -1):
        unit = sizes[idx] == 1
        if pos < 0:
            dropped.add(idx)
            continue
        if not unit or reduced[pos] == 1:
            pos -= 1
            continue
        dropped.add(idx)
    return dropped


def _verify_insert_like(op: IRDLOperation, source_t: Attribute, dest_t: Attribute) -> None:
    offsets, sizes, strides = _offset_size_stride(op, len(_shape(dest_t)))
    expected = _tensor(sizes, dest_t.element_type)  # type: ignore[attr-defined]
    _slice_type_error(expected, source_t)
    _in_bounds(_shape(dest_t), offsets, sizes, strides)


_SLICE_FORMAT = (
    "custom<DynamicIndexList>($offsets, $static_offsets) "
    "custom<DynamicIndexList>($sizes, $static_sizes) "
    "custom<DynamicIndexList>($strides, $static_strides) "
)


# ---------------------------------------------------------------- canonicalization


def _before(op: Operation):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


def _fold_list(
    static: Sequence[int], dynamic: Sequence[SSAValue], ok
) -> tuple[list[int], list[SSAValue], bool]:
    """Constant SSA entries moved into the static list (when ``ok(value)``)."""
    new_static, new_dynamic, changed = [], [], False
    it = iter(dynamic)
    for s in static:
        if s != DYN:
            new_static.append(s)
            continue
        v = next(it)
        c = constant_index(v)
        if c is not None and ok(c):
            new_static.append(c)
            changed = True
        else:
            new_static.append(DYN)
            new_dynamic.append(v)
    return new_static, new_dynamic, changed


def _cast_back(
    rewriter: PatternRewriter, op: Operation, new_op: Operation, old_type: Attribute
) -> None:
    rewriter.insert(new_op, _before(op))
    result = new_op.results[0]
    if result.type != old_type:
        cast = CastOp.create(operands=[result], result_types=[old_type])
        rewriter.insert(cast, _before(op))
        result = cast.results[0]
    rewriter.replace_all_uses_with(op.results[0], result)
    rewriter.erase(op)


def _clone_with(
    op: Operation, operands, properties, result_types, move_regions: bool = False
) -> Operation:
    regions = []
    if move_regions:
        from xdsl.ir import Region

        for r in op.regions:
            new = Region()
            r.move_blocks(new)
            regions.append(new)
    new_op = type(op).create(
        operands=operands,
        result_types=result_types,
        properties=properties,
        attributes=dict(op.attributes),
        regions=regions,
    )
    new_op.location = op.location  # type: ignore[attr-defined]
    return new_op


class _FoldConstantSliceArguments(RewritePattern):
    """MLIR's ``OpWithOffsetSizesAndStridesConstantArgumentFolder`` (and
    ``InsertSliceOpConstantArgumentFolder``): constant offsets, sizes and
    strides become static; an ``extract_slice`` gets the canonical result
    type and a cast back, an ``insert_slice`` a cast of its source."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, (ExtractSliceOp, InsertSliceOp, ParallelInsertSliceOp)):
            return
        try:
            offsets, offs, c1 = _fold_list(_ints(op.static_offsets), op.offsets, lambda c: c >= 0)
            sizes, szs, c2 = _fold_list(_ints(op.static_sizes), op.sizes, lambda c: c >= 0)
            strides, strs, c3 = _fold_list(_ints(op.static_strides), op.strides, lambda c: c != 0)
        except StopIteration:
            return  # malformed: the verifier reports it
        if not (c1 or c2 or c3):
            return
        props = dict(op.properties)
        props["static_offsets"] = DenseArrayBase.from_list(i64, offsets)
        props["static_sizes"] = DenseArrayBase.from_list(i64, sizes)
        props["static_strides"] = DenseArrayBase.from_list(i64, strides)
        props["operandSegmentSizes"] = DenseArrayBase.from_list(
            IntegerType(32), [*_segments_before(op), len(offs), len(szs), len(strs)]
        )
        if isinstance(op, ExtractSliceOp):
            old = op.result.type
            reduced = _canonical_rank_reduced(len(_shape(old)), sizes, old.element_type)
            new_op = _clone_with(op, [op.source, *offs, *szs, *strs], props, [reduced])
            _cast_back(rewriter, op, new_op, old)
            return
        source = op.source
        want = _canonical_rank_reduced(len(_shape(source.type)), sizes, source.type.element_type)
        if want != source.type:
            cast = CastOp.create(operands=[source], result_types=[want])
            anchor = op.parent_op() if isinstance(op, ParallelInsertSliceOp) else op
            rewriter.insert(cast, _before(anchor))  # type: ignore[arg-type]
            source = cast.results[0]
        new_op = _clone_with(
            op, [source, op.dest, *offs, *szs, *strs], props, [r.type for r in op.results]
        )
        rewriter.insert(new_op, _before(op))
        if op.results:
            rewriter.replace_all_uses_with(op.results[0], new_op.results[0])
        rewriter.erase(op)


def _segments_before(op: Operation) -> list[int]:
    return [1] if isinstance(op, ExtractSliceOp) else [1, 1]


def _canonical_rank_reduced(rank: int, sizes: Sequence[int], element: Attribute) -> TensorType:
    """MLIR's ``inferCanonicalRankReducedResultType``: the sizes, dropping the
    first unit dimensions until the rank is ``rank``."""
    shape = list(sizes)
    extra = len(shape) - rank
    if extra > 0:
        keep = []
        for s in shape:
            if s == 1 and extra > 0:
                extra -= 1
                continue
            keep.append(s)
        shape = keep
    return _tensor(shape, element)


class _StaticSizes(RewritePattern):
    """``tensor.empty``/``splat``/``generate`` with constant dynamic sizes get a
    static type and a cast back (MLIR's ``StaticTensorGenerate`` and
    ``ReplaceEmptyTensorStaticShapeDims``)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, (GenerateOp, SplatOp, EmptyOp)):
            return
        if isinstance(op, GenerateOp):
            sizes = list(op.dynamic_extents)
        elif isinstance(op, SplatOp):
            sizes = list(op.dynamicSizes)
        else:
            sizes = list(op.dynamic_sizes)
        old = op.results[0].type
        if not sizes or not _ranked(old):
            return
        shape, kept = [], []
        it = iter(sizes)
        for d in _shape(old):
            if d != DYN:
                shape.append(d)
                continue
            v = next(it, None)
            c = constant_index(v) if v is not None else None
            if c is not None and c >= 0:
                shape.append(c)
            else:
                shape.append(DYN)
                kept.append(v)
        if len(kept) == len(sizes):
            return
        new_type = _tensor(shape, old.element_type)
        if isinstance(op, GenerateOp):
            new_op = _clone_with(op, kept, dict(op.properties), [new_type], move_regions=True)
        elif isinstance(op, SplatOp):
            new_op = _clone_with(op, [op.input, *kept], dict(op.properties), [new_type])
        else:
            new_op = _clone_with(op, kept, dict(op.properties), [new_type])
        _cast_back(rewriter, op, new_op, old)


class _StaticPad(RewritePattern):
    """MLIR's ``FoldStaticPadding``: constant low/high amounts become static,
    the result type as static as they make it, with a cast back."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, PadOp):
            return
        try:
            low, lows, c1 = _fold_list(_ints(op.static_low), op.low, lambda c: c >= 0)
            high, highs, c2 = _fold_list(_ints(op.static_high), op.high, lambda c: c >= 0)
        except StopIteration:
            return
        if not (c1 or c2):
            return
        old = op.result.type
        src = _shape(op.source.type)
        shape = [
            r if r != DYN or DYN in (s, lo, hi) else s + lo + hi
            for r, s, lo, hi in zip(_shape(old), src, low, high)
        ]
        props = dict(op.properties)
        props["static_low"] = DenseArrayBase.from_list(i64, low)
        props["static_high"] = DenseArrayBase.from_list(i64, high)
        props["operandSegmentSizes"] = DenseArrayBase.from_list(
            IntegerType(32), [1, len(lows), len(highs)]
        )
        new_op = _clone_with(op, [op.source, *lows, *highs], props, [_tensor(shape, old.element_type)],
                             move_regions=True)  # fmt: skip
        _cast_back(rewriter, op, new_op, old)


class _StaticExpandShape(RewritePattern):
    """Constant ``output_shape`` values become static, in each group whose
    result the source then fixes; the result type follows, with a cast back."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ExpandShapeOp) or not op.dynamic_output_shape:
            return
        static = _ints(op.static_output_shape)
        values = mixed(static, list(op.dynamic_output_shape))
        src = _shape(op.src.type)
        groups = _groups(op.reassociation)
        new = list(values)
        for g, dims in enumerate(groups):
            folded = [
                constant_index(values[d]) if not isinstance(values[d], int) else values[d]
                for d in dims
            ]
            if any(f is None or f < 0 for f in folded):
                continue  # the group stays dynamic
            if g < len(src) and src[g] != DYN:
                for d, f in zip(dims, folded):
                    new[d] = f
        if new == values:
            return
        new_static = [v if isinstance(v, int) else DYN for v in new]
        dynamic = [v for v in new if not isinstance(v, int)]
        old = op.result.type
        shape = [n if n != DYN else r for n, r in zip(new_static, _shape(old))]
        props = dict(op.properties)
        props["static_output_shape"] = DenseArrayBase.from_list(i64, new_static)
        new_op = _clone_with(op, [op.src, *dynamic], props, [_tensor(shape, old.element_type)])
        _cast_back(rewriter, op, new_op, old)


class _Canonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (_FoldConstantSliceArguments(), _StaticSizes(), _StaticPad(), _StaticExpandShape())


# ---------------------------------------------------------------- ops


@runtime_op
class BitcastOp(IRDLOperation):
    """``tensor.bitcast``: the same bits as a tensor of an element type of the same width::

    %b = tensor.bitcast %x : tensor<4xui32> to tensor<4xi32>
    """

    name = "tensor.bitcast"
    source = operand_def(AnyAttr())
    dest = result_def(AnyAttr())
    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_values("operand", [([self.source], False, _TENSOR, _any_tensor)])
        _check_values("result", [([self.dest], False, _TENSOR, _any_tensor)])
        a, b = self.source.type, self.dest.type
        wa, wb = _bit_width(a.element_type), _bit_width(b.element_type)  # type: ignore[attr-defined]
        if wa is None or wa != wb or not _compatible_shapes(a, b):
            raise VerifyException(
                f"operand type {_quote(a)} and result type {_quote(b)} are cast incompatible"
            )


@runtime_op
class CastOp(IRDLOperation):
    """``tensor.cast``: the same tensor with more or less static shape information::

    %c = tensor.cast %x : tensor<4x?xf32> to tensor<4x8xf32>
    """

    name = "tensor.cast"
    source = operand_def(AnyAttr())
    dest = result_def(AnyAttr())
    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["cast"]

    def verify_(self) -> None:
        _check_values("operand", [([self.source], False, _TENSOR, _any_tensor)])
        _check_values("result", [([self.dest], False, _TENSOR, _any_tensor)])
        a, b = self.source.type, self.dest.type
        if a.element_type != b.element_type or not _compatible_shapes(a, b):  # type: ignore[attr-defined]
            raise VerifyException(
                f"operand type {_quote(a)} and result type {_quote(b)} are cast incompatible"
            )


@runtime_op
class ConcatOp(IRDLOperation):
    """``tensor.concat``: the inputs joined along ``dim``::

    %c = tensor.concat dim(0) %a, %b : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
    """

    name = "tensor.concat"
    inputs = var_operand_def(AnyAttr())
    dim = prop_def(IntegerAttr[I64])
    result = result_def(AnyAttr())
    assembly_format = "`dim` `(` $dim `)` $inputs attr-dict `:` functional-type(operands, results)"
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["concat"]

    def verify_(self) -> None:
        dim = self.dim.value.data
        if dim < 0:
            raise VerifyException(
                "attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute "
                "whose value is non-negative"
            )
        _check_values("operand", [(self.inputs, True, _RANKED, _ranked)])
        _check_values("result", [([self.result], False, _RANKED, _ranked)])
        if not self.inputs:
            raise VerifyException("requires at least one input")
        result_t = self.result.type
        rank = len(_shape(result_t))
        if any(len(_shape(v.type)) != rank for v in self.inputs):
            raise VerifyException("rank of concatenated inputs must match result rank")
        if any(v.type.element_type != result_t.element_type for v in self.inputs):
            raise VerifyException("inputs and result element type must match")
        if dim >= rank:
            raise VerifyException("concatenation dim must be less than the tensor rank")
        inferred = []
        for i in range(rank):
            sizes = [_shape(v.type)[i] for v in self.inputs]
            if i == dim:
                inferred.append(DYN if DYN in sizes else sum(sizes))
                continue
            known = {s for s in sizes if s != DYN}
            if len(known) > 1:
                raise VerifyException(
                    f"static concatenation size mismatch along non-concatenated dimension {i}"
                )
            inferred.append(known.pop() if known else DYN)
        for a, b in zip(inferred, _shape(result_t)):
            if DYN not in (a, b) and a != b:
                raise VerifyException(
                    f"result type {_quote(result_t)}does not match inferred shape "
                    f"{_quote(_tensor(inferred, result_t.element_type))} static sizes"
                )


@runtime_op
class DimOp(IRDLOperation):
    """``tensor.dim``: the size of dimension ``index`` (an index out of range is
    undefined behaviour in MLIR; the lowering refuses it at run time)::

    %d = tensor.dim %x, %c1 : tensor<4x?xf32>
    """

    name = "tensor.dim"
    source = operand_def(AnyAttr())
    index = operand_def(IndexType)
    result = result_def(IndexType)
    assembly_format = "attr-dict $source `,` $index `:` type($source)"
    traits = traits_def(NoMemoryEffect())

    def asm_result_names(self) -> list[str]:
        return ["dim"]

    def verify_(self) -> None:
        _check_values(
            "operand",
            [
                ([self.source], False, "non-0-ranked or unranked tensor",
                 lambda t: isinstance(t, UnrankedTensorType) or (_ranked(t) and len(_shape(t)) > 0)),
                ([self.index], False, "index", _index),
            ],
        )  # fmt: skip


@runtime_op
class EmptyOp(IRDLOperation):
    """``tensor.empty``: a tensor of the given shape whose contents are unspecified
    (the lowering makes it zeros)::

    %e = tensor.empty(%n) : tensor<?x4xf32>
    """

    name = "tensor.empty"
    dynamic_sizes = var_operand_def(IndexType)
    tensor = result_def(AnyAttr())
    assembly_format = "`(` $dynamic_sizes `)` attr-dict `:` type($tensor)"
    traits = traits_def(NoMemoryEffect(), _Canonicalization())

    def verify_(self) -> None:
        _check_values("operand", [(self.dynamic_sizes, True, "index", _index)])
        _check_values("result", [([self.tensor], False, _RANKED, _ranked)])
        n = sum(1 for d in _shape(self.tensor.type) if d == DYN)
        if len(self.dynamic_sizes) != n:
            raise VerifyException(
                f"incorrect number of dynamic sizes, has {len(self.dynamic_sizes)}, expected {n}"
            )


def _groups(reassociation: Attribute) -> list[list[int]]:
    return [[int(i.value.data) for i in g.data] for g in reassociation.data]  # type: ignore[attr-defined]


def _verify_reshape(
    op: IRDLOperation, expanded: Attribute, collapsed: Attribute, expansion: bool
) -> None:
    """MLIR's ``verifyReshapeLikeTypes`` and ``verifyTensorReshapeOp``."""
    ex, co = _shape(expanded), _shape(collapsed)
    groups = _groups(op.reassociation)  # type: ignore[attr-defined]
    if len(ex) < len(co):
        raise VerifyException(
            f"expected the expanded type, {_quote(expanded)} to have a higher (or same) rank than the "
            f"collapsed type, {_quote(collapsed)}."
        )
    if len(co) != len(groups):
        raise VerifyException(
            f"expected collapsed rank ({len(co)}) to equal the number of reassociation maps ({len(groups)})."
        )
    n_dims = max((max(g) for g in groups if g), default=-1) + 1
    for i, g in enumerate(groups):
        if n_dims != len(ex):
            raise VerifyException(
                f"expected reassociation map #{i} to have size equal to the expanded rank ({len(ex)}), "
                f"but it is  {n_dims}."
            )
    nxt = 0
    for i, g in enumerate(groups):
        for d in g:
            if d != nxt:
                raise VerifyException(
                    f"expected reassociation map #{i} to be valid and contiguous."
                )
            nxt += 1
    if groups and nxt != n_dims:
        raise VerifyException(
            f"expected reassociation map #{len(groups) - 1} to be valid and contiguous."
        )
    start = 0
    for i, g in enumerate(groups):
        band = ex[start : start + len(g)]
        if DYN in band:
            if co[i] != DYN:
                raise VerifyException(
                    f"expected dimension {i} of collapsed type to be dynamic since one or more of the "
                    "corresponding dimensions in the expanded type is dynamic"
                )
        else:
            size = 1
            for d in band:
                size *= d
            if co[i] != size:
                raise VerifyException(
                    f"expected dimension {i} of collapsed type to be static value of {size}"
                )
        start += len(g)
    expected = []
    start = 0
    for g in groups:
        band = ex[start : start + len(g)]
        size = 1
        for d in band:
            size = DYN if DYN in (d, size) else size * d
        expected.append(size)
        start += len(g)
    want = _tensor(expected, expanded.element_type)  # type: ignore[attr-defined]
    if list(co) != expected or collapsed.element_type != expanded.element_type:  # type: ignore[attr-defined]
        raise VerifyException(
            f"expected collapsed type to be {_quote(want)}, but got {_quote(collapsed)}"
        )


_REASSOCIATION = ArrayAttr[ArrayAttr[IntegerAttr[I64]]]


@runtime_op
class CollapseShapeOp(IRDLOperation):
    """``tensor.collapse_shape``: groups of contiguous dimensions merged::

    %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
    """

    name = "tensor.collapse_shape"
    # The frontend's grammar generator matches `$reassociation` with its
    # general attribute rule, in which a number may be followed by `: type`;
    # before `attr-dict` and `:` that is a shift/reduce conflict, which it
    # resolves greedily (MLIR's choice too; a reassociation is never a number)
    # for the ops of xDSL's modules and refuses for the project's.  The op
    # keeps the module of xDSL's `tensor.collapse_shape`, whose syntax it is.
    __module__ = "xdsl.dialects.tensor"
    src = operand_def(AnyAttr())
    reassociation = prop_def(_REASSOCIATION)
    result = result_def(AnyAttr())
    assembly_format = "$src $reassociation attr-dict `:` type($src) `into` type($result)"
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["collapsed"]

    def verify_(self) -> None:
        _check_values("operand", [([self.src], False, _RANKED, _ranked)])
        _check_values("result", [([self.result], False, _RANKED, _ranked)])
        _verify_reshape(self, self.src.type, self.result.type, False)


@runtime_op
class ExpandShapeOp(IRDLOperation):
    """``tensor.expand_shape``: dimensions split into contiguous groups, the
    result sizes given by ``output_shape``::

    %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
    """

    name = "tensor.expand_shape"
    src = operand_def(AnyAttr())
    dynamic_output_shape = var_operand_def(IndexType)
    reassociation = prop_def(_REASSOCIATION)
    static_output_shape = prop_def(DenseArrayBase.constr(i64))
    result = result_def(AnyAttr())
    custom_directives = (DynamicIndexList,)
    assembly_format = (
        "$src $reassociation `output_shape` "
        "custom<DynamicIndexList>($dynamic_output_shape, $static_output_shape) "
        "attr-dict `:` type($src) `into` type($result)"
    )
    traits = traits_def(Pure(), _Canonicalization())

    def asm_result_names(self) -> list[str]:
        return ["expanded"]

    def verify_(self) -> None:
        _check_values(
            "operand",
            [
                ([self.src], False, _RANKED, _ranked),
                (self.dynamic_output_shape, True, "index", _index),
            ],
        )
        _check_values("result", [([self.result], False, _RANKED, _ranked)])
        static = _dense_i64(self, "static_output_shape")
        result_shape = _shape(self.result.type)
        if len(static) != len(result_shape):
            raise VerifyException(
                f"expected number of static shape dims to be equal to the output rank ({len(result_shape)}) "
                f"but found {len(static)} inputs instead"
            )
        n = sum(1 for s in static if s == DYN)
        if len(self.dynamic_output_shape) != n:
            raise VerifyException(
                "mismatch in dynamic dims in output_shape and static_output_shape: static_output_shape has "
                f"{n} dynamic dims while output_shape has {len(self.dynamic_output_shape)} values"
            )
        for pos, (r, s) in enumerate(zip(result_shape, static)):
            if r != DYN and r != s:
                raise VerifyException(f"invalid output shape provided at pos {pos}")
        _verify_reshape(self, self.result.type, self.src.type, True)


@runtime_op
class ExtractOp(IRDLOperation):
    """``tensor.extract``: one element::

    %v = tensor.extract %x[%i, %j] : tensor<4x5xf32>
    """

    name = "tensor.extract"
    ELEMENT: ClassVar = VarConstraint("ELEMENT", AnyAttr())
    tensor = operand_def(TensorType.constr(ELEMENT))
    indices = var_operand_def(IndexType)
    result = result_def(ELEMENT)
    assembly_format = "$tensor `[` $indices `]` attr-dict `:` type($tensor)"
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["extracted"]

    def verify_(self) -> None:
        _check_values(
            "operand",
            [([self.tensor], False, _RANKED, _ranked), (self.indices, True, "index", _index)],
        )
        if self.result.type != self.tensor.type.element_type:
            raise VerifyException(
                "failed to verify that result type matches element type of tensor"
            )
        if len(self.indices) != len(_shape(self.tensor.type)):
            raise VerifyException("incorrect number of indices for extract_element")


@runtime_op
class ExtractSliceOp(IRDLOperation):
    """``tensor.extract_slice``: ``sizes[i]`` elements from ``offsets[i]`` every
    ``strides[i]``; unit sizes may be dropped from the result type::

    %s = tensor.extract_slice %x[0, %o] [1, 4] [1, 2] : tensor<8x16xf32> to tensor<4xf32>
    """

    name = "tensor.extract_slice"
    source = operand_def(AnyAttr())
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))
    result = result_def(AnyAttr())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (DynamicIndexList,)
    assembly_format = (
        "$source `` " + _SLICE_FORMAT + "attr-dict `:` type($source) `to` type($result)"
    )
    traits = traits_def(Pure(), _Canonicalization())

    def asm_result_names(self) -> list[str]:
        return ["extracted_slice"]

    def verify_(self) -> None:
        _check_values("operand", [([self.source], False, _RANKED, _ranked)])
        _check_values("result", [([self.result], False, _RANKED, _ranked)])
        source_t = self.source.type
        offsets, sizes, strides = _offset_size_stride(self, len(_shape(source_t)))
        _slice_type_error(_tensor(sizes, source_t.element_type), self.result.type)
        _in_bounds(_shape(source_t), offsets, sizes, strides)


@runtime_op
class FromElementsOp(IRDLOperation):
    """``tensor.from_elements``: a static tensor of the operands, in row-major order::

    %t = tensor.from_elements %a, %b, %c, %d : tensor<2x2xf32>
    """

    name = "tensor.from_elements"
    ELEMENT_TYPE: ClassVar = VarConstraint("ELEMENT_TYPE", AnyAttr())
    elements = var_operand_def(ELEMENT_TYPE)
    result = result_def(TensorType.constr(ELEMENT_TYPE))
    assembly_format = "$elements attr-dict `:` type($result)"
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["from_elements"]

    def verify_(self) -> None:
        t = self.result.type
        if not _ranked(t) or DYN in _shape(t):
            raise VerifyException(
                f"result #0 must be statically shaped tensor of any type values, but got {_quote(t)}"
            )
        count = 1
        for d in _shape(t):
            count *= d
        if len(self.elements) != count or any(v.type != t.element_type for v in self.elements):
            raise VerifyException("failed to verify that operand types match result element type")


def gather_result_shape(source: Sequence[int], indices: Sequence[int], dims: Sequence[int],
                        rank_reduced: bool) -> list[int]:  # fmt: skip
    """MLIR's ``GatherOp::inferResultType``: the indices' leading dimensions,
    then the source's with each gathered dimension 1 (or dropped)."""
    shape = list(indices[:-1])
    for d, size in enumerate(source):
        if d in dims:
            if not rank_reduced:
                shape.append(1)
            continue
        shape.append(size)
    return shape


def _verify_dims(
    dims: Sequence[int], indices: Sequence[int], rank: int, what: str, of: str
) -> None:
    """MLIR's ``verifyGatherOrScatterDims``."""
    if not dims:
        raise VerifyException(f"{what}_dims must be non-empty")
    if len(dims) > rank:
        raise VerifyException(f"{what}_dims overflow {of} rank")
    if not indices or indices[-1] != len(dims):
        raise VerifyException(
            f"{what}_dims length must match the size of last dimension of indices"
        )
    for d in dims:
        if d < 0:
            raise VerifyException(f"{what}_dims value must be non-negative")
        if d >= rank:
            raise VerifyException(f"{what}_dims value must be smaller than {of} rank")
    for a, b in itertools.pairwise(dims):
        if a >= b:
            raise VerifyException(f"{what}_dims values must be strictly increasing")


_INDICES = "ranked tensor of signless integer or index values"


def _is_indices(t: Attribute) -> bool:
    return _ranked(t) and _signless_int_or_index(t.element_type)  # type: ignore[attr-defined]


@runtime_op
class GatherOp(IRDLOperation):
    """``tensor.gather``: for each coordinate tuple of ``indices`` (its last
    dimension), the source slice at those positions of ``gather_dims``::

    %g = tensor.gather %x[%i] gather_dims([0]) : (tensor<4x5xf32>, tensor<3x1xindex>) -> tensor<3x1x5xf32>
    """

    name = "tensor.gather"
    source = operand_def(AnyAttr())
    indices = operand_def(AnyAttr())
    gather_dims = prop_def(DenseArrayBase.constr(i64))
    unique = opt_prop_def(UnitAttr)
    result = result_def(AnyAttr())
    assembly_format = (
        "$source `[` $indices `]` `gather_dims` `(` $gather_dims `)` (`unique` $unique^)? attr-dict "
        "`:` functional-type(operands, results)"
    )
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["gather"]

    def verify_(self) -> None:
        dims = _dense_i64(self, "gather_dims")
        _check_values(
            "operand",
            [
                ([self.source], False, _RANKED, _ranked),
                ([self.indices], False, _INDICES, _is_indices),
            ],
        )
        _check_values("result", [([self.result], False, _RANKED, _ranked)])
        source_t, indices_t = self.source.type, self.indices.type
        _verify_dims(dims, _shape(indices_t), len(_shape(source_t)), "gather", "source")
        full = _tensor(
            gather_result_shape(_shape(source_t), _shape(indices_t), dims, False),
            source_t.element_type,
        )
        reduced = _tensor(
            gather_result_shape(_shape(source_t), _shape(indices_t), dims, True),
            source_t.element_type,
        )
        if self.result.type not in (full, reduced):
            raise VerifyException(
                f"result type mismatch: expected {_quote(full)} or its rank-reduced variant "
                f"{_quote(reduced)} (got: {_quote(self.result.type)})"
            )


@runtime_op
class YieldOp(IRDLOperation):
    """``tensor.yield``: the element (``generate``) or padding value (``pad``) at the body's index::

    tensor.yield %v : f32
    """

    name = "tensor.yield"
    value = operand_def(AnyAttr())
    assembly_format = "$value attr-dict `:` type($value)"
    traits = traits_def(Pure(), IsTerminator())

    def verify_(self) -> None:
        parent = self.parent_op()
        if parent is None or parent.name not in ("tensor.generate", "tensor.pad"):
            raise VerifyException("expects parent op to be one of 'tensor.generate, tensor.pad'")


def _verify_body(op: IRDLOperation, region) -> tuple[list, Operation | None]:
    if len(region.blocks) != 1:
        raise VerifyException(
            f"region #0 ('{_region_name(op)}') failed to verify constraint: region with 1 blocks"
        )
    block = region.blocks[0]
    last = block.last_op
    if last is None or last.name != "tensor.yield":
        found = "nothing" if last is None else f"'{last.name}'"
        raise VerifyException(f"expects regions to end with 'tensor.yield', found {found}")
    return list(block.args), last


def _region_name(op: IRDLOperation) -> str:
    return "body" if isinstance(op, GenerateOp) else "region"


@runtime_op
class GenerateOp(IRDLOperation):
    """``tensor.generate``: a tensor whose element at each index is what the body
    yields for it (one ``index`` operand per dynamic dimension)::

    %t = tensor.generate %n {
    ^bb0(%i: index, %j: index):
      %v = arith.addi %i, %j : index
      tensor.yield %v : index
    } : tensor<?x3xindex>
    """

    name = "tensor.generate"
    dynamic_extents = var_operand_def(IndexType)
    result = result_def(AnyAttr())
    body = region_def("single_block")
    assembly_format = "$dynamic_extents $body attr-dict `:` type($result)"
    traits = traits_def(
        RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp), _Canonicalization()
    )

    def asm_result_names(self) -> list[str]:
        return ["generated"]

    def verify_(self) -> None:
        _check_values("operand", [(self.dynamic_extents, True, "index", _index)])
        _check_values("result", [([self.result], False, _RANKED, _ranked)])
        args, yield_op = _verify_body(self, self.body)
        t = self.result.type
        if len(self.dynamic_extents) != sum(1 for d in _shape(t) if d == DYN):
            raise PlainVerifyException(
                "must have as many index operands as dynamic extents in the result type"
            )
        if not all(_index(a.type) for a in args):
            raise PlainVerifyException("all body arguments must be index")
        if len(args) != len(_shape(t)):
            raise PlainVerifyException("must have one body argument per input dimension")
        if yield_op.operands[0].type != t.element_type:  # type: ignore[union-attr]
            raise VerifyException(
                "body must be terminated with a `yield` operation of the tensor element type"
            )


@runtime_op
class InsertOp(IRDLOperation):
    """``tensor.insert``: a copy of ``dest`` with one element replaced::

    %y = tensor.insert %v into %x[%i] : tensor<4xf32>
    """

    name = "tensor.insert"
    ELEMENT: ClassVar = VarConstraint("ELEMENT", AnyAttr())
    TENSOR: ClassVar = VarConstraint("TENSOR", TensorType.constr(ELEMENT))
    scalar = operand_def(ELEMENT)
    dest = operand_def(TENSOR)
    indices = var_operand_def(IndexType)
    result = result_def(TENSOR)
    assembly_format = "$scalar `into` $dest `[` $indices `]` attr-dict `:` type($dest)"
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["inserted"]

    def verify_(self) -> None:
        _check_values(
            "operand",
            [([self.scalar], False, "any type", lambda t: True), ([self.dest], False, _RANKED, _ranked),
             (self.indices, True, "index", _index)],
        )  # fmt: skip
        if self.result.type != self.dest.type:
            raise VerifyException("failed to verify that result type matches type of dest")
        if self.scalar.type != self.dest.type.element_type:
            raise VerifyException("failed to verify that scalar type matches element type of dest")
        if len(self.indices) != len(_shape(self.dest.type)):
            raise VerifyException("incorrect number of indices")


@runtime_op
class InsertSliceOp(IRDLOperation):
    """``tensor.insert_slice``: a copy of ``dest`` with ``source`` written at the
    slice (``source`` may lack the unit dimensions)::

    %y = tensor.insert_slice %s into %x[0, 2] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x16xf32>
    """

    name = "tensor.insert_slice"
    DEST_TYPE: ClassVar = VarConstraint("DEST_TYPE", AnyAttr())
    source = operand_def(AnyAttr())
    dest = operand_def(DEST_TYPE)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))
    result = result_def(DEST_TYPE)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (DynamicIndexList,)
    assembly_format = (
        "$source `into` $dest `` "
        + _SLICE_FORMAT
        + "attr-dict `:` type($source) `into` type($dest)"
    )
    traits = traits_def(Pure(), _Canonicalization())

    def asm_result_names(self) -> list[str]:
        return ["inserted_slice"]

    def verify_(self) -> None:
        _check_values(
            "operand",
            [([self.source], False, _RANKED, _ranked), ([self.dest], False, _RANKED, _ranked)],
        )
        if self.result.type != self.dest.type:
            raise VerifyException("failed to verify that expected result type to match dest type")
        _verify_insert_like(self, self.source.type, self.dest.type)


@runtime_op
class PadOp(IRDLOperation):
    """``tensor.pad``: the source surrounded by ``low[i]``/``high[i]`` elements whose
    value the body yields for each index of the result::

    %p = tensor.pad %x low[1, 0] high[0, 2] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
    } : tensor<2x3xf32> to tensor<3x5xf32>
    """

    name = "tensor.pad"
    source = operand_def(AnyAttr())
    low = var_operand_def(IndexType)
    high = var_operand_def(IndexType)
    static_low = prop_def(DenseArrayBase.constr(i64))
    static_high = prop_def(DenseArrayBase.constr(i64))
    nofold = opt_prop_def(UnitAttr)
    region = region_def("single_block")
    result = result_def(AnyAttr())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (DynamicIndexList,)
    assembly_format = (
        "$source (`nofold` $nofold^)? `low` `` custom<DynamicIndexList>($low, $static_low) "
        "`high` `` custom<DynamicIndexList>($high, $static_high) $region attr-dict "
        "`:` type($source) `to` type($result)"
    )
    traits = traits_def(Pure(), SingleBlockImplicitTerminator(YieldOp), _Canonicalization())

    def asm_result_names(self) -> list[str]:
        return ["padded"]

    def verify_(self) -> None:
        low = _dense_i64(self, "static_low")
        high = _dense_i64(self, "static_high")
        _check_values(
            "operand",
            [
                ([self.source], False, _RANKED, _ranked),
                (list(self.low) + list(self.high), True, "index", _index),
            ],
        )
        _check_values("result", [([self.result], False, _RANKED, _ranked)])
        for name, static, values in (("low", low, self.low), ("high", high, self.high)):
            n = sum(1 for s in static if s == DYN)
            if len(values) != n:
                raise PlainVerifyException(f"expected {n} dynamic {name} values, got {len(values)}")
        source_t, result_t = self.source.type, self.result.type
        source = _shape(source_t)
        if len(low) != len(source) or len(high) != len(source):
            raise PlainVerifyException(
                f"failed to infer expectedType from sourceType {_quote(source_t)}, specified resultType is "
                f"{_quote(result_t)}"
            )
        expected = [
            DYN if DYN in (s, lo, hi) else s + lo + hi for s, lo, hi in zip(source, low, high)
        ]
        expected_t = _tensor(expected, source_t.element_type)
        result = _shape(result_t)
        if len(result) != len(expected) or any(
            e != DYN and r != e for r, e in zip(result, expected)
        ):
            raise PlainVerifyException(
                f"specified type {_quote(result_t)} does not match the inferred type {_quote(expected_t)}"
            )
        args, yield_op = _verify_body(self, self.region)
        if len(args) != len(result):
            raise PlainVerifyException(f"expected the block to have {len(result)} arguments")
        for i, a in enumerate(args):
            if not _index(a.type):
                raise VerifyException(f"expected block argument {i + 1} to be an index")
        if yield_op.operands[0].type != result_t.element_type:  # type: ignore[union-attr]
            raise VerifyException("expected yield type to match shape element type")


@runtime_op
class ParallelInsertSliceOp(IRDLOperation):
    """``tensor.parallel_insert_slice``: one thread's slice update, inside the
    terminator of ``scf.forall`` (which this compiler does not define: the op
    verifies only there, and does not lower)::

    tensor.parallel_insert_slice %s into %out[%i] [4] [1] : tensor<4xf32> into tensor<16xf32>
    """

    name = "tensor.parallel_insert_slice"
    source = operand_def(AnyAttr())
    dest = operand_def(AnyAttr())
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (DynamicIndexList,)
    assembly_format = (
        "$source `into` $dest `` "
        + _SLICE_FORMAT
        + "attr-dict `:` type($source) `into` type($dest)"
    )
    traits = traits_def(_Canonicalization())

    def verify_(self) -> None:
        _check_values(
            "operand",
            [([self.source], False, _RANKED, _ranked), ([self.dest], False, _RANKED, _ranked)],
        )
        parent = self.parent_op()
        parent_name = getattr(parent, "op_name", None)
        parent_name = parent_name.data if parent_name is not None else getattr(parent, "name", None)
        if parent_name not in PARALLEL_COMBINING:
            raise PlainVerifyException(
                f"expected ParallelCombiningOpInterface parent, got:'{parent_name}'"
            )
        _verify_insert_like(self, self.source.type, self.dest.type)


@runtime_op
class RankOp(IRDLOperation):
    """``tensor.rank``: the number of dimensions::

    %r = tensor.rank %x : tensor<4x5xf32>
    """

    name = "tensor.rank"
    tensor = operand_def(AnyAttr())
    result = result_def(IndexType())
    assembly_format = "$tensor attr-dict `:` type($tensor)"
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["rank"]

    def verify_(self) -> None:
        _check_values("operand", [([self.tensor], False, _TENSOR, _any_tensor)])


@runtime_op
class ReshapeOp(IRDLOperation):
    """``tensor.reshape``: the elements in row-major order, in the shape the
    ``shape`` operand holds::

    %r = tensor.reshape %x(%shape) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
    """

    name = "tensor.reshape"
    source = operand_def(AnyAttr())
    shape = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    assembly_format = "$source `(` $shape `)` attr-dict `:` functional-type(operands, results)"
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["reshape"]

    def verify_(self) -> None:
        _check_values(
            "operand",
            [([self.source], False, _TENSOR, _any_tensor),
             ([self.shape], False, "1D tensor of signless integer or index values",
              lambda t: _ranked(t) and len(_shape(t)) == 1 and _signless_int_or_index(t.element_type))],
        )  # fmt: skip
        _check_values("result", [([self.result], False, _TENSOR, _any_tensor)])
        a, r = self.source.type, self.result.type
        if a.element_type != r.element_type:
            raise VerifyException(
                "element types of source and destination tensor types should be the same"
            )
        if not _ranked(r):
            return
        if _ranked(a) and DYN not in _shape(a) and DYN not in _shape(r):
            na = nr = 1
            for d in _shape(a):
                na *= d
            for d in _shape(r):
                nr *= d
            if na != nr:
                raise VerifyException(
                    "source and destination tensor should have the same number of elements"
                )
        length = _shape(self.shape.type)[0]
        if length == DYN:
            raise VerifyException(
                "cannot use shape operand with dynamic length to reshape to statically-ranked tensor type"
            )
        if length != len(_shape(r)):
            raise VerifyException("length of shape operand differs from the result's tensor rank")


@runtime_op
class ScatterOp(IRDLOperation):
    """``tensor.scatter``: a copy of ``dest`` with each slice of ``source`` written
    at the coordinates ``indices`` give along ``scatter_dims`` (``unique``:
    no two coordinate tuples are equal)::

    %s = tensor.scatter %u into %x[%i] scatter_dims([0]) unique
        : (tensor<3x1x5xf32>, tensor<4x5xf32>, tensor<3x1xindex>) -> tensor<4x5xf32>
    """

    name = "tensor.scatter"
    source = operand_def(AnyAttr())
    dest = operand_def(AnyAttr())
    indices = operand_def(AnyAttr())
    scatter_dims = prop_def(DenseArrayBase.constr(i64))
    unique = opt_prop_def(UnitAttr)
    result = result_def(AnyAttr())
    assembly_format = (
        "$source `into` $dest `[` $indices `]` `scatter_dims` `(` $scatter_dims `)` (`unique` $unique^)? "
        "attr-dict `:` functional-type(operands, results)"
    )
    traits = traits_def(Pure())

    def asm_result_names(self) -> list[str]:
        return ["scatter"]

    def verify_(self) -> None:
        dims = _dense_i64(self, "scatter_dims")
        _check_values(
            "operand",
            [([self.source], False, _RANKED, _ranked), ([self.dest], False, _RANKED, _ranked),
             ([self.indices], False, _INDICES, _is_indices)],
        )  # fmt: skip
        _check_values("result", [([self.result], False, _RANKED, _ranked)])
        dest_t, indices_t = self.dest.type, self.indices.type
        _verify_dims(dims, _shape(indices_t), len(_shape(dest_t)), "scatter", "dest")
        if self.unique is None:
            raise VerifyException("requires 'unique' attribute to be set")
        full = _tensor(
            gather_result_shape(_shape(dest_t), _shape(indices_t), dims, False), dest_t.element_type
        )
        reduced = _tensor(
            gather_result_shape(_shape(dest_t), _shape(indices_t), dims, True), dest_t.element_type
        )
        if self.source.type not in (full, reduced):
            raise VerifyException(
                f"source type mismatch: expected {_quote(full)} or its rank-reduced variant "
                f"{_quote(reduced)} (got: {_quote(self.source.type)})"
            )


def _int_index_float(t: Attribute) -> bool:
    if isinstance(t, IndexType):
        return True
    if isinstance(t, IntegerType):
        return t.signedness.data == Signedness.SIGNLESS
    return _bit_width(t) is not None and not isinstance(t, IntegerType)


@runtime_op
class SplatOp(IRDLOperation):
    """``tensor.splat``: a tensor whose every element is the operand (one
    ``index`` per dynamic dimension)::

    %s = tensor.splat %v[%n] : tensor<?x4xf32>
    """

    name = "tensor.splat"
    SPLAT_TYPE: ClassVar = VarConstraint("SPLAT_TYPE", AnyAttr())
    input = operand_def(SPLAT_TYPE)
    dynamicSizes = var_operand_def(IndexType)
    result = result_def(TensorType.constr(SPLAT_TYPE))
    assembly_format = "$input (`[` $dynamicSizes^ `]`)? attr-dict `:` type($result)"
    traits = traits_def(Pure(), _Canonicalization())

    def asm_result_names(self) -> list[str]:
        return ["splat"]

    def verify_(self) -> None:
        _check_values(
            "operand",
            [([self.input], False, "integer/index/float type", _int_index_float),
             (self.dynamicSizes, True, "index", _index)],
        )  # fmt: skip
        t = self.result.type
        if self.input.type != t.element_type:
            raise VerifyException(
                "failed to verify that operand type matches element type of result"
            )
        n = sum(1 for d in _shape(t) if d == DYN)
        if len(self.dynamicSizes) != n:
            raise VerifyException(
                f"incorrect number of dynamic sizes, has {len(self.dynamicSizes)}, expected {n}"
            )


Tensor = Dialect(
    "tensor",
    [
        BitcastOp,
        CastOp,
        CollapseShapeOp,
        ConcatOp,
        DimOp,
        EmptyOp,
        ExpandShapeOp,
        ExtractOp,
        ExtractSliceOp,
        FromElementsOp,
        GatherOp,
        GenerateOp,
        InsertOp,
        InsertSliceOp,
        PadOp,
        ParallelInsertSliceOp,
        RankOp,
        ReshapeOp,
        ScatterOp,
        SplatOp,
        YieldOp,
    ],
    [],
)
