"""Pass pipeline strings, in MLIR's textual syntax.

Accepted forms::

    canonicalize,cse                          plain comma list
    builtin.module(canonicalize,cse)          MLIR's op-anchored form
    builtin.module(func.func(canonicalize))   nested anchors
    inline{default-pipeline="" max-iterations=2}

Every pass here is a module pass, so a nested anchor such as ``func.func(...)``
runs its passes over the whole module (they only touch what they match).
Options are MLIR's: ``{key=value key2=v1,v2}``; dashes in keys map to
underscores in the pass's dataclass fields.
"""

from __future__ import annotations

from typing import Callable

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_spec
from xdsl.utils.exceptions import ArgSpecParseError

__all__ = ["PipelineError", "parse_pass_pipeline", "split_top_level"]


class PipelineError(ValueError):
    """A pipeline string that does not parse or names an unknown pass."""


def split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside ``()``, ``{}``, ``[]`` or quotes."""
    parts: list[str] = []
    depth = 0
    quote = False
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = False
        elif ch == '"':
            quote = True
        elif ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if depth < 0:
                raise PipelineError(f"unbalanced '{ch}' in pass pipeline '{text}'")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    if quote:
        raise PipelineError(f"unterminated string in pass pipeline '{text}'")
    if depth:
        raise PipelineError(f"unbalanced brackets in pass pipeline '{text}'")
    parts.append(text[start:])
    return parts


def _element(
    text: str, available: dict[str, Callable[[], type[ModulePass]]]
) -> list[ModulePass]:
    text = text.strip()
    if not text:
        raise PipelineError("empty pass name in pass pipeline")
    paren = text.find("(")
    brace = text.find("{")
    if paren != -1 and (brace == -1 or paren < brace):
        # An op-anchored nested pipeline: `op.name(pipeline)`.
        if not text.endswith(")"):
            raise PipelineError(f"expected ')' at the end of '{text}'")
        anchor = text[:paren].strip()
        if not anchor:
            raise PipelineError(f"missing operation name before '(' in '{text}'")
        return _pipeline(text[paren + 1 : -1], available)
    name = text if brace == -1 else text[:brace].strip()
    factory = available.get(name)
    if factory is None:
        known = ", ".join(sorted(available))
        raise PipelineError(f"'{name}' does not refer to a registered pass (known: {known})")
    try:
        spec = parse_spec(text)
    except ArgSpecParseError as e:
        raise PipelineError(f"invalid options for pass '{name}': {e}") from None
    pass_cls = factory()
    try:
        # A registry may list a pass under another name than its own.
        return [pass_cls.from_spec(ArgSpec(pass_cls.name, spec.parameters))]
    except (ValueError, TypeError) as e:
        raise PipelineError(f"invalid options for pass '{name}': {e}") from None


def _pipeline(
    text: str, available: dict[str, Callable[[], type[ModulePass]]]
) -> list[ModulePass]:
    if not text.strip():
        return []
    passes: list[ModulePass] = []
    for part in split_top_level(text):
        passes.extend(_element(part, available))
    return passes


def parse_pass_pipeline(
    text: str, available: dict[str, Callable[[], type[ModulePass]]] | None = None
) -> list[ModulePass]:
    """The passes of a pipeline string, in order; raises `PipelineError`."""
    if available is None:
        from tfrt.passes import all_passes

        available = all_passes()
    return _pipeline(text, available)
