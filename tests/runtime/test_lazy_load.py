"""Loading a BEF file checks its header and function index only; each
function body is checked when the function is first called, each location
when a diagnostic needs it.  A malformed body is then a clean error naming
the function; ``--verify_all`` / ``tfrt_translate -verify`` /
``BefFile.verify()`` check everything up front."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

import tfrt.api as api
from tfrt.bef.encoding import SectionId
from tfrt.bef.reader import BEFFormatError, read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module

BIN = Path(sys.executable).parent

SOURCE = """\
func.func @good() -> i32 {
  %one = tfrt.constant.i32 1
  %two = tfrt.add.i32 %one, %one
  tfrt.return %two : i32
}

func.func @bad() -> i32 {
  %one = tfrt.constant.i32 5
  tfrt.return %one : i32
}
"""


def body_position(data: bytes, name: str) -> int:
    """The file offset of function ``name``'s body."""
    bef = read_bef(data, lazy=True)
    fn = bef.function(name)
    reader = fn._loader
    return reader.sections[SectionId.FUNCTIONS][0] + reader.entry(fn.index)[1]


def broken_file(tmp_path: Path) -> tuple[Path, bytes]:
    """SOURCE as BEF, with unknown bits in @bad's column widths."""
    data = bytearray(write_bef(parse_module(SOURCE, "lazy.mlir")))
    at = body_position(bytes(data), "bad") + 8
    (widths,) = struct.unpack_from("<I", data, at)
    struct.pack_into("<I", data, at, widths | 1 << 31)
    path = tmp_path / "broken.bef"
    path.write_bytes(bytes(data))
    return path, bytes(data)


def test_loading_decodes_no_function_body(tmp_path):
    path, _ = broken_file(tmp_path)
    bef = read_bef(path, lazy=True)
    assert all(f._columns is None for f in bef.functions)
    with pytest.raises(BEFFormatError, match=r"function 1 \('bad'\): unknown bits set in the column widths"):
        bef.verify()
    with pytest.raises(BEFFormatError, match="function 1 \\('bad'\\)"):
        read_bef(path)  # the eager reader checks every body


def test_a_malformed_body_is_an_error_when_its_function_is_first_called(tmp_path):
    path, _ = broken_file(tmp_path)
    program = api.load(path)
    assert program.call("good") == 2
    with pytest.raises(BEFFormatError, match=r"function 1 \('bad'\): unknown bits"):
        program.call("bad")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / args[0]), *args[1:]], capture_output=True, timeout=120)


def test_bef_executor_runs_what_it_can_then_names_the_bad_function(tmp_path):
    path, _ = broken_file(tmp_path)
    proc = run("bef_executor", str(path))
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 1
    assert "'good' returned 2" in out and "--- Running 'bad':" in out
    assert "invalid BEF file: BEF Functions section at offset" in err
    assert "function 1 ('bad'): unknown bits set in the column widths" in err
    assert "Traceback" not in err


def test_bef_executor_verify_all_checks_before_running(tmp_path):
    path, _ = broken_file(tmp_path)
    for flag in ("--verify_all", "--verify-all"):
        proc = run("bef_executor", flag, str(path))
        assert proc.returncode == 1
        assert "--- Running" not in proc.stdout.decode()
        assert "function 1 ('bad')" in proc.stderr.decode()


def test_tfrt_translate_verify(tmp_path):
    path, data = broken_file(tmp_path)
    good = tmp_path / "good.bef"
    good.write_bytes(write_bef(parse_module(SOURCE, "lazy.mlir")))
    proc = run("tfrt_translate", "-verify", str(good))
    assert proc.returncode == 0
    assert proc.stdout.decode().startswith(f"{good}: valid BEF version 1: 2 functions, 3 kernels,")
    proc = run("tfrt_translate", "-verify", str(path))
    assert proc.returncode == 1 and "function 1 ('bad')" in proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()


def test_locations_are_decoded_only_when_a_diagnostic_needs_them(tmp_path):
    data = bytearray(write_bef(parse_module(SOURCE, "lazy.mlir")))
    bef = read_bef(bytes(data), lazy=True)
    start = bef.functions[0]._loader.sections[SectionId.LOCATIONS][0]
    data[start] = 0x09  # the first location record gets an unknown kind
    program = api.load(bytes(data))
    assert program.call("good") == 2 and program.call("bad") == 5
    with pytest.raises(BEFFormatError, match="unknown location kind 9"):
        read_bef(bytes(data))


def test_an_old_version_names_both_versions(tmp_path):
    data = bytearray(write_bef(parse_module(SOURCE, "lazy.mlir")))
    data[2] = 0
    path = tmp_path / "old.bef"
    path.write_bytes(bytes(data))
    proc = run("bef_executor", str(path))
    assert proc.returncode == 1
    assert "unsupported BEF format version 0 (this reader supports version 1)" in proc.stderr.decode()
