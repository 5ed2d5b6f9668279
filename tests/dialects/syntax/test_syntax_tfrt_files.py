"""TFRT's own .mlir tests (read from the source mirror when it is there) parse
and verify, chunk by chunk, except chunks that expect an error."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tfrt.diagnostics import DiagnosticError, split_input_file
from tfrt.dialects import make_context
from tfrt.dialects.syntax import parse_module

MIRROR = Path("/work/.mirror/tensorflow+runtime/repo")
# Ops TFRT's tests write in an older syntax that current MLIR rejects (its
# scf.parallel bodies end in scf.yield, not scf.reduce).
UNSUPPORTED = ("scf.parallel",)


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(MIRROR), *args], capture_output=True, text=True, check=True
    ).stdout


def _test_files() -> list[str]:
    if not MIRROR.exists():
        return []
    try:
        names = _git("ls-tree", "-r", "--name-only", "HEAD").split()
    except (OSError, subprocess.CalledProcessError):
        return []
    return [n for n in names if n.endswith(".mlir") and "mlir_tests" in n]


FILES = _test_files()


@pytest.mark.skipif(not FILES, reason="TFRT source mirror not available")
@pytest.mark.parametrize("path", FILES)
def test_tfrt_test_file_parses_and_verifies(path):
    text = _git("show", f"HEAD:{path}")
    parsed = 0
    for chunk, _ in split_input_file(text):
        if "expected-error" in chunk or any(op in chunk for op in UNSUPPORTED):
            continue
        try:
            parse_module(chunk, path, ctx=make_context(True), allow_unregistered=True)
        except DiagnosticError as e:
            pytest.fail(f"{path}: {e}")
        parsed += 1
    assert parsed or "expected-error" in text or any(op in text for op in UNSUPPORTED)
