"""The ``quant`` dialect's uniform quantized type, as StableHLO programs use it.

    !quant.uniform<i8:f32, 5.000000e-01:3>                 per tensor: scale 0.5, zero point 3
    !quant.uniform<i8<-127:127>:f32, 2.000000e+00>         a narrower storage range, zero point 0
    !quant.uniform<u8:f32:1, {1.000000e-01:2, 2.000000e-01}>   per axis 1: one scale (and zero point) per index

A value of this type is stored as an integer of the storage type (``i8``
signed, ``u8`` unsigned) and stands for ``(stored - zero_point) * scale`` in
the expressed type (StableHLO's ``dequantize``).  The compiler computes on
the storage integers (``stablehlo-legalize-to-linalg``).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, FloatData, IntAttr, IntegerType
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

__all__ = ["QUANT", "UniformQuantizedType"]


def _default_range(width: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)


@irdl_attr_definition
class UniformQuantizedType(ParametrizedAttribute, TypeAttribute):
    """``!quant.uniform<storage[<min:max>]:expressed[:axis], scale[:zero_point] | {...}>``."""

    name = "quant.uniform"

    storage: IntegerType  # signless, of the storage width
    signed: IntAttr
    storage_min: IntAttr
    storage_max: IntAttr
    expressed: Attribute
    axis: IntAttr  # -1: per tensor
    scales: ArrayAttr
    zero_points: ArrayAttr

    # -- plain views

    @property
    def is_signed(self) -> bool:
        return bool(self.signed.data)

    @property
    def per_axis(self) -> bool:
        return self.axis.data >= 0

    def scale_values(self) -> list[float]:
        return [s.data for s in self.scales.data]

    def zero_point_values(self) -> list[int]:
        return [z.data for z in self.zero_points.data]

    # -- syntax

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        ident = parser.parse_identifier()
        if ident[:1] not in ("i", "u") or not ident[1:].isdigit():
            parser.raise_error(f"expected a storage type such as i8 or u8, not '{ident}'")
        width = int(ident[1:])
        signed = ident[0] == "i"
        lo, hi = _default_range(width, signed)
        if parser.parse_optional_punctuation("<") is not None:
            lo = parser.parse_integer(allow_negative=True, allow_boolean=False)
            parser.parse_punctuation(":")
            hi = parser.parse_integer(allow_negative=True, allow_boolean=False)
            parser.parse_punctuation(">")
        parser.parse_punctuation(":")
        expressed = parser.parse_type()
        axis = -1
        if parser.parse_optional_punctuation(":") is not None:
            axis = parser.parse_integer(allow_negative=False, allow_boolean=False)
        parser.parse_punctuation(",")

        def one() -> tuple[float, int]:
            number = parser.parse_number()
            zp = 0
            if parser.parse_optional_punctuation(":") is not None:
                zp = parser.parse_integer(allow_negative=True, allow_boolean=False)
            return float(number), zp

        if parser.parse_optional_punctuation("{") is not None:
            pairs = [one()]
            while parser.parse_optional_punctuation(",") is not None:
                pairs.append(one())
            parser.parse_punctuation("}")
        else:
            pairs = [one()]
        parser.parse_punctuation(">")
        if axis < 0 and len(pairs) != 1:
            parser.raise_error("a per-tensor quantized type has one scale")
        if not lo <= hi or lo < _default_range(width, signed)[0] or hi > _default_range(width, signed)[1]:
            parser.raise_error(f"storage range [{lo}, {hi}] does not fit {ident}")
        return (
            IntegerType(width),
            IntAttr(int(signed)),
            IntAttr(lo),
            IntAttr(hi),
            expressed,
            IntAttr(axis),
            ArrayAttr([FloatData(s) for s, _ in pairs]),
            ArrayAttr([IntAttr(z) for _, z in pairs]),
        )

    def print_parameters(self, printer: Printer) -> None:
        width = self.storage.width.data
        text = f"<{'i' if self.is_signed else 'u'}{width}"
        lo, hi = self.storage_min.data, self.storage_max.data
        if (lo, hi) != _default_range(width, self.is_signed):
            text += f"<{lo}:{hi}>"
        printer.print_string(text + ":")
        printer.print_attribute(self.expressed)
        if self.per_axis:
            printer.print_string(f":{self.axis.data}")
        pairs = [f"{s:.6e}" + (f":{z}" if z else "") for s, z in zip(self.scale_values(), self.zero_point_values())]
        printer.print_string(", " + ("{" + ", ".join(pairs) + "}" if self.per_axis else pairs[0]) + ">")


QUANT = Dialect("quant", [], [UniformQuantizedType])
