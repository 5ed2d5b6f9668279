"""The .mlir collector must fail a test whose RUN line or CHECK fails."""

import subprocess
import sys
import textwrap

from conftest import parse_run_lines


def test_run_lines_join_continuations():
    text = "// RUN: a \\\n// RUN:   b | c\n// RUN: d\n"
    assert parse_run_lines(text) == ["a    b | c", "d"]


def _run_pytest_on(tmp_path, body: str) -> int:
    f = tmp_path / "case.mlir"
    f.write_text(textwrap.dedent(body))
    conftest = (
        __import__("pathlib").Path(__file__).parent.parent / "conftest.py"
    ).read_text()
    (tmp_path / "conftest.py").write_text(conftest)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(f)],
        cwd=tmp_path,
        capture_output=True,
    ).returncode


def test_failing_check_fails(tmp_path):
    assert _run_pytest_on(tmp_path, "// RUN: echo hello | FileCheck %s\n// CHECK: goodbye\n") == 1


def test_failing_command_fails(tmp_path):
    assert _run_pytest_on(tmp_path, "// RUN: false | cat\n") == 1


def test_passing_file_passes(tmp_path):
    assert _run_pytest_on(tmp_path, "// RUN: echo hello | FileCheck %s\n// CHECK: hello\n") == 0
