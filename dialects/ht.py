"""The `ht` (host tensor) dialect: the buffer type ``!ht.host_buffer``.

TFRT's ``host_tensor.td`` defines only this type (the memory behind a dense
host tensor, see `tfrt_dht.get_buffer`).  Unknown types of the dialect are
accepted, as TFRT's ``allowUnknownTypes()`` does.
"""

from __future__ import annotations

from tfrt.dialects.base import RuntimeDialect, define_type

HostBufferType = define_type(
    __name__,
    "HostBufferType",
    "ht.host_buffer",
    "``!ht.host_buffer``: a reference-counted block of host memory.",
)

HT = RuntimeDialect("ht", [], [HostBufferType], allow_unknown_types=True)
