"""Shared pieces of the runtime dialects.

* `RuntimeDialect`: an xDSL `Dialect` that also says whether the dialect
  accepts operations and types it does not define, as TFRT's C++ dialects do
  with ``allowUnknownOperations()`` / ``allowUnknownTypes()``.  The frontend
  builds unregistered ops/types for such names even without
  ``-allow-unregistered-dialect``.
* `runtime_op`: the op decorator.  It wraps `irdl_op_definition` so that a
  failing op reports what MLIR would: ODS constraint messages first
  (``operand #0 must be 32-bit signless integer, but got 'i64'``), then the
  op's own (TFRT) verifier, then xDSL's wording.
* `RuntimeOp` / `IsolatedOp`, `define_op`, `define_type`, `ops_of_module`:
  bases and factories for the generated op families and simple types;
  ``RuntimeOp.BEF_KERNEL`` marks the ops that are not kernels.
* `TypedAttributeTrait`, `AttrCostTrait`: TFRT's marker traits, for the BEF
  writer and stream analysis.
* `PlainVerifyException`: for MLIR's ``emitError`` (no ``'op' op`` prefix).
* `lookup_function`: symbol lookup of a `func.func` from a use site.
* `verify_implicit_region_args`: the entry-block check shared by the ops
  whose regions take their arguments from the op's operands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar, final

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    ArrayOfConstraint,
    BFloat16Type,
    ComplexType,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    ReducedPrecisionFloatType,
    Signedness,
    UnregisteredAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    OptionalDef,
    ParsePropInAttrDict,
    VariadicDef,
    irdl_attr_definition,
    irdl_op_definition,
    traits_def,
)
from xdsl.irdl.constraints import (
    AllOf,
    AnyAttr,
    AnyOf,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    MessageConstraint,
    ParamAttrConstraint,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    RangeVarConstraint,
    VerificationContext,
)
from xdsl.traits import IsolatedFromAbove, OpTrait
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "AttrCostTrait",
    "IsolatedOp",
    "TypedAttributeTrait",
    "PlainVerifyException",
    "RuntimeOp",
    "define_op",
    "define_type",
    "ops_of_module",
    "RuntimeDialect",
    "describe_attr_constraint",
    "describe_type",
    "lookup_function",
    "runtime_op",
    "verify_implicit_region_args",
]


@dataclass
class RuntimeDialect(Dialect):
    """A dialect with TFRT's permissiveness flags.

    `allow_unknown_operations`: ``dialect.anything`` parses (as an unregistered
    op) even when the context does not allow unregistered dialects; TFRT's
    `tfrt`, `tfrt_test`, `tfrt_dht`, `coo` and `corert` dialects do this, and
    TFRT's tests write most kernels (``"tfrt_test.print_hello"(%c) : ...``) that
    way.  `allow_unknown_types`: the same for ``!dialect.anything`` types
    (``!tfrt.test.resource``, ``!corert.opattrs``, ``!ts.fixed_rank_shape.7``).
    """

    allow_unknown_operations: bool = False
    allow_unknown_types: bool = False


class PlainVerifyException(VerifyException):
    """A verifier message that MLIR emits with ``emitError``, not ``emitOpError``.

    The driver prints it as is, without the ``'op.name' op `` prefix, e.g.
    ``type of return operand 0 ('i32') doesn't match function result type
    ('!tfrt.chain')``.
    """


# --------------------------------------------------------------------------
# Descriptions of constraints, worded like MLIR's ODS summaries.
# --------------------------------------------------------------------------

_FLOAT_NAMES: dict[type[Attribute], str] = {
    Float16Type: "16-bit float",
    Float32Type: "32-bit float",
    Float64Type: "64-bit float",
    BFloat16Type: "bfloat16 type",
}


def describe_type(type_: Attribute) -> str:
    """MLIR's ODS summary of one type (`I32` -> ``32-bit signless integer``)."""
    if isinstance(type_, IntegerType):
        kind = {
            Signedness.SIGNLESS: "signless",
            Signedness.SIGNED: "signed",
            Signedness.UNSIGNED: "unsigned",
        }[type_.signedness.data]
        return f"{type_.width.data}-bit {kind} integer"
    if isinstance(type_, IndexType):
        return "index"
    for cls, text in _FLOAT_NAMES.items():
        if isinstance(type_, cls):
            return text
    if isinstance(type_, ComplexType):
        return f"complex type with {describe_type(type_.element_type)} elements"
    description = getattr(type(type_), "DESCRIPTION", None)
    if description:
        return description
    return f"'{type_}'"


def _describe_base(cls: type[Attribute]) -> str:
    description = getattr(cls, "DESCRIPTION", None)
    if description:
        return description
    if cls is IntegerType:
        return "integer"
    if cls is TensorType:
        return "tensor of any type values"
    if cls is StringAttr:
        return "string attribute"
    if cls is ArrayAttr:
        return "array attribute"
    if cls is SymbolRefAttr:
        return "symbol reference attribute"
    if cls is DenseIntOrFPElementsAttr:
        return "constant vector/tensor attribute"
    if cls is DictionaryAttr:
        return "dictionary of named attribute values"
    if cls is UnitAttr:
        return "unit attribute"
    if cls is IntegerAttr:
        return "integer attribute"
    if cls is FloatAttr:
        return "floating-point attribute"
    if cls in _FLOAT_NAMES:
        return _FLOAT_NAMES[cls]
    name = getattr(cls, "name", cls.__name__)
    return f"{name}"


def _fixed_type(constr: AttrConstraint) -> Attribute | None:
    """The one type a type constraint allows, if it allows exactly one."""
    if isinstance(constr, EqAttrConstraint):
        return constr.attr
    if isinstance(constr, AllOf):
        for inner in constr.attr_constrs:
            if isinstance(inner, EqAttrConstraint):
                return inner.attr
    return None


def _describe_param_constraint(constr: ParamAttrConstraint) -> str:
    base = constr.base_attr
    params = constr.param_constrs
    if base is IntegerAttr and params:
        type_ = _fixed_type(params[-1])
        if type_ == IntegerType(1):
            return "bool attribute"
        if type_ is not None:
            return f"{describe_type(type_)} attribute"
        return "integer attribute"
    if base is FloatAttr and params:
        type_constr = params[-1]
        type_ = _fixed_type(type_constr)
        if type_ is not None:
            return f"{describe_type(type_)} attribute"
        if isinstance(type_constr, BaseAttr) and type_constr.attr in _FLOAT_NAMES:
            return f"{_FLOAT_NAMES[type_constr.attr]} attribute"
        return "floating-point attribute"
    if base is SymbolRefAttr:
        return "flat symbol reference attribute"
    return _describe_base(base)


def _describe_array_of(constr: ArrayOfConstraint) -> str:
    element = _element_constraint(constr.elem_range_constraint)
    if isinstance(element, ParamAttrConstraint) and element.base_attr is IntegerAttr:
        type_ = _fixed_type(element.param_constrs[-1])
        if isinstance(type_, IntegerType):
            return f"{type_.width.data}-bit integer array attribute"
    if isinstance(element, BaseAttr) and element.attr is StringAttr:
        return "string array attribute"
    return "array attribute"


def describe_attr_constraint(constr: AttrConstraint) -> str:
    """MLIR-style summary of an attribute or type constraint."""
    if isinstance(constr, AnyAttr):
        return "any type"
    if isinstance(constr, EqAttrConstraint):
        return describe_type(constr.attr)
    if isinstance(constr, BaseAttr):
        return _describe_base(constr.attr)
    if isinstance(constr, ParamAttrConstraint):
        return _describe_param_constraint(constr)
    if isinstance(constr, ArrayOfConstraint):
        return _describe_array_of(constr)
    if isinstance(constr, MessageConstraint):
        return describe_attr_constraint(constr.constr)
    if isinstance(constr, AnyOf):
        return " or ".join(describe_attr_constraint(c) for c in constr.attr_constrs)
    if isinstance(constr, AllOf):
        fixed = _fixed_type(constr)
        if fixed is not None:
            return describe_type(fixed)
        return " and ".join(describe_attr_constraint(c) for c in constr.attr_constrs)
    return str(constr)


def _element_constraint(constr: RangeConstraint) -> AttrConstraint | None:
    """The per-element constraint of an operand/result definition."""
    if isinstance(constr, RangeVarConstraint):
        constr = constr.constraint
    if isinstance(constr, RangeLengthConstraint):
        constr = constr.constraint
    if isinstance(constr, RangeOf):
        return constr.constr
    return None


# --------------------------------------------------------------------------
# ODS-style verification.
# --------------------------------------------------------------------------


def _count_message(kind: str, fixed: int, variadic: bool, found: int) -> str | None:
    """MLIR's operand/result count messages (OpDefinition.cpp)."""
    if variadic:
        if found < fixed:
            return f"expected {fixed} or more {kind}s, but found {found}"
        return None
    if found == fixed:
        return None
    if fixed == 0:
        return f"requires zero {kind}s"
    if fixed == 1 and kind == "operand":
        return "requires a single operand"
    if fixed == 1:
        return "requires one result"
    return f"expected {fixed} {kind}s, but found {found}"


def _verify_values(op: IRDLOperation, kind: str, defs, values: Sequence[SSAValue]) -> None:
    fixed = sum(1 for _, d in defs if not isinstance(d, VariadicDef))
    variadic = any(isinstance(d, VariadicDef) for _, d in defs)
    variadic_count = sum(1 for _, d in defs if isinstance(d, VariadicDef))
    message = _count_message(kind, fixed, variadic, len(values))
    if message is not None:
        raise VerifyException(message)
    if variadic_count > 1:
        # Segment sizes decide the grouping; leave the checks to xDSL.
        return
    ctx = VerificationContext()
    extra = len(values) - fixed
    index = 0
    for _, def_ in defs:
        is_variadic = isinstance(def_, VariadicDef)
        count = extra if is_variadic else 1
        element = _element_constraint(def_.constr)
        for value in values[index : index + count]:
            if element is None:
                continue
            try:
                element.verify(value.type, ctx)
            except VerifyException:
                summary = describe_attr_constraint(element)
                if is_variadic:
                    summary = f"variadic of {summary}"
                raise VerifyException(
                    f"{kind} #{index} must be {summary}, but got '{value.type}'"
                ) from None
            index += 1
        if element is None:
            index += count


def _verify_attributes(op: IRDLOperation) -> None:
    op_def = op.get_irdl_definition()
    ctx = VerificationContext()
    for defs, store in ((op_def.properties, op.properties), (op_def.attributes, op.attributes)):
        for name, attr_def in defs.items():
            attr = store.get(name)
            if attr is None:
                if isinstance(attr_def, OptionalDef):
                    continue
                raise VerifyException(f"requires attribute '{name}'")
            try:
                attr_def.constr.verify(attr, ctx)
            except VerifyException:
                summary = describe_attr_constraint(attr_def.constr)
                raise VerifyException(
                    f"attribute '{name}' failed to satisfy constraint: {summary}"
                ) from None


def verify_ods(op: IRDLOperation) -> None:
    """Check attributes, operands and results in MLIR's ODS order and wording."""
    op_def = op.get_irdl_definition()
    _verify_attributes(op)
    _verify_values(op, "operand", op_def.operands, op.operands)
    _verify_values(op, "result", op_def.results, op.results)


OpT = TypeVar("OpT", bound=type[IRDLOperation])


def runtime_op(cls: OpT) -> OpT:
    """`irdl_op_definition` with MLIR's verification order and wording.

    An op verifies as MLIR would check it: the ODS-style constraint checks
    (`verify_ods`), then the op's own ``verify_`` (TFRT's C++ verifier), then
    xDSL's remaining structural checks; the first failure's message is the
    one reported.  Since xDSL's checks cover the ODS ones, a valid op only
    pays for xDSL's checks and its own verifier: the MLIR-worded checks run
    only once something has failed, to find the message MLIR would print.
    """
    custom: Callable[[IRDLOperation], None] | None = cls.__dict__.get("verify_")
    if custom is None:
        for base_cls in cls.__mro__[1:]:
            if base_cls is IRDLOperation:
                break
            custom = base_cls.__dict__.get("verify_")
            if custom is not None:
                break
    cls = irdl_op_definition(cls)
    op_def = cls.get_irdl_definition()

    def verify_(self: IRDLOperation) -> None:
        try:
            op_def.verify(self)
        except VerifyException as xdsl_error:
            verify_ods(self)
            if custom is not None:
                try:
                    custom(self)
                except VerifyException:
                    raise
                except Exception:  # noqa: BLE001 - malformed op: xDSL's message stands
                    raise xdsl_error from None
            raise
        if custom is not None:
            custom(self)

    cls.verify_ = verify_
    return cls


# --------------------------------------------------------------------------
# Helpers for verifiers.
# --------------------------------------------------------------------------


def lookup_function(op: Operation, name: str) -> func.FuncOp | None:
    """The `func.func @name` in the closest module around `op`, if any."""
    module = op.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    for candidate in module.body.ops:
        if isinstance(candidate, func.FuncOp) and candidate.sym_name.data == name:
            return candidate
    return None


def symbol_name(attr: Attribute | None) -> str | None:
    """The root name of a flat symbol reference, or None."""
    if isinstance(attr, SymbolRefAttr) and not attr.nested_references.data:
        return attr.root_reference.data
    return None


def verify_implicit_region_args(
    op: IRDLOperation,
    region: Region,
    operand_indices: Sequence[int],
    what: str,
) -> None:
    """The entry block of `region` must take the types of those operands."""
    block = region.first_block
    if block is None:
        return
    if len(block.args) != len(operand_indices):
        raise VerifyException(f"incorrect number of arguments to {what}")
    for arg, index in zip(block.args, operand_indices):
        if arg.type != op.operands[index].type:
            raise VerifyException("operand/argument type mismatch")



# --------------------------------------------------------------------------
# Op and type definition helpers.
# --------------------------------------------------------------------------


class RuntimeOp(IRDLOperation):
    """Base of the runtime ops.

    Attributes that the custom syntax does not place explicitly are read from
    and printed in the attribute dictionary, as MLIR does for properties.

    ``BEF_KERNEL``: whether the op runs as the BEF kernel of its name.  An op
    the BEF writer lowers without a kernel (`tfrt.return` becomes the results
    of its function or region) sets it to False; every other op of a runtime
    dialect has a kernel registered under its name
    (``tests/test_registry_consistency.py`` checks both).
    """

    irdl_options = (ParsePropInAttrDict(),)
    BEF_KERNEL: ClassVar[bool] = True


class IsolatedOp(RuntimeOp):
    """A runtime op whose regions see only their own values (TFRT's op bases)."""

    traits = traits_def(IsolatedFromAbove())


def define_op(
    module: str,
    class_name: str,
    doc: str,
    body: dict[str, object],
    base: type[IRDLOperation] = RuntimeOp,
) -> type[IRDLOperation]:
    """Create one op class of a generated family (``tfrt_dht.create_...``)."""
    namespace = {"__module__": module, "__qualname__": class_name, "__doc__": doc, **body}
    return runtime_op(type(class_name, (base,), namespace))


def define_type(
    module: str, class_name: str, name: str, doc: str, description: str | None = None
) -> type[ParametrizedAttribute]:
    """Create a parameterless type ``!name`` (its ODS summary is `description`)."""
    namespace = {
        "__module__": module,
        "__qualname__": class_name,
        "__doc__": doc,
        "name": name,
        "DESCRIPTION": description or f"!{name} type",
    }
    cls = type(class_name, (ParametrizedAttribute, TypeAttribute), namespace)
    cls.__annotations__ = {"DESCRIPTION": ClassVar[str]}
    return final(irdl_attr_definition(cls))


def ops_of_module(namespace: dict[str, object], module: str) -> list[type[IRDLOperation]]:
    """The op classes a dialect module defines, in definition order."""
    return [
        value
        for value in namespace.values()
        if isinstance(value, type)
        and issubclass(value, IRDLOperation)
        and value.__module__ == module
        and "name" in value.__dict__
    ]


# --------------------------------------------------------------------------
# Marker traits the compiler passes and the BEF writer read.
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class TypedAttributeTrait(OpTrait):
    """TFRT's `CoreRT_TypedAttributeTrait`: the BEF writer stores this op's
    attributes in the typed-attribute encoding (type tag + value), as the core
    runtime reads them (`corert.executeop`, `corert.const_dense_tensor`, ...)."""


@dataclass(frozen=True)
class AttrCostTrait(OpTrait):
    """TFRT's `TFRT_AttrCostTrait`: the op's cost for stream analysis is its
    ``_tfrt_cost`` attribute (`tfrt_test.test_cost`)."""

    ATTR_NAME: ClassVar[str] = "_tfrt_cost"

    @staticmethod
    def cost(op: Operation) -> int | None:
        attr = op.properties.get("_tfrt_cost") or op.attributes.get("_tfrt_cost")
        return attr.value.data if isinstance(attr, IntegerAttr) else None


# ---------------------------------------------------------------------------
# Element types as the runtime's DType.

# TFRT's dtype-only types of the corert dialect, by name (they are matched by
# name so that they encode the same registered or not).
_CORERT_DTYPE_NAMES = {
    "corert.string": "STRING",
    "corert.resource": "RESOURCE",
    "corert.variant": "VARIANT",
    "corert.quint8": "QUI8",
    "corert.quint16": "QUI16",
    "corert.qint8": "QI8",
    "corert.qint16": "QI16",
    "corert.qint32": "QI32",
}


def dialect_attr_name(attr: Attribute) -> str | None:
    """``corert.shape`` for ``#corert.shape<..>``, registered or not."""
    if isinstance(attr, UnregisteredAttr):
        return attr.attr_name.data
    return getattr(type(attr), "name", None)


def type_dtype(t: Attribute):
    """The runtime ``DType`` of an MLIR type (``f32`` -> F32, ``!corert.string``
    -> STRING), or None.  Shared by the BEF writer (type attributes, dense
    element types) and the tensor dialect's verifiers."""
    # Deferred: the runtime's dtype module brings numpy and ml_dtypes, which
    # parsing and printing do not need.
    from tfrt.tensor.dtype import DType

    if isinstance(t, IntegerType):
        width = t.width.data
        if t.signedness.data == Signedness.UNSIGNED:
            return {2: DType.UI2, 4: DType.UI4, 8: DType.UI8, 16: DType.UI16, 32: DType.UI32, 64: DType.UI64}.get(width)
        return {1: DType.I1, 2: DType.I2, 4: DType.I4, 8: DType.I8, 16: DType.I16, 32: DType.I32,
                64: DType.I64}.get(width)  # fmt: skip
    if isinstance(t, BFloat16Type):
        return DType.BF16
    if isinstance(t, ReducedPrecisionFloatType):  # f8E4M3FN ... f4E2M1FN, by name
        name = str(t).upper()
        return DType[name] if name in DType.__members__ else None
    if isinstance(t, Float16Type):
        return DType.F16
    if isinstance(t, Float32Type):
        return DType.F32
    if isinstance(t, Float64Type):
        return DType.F64
    if isinstance(t, ComplexType):
        if isinstance(t.element_type, Float32Type):
            return DType.COMPLEX64
        if isinstance(t.element_type, Float64Type):
            return DType.COMPLEX128
        return None
    if isinstance(t, TypeAttribute):
        name = _CORERT_DTYPE_NAMES.get(dialect_attr_name(t) or "")
        return DType[name] if name else None
    return None
