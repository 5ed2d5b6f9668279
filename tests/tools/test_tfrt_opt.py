"""tfrt_opt: in-process through main(), and a few real subprocess runs."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tfrt.diagnostics import split_input_file as split_chunks
from tfrt.tools.tfrt_opt import main

HERE = Path(__file__).parent
PLUGIN = HERE / "pass_plugin.py"
TFRT_OPT = Path(sys.executable).parent / "tfrt_opt"

SIMPLE = """\
func.func @f(%x: i32) -> i32 {
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 1
  %d = tfrt.add.i32 %x, %a
  %e = tfrt.add.i32 %x, %b
  %f = tfrt.add.i32 %d, %e
  %dead = tfrt.add.i32 %f, %f
  tfrt.return %f : i32
}
"""


@pytest.fixture
def write(tmp_path):
    def _write(text: str, name: str = "in.mlir") -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return str(path)

    return _write


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------
# Parse and print


def test_parse_and_print(capsys, write):
    code, out, err = run(capsys, write(SIMPLE))
    assert (code, err) == (0, "")
    assert out == textwrap.dedent(
        """\
        module {
          func.func @f(%arg0: i32) -> i32 {
            %0 = tfrt.constant.i32 1
            %1 = tfrt.constant.i32 1
            %2 = tfrt.add.i32 %arg0, %0
            %3 = tfrt.add.i32 %arg0, %1
            %4 = tfrt.add.i32 %2, %3
            %5 = tfrt.add.i32 %4, %4
            tfrt.return %4 : i32
          }
        }
        """
    )


def test_reads_stdin_and_writes_output_file(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.StringIO(SIMPLE))
    target = tmp_path / "out.mlir"
    code, out, err = run(capsys, "-", "-o", str(target))
    assert (code, out, err) == (0, "", "")
    assert target.read_text().startswith("module {")


def test_generic_and_debuginfo_flags(capsys, write):
    path = write(SIMPLE)
    code, out, _ = run(capsys, path, "--mlir-print-op-generic")
    assert code == 0 and out.startswith('"builtin.module"() ({\n')
    assert '%2 = "tfrt.add.i32"(%arg0, %0) : (i32, i32) -> i32' in out
    code, out, _ = run(capsys, path, "-mlir-print-debuginfo")
    assert code == 0
    assert f'%0 = tfrt.constant.i32 1 loc("{path}":2:3)' in out


# ---------------------------------------------------------------------------
# Passes


def test_pass_flags_run_in_command_line_order(capsys, write):
    path = write(SIMPLE)
    code, out, err = run(capsys, path, "-cse", "-canonicalize", "--mlir-print-ir-after-all")
    assert code == 0
    headers = [line for line in err.splitlines() if "IR Dump" in line]
    assert headers == [
        "// -----// IR Dump After CSE (cse) //----- //",
        "// -----// IR Dump After Canonicalizer (canonicalize) //----- //",
    ]
    assert out == textwrap.dedent(
        """\
        module {
          func.func @f(%arg0: i32) -> i32 {
            %0 = tfrt.constant.i32 1
            %1 = tfrt.add.i32 %arg0, %0
            %2 = tfrt.add.i32 %1, %1
            tfrt.return %2 : i32
          }
        }
        """
    )


def test_pass_pipeline_forms_agree(capsys, write):
    path = write(SIMPLE)
    results = {
        run(capsys, path, "--pass-pipeline=builtin.module(canonicalize,cse)")[1],
        run(capsys, path, "-pass-pipeline", "canonicalize,cse")[1],
        run(capsys, path, "-p", "builtin.module(func.func(canonicalize),cse)")[1],
        run(capsys, path, "-canonicalize", "-cse")[1],
    }
    assert len(results) == 1


def test_pass_options_on_flags(capsys, write):
    path = write(
        """
        func.func private @k(%a: i32) -> i32 {
          %unused = tfrt.add.i32 %a, %a
          tfrt.return %a : i32
        }
        func.func @f(%x: i32) -> i32 {
          %r = tfrt.call @k(%x) : (i32) -> i32
          tfrt.return %r : i32
        }
        """
    )
    _, simplified, _ = run(capsys, path, "-inline")
    _, plain, _ = run(capsys, path, '-inline=default-pipeline=""')
    assert "tfrt.call" not in simplified and "tfrt.call" not in plain
    assert "@k" not in simplified and "@k" not in plain
    assert "tfrt.add.i32" not in simplified
    assert "%0 = tfrt.add.i32 %arg0, %arg0" in plain


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-p", "builtin.module(nope)"], "error: invalid pass pipeline: 'nope' does not refer"),
        (["-p", "cse", "-dce"], "can't be used with individual pass options"),
        (["-p", "inline{nope=1}"], "invalid options for pass 'inline'"),
        (["--no-such-flag"], "tfrt_opt: error: unrecognized arguments: --no-such-flag"),
    ],
)
def test_bad_command_lines(capsys, write, argv, message):
    code, out, err = run(capsys, write(SIMPLE), *argv)
    assert code == 1 and out == ""
    assert message in err and "Traceback" not in err


def test_missing_input_file(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "absent.mlir"))
    assert code == 1 and out == ""
    assert err == f"error: cannot open input file '{tmp_path / 'absent.mlir'}': No such file or directory\n"


def test_load_pass_plugin(capsys, write):
    path = write(SIMPLE)
    code, out, err = run(capsys, path, "--load-pass-plugin", str(PLUGIN), "-count-ops")
    assert (code, err) == (0, "")
    assert "attributes {tfrt.op_count = 7 : i64}" in out
    code, out, _ = run(capsys, path, f"--load-pass-plugin={PLUGIN}", "-p", "count-ops{attribute=n}")
    assert code == 0 and "attributes {n = 7 : i64}" in out


def test_bad_pass_plugin(capsys, write, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    code, _, err = run(capsys, write(SIMPLE), "--load-pass-plugin", str(broken))
    assert code == 1
    assert err == f"error: cannot load pass plugin '{broken}': RuntimeError: boom\n"


def test_timing_report(capsys, write):
    code, _, err = run(capsys, write(SIMPLE), "-canonicalize", "-cse", "--mlir-timing")
    assert code == 0
    lines = err.splitlines()
    assert lines[0] == "===" + "-" * 73 + "==="
    assert lines[1].strip() == "... Execution time report ..."
    assert lines[3].startswith("  Total Execution Time: ") and lines[3].endswith(" seconds")
    names = [line.split("%)  ")[1] for line in lines[6:]]
    assert names == ["Parser", "Canonicalizer", "Verifier", "CSE", "Output", "Rest", "Total"]
    assert lines[-1].endswith("(100.0%)  Total")


# ---------------------------------------------------------------------------
# Errors, -split-input-file, -verify-diagnostics

SPLIT = """\
func.func @a(%x: i32) -> i32 {
  tfrt.return %x : i32
}

// -----

func.func @b(%x: i32) {
  // expected-error @+1 {{'tfrt.return' op has 1 operands, but enclosing function returns 0}}
  tfrt.return %x : i32
}
// -----
func.func @c() {
  tfrt.return
}
"""


def test_split_chunks_keep_line_numbers():
    chunks = split_chunks(SPLIT)
    assert [offset for _, offset in chunks] == [0, 5, 11]
    for chunk, _ in chunks:
        assert len(chunk.split("\n")) <= len(SPLIT.split("\n"))
    assert chunks[1][0].split("\n")[8] == "  tfrt.return %x : i32"


def test_split_input_file_output_and_errors(capsys, write):
    path = write(SPLIT)
    code, out, err = run(capsys, path, "-split-input-file")
    assert code == 1
    assert out.count("// -----\n") == 1
    assert "func.func @a" in out and "func.func @c" in out and "@b" not in out
    assert err == (
        f"{path}:9:3: error: 'tfrt.return' op has 1 operands, but enclosing function returns 0\n"
        "  tfrt.return %x : i32\n"
        "  ^\n"
    )


def test_verify_diagnostics_success_and_failure(capsys, write):
    code, out, err = run(capsys, write(SPLIT), "-split-input-file", "-verify-diagnostics")
    assert (code, err) == (0, "")
    assert "@a" in out and "@c" in out
    wrong = SPLIT.replace(
        "{{'tfrt.return' op has 1 operands, but enclosing function returns 0}}",
        "{{something else}}",
    )
    code, _, err = run(capsys, write(wrong), "--split-input-file", "--verify-diagnostics")
    assert code == 1
    assert "unexpected error: 'tfrt.return' op has 1 operands" in err
    assert 'expected error "something else" was not produced' in err


def test_verify_diagnostics_matches_parse_errors_with_notes(capsys, write):
    path = write(
        """\
        func.func @f(%x: i32) { // expected-note {{prior use here}}
          // expected-error @+1 {{expects different type than prior uses: 'i64' vs 'i32'}}
          "t.use"(%x) : (i64) -> ()
          tfrt.return
        }
        """
    )
    code, _, err = run(capsys, path, "-verify-diagnostics", "-allow-unregistered-dialect")
    assert (code, err) == (0, "")


def test_parse_error_is_rendered_with_a_caret(capsys, write):
    path = write("func.func @f() {\n  %0 = tfrt.constant.i32 : i32\n}\n")
    code, out, err = run(capsys, path)
    assert code == 1 and out == ""
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:2:") and ": error: " in first
    assert "^" in err and "Traceback" not in err


def test_the_sample_canonicalizes(capsys):
    sample = HERE.parent.parent / "samples" / "hello.mlir"
    code, out, err = run(capsys, str(sample), "-canonicalize")
    assert (code, err) == (0, "")
    assert "tfrt.merge.chains" not in out and "%5" not in out
    assert "%4 = tfrt.print.i32 %3, %2\n    tfrt.return %4 : !tfrt.chain" in out


# ---------------------------------------------------------------------------
# Real processes


def _subprocess(*argv: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run(
        [str(TFRT_OPT), *argv], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )


def test_console_script_pipes(tmp_path):
    first = _subprocess("-", "-canonicalize", stdin=SIMPLE)
    assert first.returncode == 0, first.stderr
    second = _subprocess(stdin=first.stdout)
    assert second.returncode == 0 and second.stdout == first.stdout


def test_console_script_errors_have_no_traceback(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    proc = _subprocess(str(bad))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"{bad}:1:") and "Traceback" not in proc.stderr


def test_help_is_fast_and_does_not_load_the_compiler():
    code = (
        "import sys\n"
        "from tfrt.tools.tfrt_opt import main\n"
        "rc = main(['--help'])\n"
        "print('RC', rc, 'xdsl' in sys.modules, 'tfrt.dialects' in sys.modules, 'lark' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "RC 0 False False False" in proc.stdout
    for name in ("-canonicalize", "-cse", "-dce", "-inline", "--pass-pipeline", "-split-input-file"):
        assert name in proc.stdout
