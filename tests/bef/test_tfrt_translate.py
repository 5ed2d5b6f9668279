"""tfrt_translate: the command line, in process."""

from __future__ import annotations

import io
import sys

import pytest

from tfrt.bef.reader import read_bef
from tfrt.tools.tfrt_translate import main, split_input_file

MODULE = """func.func @add(%a: i32) -> i32 {
  %x = "tfrt.constant.i32"() {value = 42 : i32} : () -> i32
  %y = "tfrt.add.i32"(%x, %a) : (i32, i32) -> i32
  "tfrt.return"(%y) : (i32) -> ()
}
"""


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "in.mlir"
    path.write_text(MODULE)
    return path


def run(capsysbinary, monkeypatch, *args: str, stdin: bytes | None = None) -> tuple[int, bytes, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main(list(args))
    out, err = capsysbinary.readouterr()
    return status, out, err.decode()


def test_mlir_to_bef_writes_bytes_to_stdout(capsysbinary, monkeypatch, source):
    status, out, err = run(capsysbinary, monkeypatch, "-mlir-to-bef", str(source))
    assert (status, err) == (0, "")
    assert out[:3] == b"\x0b\xef\x01"
    bef = read_bef(out)
    assert [k.name for k in bef.function("add").kernels] == ["tfrt.constant.i32", "tfrt.add.i32"]
    assert bef.function("add").attribute_names == [("value",), ()]


def test_output_file_and_stdin(capsysbinary, monkeypatch, source, tmp_path):
    target = tmp_path / "out.bef"
    status, out, _ = run(capsysbinary, monkeypatch, "--mlir-to-bef", "-o", str(target), str(source))
    assert status == 0 and out == b""
    from_file = target.read_bytes()
    for args in (["-mlir-to-bef"], ["-mlir-to-bef", "-"]):
        status, out, _ = run(capsysbinary, monkeypatch, *args, stdin=MODULE.encode())
        assert status == 0
        # Locations name the input ("<stdin>"), so compare the structure.
        assert [f.name for f in read_bef(out).functions] == [f.name for f in read_bef(from_file).functions]


@pytest.mark.parametrize(
    "flag, optional",
    [
        ("--disable-optional-sections", False),
        ("-disable-optional-sections=true", False),
        ("--disable-optional-sections=false", True),
    ],
)
def test_disable_optional_sections(capsysbinary, monkeypatch, source, flag, optional):
    status, out, _ = run(capsysbinary, monkeypatch, "-mlir-to-bef", flag, str(source))
    assert status == 0
    assert (read_bef(out).attribute_types is not None) == optional


def test_bef_to_mlir(capsysbinary, monkeypatch, source, tmp_path):
    bef_path = tmp_path / "x.bef"
    main(["-mlir-to-bef", str(source), "-o", str(bef_path)])
    status, out, err = run(capsysbinary, monkeypatch, "-bef-to-mlir", str(bef_path))
    assert (status, err) == (0, "")
    assert "@add" in out.decode() and "tfrt.add.i32" in out.decode()
    status, out, _ = run(capsysbinary, monkeypatch, "--bef-to-mlir", "--mlir-print-op-generic", "-", stdin=bef_path.read_bytes())
    assert status == 0
    assert '"func.func"()' in out.decode() and '"tfrt.add.i32"(' in out.decode()


def test_missing_optional_sections_warn(capsysbinary, monkeypatch, source, tmp_path):
    bef_path = tmp_path / "x.bef"
    main(["-mlir-to-bef", "--disable-optional-sections", str(source), "-o", str(bef_path)])
    status, out, err = run(capsysbinary, monkeypatch, "-bef-to-mlir", str(bef_path))
    assert status == 0
    assert "warning: Missing AttributeTypes, AttributeNames or RegisterTypes sections." in err
    assert "attr0 = " in out.decode()


def test_malformed_bef_is_an_error(capsysbinary, monkeypatch, tmp_path):
    bad = tmp_path / "bad.bef"
    bad.write_bytes(b"\x0b\xef\x05")
    status, out, err = run(capsysbinary, monkeypatch, "-bef-to-mlir", str(bad))
    assert status == 1 and out == b""
    assert "error: BEF file at offset 2: unsupported BEF format version 5" in err
    assert "Traceback" not in err


def test_translation_errors_are_diagnostics(capsysbinary, monkeypatch, tmp_path):
    path = tmp_path / "err.mlir"
    path.write_text('func.func @f() -> i32 {\n  %x = "someop"() : () -> i32\n}\n')
    status, out, err = run(capsysbinary, monkeypatch, "-mlir-to-bef", str(path))
    assert status == 1 and out == b""
    assert f"{path}:2:3: error: all functions need to have a tfrt.return" in err
    assert '  %x = "someop"() : () -> i32\n  ^' in err  # the source line and a caret


def test_verify_diagnostics_with_split_input_file(capsysbinary, monkeypatch, tmp_path):
    path = tmp_path / "err.mlir"
    path.write_text(
        "func.func @f() -> i32 {\n"
        "  // expected-error @+1 {{all functions need to have a tfrt.return}}\n"
        '  %x = "someop"() : () -> i32\n'
        "}\n"
        "\n// -----\n\n"
        "// expected-error @+1 {{external functions are not allowed}}\n"
        "func.func private @ext() -> i32\n"
        "\n// -----\n\n"
        'func.func @ok() {\n  "tfrt.return"() : () -> ()\n}\n'
    )
    status, _, err = run(capsysbinary, monkeypatch, "-mlir-to-bef", "-split-input-file", "-verify-diagnostics", str(path))
    assert (status, err) == (0, "")
    path.write_text(path.read_text().replace("external functions", "internal functions"))
    status, _, err = run(capsysbinary, monkeypatch, "-mlir-to-bef", "-split-input-file", "-verify-diagnostics", str(path))
    assert status == 1
    assert "unexpected error: external functions are not allowed" in err
    assert 'expected error "internal functions are not allowed" was not produced' in err


def test_split_keeps_line_numbers():
    text = "a\n// -----\n\nb\n// -----\nc\n"
    chunks = split_input_file(text)
    assert [chunk.split("\n").index(name) + 1 for (chunk, _), name in zip(chunks, "abc")] == [1, 4, 6]


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "one of -mlir-to-bef, -bef-to-mlir or -verify is required"),
        (["-mlir-to-bef", "-bef-to-mlir"], "not allowed with argument"),
        (["-mlir-to-bef", "--disable-optional-sections=maybe"], "is not a boolean"),
        (["-mlir-to-bef", "--no-such-flag"], "unrecognized arguments"),
    ],
)
def test_usage_errors(capsysbinary, monkeypatch, args, message):
    status, _, err = run(capsysbinary, monkeypatch, *args)
    assert status == 1
    assert err.startswith("tfrt_translate: error: ") and message in err


def test_missing_input_file(capsysbinary, monkeypatch, tmp_path):
    for mode in ("-mlir-to-bef", "-bef-to-mlir"):
        status, _, err = run(capsysbinary, monkeypatch, mode, str(tmp_path / "nope"))
        assert status == 1
        assert "error: No such file or directory" in err and "Traceback" not in err


def test_allow_unregistered_dialect_is_accepted(capsysbinary, monkeypatch, source):
    status, out, _ = run(capsysbinary, monkeypatch, "-mlir-to-bef", "-allow-unregistered-dialect", str(source))
    assert status == 0 and out[:2] == b"\x0b\xef"
