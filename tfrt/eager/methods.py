"""Python operators and numpy-style methods of :class:`tfrt.eager.core.Tensor`.

Every operator is one of the ops (``+`` is ``add``, ``@`` is ``matmul``,
``<`` is ``less``, ``x[1:, ::2]`` is ``strided_slice`` and ``reshape``), so
it shares the op's metadata function, kernels, gradient and tracing.  Python
scalars take the other operand's dtype, as numpy's do (``x_f32 + 1`` is f32).
numpy ufuncs called on tensors (``np.exp(t)``, ``ndarray + t``) dispatch to
the op of the same meaning and return tensors.

Layer 1 of ``tfrt.eager`` (``core < methods < variables < tape < tracing <
__init__``): imports only ``core``.  Importing it installs the operators on
``core.Tensor`` (``tfrt.eager`` does, before anything uses a tensor), so the
layers above may use them.
"""

from __future__ import annotations

import numbers

import numpy as np

from tfrt.eager.core import FUNCTIONS as F
from tfrt.eager.core import OpError, Tensor, to_tensor, user_site

add, sub, mul, div = F["add"], F["sub"], F["mul"], F["div"]


class IndexOpError(OpError, IndexError):
    """An index out of range or of an unsupported kind (also an IndexError)."""


def _reflected(fn):
    def r(self, other):
        return fn(other, self)

    return r


def _tensorlike(other) -> bool:
    return isinstance(other, (Tensor, np.ndarray, numbers.Number, np.generic, list, tuple))


def _compare(fn):
    def op(self, other):
        if not _tensorlike(other):
            return NotImplemented
        return fn(self, other)

    return op


def _truediv(a, b):
    a = a if isinstance(a, Tensor) else to_tensor(a, getattr(b, "_m", None))
    b = b if isinstance(b, Tensor) else to_tensor(b, a._m)
    if a.dtype.kind in "iub" and b.dtype.kind in "iub":
        # numpy's true division of integers is float64.
        a, b = a.astype(np.float64), b.astype(np.float64)
    return div(a, b)


def _matmul(a, b):
    """numpy's ``@``: 1-D operands are vectors (promoted, then squeezed)."""
    a = a if isinstance(a, Tensor) else to_tensor(a, getattr(b, "_m", None))
    b = b if isinstance(b, Tensor) else to_tensor(b, a._m)
    if a.ndim == 0 or b.ndim == 0:
        raise OpError("matmul", "operands must not be scalars (use * instead)", user_site())
    squeeze_a = a.ndim == 1
    squeeze_b = b.ndim == 1
    if squeeze_a:
        a = F["reshape"](a, shape=(1, a.shape[0]))
    if squeeze_b:
        b = F["reshape"](b, shape=(b.shape[0], 1))
    y = F["matmul"](a, b)
    if squeeze_a or squeeze_b:
        shape = list(y.shape)
        if squeeze_b:
            shape.pop(-1)
        if squeeze_a:
            shape.pop(-1 if squeeze_b else -2)
        y = F["reshape"](y, shape=tuple(shape))
    return y


def _pow(a, b):
    return F["pow"](a, b)


def _axes(axis):
    if axis is None:
        return ()
    if isinstance(axis, (int, np.integer)):
        return (int(axis),)
    return tuple(int(a) for a in axis)


def _reduction(op):
    fn = F[op]

    def method(self, axis=None, keepdims=False):
        return fn(self, axes=_axes(axis), keepdims=keepdims)

    method.__name__ = op[7:]
    method.__doc__ = f"numpy's ``{op[7:]}``: the {op[7:]} over ``axis`` (None: every axis)."
    return method


def _reshape(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return F["reshape"](self, shape=shape)


def _transpose(self, *axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if not axes:
        axes = tuple(reversed(range(self.ndim)))
    return F["transpose"](self, perm=axes)


def _astype(self, dtype):
    if np.dtype(dtype) == self.dtype:
        return self
    return F["cast"](self, dtype=np.dtype(dtype))


def _argmax(self, axis=None):
    if axis is None:
        return F["argmax"](F["reshape"](self, shape=(-1,)), axis=0)
    return F["argmax"](self, axis=axis)


def getitem(x: Tensor, index) -> Tensor:
    """Basic indexing: integers, slices with positive steps, ``...`` and ``None``."""
    if not isinstance(index, tuple):
        index = (index,)
    shape = x.shape
    rank = len(shape)
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis)
    if sum(1 for i in index if i is Ellipsis) > 1:
        raise IndexOpError(
            "getitem", "an index can only have a single ellipsis ('...')", user_site()
        )
    if n_real > rank:
        raise IndexOpError(
            "getitem", f"too many indices for a tensor of rank {rank} ({n_real} given)", user_site()
        )
    full = []
    for i in index:
        if i is Ellipsis:
            full.extend([slice(None)] * (rank - n_real))
        else:
            full.append(i)
    if Ellipsis not in index:
        full.extend([slice(None)] * (rank - n_real))
    begin, end, strides, out_shape = [], [], [], []
    dim = 0
    for i in full:
        if i is None:
            out_shape.append(1)
            continue
        d = shape[dim]
        if isinstance(i, slice):
            b, e, s = i.indices(d)
            if s < 0:
                raise IndexOpError("getitem", "negative slice steps are not supported", user_site())
            e = max(e, b)
            begin.append(b)
            end.append(e)
            strides.append(s)
            out_shape.append(len(range(b, e, s)))
        else:
            try:
                k = i.__index__()
            except (AttributeError, TypeError):
                raise IndexOpError(
                    "getitem",
                    f"only integers, slices, '...' and None are valid indices (got {type(i).__name__})",
                    user_site(),
                ) from None
            if not -d <= k < d:
                raise IndexOpError(
                    "getitem",
                    f"index {k} is out of bounds for dimension {dim} with size {d}",
                    user_site(),
                )
            k %= d
            begin.append(k)
            end.append(k + 1)
            strides.append(1)
        dim += 1
    y = x
    if begin != [0] * rank or end != list(shape) or strides != [1] * rank:
        y = F["strided_slice"](x, begin=begin, end=end, strides=strides)
    if tuple(out_shape) != y.shape:
        y = F["reshape"](y, shape=tuple(out_shape))
    return y


# numpy ufuncs -> ops (np.exp(t), ndarray + t)
_UFUNC_OPS = {
    np.add: "add", np.subtract: "sub", np.multiply: "mul", np.maximum: "maximum",
    np.minimum: "minimum", np.less: "less", np.less_equal: "less_equal",
    np.greater: "greater", np.greater_equal: "greater_equal", np.equal: "equal",
    np.not_equal: "not_equal", np.negative: "neg", np.absolute: "abs", np.exp: "exp",
    np.log: "log", np.sqrt: "sqrt", np.tanh: "tanh",
}  # fmt: skip


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method == "__call__" and not kwargs:
        if ufunc in _UFUNC_OPS:
            return F[_UFUNC_OPS[ufunc]](*inputs)
        if ufunc is np.true_divide:
            return _truediv(*inputs)
        if ufunc is np.power:
            return _pow(*inputs)
        if ufunc is np.matmul:
            return _matmul(*inputs)
    # Anything else: compute with numpy on the values.
    args = [np.asarray(a) if isinstance(a, Tensor) else a for a in inputs]
    return getattr(ufunc, method)(*args, **kwargs)


def _install() -> None:
    T = Tensor
    T.__add__ = F["add"]
    T.__radd__ = _reflected(F["add"])
    T.__sub__ = F["sub"]
    T.__rsub__ = _reflected(F["sub"])
    T.__mul__ = F["mul"]
    T.__rmul__ = _reflected(F["mul"])
    T.__truediv__ = _truediv
    T.__rtruediv__ = _reflected(_truediv)
    T.__matmul__ = _matmul
    T.__rmatmul__ = _reflected(_matmul)
    T.__pow__ = _pow
    T.__rpow__ = _reflected(_pow)
    T.__neg__ = F["neg"]
    T.__abs__ = F["abs"]
    T.__pos__ = lambda self: self
    T.__lt__ = _compare(F["less"])
    T.__le__ = _compare(F["less_equal"])
    T.__gt__ = _compare(F["greater"])
    T.__ge__ = _compare(F["greater_equal"])
    T.__eq__ = _compare(F["equal"])
    T.__ne__ = _compare(F["not_equal"])
    T.__hash__ = object.__hash__
    T.__getitem__ = getitem
    T.__array_ufunc__ = _array_ufunc
    T.T = property(lambda self: _transpose(self), doc="The transpose (dimensions reversed).")
    T.reshape = _reshape
    T.flatten = lambda self: F["reshape"](self, shape=(-1,))
    T.transpose = _transpose
    T.astype = _astype
    T.sum = _reduction("reduce_sum")
    T.mean = _reduction("reduce_mean")
    T.max = _reduction("reduce_max")
    T.min = _reduction("reduce_min")
    T.argmax = _argmax


_install()
