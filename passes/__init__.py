"""IR -> IR passes, one ``ModulePass`` per module, and their registry.

``all_passes()`` maps each pass's kebab-case name to a zero-argument factory
returning the pass class (the shape ``xdsl.passes.PassPipeline.parse_spec``
takes).  The registry is explicit and lazy: a pass's module, and with it
xDSL, is imported only when its factory is called, so ``tfrt_opt --help``
stays fast.  Out-of-tree passes come in through the ``tfrt.passes``
entry-point group (``name = "package.module:PassClass"``) or through
``tfrt_opt --load-pass-plugin FILE.py``.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from xdsl.passes import ModulePass

ENTRY_POINT_GROUP = "tfrt.passes"

# name -> ("module:Class", one-line summary).  The summary lives here so that
# `--help` can list the passes without importing them.
PASSES: dict[str, tuple[str, str]] = {
    "canonicalize": (
        "tfrt.passes.canonicalize:CanonicalizerPass",
        "Fold ops, apply their canonicalization patterns, remove dead code",
    ),
    "cse": (
        "tfrt.passes.cse:CSEPass",
        "Eliminate common subexpressions",
    ),
    "dce": (
        "tfrt.passes.dce:DCEPass",
        "Remove ops whose results are unused and that have no side effects",
    ),
    "inline": (
        "tfrt.passes.inline:InlinerPass",
        "Inline tfrt.call / func.call of single-block functions",
    ),
}


def _load(spec: str) -> Callable[[], type[ModulePass]]:
    def factory() -> type[ModulePass]:
        module, attr = spec.split(":")
        return getattr(importlib.import_module(module), attr)

    return factory


def pass_summaries() -> dict[str, str]:
    """Name -> one-line summary, without importing any pass."""
    summaries = {name: summary for name, (_, summary) in PASSES.items()}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        summaries.setdefault(ep.name, f"(plugin {ep.value})")
    return summaries


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every known pass, by name, as a zero-argument factory of its class."""
    factories = {name: _load(spec) for name, (spec, _) in PASSES.items()}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        factories.setdefault(ep.name, ep.load)
    return factories
