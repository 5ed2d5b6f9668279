"""tfrt: an MLIR-style compiler and a BEF bytecode executor, after TFRT.

The runtime half of this package (``tfrt`` itself, ``tfrt.bef.reader``) imports
only the standard library and numpy, so that ``bef_executor`` starts fast and
runs where the compiler's dependencies (xDSL, lark) are not installed.  The
compiler half lives in ``tfrt.dialects``, ``tfrt.passes``, ``tfrt.bef.writer``
and ``tfrt.tools``.

The eager API -- ``tfrt.constant``, ``tfrt.ops``, ``tfrt.device``,
``tfrt.function``, ``tfrt.GradientTape``, ``tfrt.Variable`` -- is imported on
first use (docs/eager.md).
"""

__version__ = "0.1.0"

# The eager API (docs/eager.md) loads on first use, so that ``import tfrt``
# stays as light as the runtime needs.
_EAGER = frozenset(
    {"constant", "Tensor", "Variable", "device", "function", "Function", "GradientTape", "OpError"}
)


def __getattr__(name: str):
    if name in _EAGER:
        import tfrt.eager

        return getattr(tfrt.eager, name)
    if name == "ops":
        import importlib

        return importlib.import_module("tfrt.ops")
    raise AttributeError(f"module 'tfrt' has no attribute '{name}'")
