"""Write docs/passes.md from the pass registry and each pass module's docstring.

    python docs/gen_passes.py            # rewrite docs/passes.md
    python docs/gen_passes.py --check    # exit 1 if docs/passes.md is out of date

``tests/passes/test_pass_docs.py`` runs the check.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

HEADER = """# Passes

Every pass `tfrt_opt` and `tfrt_compile` know, by name, with what it does and an example.
The compiler's default pipeline (`tfrt.passes.compiler.default_pipeline`) is described in
[compiler.md](compiler.md).  This page is the passes' own documentation (their module
docstrings); `tfrt_opt --help` lists them too.
"""

PATH = Path(__file__).with_name("passes.md")


def _markdown(doc: str, name: str) -> str:
    """The module docstring as Markdown: its title line (the pass name and a
    summary, said already) dropped, ``::`` literal blocks as fenced MLIR."""
    lines = doc.splitlines()
    if lines and lines[0].startswith(f"``{name}``"):
        lines = lines[1:]
        while lines and not lines[0].strip():
            lines = lines[1:]
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("::"):
            stripped = line.rstrip()[:-2].rstrip()
            out.append(stripped + ":" if stripped else "")
            i += 1
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            while block and not block[0].strip():
                block.pop(0)
            out += ["", "```mlir", *textwrap.dedent("\n".join(block)).splitlines(), "```", ""]
            continue
        out.append(line)
        i += 1
    return "\n".join(out).strip()


def render() -> str:
    from tfrt.passes import PASSES

    parts = [HEADER]
    for name, (spec, summary) in PASSES.items():
        module = importlib.import_module(spec.split(":")[0])
        doc = _markdown((module.__doc__ or "").strip(), name)
        section = f"## `{name}`\n\n{summary}.\n"
        if doc:
            section += f"\n{doc}\n"
        parts.append(section)
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if PATH.read_text() != text:
            sys.stderr.write(f"{PATH} is out of date: run python docs/gen_passes.py\n")
            return 1
        return 0
    PATH.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
