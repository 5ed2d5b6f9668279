"""What the lowering passes share: building kernel ops by name, checking types.

The lowering passes (``lower_linalg``, ``lower_tensor``, ``lower_arith``,
``lower_math``, ``lower_scf``, ``lower_func``) replace high-level ops with
kernel ops (docs/compiler.md).  They build those ops by their kernel name with
:func:`make_op`, so a pass depends on the kernel contract, not on Python class
names, and they report what they cannot lower with :func:`cannot_lower`, at
the op's location::

    new = make_op("tfrt_tensor.relu", [x], [x.type], at=op)
    raise cannot_lower(op, "dynamic shapes are not supported")
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    DenseIntOrFPElementsAttr,
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    Float8E3M4Type,
    Float8E4M3B11FNUZType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E4M3Type,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects.fastir import create_op, erase_op, insert_op_before, replace_all_uses
from tfrt.dialects.syntax.verify import op_error

# Element types the kernels compute on (docs/compiler.md); index is i64.
# i2/i4 are ml_dtypes' int2/int4 (uint2/uint4 for ui2/ui4); bf16 and the
# 8/6/4-bit floats ml_dtypes' types, computed in f32 and rounded once.
SUPPORTED_INT_WIDTHS = frozenset({1, 2, 4, 8, 16, 32, 64})
SUPPORTED_FLOATS = (
    Float16Type, Float32Type, Float64Type, BFloat16Type, Float8E4M3FNType, Float8E5M2Type,
    Float8E4M3FNUZType, Float8E5M2FNUZType, Float8E4M3B11FNUZType, Float8E4M3Type, Float8E3M4Type,
    Float8E8M0FNUType, Float6E2M3FNType, Float6E3M2FNType, Float4E2M1FNType,
)  # fmt: skip


def cannot_lower(op: Operation, reason: str) -> DiagnosticError:
    """``file:line:col: error: 'dialect.op' op cannot be lowered: <reason>``."""
    return op_error(op, f"cannot be lowered: {reason}")


@functools.cache
def _context():
    from tfrt.dialects import make_context

    return make_context()


@functools.cache
def op_class(name: str) -> type[Operation]:
    """The registered op class for kernel op ``name``."""
    cls = _context().get_optional_op(name)
    if cls is None:
        raise KeyError(f"no op named '{name}' is registered")
    return cls


@functools.cache
def _property_names(cls) -> frozenset[str]:
    defined = getattr(cls, "get_irdl_definition", None)
    return frozenset(defined().properties) if defined is not None else frozenset()


def make_op(
    name: str,
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    attrs: Mapping[str, Attribute] | None = None,
    *,
    at: Operation | None = None,
    regions: Sequence = (),
) -> Operation:
    """Create op ``name``; each attribute goes where the op defines it
    (property or attribute).  ``at`` gives the new op that op's location."""
    cls = op_class(name)
    properties: dict[str, Attribute] = {}
    attributes: dict[str, Attribute] = {}
    prop_names = _property_names(cls)
    for key, value in (attrs or {}).items():
        (properties if key in prop_names else attributes)[key] = value
    return create_op(
        cls,
        operands,
        result_types,
        properties,
        attributes,
        regions,
        location=None if at is None else at.location,
    )


def is_supported_element_type(t: Attribute) -> bool:
    if isinstance(t, IntegerType):
        # (ui1/si1 have no storage type: only signless i1 is a boolean.)
        return t.width.data in SUPPORTED_INT_WIDTHS and (t.width.data != 1 or t.signedness.data == Signedness.SIGNLESS)
    if isinstance(t, ComplexType):  # complex64 / complex128 (numpy's)
        return isinstance(t.element_type, (Float32Type, Float64Type))
    return isinstance(t, (*SUPPORTED_FLOATS, IndexType))


def kernel_type(t: Attribute) -> Attribute:
    """The kernel IR type for a high-level type: ``index`` becomes ``i64``;
    tensors of index become tensors of i64; everything else is unchanged."""
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, TensorType) and isinstance(t.element_type, IndexType):
        return TensorType(i64, t.get_shape())
    return t


def shape_of(t: TensorType) -> tuple[int, ...]:
    """``tuple(t.get_shape())``, decoded once per type object (types are
    shared: the parser makes one per spelling, the passes reuse them)."""
    found = _SHAPES.get(id(t))
    if found is not None and found[0] is t:
        return found[1]
    shape = tuple(t.get_shape())
    if len(_SHAPES) > 4096:
        _SHAPES.clear()
    _SHAPES[id(t)] = (t, shape)
    return shape


# id(type) -> (the type, its shape); the type is kept, so ids stay unique.
_SHAPES: dict[int, tuple[Attribute, tuple[int, ...]]] = {}


def check_value_type(op: Operation, t: Attribute) -> Attribute:
    """Raise at ``op`` unless ``t`` is a static-shape tensor or a scalar of a
    supported element type; return its kernel IR type."""
    # Types are shared objects (the parser makes one per spelling): the
    # answer for this very object, when it passed before.
    found = _CHECKED.get(id(t))
    if found is not None and found[0] is t:
        return found[1]
    kt = _check_value_type(op, t)
    if len(_CHECKED) > 4096:
        _CHECKED.clear()
    _CHECKED[id(t)] = (t, kt)
    return kt


# id(type) -> (the type, its kernel type); the type is kept, so ids stay unique.
_CHECKED: dict[int, tuple[Attribute, Attribute]] = {}


def _check_value_type(op: Operation, t: Attribute) -> Attribute:
    if isinstance(t, TensorType):
        if any(d < 0 for d in t.get_shape()):
            raise cannot_lower(op, f"dynamic shapes are not supported ({t}); the kernels need static shapes")
        if not is_supported_element_type(t.element_type):
            raise cannot_lower(op, f"unsupported element type {t.element_type}")
    elif not is_supported_element_type(t):
        raise cannot_lower(op, f"unsupported type {t}")
    return kernel_type(t)


# ---------------------------------------------------------------------------
# arith / math ops as expressions of the elementwise language (docs/compiler.md)

_BINARY = {
    "arith.addf": "({0} + {1})", "arith.addi": "({0} + {1})",
    "arith.subf": "({0} - {1})", "arith.subi": "({0} - {1})",
    "arith.mulf": "({0} * {1})", "arith.muli": "({0} * {1})",
    "arith.divf": "({0} / {1})", "arith.divsi": "({0} / {1})", "arith.divui": "udiv({0}, {1})",
    "arith.remf": "rem({0}, {1})", "arith.remsi": "rem({0}, {1})", "arith.remui": "urem({0}, {1})",
    "arith.floordivsi": "floordiv({0}, {1})", "arith.ceildivsi": "ceildiv({0}, {1})",
    "arith.maximumf": "maximum({0}, {1})", "arith.minimumf": "minimum({0}, {1})",
    "arith.maxnumf": "fmax({0}, {1})", "arith.minnumf": "fmin({0}, {1})",
    "arith.maxsi": "maximum({0}, {1})", "arith.minsi": "minimum({0}, {1})",
    "arith.maxui": "umax({0}, {1})", "arith.minui": "umin({0}, {1})",
    "arith.andi": "bitand({0}, {1})", "arith.ori": "bitor({0}, {1})", "arith.xori": "bitxor({0}, {1})",
    "arith.shli": "shl({0}, {1})", "arith.shrsi": "shrs({0}, {1})", "arith.shrui": "shru({0}, {1})",
    "math.powf": "pow({0}, {1})", "math.ipowi": "pow({0}, {1})", "math.atan2": "atan2({0}, {1})",
    "math.copysign": "copysign({0}, {1})",
}  # fmt: skip
_UNARY = {
    "arith.negf": "(-{0})", "math.absf": "abs({0})", "math.absi": "abs({0})",
    "math.exp": "exp({0})", "math.exp2": "pow(2.0, {0})", "math.expm1": "expm1({0})",
    "math.log": "log({0})", "math.log2": "log2({0})", "math.log10": "log10({0})",
    "math.log1p": "log1p({0})", "math.sqrt": "sqrt({0})", "math.rsqrt": "rsqrt({0})",
    "math.tanh": "tanh({0})", "math.sin": "sin({0})", "math.cos": "cos({0})", "math.tan": "tan({0})",
    "math.atan": "atan({0})", "math.erf": "erf({0})", "math.floor": "floor({0})",
    "math.ceil": "ceil({0})", "math.round": "round({0})", "math.roundeven": "roundeven({0})",
    "math.trunc": "trunc({0})", "math.ctpop": "ctpop({0})", "math.ctlz": "ctlz({0})",
    "math.cttz": "cttz({0})", "math.asin": "asin({0})", "math.acos": "acos({0})",
    "math.sinh": "sinh({0})", "math.cosh": "cosh({0})", "math.asinh": "asinh({0})",
    "math.acosh": "acosh({0})", "math.atanh": "atanh({0})", "math.cbrt": "cbrt({0})",
}  # fmt: skip
_CMPI = {0: "eq", 1: "ne", 2: "lt", 3: "le", 4: "gt", 5: "ge", 6: "ult", 7: "ule", 8: "ugt", 9: "uge"}
_CMPF = {
    0: "False", 1: "eq({0}, {1})", 2: "gt({0}, {1})", 3: "ge({0}, {1})", 4: "lt({0}, {1})",
    5: "le({0}, {1})", 6: "bitand(ne({0}, {1}), ord({0}, {1}))", 7: "ord({0}, {1})",
    8: "bitor(eq({0}, {1}), uno({0}, {1}))", 9: "bitor(gt({0}, {1}), uno({0}, {1}))",
    10: "bitor(ge({0}, {1}), uno({0}, {1}))", 11: "bitor(lt({0}, {1}), uno({0}, {1}))",
    12: "bitor(le({0}, {1}), uno({0}, {1}))", 13: "ne({0}, {1})", 14: "uno({0}, {1})", 15: "True",
}  # fmt: skip
_CASTS = {
    "arith.extf": "cast", "arith.truncf": "cast", "arith.sitofp": "cast", "arith.fptosi": "cast",
    "arith.trunci": "cast", "arith.index_cast": "cast", "arith.extsi": "cast",
    "arith.extui": "ucast", "arith.uitofp": "ucast", "arith.index_castui": "ucast",
    "arith.fptoui": "ucast", "arith.bitcast": "bitcast",
}  # fmt: skip

_SCALING = ("arith.scaling_extf", "arith.scaling_truncf")

# complex.* on complex64/complex128 (numpy computes them natively).
_COMPLEX = {
    "complex.add": "({0} + {1})", "complex.sub": "({0} - {1})", "complex.mul": "({0} * {1})",
    "complex.div": "({0} / {1})", "complex.pow": "pow({0}, {1})", "complex.neg": "(-{0})",
    "complex.re": "real({0})", "complex.im": "imag({0})", "complex.create": "complex({0}, {1})",
    "complex.abs": "cabs({0})", "complex.conj": "conj({0})", "complex.exp": "exp({0})",
    "complex.log": "log({0})", "complex.sqrt": "sqrt({0})", "complex.sin": "sin({0})",
    "complex.cos": "cos({0})", "complex.tan": "tan({0})", "complex.tanh": "tanh({0})",
    "complex.expm1": "expm1({0})", "complex.log1p": "log1p({0})", "complex.rsqrt": "rsqrt({0})",
    "complex.sign": "sign({0})", "complex.eq": "eq({0}, {1})", "complex.neq": "ne({0}, {1})",
}  # fmt: skip

EXPR_OPS = frozenset({*_BINARY, *_UNARY, *_CASTS, *_SCALING, *_COMPLEX, "arith.cmpi", "arith.cmpf", "arith.select", "math.fma",
                      "math.fpowi", "arith.ceildivui"})  # fmt: skip


def element_name(t: Attribute) -> str:
    """The expression language's name of ``t``'s element type (index -> i64)."""
    found = _ELEMENT_NAMES_BY_ID.get(id(t))
    if found is not None and found[0] is t:
        return found[1]
    name = _element_name(t)
    if len(_ELEMENT_NAMES_BY_ID) > 4096:
        _ELEMENT_NAMES_BY_ID.clear()
    _ELEMENT_NAMES_BY_ID[id(t)] = (t, name)
    return name


# id(type) -> (the type, its element name): types are shared objects.
_ELEMENT_NAMES_BY_ID: dict[int, tuple[Attribute, str]] = {}


def _element_name(t: Attribute) -> str:
    elem = t.element_type if isinstance(t, TensorType) else t
    try:
        return _ELEMENT_NAMES[elem]
    except KeyError:
        name = "i64" if isinstance(elem, IndexType) else str(elem)
        if len(_ELEMENT_NAMES) < 1024:
            _ELEMENT_NAMES[elem] = name
        return name
    except TypeError:  # an unhashable attribute
        return str(elem)


_ELEMENT_NAMES: dict[Attribute, str] = {}


def op_expr(op: Operation, args: Sequence[str]) -> str:
    """``op`` (arith/math) applied to operand expressions ``args``."""
    name = op.name
    if name in _BINARY:
        return _BINARY[name].format(*args)
    if name in _UNARY:
        return _UNARY[name].format(*args)
    if name in _COMPLEX:
        return _COMPLEX[name].format(*args)
    if name == "arith.cmpi":
        return f"{_CMPI[op.predicate.value.data]}({args[0]}, {args[1]})"  # type: ignore[attr-defined]
    if name == "arith.cmpf":
        return _CMPF[op.predicate.value.data].format(*args)  # type: ignore[attr-defined]
    if name == "arith.select":
        return f"where({args[0]}, {args[1]}, {args[2]})"
    if name == "arith.ceildivui":
        t = element_name(op.results[0].type)
        return (f"(udiv({args[0]}, {args[1]}) + "
                f"where(ne(urem({args[0]}, {args[1]}), cast_{t}(0)), cast_{t}(1), cast_{t}(0)))")
    if name == "math.fma":
        return f"fma({args[0]}, {args[1]}, {args[2]})"
    if name == "math.fpowi":
        return f"powi({args[0]}, {args[1]})"
    if name in _SCALING:
        # ArithOps.td: the scale becomes an f8E8M0FNU power of two (truncf),
        # then multiplies (in the result type) or divides (in the input type).
        src, dst = element_name(op.operands[0].type), element_name(op.results[0].type)
        scale = args[1]
        if element_name(op.operands[1].type) != "f8E8M0FNU":
            scale = f"cast_f8E8M0FNU({scale})"
        if name == "arith.scaling_extf":
            return f"(cast_{dst}({args[0]}) * cast_{dst}({scale}))"
        return f"cast_{dst}(({args[0]} / cast_{src}({scale})))"
    if name in _CASTS:
        src, dst = element_name(op.operands[0].type), element_name(op.results[0].type)
        mode = op.properties.get("roundingmode")
        if mode is not None and mode.value.data != 0:
            # The kernels round to nearest, ties to even; another mode would
            # be answered wrongly.
            raise cannot_lower(op, "only the rounding mode tonearesteven is supported")
        if name in ("arith.extsi", "arith.sitofp", "arith.index_cast") and src == "i1" and dst != "i1":
            # A signed i1 true is -1.
            return f"where({args[0]}, cast_{dst}(-1), cast_{dst}(0))"
        if src == dst and name != "arith.bitcast":
            return args[0]
        return f"{_CASTS[name]}_{dst}({args[0]})"
    raise cannot_lower(op, "no elementwise equivalent")


def literal(attr: Attribute) -> str | None:
    """An IntegerAttr/FloatAttr as an expression literal (typed by its context)."""
    if isinstance(attr, IntegerAttr):
        v = attr.value.data
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return "True" if v else "False"
        return f"cast_{element_name(attr.type)}({v})"
    if isinstance(attr, FloatAttr):
        v = float(attr.value.data)
        if v != v:
            text = "nan"
        elif v in (float("inf"), float("-inf")):
            text = "inf" if v > 0 else "(-inf)"
        else:
            text = repr(v)
        return f"cast_{element_name(attr.type)}({text})"
    return None


def scalar_constant(value: SSAValue):
    """The IntegerAttr/FloatAttr a scalar value is a constant of, or None."""
    if not isinstance(value, OpResult):
        return None
    op = value.op
    if op.name == "arith.constant" or op.name.startswith("tfrt_scalar.constant."):
        attr = op.properties.get("value")
        if isinstance(attr, (IntegerAttr, FloatAttr)):
            return attr
    return None


def splat_constant(value: SSAValue):
    """The scalar attribute a tensor value is filled with, when the program says so."""
    if not isinstance(value, OpResult):
        return None
    op = value.op
    if op.name in ("arith.constant", "tfrt_array.constant"):
        attr = op.properties.get("value")
        # (An empty tensor is no splat: xDSL's is_splat indexes its first element.)
        if isinstance(attr, DenseIntOrFPElementsAttr) and all(attr.get_shape()) and attr.is_splat():
            v = attr.get_values()[0]
            et = attr.get_element_type()
            if isinstance(et, ComplexType):
                return None  # (no complex literals in expressions)
            return FloatAttr(v, et) if isinstance(v, float) else IntegerAttr(v, et)
        return None
    if op.name == "linalg.fill":
        return scalar_constant(op.operands[0])
    if op.name == "tfrt_array.elementwise" and len(op.operands) == 1:
        if op.properties["expr"].data == "a0":
            return scalar_constant(op.operands[0])
    return None


def is_zero(attr) -> bool:
    return attr is not None and float(attr.value.data) == 0.0 and not str(attr.value.data).startswith("-")


# Attributes are immutable values: the helpers below hand out shared ones.


def i64_array(values: Sequence[int]):
    return _i64_array(tuple(int(v) for v in values))


@functools.lru_cache(maxsize=4096)
def _i64_array(values: tuple[int, ...]):

    return ArrayAttr([i64_attr(v) for v in values])


@functools.lru_cache(maxsize=4096)
def i64_attr(v: int):

    return IntegerAttr(int(v), i64)


@functools.lru_cache(maxsize=2)
def i1_attr(v: bool):

    return IntegerAttr(int(bool(v)), i1)


@functools.lru_cache(maxsize=4096)
def str_attr(s: str):

    return StringAttr(s)


def replace(op: Operation, new_ops: Sequence[Operation], results: Sequence[SSAValue]) -> None:
    """Insert ``new_ops`` before ``op``, redirect its results to ``results``, erase it."""
    assert op.parent is not None
    for new in new_ops:
        insert_op_before(new, op)
    for old, new_value in zip(op.results, results):
        replace_all_uses(old, new_value)
    erase_op(op)


def tensor_type(shape: Sequence[int], element: Attribute) -> TensorType:
    return _tensor_type(tuple(shape), element)


@functools.lru_cache(maxsize=4096)
def _tensor_type(shape: tuple[int, ...], element: Attribute) -> TensorType:
    return TensorType(kernel_type(element), list(shape))


def elementwise(
    expr: str, operands: Sequence[SSAValue], result_type: Attribute, at: Operation
) -> Operation:
    """``tfrt_array.elementwise`` (tensor result) or ``tfrt_scalar.eval`` (scalar
    result) computing ``expr`` over ``operands``."""
    types = str_attr(",".join(element_name(v.type) for v in operands))
    result_type = kernel_type(result_type)
    if isinstance(result_type, TensorType):
        attrs = {
            "expr": str_attr(expr),
            "inplace": i64_attr(-1),
            "shape": i64_array(shape_of(result_type)),
            "types": types,
        }
        return make_op("tfrt_array.elementwise", operands, [result_type], attrs, at=at)
    return make_op("tfrt_scalar.eval", operands, [result_type], {"expr": str_attr(expr), "types": types}, at=at)
