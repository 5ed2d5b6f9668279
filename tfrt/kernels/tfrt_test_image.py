"""Image kernels of TFRT's CPU backend (``backends/cpu/lib/kernels/image``)::

    %h = tfrt.constant.i64 2
    %w = tfrt.constant.i64 3
    %resized = tfrt_test.resize_bilinear %image, %h, %w

``tfrt_test.resize_bilinear`` is ``tf.compat.v1.image.resize(image, [h, w])``:
bilinear, corners not aligned, no half-pixel centres, every step in f32 as
TFRT's kernel computes it.  The image is ``[height, width, channels]``; the
result is an f32 tensor ``[h, w, channels]``.  (TFRT's ``decode_jpeg`` has no
kernel here: it needs a JPEG codec, which this runtime does not ship.)
"""

from __future__ import annotations

import numpy as np

from tfrt.kernels.registry import KernelError, kernel
from tfrt.tensor.dtype import DType
from tfrt.tensor.host_tensor import DenseHostTensor

_F32 = np.float32


def _interpolation(out_size: int, in_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower and upper source indices and the f32 weight of the upper one."""
    scale = _F32(in_size) / _F32(out_size)
    pos = np.arange(out_size, dtype=_F32) * scale
    floor = np.floor(pos)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(pos).astype(np.int64), in_size - 1)
    return lower, upper, (pos - floor).astype(_F32)


def resize_bilinear_array(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """Resize a ``[h, w, c]`` array to ``[height, width, c]`` (f32)."""
    src = image.astype(_F32, copy=False)
    y0, y1, ly = _interpolation(height, image.shape[0])
    x0, x1, lx = _interpolation(width, image.shape[1])
    lx = lx[None, :, None]
    top_left, top_right = src[y0][:, x0], src[y0][:, x1]
    bottom_left, bottom_right = src[y1][:, x0], src[y1][:, x1]
    top = top_left + (top_right - top_left) * lx
    bottom = bottom_left + (bottom_right - bottom_left) * lx
    return (top + (bottom - top) * ly[:, None, None]).astype(_F32, copy=False)


@kernel("tfrt_test.resize_bilinear")
def resize_bilinear(image, height, width):
    """Bilinear resize of a ``[height, width, channels]`` image (see the module)."""
    if not isinstance(image, DenseHostTensor):
        raise KernelError(f"expected a DenseHostTensor image, got {type(image).__name__}")
    if image.shape.rank != 3:
        raise KernelError("input tensor shape must be 3")
    dtype = image.dtype
    if dtype.is_complex or not (dtype.is_integer or dtype.is_float):
        raise KernelError(f"cannot resize an image of dtype {dtype.short_name}")
    if height <= 0 or width <= 0:
        raise KernelError(f"cannot resize an image to {height}x{width}")
    if image.num_elements == 0:
        raise KernelError(f"cannot resize an empty image of shape {image.shape}")
    out = resize_bilinear_array(image.array, int(height), int(width))
    return DenseHostTensor.from_array(out, DType.F32)
