"""The device registry: device kinds -> factories, found lazily.

A device *kind* (``cpu``, ``cpu_async``, ``gpu``, ``null``, or a plug-in's) maps
to a factory ``factory(index) -> Device`` (usually the Device subclass).  Kinds
come from the built-in table below and from the ``tfrt.devices`` entry-point
group, so an out-of-tree package adds a device by declaring, in its
pyproject.toml::

    [project.entry-points."tfrt.devices"]
    mydev = "my_package.device:MyDevice"

Factories are imported only when their kind is first used; ``get("gpu:1")``
creates the device once and caches it.  A ``DeviceRegistry`` is an ordinary
object, so tests build one with only the kinds they need.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any, Callable, Sequence

from tfrt.devices.base import Device, DeviceError
from tfrt.devices.ops import run_op

ENTRY_POINT_GROUP = "tfrt.devices"

BUILTIN_DEVICES: dict[str, str] = {
    "cpu": "tfrt.devices.cpu:CpuDevice",
    "cpu_async": "tfrt.devices.cpu:AsyncCpuDevice",
    "gpu": "tfrt.devices.gpu:GpuDevice",
    "null": "tfrt.devices.null:NullDevice",
}

Factory = Callable[[int], Device]


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def parse_device_name(name: str) -> tuple[str, int]:
    """``"gpu:1"`` -> ("gpu", 1); a bare kind means index 0."""
    kind, sep, index = name.partition(":")
    if not kind:
        raise DeviceError(f"invalid device name '{name}'")
    if not sep:
        return kind, 0
    if not index.isdigit():
        raise DeviceError(f"invalid device name '{name}' (expected KIND or KIND:INDEX)")
    return kind, int(index)


class DeviceRegistry:
    """Device kinds and the devices created from them (thread-safe)."""

    def __init__(self, *, builtins: bool = True, entry_points: bool = True):
        self._targets: dict[str, str | Factory] = dict(BUILTIN_DEVICES) if builtins else {}
        self._entry_points_pending = entry_points
        self._devices: dict[tuple[str, int], Device] = {}
        self._lock = threading.RLock()

    # -- registration ----------------------------------------------------
    def register(self, kind: str, factory: str | Factory, *, replace: bool = False) -> None:
        """Add kind ``kind``; ``factory`` is a callable or a ``"module:attr"`` string."""
        with self._lock:
            if kind in self._targets and not replace:
                raise DeviceError(f"device kind '{kind}' is already registered")
            self._targets[kind] = factory
            for key in [k for k in self._devices if k[0] == kind]:
                del self._devices[key]

    def _load_entry_points(self) -> None:
        if not self._entry_points_pending:
            return
        self._entry_points_pending = False
        from importlib.metadata import entry_points

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            # Built-ins win: a plug-in cannot silently replace ``cpu``.
            self._targets.setdefault(ep.name, ep.value)

    def kinds(self) -> list[str]:
        """Every registered kind (whether or not it can run on this machine)."""
        with self._lock:
            self._load_entry_points()
            return sorted(self._targets)

    def factory(self, kind: str) -> Factory:
        with self._lock:
            self._load_entry_points()
            target = self._targets.get(kind)
            if target is None:
                raise DeviceError(
                    f"unknown device kind '{kind}' (known: {', '.join(sorted(self._targets))})"
                )
            if isinstance(target, str):
                try:
                    target = _load(target)
                except (ImportError, AttributeError) as exc:
                    raise DeviceError(f"cannot load device kind '{kind}': {exc}") from None
                self._targets[kind] = target
            return target

    def is_available(self, kind: str) -> bool:
        """Whether devices of ``kind`` can be created here (a GPU kind without CUDA cannot)."""
        try:
            factory = self.factory(kind)
        except DeviceError:
            return False
        check = getattr(factory, "is_available", None)
        return bool(check()) if callable(check) else True

    def available_kinds(self) -> list[str]:
        return [k for k in self.kinds() if self.is_available(k)]

    # -- devices -----------------------------------------------------------
    def get(self, name: str = "cpu") -> Device:
        """The device called ``name`` (``cpu``, ``gpu:1``), created on first use."""
        kind, index = parse_device_name(name)
        with self._lock:
            dev = self._devices.get((kind, index))
            if dev is not None:
                return dev
            factory = self.factory(kind)
            dev = factory(index)
            if not isinstance(dev, Device):
                raise DeviceError(f"the factory of device kind '{kind}' returned {type(dev).__name__}")
            self._devices[(kind, index)] = dev
            return dev

    def devices(self) -> list[Device]:
        """The devices created so far."""
        with self._lock:
            return list(self._devices.values())


_default: DeviceRegistry | None = None
_default_lock = threading.Lock()


def default_registry() -> DeviceRegistry:
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = DeviceRegistry()
    return _default


def device_of(tensors: Sequence[Any]) -> Device:
    """The device the tensors live on (host tensors: the default ``cpu`` device)."""
    for t in tensors:
        dev = getattr(t, "device", None)
        if dev is not None:
            return dev
    return default_registry().get("cpu")


def dispatch(name: str, *inputs: Any, **attrs: Any) -> Any:
    """Run op ``name`` on the inputs' device (eager entry point); one result or a tuple."""
    results = run_op(device_of(inputs), name, list(inputs), attrs)
    return results[0] if len(results) == 1 else tuple(results)
