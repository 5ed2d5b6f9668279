"""Collects `.mlir` files with `// RUN:` lines as tests, in the style of lit.

Each RUN line runs in bash with `pipefail`, after lit's substitutions:
`%s` (this file), `%S` (its folder), `%t`/`%T` (temporary paths), and
`FileCheck` -> the PyPI `filecheck`.  The project's console scripts
(`tfrt_opt`, `tfrt_translate`, `bef_executor`) come from the running
interpreter's environment, and `not` from tests/bin.  A file with
`// REQUIRES: gpu` is skipped when no CUDA device is usable.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).parent
BIN_DIRS = [str(TESTS_DIR / "bin"), str(Path(sys.executable).parent)]
RUN_RE = re.compile(r"//\s*RUN:\s?(.*)$")
REQUIRES_RE = re.compile(r"//\s*REQUIRES:\s*(.*)$")
FILECHECK_RE = re.compile(r"(?<![\w./-])FileCheck(?![\w./-])")


def _gpu_available() -> bool:
    try:
        from tfrt.devices.gpu import GpuDevice

        return GpuDevice.is_available()
    except Exception:  # noqa: BLE001 - no cupy, no CUDA: no GPU
        return False


FEATURES = {"gpu": _gpu_available}


def pytest_collect_file(parent, file_path: Path):
    if file_path.suffix == ".mlir" and "RUN:" in file_path.read_text(errors="replace"):
        return MlirFile.from_parent(parent, path=file_path)
    return None


def parse_run_lines(text: str) -> list[str]:
    commands: list[str] = []
    pending = ""
    for line in text.splitlines():
        m = RUN_RE.search(line)
        if not m:
            continue
        part = m.group(1).rstrip()
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        commands.append(pending + part)
        pending = ""
    if pending:
        commands.append(pending)
    return commands


class MlirFile(pytest.File):
    def collect(self):
        yield MlirTest.from_parent(self, name=self.path.name)


class MlirTest(pytest.Item):
    def runtest(self) -> None:
        text = self.path.read_text()
        for m in REQUIRES_RE.finditer(text):
            for feature in (f.strip() for f in m.group(1).split(",")):
                probe = FEATURES.get(feature)
                if probe is None or not probe():
                    pytest.skip(f"requires {feature}")
        commands = parse_run_lines(text)
        tmp = Path(tempfile.mkdtemp(prefix="mlirtest-"))
        try:
            env = dict(os.environ)
            env["PATH"] = os.pathsep.join(BIN_DIRS + [env.get("PATH", "")])
            for cmd in commands:
                shell = self._substitute(cmd, tmp)
                proc = subprocess.run(
                    ["bash", "-o", "pipefail", "-c", shell],
                    cwd=self.path.parent,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=600,
                )
                if proc.returncode != 0:
                    raise MlirTestFailure(shell, proc.returncode, proc.stdout, proc.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _substitute(self, cmd: str, tmp: Path) -> str:
        subs = {
            "%%": "%",
            "%s": str(self.path),
            "%S": str(self.path.parent),
            "%t": str(tmp / "t"),
            "%T": str(tmp),
        }
        cmd = re.sub(r"%%|%[sStT]", lambda m: subs[m.group(0)], cmd)
        return FILECHECK_RE.sub("filecheck", cmd)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, MlirTestFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"mlir: {self.name}"


class MlirTestFailure(Exception):
    def __init__(self, cmd: str, rc: int, stdout: str, stderr: str):
        super().__init__(
            f"RUN failed (exit {rc}): {cmd}\n--- stdout ---\n{stdout[-4000:]}"
            f"\n--- stderr ---\n{stderr[-4000:]}"
        )
