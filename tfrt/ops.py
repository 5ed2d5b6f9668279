"""``tfrt.ops``: every tensor op of the devices, as eager Python functions.

Each function dispatches one op (``tfrt.devices.ops`` specifies it once: its
inputs, attributes with defaults, and the metadata function that computes
result dtypes and shapes) and returns a :class:`tfrt.Tensor` at once::

    import numpy as np, tfrt
    x = tfrt.constant(np.ones((2, 3), np.float32))
    y = tfrt.ops.relu(tfrt.ops.matmul(x, x, transpose_b=True))
    s = tfrt.ops.reduce_sum(y, axes=[1])
    print(s.shape, s.dtype, s.numpy())

Inputs may be tensors, numpy arrays or Python scalars (a scalar takes the
dtype of the tensor beside it).  Besides the ops, a few numpy-style helpers
composed of them: :func:`sum`, :func:`mean`, :func:`max`, :func:`min`,
:func:`log_softmax`, :func:`softmax_cross_entropy`, :func:`zeros`,
:func:`ones`, :func:`zeros_like`, :func:`ones_like`.  ``tfrt.ops.names()``
lists the ops.
"""

from __future__ import annotations

import builtins as _builtins

import numpy as _np

from tfrt.eager import core as _core
from tfrt.eager.core import FUNCTIONS as _F

globals().update(_F)

__all__ = [  # noqa: PLE0604 - the ops' names are known at import
    *sorted(_F), "sum", "mean", "max", "min", "log_softmax", "softmax_cross_entropy",
    "zeros", "ones", "zeros_like", "ones_like", "names",
]  # fmt: skip


def names() -> list[str]:
    """The names of the ops (the devices' op table)."""
    return sorted(_F)


def _axes(axis):
    if axis is None:
        return ()
    if isinstance(axis, (int, _np.integer)):
        return (int(axis),)
    return tuple(int(a) for a in axis)


def sum(x, axis=None, keepdims=False):
    """numpy's ``sum``: ``reduce_sum`` over ``axis`` (None: every axis)."""
    return _F["reduce_sum"](x, axes=_axes(axis), keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    """numpy's ``mean``: ``reduce_mean`` over ``axis`` (None: every axis)."""
    return _F["reduce_mean"](x, axes=_axes(axis), keepdims=keepdims)


def max(x, axis=None, keepdims=False):
    """numpy's ``max``: ``reduce_max`` over ``axis`` (None: every axis)."""
    return _F["reduce_max"](x, axes=_axes(axis), keepdims=keepdims)


def min(x, axis=None, keepdims=False):
    """numpy's ``min``: ``reduce_min`` over ``axis`` (None: every axis)."""
    return _F["reduce_min"](x, axes=_axes(axis), keepdims=keepdims)


def log_softmax(x, axis=-1):
    """``x - max - log(sum(exp(x - max)))`` along ``axis`` (numerically stable)."""
    shifted = x - _F["reduce_max"](x, axes=(axis,), keepdims=True)
    return shifted - _F["log"](_F["reduce_sum"](_F["exp"](shifted), axes=(axis,), keepdims=True))


def softmax_cross_entropy(logits, labels, axis=-1):
    """The mean over the batch of ``-sum(labels * log_softmax(logits))``; ``labels``
    are probabilities (one-hot rows, say) of the logits' shape."""
    per_example = -_F["reduce_sum"](labels * log_softmax(logits, axis), axes=(axis,))
    return mean(per_example)


def zeros(shape, dtype=_np.float32):
    """A tensor of zeros (float32 unless told)."""
    return _core.constant(_np.zeros(shape, dtype))


def ones(shape, dtype=_np.float32):
    """A tensor of ones (float32 unless told)."""
    return _core.constant(_np.ones(shape, dtype))


def zeros_like(x):
    return zeros(x.shape, x.dtype)


def ones_like(x):
    return ones(x.shape, x.dtype)


del _builtins
