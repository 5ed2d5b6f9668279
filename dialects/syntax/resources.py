"""MLIR's file metadata: the ``{-# dialect_resources: ... #-}`` section.

MLIR keeps large constants out of line: an attribute names a blob,
``dense_resource<key> : tensor<...>``, and the blob sits in a section at the
end of the file::

    %w = arith.constant dense_resource<conv1_w> : tensor<2xf32>
    ...
    {-#
      dialect_resources: {
        builtin: {
          conv1_w: "0x040000000000803F00000040"
        }
      }
    #-}

A blob is a hex string: a 4-byte little-endian alignment, then the raw
little-endian elements.  The sections are found before the parse
(:func:`find_file_metadata`), so that the ops that name a blob are built
with its data, and the lexer never scans the blobs: it stops before the
sections that close the file and steps over any between top-level ops
(two imported files concatenated).  Only the blobs' offsets are kept until
an attribute asks for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tfrt.diagnostics import Diagnostic, DiagnosticError, SourceLoc

from .driver import LineIndex

_TOKEN = re.compile(
    r"""(?P<ws>(?:[ \t\f\r\n]+|//[^\n]*)+)
      | (?P<end>\#-\})
      | (?P<string>"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+")
      | (?P<word>[A-Za-z0-9_$.\-]+)
      | (?P<punct>[{}:,])""",
    re.X,
)
_TRAILER = re.compile(r"(?:[ \t\f\r\n]+|//[^\n]*)*")


@dataclass
class Blob:
    """A resource's hex string, by its offsets in the text (decoded on use)."""

    start: int  # of the opening quote
    end: int  # after the closing quote


@dataclass
class FileMetadata:
    """The file's ``{-# ... #-}`` sections and the resources they define."""

    # Where the ops end: the start of the sections that close the file.
    end: int
    # Sections between top-level ops: start offset -> end offset, for the
    # lexer to step over (MLIR allows a section anywhere at the top level).
    skips: dict[int, int] = field(default_factory=dict)
    # dialect -> key -> blob
    resources: dict[str, dict[str, Blob]] = field(default_factory=dict)


def find_file_metadata(text: str, filename: str, index: LineIndex) -> FileMetadata | None:
    """The ``{-# ... #-}`` sections of ``text`` (each must start a line, as
    MLIR prints them), or None when there are none.

    A plain string search finds them, and each section is read past its
    blobs in one regex match per string, so no text is scanned twice.
    """
    sections: list[tuple[int, int]] = []
    resources: dict[str, dict[str, Blob]] = {}
    pos = 0
    while True:
        begin = text.find("{-#", pos)
        if begin < 0:
            break
        if text[text.rfind("\n", 0, begin) + 1 : begin].strip(" \t"):
            pos = begin + 3  # inside a line: a string or a comment
            continue
        end = _SectionParser(text, begin, filename, index).parse(resources)
        sections.append((begin, end))
        pos = end
    if not sections:
        return None
    meta = FileMetadata(len(text), resources=resources)
    # The sections that only whitespace and comments separate from the end
    # close the file; the ops end before them.
    for begin, end in reversed(sections):
        if _TRAILER.match(text, end, meta.end).end() != meta.end:
            break
        meta.end = begin
    meta.skips = {begin: end for begin, end in sections if begin < meta.end}
    return meta


def blob_bytes(text: str, blob: Blob) -> tuple[int, bytes]:
    """(alignment, data) of a blob; ValueError for a malformed one."""
    body = text[blob.start + 1 : blob.end - 1]
    if not body.startswith(("0x", "0X")):
        raise ValueError("a resource blob must be a hex string ('0x...')")
    try:
        raw = bytes.fromhex(body[2:])
    except ValueError:
        raise ValueError("the resource blob is not valid hex") from None
    if len(raw) < 4:
        raise ValueError("the resource blob has no alignment (its first 4 bytes)")
    return int.from_bytes(raw[:4], "little"), raw[4:]


def _error(msg: str, filename: str, index: LineIndex, pos: int) -> DiagnosticError:
    line, col = index.line_col(pos)
    return DiagnosticError(Diagnostic("error", msg, SourceLoc(filename, line, col)))


class _SectionParser:
    """``{-# key: value, ... #-}`` where a value is ``{key: value, ...}``, a
    string, or a bare word (``true``, a number)."""

    def __init__(self, text: str, begin: int, filename: str, index: LineIndex):
        self.text = text
        self.pos = begin + 3
        self.begin = begin
        self.filename = filename
        self.index = index

    def error(self, msg: str, pos: int | None = None) -> DiagnosticError:
        return _error(msg, self.filename, self.index, self.pos if pos is None else pos)

    def next(self) -> tuple[str, int, int]:
        """(kind, start, end) of the next token; ("eof", ...) at the end."""
        while True:
            if self.pos >= len(self.text):
                return "eof", self.pos, self.pos
            m = _TOKEN.match(self.text, self.pos)
            if m is None:
                raise self.error(f"unexpected '{self.text[self.pos]}' in file metadata")
            self.pos = m.end()
            kind = m.lastgroup
            if kind != "ws":
                return kind, m.start(), m.end()

    def expect(self, what: str) -> tuple[int, int]:
        kind, s, e = self.next()
        if kind == "eof":
            raise self.error(f"expected '{what}' in file metadata, found the end of the input", s)
        if self.text[s:e] != what:
            raise self.error(f"expected '{what}' in file metadata, found '{self.text[s:e][:20]}'", s)
        return s, e

    def key(self, kind: str, s: int, e: int) -> str:
        if kind == "word":
            return self.text[s:e]
        if kind == "string":
            from .attributes import decode_string

            return decode_string(self.text[s:e])
        raise self.error("expected a key in file metadata", s)

    def entries(self, close: str, on_entry) -> int:
        """``key: value`` entries up to ``close``; returns the end offset."""
        first = True
        while True:
            kind, s, e = self.next()
            tok = self.text[s:e]
            if kind == "eof":
                raise self.error(f"unterminated file metadata: expected '{close}'", self.begin)
            if tok == close and kind in ("end", "punct"):
                return e
            if not first:
                if tok != ",":
                    raise self.error(f"expected ',' or '{close}' in file metadata", s)
                kind, s, e = self.next()
                if self.text[s:e] == close:  # a trailing comma
                    return e
            first = False
            key = self.key(kind, s, e)
            self.expect(":")
            on_entry(key, s)

    def value(self):
        """A dict, a Blob (for a string), or a word."""
        kind, s, e = self.next()
        if kind == "string":
            return Blob(s, e)
        if kind == "word":
            return self.text[s:e]
        if self.text[s:e] == "{":
            out: dict = {}

            def entry(key, pos):
                out[key] = self.value()

            self.entries("}", entry)
            return out
        raise self.error("expected a value in file metadata", s)

    def parse(self, resources: dict[str, dict[str, Blob]]) -> int:
        """Adds the section's resources to ``resources``; returns its end."""

        def entry(key: str, pos: int) -> None:
            value = self.value()
            if key != "dialect_resources":
                # Other keys (external_resources: a reproducer's pipeline,
                # say) carry nothing a program needs.
                return
            if not isinstance(value, dict):
                raise self.error("'dialect_resources' must be a dictionary", pos)
            for dialect, blobs in value.items():
                if not isinstance(blobs, dict) or not all(isinstance(b, Blob) for b in blobs.values()):
                    raise self.error(f"the resources of dialect '{dialect}' must be strings", pos)
                known = resources.setdefault(dialect, {})
                for key, blob in blobs.items():
                    old = known.get(key)
                    if old is not None and self.text[old.start : old.end] != self.text[blob.start : blob.end]:
                        raise self.error(
                            f"resource '{key}' of dialect '{dialect}' is defined twice, with different data",
                            blob.start,
                        )
                    known[key] = blob

        return self.entries("#-}", entry)
