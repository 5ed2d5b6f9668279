"""TFRT's CPU test tensor kernels (``backends/cpu/lib/ops/test/resnet_tensor_kernels.cc``).

They write into a preallocated output tensor and thread a chain::

    %ch1 = "tfrt_test.max_pooling_2d.f32"(%input, %output, %ch0)
      { padding = "same", pool_size = [3 : i32, 3 : i32], strides = [2 : i32, 2 : i32] }
    %ch2 = "tfrt_test.flatten.f32"(%t4d, %t2d, %ch1)

Their error messages are TFRT's (``MaxPool2D padding 'invalid' is not
recognized``, ``MaxPool2D output shape [..] does not match the expected
output shape [..]``).  The max pool starts every window at the smallest
*positive* float, as the C++ kernel does (``numeric_limits<float>::min()``),
so a window of negative values pools to 1.17549435e-38: TFRT's behaviour,
kept for fidelity; ``tfrt_tensor.max_pool`` is the correct general op.
"""

from __future__ import annotations

import numpy as np

from tfrt.kernels.registry import CHAIN, KernelError, kernel
from tfrt.tensor.dtype import DType
from tfrt.tensor.host_tensor import DenseHostTensor


def _f32(t, rank: int | None, what: str) -> DenseHostTensor:
    if not isinstance(t, DenseHostTensor) or t.dtype != DType.F32:
        raise KernelError(f"{what} must be an f32 DenseHostTensor")
    if rank is not None and t.shape.rank != rank:
        raise KernelError(f"{what} must have rank {rank}, got shape {t.shape}")
    return t


def _shape_text(dims) -> str:
    return "[" + ", ".join(str(int(d)) for d in dims) + "]"


@kernel("tfrt_test.max_pooling_2d.f32", attrs=("str", "i32[]", "i32[]"))
def max_pooling_2d(padding, pool_size, strides, input, output, chain):
    """NHWC max pooling of ``input`` into ``output`` (attributes: padding, pool_size, strides)."""
    x = _f32(input, 4, "MaxPool2D input")
    out = _f32(output, 4, "MaxPool2D output")
    pool = [int(v) for v in np.asarray(pool_size).reshape(-1)]
    stride = [int(v) for v in np.asarray(strides).reshape(-1)]
    if len(pool) != 2:
        raise KernelError("MaxPool2D expects pool_size to have 2 elements")
    if len(stride) != 2:
        raise KernelError("MaxPool2D expects strides to have 2 elements")
    if any(s <= 0 for s in stride) or any(p <= 0 for p in pool):
        raise KernelError("MaxPool2D expects positive pool_size and strides")
    n, h, w, c = x.shape.dims
    pads = [0, 0, 0, 0]  # top, bottom, left, right
    if padding == "same":
        total_h = pool[0] - stride[0] if h % stride[0] == 0 else pool[0] - h % stride[0]
        total_w = pool[1] - stride[1] if w % stride[1] == 0 else pool[1] - w % stride[1]
        # TFRT truncates total/2 and total/2 + 0.5 toward zero.
        pads = [int(total_h / 2.0), int(total_h / 2.0 + 0.5), int(total_w / 2.0), int(total_w / 2.0 + 0.5)]
    elif padding != "valid":
        raise KernelError(f"MaxPool2D padding '{padding}' is not recognized")
    expected = (
        n,
        _c_div(h + pads[0] + pads[1] - pool[0], stride[0]) + 1,
        _c_div(w + pads[2] + pads[3] - pool[1], stride[1]) + 1,
        c,
    )
    if out.shape.dims != expected:
        raise KernelError(
            f"MaxPool2D output shape {_shape_text(out.shape.dims)} does not match the "
            f"expected output shape {_shape_text(expected)}"
        )
    _, oh, ow, _ = expected
    start = np.float32(np.finfo(np.float32).tiny)
    src = x.array
    dst = out.array
    dst[...] = start
    # One strided maximum per window offset: pool_h * pool_w numpy calls
    # instead of a Python loop per output element.
    for dy in range(pool[0]):
        rows = np.arange(oh) * stride[0] + dy - pads[0]
        rv = (rows >= 0) & (rows < h)
        if not rv.any():
            continue
        for dx in range(pool[1]):
            cols = np.arange(ow) * stride[1] + dx - pads[2]
            cv = (cols >= 0) & (cols < w)
            if not cv.any():
                continue
            ri, ci = np.nonzero(rv)[0], np.nonzero(cv)[0]
            window = src[:, rows[ri]][:, :, cols[ci]]
            view = dst[:, ri[0] : ri[-1] + 1, ci[0] : ci[-1] + 1]
            np.maximum(view, window, out=view)
    return CHAIN


def _c_div(a: int, b: int) -> int:
    """C's integer division (truncation toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@kernel("tfrt_test.flatten.f32")
def flatten(input, output, chain):
    """Copy a tensor's data into an output of the same size and leading dimension."""
    x = _f32(input, None, "Flatten input")
    out = _f32(output, None, "Flatten output")
    if (
        x.num_elements != out.num_elements
        or x.shape.rank == 0
        or out.shape.rank == 0
        or x.shape.dim(0) != out.shape.dim(0)
    ):
        raise KernelError(f"Flatten output shape {out.shape} does not match the input shape {x.shape}")
    out.array.reshape(-1)[...] = x.array.reshape(-1)
    return CHAIN


@kernel("tfrt_test.zero_padding.f32", attrs=("i32[]",))
def zero_padding(padding, input, output, chain):
    """Pad the H and W dimensions of an NHWC tensor with zeros."""
    x = _f32(input, 4, "ZeroPadding input")
    out = _f32(output, 4, "ZeroPadding output")
    pad = [int(v) for v in np.asarray(padding).reshape(-1)]
    if len(pad) != 2:
        raise KernelError("ZeroPadding expects padding of length 2")
    n, h, w, c = x.shape.dims
    expected = (n, h + 2 * pad[0], w + 2 * pad[1], c)
    if out.shape.dims != expected:
        raise KernelError(
            f"ZeroPadding output shape {_shape_text(out.shape.dims)} does not match the "
            f"expected output shape {_shape_text(expected)}"
        )
    out.array[...] = 0
    out.array[:, pad[0] : pad[0] + h, pad[1] : pad[1] + w, :] = x.array
    return CHAIN


@kernel("tfrt_test.tensor_transpose.f32")
def tensor_transpose(input, output, chain):
    """Transpose a matrix into ``output``."""
    x = _f32(input, 2, "TensorTranspose input")
    out = _f32(output, 2, "TensorTranspose output")
    if out.shape.dims != x.shape.dims[::-1]:
        raise KernelError(
            f"TensorTranspose output shape {out.shape} does not match the input shape {x.shape}"
        )
    out.array[...] = x.array.T
    return CHAIN
