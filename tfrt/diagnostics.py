"""MLIR-style diagnostics, shared by every tool.

A diagnostic renders as MLIR renders it::

    file.mlir:3:24: error: unexpected SSA value '%a'
      %y = tfrt.add.i32 %x %a
                           ^
    file.mlir:2:3: note: prior use here

This module is pure standard library: the executor uses it too, and the
executor must not import the compiler's dependencies.

It also implements ``-split-input-file`` (chunks that keep their original line
numbers) and ``-verify-diagnostics`` (``expected-error/warning/remark/note``
annotations with ``@+N``, ``@-N``, ``@above``, ``@below`` and the ``-re``
forms), because ``tfrt_opt``, ``tfrt_translate`` and ``bef_executor`` all
need them.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Iterable, TextIO

SEVERITIES = ("error", "warning", "remark", "note")


@dataclass(frozen=True)
class SourceLoc:
    """A 1-based file:line:col position."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Diagnostic:
    severity: str
    message: str
    loc: SourceLoc | None = None
    notes: list["Diagnostic"] = field(default_factory=list)

    def note(self, message: str, loc: SourceLoc | None = None) -> "Diagnostic":
        """Attach a note and return self, for chaining."""
        self.notes.append(Diagnostic("note", message, loc))
        return self

    def render(self, sources: "SourceManager | None" = None) -> str:
        out = [_render_one(self, sources)]
        out.extend(_render_one(n, sources) for n in self.notes)
        return "".join(out)


def _render_one(diag: Diagnostic, sources: "SourceManager | None") -> str:
    if diag.loc is None:
        return f"error: {diag.message}\n" if diag.severity == "error" else (
            f"{diag.severity}: {diag.message}\n"
        )
    text = f"{diag.loc}: {diag.severity}: {diag.message}\n"
    line = sources.line(diag.loc.file, diag.loc.line) if sources else None
    if line is not None:
        caret_col = max(diag.loc.col - 1, 0)
        # Tabs before the caret keep their width so the caret lines up.
        pad = "".join("\t" if c == "\t" else " " for c in line[:caret_col])
        text += f"{line}\n{pad}^\n"
    return text


class DiagnosticError(Exception):
    """Raised by library code when input is bad; carries the diagnostics."""

    def __init__(self, diagnostics: Diagnostic | Iterable[Diagnostic]):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))

    def render(self, sources: "SourceManager | None" = None) -> str:
        return "".join(d.render(sources) for d in self.diagnostics)


def error(message: str, loc: SourceLoc | None = None) -> DiagnosticError:
    """Shorthand: ``raise error("bad", loc)``."""
    return DiagnosticError(Diagnostic("error", message, loc))


class SourceManager:
    """Maps file names to their text so diagnostics can show the source line."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}

    def add(self, filename: str, text: str) -> None:
        self._lines[filename] = text.split("\n")

    def line(self, filename: str, lineno: int) -> str | None:
        lines = self._lines.get(filename)
        if lines is None:
            try:
                with open(filename, encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
            except OSError:
                return None
            self._lines[filename] = lines
        if 1 <= lineno <= len(lines):
            return lines[lineno - 1].rstrip("\r")
        return None


# ---------------------------------------------------------------------------
# -split-input-file

SPLIT_MARKER = re.compile(r"^// -----[ \t]*$", re.MULTILINE)


def split_input_file(text: str) -> list[tuple[str, int]]:
    """Split on ``// -----`` lines.

    Returns ``(chunk, line_offset)`` pairs.  Each chunk is padded with
    ``line_offset`` leading newlines so that line numbers inside it are the
    line numbers of the original file; that keeps diagnostics, locations and
    ``expected-*@+N`` annotations right without any bookkeeping downstream.
    """
    chunks: list[tuple[str, int]] = []
    start = 0
    line = 0
    for m in SPLIT_MARKER.finditer(text):
        body = text[start : m.start()]
        chunks.append(("\n" * line + body, line))
        line += body.count("\n") + 1
        start = m.end()
        if start < len(text) and text[start] == "\n":
            start += 1
    body = text[start:]
    chunks.append(("\n" * line + body, line))
    return chunks


# ---------------------------------------------------------------------------
# -verify-diagnostics

_EXPECTED = re.compile(
    r"expected-(error|warning|remark|note)(-re)?"
    r"\s*(?:@(above|below|unknown|[+-]\d+))?"
    r"\s*(?:(\d+)\s*)?\{\{(.*)\}\}"
)


@dataclass
class Expected:
    severity: str
    line: int  # 0 for @unknown
    pattern: str
    is_regex: bool
    annotation_line: int
    count: int = 1
    matched: int = 0

    def matches(self, message: str) -> bool:
        if not self.is_regex:
            return self.pattern in message
        return re.search(_regex_from_annotation(self.pattern), message) is not None


def _regex_from_annotation(text: str) -> str:
    # In `-re` annotations, `{{...}}` segments are regexes, the rest is literal.
    out, pos = [], 0
    for m in re.finditer(r"\{\{(.*?)\}\}", text):
        out.append(re.escape(text[pos : m.start()]))
        out.append(m.group(1))
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return "".join(out)


def parse_expected(text: str) -> list[Expected]:
    """Collect the ``expected-*`` annotations of one buffer."""
    expected: list[Expected] = []
    for idx, line in enumerate(text.split("\n"), start=1):
        m = _EXPECTED.search(line)
        if not m:
            continue
        sev, re_flag, where, count, pattern = m.groups()
        if where is None:
            target = idx
        elif where == "above":
            target = idx - 1
        elif where == "below":
            target = idx + 1
        elif where == "unknown":
            target = 0
        else:
            target = idx + int(where)
        expected.append(
            Expected(sev, target, pattern, bool(re_flag), idx, int(count) if count else 1)
        )
    return expected


class DiagnosticVerifier:
    """Matches emitted diagnostics against ``expected-*`` annotations.

    Feed it every diagnostic (notes included) with :meth:`consume`; it returns
    False for a diagnostic that no annotation expects.  :meth:`finish`
    returns the errors to report: the unexpected diagnostics and the expected
    ones never produced.
    """

    def __init__(self, filename: str, text: str):
        self.filename = filename
        self.expected = parse_expected(text)
        self.unexpected: list[Diagnostic] = []

    def _match(self, sev: str, message: str, loc: SourceLoc | None) -> bool:
        line = 0
        if loc is not None:
            if not _same_file(loc.file, self.filename):
                return False
            line = loc.line
        for e in self.expected:
            if e.severity == sev and e.line == line and e.matched < e.count and e.matches(message):
                e.matched += 1
                return True
        return False

    def consume(self, diag: Diagnostic) -> None:
        for d in (diag, *diag.notes):
            if not self._match(d.severity, d.message, d.loc):
                self.unexpected.append(
                    Diagnostic("error", f"unexpected {d.severity}: {d.message}", d.loc)
                )

    def finish(self) -> list[Diagnostic]:
        errors = list(self.unexpected)
        for e in self.expected:
            if e.matched < e.count:
                errors.append(
                    Diagnostic(
                        "error",
                        f'expected {e.severity} "{e.pattern}" was not produced',
                        SourceLoc(self.filename, e.annotation_line, 1),
                    )
                )
        return errors


def _same_file(a: str, b: str) -> bool:
    if a == b:
        return True
    # BEF locations may name the file relative to another root than the
    # path the tool was given; compare from the end.
    a_parts, b_parts = a.replace("\\", "/").split("/"), b.replace("\\", "/").split("/")
    n = min(len(a_parts), len(b_parts))
    return n > 0 and a_parts[-n:] == b_parts[-n:]


def emit(diags: Iterable[Diagnostic], sources: SourceManager | None, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    for d in diags:
        stream.write(d.render(sources))
    stream.flush()
