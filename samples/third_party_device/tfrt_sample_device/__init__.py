"""A third-party tfrt-py device: ``counting``, the CPU device with per-op counters.

Installed, it is found through the ``tfrt.devices`` entry-point group::

    >>> from tfrt.devices import get_device
    >>> dev = get_device("counting")
    >>> t = dev.copy_to_device([1.0, -2.0])
    >>> dev.ops.relu(t).array.tolist(), dev.op_counts
    ([1.0, 0.0], {'relu': 1})
"""

from __future__ import annotations

import threading
from collections import Counter

from tfrt.devices.cpu import CpuDevice

__all__ = ["CountingDevice"]


class CountingDevice(CpuDevice):
    """Runs every op on the host, as ``cpu`` does, and counts them by name."""

    kind = "counting"

    def __init__(self, index: int = 0):
        super().__init__(index)
        self._lock = threading.Lock()
        self.op_counts: Counter[str] = Counter()

    def execute(self, spec, inputs, out_metas, attrs):
        with self._lock:
            self.op_counts[spec.name] += 1
        return super().execute(spec, inputs, out_metas, attrs)
