"""docs/passes.md is generated from the passes' own documentation and kept in sync."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_passes_md_is_up_to_date():
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "gen_passes.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_every_registered_pass_has_a_section():
    from tfrt.passes import PASSES

    text = (ROOT / "docs" / "passes.md").read_text()
    for name in PASSES:
        assert f"## `{name}`" in text
