"""``linalg.pack``, ``linalg.unpack`` and ``linalg.softmax``, with MLIR's syntax and verifiers.

MLIR defines the two relayout ops in ``LinalgRelayoutOps.td`` and softmax in
``LinalgOps.td``; the semantics, the custom syntax and the verifier messages
here are theirs.

``linalg.pack`` tiles a rank-``n`` source into a rank ``n + k`` result:
``inner_dims_pos[i]`` is the source dimension cut into tiles of
``inner_tiles[i]`` (the result's ``n + i``-th dimension), each tiled
dimension keeps ``ceil(size / tile)`` outer tiles, ``outer_dims_perm``
(optional) permutes the ``n`` outer dimensions, and ``padding_value`` fills
incomplete tiles (it is required when a tile does not divide its dimension)::

    %p = linalg.pack %src padding_value(%pad : i32) outer_dims_perm = [1, 0]
        inner_dims_pos = [1, 0] inner_tiles = [16, 32] into %dest
        : tensor<100x250xi32> -> tensor<16x4x16x32xi32>

``linalg.unpack`` is its inverse; a destination smaller than the tiles hold
drops the padding::

    %u = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
        inner_tiles = [16, 32] into %d : tensor<16x4x16x32xi32> -> tensor<100x250xi32>

Tiles are integers or ``index`` values (``inner_tiles = [%c16, 32]``); as in
MLIR, the packed type has ``?`` where a tile is a value.  On memrefs (source
and destination both memrefs) the op writes its destination and has no
result, as MLIR's destination-style ops do::

    linalg.pack %m inner_dims_pos = [0, 1] inner_tiles = [8, 32] into %d
        : memref<128x256xf32> -> memref<16x8x8x32xf32>

``linalg.softmax`` is ``exp(x - max) / sum(exp(x - max))`` along ``dimension``::

    %s = linalg.softmax dimension(2) ins(%x : tensor<2x16x32xf32>)
        outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>

``passes/decompose_linalg.py`` rewrites all three into ops the compiler
lowers (docs/compiler.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    TensorType,
    i32,
    i64,
)
from xdsl.dialects.utils import DynamicIndexList
from xdsl.ir import Attribute, OpResult, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    base,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import PlainVerifyException, runtime_op

__all__ = [
    "RELAYOUT_OPS",
    "PackOp",
    "SoftmaxOp",
    "UnPackOp",
    "constant_index",
    "fold_static_tiles",
    "mixed_tiles",
    "packed_shape",
]


# MLIR's DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">: an empty
# outer_dims_perm is no permutation, and is not printed.
_NO_PERM = DenseArrayBase.from_list(i64, [])


def constant_index(value: SSAValue) -> int | None:
    """The integer an ``index`` value is an ``arith.constant`` of, or None."""
    if not isinstance(value, OpResult) or value.op.name != "arith.constant":
        return None
    attr = value.op.properties.get("value")
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    return None


def mixed_tiles(op: PackOp | UnPackOp) -> list[int | SSAValue]:
    """The tiles in order: an int for each static tile, the value for each
    dynamic one (MLIR's ``getMixedTiles``)."""
    dynamic = iter(op.inner_tiles)
    statics = op.static_inner_tiles.get_values()
    return [next(dynamic, None) if t == DYNAMIC_INDEX else t for t in statics]


def fold_static_tiles(op: PackOp | UnPackOp) -> bool:
    """Make static each tile given as a constant value whose packed dimension
    is static (MLIR's ``getNewMixedTileSizes``, used when a cast makes the
    packed type static); returns whether it changed ``op``.

    A pass that makes a packed type static calls this: MLIR's verifier wants
    a ``?`` tile dimension wherever a tile is a value."""
    packed = op.dest.type if isinstance(op, PackOp) else op.source.type
    statics = list(op.static_inner_tiles.get_values())
    shape = list(packed.get_shape())
    if len(shape) < len(statics):
        return False
    dims = shape[len(shape) - len(statics) :]
    dynamic = iter(op.inner_tiles)
    new_static: list[int] = []
    new_dynamic: list[SSAValue] = []
    for dim, tile in zip(dims, statics):
        if tile != DYNAMIC_INDEX:
            new_static.append(tile)
            continue
        value = next(dynamic, None)
        if value is None:
            return False  # malformed: the verifier says so
        if dim != DYNAMIC_INDEX and constant_index(value) == dim:
            new_static.append(dim)
        else:
            new_static.append(DYNAMIC_INDEX)
            new_dynamic.append(value)
    if len(new_dynamic) == len(op.inner_tiles):
        return False
    padded = isinstance(op, PackOp) and op.padding_value is not None
    fixed = list(op.operands[: len(op.operands) - len(op.inner_tiles)])
    op.operands = [*fixed, *new_dynamic]
    op.properties["static_inner_tiles"] = DenseArrayBase.from_list(i64, new_static)
    if isinstance(op, PackOp):
        sizes = [1, 1, int(padded), len(new_dynamic)]
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, sizes)
    return True


def _tile_constant(tile: int | SSAValue | None) -> int | None:
    """A tile's value when it is known at compile time (MLIR's getConstantIntValue)."""
    if isinstance(tile, int):
        return tile
    if tile is None:
        return None
    return constant_index(tile)


def packed_shape(
    unpacked: Sequence[int],
    tiles: Sequence[int],
    inner_dims_pos: Sequence[int],
    outer_dims_perm: Sequence[int],
) -> list[int]:
    """The packed shape for an unpacked one (MLIR's ``PackOp::inferPackedType``):
    each tiled dimension becomes ``ceil(size / tile)`` (dynamic when the size
    or the tile is), the outer dimensions are permuted, the tiles appended."""
    shape = list(unpacked)
    for pos, tile in zip(inner_dims_pos, tiles):
        if shape[pos] == DYNAMIC_INDEX:
            continue
        if tile == DYNAMIC_INDEX:
            shape[pos] = DYNAMIC_INDEX
            continue
        shape[pos] = -(-shape[pos] // tile)
    if outer_dims_perm:
        shape = [shape[p] for p in outer_dims_perm]
    return shape + list(tiles)


def _invalid_positions(positions: Sequence[int], rank: int) -> bool:
    """MLIR's isInvalidPackingPosSpecification."""
    if len(positions) > rank or len(set(positions)) != len(positions):
        return True
    return any(p < 0 or p >= rank for p in positions)


def _compatible(a: Sequence[int], b: Sequence[int]) -> bool:
    return len(a) == len(b) and all(x == y or DYNAMIC_INDEX in (x, y) for x, y in zip(a, b))


def _type_text(shape: Sequence[int], element: Attribute) -> str:
    return str(TensorType(element, list(shape)))


@irdl_custom_directive
class DestinationType(CustomDirective):
    """The type of a destination-style op's destination, which also decides
    its results.

    Grammar::

        destination-type ::= type

    Semantics: `type` is the type of the destination operand (`dest`); the
    op has one result of that type when it is a tensor, none when it is a
    buffer (a memref), as MLIR's destination-passing ops
    (``linalg.pack``/``unpack`` on memrefs) do.
    ``DestinationType.result_types(t)`` gives the results.

    Printing: the destination's type.
    """

    dest: TypeDirective
    results: TypeDirective

    @staticmethod
    def result_types(dest: Attribute) -> list[Attribute]:
        return [dest] if isinstance(dest, TensorType) else []

    def parse(self, parser: Parser, state: ParsingState) -> None:
        t = parser.parse_type()
        self.dest.set(state, [t])
        self.results.set(state, self.result_types(t))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_attribute(self.dest.get(op)[0])
        state.should_emit_space = True
        state.last_was_punctuation = False


_SHAPED = base(TensorType) | base(MemRefType)


def _verify_destination(op: PackOp | UnPackOp) -> None:
    """Tensors or memrefs, not both; a tensor destination's type is the result's."""
    src, dest = op.source.type, op.dest.type
    if isinstance(src, TensorType) != isinstance(dest, TensorType):
        raise VerifyException(
            f"expected the source ('{src}') and the destination ('{dest}') to be both tensors or both memrefs"
        )
    expected = DestinationType.result_types(dest)
    if [r.type for r in op.result] != expected:
        raise VerifyException(
            f"expected {len(expected)} result(s) of the destination's type '{dest}', "
            f"got ({', '.join(str(r.type) for r in op.result)})"
        )


def _verify_relayout(op: PackOp | UnPackOp, unpacked_type: TensorType, packed_type: TensorType):
    """MLIR's commonVerifierPackAndUnPackOp: the checks pack and unpack share."""
    statics = list(op.static_inner_tiles.get_values())
    n_dynamic = sum(1 for t in statics if t == DYNAMIC_INDEX)
    if n_dynamic != len(op.inner_tiles):
        raise VerifyException(
            f"expected {n_dynamic} dynamic inner tile values for the {n_dynamic} '?' entries "
            f"of static_inner_tiles, got {len(op.inner_tiles)}"
        )
    tiles = mixed_tiles(op)
    if any(_tile_constant(t) == 0 for t in tiles):
        raise PlainVerifyException("invalid zero tile factor")
    unpacked_shape = list(unpacked_type.get_shape())
    rank = len(unpacked_shape)
    inner = list(op.inner_dims_pos.get_values())
    outer = list(op.outer_dims_perm.get_values()) if op.outer_dims_perm is not None else []
    if _invalid_positions(inner, rank):
        raise PlainVerifyException("invalid inner_dims_pos vector")
    if _invalid_positions(outer, rank):
        raise PlainVerifyException("invalid outer_dims_perm vector")
    if outer and len(outer) != rank:
        raise PlainVerifyException("outer_dims_perm must be a permutation or empty")
    if len(tiles) > rank:
        raise PlainVerifyException(
            "tiling factors must be less than or equal to the input rank for pack or output rank for unpack"
        )
    if len(tiles) != len(inner):
        raise PlainVerifyException("tiling factors must equal the number of dimensions to tile")
    packed = list(packed_type.get_shape())
    if len(packed) != rank + len(tiles):
        raise PlainVerifyException(
            f"packed rank != (unpacked rank + num tiling factors), got {len(packed)} != {rank + len(tiles)}"
        )
    # A static tile must be the packed type's tile dimension; a tile given
    # as a value (even a constant one) needs a dynamic dimension there.
    for dim, tile in zip(packed[len(packed) - len(tiles) :], tiles):
        if (dim != tile) if isinstance(tile, int) else (dim != DYNAMIC_INDEX):
            raise PlainVerifyException(
                "mismatch in inner tile sizes specified and shaped of tiled dimension in the packed type"
            )
    expected = packed_shape(unpacked_shape, statics, inner, outer)
    if not _compatible(expected, packed):
        raise PlainVerifyException(
            f"expected '{_type_text(expected, unpacked_type.element_type)}' for the packed domain value, "
            f"got '{packed_type}'"
        )


def _require_padding(op: PackOp) -> bool:
    """MLIR's PackOp::requirePaddingValue: some tile is known not to divide its dimension."""
    source = list(op.source.type.get_shape())
    dest = list(op.dest.type.get_shape())
    outer_tiles = dest[: len(source)]
    if op.outer_dims_perm is not None and len(op.outer_dims_perm) == len(source):
        perm = list(op.outer_dims_perm.get_values())
        by_source = [0] * len(source)
        for i, p in enumerate(perm):
            by_source[p] = outer_tiles[i]
        outer_tiles = by_source
    for pos, tile in zip(op.inner_dims_pos.get_values(), mixed_tiles(op)):
        if source[pos] == DYNAMIC_INDEX:
            continue
        size = _tile_constant(tile)
        if size is None:
            if outer_tiles[pos] != DYNAMIC_INDEX and source[pos] % outer_tiles[pos] != 0:
                return True
        elif source[pos] % size != 0:
            return True
    return False


@runtime_op
class PackOp(IRDLOperation):
    """``linalg.pack``: tile a tensor into a higher-rank one (see the module docstring)::

        %p = linalg.pack %src padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [8]
            into %dest : tensor<9xf32> -> tensor<2x8xf32>
    """

    name = "linalg.pack"

    # In MLIR's order (the generic form's operandSegmentSizes follow it).
    # Tensors, or memrefs (then the op writes `dest` and has no result).
    source = operand_def(_SHAPED)
    dest = operand_def(_SHAPED)
    padding_value = opt_operand_def()
    inner_tiles = var_operand_def(IndexType)
    outer_dims_perm = opt_prop_def(DenseArrayBase.constr(i64), _NO_PERM)
    inner_dims_pos = prop_def(DenseArrayBase.constr(i64))
    static_inner_tiles = prop_def(DenseArrayBase.constr(i64))
    # One result of the destination's type for a tensor (MLIR's TypesMatchWith).
    result = var_result_def(TensorType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (DynamicIndexList, DestinationType)
    traits = traits_def(Pure())

    assembly_format = (
        "$source (`padding_value` `(` $padding_value^ `:` type($padding_value) `)`)? "
        "(`outer_dims_perm` `=` $outer_dims_perm^)? `inner_dims_pos` `=` $inner_dims_pos "
        "`inner_tiles` `=` custom<DynamicIndexList>($inner_tiles, $static_inner_tiles) "
        "`into` $dest attr-dict `:` type($source) `->` custom<DestinationType>(type($dest), type($result))"
    )

    def asm_result_names(self) -> list[str]:
        """MLIR's getAsmResultNames: ``%pack``."""
        return ["pack"]

    def verify_(self) -> None:
        _verify_destination(self)
        _verify_relayout(self, self.source.type, self.dest.type)
        element = self.source.type.element_type
        pad = self.padding_value
        if pad is not None and pad.type != element:
            raise VerifyException(f"expected padding_value has '{element}' but got: '{pad.type}'")
        if pad is None and _require_padding(self):
            raise VerifyException(
                "invalid tile factor or output size provided. Only full tiles are supported "
                "when padding_value is not set"
            )


@runtime_op
class UnPackOp(IRDLOperation):
    """``linalg.unpack``: the inverse of ``linalg.pack`` (see the module docstring)::

        %u = linalg.unpack %p inner_dims_pos = [0] inner_tiles = [8] into %dest
            : tensor<2x8xf32> -> tensor<9xf32>
    """

    name = "linalg.unpack"

    source = operand_def(_SHAPED)
    dest = operand_def(_SHAPED)
    inner_tiles = var_operand_def(IndexType)
    outer_dims_perm = opt_prop_def(DenseArrayBase.constr(i64), _NO_PERM)
    inner_dims_pos = prop_def(DenseArrayBase.constr(i64))
    static_inner_tiles = prop_def(DenseArrayBase.constr(i64))
    result = var_result_def(TensorType)

    custom_directives = (DynamicIndexList, DestinationType)
    traits = traits_def(Pure())

    assembly_format = (
        "$source (`outer_dims_perm` `=` $outer_dims_perm^)? `inner_dims_pos` `=` $inner_dims_pos "
        "`inner_tiles` `=` custom<DynamicIndexList>($inner_tiles, $static_inner_tiles) "
        "`into` $dest attr-dict `:` type($source) `->` custom<DestinationType>(type($dest), type($result))"
    )

    def asm_result_names(self) -> list[str]:
        """MLIR's getAsmResultNames: ``%unpack``."""
        return ["unpack"]

    def verify_(self) -> None:
        _verify_destination(self)
        _verify_relayout(self, self.dest.type, self.source.type)


@runtime_op
class SoftmaxOp(IRDLOperation):
    """``linalg.softmax``: ``exp(x - max) / sum(exp(x - max))`` along ``dimension``::

        %s = linalg.softmax dimension(1) ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>)
            -> tensor<2x8xf32>
    """

    name = "linalg.softmax"

    input = operand_def(base(TensorType) | base(MemRefType))
    output = operand_def(base(TensorType) | base(MemRefType))
    dimension = prop_def(IntegerAttr[I64])
    result = var_result_def(TensorType)

    assembly_format = (
        "attr-dict `dimension` `(` $dimension `)` `ins` `(` $input `:` type($input) `)` "
        "`outs` `(` $output `:` type($output) `)` (`->` type($result)^)?"
    )

    def verify_(self) -> None:
        in_type, out_type = self.input.type, self.output.type
        if in_type.element_type != out_type.element_type:
            raise VerifyException("failed to verify that input and output have same element type")
        # DestinationStyleOpInterface: one tensor result per tensor init, of its type.
        n_tensor_outs = 1 if isinstance(out_type, TensorType) else 0
        if len(self.result) != n_tensor_outs:
            raise VerifyException(
                f"expected the number of tensor results ({len(self.result)}) to be equal to the "
                f"number of output tensors ({n_tensor_outs})"
            )
        if n_tensor_outs and self.result[0].type != out_type:
            raise VerifyException(
                f"expected type of operand #1 ('{out_type}') to match type of corresponding "
                f"result ('{self.result[0].type}')"
            )
        if not _compatible(list(in_type.get_shape()), list(out_type.get_shape())):
            raise VerifyException("incompatible output shape")
        dim = self.dimension.value.data
        if dim < 0 or dim >= len(in_type.get_shape()):
            raise VerifyException("incorrect dimension specified")


RELAYOUT_OPS: list[type[IRDLOperation]] = [PackOp, UnPackOp, SoftmaxOp]
