"""Kernels: the registry (``tfrt.kernels.registry``) and every dialect's kernels.

One module per dialect: ``basic`` (``tfrt.*`` scalar kernels),
``control_flow`` (``tfrt.call/if/while/...``), ``tfrt_scalar``,
``tfrt_array``, ``tfrt_tensor`` (device-dispatched tensor ops), ``tfrt_dht``
(``tfrt_dht.*``, ``tfrt_sht.*``), ``ts``, ``coo``, ``btf``, ``corert``, the
``*_sync`` twins, ``test_kernels`` (``tfrt_test.*``, ``tfrt_tutorial.*``,
``vt.*``), ``tfrt_test_tensor`` and ``tfrt_test_image`` (TFRT's tensor test
kernels) and ``native`` (``{tfrt.native}`` functions).  Each registers its
kernels when imported; :func:`default_registry` imports a dialect's
modules when one of its kernels is first looked up
(``registry.KERNEL_MODULES_BY_DIALECT``).
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
