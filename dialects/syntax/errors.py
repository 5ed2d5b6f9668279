"""lark parse errors -> MLIR-style diagnostics.

lark reports terminal names (``SSA_USE``, ``RPAR``); MLIR users expect
``expected ')'`` or ``unexpected SSA value '%a'; expected one of: ','``.
"""

from __future__ import annotations

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from tfrt.diagnostics import Diagnostic, DiagnosticError, SourceLoc

# How a terminal is called in a message.
_NAMES = {
    "RESULTS": "result list ('%name =')",
    "SSA_USE": "SSA value",
    "CARET_ID": "block label",
    "SYMBOL": "symbol ('@name')",
    "OP_ID": "operation name",
    "STRING": "string",
    "INT": "integer",
    "FLOAT": "float",
    "BARE_ID": "identifier",
    "INT_TYPE": "integer type",
    "FLOAT_TYPE": "float type",
    "BANG_ID": "type ('!dialect.type')",
    "HASH_ID": "attribute ('#dialect.attr')",
    "DENSE": "dense<...> literal",
    "DENSE_RESOURCE": "dense_resource<...> literal",
    "OPAQUE_ATTR": "attribute",
    "ANGLE_BODY": "'<...>'",
    "DIMS": "shape (e.g. '2x3x')",
    "VISIBILITY": "visibility ('private')",
    "TRUE_KW": "'true'",
    "FALSE_KW": "'false'",
    "FUNC_KW": "'func.func'",
    "MODULE_KW": "'module'",
    "_OPSTART": "an operation",
    "ALIAS_DEF": "alias definition",
    "$END": "end of input",
}

# What an unexpected token is, by its terminal.
_WHAT = {
    "SSA_USE": "SSA value",
    "RESULTS": "result list",
    "CARET_ID": "block label",
    "SYMBOL": "symbol",
    "STRING": "string",
    "INT": "integer",
    "FLOAT": "float",
    "BARE_ID": "identifier",
    "OP_ID": "operation name",
    "_OPSTART": "operation",
    "BANG_ID": "type",
    "HASH_ID": "attribute",
    "INT_TYPE": "type",
    "FLOAT_TYPE": "type",
}


def describe_terminal(name: str, terminals) -> str:
    if name in _NAMES:
        return _NAMES[name]
    if name.startswith("K_") and terminals is not None and name in terminals:
        return f"'{terminals[name].pattern.value}'"
    if terminals is not None and name in terminals:
        t = terminals[name]
        if t.pattern.type == "str":
            return f"'{t.pattern.value}'"
    return name.lower()


# Terminals that only say "another op could start here": one phrase for all.
_OP_STARTS = {"_OPSTART", "RESULTS", "STRING", "FUNC_KW", "MODULE_KW", "OP_ID"}


def _expected_list(names, terminals, max_items: int = 8) -> str:
    names = set(names)
    op_start = bool(names & _OP_STARTS)
    descs = sorted({describe_terminal(n, terminals) for n in names - _OP_STARTS})
    if op_start:
        descs.append("an operation")
    if len(descs) > max_items:
        descs = descs[:max_items] + ["..."]
    return ", ".join(descs)


def to_diagnostic(e: UnexpectedInput, filename: str, terminals) -> DiagnosticError:
    """Render a lark exception as ``file:line:col: error: ...``."""
    if isinstance(e, UnexpectedEOF):
        expected = _expected_list(e.expected, terminals)
        line, col = getattr(e, "line", None), getattr(e, "column", None)
        loc = SourceLoc(filename, line, col) if isinstance(line, int) and line > 0 else None
        return DiagnosticError(
            Diagnostic("error", f"unexpected end of input; expected one of: {expected}", loc)
        )
    if isinstance(e, UnexpectedToken):
        tok = e.token
        loc = SourceLoc(filename, e.line, e.column) if e.line and e.line > 0 else None
        expected = e.accepts or e.expected
        if tok.type == "$END":
            return DiagnosticError(
                Diagnostic(
                    "error",
                    "unexpected end of input; expected one of: "
                    + _expected_list(expected, terminals),
                    loc,
                )
            )
        names = sorted(expected)
        what = _WHAT.get(tok.type)
        shown = f"{what} '{tok.value}'" if what else f"'{tok.value}'"
        msg = f"unexpected {shown}; expected one of: {_expected_list(names, terminals)}"
        return DiagnosticError(Diagnostic("error", msg, loc))
    if isinstance(e, UnexpectedCharacters):
        loc = SourceLoc(filename, e.line, e.column)
        ch = e.char if e.char.isprintable() else repr(e.char)[1:-1]
        if ch == '"':
            msg = "unterminated string literal"
        else:
            allowed = e.allowed or set()
            if allowed:
                msg = (
                    f"unexpected character '{ch}'; expected one of: "
                    f"{_expected_list(allowed, terminals)}"
                )
            else:
                msg = f"unexpected character '{ch}'"
        return DiagnosticError(Diagnostic("error", msg, loc))
    return DiagnosticError(Diagnostic("error", str(e), None))
