"""Custom forms of standard-dialect ops whose xDSL class parses by hand.

xDSL gives many ``func/arith/scf/cf/tensor/linalg/memref`` ops a hand-written
``parse()`` instead of a declarative ``assembly_format``.  The lark frontend
generates its grammar from formats, so each such op gets an *equivalent*
format here, written over the op's own fields; syntax that the format
language cannot express is a ``custom<Name>`` directive with a
:class:`~tfrt.dialects.syntax.directive_rules.DirectiveRule`.

Each module of this package (one per dialect or theme) defines

* ``FORMATS``: op name -> format string,
* ``DIRECTIVES``: directive name -> ``CustomDirective`` class, and
* ``RULES``: directive name -> ``DirectiveRule``.

The ops keep printing with xDSL's code (MLIR's syntax); the directive
classes only exist for grammar generation.  ``tests/dialects/syntax``
checks every op against xDSL's own parser.
"""

from __future__ import annotations

import importlib
from pathlib import Path

#: The modules merged, in order (a later one may not redefine a name).
MODULES = ("arith", "linalg", "slices", "memref", "scf", "cf", "printf", "stablehlo")


def _modules():
    for name in MODULES:
        try:
            yield importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise


def merged() -> tuple[dict[str, str], dict[str, type], dict[str, object]]:
    """(formats, directive classes, directive rules) of every module."""
    fmts: dict[str, str] = {}
    directives: dict[str, type] = {}
    rules: dict[str, object] = {}
    for mod in _modules():
        for table, part in (
            (fmts, getattr(mod, "FORMATS", {})),
            (directives, getattr(mod, "DIRECTIVES", {})),
            (rules, getattr(mod, "RULES", {})),
        ):
            for key, value in part.items():
                if key in table:
                    raise ValueError(f"{mod.__name__} redefines '{key}'")
                table[key] = value
    return fmts, directives, rules


def source_files() -> list[str]:
    """The package's files (part of the grammar cache key)."""
    return sorted(str(p) for p in Path(__file__).parent.glob("*.py"))
