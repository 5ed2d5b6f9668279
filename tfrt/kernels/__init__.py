"""Kernels: the registry (``tfrt.kernels.registry``) and the built-in kernel modules.

``basic`` (``tfrt.*`` scalar kernels), ``control_flow`` (``tfrt.call/if/while/...``),
``test_kernels`` (``tfrt_test.*``, ``tfrt_tutorial.*``, ``vt.*``) and ``native``
(``{tfrt.native}`` functions) register themselves when imported;
:func:`default_registry` imports them.
"""

from tfrt.kernels.registry import (
    CHAIN,
    AsyncKernelFrame,
    Chain,
    KernelContext,
    KernelDef,
    KernelError,
    KernelRegistry,
    default_registry,
    kernel,
    native_function,
    print_line,
)

__all__ = [
    "CHAIN",
    "AsyncKernelFrame",
    "Chain",
    "KernelContext",
    "KernelDef",
    "KernelError",
    "KernelRegistry",
    "default_registry",
    "kernel",
    "native_function",
    "print_line",
]
