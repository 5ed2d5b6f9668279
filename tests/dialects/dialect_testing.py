"""Helpers shared by the dialect tests (imported as `dialect_testing`).

Until the lark frontend lands these tests parse with xDSL's own `Parser`,
which cannot give implicit-region ops their entry-block arguments: those ops
are written with an explicit ``^bb0(...)`` entry block in the text, or built
in Python.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects import make_context
from tfrt.dialects.base import PlainVerifyException


def parse(text: str, allow_unregistered: bool = False) -> ModuleOp:
    return Parser(make_context(allow_unregistered), text, "test.mlir").parse_module()


def to_text(op: Operation, generic: bool = False) -> str:
    buf = io.StringIO()
    Printer(stream=buf, print_generic_format=generic).print_op(op)
    return buf.getvalue()


def verify_errors(module: Operation) -> Iterator[str]:
    """Each op's verifier message, prefixed as MLIR's emitOpError does."""
    for op in module.walk():
        try:
            op.verify_()
        except PlainVerifyException as error:
            yield str(error)
        except VerifyException as error:
            yield f"'{op.name}' op {error}"


def first_error(module: Operation) -> str | None:
    return next(verify_errors(module), None)


def round_trip(text: str, allow_unregistered: bool = False) -> str:
    """Parse, verify, print; the printed form must parse back to itself."""
    module = parse(text, allow_unregistered)
    assert first_error(module) is None, first_error(module)
    module.verify()
    printed = to_text(module)
    again = to_text(parse(printed, allow_unregistered))
    assert again == printed
    return printed
