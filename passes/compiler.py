"""The compiler's default pipeline: high-level MLIR -> optimized kernel IR.

``default_pipeline(device, opt_level)`` is the pass pipeline ``tfrt_compile``
runs when no ``--pass-pipeline`` is given (docs/compiler.md);
``is_high_level(module)`` says whether a module still holds ops of the
high-level dialects, so that ``bef_executor`` and ``tfrt.api.load`` know to
compile a ``.mlir`` input before writing BEF.

    >>> default_pipeline("cpu", 0)
    'lower-linalg,lower-tensor,lower-arith,lower-math,lower-scf,lower-func,place-devices{device=cpu},insert-chains'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.ir import Operation

# Ops of these dialects must be lowered before BEF can hold them.
HIGH_LEVEL_DIALECTS = frozenset({"arith", "math", "scf", "tensor", "linalg"})
# func.func is the container kernel IR keeps; its calls and returns are lowered.
HIGH_LEVEL_FUNC_OPS = frozenset({"func.call", "func.return"})

LOWERING = ("lower-linalg", "lower-tensor", "lower-arith", "lower-math", "lower-scf", "lower-func")
DEVICES = ("cpu", "gpu")


def default_pipeline(device: str = "cpu", opt_level: int = 2) -> str:
    """The pass pipeline for ``device`` at ``opt_level`` (0: lower only)."""
    if device.split(":")[0] not in DEVICES:
        raise ValueError(f"unknown device '{device}' (expected one of: {', '.join(DEVICES)})")
    place = [f"place-devices{{device={device}}}", "insert-chains"]
    if opt_level <= 0:
        return ",".join([*LOWERING, *place])
    passes = [
        "canonicalize",
        "cse",
        *LOWERING,
        "fold-constants",
        "fuse-linear",
        "fuse-elementwise",
        "cse",
        "dce",
        *place,
        "reuse-buffers",
    ]
    return ",".join(passes)


def is_high_level(module: Operation) -> bool:
    """True when ``module`` has an op the lowering passes must handle first."""
    for op in module.walk():
        name = op.name
        if name in HIGH_LEVEL_FUNC_OPS or name.split(".", 1)[0] in HIGH_LEVEL_DIALECTS:
            return True
    return False
