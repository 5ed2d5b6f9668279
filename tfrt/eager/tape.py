"""Reverse-mode gradients: ``GradientTape`` and one gradient function per op.

While a tape is active (``with tfrt.GradientTape() as tape:``), every op
whose inputs depend on a watched tensor is recorded: its name, inputs,
outputs and attributes.  ``tape.gradient(target, sources)`` walks the
records backwards, calling each op's gradient function, which is written
with the ops themselves -- so gradients run eagerly on any device, and
inside ``@tfrt.function`` they are traced and compiled like the forward
pass (and an outer tape records them, for higher derivatives)::

    w = tfrt.Variable(np.zeros((3, 1), np.float32))
    with tfrt.GradientTape() as tape:
        loss = ((x @ w - y) ** 2).mean()
    (dw,) = tape.gradient(loss, [w])
    w.assign_sub(0.1 * dw)

Trainable variables are watched when read; other tensors with
``tape.watch(t)``.  Sources with no path to the target get ``None``.
``GRADIENTS[op](ins, outs, attrs, grads) -> [grad per input]`` holds the
gradient functions (``None`` for an input with no gradient); an op listed in
:data:`NOT_DIFFERENTIABLE` has no gradient, and an op in neither fails the
gradient call with its name.

Layer 3 of ``tfrt.eager`` (``core < methods < variables < tape < tracing <
__init__``): may import ``core``, ``methods`` and ``variables``; imports
only ``core`` (gradient functions call the ops of ``core.FUNCTIONS``).  A
tape plugs into dispatch by joining ``core._TAPES``: the dispatcher calls
its ``_record`` for every op, a variable read its ``_read_variable``.
``tfrt.eager`` loads this module on first use of ``GradientTape``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfrt.devices.ops import resolve_slice
from tfrt.eager import core
from tfrt.eager.core import FUNCTIONS as F
from tfrt.eager.core import OpError, Tensor, user_site
from tfrt.tensor.shape import TensorShape

GradFn = Callable[[Sequence[Tensor], Sequence[Tensor], dict, Sequence[Tensor]], list]
GRADIENTS: dict[str, GradFn] = {}
# Ops whose results do not depend differentiably on their inputs.
NOT_DIFFERENTIABLE = frozenset({
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "argmax",
})  # fmt: skip


class _Record:
    __slots__ = ("attrs", "ins", "name", "outs")

    def __init__(self, name, ins, outs, attrs):
        self.name = name
        self.ins = tuple(ins)
        self.outs = tuple(outs)
        self.attrs = attrs


class GradientTape:
    """Records ops on watched tensors for :meth:`gradient` (TensorFlow's API).

    ``persistent=True`` allows several ``gradient`` calls;
    ``watch_accessed_variables=False`` watches only what ``watch`` is given.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self._records: list[_Record] = []
        self._tracked: dict[int, Any] = {}  # id -> tensor (kept alive: ids stay unique)
        self._thread = None
        self._used = False
        self._active = False

    # -- recording ------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        self._thread = threading.get_ident()
        self._active = True
        core._TAPES.append(self)
        return self

    def __exit__(self, *exc) -> bool:
        self._stop()
        return False

    def _stop(self) -> None:
        if self._active:
            self._active = False
            core._TAPES.remove(self)

    def watch(self, tensors) -> None:
        """Record the ops computed from ``tensors`` (a tensor or a nest of them)."""
        for t in _leaves(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"GradientTape.watch: expected tensors, got {type(t).__name__}")
            self._tracked[id(t)] = t

    def watched(self) -> list:
        return [t for t in self._tracked.values() if isinstance(t, Tensor)]

    def _record(self, name: str, ins, outs, attrs) -> None:
        tracked = self._tracked
        for t in ins:
            if id(t) in tracked:
                break
        else:
            return
        self._records.append(_Record(name, ins, outs, attrs))
        for o in outs:
            tracked[id(o)] = o

    def _read_variable(self, var, value) -> None:
        """``var`` was read as ``value``: watch it (if trainable) and link the two."""
        if self.watch_accessed_variables and var.trainable:
            self._tracked[id(var)] = var
        if value is not var:
            self._record("copy", (var,), (value,), {})

    # -- differentiation --------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None):
        """d(sum of target)/d(source) for each source (same nest as ``sources``)."""
        if self._used and not self.persistent:
            raise RuntimeError("a non-persistent GradientTape can compute gradients only once")
        self._used = True
        was_active = self._active
        if was_active:
            # Gradients are not recorded on this tape (outer tapes record them).
            core._TAPES.remove(self)
        try:
            return self._gradient(target, sources, output_gradients)
        finally:
            if was_active:
                core._TAPES.append(self)
            if not self.persistent:
                self._records = []

    def _gradient(self, target, sources, output_gradients):
        targets = _leaves(target)
        seeds = _leaves(output_gradients) if output_gradients is not None else [None] * len(targets)
        grads: dict[int, Tensor] = {}
        for t, seed in zip(targets, seeds):
            t = _resolve(t)
            if seed is None:
                seed = (
                    F["broadcast_to"](core.to_tensor(1, t._m), shape=t.shape)
                    if t.shape
                    else core.to_tensor(1, t._m)
                )
            elif not isinstance(seed, Tensor):
                seed = core.to_tensor(seed, t._m)
            _accumulate(grads, t, seed)
        for rec in reversed(self._records):
            gouts = [grads.get(id(o)) for o in rec.outs]
            if all(g is None for g in gouts):
                continue
            if rec.name in NOT_DIFFERENTIABLE:
                continue
            fn = GRADIENTS.get(rec.name)
            if fn is None:
                raise OpError(rec.name, "has no gradient", user_site())
            gouts = [g if g is not None else _zeros_like(o) for g, o in zip(gouts, rec.outs)]
            gins = fn(rec.ins, rec.outs, rec.attrs, gouts)
            for t, g in zip(rec.ins, gins):
                if g is not None and id(t) in self._tracked:
                    _accumulate(grads, t, g)
        structure = sources
        flat = [grads.get(id(_resolve(s))) for s in _leaves(sources)]
        return _like(structure, flat)


def _resolve(t):
    """The tensor a target or source stands for: a Variable is itself (its
    reads reach it through their ``copy`` records, traced or not)."""
    return t


def _accumulate(grads: dict, t: Tensor, g: Tensor) -> None:
    if g.shape != t.shape:  # pragma: no cover - a gradient function bug
        raise OpError("gradient", f"gradient of shape {g.shape} for a tensor of shape {t.shape}")
    prev = grads.get(id(t))
    grads[id(t)] = g if prev is None else F["add"](prev, g)


def _leaves(obj) -> list:
    if isinstance(obj, (list, tuple)):
        out = []
        for o in obj:
            out.extend(_leaves(o))
        return out
    if isinstance(obj, dict):
        out = []
        for k in obj:
            out.extend(_leaves(obj[k]))
        return out
    return [obj]


def _like(structure, flat: list):
    it = iter(flat)

    def build(s):
        if isinstance(s, (list, tuple)):
            return (
                type(s)(build(o) for o in s) if isinstance(s, list) else tuple(build(o) for o in s)
            )
        if isinstance(s, dict):
            return {k: build(v) for k, v in s.items()}
        return next(it)

    return build(structure)


# --------------------------------------------------------------------------
# what the dispatcher and variables call (they live in core, the layer below)

# record(name, ins, outs, attrs): an op ran; the tapes of this thread record it.
record = core._record
# read_variable(var, value): a variable was read; the tapes of this thread watch it.
read_variable = core._read_variable


# --------------------------------------------------------------------------
# gradient functions, written with the ops


def _grad(*names: str):
    def register(fn: GradFn) -> GradFn:
        for n in names:
            GRADIENTS[n] = fn
        return fn

    return register


def unbroadcast(g: Tensor, shape: tuple) -> Tensor:
    """Sum ``g`` over the dimensions that numpy broadcasting added to ``shape``."""
    if g.shape == shape:
        return g
    lead = len(g.shape) - len(shape)
    axes = list(range(lead)) + [
        lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1
    ]
    if axes:
        g = F["reduce_sum"](g, axes=axes, keepdims=True)
    return F["reshape"](g, shape=shape)


def _zeros_like(t: Tensor) -> Tensor:
    zero = core.to_tensor(0, t._m)
    return F["broadcast_to"](zero, shape=t.shape) if t.shape else F["copy"](zero)


@_grad("add")
def _add_grad(ins, outs, attrs, grads):
    a, b = ins
    (g,) = grads
    return [unbroadcast(g, a.shape), unbroadcast(g, b.shape)]


@_grad("bias_add")
def _bias_add_grad(ins, outs, attrs, grads):
    (g,) = grads
    return [g, F["reduce_sum"](g, axes=list(range(g.ndim - 1)))]


@_grad("sub")
def _sub_grad(ins, outs, attrs, grads):
    a, b = ins
    (g,) = grads
    return [unbroadcast(g, a.shape), unbroadcast(F["neg"](g), b.shape)]


@_grad("mul")
def _mul_grad(ins, outs, attrs, grads):
    a, b = ins
    (g,) = grads
    return [unbroadcast(F["mul"](g, b), a.shape), unbroadcast(F["mul"](g, a), b.shape)]


@_grad("div")
def _div_grad(ins, outs, attrs, grads):
    a, b = ins
    (g,) = grads
    gb = F["neg"](F["div"](F["mul"](g, outs[0]), b))
    return [unbroadcast(F["div"](g, b), a.shape), unbroadcast(gb, b.shape)]


@_grad("maximum", "minimum")
def _minmax_grad(ins, outs, attrs, grads):
    a, b = ins
    (g,) = grads
    first = F["equal"](outs[0], a)  # ties go to the first input
    zero = _zeros_like(g)
    return [
        unbroadcast(F["where"](first, g, zero), a.shape),
        unbroadcast(F["where"](first, zero, g), b.shape),
    ]


@_grad("pow")
def _pow_grad(ins, outs, attrs, grads):
    a, b = ins
    (g,) = grads
    ga = F["mul"](g, F["mul"](b, F["pow"](a, F["sub"](b, 1))))
    positive = F["greater"](a, 0)
    safe_log = F["log"](F["where"](positive, a, F["add"](_zeros_like(a), 1)))
    gb = F["mul"](g, F["mul"](outs[0], F["where"](positive, safe_log, _zeros_like(a))))
    return [unbroadcast(ga, a.shape), unbroadcast(gb, b.shape)]


@_grad("where")
def _where_grad(ins, outs, attrs, grads):
    c, x, y = ins
    (g,) = grads
    zero = _zeros_like(g)
    return [
        None,
        unbroadcast(F["where"](c, g, zero), x.shape),
        unbroadcast(F["where"](c, zero, g), y.shape),
    ]


@_grad("relu")
def _relu_grad(ins, outs, attrs, grads):
    (x,) = ins
    (g,) = grads
    return [F["where"](F["greater"](x, 0), g, _zeros_like(g))]


@_grad("neg")
def _neg_grad(ins, outs, attrs, grads):
    return [F["neg"](grads[0])]


@_grad("abs")
def _abs_grad(ins, outs, attrs, grads):
    (x,) = ins
    (g,) = grads
    zero = _zeros_like(g)
    return [F["where"](F["greater"](x, 0), g, F["where"](F["less"](x, 0), F["neg"](g), zero))]


@_grad("sigmoid")
def _sigmoid_grad(ins, outs, attrs, grads):
    y = outs[0]
    return [F["mul"](grads[0], F["mul"](y, F["sub"](1, y)))]


@_grad("tanh")
def _tanh_grad(ins, outs, attrs, grads):
    y = outs[0]
    return [F["mul"](grads[0], F["sub"](1, F["mul"](y, y)))]


@_grad("exp")
def _exp_grad(ins, outs, attrs, grads):
    return [F["mul"](grads[0], outs[0])]


@_grad("log")
def _log_grad(ins, outs, attrs, grads):
    return [F["div"](grads[0], ins[0])]


@_grad("sqrt")
def _sqrt_grad(ins, outs, attrs, grads):
    return [F["div"](F["mul"](grads[0], 0.5), outs[0])]


@_grad("rsqrt")
def _rsqrt_grad(ins, outs, attrs, grads):
    y = outs[0]
    return [F["mul"](F["mul"](grads[0], -0.5), F["mul"](y, F["mul"](y, y)))]


@_grad("copy", "check_numerics")
def _identity_grad(ins, outs, attrs, grads):
    return [grads[0]]


@_grad("matmul")
def _matmul_grad(ins, outs, attrs, grads):
    a, b = ins
    (g,) = grads
    mm = F["matmul"]
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    if not ta and not tb:
        ga, gb = mm(g, b, transpose_b=True), mm(a, g, transpose_a=True)
    elif not ta and tb:
        ga, gb = mm(g, b), mm(g, a, transpose_a=True)
    elif ta and not tb:
        ga, gb = mm(b, g, transpose_b=True), mm(a, g)
    else:
        ga, gb = (
            mm(b, g, transpose_a=True, transpose_b=True),
            mm(g, a, transpose_a=True, transpose_b=True),
        )
    return [unbroadcast(ga, a.shape), unbroadcast(gb, b.shape)]


@_grad("softmax")
def _softmax_grad(ins, outs, attrs, grads):
    y = outs[0]
    (g,) = grads
    s = F["reduce_sum"](F["mul"](g, y), axes=[attrs["axis"]], keepdims=True)
    return [F["mul"](y, F["sub"](g, s))]


def _kept_shape(x: Tensor, attrs) -> tuple[tuple, set]:
    axes = attrs["axes"] or tuple(range(x.ndim))
    axes = {a % x.ndim for a in axes}
    return tuple(1 if i in axes else d for i, d in enumerate(x.shape)), axes


@_grad("reduce_sum")
def _reduce_sum_grad(ins, outs, attrs, grads):
    (x,) = ins
    kept, _ = _kept_shape(x, attrs)
    return [F["broadcast_to"](F["reshape"](grads[0], shape=kept), shape=x.shape)]


@_grad("reduce_mean")
def _reduce_mean_grad(ins, outs, attrs, grads):
    (x,) = ins
    kept, axes = _kept_shape(x, attrs)
    count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    g = F["broadcast_to"](F["reshape"](grads[0], shape=kept), shape=x.shape)
    return [F["div"](g, max(count, 1))]


@_grad("reduce_max", "reduce_min")
def _reduce_extreme_grad(ins, outs, attrs, grads):
    (x,) = ins
    kept, _ = _kept_shape(x, attrs)
    y = F["reshape"](outs[0], shape=kept)
    mask = F["cast"](F["equal"](x, y), dtype=x.dtype)  # ties share the gradient
    count = F["reduce_sum"](mask, axes=attrs["axes"], keepdims=True)
    g = F["reshape"](grads[0], shape=kept)
    return [F["mul"](mask, F["div"](g, count))]


@_grad("reshape")
def _reshape_grad(ins, outs, attrs, grads):
    return [F["reshape"](grads[0], shape=ins[0].shape)]


@_grad("transpose")
def _transpose_grad(ins, outs, attrs, grads):
    perm = attrs["perm"]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [F["transpose"](grads[0], perm=inverse)]


@_grad("broadcast_to")
def _broadcast_to_grad(ins, outs, attrs, grads):
    return [unbroadcast(grads[0], ins[0].shape)]


@_grad("concat")
def _concat_grad(ins, outs, attrs, grads):
    (g,) = grads
    axis = attrs["axis"] % g.ndim
    out, start = [], 0
    for x in ins:
        begin = [0] * g.ndim
        begin[axis] = start
        out.append(F["slice"](g, begin=begin, size=list(x.shape)))
        start += x.shape[axis]
    return out


@_grad("slice")
def _slice_grad(ins, outs, attrs, grads):
    (x,) = ins
    bounds = resolve_slice("slice", TensorShape(x.shape), attrs["begin"], attrs["size"])
    pads = [p for (lo, hi), d in zip(bounds, x.shape) for p in (lo, d - hi)]
    return [F["pad"](grads[0], paddings=pads)]


def _unslice(g: Tensor, shape, begin, strides) -> Tensor:
    """The gradient of ``x[begin::strides]`` (of shape g.shape) for an ``x`` of ``shape``:
    ``g`` with zeros between its elements and around them."""
    for i, s in enumerate(strides):
        if s == 1 or g.shape[i] == 0:
            continue
        # Interleave zeros: a unit dimension after i, padded to s, merged back.
        dims = list(g.shape)
        n = dims[i]
        g = F["reshape"](g, shape=dims[: i + 1] + [1] + dims[i + 1 :])
        pads = [0] * (2 * g.ndim)
        pads[2 * (i + 1) + 1] = s - 1
        g = F["pad"](g, paddings=pads)
        g = F["reshape"](g, shape=dims[:i] + [n * s] + dims[i + 1 :])
        size = list(g.shape)
        size[i] = min(n * s - (s - 1), shape[i] - begin[i])
        g = F["slice"](g, begin=[0] * g.ndim, size=size)
    pads = []
    for i, d in enumerate(shape):
        pads += [begin[i], d - begin[i] - g.shape[i]]
    return F["pad"](g, paddings=pads)


@_grad("strided_slice")
def _strided_slice_grad(ins, outs, attrs, grads):
    return [_unslice(grads[0], ins[0].shape, attrs["begin"], attrs["strides"])]


@_grad("pad")
def _pad_grad(ins, outs, attrs, grads):
    (x,) = ins
    p = attrs["paddings"]
    return [F["slice"](grads[0], begin=list(p[0::2]), size=list(x.shape))]


@_grad("cast")
def _cast_grad(ins, outs, attrs, grads):
    (x,) = ins
    if x.dtype.kind != "f" or outs[0].dtype.kind != "f":
        return [None]
    return [F["cast"](grads[0], dtype=x.dtype)]


@_grad("batch_norm")
def _batch_norm_grad(ins, outs, attrs, grads):
    x, scale, _, mean, var = ins
    (g,) = grads
    lead = list(range(x.ndim - 1))
    inv = F["rsqrt"](F["add"](var, float(np.float32(attrs["epsilon"]))))
    centered = F["sub"](x, mean)
    gx = F["mul"](g, F["mul"](scale, inv))
    gscale = F["reduce_sum"](F["mul"](g, F["mul"](centered, inv)), axes=lead)
    goffset = F["reduce_sum"](g, axes=lead)
    gmean = F["neg"](F["reduce_sum"](gx, axes=lead))
    cube = F["mul"](inv, F["mul"](inv, inv))
    gvar = F["reduce_sum"](
        F["mul"](F["mul"](g, centered), F["mul"](scale, F["mul"](cube, -0.5))), axes=lead
    )
    return [gx, gscale, goffset, gmean, gvar]


# -- convolution and pooling: sums over the window offsets -----------------------


def _window_pads(
    size: int, k: int, stride: int, dilation: int, padding: str, out: int
) -> tuple[int, int]:
    if padding == "VALID":
        return 0, 0
    eff = (k - 1) * dilation + 1
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def _windows(x_shape, kh, kw, sh, sw, dh, dw, padding, oh, ow):
    """(padded shape, (pad top, pad left), [(a, b, begin, end)]) of each window offset."""
    n, h, w, c = x_shape
    pt, pb = _window_pads(h, kh, sh, dh, padding, oh)
    pl, pr = _window_pads(w, kw, sw, dw, padding, ow)
    padded = (n, h + pt + pb, w + pl + pr, c)
    offsets = []
    for a in range(kh):
        for b in range(kw):
            begin = [0, a * dh, b * dw, 0]
            end = [n, a * dh + (oh - 1) * sh + 1, b * dw + (ow - 1) * sw + 1, c]
            offsets.append((a, b, begin, end))
    return padded, (pt, pb, pl, pr), offsets


def _unpad(g: Tensor, x_shape, pads) -> Tensor:
    pt, _, pl, _ = pads
    if not any(pads):
        return g
    return F["slice"](g, begin=[0, pt, pl, 0], size=list(x_shape))


def _pad_input(x: Tensor, pads, value=0.0) -> Tensor:
    pt, pb, pl, pr = pads
    if not any(pads):
        return x
    padded = F["pad"](x, paddings=[0, 0, pt, pb, pl, pr, 0, 0])
    if value == 0.0:
        return padded
    ones = F["add"](_zeros_like(x), 1)
    inside = F["pad"](ones, paddings=[0, 0, pt, pb, pl, pr, 0, 0])
    return F["where"](F["greater"](inside, 0), padded, F["add"](_zeros_like(padded), value))


@_grad("conv2d")
def _conv2d_grad(ins, outs, attrs, grads):
    x, w = ins
    (g,) = grads
    n, _, _, c = x.shape
    kh, kw, _, co = w.shape
    (sh, sw), (dh, dw) = attrs["strides"], attrs["dilations"]
    _, oh, ow, _ = g.shape
    padded, pads, offsets = _windows(x.shape, kh, kw, sh, sw, dh, dw, attrs["padding"], oh, ow)
    xp = _pad_input(x, pads)
    g2 = F["reshape"](g, shape=(n * oh * ow, co))
    dws, dx = [], None
    for a, b, begin, end in offsets:
        patch = F["strided_slice"](xp, begin=begin, end=end, strides=[1, sh, sw, 1])
        p2 = F["reshape"](patch, shape=(n * oh * ow, c))
        dws.append(F["reshape"](F["matmul"](p2, g2, transpose_a=True), shape=(1, c, co)))
        wab = F["reshape"](F["slice"](w, begin=[a, b, 0, 0], size=[1, 1, c, co]), shape=(c, co))
        contrib = F["reshape"](F["matmul"](g2, wab, transpose_b=True), shape=(n, oh, ow, c))
        part = _unslice(contrib, padded, begin, [1, sh, sw, 1])
        dx = part if dx is None else F["add"](dx, part)
    dw_ = F["reshape"](F["concat"](dws, axis=0), shape=(kh, kw, c, co))
    return [_unpad(dx, x.shape, pads), dw_]


@_grad("max_pool")
def _max_pool_grad(ins, outs, attrs, grads):
    (x,) = ins
    (g,) = grads
    y = outs[0]
    (kh, kw), (sh, sw) = attrs["ksize"], attrs["strides"]
    _, oh, ow, _ = g.shape
    padded, pads, offsets = _windows(x.shape, kh, kw, sh, sw, 1, 1, attrs["padding"], oh, ow)
    xp = _pad_input(x, pads, value=-np.inf)
    taken = _zeros_like(g)
    dx = None
    for _, _, begin, end in offsets:
        patch = F["strided_slice"](xp, begin=begin, end=end, strides=[1, sh, sw, 1])
        hit = F["cast"](F["equal"](patch, y), dtype=g.dtype)
        first = F["mul"](hit, F["sub"](1, taken))  # the first maximum of a window takes it
        taken = F["maximum"](taken, hit)
        part = _unslice(F["mul"](g, first), padded, begin, [1, sh, sw, 1])
        dx = part if dx is None else F["add"](dx, part)
    return [_unpad(dx, x.shape, pads)]


@_grad("avg_pool")
def _avg_pool_grad(ins, outs, attrs, grads):
    (x,) = ins
    (g,) = grads
    _, h, w, _ = x.shape
    (kh, kw), (sh, sw) = attrs["ksize"], attrs["strides"]
    _, oh, ow, _ = g.shape
    padded, pads, offsets = _windows(x.shape, kh, kw, sh, sw, 1, 1, attrs["padding"], oh, ow)
    pt, _, pl, _ = pads
    rows = [min(i * sh - pt + kh, h) - max(i * sh - pt, 0) for i in range(oh)]
    cols = [min(j * sw - pl + kw, w) - max(j * sw - pl, 0) for j in range(ow)]
    counts = np.outer(rows, cols).astype(g.dtype).reshape(1, oh, ow, 1)
    share = F["div"](g, core.constant(counts))
    dx = None
    for _, _, begin, _ in offsets:
        part = _unslice(share, padded, begin, [1, sh, sw, 1])
        dx = part if dx is None else F["add"](dx, part)
    return [_unpad(dx, x.shape, pads)]
