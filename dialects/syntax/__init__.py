"""MLIR text frontend: a lark LALR grammar that builds xDSL IR.

``parse_module(text)`` parses MLIR's generic syntax (``mlir.lark``) plus the
custom form of every op that declares an ``assembly_format`` (rules
generated from the formats, see :mod:`.formats` and :mod:`.grammar`), gives
every op a ``FileLineColLoc`` (or its explicit ``loc(...)``), and reports bad
input as :class:`~tfrt.diagnostics.DiagnosticError` with MLIR's messages.

    >>> from tfrt.dialects.syntax import parse_module
    >>> m = parse_module('%0 = "test.op"() : () -> i32', allow_unregistered=True)
    >>> print(m.body.block.first_op.location)
    loc("-":1:1)
"""

from __future__ import annotations

import gc
import os
import re
import threading

from lark.exceptions import UnexpectedInput
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from tfrt.diagnostics import Diagnostic, DiagnosticError, SourceLoc

from .driver import LineIndex
from .errors import to_diagnostic
from .grammar import Frontend, GrammarBuildError, frontend_for
from .resources import find_file_metadata
from .verify import source_loc, verify_module

__all__ = [
    "GrammarBuildError",
    "frontend",
    "parse_module",
    "source_loc",
    "verify_module",
]

_LOCK = threading.RLock()

# `#name =` / `!name =` at the start of a line: a top-level alias definition.
_ALIAS_DEF = re.compile(r"^[ \t]*([#!][A-Za-z_][A-Za-z0-9_$.]*)[ \t]*=", re.M)
# Where an alias definition's right-hand side ends: the next line that starts
# a top-level statement.
_NEXT_TOP = re.compile(r"\n(?=[#!%\"A-Za-z_^}])")


def frontend(ctx: Context, text: str | None = None) -> Frontend:
    """The compiled frontend for the ops of ``ctx`` that ``text`` uses (all
    without ``text``); built once per op set and cached on disk."""
    return frontend_for(ctx, text)


def _prescan_aliases(text: str) -> dict[str, tuple[int, int, int]]:
    """Top-level alias definitions: name -> (offset of the name, begin and end
    of the right-hand side), so that aliases can be used before they are defined."""
    out: dict[str, tuple[int, int, int]] = {}
    if "=" not in text:
        return out
    for m in _ALIAS_DEF.finditer(text):
        name = m.group(1)
        if "." in name or name in out:
            continue
        start = m.end()
        nxt = _NEXT_TOP.search(text, start)
        out[name] = (m.start(1), start, nxt.start() if nxt else len(text))
    return out


def parse_module(
    text: str,
    filename: str = "-",
    *,
    ctx: Context | None = None,
    allow_unregistered: bool = False,
    verify: bool = True,
) -> ModuleOp:
    """Parse MLIR text into an xDSL ``ModuleOp``.

    A top-level list of ops without ``module`` is wrapped in one, as MLIR
    does.  With ``verify``, :func:`verify_module` runs on the result.
    Raises DiagnosticError for any bad input.
    """
    if ctx is None:
        from tfrt.dialects import shared_context

        # Parses run under _LOCK, so they may share one context (and the
        # frontend cached on it).
        ctx = shared_context(allow_unregistered)
    allow = allow_unregistered or ctx.allow_unregistered
    index = LineIndex(text)
    # The `{-# dialect_resources ... #-}` sections (large constants), found
    # first: the ops end before the ones that close the file, the lexer steps
    # over the others, and only the blobs the ops name are decoded.
    meta = find_file_metadata(text, filename, index)
    end = len(text) if meta is None else meta.end
    body = text if end == len(text) else text[:end]
    with _LOCK:
        try:
            fe = frontend_for(ctx, body)
        except GrammarBuildError as e:
            raise DiagnosticError(Diagnostic("error", str(e), None)) from None
        resources = {} if meta is None else meta.resources.get("builtin", {})
        skips = None if meta is None else meta.skips
        module = _parse(fe, ctx, text, filename, allow, index, end, body, resources, skips)
    if verify:
        try:
            verify_module(module)
        except RecursionError:
            raise DiagnosticError(
                Diagnostic("error", "input is nested too deeply", SourceLoc(filename, 1, 1))
            ) from None
    return module


def _parse(fe: Frontend, ctx: Context, text: str, filename: str, allow: bool, *rest) -> ModuleOp:
    if fe.busy:
        # A callback of this very parse (a dialect's verifier, say) parsing again.
        raise DiagnosticError(Diagnostic("error", "parse_module is not re-entrant", None))
    fe.busy = True
    try:
        return _parse_unlocked(fe, ctx, text, filename, allow, *rest)
    finally:
        fe.busy = False


def _parse_unlocked(
    fe: Frontend,
    ctx: Context,
    text: str,
    filename: str,
    allow: bool,
    index: LineIndex,
    end: int,
    body: str,
    resources: dict,
    skips: dict[int, int] | None,
) -> ModuleOp:
    """Parse ``text[:end]`` (``body``); ``resources`` are the blobs of the
    file's metadata sections by key, ``skips`` the sections between ops."""
    b = fe.builder
    b.ctx = ctx
    parser = fe.fast
    terminals = parser.terminals_by_name

    def parse_alias(begin: int, end: int):
        try:
            return parser.parse(text, "alias_rhs", begin, end, index)
        except UnexpectedInput as e:
            raise to_diagnostic(e, filename, terminals) from None

    b.reset(filename, text, allow, _prescan_aliases(body), parse_alias, resources)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return parser.parse(text, "start", 0, end, index, skips)
    except UnexpectedInput as e:
        raise to_diagnostic(e, filename, terminals) from None
    except DiagnosticError:
        raise
    except RecursionError:
        raise DiagnosticError(
            Diagnostic("error", "input is nested too deeply", SourceLoc(filename, 1, 1))
        ) from None
    except Exception as e:  # noqa: BLE001 - never let a traceback reach the user
        if os.environ.get("TFRT_PY_PARSER_DEBUG"):
            raise
        raise DiagnosticError(
            Diagnostic("error", f"internal error while parsing: {type(e).__name__}: {e}", None)
        ) from e
    finally:
        if gc_was_enabled:
            gc.enable()
        b.reset("-", "")
