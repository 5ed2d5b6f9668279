"""Every named op of MLIR's ``linalg`` dialect, generated from one table.

Each row of :data:`SPECS` is an op as linalg's OpDSL (``core_named_ops.py``)
or its ODS definition (``matmul``, ``batch_matmul``, ``batch_reduce_matmul``,
``contract``, ``elementwise``) gives it: the loop dimensions, each operand's
indexing expressions, and the body as a formula::

    conv_2d_nhwc_hwcf   dims n oh ow f kh kw c
        I[n, oh*SH + kh*DH, ow*SW + kw*DW, c]  K[kh, kw, c, f]  ->  O[n, oh, ow, f]
        O + cs(I) * cs(K)

From the row the class gets its indexing maps (strides ``S*`` and dilations
``D*`` come from the op's ``strides``/``dilations``, default 1), its
iterator types (a dimension of the output is parallel, any other a
reduction) and its hidden body, built from the operand types the way
MLIR's ``RegionBuilderHelper`` builds it:

* ``cs(x)``/``cu(x)`` cast ``x`` to the output's element type ``U``
  (``cast_signed``/``cast_unsigned``: ``extsi``/``extui`` to a wider
  integer, ``trunci`` to a narrower one, ``sitofp``/``uitofp`` int to
  float, ``fptosi``/``fptoui`` float to int, ``extf``/``truncf``);
  ``cast(x)`` is whichever the op's ``cast`` attribute names
  (``#linalg.type_fn<cast_unsigned>``; signed by default);
* ``+ - *`` and ``max_s``/``min_s``/``max_u``/``min_u``, ``div``,
  ``div_u``, ``powf`` are BinaryFn (``arith.ori``/``andi`` on ``i1``,
  ``maximumf``/``minimumf`` on floats); unary names are UnaryFn; the
  output operand is the accumulator (``O + ...`` is OpDSL's ``O += ...``).

So ``linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x4xi8>) outs(%c :
tensor<4x4xi32>)`` has the body ``extsi, extsi, muli, addi`` in ``i32``, and
the quantized ops subtract their zero points after the casts.

These classes replace xDSL's own named ops in the dialect (xDSL builds
matmul, fill, copy and the elementwise ops without casts).  ``linalg.generic``,
``yield``, ``index``, ``transpose``, ``broadcast`` and ``reduce`` stay xDSL's.

The body of an op whose formula depends on an attribute (``cast``,
``fun``, ``kind``) is built from the attributes when the op is built in
Python or read by xDSL's parser; a frontend that builds the body from the
operand types alone gets the defaults, and :func:`sync_body` rebuilds it
(``lower-linalg`` does before lowering).  The Winograd ops are not defined.

Example::

    %0 = linalg.conv_1d_nwc_wcf {strides = dense<2> : tensor<1xi64>}
           ins(%x, %w : tensor<1x9x3xi8>, tensor<3x3x4xi8>) outs(%o : tensor<1x4x4xi32>) -> tensor<1x4x4xi32>
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    DenseIntElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ShapedType,
    TensorType,
    VectorType,
    f64,
    i32,
    i64,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation, NamedOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

# ---------------------------------------------------------------------------
# Attributes: #linalg.type_fn<...>, #linalg.unary_fn<...>, #linalg.binary_fn<...>,
# #linalg.elementwise_kind<...>


class TypeFn(StrEnum):
    CAST_SIGNED = "cast_signed"
    CAST_UNSIGNED = "cast_unsigned"


class UnaryFn(StrEnum):
    EXP = "exp"
    LOG = "log"
    ABS = "abs"
    CEIL = "ceil"
    FLOOR = "floor"
    NEGF = "negf"
    RECIPROCAL = "reciprocal"
    ROUND = "round"
    SQRT = "sqrt"
    RSQRT = "rsqrt"
    SQUARE = "square"
    TANH = "tanh"
    ERF = "erf"


class BinaryFn(StrEnum):
    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    DIV_UNSIGNED = "div_unsigned"
    MAX_SIGNED = "max_signed"
    MIN_SIGNED = "min_signed"
    MAX_UNSIGNED = "max_unsigned"
    MIN_UNSIGNED = "min_unsigned"
    POWF = "powf"


# linalg.elementwise's kinds: the unary functions (and the trigonometric
# ones MLIR added for it), the binary ones and select.
_EXTRA_UNARY = ("sin", "cos", "tan", "acos", "acosh", "asin", "asinh", "atan", "atanh", "log10", "log1p", "log2")
ElementwiseKind = StrEnum(
    "ElementwiseKind",
    {n.upper(): n for n in (*(f.value for f in UnaryFn), *_EXTRA_UNARY, *(f.value for f in BinaryFn), "select")},
)


class _AngleEnum:
    """``#linalg.x<value>``: the value in angle brackets, as MLIR spells it."""

    @classmethod
    def parse_parameter(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)  # type: ignore[misc]

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)  # type: ignore[misc]


@irdl_attr_definition
class TypeFnAttr(_AngleEnum, EnumAttribute[TypeFn]):
    """``#linalg.type_fn<cast_signed|cast_unsigned>``."""

    name = "linalg.type_fn"


@irdl_attr_definition
class UnaryFnAttr(_AngleEnum, EnumAttribute[UnaryFn]):
    """``#linalg.unary_fn<exp>``."""

    name = "linalg.unary_fn"


@irdl_attr_definition
class BinaryFnAttr(_AngleEnum, EnumAttribute[BinaryFn]):
    """``#linalg.binary_fn<add>``."""

    name = "linalg.binary_fn"


@irdl_attr_definition
class ElementwiseKindAttr(_AngleEnum, EnumAttribute[ElementwiseKind]):  # type: ignore[valid-type]
    """``#linalg.elementwise_kind<add>``."""

    name = "linalg.elementwise_kind"


ATTRIBUTES: list[type[Attribute]] = [TypeFnAttr, UnaryFnAttr, BinaryFnAttr, ElementwiseKindAttr]


class _InStructuredOp(OpTrait):
    """The parent is a structured op (generic or named) with more loops than ``dim``."""

    def verify(self, op: Operation) -> None:
        parent = op.parent_op()
        if not isinstance(parent, LinalgStructuredOperation):
            raise VerifyException(f"'{op.name}' expected parent op with LinalgOp interface")
        dim = op.properties["dim"].value.data  # type: ignore[attr-defined]
        loops = len(parent.get_iterator_types())
        if dim >= loops:
            raise VerifyException(
                f"expected dim ({dim}) to be lower than the number of loops ({loops}) of the enclosing LinalgOp"
            )


@irdl_op_definition
class IndexOp(IRDLOperation):
    """``linalg.index``: the iteration index of a loop of the enclosing structured op.

    xDSL's allows only ``linalg.generic`` as the parent; MLIR's any structured
    op (``fill_rng_2d``'s body reads its indices)::

        %i = linalg.index 0 : index
    """

    name = "linalg.index"

    dim = prop_def(IntegerAttr[i64])
    result = result_def(IndexType)
    traits = traits_def(_InStructuredOp())

    assembly_format = "$dim attr-dict `:` type($result)"

    def __init__(self, dim: int):
        super().__init__(properties={"dim": IntegerAttr(dim, i64)}, result_types=[IndexType()])

_UNARY_KINDS = frozenset((*(f.value for f in UnaryFn), *_EXTRA_UNARY))
_BINARY_KINDS = frozenset(f.value for f in BinaryFn)

# ---------------------------------------------------------------------------
# The table


@dataclass(frozen=True)
class Spec:
    """One named op: see the module docstring."""

    name: str
    doc: str
    #: loop dimensions; empty for the rank-polymorphic elementwise ops.
    dims: tuple[str, ...]
    #: (operand name, index expressions or None for a scalar, "*" for "all
    #: dimensions in order"); the last is the output.
    operands: tuple[tuple[str, tuple[str, ...] | str | None], ...]
    #: the body formula (None: built by a function of its own).
    body: str | None
    #: spatial rank of ``strides``/``dilations`` (0: none).
    window: int = 0
    #: ``cast``, ``maps`` (user indexing maps), ``fun1``/``fun2``, ``kind``.
    attrs: frozenset[str] = frozenset()
    #: print the attribute dictionary before ``ins`` (MLIR) or as ``attrs =``
    #: after ``outs`` (xDSL's elementwise ops).
    front: bool = True

    @property
    def n_inputs(self) -> int:
        return len(self.operands) - 1


def _parse_operands(text: str) -> tuple[tuple[str, tuple[str, ...] | str | None], ...]:
    """``"I[n, oh*SH+kh*DH] K[kh] -> O[n, oh]"`` -> operand specs."""
    ins, out = text.split("->")
    out_specs = []
    for part in (ins, out):
        part = part.strip()
        while part:
            name_end = 0
            while name_end < len(part) and (part[name_end].isalnum() or part[name_end] == "_"):
                name_end += 1
            name = part[:name_end]
            rest = part[name_end:]
            if rest.startswith("["):
                close = rest.index("]")
                inside = rest[1:close].strip()
                index: tuple[str, ...] | str | None = "*" if inside == "*" else tuple(
                    e.strip() for e in inside.split(",") if e.strip()
                )
                part = rest[close + 1 :].strip()
            else:
                index = None
                part = rest.strip()
            out_specs.append((name, index))
    return tuple(out_specs)


def _spec(name, dims, operands, body, doc, window=0, attrs=(), front=True) -> Spec:
    return Spec(name, doc, tuple(dims.split()), _parse_operands(operands), body, window, frozenset(attrs), front)


_U = "Numeric casting is performed on the operands to the inner multiply, promoting them to the accumulator's type."
_P = "Numeric casting is performed on the input operand, promoting it to the accumulator's type."


def _table() -> list[Spec]:
    t: list[Spec] = []
    add = t.append
    # -- elementwise (rank-polymorphic, identity maps) -----------------------
    for fn, doc in (
        ("exp", "exp(x)"), ("log", "log(x)"), ("abs", "|x|"), ("ceil", "ceil(x)"), ("floor", "floor(x)"),
        ("negf", "-x"), ("reciprocal", "1/x"), ("round", "round(x), halves away from zero"),
        ("sqrt", "sqrt(x)"), ("rsqrt", "1/sqrt(x)"), ("square", "x*x"), ("tanh", "tanh(x)"), ("erf", "erf(x)"),
    ):  # fmt: skip
        add(_spec(fn, "", "I[*] -> O[*]", f"{fn}(I)", f"Applies {doc} elementwise (no casts).", front=False))
    for fn, formula, doc in (
        ("add", "lhs + rhs", "Adds"), ("sub", "lhs - rhs", "Subtracts"), ("mul", "lhs * rhs", "Multiplies"),
        ("div", "div(lhs, rhs)", "Divides (signed for integers)"),
        ("div_unsigned", "div_u(lhs, rhs)", "Divides (unsigned for integers)"),
        ("max", "max_s(lhs, rhs)", "Takes the (signed) maximum of"),
        ("min", "min_s(lhs, rhs)", "Takes the (signed) minimum of"),
        ("powf", "powf(lhs, rhs)", "Raises lhs to rhs for"),
    ):  # fmt: skip
        add(_spec(fn, "", "lhs[*] rhs[*] -> O[*]", formula, f"{doc} two tensors elementwise (no casts).", front=False))
    add(_spec("select", "", "cond[*] lhs[*] rhs[*] -> O[*]", "select(cond, lhs, rhs)",
              "Chooses lhs where cond holds, else rhs, elementwise.", front=False))  # fmt: skip
    add(_spec("copy", "", "I[*] -> O[*]", "cast(I)", "Copies the tensor elementwise, cast to the output's type.",
              attrs=("cast",)))  # fmt: skip
    add(_spec("fill", "", "value -> O[*]", "cs(value)", "Fills the output with the value cast to its type."))
    add(_spec("elemwise_unary", "", "I[*] -> O[*]", "fun(cast(I))",
              "Applies the unary function fun (default exp) to the cast input.", attrs=("cast", "fun1")))  # fmt: skip
    add(_spec("elemwise_binary", "", "lhs[*] rhs[*] -> O[*]", "fun(cast(lhs), cast(rhs))",
              "Applies the binary function fun (default add) to the cast inputs.", attrs=("cast", "fun2")))  # fmt: skip
    add(_spec("elementwise", "", "I[*] -> O[*]", None,
              "Applies the function named by kind; indexing_maps may transpose or broadcast the inputs.",
              attrs=("kind", "maps")))  # fmt: skip
    add(_spec("fill_rng_2d", "m n", "min max seed -> O[m, n]", None,
              "Fills the output with pseudo-random numbers in [min, max) from a linear congruential generator."))
    # -- contractions ------------------------------------------------------------
    mm = "C + cast(A) * cast(B)"
    mms = "C + cs(A) * cs(B)"
    qmm = "C + (cs(A) - cs(AZp)) * (cs(B) - cs(BZp))"
    add(_spec("matmul", "m n k", "A[m, k] B[k, n] -> C[m, n]", mm, f"C += A * B. {_U}", attrs=("cast", "maps")))
    add(_spec("matmul_transpose_a", "m n k", "A[k, m] B[k, n] -> C[m, n]", mm, f"C += A^T * B. {_U}",
              attrs=("cast",)))  # fmt: skip
    add(_spec("matmul_transpose_b", "m n k", "A[m, k] B[n, k] -> C[m, n]", mm, f"C += A * B^T. {_U}",
              attrs=("cast",)))  # fmt: skip
    add(_spec("matmul_unsigned", "m n k", "A[m, k] B[k, n] -> C[m, n]", "C + cu(A) * cu(B)",
              "C += A * B with unsigned casts."))  # fmt: skip
    add(_spec("quantized_matmul", "m n k", "A[m, k] B[k, n] AZp BZp -> C[m, n]", qmm,
              f"C += (A - AZp) * (B - BZp). {_U}"))  # fmt: skip
    add(_spec("mmt4d", "m n k m0 n0 k0", "lhs[m, k, m0, k0] rhs[n, k, n0, k0] -> accum[m, n, m0, n0]",
              "accum + cs(lhs) * cs(rhs)", f"Tiled matrix times transposed matrix. {_U}"))  # fmt: skip
    add(_spec("batch_mmt4d", "b m n k m0 n0 k0",
              "lhs[b, m, k, m0, k0] rhs[b, n, k, n0, k0] -> accum[b, m, n, m0, n0]",
              "accum + cs(lhs) * cs(rhs)", f"Batched mmt4d. {_U}"))  # fmt: skip
    add(_spec("batch_matmul", "b m n k", "A[b, m, k] B[b, k, n] -> C[b, m, n]", mm, f"Batched C += A * B. {_U}",
              attrs=("cast", "maps")))  # fmt: skip
    add(_spec("batch_matmul_transpose_a", "b m n k", "A[b, k, m] B[b, k, n] -> C[b, m, n]", mms,
              f"Batched C += A^T * B. {_U}"))  # fmt: skip
    add(_spec("batch_matmul_transpose_b", "b m n k", "A[b, m, k] B[b, n, k] -> C[b, m, n]", mms,
              f"Batched C += A * B^T. {_U}"))  # fmt: skip
    add(_spec("quantized_batch_matmul", "b m n k", "A[b, m, k] B[b, k, n] AZp BZp -> C[b, m, n]", qmm,
              f"Batched C += (A - AZp) * (B - BZp). {_U}"))  # fmt: skip
    add(_spec("batch_reduce_matmul", "b m n k", "A[b, m, k] B[b, k, n] -> C[m, n]", mm,
              f"C += sum over b of A[b] * B[b]. {_U}", attrs=("cast", "maps")))  # fmt: skip
    add(_spec("matvec", "m n", "A[m, n] y[n] -> x[m]", "x + cs(A) * cs(y)", f"x += A * y. {_U}"))
    add(_spec("vecmat", "n m", "y[m] A[m, n] -> x[n]", "x + cs(y) * cs(A)", f"x += y * A. {_U}"))
    add(_spec("batch_matvec", "b m k", "A[b, m, k] B[b, k] -> C[b, m]", mms, f"Batched matvec. {_U}"))
    add(_spec("batch_vecmat", "b n k", "A[b, k] B[b, k, n] -> C[b, n]", mms, f"Batched vecmat. {_U}"))
    add(_spec("dot", "m", "A[m] B[m] -> C[]", mms, f"C += sum of A * B. {_U}"))
    add(_spec("contract", "", "A[*] B[*] -> C[*]", mm,
              f"C += A * B over the dimensions indexing_maps contract. {_U}", attrs=("cast", "maps")))  # fmt: skip
    # -- convolutions --------------------------------------------------------------
    conv = "O + cs(I) * cs(K)"
    qconv = "O + (cs(I) - cs(IZp)) * (cs(K) - cs(KZp))"
    w1 = "ow*SW + kw*DW"
    w2 = "oh*SH + kh*DH, ow*SW + kw*DW"
    w3 = "od*SD + kd*DD, oh*SH + kh*DH, ow*SW + kw*DW"
    add(_spec("conv_1d", "ow kw", "I[ow + kw] K[kw] -> O[ow]", conv, f"1-D convolution, no channels. {_U}"))
    add(_spec("conv_2d", "oh ow kh kw", "I[oh + kh, ow + kw] K[kh, kw] -> O[oh, ow]", conv,
              f"2-D convolution, no channels. {_U}"))  # fmt: skip
    add(_spec("conv_3d", "od oh ow kd kh kw", "I[od + kd, oh + kh, ow + kw] K[kd, kh, kw] -> O[od, oh, ow]", conv,
              f"3-D convolution, no channels. {_U}"))  # fmt: skip
    for name, dims, io, q in (
        ("conv_1d_nwc_wcf", "n ow f kw c", f"I[n, {w1}, c] K[kw, c, f] -> O[n, ow, f]", False),
        ("conv_1d_ncw_fcw", "n f ow c kw", f"I[n, c, {w1}] K[f, c, kw] -> O[n, f, ow]", False),
        ("conv_2d_nhwc_hwcf", "n oh ow f kh kw c", f"I[n, {w2}, c] K[kh, kw, c, f] -> O[n, oh, ow, f]", False),
        ("conv_2d_nhwc_fhwc", "n oh ow f kh kw c", f"I[n, {w2}, c] K[f, kh, kw, c] -> O[n, oh, ow, f]", False),
        ("conv_2d_nhwc_hwcf_q", "n oh ow f kh kw c", f"I[n, {w2}, c] K[kh, kw, c, f] IZp KZp -> O[n, oh, ow, f]", True),
        ("conv_2d_nhwc_fhwc_q", "n oh ow f kh kw c", f"I[n, {w2}, c] K[f, kh, kw, c] IZp KZp -> O[n, oh, ow, f]", True),
        ("conv_2d_nchw_fchw", "n f oh ow c kh kw", f"I[n, c, {w2}] K[f, c, kh, kw] -> O[n, f, oh, ow]", False),
        ("conv_2d_nchw_fchw_q", "n f oh ow c kh kw", f"I[n, c, {w2}] K[f, c, kh, kw] IZp KZp -> O[n, f, oh, ow]", True),
        ("conv_2d_ngchw_fgchw", "n g fg oh ow c kh kw",
         f"I[n, g, c, {w2}] K[fg, g, c, kh, kw] -> O[n, g, fg, oh, ow]", False),
        ("conv_2d_ngchw_gfchw", "n g fg oh ow c kh kw",
         f"I[n, g, c, {w2}] K[g, fg, c, kh, kw] -> O[n, g, fg, oh, ow]", False),
        ("conv_2d_ngchw_gfchw_q", "n g fg oh ow c kh kw",
         f"I[n, g, c, {w2}] K[g, fg, c, kh, kw] IZp KZp -> O[n, g, fg, oh, ow]", True),
        ("conv_2d_nhwgc_gfhwc", "n oh ow g fg kh kw c",
         f"I[n, {w2}, g, c] K[g, fg, kh, kw, c] -> O[n, oh, ow, g, fg]", False),
        ("conv_2d_nhwgc_gfhwc_q", "n oh ow g fg kh kw c",
         f"I[n, {w2}, g, c] K[g, fg, kh, kw, c] IZp KZp -> O[n, oh, ow, g, fg]", True),
        ("conv_3d_ndhwc_dhwcf", "n od oh ow f kd kh kw c",
         f"I[n, {w3}, c] K[kd, kh, kw, c, f] -> O[n, od, oh, ow, f]", False),
        ("conv_3d_ndhwc_dhwcf_q", "n od oh ow f kd kh kw c",
         f"I[n, {w3}, c] K[kd, kh, kw, c, f] IZp KZp -> O[n, od, oh, ow, f]", True),
        ("conv_3d_ncdhw_fcdhw", "n od oh ow f kd kh kw c",
         f"I[n, c, {w3}] K[f, c, kd, kh, kw] -> O[n, f, od, oh, ow]", False),
        # depthwise: ic channels, each its own filter (times cm with a multiplier)
        ("depthwise_conv_1d_nwc_wc", "n ow ic kw", f"I[n, {w1}, ic] K[kw, ic] -> O[n, ow, ic]", False),
        ("depthwise_conv_1d_ncw_cw", "n ow ic kw", f"I[n, ic, {w1}] K[ic, kw] -> O[n, ic, ow]", False),
        ("depthwise_conv_1d_nwc_wcm", "n ow ic cm kw", f"I[n, {w1}, ic] K[kw, ic, cm] -> O[n, ow, ic, cm]", False),
        ("depthwise_conv_2d_nhwc_hwc", "n oh ow ic kh kw", f"I[n, {w2}, ic] K[kh, kw, ic] -> O[n, oh, ow, ic]", False),
        ("depthwise_conv_2d_nchw_chw", "n oh ow ic kh kw", f"I[n, ic, {w2}] K[ic, kh, kw] -> O[n, ic, oh, ow]", False),
        ("depthwise_conv_2d_nhwc_hwc_q", "n oh ow ic kh kw",
         f"I[n, {w2}, ic] K[kh, kw, ic] IZp KZp -> O[n, oh, ow, ic]", True),
        ("depthwise_conv_2d_nhwc_hwcm", "n oh ow ic cm kh kw",
         f"I[n, {w2}, ic] K[kh, kw, ic, cm] -> O[n, oh, ow, ic, cm]", False),
        ("depthwise_conv_2d_nhwc_hwcm_q", "n oh ow ic cm kh kw",
         f"I[n, {w2}, ic] K[kh, kw, ic, cm] IZp KZp -> O[n, oh, ow, ic, cm]", True),
        ("depthwise_conv_3d_ndhwc_dhwc", "n od oh ow kd kh kw ic",
         f"I[n, {w3}, ic] K[kd, kh, kw, ic] -> O[n, od, oh, ow, ic]", False),
        ("depthwise_conv_3d_ncdhw_cdhw", "n od oh ow kd kh kw ic",
         f"I[n, ic, {w3}] K[ic, kd, kh, kw] -> O[n, ic, od, oh, ow]", False),
        ("depthwise_conv_3d_ndhwc_dhwcm", "n od oh ow cm kd kh kw ic",
         f"I[n, {w3}, ic] K[kd, kh, kw, ic, cm] -> O[n, od, oh, ow, ic, cm]", False),
    ):  # fmt: skip
        window = 1 if "_1d" in name else 3 if "_3d" in name else 2
        what = "Quantized (zero points subtracted after the casts) " if q else ""
        add(_spec(name, dims, io, qconv if q else conv, f"{what}{name.split('_')[0]} convolution. {_U}", window))
    # -- pooling (the second input only gives the window's shape) -----------------
    for layout, dims, io in (
        ("nhwc", "n oh ow c kh kw", f"I[n, {w2}, c] K[kh, kw] -> O[n, oh, ow, c]"),
        ("nchw", "n c oh ow kh kw", f"I[n, c, {w2}] K[kh, kw] -> O[n, c, oh, ow]"),
        ("nwc", "n ow c kw", f"I[n, {w1}, c] K[kw] -> O[n, ow, c]"),
        ("ncw", "n c ow kw", f"I[n, c, {w1}] K[kw] -> O[n, c, ow]"),
        ("ndhwc", "n od oh ow c kd kh kw", f"I[n, {w3}, c] K[kd, kh, kw] -> O[n, od, oh, ow, c]"),
    ):
        window = {"nwc": 1, "ncw": 1, "ndhwc": 3}.get(layout, 2)
        kinds = {
            "nhwc": ("sum", "max", "max_unsigned", "min", "min_unsigned"),
            "nchw": ("sum", "max"),
            "nwc": ("sum", "max", "max_unsigned", "min", "min_unsigned"),
            "ncw": ("sum", "max"),
            "ndhwc": ("sum", "max", "min"),
        }[layout]
        for kind in kinds:
            body = {
                "sum": "O + cs(I)", "max": "max_s(O, cs(I))", "min": "min_s(O, cs(I))",
                "max_unsigned": "max_u(O, cu(I))", "min_unsigned": "min_u(O, cu(I))",
            }[kind]  # fmt: skip
            add(_spec(f"pooling_{layout}_{kind}", dims, io, body, f"{kind.replace('_', ' ')} pooling. {_P}", window))
    return t


SPECS: dict[str, Spec] = {s.name: s for s in _table()}

# ---------------------------------------------------------------------------
# Indexing maps


def window_symbols(window: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The stride and dilation symbols of a window of ``window`` spatial dims."""
    axes = ("W",) if window == 1 else ("H", "W") if window == 2 else ("D", "H", "W")
    return tuple(f"S{a}" for a in axes), tuple(f"D{a}" for a in axes)


def _affine(text: str, dims: Mapping[str, int], n: int, symbols: Mapping[str, int]) -> AffineExpr:
    def ev(node: ast.AST) -> AffineExpr | int:
        if isinstance(node, ast.Name):
            if node.id in dims:
                return AffineDimExpr(dims[node.id])
            return symbols[node.id]
        if isinstance(node, ast.Constant):
            return int(node.value)
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return _add(a, b)
            if isinstance(node.op, ast.Mult):
                return _mul(a, b)
        raise ValueError(f"unsupported index expression {text!r}")

    e = ev(ast.parse(text, mode="eval").body)
    return AffineConstantExpr(e) if isinstance(e, int) else e


def _add(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(a, int):
        a, b = b, a
    return a + b


def _mul(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if isinstance(a, int):
        a, b = b, a
    return a * b


@functools.lru_cache(maxsize=1024)
def spec_maps(name: str, strides: tuple[int, ...] = (), dilations: tuple[int, ...] = (),
              ranks: tuple[int, ...] = ()) -> tuple[AffineMap, ...]:  # fmt: skip
    """The default indexing maps of ``name`` (``ranks``: the operands' ranks,
    for the rank-polymorphic ops)."""
    spec = SPECS[name]
    if not spec.dims:
        n = ranks[-1] if ranks else 0
        out = []
        for (_, index), rank in zip(spec.operands, ranks or (0,) * len(spec.operands)):
            if index is None:
                out.append(AffineMap(n, 0, ()))
            else:
                out.append(AffineMap.identity(n))
        return tuple(out)
    dims = {d: i for i, d in enumerate(spec.dims)}
    n = len(spec.dims)
    s_names, d_names = window_symbols(spec.window) if spec.window else ((), ())
    symbols = {**dict(zip(s_names, strides or (1,) * spec.window)),
               **dict(zip(d_names, dilations or (1,) * spec.window))}  # fmt: skip
    maps = []
    for _, index in spec.operands:
        exprs = () if index is None else tuple(_affine(e, dims, n, symbols) for e in index)
        maps.append(AffineMap(n, 0, exprs))
    return tuple(maps)


def iterator_kinds(maps: Sequence[AffineMap]) -> tuple[str, ...]:
    """A loop dimension the output's map uses is parallel, any other a reduction."""
    if not maps:
        return ()
    out = maps[-1]
    used = {e.position for e in out.results if isinstance(e, AffineDimExpr)}
    return tuple("parallel" if d in used else "reduction" for d in range(out.num_dims))


@functools.cache
def _iterator_attr(kinds: tuple[str, ...]) -> ArrayAttr[IteratorTypeAttr]:
    return ArrayAttr(
        [IteratorTypeAttr.parallel() if k == "parallel" else IteratorTypeAttr.reduction() for k in kinds]
    )


# ---------------------------------------------------------------------------
# Bodies, as MLIR's RegionBuilderHelper builds them


class BodyError(ValueError):
    """The body cannot be built for these types (MLIR's region builder fails too)."""


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


def _width(t: Attribute) -> int:
    return t.width.data if isinstance(t, IntegerType) else t.bitwidth  # type: ignore[attr-defined]


class _Body:
    """Appends the ops of a formula to ``block``."""

    def __init__(self, block: Block, names: Mapping[str, SSAValue], out_type: Attribute,
                 props: Mapping[str, Attribute]):  # fmt: skip
        self.block = block
        self.names = names
        self.u = out_type
        self.props = props

    def add(self, op) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    # -- casts (mlir::convertScalarToDtype) ------------------------------------
    def cast(self, v: SSAValue, to: Attribute, unsigned: bool) -> SSAValue:
        src = v.type
        if src == to:
            return v
        if _is_int(to):
            if _is_float(src):
                return self.add((arith.FPToUIOp if unsigned else arith.FPToSIOp)(v, to))
            if isinstance(src, IndexType):
                return self.add(arith.IndexCastOp(v, to))
            if _is_int(src):
                if _width(to) > _width(src):
                    return self.add((arith.ExtUIOp if unsigned else arith.ExtSIOp)(v, to))
                if _width(to) < _width(src):
                    return self.add(arith.TruncIOp(v, to))
                return v
        elif _is_float(to):
            if _is_int(src) or isinstance(src, IndexType):
                return self.add((arith.UIToFPOp if unsigned else arith.SIToFPOp)(v, to))
            if _is_float(src):
                if _width(to) > _width(src):
                    return self.add(arith.ExtFOp(v, to))
                return self.add(arith.TruncFOp(v, to))
        raise BodyError(f"cannot cast {src} to {to}")

    # -- functions -----------------------------------------------------------------
    def unary(self, fn: str, x: SSAValue) -> SSAValue:
        t = x.type
        if not _is_float(t):
            # MLIR's builder takes floats only; |x| and x*x of integers are kept
            # (math.absi, arith.muli) as this compiler always accepted them.
            if fn == "abs" and _is_int(t):
                return self.add(math.AbsIOp(x))
            if fn == "square" and _is_int(t):
                return self.add(arith.MuliOp(x, x))
            raise BodyError(f"unsupported non numeric type {t} for unary function '{fn}'")
        if fn == "negf":
            return self.add(arith.NegfOp(x))
        if fn == "reciprocal":
            one = self.add(arith.ConstantOp(FloatAttr(1.0, t)))  # type: ignore[arg-type]
            return self.add(arith.DivfOp(one, x))
        if fn == "square":
            return self.add(arith.MulfOp(x, x))
        op = _MATH_UNARY.get(fn)
        if op is None:
            raise BodyError(f"unknown unary function '{fn}'")
        return self.add(op(x))

    def binary(self, fn: str, a: SSAValue, b: SSAValue) -> SSAValue:
        ta, tb = a.type, b.type
        floats = _is_float(ta) and _is_float(tb)
        ints = _is_int(ta) and _is_int(tb)
        bools = ints and _width(ta) == 1 and _width(tb) == 1
        if not (floats or ints):
            raise BodyError(f"unsupported operand types {ta} and {tb} for binary function '{fn}'")
        if ta != tb:
            raise BodyError(f"binary function '{fn}' of {ta} and {tb}: operand types differ")
        if fn == "add":
            op = arith.AddfOp if floats else arith.OrIOp if bools else arith.AddiOp
        elif fn == "sub":
            if bools:
                raise BodyError("unsupported operation: sub with bools")
            op = arith.SubfOp if floats else arith.SubiOp
        elif fn == "mul":
            op = arith.MulfOp if floats else arith.AndIOp if bools else arith.MuliOp
        elif fn == "div":
            if bools:
                raise BodyError("unsupported operation: div with bools")
            op = arith.DivfOp if floats else arith.DivSIOp
        elif fn == "div_unsigned":
            if not ints or bools:
                if floats:
                    op = arith.DivfOp  # MLIR's named op divides floats with divf
                    return self.add(op(a, b))
                raise BodyError("unsupported operation: unsigned div not on uint")
            op = arith.DivUIOp
        elif fn == "max_signed":
            op = arith.MaximumfOp if floats else arith.MaxSIOp
        elif fn == "min_signed":
            op = arith.MinimumfOp if floats else arith.MinSIOp
        elif fn == "max_unsigned":
            op = arith.MaximumfOp if floats else arith.MaxUIOp
        elif fn == "min_unsigned":
            op = arith.MinimumfOp if floats else arith.MinUIOp
        elif fn == "powf":
            if not floats:
                raise BodyError("powf takes floats")
            op = math.PowFOp
        else:
            raise BodyError(f"unknown binary function '{fn}'")
        return self.add(op(a, b))

    # -- the formula -----------------------------------------------------------------
    def type_fn(self) -> bool:
        """True for ``cast_unsigned``."""
        attr = self.props.get("cast")
        return isinstance(attr, TypeFnAttr) and attr.data == TypeFn.CAST_UNSIGNED

    def eval(self, node: ast.AST) -> SSAValue:
        if isinstance(node, ast.Name):
            return self.names[node.id]
        if isinstance(node, ast.BinOp):
            fn = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}[type(node.op)]
            a = self.eval(node.left)
            return self.binary(fn, a, self.eval(node.right))
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        f = node.func.id
        args = node.args
        if f in ("cs", "cu", "cast"):
            v = self.eval(args[0])
            unsigned = f == "cu" or (f == "cast" and self.type_fn())
            return self.cast(v, self.u, unsigned)
        if f == "fun":
            attr = self.props.get("fun")
            vals = [self.eval(a) for a in args]
            if len(vals) == 1:
                name = attr.data.value if isinstance(attr, UnaryFnAttr) else "exp"
                return self.unary(name, vals[0])
            name = attr.data.value if isinstance(attr, BinaryFnAttr) else "add"
            return self.binary(name, vals[0], vals[1])
        if f == "select":
            c, a, b = (self.eval(x) for x in args)
            if not (_is_int(c.type) and _width(c.type) == 1):
                raise BodyError(f"select's condition is {c.type}, not i1")
            if a.type != b.type:
                raise BodyError(f"select of {a.type} and {b.type}: operand types differ")
            return self.add(arith.SelectOp(c, a, b))
        vals = [self.eval(a) for a in args]
        if len(vals) == 1:
            return self.unary(f, vals[0])
        return self.binary(_BINARY_NAMES.get(f, f), vals[0], vals[1])


_MATH_UNARY: dict[str, Callable] = {
    "exp": math.ExpOp, "log": math.LogOp, "abs": math.AbsFOp, "ceil": math.CeilOp, "floor": math.FloorOp,
    "round": math.RoundOp, "sqrt": math.SqrtOp, "rsqrt": math.RsqrtOp, "tanh": math.TanhOp, "erf": math.ErfOp,
    "sin": math.SinOp, "cos": math.CosOp, "tan": math.TanOp, "acos": math.AcosOp, "acosh": math.AcoshOp,
    "asin": math.AsinOp, "asinh": math.AsinhOp, "atan": math.AtanOp, "atanh": math.AtanhOp,
    "log10": math.Log10Op, "log1p": math.Log1pOp, "log2": math.Log2Op,
}  # fmt: skip
_BINARY_NAMES = {"max_s": "max_signed", "min_s": "min_signed", "max_u": "max_unsigned",
                 "min_u": "min_unsigned", "div_u": "div_unsigned"}  # fmt: skip


@functools.lru_cache(maxsize=256)
def _formula(text: str) -> ast.AST:
    return ast.parse(text, mode="eval").body


def element_type(t: Attribute) -> Attribute:
    """A shaped type's element type, or the scalar type itself."""
    if isinstance(t, TensorType | MemRefType):
        return t.get_element_type()
    return t


def build_body(name: str, operand_types: Sequence[Attribute], props: Mapping[str, Attribute] | None = None,
               ) -> Region:  # fmt: skip
    """The body of op ``name`` for operands of ``operand_types`` (inputs, then
    the output) and properties ``props``; raises :class:`BodyError`."""
    spec = SPECS[name]
    props = props or {}
    arg_types = [element_type(t) for t in operand_types]
    for t in arg_types:
        if not isinstance(t, IntegerType | AnyFloat | IndexType):
            raise BodyError(f"operands must have integer or float elements, not {t}")
    block = Block(arg_types=arg_types)
    args = block.args
    if name == "elementwise":
        kind = props.get("kind")
        if not isinstance(kind, ElementwiseKindAttr):
            raise BodyError("'linalg.elementwise' needs a kind")
        body = _Body(block, {}, arg_types[-1], props)
        k = kind.data.value
        need = 1 if k in _UNARY_KINDS else 2 if k in _BINARY_KINDS else 3
        if len(args) != need + 1:
            raise BodyError(f"kind '{k}' takes {need} input(s), got {len(args) - 1}")
        if need == 1:
            result = body.unary(k, args[0])
        elif need == 2:
            result = body.binary(k, args[0], args[1])
        else:
            result = body.add(arith.SelectOp(args[0], args[1], args[2]))
    elif name == "fill_rng_2d":
        result = _fill_rng_body(block)
    else:
        if len(args) != len(spec.operands):
            raise BodyError(f"expects {len(spec.operands)} operands, got {len(args)}")
        names = {n: a for (n, _), a in zip(spec.operands, args)}
        body = _Body(block, names, arg_types[-1], props)
        assert spec.body is not None
        result = body.eval(_formula(spec.body))
    block.add_op(YieldOp(result))
    return Region(block)


def _fill_rng_body(block: Block) -> SSAValue:
    """fill_rng_2d's OpDSL body: one linear congruential step per index."""
    lo, hi, seed, _ = block.args
    out_t = block.args[3].type
    b = _Body(block, {}, out_t, {})

    def const(v) -> SSAValue:
        attr = FloatAttr(v, f64) if isinstance(v, float) else IntegerAttr(v, i64)
        return b.add(arith.ConstantOp(attr))

    if lo.type != f64 or hi.type != f64 or seed.type != i32:
        raise BodyError("fill_rng_2d takes min and max as f64 and seed as i32")
    multiplier = b.cast(const(1103515245), i32, False)
    increment = b.cast(const(12345), i32, False)
    m = b.cast(b.add(IndexOp(0)), i32, False)
    rand1 = b.binary("add", b.binary("mul", b.binary("add", m, seed), multiplier), increment)
    n = b.cast(b.add(IndexOp(1)), i32, False)
    rand2 = b.binary("add", b.binary("mul", b.binary("add", n, rand1), multiplier), increment)
    inv_range = b.cast(const(2.3283064e-10), f64, False)
    offset = b.cast(const(2147483647), f64, False)
    scaling = b.binary("mul", b.binary("sub", hi, lo), inv_range)
    value = b.binary("add", b.binary("mul", b.binary("add", offset, b.cast(rand2, f64, False)), scaling), lo)
    return b.cast(value, out_t, False)


# ---------------------------------------------------------------------------
# The op classes

_ELIDED = frozenset({"operandSegmentSizes", "indexing_maps", "kind", "linalg.memoized_indexing_maps"})


class NamedStructuredOp(NamedOperation):
    """A named op of :data:`SPECS` (see the module docstring)."""

    SPEC: ClassVar[Spec]

    # -- structure -----------------------------------------------------------------
    def window_values(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(strides, dilations), ones where the op has none."""
        n = self.SPEC.window
        found = []
        for key in ("strides", "dilations"):
            attr = self.properties.get(key)
            found.append(tuple(int(v) for v in attr.get_values()) if attr is not None else (1,) * n)  # type: ignore[attr-defined]
        return found[0], found[1]

    def maps_attr(self) -> Attribute | None:
        """``indexing_maps``: the property, or an attribute of that name (a
        dictionary ``{indexing_maps = [...]}`` that a parser did not move into
        the properties)."""
        attr = self.attributes.get("indexing_maps")
        return attr if attr is not None else self.properties.get("indexing_maps")

    def user_maps(self) -> tuple[AffineMap, ...] | None:
        attr = self.maps_attr()
        if isinstance(attr, ArrayAttr) and attr.data:
            return tuple(m.data for m in attr.data)  # type: ignore[attr-defined]
        return None

    def default_maps(self) -> tuple[AffineMap, ...]:
        spec = self.SPEC
        ranks = tuple(len(t.get_shape()) if isinstance(t, ShapedType) else 0 for t in self.operand_types)
        if spec.name in ("elementwise", "contract"):
            return tuple(AffineMap.identity(ranks[-1] if ranks else 0) for _ in ranks)
        if spec.dims:
            strides, dilations = self.window_values() if spec.window else ((), ())
            return spec_maps(spec.name, strides, dilations)
        return spec_maps(spec.name, ranks=ranks)

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        maps = self.user_maps()
        return maps if maps is not None else self.default_maps()

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        attr = self.maps_attr()
        if isinstance(attr, ArrayAttr) and attr.data:
            return attr  # type: ignore[return-value]
        return ArrayAttr(AffineMapAttr(m) for m in self.default_maps())

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterator_attr(iterator_kinds(tuple(self.get_default_indexing_maps())))

    def get_num_loops(self) -> int:
        maps = self.get_default_indexing_maps()
        return maps[0].num_dims if maps else 0

    # -- body ------------------------------------------------------------------------
    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue],
                          properties: Mapping[str, Attribute] | None = None) -> Region:  # fmt: skip
        types = [v.type for v in (*inputs, *outputs)]
        props = properties or {}
        if cls.SPEC.name == "elementwise" and "kind" not in props:
            # The kind is an attribute: a builder that only knows the types gets
            # a placeholder (sync_body builds the real body).
            block = Block(arg_types=[element_type(t) for t in types])
            block.add_op(YieldOp(block.args[-1]) if block.args else YieldOp())
            return Region(block)
        return build_body(cls.SPEC.name, types, props)

    def expected_body(self) -> Region:
        return build_body(self.SPEC.name, [v.type for v in self.operands], self.properties)

    # -- syntax ----------------------------------------------------------------------
    @classmethod
    def parse(cls, parser: Parser):
        spec = cls.SPEC
        props: dict[str, Attribute] = {}
        if "kind" in spec.attrs:
            if parser.parse_optional_keyword("kind") is not None:
                parser.parse_punctuation("=")
                props["kind"] = parser.parse_attribute()
            else:
                props["kind"] = ElementwiseKindAttr(ElementwiseKindAttr.parse_parameter(parser))
        if "maps" in spec.attrs and parser.parse_optional_keyword("indexing_maps") is not None:
            parser.parse_punctuation("=")
            props["indexing_maps"] = parser.parse_attribute()
        attrs: dict[str, Attribute] = dict(parser.parse_optional_attr_dict())
        ins, in_types = _parse_operand_list(parser, "ins")
        outs, out_types = _parse_operand_list(parser, "outs")
        if parser.parse_optional_keyword("attrs") is not None:
            parser.parse_punctuation("=")
            attrs.update(parser.expect(parser.parse_optional_attr_dict, "expected an attribute dictionary"))
        res_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            found = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            res_types = list(found) if found is not None else [parser.parse_type()]
        prop_names = cls.get_irdl_definition().properties
        for key in [k for k in attrs if k in prop_names]:
            props[key] = attrs.pop(key)
        pos = parser.pos
        try:
            region = build_body(spec.name, [*in_types, *out_types], props)
        except BodyError as e:
            parser.raise_error(f"'{cls.name}' op cannot build its body: {e}", pos, pos)
        return cls.create(
            operands=[*ins, *outs],
            result_types=res_types,
            properties={**props, "operandSegmentSizes": _segments(len(ins), len(outs))},
            attributes=attrs,
            regions=[region],
        )

    def print(self, printer: Printer) -> None:
        kind = self.properties.get("kind")
        if kind is not None:
            printer.print_string(" kind=")
            printer.print_attribute(kind)
        maps = self.maps_attr()
        if isinstance(maps, ArrayAttr) and maps.data and not self._default_maps_attr(maps):
            printer.print_string(" indexing_maps = [")
            printer.print_list(maps.data, printer.print_attribute)
            printer.print_string("]")
        extra = {k: v for k, v in {**self.attributes, **self.properties}.items() if k not in _ELIDED}
        if extra and self.SPEC.front:
            printer.print_op_attributes(extra)
        for word, values in ((" ins(", self.inputs), (" outs(", self.outputs)):
            if values:
                printer.print_string(word)
                printer.print_list(values, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list([v.type for v in values], printer.print_attribute)
                printer.print_string(")")
        if extra and not self.SPEC.front:
            printer.print_string(" attrs = ")
            printer.print_op_attributes(extra)
        if self.res:
            printer.print_string(" -> ")
            if len(self.res) == 1:
                printer.print_attribute(self.res[0].type)
            else:
                with printer.in_parens():
                    printer.print_list([r.type for r in self.res], printer.print_attribute)

    def _default_maps_attr(self, maps: ArrayAttr) -> bool:
        spec = self.SPEC
        if spec.name == "contract":
            return False
        try:
            return tuple(m.data for m in maps.data) == self.default_maps()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - malformed operands: print the maps
            return False

    # -- verification ----------------------------------------------------------------
    def verify_(self) -> None:
        spec = self.SPEC
        if spec.name != "contract" and len(self.inputs) != spec.n_inputs and spec.name != "elementwise":
            raise VerifyException(f"expected {spec.n_inputs} input(s), got {len(self.inputs)}")
        if len(self.outputs) != 1:
            raise VerifyException(f"expected one output, got {len(self.outputs)}")
        if spec.window:
            for key in ("strides", "dilations"):
                attr = self.properties.get(key)
                if attr is None:
                    continue
                t = attr.type  # type: ignore[attr-defined]
                # MLIR's I64ElementsAttr: a tensor or a vector (`dense<1> : vector<2xi64>`) of i64.
                if not (isinstance(t, (TensorType, VectorType)) and t.element_type == i64
                        and tuple(t.get_shape()) == (spec.window,)):
                    raise VerifyException(
                        f"attribute '{key}' failed to satisfy constraint: 64-bit signless int elements "
                        f"attribute of shape [{spec.window}]"
                    )
                if any(int(v) < 1 for v in attr.get_values()):  # type: ignore[attr-defined]
                    raise VerifyException(f"attribute '{key}' must be positive")
        if spec.name == "elementwise":
            _verify_elementwise(self)
        if spec.name == "contract":
            _verify_contract(self)
        elif "maps" in spec.attrs and self.user_maps() is not None and spec.name != "elementwise":
            _verify_matmul_maps(self)
        for operand, (name, index) in zip(self.operands, spec.operands if spec.name not in ("contract", "elementwise") else ()):
            if index is None and isinstance(operand.type, ShapedType):
                raise VerifyException(f"operand '{name}' must be a scalar, not {operand.type}")
        super().verify_()
        _verify_yield(self)

    def sync_body(self) -> None:
        """Rebuild the body from the op's attributes (see the module docstring)."""
        sync_body(self)


def _parse_operand_list(parser: Parser, keyword: str):
    if parser.parse_optional_keyword(keyword) is None:
        return [], []
    pos = parser.pos
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return parser.resolve_operands(names, types, pos), types


@functools.cache
def _segments(n_in: int, n_out: int):
    from xdsl.dialects.builtin import DenseArrayBase

    return DenseArrayBase.from_list(i32, [n_in, n_out])


def _verify_yield(op: NamedStructuredOp) -> None:
    block = op.body.block
    last = block.last_op
    if last is None or last.name != "linalg.yield":
        return
    for i, (v, out) in enumerate(zip(last.operands, op.outputs)):
        want = element_type(out.type)
        if v.type != want:
            raise VerifyException(
                f"the body computes {v.type} but output #{i} has element type {want}: "
                f"'{op.name}' casts nothing here, so the operands need the output's element type"
            )


def _verify_elementwise(op: NamedStructuredOp) -> None:
    kind = op.properties.get("kind")
    if not isinstance(kind, ElementwiseKindAttr):
        raise VerifyException("requires attribute 'kind'")
    k = kind.data.value
    need = 1 if k in _UNARY_KINDS else 2 if k in _BINARY_KINDS else 3
    if len(op.inputs) != need:
        raise VerifyException(f"kind '{k}' expects {need} input(s), got {len(op.inputs)}")
    maps = op.user_maps()
    if maps is not None:
        for i, m in enumerate(maps):
            if not all(isinstance(e, AffineDimExpr) for e in m.results):
                raise VerifyException(f"indexing_map #{i} must be a projected permutation")
        out = maps[-1]
        if [getattr(e, "position", -1) for e in out.results] != list(range(out.num_dims)):
            raise VerifyException("the output's indexing_map must be the identity")


def _verify_contract(op: NamedStructuredOp) -> None:
    maps = op.user_maps()
    if maps is None:
        raise VerifyException("requires attribute 'indexing_maps'")
    if len(op.inputs) != 2:
        raise VerifyException(f"expected 2 inputs, got {len(op.inputs)}")
    if len(maps) != 3:
        raise VerifyException(f"expected 3 indexing_maps (one per operand), got {len(maps)}")
    n = maps[0].num_dims
    in_occ = [0] * n
    out_occ = [0] * n
    for i, (m, v) in enumerate(zip(maps, op.operands)):
        rank = len(v.type.get_shape()) if isinstance(v.type, ShapedType) else 0
        if len(m.results) != rank:
            raise VerifyException(
                "mismatch between number of dims of operand and number of results of corresponding indexing map"
            )
        if m.num_dims != n:
            raise VerifyException("iteration spaces of provided affine_maps differ")
        for e in m.results:
            if not isinstance(e, AffineDimExpr):
                raise VerifyException("affine_map specifies dims by non-dim expression")
            (in_occ if i < 2 else out_occ)[e.position] += 1
    contracting = False
    for d in range(n):
        contracting |= in_occ[d] == 2 and out_occ[d] == 0
        if in_occ[d] == 0 and out_occ[d] == 0:
            raise VerifyException(f"iteration space dim at index {d} not used to access any operand")
        if in_occ[d] == 1 and out_occ[d] != 1:
            raise VerifyException(
                f"iteration space dim at index {d} is neither a contracting dim nor of parallel iteration type"
            )
    if not contracting:
        raise VerifyException("'indexing_maps' do not specify a contracting dimension")


def _verify_matmul_maps(op: NamedStructuredOp) -> None:
    maps = op.user_maps() or ()
    default = spec_maps(op.SPEC.name)
    if len(maps) != len(default):
        raise VerifyException(
            f"expected the number of indexing_map ({len(maps)}) to be equal to the number of "
            f"input/output operands ({len(default)})"
        )
    for i, (m, d) in enumerate(zip(maps, default)):
        if m.num_dims != d.num_dims:
            raise VerifyException(f"expected indexing_map #{i} to have {d.num_dims} dim(s) to match the number of loops")
        allowed = set(d.results)
        if not set(m.results) <= allowed or len(set(m.results)) != len(m.results):
            raise VerifyException("Unexpected dim expression in map result.")
        if i < 2 and len(m.results) < len(d.results):
            # A broadcast input: MLIR allows only the reduction dimension
            # (and, for the batched ops, the batch dimension with it).
            k = AffineDimExpr(d.num_dims - 1)
            if k not in m.results:
                raise VerifyException(f"Invalid broadcast requested, should be (d{d.num_dims - 1}).")


def sync_body(op: NamedStructuredOp) -> None:
    """Replace ``op``'s body by the one its attributes give, when they differ
    from the defaults a types-only builder assumed."""
    if not any(k in op.properties for k in ("cast", "fun", "kind")):
        return
    region = op.expected_body()
    old = op.body
    block = old.block
    new_block = region.block
    region.detach_block(new_block)
    old.insert_block_before(new_block, block)
    old.detach_block(block)
    block.erase(safe_erase=False)


# ---------------------------------------------------------------------------
# Class generation


def _class_name(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_")) + "Op"


def _make(spec: Spec) -> type[NamedStructuredOp]:
    ns: dict = {
        "__module__": __name__,
        "__qualname__": _class_name(spec.name),
        "__doc__": f"``linalg.{spec.name}``: {spec.doc}",
        "name": f"linalg.{spec.name}",
        "SPEC": spec,
        "PRINT_ATTRS_IN_FRONT": spec.front,
        "__annotations__": {"SPEC": ClassVar[Spec], "PRINT_ATTRS_IN_FRONT": ClassVar[bool]},
    }
    if spec.window:
        ns["strides"] = opt_prop_def(DenseIntElementsAttr)
        ns["dilations"] = opt_prop_def(DenseIntElementsAttr)
    if "cast" in spec.attrs:
        ns["cast"] = opt_prop_def(TypeFnAttr)
    if "fun1" in spec.attrs:
        ns["fun"] = opt_prop_def(UnaryFnAttr)
    if "fun2" in spec.attrs:
        ns["fun"] = opt_prop_def(BinaryFnAttr)
    if "kind" in spec.attrs:
        ns["kind"] = prop_def(ElementwiseKindAttr)
    if "maps" in spec.attrs:
        if spec.dims:
            default = ArrayAttr(AffineMapAttr(m) for m in spec_maps(spec.name))
            ns["indexing_maps"] = prop_def(ArrayAttr[AffineMapAttr], default_value=default)
        elif spec.name == "contract":
            ns["indexing_maps"] = prop_def(ArrayAttr[AffineMapAttr])
        else:
            # No maps (the empty list): identity maps of the output's rank.
            ns["indexing_maps"] = prop_def(ArrayAttr[AffineMapAttr], default_value=ArrayAttr([]))
    return irdl_op_definition(type(_class_name(spec.name), (NamedStructuredOp,), ns))


OPS: dict[str, type[NamedStructuredOp]] = {f"linalg.{s.name}": _make(s) for s in SPECS.values()}

@irdl_op_definition
class MapOp(IRDLOperation):
    """``linalg.map``: the body applied to the inputs' elements, one result
    element per element of ``init`` (whose contents are not read)::

        %r = linalg.map ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%o : tensor<4xf32>)
          (%x: f32, %y: f32) {
            %s = arith.addf %x, %y : f32
            linalg.yield %s : f32
          }

    The body's arguments are the inputs' elements, then optionally the
    init's (recent MLIR always writes that one: ``(%x: f32, %y: f32, %out:
    f32)``); ``ins`` may be absent.  MLIR's short form ``linalg.map {
    arith.addf } ins(...) outs(...)`` is read by both parsers; it prints in
    the long form.
    """

    name = "linalg.map"

    inputs = var_operand_def()
    init = operand_def(ShapedType)
    result = var_result_def(TensorType)
    mapper = region_def("single_block")

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        payload = None
        if parser.parse_optional_punctuation("{") is not None:
            payload = parser.parse_identifier()
            payload_attrs = parser.parse_optional_attr_dict()
            parser.parse_punctuation("}")
        ins, in_types = _parse_operand_list(parser, "ins")
        outs, out_types = _parse_operand_list(parser, "outs")
        if len(outs) != 1:
            parser.raise_error("'linalg.map' expects exactly one operand in 'outs'")
        attrs = dict(parser.parse_optional_attr_dict())
        elems = [element_type(t) for t in in_types]
        if payload is None:
            args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parser.parse_argument())
            region = parser.parse_region(args)
        else:
            block = Block(arg_types=elems)
            op_type = parser.ctx.get_op(payload)
            inner = op_type.create(operands=list(block.args), result_types=[element_type(out_types[0])],
                                   attributes=dict(payload_attrs))  # fmt: skip
            block.add_op(inner)
            block.add_op(YieldOp(*inner.results))
            region = Region(block)
        results = [t for t in out_types if isinstance(t, TensorType)]
        return cls.create(operands=[*ins, outs[0]], result_types=results, attributes=attrs, regions=[region])

    def print(self, printer: Printer) -> None:
        for word, values in ((" ins(", self.inputs), (" outs(", (self.init,))):
            if values:
                printer.print_string(word)
                printer.print_list(values, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list([v.type for v in values], printer.print_attribute)
                printer.print_string(")")
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        printer.print_string(" (")
        printer.print_list(self.mapper.block.args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(self.mapper, print_entry_block_args=False)

    def verify_(self) -> None:
        block = self.mapper.block
        want = [element_type(v.type) for v in self.inputs]
        got_types = [a.type for a in block.args]
        with_init = got_types == [*want, element_type(self.init.type)] and got_types != want
        if with_init and block.args[-1].uses:
            # lower-linalg's map kernel has no operand for the init's elements.
            raise VerifyException(
                "reads the init's element in its body, which this compiler does not support yet"
            )
        if got_types != want and not with_init:
            raise VerifyException(
                f"expects the body's arguments to be the inputs' element types ({', '.join(map(str, want))}), "
                f"got ({', '.join(str(a.type) for a in block.args)})"
            )
        init_t = self.init.type
        for v in self.inputs:
            if isinstance(v.type, ShapedType) and v.type.get_shape() != init_t.get_shape():  # type: ignore[attr-defined]
                raise VerifyException(f"expects the inputs' shape to be the init's, {init_t}, got {v.type}")
        last = block.last_op
        if last is not None and last.name == "linalg.yield":
            got = [v.type for v in last.operands]
            if got != [element_type(init_t)]:
                raise VerifyException(f"the body yields ({', '.join(map(str, got))}), not the init's element type")
        if isinstance(init_t, TensorType) and [r.type for r in self.results] != [init_t]:
            raise VerifyException("expects one result of the init's type")


#: Ops whose syntax has a prefix before the attribute dictionary
#: (``kind=...``, ``indexing_maps = [...]``).
PREFIXED = frozenset({
    "linalg.elementwise", "linalg.contract", "linalg.matmul", "linalg.batch_matmul", "linalg.batch_reduce_matmul",
})  # fmt: skip

#: Ops with 2-D ``strides``/``dilations`` (MLIR's default: ``dense<1> : tensor<2xi64>``).
WINDOW_2D = frozenset(n for n, c in OPS.items() if c.SPEC.window == 2)

__all__ = [
    "ATTRIBUTES", "IndexOp", "MapOp", "OPS", "PREFIXED", "SPECS", "WINDOW_2D", "BinaryFnAttr", "BodyError", "ElementwiseKindAttr",
    "NamedStructuredOp", "Spec", "TypeFnAttr", "UnaryFnAttr", "build_body", "iterator_kinds", "spec_maps",
    "sync_body",
]  # fmt: skip
