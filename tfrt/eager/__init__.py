"""Eager execution: ops dispatched one at a time from Python, asynchronously.

    import numpy as np, tfrt
    x = tfrt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = tfrt.ops.softmax(x @ x.T)        # returns at once; shape and dtype known
    y.numpy()                            # waits for the value

The ops are those of ``tfrt.devices.ops`` (one specification per op), run by
the same kernels as BEF programs and traced by ``@tfrt.function`` into MLIR
that the compiler lowers.  See docs/eager.md.

Layer 5 of ``tfrt.eager`` (``core < methods < variables < tape < tracing <
__init__``), the top: it may import every module and re-exports the public
names (the tape on first use of ``GradientTape``).  The modules are layers
that import one way, each only from those below it
(``tests/eager/test_layers.py`` checks it): ``core`` (tensors, op dispatch
and the hooks through which the layers above plug into it), ``methods``
(operators), ``variables``, ``tape`` (gradients), ``tracing``
(``@tfrt.function``).
"""

from __future__ import annotations

from tfrt.eager import methods as _methods  # noqa: F401 - installs the operators
from tfrt.eager.core import OpError, Tensor, constant, current_device, device_scope
from tfrt.eager.tracing import ConcreteFunction, Function, function
from tfrt.eager.variables import Variable


def device(name):
    """``with tfrt.device("gpu"):`` -- ops in the block run on that device."""
    return device_scope(name)


def __getattr__(name):
    # The tape loads on first use.
    if name == "GradientTape":
        from tfrt.eager.tape import GradientTape

        return GradientTape
    raise AttributeError(f"module 'tfrt.eager' has no attribute '{name}'")


__all__ = [
    "ConcreteFunction", "Function", "GradientTape", "OpError", "Tensor", "Variable", "constant",
    "current_device", "device", "function",
]  # fmt: skip
