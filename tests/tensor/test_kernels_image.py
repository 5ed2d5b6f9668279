"""`tfrt_test.resize_bilinear` (tfrt.kernels.tfrt_test_image)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tfrt.kernels.registry import KernelError
from tfrt.tensor.host_tensor import DenseHostTensor
from tfrt.kernels.tfrt_test_image import resize_bilinear

from .pipeline import run_mlir


def _reference(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """TF's legacy bilinear resize, one pixel at a time in f32 scalars."""
    f32 = np.float32
    in_h, in_w, channels = image.shape

    def weights(out_size, in_size):
        scale = f32(in_size) / f32(out_size)
        out = []
        for i in range(out_size):
            pos = f32(i) * scale
            lo = max(int(math.floor(pos)), 0)
            hi = min(int(math.ceil(pos)), in_size - 1)
            out.append((lo, hi, f32(pos - f32(math.floor(pos)))))
        return out

    out = np.empty((height, width, channels), np.float32)
    for y, (y0, y1, wy) in enumerate(weights(height, in_h)):
        for x, (x0, x1, wx) in enumerate(weights(width, in_w)):
            for c in range(channels):
                tl, tr = f32(image[y0, x0, c]), f32(image[y0, x1, c])
                bl, br = f32(image[y1, x0, c]), f32(image[y1, x1, c])
                top = tl + (tr - tl) * wx
                bottom = bl + (br - bl) * wx
                out[y, x, c] = top + (bottom - top) * wy
    return out


def test_upscale_by_hand():
    image = DenseHostTensor.from_array(np.array([[0, 10], [20, 30]], np.uint8).reshape(2, 2, 1))
    out = resize_bilinear(image, 4, 4)
    assert out.dtype.short_name == "f32"
    assert out.array[..., 0].tolist() == [
        [0, 5, 10, 10],
        [10, 15, 20, 20],
        [20, 25, 30, 30],
        [20, 25, 30, 30],
    ]


@pytest.mark.parametrize("size", [(3, 5), (7, 2), (1, 1), (6, 9)])
def test_matches_the_reference(size):
    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, size=(5, 6, 3), dtype=np.uint8)
    out = resize_bilinear(DenseHostTensor.from_array(image), *size)
    np.testing.assert_array_equal(out.array, _reference(image, *size))


def test_bad_inputs():
    flat = DenseHostTensor.from_array(np.zeros((4, 4), np.uint8))
    with pytest.raises(KernelError, match="input tensor shape must be 3"):
        resize_bilinear(flat, 2, 2)
    image = DenseHostTensor.from_array(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(KernelError, match="cannot resize an image to 0x2"):
        resize_bilinear(image, 0, 2)


def test_runs_from_mlir():
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %img = tfrt_dht.create_uninitialized_tensor.ui8.3 [1 : i64, 2 : i64, 3 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.ui8 %img, %ch0 [0 : ui8, 0 : ui8, 0 : ui8, 100 : ui8, 200 : ui8, 250 : ui8]
  %h = tfrt.constant.i64 1
  %w = tfrt.constant.i64 4
  %r = tfrt_test.resize_bilinear %img, %h, %w
  %ch2 = tfrt_dht.print_tensor %r, %ch1
  tfrt.return %ch2 : !tfrt.chain
}
""")
    assert run.diagnostics == []
    assert run.lines == [
        "DenseHostTensor dtype = f32, shape = [1, 4, 3], values = ["
        "0.000000e+00, 0.000000e+00, 0.000000e+00, 5.000000e+01, 1.000000e+02, 1.250000e+02, "
        "1.000000e+02, 2.000000e+02, 2.500000e+02, 1.000000e+02, 2.000000e+02, 2.500000e+02]"
    ]
