"""tfrt: an MLIR-style compiler and a BEF bytecode executor, after TFRT.

The runtime half of this package (``tfrt`` itself, ``tfrt.bef.reader``) imports
only the standard library and numpy, so that ``bef_executor`` starts fast and
runs where the compiler's dependencies (xDSL, lark) are not installed.  The
compiler half lives in ``tfrt.dialects``, ``tfrt.passes``, ``tfrt.bef.writer``
and ``tfrt.tools``.
"""

__version__ = "0.1.0"
