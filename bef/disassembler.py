"""A verified BEF file -> MLIR (an xDSL ``ModuleOp``), as ``tfrt_translate
-bef-to-mlir`` prints it.

Each named function becomes a ``func.func`` (``{tfrt.sync}`` for sync
functions, a private external ``{tfrt.native}`` declaration for native ones);
each anonymous function becomes the region of the op that references it.
Kernels become ops named by their kernel name, registered when the context
knows the op and the file carries the optional sections (so attributes have
their names and values their types), unregistered otherwise.  Attribute
names come from the AttributeNames section, register types from
RegisterTypes (types are stored as MLIR text and parsed back), attribute
values from the Attributes section decoded by their AttributeTypes entry.

Without those optional sections the result follows TFRT: a warning
(``Missing AttributeTypes, AttributeNames or RegisterTypes sections.``),
attributes named ``attr0, attr1, ...`` with placeholder values, and ``none``
types.  Function references come back under the names recorded in our
FunctionRefNames section, or as ``callee`` (TFRT's choice) without it.

Example: the BEF of ``%x = tfrt.constant.i32 42`` disassembles to an op
``tfrt.constant.i32`` with attribute ``value = 42 : i32``.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Builtin,
    BytesAttr,
    CallSiteLoc,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FloatData,
    FusedLoc,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    NoneType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnknownLoc,
    UnregisteredOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation

from tfrt.bef import encoding as enc
from tfrt.bef import program
from tfrt.bef.encoding import AttrType, DType
from tfrt.diagnostics import Diagnostic, DiagnosticError

MISSING_SECTIONS_WARNING = "Missing AttributeTypes, AttributeNames or RegisterTypes sections."
RETURN_OP = "tfrt.return"
# TFRT's placeholder for an attribute whose type the file does not record.
_PLACEHOLDER = 0xDEADBEEF - (1 << 32)

def _float_type(name: str) -> Attribute:
    from tfrt.dialects.syntax.attributes import float_type

    return float_type(name)


_INT_TYPES = {
    DType.UI8: IntegerType(8, Signedness.UNSIGNED),
    DType.UI16: IntegerType(16, Signedness.UNSIGNED),
    DType.UI32: IntegerType(32, Signedness.UNSIGNED),
    DType.UI64: IntegerType(64, Signedness.UNSIGNED),
    DType.I1: IntegerType(1),
    DType.I8: IntegerType(8),
    DType.I16: IntegerType(16),
    DType.I32: IntegerType(32),
    DType.I64: IntegerType(64),
}
_INT_TYPES.update({
    DType.I2: IntegerType(2),
    DType.I4: IntegerType(4),
    DType.UI2: IntegerType(2, Signedness.UNSIGNED),
    DType.UI4: IntegerType(4, Signedness.UNSIGNED),
})
_FLOAT_TYPES = {
    DType.BF16: BFloat16Type(),
    DType.F16: Float16Type(),
    DType.F32: Float32Type(),
    DType.F64: Float64Type(),
    # The 8/6/4-bit floats, by their MLIR spelling (DType.short_name).
    **{dt: _float_type(dt.short_name) for dt in enc.SMALL_FLOATS},
}
_DIALECT_TYPES = {
    DType.STRING: "!corert.string",
    DType.RESOURCE: "!corert.resource",
    DType.VARIANT: "!corert.variant",
    DType.QUI8: "!corert.quint8",
    DType.QUI16: "!corert.quint16",
    DType.QI8: "!corert.qint8",
    DType.QI16: "!corert.qint16",
    DType.QI32: "!corert.qint32",
}


def bef_to_module(
    bef_file: program.BefFile,
    *,
    ctx: Context | None = None,
    warn: Callable[[str], None] | None = None,
) -> ModuleOp:
    """Rebuild the MLIR module a BEF file was written from.

    ``ctx`` defaults to ``tfrt.dialects.make_context(allow_unregistered=True)``.
    ``warn`` receives warnings (default: ``warnings.warn``).  Raises
    ``DiagnosticError`` for a file that verifies but cannot be expressed as
    MLIR (an anonymous function used by no op or by two).
    """
    return _Disassembler(bef_file, ctx, warn).run()


def _error(message: str) -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", message))


def _minimal_context() -> Context:
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(Builtin)
    return ctx


class _Disassembler:
    def __init__(self, bef: program.BefFile, ctx: Context | None, warn):
        self.bef = bef
        if ctx is None:
            try:
                from tfrt.dialects import make_context

                ctx = make_context(allow_unregistered=True)
            except Exception:  # a dialect package that fails to import
                ctx = _minimal_context()
        self.ctx = ctx
        self._fallback_ctx: Context | None = None
        self.warn = warn or (lambda message: warnings.warn(message, stacklevel=3))
        self._types: dict[str, Attribute] = {}
        self._attrs: dict[tuple[int, int], Attribute] = {}
        self._op_classes: dict[str, type[Operation] | None] = {}
        self._units: dict[str, str] = {}  # module text, in first-seen order

    # -- parsing text stored in the file -----------------------------------

    def _parse(self, text: str, kind: str) -> Attribute:
        from xdsl.parser import Parser
        from xdsl.utils.mlir_lexer import MLIRTokenKind

        for ctx in (self.ctx, self._fallback()):
            try:
                parser = Parser(ctx, text)
                attr = parser.parse_type() if kind == "type" else parser.parse_attribute()
                if parser._current_token.kind == MLIRTokenKind.EOF:
                    return attr
            except Exception:  # e.g. a dialect whose module fails to import
                pass
        raise _error(f"cannot parse the {kind} '{text}' stored in the BEF file")

    def _fallback(self) -> Context:
        if self._fallback_ctx is None:
            self._fallback_ctx = _minimal_context()
        return self._fallback_ctx

    def type(self, text: str) -> Attribute:
        t = self._types.get(text)
        if t is None:
            t = self._parse(text, "type")
            self._types[text] = t
        return t

    # -- attributes ----------------------------------------------------------

    def dtype_type(self, dtype: int) -> Attribute:
        if dtype in _INT_TYPES:
            return _INT_TYPES[dtype]
        if dtype in _FLOAT_TYPES:
            return _FLOAT_TYPES[dtype]
        if dtype == DType.COMPLEX64:
            return ComplexType(Float32Type())
        if dtype == DType.COMPLEX128:
            return ComplexType(Float64Type())
        return self.type(_DIALECT_TYPES[dtype])

    def attribute(self, offset: int, code: int) -> Attribute:
        key = (offset, code)
        attr = self._attrs.get(key)
        if attr is None:
            attr = self._attribute(offset, code)
            self._attrs[key] = attr
        return attr

    def _scalar(self, code: int, value: Any) -> Attribute:
        if code in _INT_TYPES:
            return IntegerAttr(int(value), _INT_TYPES[code])
        if code in enc.SMALL_FLOATS:  # exact, and a NaN keeps its sign (FloatAttr() drops it)
            return FloatAttr.new((FloatData(float(value)), _FLOAT_TYPES[code]))
        if code in _FLOAT_TYPES:
            return FloatAttr(float(value), _FLOAT_TYPES[code])
        if code in (DType.STRING, AttrType.FUNC):
            return StringAttr(value)
        if code == AttrType.TYPE:
            return self.dtype_type(value)
        raise _error(f"cannot express an attribute of type {enc.attr_type_name(code)} in MLIR")

    def _attribute(self, offset: int, code: int) -> Attribute:
        bef = self.bef
        if code == AttrType.AGGREGATE:
            return ArrayAttr([self.attribute(o, c) for c, o in bef.aggregate_elements(offset)])
        value = bef.attribute(offset, code)
        if enc.is_array_code(code):
            elem = enc.element_code(code)
            if isinstance(value, np.ndarray):
                small = elem == DType.BF16 or elem in enc.SMALL_FLOATS
                value = value.astype(np.float64) if small else value
                value = value.tolist()
            return ArrayAttr([self._scalar(elem, v) for v in value])
        if code == AttrType.DENSE:
            return self._dense(value)
        if code == AttrType.SHAPE:
            body = "*" if value.dims is None else "x".join("?" if d < 0 else str(d) for d in value.dims)
            return self._parse(f"#corert.shape<{body}>", "attribute")
        if code == AttrType.SYMBOL_REF:
            self._units.setdefault(value.module_text, value.module_text)
            return SymbolRefAttr(value.root, list(value.nested))
        return self._scalar(code, value)

    def _dense(self, arr: np.ndarray) -> Attribute:
        dtype = _dense_dtype(arr)
        element = self.dtype_type(dtype)
        if dtype in (DType.I2, DType.I4):
            # xDSL holds a signless sub-byte integer sign-extended in its byte.
            arr = arr.astype(np.int8)
        elif dtype in (DType.UI2, DType.UI4):
            arr = arr.astype(np.uint8)
        return DenseIntOrFPElementsAttr(
            TensorType(element, list(arr.shape)), BytesAttr(np.ascontiguousarray(arr).tobytes())
        )

    # -- locations -----------------------------------------------------------

    def location(self, offset: int) -> Attribute:
        if offset >= self.bef.locations_size:
            # A location the writer could not encode: an empty fused location
            # is the one xDSL location that also has no encoding.
            return FusedLoc([], NoneAttr())
        return _xdsl_location(self.bef.location(offset))

    # -- ops -----------------------------------------------------------------

    def op_class(self, name: str) -> type[Operation] | None:
        if name not in self._op_classes:
            cls = None
            try:
                found = self.ctx.get_optional_op(name)
                if found is not None and not issubclass(found, UnregisteredOp):
                    cls = found
            except Exception:  # the op's dialect fails to load
                cls = None
            self._op_classes[name] = cls
        return self._op_classes[name]

    def create_op(
        self,
        name: str,
        operands: list[SSAValue],
        result_types: list[Attribute],
        attrs: dict[str, Attribute],
        regions: list[Region],
        location: Attribute,
        registered: bool,
    ) -> Operation:
        cls = self.op_class(name) if registered else None
        if cls is None:
            return UnregisteredOp.with_name(name).create(
                operands=operands,
                result_types=result_types,
                attributes=attrs,
                regions=regions,
                location=location,
            )
        props: dict[str, Attribute] = {}
        if issubclass(cls, IRDLOperation):
            prop_names = cls.get_irdl_definition().properties
            props = {k: v for k, v in attrs.items() if k in prop_names}
            attrs = {k: v for k, v in attrs.items() if k not in prop_names}
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=props,
            attributes=attrs,
            regions=regions,
            location=location,
        )

    # -- functions -----------------------------------------------------------

    def run(self) -> ModuleOp:
        bef = self.bef
        bodies = [f for f in bef.functions if f.kind != program.NATIVE_FUNCTION]
        have_types = bef.attribute_types is not None
        have_names = all(f.attribute_names is not None for f in bodies)
        have_regs = all(f.register_types is not None for f in bodies)
        if not (have_types and have_names and have_regs):
            self.warn(MISSING_SECTIONS_WARNING)
        self.registered = have_types and have_names and have_regs

        blocks: dict[int, Block] = {}
        pending: list[tuple[Region, int]] = []  # (region of an op, function index)
        children: dict[int, list[int]] = {}
        for fn in bodies:
            blocks[fn.index] = self.function_block(fn, pending, children)

        # Each anonymous function is the body of exactly one region, and every
        # one hangs (transitively) off a named function.
        uses: dict[int, int] = {}
        for _, index in pending:
            uses[index] = uses.get(index, 0) + 1
        anonymous = [f.index for f in bodies if not f.name]
        for index in anonymous:
            if uses.get(index, 0) != 1:
                raise _error(f"Failed to resolve functions: anonymous function {index} is used {uses.get(index, 0)} times")
        reached: set[int] = set()
        stack = [f.index for f in bodies if f.name]
        while stack:
            for child in children.get(stack.pop(), ()):
                if child not in reached:
                    reached.add(child)
                    stack.append(child)
        if len(reached) != len(anonymous):
            raise _error("Failed to resolve functions: anonymous functions refer to each other in a cycle")
        for region, index in pending:
            region.add_block(blocks[index])

        module = ModuleOp([])
        for fn in bef.functions:
            if not fn.name:
                continue
            if fn.kind == program.NATIVE_FUNCTION:
                func = FuncOp(
                    fn.name,
                    ([self.type(t) for t in fn.arg_types], [self.type(t) for t in fn.result_types]),
                    Region(),
                    "private",
                )
                func.attributes["tfrt.native"] = UnitAttr()
                func.location = UnknownLoc()
            else:
                func = FuncOp(
                    fn.name,
                    ([self.type(t) for t in fn.arg_types], [self.type(t) for t in fn.result_types]),
                    Region(blocks[fn.index]),
                )
                if fn.kind == program.SYNC_FUNCTION:
                    func.attributes["tfrt.sync"] = UnitAttr()
                func.location = self.location(fn.location)
            module.body.block.add_op(func)
        self._add_compilation_units(module)
        return module

    def _add_compilation_units(self, module: ModuleOp) -> None:
        if not self._units:
            return
        from xdsl.parser import Parser

        first = module.body.block.first_op
        for text in self._units:
            # The writer prints compilation units in xDSL's generic form.
            unit = None
            for ctx in (self.ctx, self._fallback()):
                try:
                    unit = Parser(ctx, text, "<compilation unit>").parse_module()
                    break
                except Exception:  # e.g. a dialect whose module fails to import
                    continue
            if unit is None:
                raise _error("Failed to parse compilation unit.")
            if not unit.attributes.get("tfrt.compiled") and len(unit.body.block.ops) == 1:
                inner = unit.body.block.first_op
                if isinstance(inner, ModuleOp):
                    inner.detach()
                    unit = inner
            if first is None:
                module.body.block.add_op(unit)
            else:
                module.body.block.insert_op_before(unit, first)

    def function_block(self, fn: program.Function, pending, children) -> Block:
        arg_types = [self.type(t) for t in fn.arg_types]
        block = Block(arg_types=arg_types)
        regs: list[SSAValue | None] = [None] * fn.num_registers
        if fn.register_types is not None:
            reg_types = [self.type(t) for t in fn.register_types]
        else:
            reg_types = [NoneType()] * fn.num_registers
        # The pseudo kernel's results (after the first) are the arguments.
        for arg, reg in zip(block.args, _pseudo_results(fn)):
            regs[reg] = arg

        fn_location = self.location(fn.location)
        for k, kernel in enumerate(fn.kernels):
            operands = []
            for r in kernel.args:
                value = regs[r]
                if value is None:
                    raise _error(f"function {fn.index}: kernel {k + 1} uses register {r} before its definition")
                operands.append(value)
            attrs = self.kernel_attributes(fn, k, kernel)
            regions: list[Region] = []
            refs = self.function_refs(fn, k, kernel, attrs)
            for index in refs:
                region = Region()
                regions.append(region)
                pending.append((region, index))
                children.setdefault(fn.index, []).append(index)
            result_types = [reg_types[r] for r in kernel.results]
            _signed_dense(attrs, result_types)
            op = self.create_op(
                kernel.name,
                operands,
                result_types,
                attrs,
                regions,
                self.location(kernel.location),
                self.registered,
            )
            for r, result in zip(kernel.results, op.results):
                regs[r] = result
            block.add_op(op)

        ret_operands = []
        for r in fn.result_registers:
            if regs[r] is None:
                raise _error(f"function {fn.index}: returns register {r}, which nothing defines")
            ret_operands.append(regs[r])
        block.add_op(
            self.create_op(RETURN_OP, ret_operands, [], {}, [], fn_location, self.registered)
        )
        return block

    def kernel_attributes(self, fn: program.Function, k: int, kernel: program.Kernel) -> dict[str, Attribute]:
        bef = self.bef
        names = fn.attribute_names[k] if fn.attribute_names is not None else None
        attrs: dict[str, Attribute] = {}
        for i, offset in enumerate(kernel.attrs):
            name = names[i] if names is not None else f"attr{i}"
            code = bef.attribute_types.get(offset) if bef.attribute_types is not None else None
            if code is None:
                attrs[name] = IntegerAttr(_PLACEHOLDER, IntegerType(32))
            else:
                attrs[name] = self.attribute(offset, code)
        return attrs

    def function_refs(
        self, fn: program.Function, k: int, kernel: program.Kernel, attrs: dict[str, Attribute]
    ) -> list[int]:
        """Add the kernel's function references to ``attrs``; return the
        anonymous functions that become its regions."""
        functions = self.bef.functions
        funcs = list(kernel.funcs)
        groups = fn.function_ref_names[k] if fn.function_ref_names is not None else None
        if groups is not None:
            pos = 0
            for name, count, is_array in groups:
                refs = [SymbolRefAttr(functions[i].name) for i in funcs[pos : pos + count]]
                attrs[name] = ArrayAttr(refs) if is_array else refs[0]
                pos += count
            rest = funcs[pos:]
        else:
            named = [i for i in funcs if functions[i].name]
            rest = [i for i in funcs if not functions[i].name]
            if named:
                name = "callee"
                suffix = 0
                while name in attrs:
                    suffix += 1
                    name = f"callee_{suffix}"
                refs = [SymbolRefAttr(functions[i].name) for i in named]
                attrs[name] = refs[0] if len(refs) == 1 else ArrayAttr(refs)
        for i in rest:
            if functions[i].name:
                raise _error(f"function {fn.index}: kernel {k + 1} uses the named function '{functions[i].name}' as a region")
        return rest


def _pseudo_results(fn: program.Function) -> list[int]:
    """The registers of a function's arguments: by the writer's numbering,
    registers 0..n-1 (the pseudo kernel's results 1..n)."""
    return list(range(len(fn.arg_types)))


def _signed_dense(attrs: dict[str, Attribute], result_types: list[Attribute]) -> None:
    """A dense attribute of ``si8`` (``si4`` ...) elements is stored as ``i8``:
    BEF's dtypes have no signed integers.  The result type of its kernel
    says which it was (``tfrt_array.constant``'s is the constant's type)."""
    for name, attr in attrs.items():
        if not isinstance(attr, DenseIntOrFPElementsAttr):
            continue
        element = attr.get_element_type()
        if not isinstance(element, IntegerType) or element.signedness.data != Signedness.SIGNLESS:
            continue
        for t in result_types:
            if (
                isinstance(t, TensorType)
                and isinstance(t.element_type, IntegerType)
                and t.element_type.signedness.data == Signedness.SIGNED
                and t.element_type.width == element.width
                and tuple(t.get_shape()) == tuple(attr.get_shape())
            ):
                attrs[name] = DenseIntOrFPElementsAttr(t, attr.data)
                break


def _dense_dtype(arr: np.ndarray) -> int:
    kind, size = arr.dtype.kind, arr.dtype.itemsize
    if arr.dtype.name == "bfloat16":  # ml_dtypes' bfloat16
        return DType.BF16
    for code in enc.SMALL_DTYPES:  # the other ml_dtypes types
        if arr.dtype == DType(code).np_dtype:
            return code
    table = {
        ("b", 1): DType.I1,
        ("i", 1): DType.I8,
        ("i", 2): DType.I16,
        ("i", 4): DType.I32,
        ("i", 8): DType.I64,
        ("u", 1): DType.UI8,
        ("u", 2): DType.UI16,
        ("u", 4): DType.UI32,
        ("u", 8): DType.UI64,
        ("f", 2): DType.F16,
        ("f", 4): DType.F32,
        ("f", 8): DType.F64,
        ("c", 8): DType.COMPLEX64,
        ("c", 16): DType.COMPLEX128,
    }
    return table[(kind, size)]


def _xdsl_location(loc: program.Location, depth: int = 0) -> Attribute:
    if isinstance(loc, program.FileLineColLocation):
        return FileLineColLoc(StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.col))
    if isinstance(loc, program.NameLocation):
        child = loc.child
        inner = NoneAttr() if isinstance(child, program.UnknownLocation) else _xdsl_location(child)
        return NameLoc(StringAttr(loc.name), inner)
    if isinstance(loc, program.CallSiteLocation):
        return CallSiteLoc(_xdsl_location(loc.callee), _xdsl_location(loc.caller))
    if isinstance(loc, program.FusedLocation):
        return FusedLoc([_xdsl_location(c) for c in loc.locations], NoneAttr())
    return UnknownLoc()
