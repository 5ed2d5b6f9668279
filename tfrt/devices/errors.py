"""The devices' error type, in a module of its own so that every device module
can import it without importing the others (the import graph is
``errors <- ops <- base <- registry``)."""

from __future__ import annotations


class DeviceError(Exception):
    """A device operation failed (bad arguments, a device fault, out of memory)."""
