"""Host tensors, shapes, dtypes and the Binary Tensor Format.

* ``tfrt.tensor.dtype``: TFRT's DType enum, numpy storage (bf16 via ml_dtypes), printing.
* ``tfrt.tensor.shape``: TensorShape, PartialTensorShape, FixedRankShape.
* ``tfrt.tensor.host_tensor``: DenseHostTensor, ScalarHostTensor,
  StringHostTensor, CooHostTensor, printed exactly as TFRT prints them.
* ``tfrt.tensor.btf``: the ``.btf`` reader and writer.

Their kernels live with every other dialect's in ``tfrt.kernels`` (one
module per dialect: ``tfrt_dht``, ``ts``, ``coo``, ``btf``, ``corert``,
``tfrt_tensor``, ...).
"""

from __future__ import annotations

from tfrt.tensor.dtype import DType, as_dtype, format_value
from tfrt.tensor.host_tensor import (
    CooHostTensor,
    DenseHostTensor,
    HostTensor,
    ScalarHostTensor,
    StringHostTensor,
    Tensor,
    TensorMetadata,
    to_dense,
)
from tfrt.tensor.shape import FixedRankShape, PartialTensorShape, TensorShape

__all__ = [
    "CooHostTensor",
    "DType",
    "DenseHostTensor",
    "FixedRankShape",
    "HostTensor",
    "PartialTensorShape",
    "ScalarHostTensor",
    "StringHostTensor",
    "Tensor",
    "TensorMetadata",
    "TensorShape",
    "as_dtype",
    "format_value",
    "to_dense",
]
