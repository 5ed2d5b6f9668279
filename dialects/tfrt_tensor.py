"""The `tfrt_tensor` dialect: the generic tensor type ``!tfrt_tensor.tensor``.

TFRT's ``tensor.td`` defines only this type; the tensor kernels of the
`tfrt_dht`, `coo`, `tfrt_sht` and `btf` dialects produce and consume it.
Unknown types of the dialect are accepted, as TFRT's ``allowUnknownTypes()``
does.
"""

from __future__ import annotations

from tfrt.dialects.base import RuntimeDialect, define_type

TensorType = define_type(
    __name__,
    "TensorType",
    "tfrt_tensor.tensor",
    "``!tfrt_tensor.tensor``: a host tensor of any kind (dense, string, COO).",
)

TFRT_TENSOR = RuntimeDialect("tfrt_tensor", [], [TensorType], allow_unknown_types=True)
