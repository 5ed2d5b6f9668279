"""MLIR-exact textual printer for xDSL IR.

``print_module(op)`` prints what ``mlir-opt`` prints for the same IR::

    module {
      func.func @f(%arg0: i32) -> i32 {
        %c1_i32 = arith.constant 1 : i32
        %0 = arith.addi %arg0, %c1_i32 : i32
        return %0 : i32
      }
    }

xDSL's own printer keeps SSA name hints and names values lazily, in the
order it meets them; MLIR ignores hints and numbers every value before it
prints anything.  This module subclasses ``xdsl.printer.Printer`` so that the
ops' declarative formats (which call ``print_ssa_value``, ``print_region``,
``print_op_attributes``, ...) print the MLIR way, and replaces:

* SSA naming: MLIR's ``SSANameState`` (a region's values are numbered
  before its nested regions; each nested region continues from the counters
  its parent had when it was pushed, so sibling regions reuse numbers; entry
  block arguments are ``%argN``, other block arguments and results ``%N``;
  multi-result ops print ``%0:2`` and are used as ``%0#1``;
  ``arith.constant`` results get MLIR's ``%c0_i32`` / ``%c1`` / ``%cst`` /
  ``%true`` names with ``_N`` on conflicts; an op class may name or split
  its results like MLIR's ``getAsmResultNames``, see ``_result_names``);
* region printing: MLIR's entry-block rules, ``// pred:`` comments on
  blocks, and argument shadowing for ops that declare
  ``implicit_region_operands`` (their entry-block argument list is omitted
  and the arguments print with the names of the operands they stand for,
  as MLIR's ``shadowRegionArgs`` does);
* op names: the default dialect is elided as MLIR does (``module``, and
  ``return`` / ``call`` directly inside a ``func.func``);
* the generic op form (``--mlir-print-op-generic``) in MLIR's layout;
* attribute dictionaries sorted by name (MLIR's ``DictionaryAttr`` order),
  ``i64``/``f64`` elided inside arrays, signless integers printed signed,
  floats with LLVM's ``APFloat::toString`` rules (``1.000000e-01``);
* ``func.func``, printed as MLIR's function-interface printer does.

Affine maps and integer sets print in MLIR's form (see
:mod:`.affine_printing`) and, as MLIR's alias printer does, under aliases:
every distinct ``affine_map`` gets ``#map``, ``#map1``, ... and every
``affine_set`` ``#set``, ``#set1``, ..., defined on lines before the
top-level op (all maps first, each name numbered in order of first
appearance) and used wherever the attribute prints, nested in arrays,
dictionaries and types (``memref<4x4xf32, #map>``) too.  The order of
appearance is MLIR's: the order of the printed text, except that an op in
the generic form counts its regions first, then its operand and result
types, then its properties and attributes by name (MLIR's alias walk).
Aliases print in the generic form and with ``debuginfo`` alike.  An
identity layout of a memref type prints (and gets an alias) although MLIR
elides it, so that the type reads back with the layout it had.

Locations (``debuginfo=True``) are printed inline, ``loc("f.mlir":3:5)``,
which is what MLIR prints with ``-mlir-print-debuginfo
-mlir-print-local-scope``; MLIR's default location aliases (``#loc1``) are
not produced because they only shorten the text.  Affine attributes inside
locations print inline.
"""

from __future__ import annotations

import io
import math
import struct
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterable, Mapping, Sequence

from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FileLineColLoc,
    FloatAttr,
    FunctionType,
    FusedLoc,
    IndexType,
    IntegerAttr,
    IntegerType,
    NameLoc,
    NoneAttr,
    Signedness,
    UnknownLoc,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.printer import Printer
from xdsl.traits import IsTerminator

from .affine_printing import affine_attr_text, assign_aliases

__all__ = ["MLIRPrinter", "format_float", "print_module", "print_op"]

# Ops whose regions elide a dialect prefix, as MLIR's OpAsmOpInterface
# ``getDefaultDialect`` does for these two.  An op class may declare its own
# with an uppercase ``DEFAULT_DIALECT`` class variable.
_DEFAULT_DIALECTS = {"builtin.module": "builtin", "func.func": "func"}

# Significand bits (with the hidden bit) of the float types APFloat knows.
_FLOAT_PRECISION = {"f16": 11, "bf16": 8, "tf32": 11, "f32": 24, "f64": 53, "f80": 64, "f128": 113}
_FLOAT_STRUCT = {"f16": "<e", "f32": "<f", "f64": "<d"}

_UNKNOWN_VALUE = "<<UNKNOWN SSA VALUE>>"


# ---------------------------------------------------------------------------
# Floats: LLVM's APFloat::toString, which MLIR's printFloatValue calls.


def _decimal_digits(value: float) -> tuple[str, int]:
    """Exact decimal digits of |value| (no trailing zeros) and the exponent
    of the last digit: ``value == int(digits) * 10**exp``."""
    _, digits, exp = Decimal(abs(value)).as_tuple()
    text = "".join(map(str, digits)).lstrip("0") or "0"
    stripped = text.rstrip("0")
    exp += len(text) - len(stripped)
    return stripped, int(exp)


def _round_digits(digits: str, exp: int, precision: int) -> tuple[str, int]:
    # APFloat's AdjustToPrecision: round half up on the exact decimal
    # expansion, then drop the trailing zeros the rounding produced.
    if len(digits) <= precision:
        return digits, exp
    cut = len(digits) - precision
    kept = digits[:precision]
    exp += cut
    if digits[precision] >= "5":
        rounded = str(int(kept) + 1)
        if len(rounded) > len(kept):  # carried into a new leading digit
            exp += 1
            rounded = rounded[:-1]
        kept = rounded
    stripped = kept.rstrip("0") or "0"
    exp += len(kept) - len(stripped)
    return stripped, exp


def _apfloat_to_string(
    value: float, precision_bits: int, format_precision: int, max_padding: int, truncate_zero: bool
) -> str:
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        if max_padding:
            return sign + "0"
        if truncate_zero:
            return sign + "0.0E+0"
        return sign + "0.0" + "0" * max(format_precision - 1, 0) + "e+00"
    if not format_precision:
        format_precision = 2 + precision_bits * 59 // 196
    digits, exp = _decimal_digits(value)
    digits, exp = _round_digits(digits, exp, format_precision)
    ndigits = len(digits)

    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or ndigits + exp > format_precision
    else:
        msd = exp + ndigits - 1
        scientific = msd < 0 and -msd > max_padding

    if scientific:
        exp += ndigits - 1
        out = digits[0] + "."
        if ndigits == 1 and truncate_zero:
            out += "0"
        else:
            out += digits[1:]
        if not truncate_zero and format_precision > ndigits - 1:
            out += "0" * (format_precision - ndigits + 1)
        out += "E" if truncate_zero else "e"
        out += "+" if exp >= 0 else "-"
        exp_text = str(abs(exp))
        if not truncate_zero and len(exp_text) < 2:
            exp_text = "0" + exp_text
        return sign + out + exp_text
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + ndigits
    if whole > 0:
        return sign + digits[:whole] + "." + digits[whole:]
    return sign + "0." + "0" * (-whole) + digits


def _round_to_type(value: float, type_name: str) -> float | None:
    fmt = _FLOAT_STRUCT.get(type_name)
    if fmt is not None:
        try:
            return struct.unpack(fmt, struct.pack(fmt, value))[0]
        except OverflowError:
            return math.copysign(math.inf, value)
    if type_name == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        # Round to nearest even on the upper 16 bits, as APFloat does.
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return None  # f80/f128: a Python float holds it exactly


def _float_bits_hex(value: float, type_attr: Attribute) -> str:
    name = getattr(type_attr, "name", "f64")
    if name == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", value))[0] >> 16
    elif name in _FLOAT_STRUCT:
        fmt = _FLOAT_STRUCT[name]
        raw = struct.pack(fmt, value)
        bits = int.from_bytes(raw, "little")
    else:
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return f"0x{bits:X}"


def _small_float_text(value: float, type_attr: Attribute, dtype) -> str:
    """``format_float`` for bf16 and the 8/6/4-bit floats (rounded with
    ``tfrt.tensor.small_types``, their bits from ml_dtypes)."""
    import numpy as np

    from tfrt.tensor.small_types import convert

    v = convert(np.float64(value), dtype)
    if np.isfinite(v):
        bits = _small_precision(dtype)
        exact = float(v)
        for args in ((6, 0, False), (0, 3, True)):
            text = _apfloat_to_string(exact, bits, *args)
            back = float(convert(np.float64(float(text)), dtype))
            if _same_float(back, exact) and (args[2] is False or "." in text):
                return text
    raw = np.asarray(v).view(np.uint16 if dtype.itemsize == 2 else np.uint8)
    return f"0x{int(raw):X}"


def _small_precision(dtype) -> int:
    import ml_dtypes

    return int(ml_dtypes.finfo(dtype).nmant) + 1


def format_float(value: float, type_attr: Attribute) -> str:
    """A float as MLIR prints it: ``1.000000e-01``, else the shortest
    round-tripping decimal, else the bit pattern in hex."""
    from .syntax.attributes import small_float_dtype

    dtype = small_float_dtype(type_attr)
    if dtype is not None:
        return _small_float_text(value, type_attr, dtype)
    name = getattr(type_attr, "name", "f64")
    bits = _FLOAT_PRECISION.get(name, 53)
    rounded = _round_to_type(value, name) if math.isfinite(value) else None
    if rounded is not None:
        value = rounded
    if math.isfinite(value):
        text = _apfloat_to_string(value, bits, 6, 0, False)
        parsed = _round_to_type(float(text), name)
        if parsed is None or _same_float(parsed, value):
            return text
        text = _apfloat_to_string(value, bits, 0, 3, True)
        if "." in text:
            return text
    return _float_bits_hex(value, type_attr)


def _small_float_element(value, bits, element: Attribute, dtype) -> str:
    import numpy as np

    if np.isfinite(value):
        return _small_float_text(float(value), element, dtype)
    return f"0x{int(bits):X}"


def _nested(texts: list[str], shape: tuple[int, ...]) -> str:
    if len(shape) <= 1:
        return "[" + ", ".join(texts) + "]"
    k = len(texts) // shape[0]
    return "[" + ", ".join(_nested(texts[i : i + k], shape[1:]) for i in range(0, len(texts), k)) + "]"


def _same_float(a: float, b: float) -> bool:
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _signed(value: int, width: int) -> int:
    if width <= 0:
        return value
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


# ---------------------------------------------------------------------------
# SSA names: MLIR's SSANameState.


class _Scope:
    """One level of MLIR's scoped ``usedNames`` table."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: _Scope | None):
        self.names: set[str] = set()
        self.parent = parent

    def __contains__(self, name: str) -> bool:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.parent
        return False


def _sanitize(name: str) -> str:
    def valid(ch: str) -> bool:
        return ch.isascii() and (ch.isalnum() or ch in "$._-")

    def copy() -> str:
        out = []
        for ch in name:
            if valid(ch):
                out.append(ch)
            elif ch == " ":
                out.append("_")
            else:
                out.extend(f"{b:X}" for b in ch.encode("utf-8"))
        return "".join(out)

    if name[:1].isdigit():
        return "_" + copy()
    if all(valid(ch) for ch in name):
        return name
    return copy()


def _type_text(attr: Attribute) -> str:
    buf = io.StringIO()
    MLIRPrinter(stream=buf).print_attribute(attr)
    return buf.getvalue()


def _result_names(op: Operation) -> list[tuple[int, str]]:
    """(result index, suggested name) pairs, as MLIR's ``getAsmResultNames``
    hands them out.  Three sources:

    * ``ASM_RESULT_NAMES`` on the op class: the ODS names of its result
      definitions; like the ``getAsmResultNames`` ODS generates for an op
      with several named results, the first value of each non-empty
      definition gets its name (``%out_op_chain, %results = ...``);
    * a method ``asm_result_names(self) -> Sequence[str | None]``, one entry
      per result: None leaves the result in the previous group, ``""``
      starts a new numbered group, any other string a named one;
    * ``arith.constant``'s own names.
    """
    ods_names = getattr(type(op), "ASM_RESULT_NAMES", None)
    if ods_names and isinstance(op, IRDLOperation):
        pairs: list[tuple[int, str]] = []
        definitions = type(op).get_irdl_definition().results
        for (field_name, _), asm_name in zip(definitions, ods_names):
            value = getattr(op, field_name, None)
            if isinstance(value, (tuple, list)):
                value = value[0] if value else None
            if isinstance(value, OpResult) and asm_name:
                pairs.append((value.index, asm_name))
        return pairs
    hook = getattr(op, "asm_result_names", None)
    if callable(hook):
        return [(i, name) for i, name in enumerate(hook()) if name is not None and i < len(op.results)]
    name = _constant_name(op)
    return [] if name is None else [(0, name)]


def _constant_name(op: Operation) -> str | None:
    """MLIR's ``arith.constant`` result name (``getAsmResultNames``)."""
    if op.name != "arith.constant" or len(op.results) != 1:
        return None
    value = op.properties.get("value")
    if value is None:
        value = op.attributes.get("value")
    result_type = op.results[0].type
    if isinstance(value, IntegerAttr):
        if isinstance(result_type, IntegerType) and result_type.width.data == 1:
            return "true" if value.value.data else "false"
        width = result_type.width.data if isinstance(result_type, IntegerType) else 64
        # MLIR streams the APInt, which prints signed whatever the type.
        number = _signed(value.value.data, width)
        if isinstance(result_type, IntegerType):
            return f"c{number}_{_type_text(result_type)}"
        return f"c{number}"
    return "cst"


@dataclass
class _NameState:
    """SSA value and block names for everything under one top-level op."""

    generic: bool
    values: dict[SSAValue, int | str] = field(default_factory=dict)
    blocks: dict[Block, tuple[str, int]] = field(default_factory=dict)
    groups: dict[Operation, list[int]] = field(default_factory=dict)
    shadowed: set[Region] = field(default_factory=set)
    _next_value: int = 0
    _next_arg: int = 0
    _next_conflict: int = 0
    _scope: _Scope = field(default_factory=lambda: _Scope(None))

    def number(self, top: Operation) -> None:
        root = _Scope(None)
        stack: list[tuple[Region, int, int, int, _Scope]] = [
            (region, 0, 0, 0, root) for region in top.regions
        ]
        self._scope = root
        self._number_op(top)
        while stack:
            region, self._next_value, self._next_arg, self._next_conflict, parent = stack.pop()
            self._scope = _Scope(parent)
            self._number_region(region)
            for block in region.blocks:
                for op in block.ops:
                    for nested in op.regions:
                        stack.append(
                            (nested, self._next_value, self._next_arg, self._next_conflict, self._scope)
                        )
        if not self.generic:
            self._shadow_region_args(top)

    def _number_region(self, region: Region) -> None:
        # An op may name its regions' entry arguments, as MLIR's
        # getAsmBlockArgumentNames does (stablehlo.while: %iterArg, %iterArg_0).
        arg_name = None if self.generic else getattr(type(region.parent), "ASM_BLOCK_ARG_NAME", None)
        for index, block in enumerate(region.blocks):
            self.blocks.setdefault(block, (f"bb{index}", index))
            is_entry = index == 0
            for arg in block.args:
                if arg in self.values:
                    continue
                if is_entry and arg_name:
                    self._set_name(arg, arg_name)
                elif is_entry:
                    self._set_name(arg, f"arg{self._next_arg}")
                    self._next_arg += 1
                else:
                    self._set_name(arg, "")
            for op in block.ops:
                self._number_op(op)

    def _number_op(self, op: Operation) -> None:
        if not op.results:
            return
        groups = [0]
        if not self.generic:
            for index, name in _result_names(op):
                if op.results[index] in self.values:
                    continue
                self._set_name(op.results[index], name)
                if index:
                    groups.append(index)
        if op.results[0] not in self.values:
            self.values[op.results[0]] = self._next_value
            self._next_value += 1
        if len(groups) > 1:
            self.groups[op] = sorted(groups)

    def result_groups(self, op: Operation) -> list[tuple[int, int]]:
        """(first result, size) of each result group of ``op``."""
        starts = self.groups.get(op, [0])
        ends = [*starts[1:], len(op.results)]
        return [(start, end - start) for start, end in zip(starts, ends)]

    def _set_name(self, value: SSAValue, name: str) -> None:
        if not name:
            self.values[value] = self._next_value
            self._next_value += 1
            return
        self.values[value] = self._unique(name)

    def _unique(self, name: str) -> str:
        name = _sanitize(name)
        if name in self._scope:
            while True:
                probe = f"{name}_{self._next_conflict}"
                self._next_conflict += 1
                if probe not in self._scope:
                    name = probe
                    break
        self._scope.names.add(name)
        return name

    def _shadow_region_args(self, top: Operation) -> None:
        # Outer ops first: an inner op's operand may itself be a shadowed
        # argument of an outer region.
        for op in top.walk():
            implicit = getattr(type(op), "implicit_region_operands", None)
            if implicit is None or not _has_custom_format(op):
                continue
            for index, region in enumerate(op.regions):
                entry = region.blocks.first
                if entry is None:
                    continue
                operand_indices = list(implicit(len(op.operands), index))
                if len(operand_indices) != len(entry.args):
                    continue
                if any(i >= len(op.operands) for i in operand_indices):
                    continue
                for arg, i in zip(entry.args, operand_indices):
                    self.values[arg] = self.text(op.operands[i])
                self.shadowed.add(region)

    def text(self, value: SSAValue) -> str:
        """The name of a value without ``%``, with ``#N`` for a result of a
        multi-result op."""
        suffix = ""
        lookup = value
        if isinstance(value, OpResult) and len(value.op.results) > 1:
            owner = value.op
            start, size = 0, len(owner.results)
            for group_start, group_size in self.result_groups(owner):
                if group_start <= value.index < group_start + group_size:
                    start, size = group_start, group_size
            lookup = owner.results[start]
            if size != 1:
                suffix = f"#{value.index - start}"
        name = self.values.get(lookup)
        if name is None:
            return _UNKNOWN_VALUE
        return f"{name}{suffix}"

    def head(self, value: SSAValue) -> str:
        name = self.values.get(value)
        return _UNKNOWN_VALUE if name is None else str(name)


def _has_custom_format(op: Operation) -> bool:
    return not isinstance(op, UnregisteredOp) and type(op).print is not Operation.print


# ---------------------------------------------------------------------------
# The printer.


@dataclass(eq=False, repr=False)
class MLIRPrinter(Printer):
    """An xDSL ``Printer`` that prints what MLIR's AsmPrinter prints.

    Call :meth:`print_top` with the outermost op: it numbers every value
    first (MLIR names values before printing, so forward references and
    nested regions get MLIR's numbers).
    """

    _names: _NameState | None = field(default=None, init=False)
    _generic_stack: list[bool] = field(default_factory=list, init=False)
    _dialect_stack: list[str] = field(default_factory=lambda: ["builtin"], init=False)
    # Attribute -> alias (``#map1``) for the op being printed by print_top.
    _aliases: dict[Attribute, str] = field(default_factory=dict, init=False)
    # Where the affine attributes met while printing are recorded (None: not
    # recording), and how deep the printer is inside locations.
    _alias_sink: list[Attribute] | None = field(default=None, init=False)
    _location_depth: int = field(default=0, init=False)

    # -- entry point --------------------------------------------------------

    def print_top(self, op: Operation) -> None:
        """Print ``op`` as the top-level op: alias definitions, then the op.

        The op is printed once into a buffer while recording the affine
        attributes it prints; without any, that text is the output,
        otherwise the aliases are numbered and the op printed again."""
        self._names = _NameState(generic=self.print_generic_format)
        self._names.number(op)
        self._aliases = {}
        target = self.stream
        buffer = io.StringIO()
        visited: list[Attribute] = []
        self.stream, self._alias_sink = buffer, visited
        try:
            self.print_op(op)
        finally:
            self.stream, self._alias_sink = target, None
        if not visited:
            print(buffer.getvalue(), end="", file=target)
            return
        self._aliases = assign_aliases(visited)
        self._current_column = 0
        for attr, alias in self._aliases.items():
            self.print_string(f"{alias} = {affine_attr_text(attr)}\n")
        self.print_op(op)

    @contextmanager
    def _recording_into(self, sink: list[Attribute] | None):
        saved = self._alias_sink
        self._alias_sink = sink
        try:
            yield
        finally:
            self._alias_sink = saved

    # -- SSA values and blocks ----------------------------------------------

    def _state(self) -> _NameState:
        if self._names is None:
            # Printing a detached op: number from it, as MLIR does for the
            # op it was asked to print.
            self._names = _NameState(generic=self.print_generic_format)
        return self._names

    def print_ssa_value(self, value: SSAValue) -> str:
        name = self._state().text(value)
        self.print_string(f"%{name}")
        return name

    def print_operand(self, operand: SSAValue) -> None:
        self.print_ssa_value(operand)

    def _print_results(self, op: Operation) -> None:
        if not op.results:
            return
        state = self._state()
        for i, (start, size) in enumerate(state.result_groups(op)):
            if i:
                self.print_string(", ")
            self.print_string(f"%{state.head(op.results[start])}")
            if size > 1:
                self.print_string(f":{size}")
        self.print_string(" = ")

    def _block_info(self, block: Block) -> tuple[str, int]:
        return self._state().blocks.get(block, ("INVALIDBLOCK", -1))

    def print_block_name(self, block: Block) -> str:
        name = self._block_info(block)[0]
        self.print_string(f"^{name}")
        return name

    def print_block_argument(self, arg: BlockArgument, print_type: bool = True) -> None:
        self.print_ssa_value(arg)
        if not print_type:
            return
        self.print_string(": ")
        self.print_attribute(arg.type)
        if self.print_debuginfo:
            self.print_string(" ")
            self.print_location(arg.location)

    # -- regions and blocks ----------------------------------------------------

    def print_region(
        self,
        region: Region,
        print_entry_block_args: bool = True,
        print_empty_block: bool | None = None,
        print_block_terminators: bool = True,
    ) -> None:
        """MLIR's ``printRegion``; an empty entry block prints its label only
        in the generic form unless asked (MLIR's ``printEmptyBlock``)."""
        if print_empty_block is None:
            print_empty_block = self._in_generic()
        if region in self._state().shadowed and not self._in_generic():
            print_entry_block_args = False
        self._dialect_stack.append(self._default_dialect(region.parent))
        try:
            self.print_string("{")
            entry = region.blocks.first
            if entry is not None:
                header = (print_empty_block and not entry.ops) or (
                    print_entry_block_args and bool(entry.args)
                )
                self.print_block(entry, header, print_block_terminators)
                block = entry.next_block
                while block is not None:
                    self.print_block(block)
                    block = block.next_block
            self._print_new_line()
            self.print_string("}")
        finally:
            self._dialect_stack.pop()

    def print_block(
        self,
        block: Block,
        print_block_args: bool = True,
        print_block_terminator: bool = True,
    ) -> None:
        if print_block_args:
            self._print_new_line()
            self.print_block_name(block)
            if block.args:
                self.print_string("(")
                self.print_list(block.args, self.print_block_argument)
                self.print_string(")")
            self.print_string(":")
            self._print_predecessors(block)
        last = block.last_op
        skip_terminator = (
            not print_block_terminator
            and last is not None
            and last.has_trait(IsTerminator, value_if_unregistered=False)
        )
        with self.indented():
            for op in block.ops:
                if skip_terminator and op is last:
                    continue
                self._print_new_line()
                self.print_op(op)

    def _print_predecessors(self, block: Block) -> None:
        preds = [p for use in block.uses if (p := use.operation.parent_block()) is not None]
        if block.parent is None:
            self.print_string("  // block is not in a region!")
            return
        if not preds:
            if block.parent.blocks.first is not block:
                self.print_string("  // no predecessors")
            return
        if len(preds) == 1:
            self.print_string("  // pred: ")
            self.print_block_name(preds[0])
            return
        infos = sorted((self._block_info(p) for p in preds), key=lambda info: info[1])
        names = ", ".join(f"^{name}" for name, _ in infos)
        self.print_string(f"  // {len(infos)} preds: {names}")

    def print_successors(self, successors: Sequence[Block]) -> None:
        if not successors:
            return
        self.print_string("[")
        self.print_list(successors, self.print_block_name)
        self.print_string("]")

    # -- attributes -----------------------------------------------------------

    def print_attr_dict(self, attr_dict: Mapping[str, Attribute]) -> None:
        self.print_string("{")
        self.print_list(sorted(attr_dict.items()), self._print_attr_string)
        self.print_string("}")

    def print_op_attributes(
        self,
        attributes: Mapping[str, Attribute],
        *,
        reserved_attr_names: Iterable[str] = (),
        print_keyword: bool = False,
    ) -> bool:
        # A bare string is one name (xDSL's memref.alloc passes one).
        if isinstance(reserved_attr_names, str):
            reserved = {reserved_attr_names}
        else:
            reserved = set(reserved_attr_names)
        shown = {k: v for k, v in attributes.items() if k not in reserved}
        if not shown:
            return False
        if print_keyword:
            self.print_string(" attributes")
        self.print_string(" ")
        self.print_attr_dict(shown)
        return True

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, (AffineMapAttr, AffineSetAttr)):
            self._print_affine_attribute(attribute)
            return
        if isinstance(attribute, ArrayAttr):
            self.print_string("[")
            self.print_list(attribute.data, self._print_elidable_attribute)
            self.print_string("]")
            return
        if isinstance(attribute, DictionaryAttr):
            self.print_attr_dict(attribute.data)
            return
        if isinstance(attribute, (UnknownLoc, FileLineColLoc, NameLoc, CallSiteLoc, FusedLoc)):
            self.print_location(attribute)
            return
        if isinstance(attribute, DenseIntOrFPElementsAttr) and self._print_small_float_dense(attribute):
            return
        super().print_attribute(attribute)

    def _print_small_float_dense(self, attribute: DenseIntOrFPElementsAttr) -> bool:
        """Dense bf16/f8/f6/f4 elements from their bits (a NaN keeps its
        encoding: 0x7F and 0xFF are different f8E4M3FN NaNs)."""
        from .syntax.attributes import small_float_dtype

        element = attribute.get_element_type()
        dtype = small_float_dtype(element)
        if dtype is None:
            return False
        import numpy as np

        raw = attribute.data.data
        values = np.frombuffer(raw, dtype)
        shape = tuple(attribute.get_shape())
        count = math.prod(shape)
        if values.size == 1 and count != 1:
            values = np.broadcast_to(values, (count,))
        bits = values.view(np.uint16 if dtype.itemsize == 2 else np.uint8)
        self.print_string("dense<")
        if count == 0:
            pass
        elif (bits == bits[0]).all():
            self.print_string(_small_float_element(values[0], bits[0], element, dtype))
        elif count > 100:
            self.print_string(f'"0x{np.ascontiguousarray(values).tobytes().hex().upper()}"')
        else:
            texts = [_small_float_element(v, b, element, dtype) for v, b in zip(values, bits)]
            self.print_string(_nested(texts, shape))
        self.print_string("> : ")
        self.print_attribute(attribute.get_type())
        return True

    def _print_affine_attribute(self, attribute: AffineMapAttr | AffineSetAttr) -> None:
        if not self._location_depth:
            if self._alias_sink is not None:
                self._alias_sink.append(attribute)
            alias = self._aliases.get(attribute)
            if alias is not None:
                self.print_string(alias)
                return
        self.print_string(affine_attr_text(attribute))

    def _print_elidable_attribute(self, attribute: Attribute) -> None:
        # MLIR's AttrTypeElision::May, used for array elements: i64 integers
        # and f64 floats drop their type.
        if isinstance(attribute, IntegerAttr) and attribute.type == IntegerType(64):
            self.print_int(attribute.value.data, attribute.type)
            return
        if isinstance(attribute, FloatAttr) and getattr(attribute.type, "name", "") == "f64":
            self.print_float(attribute.value.data, attribute.type)
            return
        self.print_attribute(attribute)

    def print_int(self, value: int, type: IntegerType | IndexType | None = None) -> None:
        if isinstance(type, IntegerType):
            width = type.width.data
            if width == 1 and type.signedness.data == Signedness.SIGNLESS:
                self.print_string("true" if value & 1 else "false")
                return
            if type.signedness.data == Signedness.SIGNLESS:
                value = _signed(value, width)
        self.print_string(f"{value:d}")

    def print_float(self, value: float, type) -> None:  # noqa: A002 - xDSL's name
        self.print_string(format_float(value, type))

    # -- locations ------------------------------------------------------------

    def print_location(self, loc: Attribute) -> None:
        self.print_string("loc(")
        self._location_depth += 1
        try:
            self._print_location_body(loc)
        finally:
            self._location_depth -= 1
        self.print_string(")")

    def _print_location_body(self, loc: Attribute) -> None:
        if isinstance(loc, FileLineColLoc):
            self.print_string_literal(loc.filename.data)
            self.print_string(f":{loc.line.data}:{loc.column.data}")
        elif isinstance(loc, NameLoc):
            self.print_string_literal(loc.desc.data)
            child = loc.location
            if not isinstance(child, (NoneAttr, UnknownLoc)):
                self.print_string("(")
                self._print_location_body(child)
                self.print_string(")")
        elif isinstance(loc, CallSiteLoc):
            self.print_string("callsite(")
            self._print_location_body(loc.callee)
            self.print_string(" at ")
            self._print_location_body(loc.caller)
            self.print_string(")")
        elif isinstance(loc, FusedLoc):
            self.print_string("fused")
            if not isinstance(loc.metadata, NoneAttr):
                self.print_string("<")
                self.print_attribute(loc.metadata)
                self.print_string(">")
            self.print_string("[")
            locations = loc.locations.data if isinstance(loc.locations, ArrayAttr) else ()
            self.print_list(locations, self._print_location_body)
            self.print_string("]")
        else:
            self.print_string("unknown")

    # -- operations -------------------------------------------------------------

    def _in_generic(self) -> bool:
        return bool(self._generic_stack) and self._generic_stack[-1]

    def _default_dialect(self, op: Operation | None) -> str:
        if op is None:
            return ""
        declared = getattr(type(op), "DEFAULT_DIALECT", None)
        if isinstance(declared, str):
            return declared
        return _DEFAULT_DIALECTS.get(op.name, "")

    def _custom_op_name(self, name: str) -> str:
        default = self._dialect_stack[-1]
        if default and name.startswith(default + ".") and name.count(".") == 1:
            return name[len(default) + 1 :]
        return name

    def print_op(self, op: Operation) -> None:
        self._print_results(op)
        generic = self.print_generic_format or not _has_custom_format(op)
        self._generic_stack.append(generic)
        try:
            if generic:
                name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
                self.print_string_literal(name)
                self._print_generic_body(op)
            else:
                self.print_string(self._custom_op_name(op.name))
                if op.name == "func.func":
                    self._print_func(op)
                elif op.name == "scf.execute_region":
                    self._print_execute_region(op)
                else:
                    op.print(self)
        finally:
            self._generic_stack.pop()
        if self.print_debuginfo:
            self.print_string(" ")
            self.print_location(op.location)

    def _print_generic_body(self, op: Operation) -> None:
        # MLIR's alias walk visits a generic op's regions first, then its
        # operand and result types, then its attributes (properties
        # included) by name: what this op prints itself is recorded aside
        # and appended after what its regions recorded.
        outer = self._alias_sink
        own_types: list[Attribute] = []
        by_name: dict[str, list[Attribute]] | None = None if outer is None else {}
        self.print_string("(")
        self.print_list(op.operands, self.print_operand)
        self.print_string(")")
        self.print_successors(op.successors)
        if op.properties:
            self.print_string(" <")
            self._print_attr_dict_by_name(op.properties, by_name)
            self.print_string(">")
        if op.regions:
            self.print_string(" (")
            self.print_list(op.regions, lambda r: self.print_region(r, True, True, True))
            self.print_string(")")
        attributes = op.attributes
        if isinstance(op, UnregisteredOp):
            attributes = {k: v for k, v in attributes.items() if k != "op_name__"}
        if attributes:
            self.print_string(" ")
            self._print_attr_dict_by_name(attributes, by_name)
        self.print_string(" : ")
        with self._recording_into(None if outer is None else own_types):
            self.print_function_type(op.operand_types, op.result_types)
        if outer is not None and by_name is not None:
            outer.extend(own_types)
            for name in sorted(by_name):
                outer.extend(by_name[name])

    def _print_attr_dict_by_name(
        self, attrs: Mapping[str, Attribute], by_name: dict[str, list[Attribute]] | None
    ) -> None:
        """``print_attr_dict``, recording each entry's affine attributes
        under its name when ``by_name`` is given."""
        if by_name is None:
            self.print_attr_dict(attrs)
            return
        self.print_string("{")
        for i, item in enumerate(sorted(attrs.items())):
            if i:
                self.print_string(", ")
            with self._recording_into(by_name.setdefault(item[0], [])):
                self._print_attr_string(item)
        self.print_string("}")

    def _print_func(self, op: Operation) -> None:
        """MLIR's function-interface printer (``printFunctionOp``)."""
        props = op.properties
        visibility = props.get("sym_visibility")
        self.print_string(" ")
        if visibility is not None:
            self.print_string(f"{visibility.data} ")
        self.print_symbol_name(props["sym_name"].data)
        function_type = props["function_type"]
        assert isinstance(function_type, FunctionType)
        arg_attrs = props.get("arg_attrs")
        res_attrs = props.get("res_attrs")
        body: Region = op.regions[0]
        external = body.blocks.first is None
        self.print_string("(")
        for i, arg_type in enumerate(function_type.inputs.data):
            if i:
                self.print_string(", ")
            attrs = arg_attrs.data[i].data if arg_attrs is not None else {}
            if external:
                self.print_attribute(arg_type)
                if attrs:
                    self.print_string(" ")
                    self.print_attr_dict(attrs)
                continue
            arg = body.blocks.first.args[i]
            self.print_ssa_value(arg)
            self.print_string(": ")
            self.print_attribute(arg.type)
            if attrs:
                self.print_string(" ")
                self.print_attr_dict(attrs)
            if self.print_debuginfo:
                self.print_string(" ")
                self.print_location(arg.location)
        self.print_string(")")
        outputs = function_type.outputs.data
        if outputs:
            self.print_string(" -> ")
            first_attrs = res_attrs.data[0].data if res_attrs is not None else {}
            parens = len(outputs) > 1 or isinstance(outputs[0], FunctionType) or bool(first_attrs)
            if parens:
                self.print_string("(")
            for i, out in enumerate(outputs):
                if i:
                    self.print_string(", ")
                self.print_attribute(out)
                attrs = res_attrs.data[i].data if res_attrs is not None else {}
                if attrs:
                    self.print_string(" ")
                    self.print_attr_dict(attrs)
            if parens:
                self.print_string(")")
        self.print_op_attributes(op.attributes, print_keyword=True)
        if not external:
            self.print_string(" ")
            self.print_region(body, False, False, True)


    def _print_execute_region(self, op: Operation) -> None:
        """MLIR's ``ExecuteRegionOp::print``: ``-> T`` (parenthesized for
        several types or a function type), the region with every block's
        terminator, then the attribute dictionary.  xDSL's drops the
        terminators of a region without results (``cf.br`` in a multi-block
        one included) and always parenthesizes the types."""
        types = [r.type for r in op.results]
        if types:
            self.print_string(" -> ")
            parens = len(types) > 1 or isinstance(types[0], FunctionType)
            if parens:
                self.print_string("(")
            self.print_list(types, self.print_attribute)
            if parens:
                self.print_string(")")
        self.print_string(" ")
        self.print_region(op.regions[0], False, False, True)
        self.print_op_attributes(op.attributes)


def print_op(op: Operation, *, generic: bool = False, debuginfo: bool = False) -> str:
    """Print one op (normally a ``builtin.module``) without a newline."""
    buf = io.StringIO()
    printer = MLIRPrinter(stream=buf, print_generic_format=generic, print_debuginfo=debuginfo)
    printer.print_top(op)
    return buf.getvalue()


def print_module(op: Operation, *, generic: bool = False, debuginfo: bool = False) -> str:
    """The text ``mlir-opt`` prints for ``op``, ending with a newline."""
    return print_op(op, generic=generic, debuginfo=debuginfo) + "\n"
