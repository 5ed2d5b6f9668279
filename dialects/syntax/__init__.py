"""MLIR text frontend (lark LALR) producing xDSL IR.

Temporary implementation backed by xDSL's own parser; replaced by the lark
frontend.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ParseError

from tfrt.diagnostics import Diagnostic, DiagnosticError, SourceLoc


def parse_module(text, filename="-", *, ctx=None, allow_unregistered=False) -> ModuleOp:
    from xdsl.parser import Parser

    from tfrt.dialects import make_context

    ctx = ctx or make_context(allow_unregistered)
    try:
        return Parser(ctx, text, filename).parse_module()
    except ParseError as e:
        loc = e.span.get_location()
        raise DiagnosticError(Diagnostic("error", e.msg, SourceLoc(filename, loc.line, loc.col)))
