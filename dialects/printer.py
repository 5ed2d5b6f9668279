"""MLIR-exact printer (temporary: xDSL's printer)."""

from __future__ import annotations

import io

from xdsl.printer import Printer


def print_module(op, *, generic=False, debuginfo=False) -> str:
    buf = io.StringIO()
    Printer(stream=buf, print_generic_format=generic, print_debuginfo=debuginfo).print_op(op)
    buf.write("\n")
    return buf.getvalue()
