"""The `linalg` dialect as the compiler reads it: xDSL's ops plus the named ops it lacks.

xDSL defines ``matmul``, ``conv_2d_*``, ``pooling_nchw_max`` and a few
elementwise named ops.  Models and ``mlir-opt`` output also use
``batch_matmul``, ``matvec``, ``vecmat``, ``dot``, ``depthwise_conv_2d_nhwc_hwc``,
``pooling_nhwc_max/sum/min`` and the other elementwise named ops
(``div``, ``abs``, ``negf``, ``tanh``...); this module defines them the way
xDSL defines its own (a hidden body built from the operand types, MLIR's
indexing maps), with MLIR's syntax.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, ArrayAttr, DenseIntElementsAttr
from xdsl.dialects.linalg import Linalg as _XdslLinalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import (
    ConvOperation,
    ElementwiseOperation,
    NamedOperation,
    PoolingOperation,
    YieldOp,
)
from xdsl.ir import Attribute, BlockArgument, Dialect, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import irdl_op_definition

from tfrt.dialects.linalg_relayout import RELAYOUT_OPS

_Body = Callable[[tuple[BlockArgument, ...], bool], SSAValue]


def _named(base: type, name: str, body: _Body, doc: str, extra: dict | None = None) -> type:
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        arg_types = cls.body_arg_types((*inputs, *outputs))
        is_float = isinstance(arg_types[-1], AnyFloat)

        @Builder.implicit_region(arg_types)
        def hidden_region(args: tuple[BlockArgument, ...]) -> None:
            YieldOp(body(args, is_float))

        return hidden_region

    namespace = {
        "__module__": __name__,
        "__qualname__": name,
        "__doc__": doc,
        "name": f"linalg.{name}",
        "get_hidden_region": classmethod(get_hidden_region),
        **(extra or {}),
    }
    cls = type(_class(name), (base,), namespace)
    return irdl_op_definition(cls)


def _class(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_")) + "Op"


def _un(fop, iop=None) -> _Body:
    def body(a, is_float):
        return (fop if is_float or iop is None else iop)(a[0]).result

    return body


def _bin(fop, iop) -> _Body:
    def body(a, is_float):
        return (fop if is_float else iop)(a[0], a[1]).result

    return body


def _neg(a, is_float):
    zero = arith.ConstantOp.from_float_and_width(0.0, a[0].type) if is_float else None
    if is_float:
        return arith.NegfOp(a[0]).result
    zero = arith.ConstantOp.from_int_and_width(0, a[0].type)
    return arith.SubiOp(zero, a[0]).result


def _reciprocal(a, is_float):
    one = arith.ConstantOp(arith.FloatAttr(1.0, a[0].type))  # type: ignore[attr-defined]
    return arith.DivfOp(one, a[0]).result


def _square(a, is_float):
    return (arith.MulfOp if is_float else arith.MuliOp)(a[0], a[0]).result


def _mac(a, is_float):
    add, mul = (arith.AddfOp, arith.MulfOp) if is_float else (arith.AddiOp, arith.MuliOp)
    return add(a[2], mul(a[0], a[1])).result


def _maps(*results: Sequence[int], dims: int) -> Callable:
    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return tuple(AffineMap(dims, 0, tuple(AffineDimExpr(d) for d in r)) for r in results)

    return get_default_indexing_maps


def _iterators(kinds: str) -> Callable:
    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return ArrayAttr(
            [IteratorTypeAttr.parallel() if k == "p" else IteratorTypeAttr.reduction() for k in kinds]
        )

    return get_iterator_types


_ELEMENTWISE = {
    "div": (_bin(arith.DivfOp, arith.DivSIOp), "Divides two tensors elementwise (signed for integers)."),
    "div_unsigned": (_bin(arith.DivfOp, arith.DivUIOp), "Divides two tensors elementwise (unsigned)."),
    "powf": (_bin(math.PowFOp, None), "Raises the first tensor to the second, elementwise."),
    "abs": (_un(math.AbsFOp, math.AbsIOp), "Applies |x| elementwise."),
    "ceil": (_un(math.CeilOp), "Applies ceil(x) elementwise."),
    "floor": (_un(math.FloorOp), "Applies floor(x) elementwise."),
    "round": (_un(math.RoundOp), "Rounds half away from zero, elementwise."),
    "rsqrt": (_un(math.RsqrtOp), "Applies 1/sqrt(x) elementwise."),
    "tanh": (_un(math.TanhOp), "Applies tanh(x) elementwise."),
    "erf": (_un(math.ErfOp), "Applies erf(x) elementwise."),
    "negf": (_neg, "Negates elementwise."),
    "reciprocal": (_reciprocal, "Applies 1/x elementwise."),
    "square": (_square, "Applies x*x elementwise."),
}

EXTRA_OPS: list[type] = [
    _named(ElementwiseOperation, name, body, doc) for name, (body, doc) in _ELEMENTWISE.items()
]

_MATMULS = {
    # name: (input maps, output map, dims, iterators)
    "batch_matmul": (((0, 1, 3), (0, 3, 2)), (0, 1, 2), 4, "pppr"),
    "matvec": (((0, 1), (1,)), (0,), 2, "pr"),
    "vecmat": (((1,), (1, 0)), (0,), 2, "pr"),
    "dot": (((0,), (0,)), (), 1, "r"),
}
for _name, (_ins, _out, _dims, _its) in _MATMULS.items():
    EXTRA_OPS.append(
        _named(
            NamedOperation,
            _name,
            _mac,
            f"linalg.{_name}: out += lhs * rhs over the contracted dimension.",
            {
                "PRINT_ATTRS_IN_FRONT": True,
                "__annotations__": {"PRINT_ATTRS_IN_FRONT": ClassVar[bool]},
                "get_default_indexing_maps": _maps(*_ins, _out, dims=_dims),
                "get_iterator_types": _iterators(_its),
            },
        )
    )


def _window_maps(depthwise: bool) -> Callable:
    # Dims: n, oh, ow, c|f, kh, kw (depthwise: n, oh, ow, c, kh, kw).
    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        sh, sw = self.strides.get_values()
        dh, dw = self.dilations.get_values()
        n, oh, ow, c, kh, kw = (AffineDimExpr(i) for i in range(6))
        inp = AffineMap(6, 0, (n, oh * sh + kh * dh, ow * sw + kw * dw, c))
        win = AffineMap(6, 0, (kh, kw, c) if depthwise else (kh, kw))
        return (inp, win, AffineMap(6, 0, (n, oh, ow, c)))

    return get_default_indexing_maps


def _max_body(a, is_float):
    return (arith.MaximumfOp if is_float else arith.MaxSIOp)(a[2], a[0]).result


def _min_body(a, is_float):
    return (arith.MinimumfOp if is_float else arith.MinSIOp)(a[2], a[0]).result


def _sum_body(a, is_float):
    return (arith.AddfOp if is_float else arith.AddiOp)(a[2], a[0]).result


for _name, _body in (("pooling_nhwc_max", _max_body), ("pooling_nhwc_sum", _sum_body),
                     ("pooling_nhwc_min", _min_body)):  # fmt: skip
    EXTRA_OPS.append(
        _named(
            PoolingOperation,
            _name,
            lambda a, f, b=_body: b(a, f),
            f"linalg.{_name}: pooling of an NHWC input over the window tensor's shape.",
            {"get_default_indexing_maps": _window_maps(False), "get_iterator_types": _iterators("ppppr" + "r")},
        )
    )

EXTRA_OPS.append(
    _named(
        ConvOperation,
        "depthwise_conv_2d_nhwc_hwc",
        _mac,
        "linalg.depthwise_conv_2d_nhwc_hwc: depthwise convolution, NHWC input, HWC filter.",
        {"get_default_indexing_maps": _window_maps(True), "get_iterator_types": _iterators("pppprr")},
    )
)

EXTRA_NAMES = tuple(op.name for op in EXTRA_OPS)
WINDOW_NAMES = tuple(n for n in EXTRA_NAMES if "pooling" in n or "conv" in n)

Linalg = Dialect("linalg", [*_XdslLinalg.operations, *EXTRA_OPS, *RELAYOUT_OPS], list(_XdslLinalg.attributes))

__all__ = ["EXTRA_NAMES", "EXTRA_OPS", "Linalg", "WINDOW_NAMES", "DenseIntElementsAttr", "Attribute"]
