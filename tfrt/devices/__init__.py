"""Devices: where tensors live and ops run.

``get_device("cpu")``, ``get_device("gpu:0")``, ``get_device("null")`` return
devices from the process-wide :class:`DeviceRegistry` (built-in kinds plus the
``tfrt.devices`` entry-point group).  Every device implements the interface in
``tfrt.devices.base`` (allocate through a caching allocator, copy between host
and device, launch work on streams, signal completion with events that resolve
AsyncValues) and exposes the tensor ops of ``tfrt.devices.ops`` as
``device.ops.<name>(...)``.

The device modules (and cupy, for ``gpu``) load when a device of their kind
is first requested.
"""

from __future__ import annotations

from tfrt.devices.base import (
    CAP_ASYNC,
    CAP_BF16,
    CAP_COMPLEX,
    CAP_COMPUTE,
    CAP_F16,
    CAP_F64,
    CAP_INT,
    Device,
    DeviceError,
    DeviceTensor,
    Event,
    Stream,
)
from tfrt.devices.registry import DeviceRegistry, default_registry, device_of, dispatch, parse_device_name


def get_device(name: str = "cpu") -> Device:
    """The device ``name`` (``KIND`` or ``KIND:INDEX``) from the default registry."""
    return default_registry().get(name)


def register_device(kind: str, factory, *, replace: bool = False) -> None:
    """Register a device kind in the default registry (plug-ins use the entry points)."""
    default_registry().register(kind, factory, replace=replace)


def device_kinds() -> list[str]:
    return default_registry().kinds()


def available_device_kinds() -> list[str]:
    return default_registry().available_kinds()


__all__ = [
    "CAP_ASYNC",
    "CAP_BF16",
    "CAP_COMPLEX",
    "CAP_COMPUTE",
    "CAP_F16",
    "CAP_F64",
    "CAP_INT",
    "Device",
    "DeviceError",
    "DeviceRegistry",
    "DeviceTensor",
    "Event",
    "Stream",
    "available_device_kinds",
    "default_registry",
    "device_kinds",
    "device_of",
    "dispatch",
    "get_device",
    "parse_device_name",
    "register_device",
]
