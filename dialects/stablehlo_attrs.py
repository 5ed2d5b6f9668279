"""The attributes and types of the ``stablehlo`` dialect (see :mod:`tfrt.dialects.stablehlo`).

Enumerations print in MLIR's opaque form, ``#stablehlo<comparison_direction GT>``;
the structured attributes in their pretty forms::

    #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],
                   lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>
    #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>
    #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0],
                      start_index_map = [0], index_vector_dim = 1>
    #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
                       scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
    #stablehlo.type_extensions<bounds = [?, 4]>

Each structured attribute keeps its fields in one dictionary parameter and
offers them as Python properties returning plain values (tuples of ints,
ints, bools, types); the lowering reads only those.  The syntax is
StableHLO's (``StablehloAttrs.td`` and the printers of ``StablehloOps.cpp``):
a field left out reads as its default (an empty list, 0, false), and the
dimension-number structs print only the fields that differ from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i64,
)
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import (
    Attribute,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    TypeAttribute,
)
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

#: MLIR's ``ShapedType::kDynamic``: a bound or size printed as ``?``.
DYNAMIC = -(1 << 63)

_F64 = Float64Type()


# ---------------------------------------------------------------- enumerations


class ComparisonDirection(StrEnum):
    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"


class ComparisonType(StrEnum):
    NOTYPE = "NOTYPE"
    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


class Precision(StrEnum):
    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"


class ResultAccuracyMode(StrEnum):
    DEFAULT = "DEFAULT"
    HIGHEST = "HIGHEST"
    TOLERANCE = "TOLERANCE"


class FftType(StrEnum):
    FFT = "FFT"
    IFFT = "IFFT"
    RFFT = "RFFT"
    IRFFT = "IRFFT"


class Transpose(StrEnum):
    TRANSPOSE_INVALID = "TRANSPOSE_INVALID"
    NO_TRANSPOSE = "NO_TRANSPOSE"
    TRANSPOSE = "TRANSPOSE"
    ADJOINT = "ADJOINT"


class RngDistribution(StrEnum):
    UNIFORM = "UNIFORM"
    NORMAL = "NORMAL"


class RngAlgorithm(StrEnum):
    DEFAULT = "DEFAULT"
    THREE_FRY = "THREE_FRY"
    PHILOX = "PHILOX"


@irdl_attr_definition
class ComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<comparison_direction GT>``"""

    name = "stablehlo.comparison_direction"


@irdl_attr_definition
class ComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<comparison_type FLOAT>``"""

    name = "stablehlo.comparison_type"


@irdl_attr_definition
class PrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<precision DEFAULT>``"""

    name = "stablehlo.precision"


@irdl_attr_definition
class ResultAccuracyModeAttr(EnumAttribute[ResultAccuracyMode], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<result_accuracy_mode DEFAULT>``"""

    name = "stablehlo.result_accuracy_mode"


@irdl_attr_definition
class FftTypeAttr(EnumAttribute[FftType], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<fft_type FFT>``"""

    name = "stablehlo.fft_type"


@irdl_attr_definition
class TransposeAttr(EnumAttribute[Transpose], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<transpose NO_TRANSPOSE>``"""

    name = "stablehlo.transpose"


@irdl_attr_definition
class RngDistributionAttr(EnumAttribute[RngDistribution], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<rng_distribution UNIFORM>``"""

    name = "stablehlo.rng_distribution"


@irdl_attr_definition
class RngAlgorithmAttr(EnumAttribute[RngAlgorithm], SpacedOpaqueSyntaxAttribute):
    """``#stablehlo<rng_algorithm THREE_FRY>``"""

    name = "stablehlo.rng_algorithm"


#: Enum attribute class by the mnemonic the ops' custom forms use.
ENUM_ATTRS: dict[str, type[EnumAttribute]] = {
    cls.name.split(".", 1)[1]: cls
    for cls in (
        ComparisonDirectionAttr,
        ComparisonTypeAttr,
        PrecisionAttr,
        ResultAccuracyModeAttr,
        FftTypeAttr,
        TransposeAttr,
        RngDistributionAttr,
        RngAlgorithmAttr,
    )
}


def enum_value(attr: Attribute | None) -> str | None:
    """The case name of an enum attribute (``"GT"``), or None."""
    if isinstance(attr, EnumAttribute):
        return str(attr.data.value)
    return None


# ---------------------------------------------------------------- field helpers
# Field kinds: "dims" (list of i64, ? allowed where noted), "int", "bool",
# "type", "float", "attr".


def _dims_attr(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _default(kind: str) -> Attribute:
    if kind == "dims":
        return _dims_attr(())
    if kind == "int":
        return IntegerAttr(0, i64)
    if kind == "bool":
        return IntegerAttr(0, IntegerType(1))
    if kind == "float":
        return FloatAttr(0.0, _F64)
    raise ValueError(kind)


def _plain(kind: str, attr: Attribute) -> Any:
    if kind == "dims":
        assert isinstance(attr, DenseArrayBase)
        return tuple(int(v) for v in attr.get_values())
    if kind in ("int",):
        assert isinstance(attr, IntegerAttr)
        return int(attr.value.data)
    if kind == "bool":
        assert isinstance(attr, IntegerAttr)
        return bool(attr.value.data)
    if kind == "float":
        assert isinstance(attr, FloatAttr)
        return float(attr.value.data)
    return attr


def _wrap(kind: str, value: Any) -> Attribute:
    if kind == "dims":
        return _dims_attr(value)
    if kind == "int":
        return IntegerAttr(int(value), i64)
    if kind == "bool":
        return IntegerAttr(1 if value else 0, IntegerType(1))
    if kind == "float":
        return FloatAttr(float(value), _F64)
    return value


def parse_dims(parser: AttrParser, allow_dynamic: bool = False) -> list[int]:
    """``[1, 2, ?]``"""

    def one() -> int:
        if allow_dynamic and parser.parse_optional_punctuation("?") is not None:
            return DYNAMIC
        return parser.parse_integer(allow_boolean=False)

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)


def dims_text(values: Sequence[int]) -> str:
    return "[" + ", ".join("?" if v == DYNAMIC else str(v) for v in values) + "]"


def _print_float(printer: Printer, value: float) -> None:
    printer.print_float(value, _F64)


class _StructAttr(ParametrizedAttribute):
    """A StableHLO struct attribute: ``<name = value, ...>`` in any order.

    ``FIELDS`` lists ``(name, kind)``; the values live in one dictionary
    (always every field, defaults included, so equal structs are equal).
    ``ELIDE_DEFAULTS`` prints only the fields that differ from their
    default (StableHLO's ``printStruct``); otherwise every field prints
    (``struct(params)``).
    """

    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = ()
    ELIDE_DEFAULTS: ClassVar[bool] = True
    REQUIRED: ClassVar[frozenset[str]] = frozenset()

    fields: DictionaryAttr

    @classmethod
    def get(cls, **values: Any):
        names = {n for n, _ in cls.FIELDS}
        unknown = set(values) - names
        if unknown:
            raise ValueError(f"unknown field(s) {sorted(unknown)} of {cls.name}")
        data: dict[str, Attribute] = {}
        for name, kind in cls.FIELDS:
            data[name] = _wrap(kind, values[name]) if name in values else _default(kind)
        return cls(DictionaryAttr(data))

    def value(self, name: str) -> Any:
        kind = dict(self.FIELDS)[name]
        return _plain(kind, self.fields.data[name])

    def as_dict(self) -> dict[str, Any]:
        return {n: self.value(n) for n, _ in self.FIELDS}

    @classmethod
    def _parse_value(cls, parser: AttrParser, kind: str) -> Any:
        if kind == "dims":
            return parse_dims(parser)
        if kind == "int":
            return parser.parse_integer(allow_boolean=False)
        if kind == "bool":
            if parser.parse_optional_keyword("true") is not None:
                return True
            parser.parse_keyword("false")
            return False
        if kind == "type":
            return parser.parse_type()
        if kind == "float":
            return parser.parse_float()
        return parser.parse_attribute()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        return cls._parse_body(parser)

    @classmethod
    def _parse_body(cls, parser: AttrParser) -> Sequence[Attribute]:
        """The fields and the closing ``>`` (the ``<`` already read)."""
        kinds = dict(cls.FIELDS)
        values: dict[str, Any] = {}
        if parser.parse_optional_punctuation(">") is None:
            while True:
                pos = parser.pos
                key = parser.parse_identifier()
                if key not in kinds:
                    parser.raise_error(
                        f"expected one of: {', '.join(f'`{n}`' for n in kinds)}", pos, parser.pos
                    )
                if key in values:
                    parser.raise_error(f"duplicated `{key}` entry", pos, parser.pos)
                parser.parse_punctuation("=")
                values[key] = cls._parse_value(parser, kinds[key])
                if parser.parse_optional_punctuation(",") is None:
                    parser.parse_punctuation(">")
                    break
                # StableHLO's struct parser takes a trailing comma.
                if parser.parse_optional_punctuation(">") is not None:
                    break
        missing = [n for n in cls.REQUIRED if n not in values]
        if missing:
            parser.raise_error(f"struct is missing required parameter: {missing[0]}")
        return cls.get(**values).parameters

    def _print_value(self, printer: Printer, kind: str, value: Any) -> None:
        if kind == "dims":
            printer.print_string(dims_text(value))
        elif kind in ("int",):
            printer.print_string(str(value))
        elif kind == "bool":
            printer.print_string("true" if value else "false")
        elif kind == "float":
            _print_float(printer, value)
        else:
            printer.print_attribute(value)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        self._print_body(printer)

    def _print_body(self, printer: Printer) -> None:
        first = True
        for name, kind in self.FIELDS:
            value = self.value(name)
            if self.ELIDE_DEFAULTS and kind in ("dims", "int") and not value:
                continue
            if not first:
                printer.print_string(", ")
            first = False
            printer.print_string(f"{name} = ")
            self._print_value(printer, kind, value)
        printer.print_string(">")


def _field_property(name: str) -> property:
    return property(lambda self: self.value(name), doc=f"The ``{name}`` field.")


def _with_properties(cls):
    for name, _ in cls.FIELDS:
        if not hasattr(cls, name):
            setattr(cls, name, _field_property(name))
    return cls


@_with_properties
@irdl_attr_definition
class DotDimensionNumbersAttr(_StructAttr):
    """``#stablehlo.dot<lhs_batching_dimensions = [0], ..., rhs_contracting_dimensions = [1]>``"""

    name = "stablehlo.dot"
    FIELDS: ClassVar = (
        ("lhs_batching_dimensions", "dims"),
        ("rhs_batching_dimensions", "dims"),
        ("lhs_contracting_dimensions", "dims"),
        ("rhs_contracting_dimensions", "dims"),
    )


@_with_properties
@irdl_attr_definition
class GatherDimensionNumbersAttr(_StructAttr):
    """``#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>``"""

    name = "stablehlo.gather"
    FIELDS: ClassVar = (
        ("offset_dims", "dims"),
        ("collapsed_slice_dims", "dims"),
        ("operand_batching_dims", "dims"),
        ("start_indices_batching_dims", "dims"),
        ("start_index_map", "dims"),
        ("index_vector_dim", "int"),
    )


@_with_properties
@irdl_attr_definition
class ScatterDimensionNumbersAttr(_StructAttr):
    """``#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], ...>``"""

    name = "stablehlo.scatter"
    FIELDS: ClassVar = (
        ("update_window_dims", "dims"),
        ("inserted_window_dims", "dims"),
        ("input_batching_dims", "dims"),
        ("scatter_indices_batching_dims", "dims"),
        ("scatter_dims_to_operand_dims", "dims"),
        ("index_vector_dim", "int"),
    )


@_with_properties
@irdl_attr_definition
class OutputOperandAliasAttr(_StructAttr):
    """``#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>``"""

    name = "stablehlo.output_operand_alias"
    ELIDE_DEFAULTS: ClassVar = False
    FIELDS: ClassVar = (
        ("output_tuple_indices", "dims"),
        ("operand_index", "int"),
        ("operand_tuple_indices", "dims"),
    )


@_with_properties
@irdl_attr_definition
class ChannelHandleAttr(_StructAttr):
    """``#stablehlo.channel_handle<handle = 1, type = 0>``"""

    name = "stablehlo.channel_handle"
    ELIDE_DEFAULTS: ClassVar = False
    FIELDS: ClassVar = (("handle", "int"), ("type", "int"))


@_with_properties
@irdl_attr_definition
class DotAlgorithmAttr(_StructAttr):
    """``#stablehlo.dot_algorithm<lhs_precision_type = tf32, ..., allow_imprecise_accumulation = false>``"""

    name = "stablehlo.dot_algorithm"
    ELIDE_DEFAULTS: ClassVar = False
    FIELDS: ClassVar = (
        ("lhs_precision_type", "type"),
        ("rhs_precision_type", "type"),
        ("accumulation_type", "type"),
        ("lhs_component_count", "int"),
        ("rhs_component_count", "int"),
        ("num_primitive_operations", "int"),
        ("allow_imprecise_accumulation", "bool"),
    )
    REQUIRED: ClassVar = frozenset(n for n, _ in FIELDS)

    def print_body(self, printer: Printer) -> None:
        """The ``<...>`` part alone (``algorithm = <...>`` in dot_general's custom form)."""
        self.print_parameters(printer)


@_with_properties
@irdl_attr_definition
class ResultAccuracyAttr(_StructAttr):
    """``#stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>``"""

    name = "stablehlo.result_accuracy"
    FIELDS: ClassVar = (("atol", "float"), ("rtol", "float"), ("ulps", "int"), ("mode", "attr"))
    REQUIRED: ClassVar = frozenset({"mode"})

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for name in ("atol", "rtol", "ulps"):
            value = self.value(name)
            if value:
                printer.print_string(f"{name} = ")
                self._print_value(printer, dict(self.FIELDS)[name], value)
                printer.print_string(", ")
        printer.print_string("mode = ")
        printer.print_attribute(self.value("mode"))
        printer.print_string(">")


_CONV_FIELDS = (
    ("input_batch_dimension", "int"),
    ("input_feature_dimension", "int"),
    ("input_spatial_dimensions", "dims"),
    ("kernel_input_feature_dimension", "int"),
    ("kernel_output_feature_dimension", "int"),
    ("kernel_spatial_dimensions", "dims"),
    ("output_batch_dimension", "int"),
    ("output_feature_dimension", "int"),
    ("output_spatial_dimensions", "dims"),
)


def conv_dims_text(attr: ConvDimensionNumbersAttr) -> str:
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]``"""
    v = attr.as_dict()

    def layout(spatial, non_spatial) -> str:
        slots: list[str | None] = [None] * (len(spatial) + len(non_spatial))
        for dim, letter in non_spatial:
            if 0 <= dim < len(slots):
                slots[dim] = letter
        for i, dim in enumerate(spatial):
            if 0 <= dim < len(slots):
                slots[dim] = str(i)
        return "[" + ", ".join("?" if s is None else s for s in slots) + "]"

    return (
        layout(v["input_spatial_dimensions"], [(v["input_batch_dimension"], "b"), (v["input_feature_dimension"], "f")])
        + "x"
        + layout(
            v["kernel_spatial_dimensions"],
            [(v["kernel_input_feature_dimension"], "i"), (v["kernel_output_feature_dimension"], "o")],
        )
        + "->"
        + layout(v["output_spatial_dimensions"], [(v["output_batch_dimension"], "b"), (v["output_feature_dimension"], "f")])
    )


def conv_layout_valid(attr: ConvDimensionNumbersAttr) -> bool:
    """Whether the compact form can say it (every slot named exactly once)."""
    v = attr.as_dict()
    for spatial, a, b in (
        ("input_spatial_dimensions", "input_batch_dimension", "input_feature_dimension"),
        ("kernel_spatial_dimensions", "kernel_input_feature_dimension", "kernel_output_feature_dimension"),
        ("output_spatial_dimensions", "output_batch_dimension", "output_feature_dimension"),
    ):
        dims = [v[a], v[b], *v[spatial]]
        if sorted(dims) != list(range(len(dims))):
            return False
    return True


def conv_dims_from_layouts(layouts: Sequence[Sequence[str]]) -> dict[str, Any]:
    """The fields of ``#stablehlo.conv`` from three layouts such as
    ``["b", "0", "1", "f"]`` (raises ValueError with StableHLO's messages)."""
    out: dict[str, Any] = {}
    for layout, (batch, feature), prefix, names in (
        (layouts[0], ("b", "f"), "input", ("batch_dimension", "feature_dimension")),
        (layouts[1], ("i", "o"), "kernel", ("input_feature_dimension", "output_feature_dimension")),
        (layouts[2], ("b", "f"), "output", ("batch_dimension", "feature_dimension")),
    ):
        spatial: dict[int, int] = {}
        found: dict[str, int] = {}
        for index, item in enumerate(layout):
            if item.lstrip("-").isdigit():
                dim = int(item)
                if dim < 0:
                    raise ValueError(f"Unexpected dimension {dim}")
                if dim in spatial:
                    raise ValueError(f"Duplicate entries for spatial dimension {dim}")
                spatial[dim] = index
                continue
            if item not in (batch, feature) or item in found:
                allowed = ", ".join(x for x in (feature, batch) if x not in found)
                if len(item) != 1 or not allowed:
                    raise ValueError(f"Unexpected keyword {item}")
                raise ValueError(f"Unexpected dimension {item}, expecting {allowed}")
            found[item] = index
        missing = [x for x in (feature, batch) if x not in found]
        if missing:
            raise ValueError(f"Expected dimensions {', '.join(missing)} not specified")
        if spatial and sorted(spatial) != list(range(len(spatial))):
            raise ValueError(f"Expected spatial dimensions 0..{len(spatial) - 1} (got {sorted(spatial)})")
        out[f"{prefix}_{names[0]}"] = found[batch]
        out[f"{prefix}_{names[1]}"] = found[feature]
        out[f"{prefix}_spatial_dimensions"] = [spatial[i] for i in range(len(spatial))]
    return out


def parse_conv_layout(parser: AttrParser) -> list[str]:
    def one() -> str:
        if parser._current_token.kind.name == "INTEGER_LIT":  # noqa: SLF001
            return str(parser.parse_integer(allow_boolean=False))
        return parser.parse_identifier()

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)


@_with_properties
@irdl_attr_definition
class ConvDimensionNumbersAttr(_StructAttr):
    """``#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`` (or ``#stablehlo.conv<raw input_batch_dimension = 0, ...>``)"""

    name = "stablehlo.conv"
    ELIDE_DEFAULTS: ClassVar = False
    FIELDS: ClassVar = _CONV_FIELDS

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        if parser.parse_optional_keyword("raw") is not None:
            return cls._parse_body(parser)
        pos = parser.pos
        layouts = [parse_conv_layout(parser)]
        parser.parse_keyword("x")
        layouts.append(parse_conv_layout(parser))
        parser.parse_punctuation("->")
        layouts.append(parse_conv_layout(parser))
        end = parser.pos
        parser.parse_punctuation(">")
        try:
            values = conv_dims_from_layouts(layouts)
        except ValueError as e:
            parser.raise_error(str(e), pos, end)
        return cls.get(**values).parameters

    def print_parameters(self, printer: Printer) -> None:
        if conv_layout_valid(self):
            printer.print_string("<" + conv_dims_text(self) + ">")
            return
        printer.print_string("<raw ")
        self._print_body(printer)


# ---------------------------------------------------------------- tensor encodings


class _BoundsAttr(ParametrizedAttribute):
    bounds: DenseArrayBase

    @property
    def bound_values(self) -> tuple[int | None, ...]:
        """The bounds, None where a dimension has none (``?``)."""
        return tuple(None if v == DYNAMIC else int(v) for v in self.bounds.get_values())


@irdl_attr_definition
class TypeExtensionsAttr(_BoundsAttr):
    """``#stablehlo.type_extensions<bounds = [?, 4]>``: a tensor encoding with dimension bounds."""

    name = "stablehlo.type_extensions"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        parser.parse_keyword("bounds")
        parser.parse_punctuation("=")
        dims = parse_dims(parser, allow_dynamic=True)
        parser.parse_punctuation(">")
        return (_dims_attr(dims),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<bounds = " + dims_text(self.bounds.get_values()) + ">")


@irdl_attr_definition
class BoundsAttr(_BoundsAttr):
    """``#stablehlo.bounds<?, 4>``: the short spelling of the bounds encoding."""

    name = "stablehlo.bounds"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def one() -> int:
            if parser.parse_optional_punctuation("?") is not None:
                return DYNAMIC
            return parser.parse_integer(allow_boolean=False)

        dims = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, one)
        return (_dims_attr(dims),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + dims_text(self.bounds.get_values())[1:-1] + ">")


# ---------------------------------------------------------------- types


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """``!stablehlo.token``: orders side effects (infeed, outfeed, send, recv, after_all)."""

    name = "stablehlo.token"


@irdl_attr_definition
class FutureType(ParametrizedAttribute, TypeAttribute):
    """``!stablehlo.future<tensor<...>, ...>``: the result of ``async_start``."""

    name = "stablehlo.future"

    types: Attribute  # an ArrayAttr of types

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from xdsl.dialects.builtin import ArrayAttr

        types = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parser.parse_type)
        return (ArrayAttr(types),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_list(self.types.data, printer.print_attribute)
        printer.print_string(">")


ATTRIBUTES: list[type[Attribute]] = [
    *ENUM_ATTRS.values(),
    DotDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
    ScatterDimensionNumbersAttr,
    OutputOperandAliasAttr,
    ChannelHandleAttr,
    DotAlgorithmAttr,
    ResultAccuracyAttr,
    ConvDimensionNumbersAttr,
    TypeExtensionsAttr,
    BoundsAttr,
    TokenType,
    FutureType,
]

__all__ = [c.__name__ for c in ATTRIBUTES] + [
    "DYNAMIC",
    "ENUM_ATTRS",
    "enum_value",
    "ComparisonDirection",
    "ComparisonType",
    "Precision",
    "ResultAccuracyMode",
    "FftType",
    "Transpose",
    "RngDistribution",
    "RngAlgorithm",
    "conv_dims_text",
    "conv_dims_from_layouts",
    "dims_text",
    "parse_dims",
]

_unused: tuple[Callable, ...] = (StringAttr, BoolAttr, VerifyException)


# ---------------------------------------------------------------- Shardy's attributes
# JAX writes sharding annotations with Shardy's `sdy` attributes
# (`sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=4, j=4}>`).
# They carry no meaning here: each is kept as its text and printed back.


class _OpaqueBodyAttr(ParametrizedAttribute):
    """An attribute kept as the text of its ``<...>`` body."""

    body: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (StringAttr(parser._parse_dialect_symbol_body()),)  # noqa: SLF001

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.body.data}>")


def _opaque_attr(name: str) -> type[Attribute]:
    cls = type(
        "Sdy" + "".join(p.capitalize() for p in name.split("_")) + "Attr",
        (_OpaqueBodyAttr,),
        {"name": f"sdy.{name}", "__module__": __name__, "__doc__": f"``#sdy.{name}<...>``, kept as text."},
    )
    return irdl_attr_definition(cls)


SDY_ATTRIBUTES: list[type[Attribute]] = [
    _opaque_attr(n)
    for n in (
        "sharding",
        "sharding_per_value",
        "op_sharding_rule",
        "mesh",
        "mesh_axis",
        "manual_axes",
        "dimension_sharding",
        "axis_ref",
        "sub_axis_info",
        "axis_ref_list",
        "sharding_group",
        "propagation_edges",
    )
]
