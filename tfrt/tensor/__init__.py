"""Host tensors, shapes, dtypes, the Binary Tensor Format, and the tensor kernels.

* ``tfrt.tensor.dtype``: TFRT's DType enum, numpy storage (bf16 via ml_dtypes), printing.
* ``tfrt.tensor.shape``: TensorShape, PartialTensorShape, FixedRankShape.
* ``tfrt.tensor.host_tensor``: DenseHostTensor, ScalarHostTensor,
  StringHostTensor, CooHostTensor, printed exactly as TFRT prints them.
* ``tfrt.tensor.btf``: the ``.btf`` reader and writer.
* kernel modules (registered with ``tfrt.kernels`` when this package is
  imported, which ``tfrt.kernels.registry.default_registry`` does):
  ``kernels_dht`` (``tfrt_dht.*``, ``tfrt_sht.*``), ``kernels_ts`` (``ts.*``),
  ``kernels_coo`` (``coo.*``), ``kernels_btf`` (``btf.*``),
  ``kernels_cpu_test`` (TFRT's CPU test tensor kernels, ``tfrt_test.*``),
  ``kernels_compute`` (``tfrt_tensor.*``, device-dispatched ops) and
  ``kernels_corert`` (``corert.*``, the core runtime).
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

# Kernel modules register with tfrt.kernels at import.
from tfrt.tensor import (  # noqa: E402,F401  (imported for their registrations)
    kernels_btf,
    kernels_compute,
    kernels_coo,
    kernels_corert,
    kernels_cpu_test,
    kernels_dht,
    kernels_ts,
)

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
