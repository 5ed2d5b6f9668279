"""The ops of ``tfrt.devices.ops`` written as high-level MLIR: the compiler's form.

An op is specified once (``tfrt.devices.ops``: inputs, attributes, the
metadata function) and has one implementation per backend: the array
kernels (``tfrt.devices.array_ops``: numpy on the host, cupy on a GPU) and,
here, the standard MLIR (``linalg``, ``tensor``, ``arith``, ``math``) that
``@tfrt.function`` traces it to and ``tfrt_compile``'s pipeline lowers,
fuses and turns into BEF.  ``EMITTERS[name](b, ins, outs, attrs)`` writes op
``name`` with the :class:`MlirBuilder` ``b``; ``ins`` are :class:`Value` s,
``outs`` the result metadata the op's metadata function computed, ``attrs``
the normalized attributes; it returns one :class:`Value` per result.  The
eager-vs-compiled agreement test (tests/eager/test_agreement.py) runs every
op both ways on random inputs.

Pure text: this module imports neither xDSL nor lark, so tracing stays cheap
and only compiling the traced text loads the compiler.  For example ``add``
of a ``2x3`` and a ``3`` f32 tensor is::

    %v3 = tensor.empty() : tensor<2x3xf32>
    %v4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
            affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
            iterator_types = ["parallel", "parallel"]}
        ins(%v1, %v2 : tensor<2x3xf32>, tensor<3xf32>) outs(%v3 : tensor<2x3xf32>) {
      ^bb0(%a0: f32, %a1: f32, %o: f32):
        %b1 = arith.addf %a0, %a1 : f32
        linalg.yield %b1 : f32
      } -> tensor<2x3xf32>
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tfrt.devices.ops import OpError, reduction_axes, resolve_slice
from tfrt.tensor.dtype import DType
from tfrt.tensor.shape import TensorShape

# Element types the compiler's kernels compute on (docs/compiler.md).
ELEMENT_TYPES = {
    DType.F16: "f16", DType.F32: "f32", DType.F64: "f64", DType.I1: "i1",
    DType.I8: "i8", DType.I16: "i16", DType.I32: "i32", DType.I64: "i64",
}  # fmt: skip


def element_type(dtype: DType, op: str = "function") -> str:
    try:
        return ELEMENT_TYPES[dtype]
    except KeyError:
        raise OpError(
            f"{op}: dtype {dtype.short_name} has no compiled form (the compiler computes on "
            "f16, f32, f64, i1, i8, i16, i32, i64)"
        ) from None


def tensor_type(shape: Sequence[int], dtype: DType) -> str:
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{element_type(dtype)}>"


def _is_float(dt: DType) -> bool:
    return dt in (DType.F16, DType.F32, DType.F64)


_F_BITS = {DType.F16: (16, 5), DType.F32: (32, 8), DType.F64: (64, 11)}


def float_literal(value: float, dtype: DType) -> str:
    """An MLIR float literal (infinities and NaN as hexadecimal bit patterns)."""
    if math.isfinite(value):
        text = repr(float(value))
        return text if ("e" in text or "." in text) else text + ".0"
    npdt = {DType.F16: np.float16, DType.F32: np.float32, DType.F64: np.float64}[dtype]
    bits = np.array(value, npdt).view(
        {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(npdt).itemsize]
    )
    return "0x" + format(int(bits), f"0{np.dtype(npdt).itemsize * 2}X")


def scalar_literal(value, dtype: DType) -> str:
    if _is_float(dtype):
        return float_literal(float(value), dtype)
    if dtype == DType.I1:
        return "true" if value else "false"
    return str(int(value))


def _typed_literal(value, dtype: DType) -> str:
    """A scalar ``arith.constant``'s value and type: ``2.5 : f32``; an i1 is
    ``true``/``false`` alone (MLIR's boolean attribute has its type)."""
    if dtype == DType.I1:
        return scalar_literal(value, dtype)
    return f"{scalar_literal(value, dtype)} : {element_type(dtype)}"


def _lowest(dtype: DType):
    if _is_float(dtype):
        return -math.inf
    if dtype == DType.I1:
        return 0
    return int(np.iinfo(dtype.np_dtype).min)


def _highest(dtype: DType):
    if _is_float(dtype):
        return math.inf
    if dtype == DType.I1:
        return 1
    return int(np.iinfo(dtype.np_dtype).max)


@dataclass(frozen=True)
class Value:
    """An SSA tensor value of the function being written."""

    name: str
    shape: tuple[int, ...]
    dtype: DType

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.dtype)


class Body:
    """The scalar body of a ``linalg.generic``: ``b.op("arith.addf", x, y)``."""

    def __init__(self, builder: MlirBuilder, lines: list[str]):
        self._b = builder
        self.lines = lines

    def _name(self) -> str:
        return self._b.fresh("b")

    def const(self, value, dtype: DType) -> str:
        n = self._name()
        self.lines.append(f"{n} = arith.constant {_typed_literal(value, dtype)}")
        return n

    def op(self, opname: str, *args: str, dtype: DType) -> str:
        n = self._name()
        self.lines.append(f"{n} = {opname} {', '.join(args)} : {element_type(dtype)}")
        return n

    def cmp(self, kind: str, pred: str, a: str, b: str, dtype: DType) -> str:
        n = self._name()
        self.lines.append(f"{n} = arith.{kind} {pred}, {a}, {b} : {element_type(dtype)}")
        return n

    def select(self, c: str, a: str, b: str, dtype: DType) -> str:
        n = self._name()
        self.lines.append(f"{n} = arith.select {c}, {a}, {b} : {element_type(dtype)}")
        return n

    def cast(self, opname: str, a: str, src: DType, dst: DType) -> str:
        n = self._name()
        self.lines.append(f"{n} = {opname} {a} : {element_type(src)} to {element_type(dst)}")
        return n

    def index(self, dim: int) -> str:
        """The iteration index along ``dim``, as an i64."""
        n = self._name()
        self.lines.append(f"{n} = linalg.index {dim} : index")
        m = self._name()
        self.lines.append(f"{m} = arith.index_cast {n} : index to i64")
        return m


class MlirBuilder:
    """Writes the body of one ``func.func``, one value at a time."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._count = 0

    def fresh(self, hint: str = "v") -> str:
        self._count += 1
        return f"%{hint}{self._count}"

    def emit(self, line: str) -> None:
        self.lines.append(line)

    # -- constants ---------------------------------------------------------
    def scalar(self, value, dtype: DType) -> str:
        n = self.fresh("c")
        self.emit(f"{n} = arith.constant {_typed_literal(value, dtype)}")
        return n

    def constant(self, array: np.ndarray, dtype: DType | None = None) -> Value:
        """A dense constant (splats and small arrays inline, others as hex bytes)."""
        from tfrt.tensor.dtype import dtype_from_numpy

        a = np.ascontiguousarray(array)
        dt = dtype or dtype_from_numpy(a.dtype)
        t = tensor_type(a.shape, dt)
        flat = a.reshape(-1)
        if a.size and np.all(flat == flat[0]) and not (_is_float(dt) and np.isnan(flat[0])):
            data = f"dense<{scalar_literal(flat[0], dt)}>"
        elif a.size <= 16 and (not _is_float(dt) or np.all(np.isfinite(flat))):
            data = "dense<" + _nested(a, lambda v: scalar_literal(v, dt)) + ">"
        else:
            data = _hex_dense(a)
        n = self.fresh("cst")
        self.emit(f"{n} = arith.constant {data} : {t}")
        return Value(n, tuple(a.shape), dt)

    def empty(self, shape, dtype: DType) -> str:
        n = self.fresh()
        self.emit(f"{n} = tensor.empty() : {tensor_type(shape, dtype)}")
        return n

    def filled(self, shape, dtype: DType, value) -> str:
        e = self.empty(shape, dtype)
        s = self.scalar(value, dtype)
        n = self.fresh()
        t = tensor_type(shape, dtype)
        self.emit(f"{n} = linalg.fill ins({s} : {element_type(dtype)}) outs({e} : {t}) -> {t}")
        return n

    # -- structure -----------------------------------------------------------
    def reshape(self, v: Value, shape: Sequence[int]) -> Value:
        shape = tuple(int(d) for d in shape)
        if shape == v.shape:
            return v
        n = self.fresh()
        out = Value(n, shape, v.dtype)
        if not shape:
            # to rank 0: every dimension is 1
            self.emit(f"{n} = tensor.collapse_shape {v.name} [] : {v.type} into {out.type}")
        else:
            s = self.constant(np.array(shape, np.int64))
            self.emit(
                f"{n} = tensor.reshape {v.name}({s.name}) : ({v.type}, {s.type}) -> {out.type}"
            )
        return out

    def transpose(self, v: Value, perm: Sequence[int]) -> Value:
        perm = [int(p) for p in perm]
        if perm == list(range(len(perm))):
            return v
        shape = tuple(v.shape[p] for p in perm)
        e = self.empty(shape, v.dtype)
        n = self.fresh()
        out = Value(n, shape, v.dtype)
        self.emit(
            f"{n} = linalg.transpose ins({v.name} : {v.type}) outs({e} : {out.type}) "
            f"permutation = [{', '.join(map(str, perm))}]"
        )
        return out

    def map(
        self,
        ins: Sequence[Value],
        out_shape: Sequence[int],
        out_dtype: DType,
        body: Callable[[Body, list[str]], str],
        index_dims: bool = False,
    ) -> Value:
        """A ``linalg.generic`` over ``out_shape`` (inputs broadcast as numpy's);
        ``body(b, args)`` returns the name of the yielded scalar."""
        out_shape = tuple(out_shape)
        rank = len(out_shape)
        dims = [f"d{i}" for i in range(rank)]
        maps, operands = [], []
        for v in ins:
            offset = rank - len(v.shape)
            keep = [i for i, d in enumerate(v.shape) if d == out_shape[offset + i]]
            if len(keep) != len(v.shape):
                v = self.reshape(v, [v.shape[i] for i in keep])
            maps.append(
                f"affine_map<({', '.join(dims)}) -> ({', '.join(dims[offset + i] for i in keep)})>"
            )
            operands.append(v)
        maps.append(f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>")
        e = self.empty(out_shape, out_dtype)
        n = self.fresh()
        out = Value(n, out_shape, out_dtype)
        iters = ", ".join(['"parallel"'] * rank)
        args = [self.fresh("a") for _ in operands]
        lines: list[str] = []
        result = body(Body(self, lines), args)
        block_args = "".join(f"{a}: {element_type(v.dtype)}, " for a, v in zip(args, operands))
        ins_text = (
            f"ins({', '.join(v.name for v in operands)} : {', '.join(v.type for v in operands)}) "
            if operands else ""
        )  # fmt: skip
        self.emit(
            f"{n} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iters}]}} "
            f"{ins_text}outs({e} : {out.type}) {{"
        )
        self.emit(f"^bb0({block_args}{self.fresh('o')}: {element_type(out_dtype)}):")
        for line in lines:
            self.emit("  " + line)
        self.emit(f"  linalg.yield {result} : {element_type(out_dtype)}")
        self.emit(f"}} -> {out.type}")
        return out

    def reduce(self, v: Value, axes: Sequence[int], kind: str) -> Value:
        """``kind`` (sum/max/min) over ``axes``, the reduced dimensions dropped."""
        axes = sorted({int(a) for a in axes})
        if not axes:
            return v
        shape = tuple(d for i, d in enumerate(v.shape) if i not in axes)
        dt = v.dtype
        init = {"sum": 0, "max": _lowest(dt), "min": _highest(dt)}[kind]
        acc = self.filled(shape, dt, init)
        n = self.fresh()
        out = Value(n, shape, dt)
        if _is_float(dt):
            op = {"sum": "arith.addf", "max": "arith.maximumf", "min": "arith.minimumf"}[kind]
        elif dt == DType.I1:
            op = {"sum": "arith.ori", "max": "arith.ori", "min": "arith.andi"}[kind]
        else:
            op = {"sum": "arith.addi", "max": "arith.maxsi", "min": "arith.minsi"}[kind]
        el = element_type(dt)
        a, c, s = self.fresh("in"), self.fresh("init"), self.fresh("s")
        self.emit(
            f"{n} = linalg.reduce ins({v.name} : {v.type}) outs({acc} : {out.type}) "
            f"dimensions = [{', '.join(map(str, axes))}]"
        )
        self.emit(f"  ({a}: {el}, {c}: {el}) {{")
        self.emit(f"    {s} = {op} {a}, {c} : {el}")
        self.emit(f"    linalg.yield {s} : {el}")
        self.emit("  }")
        return out

    def pad(self, v: Value, low: Sequence[int], high: Sequence[int], value) -> Value:
        if not any(low) and not any(high):
            return v
        shape = tuple(d + lo + hi for d, lo, hi in zip(v.shape, low, high))
        s = self.scalar(value, v.dtype)
        n = self.fresh()
        out = Value(n, shape, v.dtype)
        idx = ", ".join(f"{self.fresh('i')}: index" for _ in shape)
        self.emit(
            f"{n} = tensor.pad {v.name} low[{', '.join(map(str, low))}] high[{', '.join(map(str, high))}] {{"
        )
        self.emit(f"^bb0({idx}):")
        self.emit(f"  tensor.yield {s} : {element_type(v.dtype)}")
        self.emit(f"}} : {v.type} to {out.type}")
        return out


def _nested(a: np.ndarray, fmt) -> str:
    if a.ndim == 0:
        return fmt(a.item())
    return "[" + ", ".join(_nested(x, fmt) for x in a) + "]"


def _hex_dense(a: np.ndarray) -> str:
    data = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<")))
    if data.dtype == np.bool_:
        data = data.astype(np.uint8)
    return f'dense<"0x{data.tobytes().hex().upper()}">'


# --------------------------------------------------------------------------
# the emitters

Emitter = Callable[[MlirBuilder, list, list, dict], list]
EMITTERS: dict[str, Emitter] = {}


def _emitter(*names: str):
    def register(fn: Emitter) -> Emitter:
        for n in names:
            EMITTERS[n] = fn
        return fn

    return register


def _binary_body(name: str, dt: DType):
    fl = _is_float(dt)
    if dt == DType.I1:
        table = {
            "add": "arith.ori",
            "mul": "arith.andi",
            "maximum": "arith.ori",
            "minimum": "arith.andi",
        }
    elif fl:
        table = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "div": "arith.divf",
                 "maximum": "arith.maximumf", "minimum": "arith.minimumf", "pow": "math.powf"}  # fmt: skip
    else:
        table = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli", "div": "arith.divsi",
                 "maximum": "arith.maxsi", "minimum": "arith.minsi"}  # fmt: skip
    if name not in table:
        raise OpError(f"{name}: dtype {dt.short_name} has no compiled form of this op")
    opname = table[name]
    if name == "div" and not fl:
        # Integer division by zero gives 0, as the array kernels do.
        def body(b: Body, args):
            zero = b.const(0, dt)
            one = b.const(1, dt)
            is_zero = b.cmp("cmpi", "eq", args[1], zero, dt)
            safe = b.select(is_zero, one, args[1], dt)
            q = b.op(opname, args[0], safe, dtype=dt)
            return b.select(is_zero, zero, q, dt)

        return body
    return lambda b, args: b.op(opname, args[0], args[1], dtype=dt)


def _binary(name: str) -> Emitter:
    op = "add" if name == "bias_add" else name

    def emit(b: MlirBuilder, ins, outs, attrs):
        (out,) = outs
        return [b.map(ins, out.shape.dims, out.dtype, _binary_body(op, ins[0].dtype))]

    return emit


for _name in ("add", "sub", "mul", "div", "maximum", "minimum", "pow", "bias_add"):
    EMITTERS[_name] = _binary(_name)


_CMP = {
    "less": ("olt", "slt", "ult"), "less_equal": ("ole", "sle", "ule"),
    "greater": ("ogt", "sgt", "ugt"), "greater_equal": ("oge", "sge", "uge"),
    "equal": ("oeq", "eq", "eq"), "not_equal": ("une", "ne", "ne"),
}  # fmt: skip


def _compare(name: str) -> Emitter:
    def emit(b: MlirBuilder, ins, outs, attrs):
        dt = ins[0].dtype
        fpred, spred, upred = _CMP[name]
        if _is_float(dt):
            body = lambda bb, a: bb.cmp("cmpf", fpred, a[0], a[1], dt)
        else:
            pred = upred if dt == DType.I1 else spred
            body = lambda bb, a: bb.cmp("cmpi", pred, a[0], a[1], dt)
        return [b.map(ins, outs[0].shape.dims, DType.I1, body)]

    return emit


for _name in _CMP:
    EMITTERS[_name] = _compare(_name)


@_emitter("where")
def _where(b: MlirBuilder, ins, outs, attrs):
    dt = ins[1].dtype
    return [b.map(ins, outs[0].shape.dims, dt, lambda bb, a: bb.select(a[0], a[1], a[2], dt))]


def _unary(fn: Callable[[Body, str, DType], str]) -> Emitter:
    def emit(b: MlirBuilder, ins, outs, attrs):
        dt = ins[0].dtype
        return [b.map(ins, outs[0].shape.dims, dt, lambda bb, a: fn(bb, a[0], dt))]

    return emit


def _relu(bb: Body, x: str, dt: DType) -> str:
    if dt == DType.I1:
        return x
    zero = bb.const(0, dt)
    return bb.op("arith.maximumf" if _is_float(dt) else "arith.maxsi", x, zero, dtype=dt)


def _neg(bb: Body, x: str, dt: DType) -> str:
    if _is_float(dt):
        return bb.op("arith.negf", x, dtype=dt)
    if dt == DType.I1:
        return x
    return bb.op("arith.subi", bb.const(0, dt), x, dtype=dt)


def _abs(bb: Body, x: str, dt: DType) -> str:
    if dt == DType.I1:
        return x
    return bb.op("math.absf" if _is_float(dt) else "math.absi", x, dtype=dt)


def _sigmoid(bb: Body, x: str, dt: DType) -> str:
    one = bb.const(1.0, dt)
    e = bb.op("math.exp", bb.op("arith.negf", x, dtype=dt), dtype=dt)
    return bb.op("arith.divf", one, bb.op("arith.addf", e, one, dtype=dt), dtype=dt)


def _math(opname: str):
    return lambda bb, x, dt: bb.op(opname, x, dtype=dt)


EMITTERS.update({
    "relu": _unary(_relu), "neg": _unary(_neg), "abs": _unary(_abs), "sigmoid": _unary(_sigmoid),
    "tanh": _unary(_math("math.tanh")), "exp": _unary(_math("math.exp")),
    "log": _unary(_math("math.log")), "sqrt": _unary(_math("math.sqrt")),
    "rsqrt": _unary(_math("math.rsqrt")),
})  # fmt: skip


@_emitter("copy")
def _copy(b: MlirBuilder, ins, outs, attrs):
    return [ins[0]]  # tensors are values


@_emitter("check_numerics")
def _check_numerics(b: MlirBuilder, ins, outs, attrs):
    raise OpError(
        "check_numerics: has no compiled form (the compiler has no runtime assertion); "
        "call it outside @tfrt.function"
    )


# -- matmul, convolution, pooling ---------------------------------------------


def _swap_last(b: MlirBuilder, v: Value) -> Value:
    r = len(v.shape)
    return b.transpose(v, [*range(r - 2), r - 1, r - 2])


@_emitter("matmul")
def _matmul(b: MlirBuilder, ins, outs, attrs):
    a, w = ins
    out = outs[0]
    dt = out.dtype
    if dt == DType.I1:
        raise OpError("matmul: dtype i1 has no compiled form")
    if attrs["transpose_a"]:
        a = _swap_last(b, a)
    if attrs["transpose_b"]:
        w = _swap_last(b, w)
    dims = out.shape.dims
    m, n = dims[-2:]
    k = a.shape[-1]
    batch = dims[:-2]
    zero_shape = (m, n) if not batch else (math.prod(batch), m, n)
    init = b.filled(zero_shape, dt, 0)
    res = b.fresh()
    if not batch:
        t = tensor_type((m, n), dt)
        b.emit(
            f"{res} = linalg.matmul ins({a.name}, {w.name} : {a.type}, {w.type}) outs({init} : {t}) -> {t}"
        )
        return [Value(res, (m, n), dt)]
    nb = math.prod(batch)
    a3 = b.reshape(_broadcast(b, a, (*batch, m, k)), (nb, m, k))
    w3 = b.reshape(_broadcast(b, w, (*batch, k, n)), (nb, k, n))
    t = tensor_type((nb, m, n), dt)
    b.emit(
        f"{res} = linalg.batch_matmul ins({a3.name}, {w3.name} : {a3.type}, {w3.type}) outs({init} : {t}) -> {t}"
    )
    return [b.reshape(Value(res, (nb, m, n), dt), dims)]


def _broadcast(b: MlirBuilder, v: Value, shape) -> Value:
    shape = tuple(shape)
    if v.shape == shape:
        return v
    return b.map([v], shape, v.dtype, lambda bb, a: a[0])


def _same_pads(size, k, stride, dilation, padding, out):
    if padding == "VALID":
        return 0, 0
    eff = (k - 1) * dilation + 1
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def _hw_attr(values) -> str:
    return f"dense<[{values[0]}, {values[1]}]> : tensor<2xi64>"


@_emitter("conv2d")
def _conv2d(b: MlirBuilder, ins, outs, attrs):
    x, f = ins
    out = outs[0]
    _, h, w, _ = x.shape
    kh, kw, _, _ = f.shape
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]
    _, oh, ow, _ = out.shape.dims
    ph = _same_pads(h, kh, sh, dh, attrs["padding"], oh)
    pw = _same_pads(w, kw, sw, dw, attrs["padding"], ow)
    x = b.pad(x, [0, ph[0], pw[0], 0], [0, ph[1], pw[1], 0], 0)
    init = b.filled(out.shape.dims, out.dtype, 0)
    res = b.fresh()
    t = tensor_type(out.shape.dims, out.dtype)
    b.emit(
        f"{res} = linalg.conv_2d_nhwc_hwcf {{dilations = {_hw_attr((dh, dw))}, strides = {_hw_attr((sh, sw))}}} "
        f"ins({x.name}, {f.name} : {x.type}, {f.type}) outs({init} : {t}) -> {t}"
    )
    return [Value(res, out.shape.dims, out.dtype)]


def _pool(b: MlirBuilder, x: Value, out_dims, attrs, kind: str) -> Value:
    _, h, w, _ = x.shape
    (kh, kw), (sh, sw) = attrs["ksize"], attrs["strides"]
    _, oh, ow, _ = out_dims
    ph = _same_pads(h, kh, sh, 1, attrs["padding"], oh)
    pw = _same_pads(w, kw, sw, 1, attrs["padding"], ow)
    fill = _lowest(x.dtype) if kind == "max" else 0
    x = b.pad(x, [0, ph[0], pw[0], 0], [0, ph[1], pw[1], 0], fill)
    init = b.filled(out_dims, x.dtype, fill)
    window = b.empty((kh, kw), x.dtype)
    res = b.fresh()
    t = tensor_type(out_dims, x.dtype)
    wt = tensor_type((kh, kw), x.dtype)
    b.emit(
        f"{res} = linalg.pooling_nhwc_{kind} {{dilations = dense<1> : tensor<2xi64>, strides = {_hw_attr((sh, sw))}}} "
        f"ins({x.name}, {window} : {x.type}, {wt}) outs({init} : {t}) -> {t}"
    )
    return Value(res, tuple(out_dims), x.dtype)


@_emitter("max_pool")
def _max_pool(b: MlirBuilder, ins, outs, attrs):
    return [_pool(b, ins[0], outs[0].shape.dims, attrs, "max")]


@_emitter("avg_pool")
def _avg_pool(b: MlirBuilder, ins, outs, attrs):
    x = ins[0]
    dims = outs[0].shape.dims
    total = _pool(b, x, dims, attrs, "sum")
    # The number of real (unpadded) elements in each window, known statically.
    _, h, w, _ = x.shape
    (kh, kw), (sh, sw) = attrs["ksize"], attrs["strides"]
    _, oh, ow, _ = dims
    ph = _same_pads(h, kh, sh, 1, attrs["padding"], oh)
    pw = _same_pads(w, kw, sw, 1, attrs["padding"], ow)
    rows = [min(i * sh - ph[0] + kh, h) - max(i * sh - ph[0], 0) for i in range(oh)]
    cols = [min(j * sw - pw[0] + kw, w) - max(j * sw - pw[0], 0) for j in range(ow)]
    counts = np.outer(rows, cols).astype(x.dtype.np_dtype).reshape(1, oh, ow, 1)
    cv = b.constant(counts, x.dtype)
    dt = x.dtype
    return [b.map([total, cv], dims, dt, lambda bb, a: bb.op("arith.divf", a[0], a[1], dtype=dt))]


@_emitter("batch_norm")
def _batch_norm(b: MlirBuilder, ins, outs, attrs):
    x, scale, offset, mean, var = ins
    dt = x.dtype
    eps = float(np.float32(attrs["epsilon"]))

    def inv_body(bb, a):
        e = bb.const(eps, dt)
        return bb.op(
            "arith.divf",
            a[0],
            bb.op("math.sqrt", bb.op("arith.addf", a[1], e, dtype=dt), dtype=dt),
            dtype=dt,
        )

    inv = b.map([scale, var], scale.shape, dt, inv_body)

    def body(bb, a):
        centered = bb.op("arith.subf", a[0], a[1], dtype=dt)
        return bb.op("arith.addf", bb.op("arith.mulf", centered, a[2], dtype=dt), a[3], dtype=dt)

    return [b.map([x, mean, inv, offset], x.shape, dt, body)]


# -- reductions ---------------------------------------------------------------


def _keep(shape, axes) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


@_emitter("softmax")
def _softmax(b: MlirBuilder, ins, outs, attrs):
    (x,) = ins
    dt = x.dtype
    axis = attrs["axis"] % len(x.shape)
    kept = _keep(x.shape, (axis,))
    m = b.reshape(b.reduce(x, [axis], "max"), kept)
    e = b.map(
        [x, m],
        x.shape,
        dt,
        lambda bb, a: bb.op("math.exp", bb.op("arith.subf", a[0], a[1], dtype=dt), dtype=dt),
    )
    s = b.reshape(b.reduce(e, [axis], "sum"), kept)
    return [b.map([e, s], x.shape, dt, lambda bb, a: bb.op("arith.divf", a[0], a[1], dtype=dt))]


def _reduction(kind: str) -> Emitter:
    def emit(b: MlirBuilder, ins, outs, attrs):
        (x,) = ins
        dt = x.dtype
        axes = reduction_axes(f"reduce_{kind}", attrs["axes"], len(x.shape))
        if dt == DType.I1 and kind in ("sum", "mean"):
            # Booleans count as 0 and 1: summed in i64, averaged in f64 (numpy's).
            wide = DType.I64 if kind == "sum" else DType.F64
            cast = "arith.extui" if kind == "sum" else "arith.uitofp"
            x = b.map([x], x.shape, wide, lambda bb, a: bb.cast(cast, a[0], DType.I1, wide))
            dt = wide
        red = b.reduce(x, axes, "sum" if kind == "mean" else kind)
        if kind == "mean":
            count = math.prod(x.shape[a] for a in axes)
            if _is_float(dt):
                red = b.map([red], red.shape, dt,
                            lambda bb, a: bb.op("arith.divf", a[0], bb.const(float(count), dt), dtype=dt))  # fmt: skip
            elif dt != DType.I1:
                red = b.map([red], red.shape, dt,
                            lambda bb, a: bb.op("arith.divsi", a[0], bb.const(max(count, 1), dt), dtype=dt))  # fmt: skip
            else:
                raise OpError("reduce_mean: dtype i1 has no compiled form")
        return [b.reshape(red, outs[0].shape.dims)]

    return emit


for _kind in ("sum", "mean", "max", "min"):
    EMITTERS[f"reduce_{_kind}"] = _reduction(_kind)


@_emitter("argmax")
def _argmax(b: MlirBuilder, ins, outs, attrs):
    (x,) = ins
    dt = x.dtype
    axis = attrs["axis"] % len(x.shape)
    m = b.reshape(b.reduce(x, [axis], "max"), _keep(x.shape, (axis,)))
    size = x.shape[axis]

    def body(bb: Body, a):
        eq = bb.cmp(
            "cmpf" if _is_float(dt) else "cmpi", "oeq" if _is_float(dt) else "eq", a[0], a[1], dt
        )
        if _is_float(dt):
            # A NaN is the maximum (maximumf propagates it), and equals
            # nothing: the first NaN is the answer, as numpy's argmax says.
            eq = bb.op("arith.ori", eq, bb.cmp("cmpf", "uno", a[0], a[0], dt), dtype=DType.I1)
        idx = bb.index(axis)
        return bb.select(eq, idx, bb.const(size, DType.I64), DType.I64)

    first = b.map([x, m], x.shape, DType.I64, body)
    return [b.reduce(first, [axis], "min")]


# -- shapes -------------------------------------------------------------------


@_emitter("reshape")
def _reshape(b: MlirBuilder, ins, outs, attrs):
    return [b.reshape(ins[0], outs[0].shape.dims)]


@_emitter("transpose")
def _transpose(b: MlirBuilder, ins, outs, attrs):
    return [b.transpose(ins[0], attrs["perm"])]


@_emitter("broadcast_to")
def _broadcast_to(b: MlirBuilder, ins, outs, attrs):
    return [_broadcast(b, ins[0], outs[0].shape.dims)]


@_emitter("concat")
def _concat(b: MlirBuilder, ins, outs, attrs):
    out = outs[0]
    if len(ins) == 1:
        return [ins[0]]
    axis = attrs["axis"] % len(out.shape.dims)
    n = b.fresh()
    t = tensor_type(out.shape.dims, out.dtype)
    b.emit(f"{n} = tensor.concat dim({axis}) {', '.join(v.name for v in ins)} : "
           f"({', '.join(v.type for v in ins)}) -> {t}")  # fmt: skip
    return [Value(n, out.shape.dims, out.dtype)]


def _extract(b: MlirBuilder, x: Value, begin, sizes, strides, out_dims) -> Value:
    if (
        list(begin) == [0] * len(x.shape)
        and tuple(sizes) == x.shape
        and all(s == 1 for s in strides)
    ):
        return x
    n = b.fresh()
    out = Value(n, tuple(out_dims), x.dtype)
    b.emit(
        f"{n} = tensor.extract_slice {x.name}[{', '.join(map(str, begin))}] "
        f"[{', '.join(map(str, sizes))}] [{', '.join(map(str, strides))}] : {x.type} to {out.type}"
    )
    return out


@_emitter("slice")
def _slice(b: MlirBuilder, ins, outs, attrs):
    (x,) = ins
    bounds = resolve_slice("slice", TensorShape(x.shape), attrs["begin"], attrs["size"])
    return [_extract(b, x, [lo for lo, _ in bounds], [hi - lo for lo, hi in bounds], [1] * len(bounds),
                     outs[0].shape.dims)]  # fmt: skip


@_emitter("strided_slice")
def _strided_slice(b: MlirBuilder, ins, outs, attrs):
    dims = outs[0].shape.dims
    return [_extract(b, ins[0], attrs["begin"], dims, attrs["strides"], dims)]


@_emitter("pad")
def _pad(b: MlirBuilder, ins, outs, attrs):
    p = attrs["paddings"]
    return [b.pad(ins[0], p[0::2], p[1::2], 0)]


@_emitter("cast")
def _cast(b: MlirBuilder, ins, outs, attrs):
    (x,) = ins
    src, dst = x.dtype, outs[0].dtype
    element_type(dst, "cast")
    if src == dst:
        return [x]

    def body(bb: Body, a):
        v = a[0]
        if dst == DType.I1:
            zero = bb.const(0, src)
            return (
                bb.cmp("cmpf", "une", v, zero, src)
                if _is_float(src)
                else bb.cmp("cmpi", "ne", v, zero, src)
            )
        if _is_float(src) and _is_float(dst):
            wider = src.itemsize < dst.itemsize
            return bb.cast("arith.extf" if wider else "arith.truncf", v, src, dst)
        if _is_float(dst):
            return bb.cast("arith.uitofp" if src == DType.I1 else "arith.sitofp", v, src, dst)
        if _is_float(src):
            # NaN and +-inf have no integer value: 0, as the array kernel
            # gives (fptosi of them is poison, which the select drops).
            finite = bb.cmp("cmpf", "one", bb.op("math.absf", v, dtype=src), bb.const(math.inf, src), src)
            return bb.select(finite, bb.cast("arith.fptosi", v, src, dst), bb.const(0, dst), dst)
        if src.itemsize < dst.itemsize or src == DType.I1:
            return bb.cast("arith.extui" if src == DType.I1 else "arith.extsi", v, src, dst)
        return bb.cast("arith.trunci", v, src, dst)

    return [b.map([x], x.shape, dst, body)]


def emit(b: MlirBuilder, name: str, ins: list, outs: list, attrs: dict) -> list:
    """Write op ``name`` with ``b``; one Value per result (raises OpError)."""
    fn = EMITTERS.get(name)
    if fn is None:
        raise OpError(f"{name}: has no compiled form")
    for v in ins:
        element_type(v.dtype, name)
    return fn(b, ins, outs, attrs)
