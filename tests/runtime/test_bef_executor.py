"""The bef_executor driver: flags, output formats, diagnostics verification, tracing, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfrt.tools import bef_executor as be

EXE = str(Path(sys.executable).parent / "bef_executor")

PROGRAM = """\
func.func @first() -> i32 {
  %x = tfrt.constant.i32 1
  tfrt.return %x : i32
}

func.func @second() -> !tfrt.chain {
  %ch = tfrt.new.chain
  %ch1 = "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch1 : !tfrt.chain
}

func.func @init() {
  %ch = tfrt.new.chain
  %s = "tfrt_test.get_string"() { value = "init!" } : () -> !tfrt.string
  "tfrt_test.print_string"(%s, %ch) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}
"""

ERRORS = """\
func.func @fails() -> i32 {
  %x = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  %q, %r = tfrt.div.i32 %x, %zero
  tfrt.return %q : i32
}
"""


def compile_bef(text: str, path: Path) -> Path:
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    path.write_text(text)
    bef = path.with_suffix(".bef")
    bef.write_bytes(write_bef(parse_module(text, str(path), allow_unregistered=True)))
    return bef


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], input=stdin, capture_output=True, timeout=120, cwd=cwd)


def test_parse_args_accepts_llvm_spellings():
    o = be.parse_args(["-work_queue_type=mstd:4", "--functions", "a,b", "--functions=c",
                       "-test_init_function=i", "--print_error_code", "x.bef"])
    assert o.work_queue_type == "mstd:4" and o.functions == ["a", "b", "c"]
    assert o.test_init_function == "i" and o.print_error_code and o.input == "x.bef"
    assert be.parse_args([]).input == "-"
    for bad in (["--nope"], ["--functions"], ["a", "b"], ["--print_error_code=maybe"]):
        with pytest.raises(be.UsageError):
            be.parse_args(bad)


def test_value_formats():
    assert be.format_value("i1", True) == "1"
    assert be.format_value("i64", -3) == "-3"
    assert be.format_value("f32", 1.0) == "1.000000e+00"
    assert be.format_value("f64", float("nan")) == "nan"
    assert be.format_value("f64", float("-inf")) == "-INF"
    assert be.format_value("!tfrt.chain", object()) == "!tfrt.chain value"


def test_runs_functions_in_order_with_init_and_selection(tmp_path):
    bef = compile_bef(PROGRAM, tmp_path / "p.mlir")
    proc = run(str(bef))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines() == [
        "Choosing memory leak check allocator.",
        "Choosing single-threaded work queue.",
        "--- Running 'first':",
        "'first' returned 1",
        "--- Running 'second':",
        "hello host executor!",
        "'second' returned !tfrt.chain value",
        "--- Running 'init':",
        "string = init!",
    ]
    proc = run("--functions=second,first", "--test_init_function", "init", "-", stdin=bef.read_bytes())
    lines = proc.stdout.decode().splitlines()
    assert lines[2:] == [
        "--- Running 'init':", "string = init!",
        "--- Running 'second':", "hello host executor!", "'second' returned !tfrt.chain value",
        "--- Running 'first':", "'first' returned 1",
    ]
    proc = run("--functions=missing", str(bef))
    assert proc.returncode == 1 and b"couldn't find function missing" in proc.stderr


def test_banners_for_queues_and_allocators(tmp_path):
    bef = compile_bef(PROGRAM, tmp_path / "p.mlir")
    proc = run("-work_queue_type=mstd:3", "--host_allocator_type=malloc", str(bef))
    lines = proc.stdout.decode().splitlines()
    assert lines[:2] == [
        "Choosing malloc.",
        "Choosing Multi-threaded C++ work queue (3 threads, 256 blocking threads) work queue.",
    ]
    proc = run("--work_queue_type=bogus", str(bef))
    assert proc.returncode == 1 and b"couldn't create work queue type bogus" in proc.stderr


def test_unexpected_runtime_error_prints_source_and_fails(tmp_path):
    bef = compile_bef(ERRORS, tmp_path / "e.mlir")
    proc = run(str(bef), cwd=tmp_path)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "e.mlir:4:3: error: unexpected error: runtime error: Divide by zero" in err
    assert "  %q, %r = tfrt.div.i32 %x, %zero\n  ^" in err
    assert "'fails' returned <<error: Divide by zero>>" in proc.stdout.decode()


def test_expected_errors_are_verified(tmp_path):
    text = ERRORS.replace("  %q, %r", "  // expected-error @+1 {{runtime error: Divide by zero}}\n  %q, %r")
    bef = compile_bef(text, tmp_path / "e.mlir")
    proc = run(str(bef), cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == b""
    text = text.replace("tfrt.constant.i32 0", "tfrt.constant.i32 1")
    text = text.replace("func.func @fails", "func.func @works")
    bef = compile_bef(text + ERRORS.replace("@fails", "@other"), tmp_path / "e.mlir")
    proc = run(str(bef), cwd=tmp_path)
    assert proc.returncode == 1
    assert b'expected error "runtime error: Divide by zero" was not produced' in proc.stderr


def test_unknown_kernel_reported_at_its_op(tmp_path):
    text = 'func.func @f() {\n  // expected-error @+1 {{unknown kernel name \'no.such.kernel\'}}\n  "no.such.kernel"() : () -> ()\n  tfrt.return\n}\n'
    bef = compile_bef(text, tmp_path / "u.mlir")
    proc = run(str(bef), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert b"Running" not in proc.stdout  # nothing runs after a failed load


def test_memory_leak_is_reported(tmp_path):
    text = 'func.func @leak() {\n  "tfrt_test.memory_leak_one_int32"() : () -> ()\n  tfrt.return\n}\n'
    bef = compile_bef(text, tmp_path / "m.mlir")
    proc = run(str(bef))
    assert proc.returncode == 1
    assert b"Memory leak detected: 1 alive allocations, 4 alive bytes\n" in proc.stdout


def test_bad_input_is_a_clear_error(tmp_path):
    proc = run(str(tmp_path / "missing.bef"))
    assert proc.returncode == 1 and b"could not open input file" in proc.stderr
    assert b"Traceback" not in proc.stderr
    proc = run("-", stdin=b"\x0b\xef\x00\x05\xff")
    assert proc.returncode == 1 and b"invalid BEF file" in proc.stderr
    assert b"Traceback" not in proc.stderr


def test_mlir_input_is_compiled_in_memory(tmp_path):
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)
    proc = run(str(src), "--functions=first")
    assert proc.returncode == 0 and b"'first' returned 1" in proc.stdout


def test_debug_tracing_scopes_come_last(tmp_path):
    bef = compile_bef(PROGRAM, tmp_path / "p.mlir")
    proc = run("--enable_tracing", "--tracing_level=debug", "--functions=second", str(bef))
    lines = proc.stdout.decode().splitlines()
    assert lines[-8:] == [
        "Scope:Bef Executor",
        "Scope:Function: second",
        "Scope:tfrt.new.chain",
        "End Scope",
        "Scope:tfrt_test.print_hello",
        "End Scope",
        "End Scope",
        "End Scope",
    ]
    assert lines.index("hello host executor!") < lines.index("Scope:Bef Executor")


def test_chrome_trace_has_one_event_per_kernel(tmp_path):
    bef = compile_bef(PROGRAM, tmp_path / "p.mlir")
    trace = tmp_path / "t.json"
    proc = run(f"--trace={trace}", str(bef))
    assert proc.returncode == 0, proc.stderr
    events = [e for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"]
    names = sorted(e["name"] for e in events)
    assert names == sorted(["tfrt.constant.i32", "tfrt.new.chain", "tfrt_test.print_hello",
                            "tfrt.new.chain", "tfrt_test.get_string", "tfrt_test.print_string"])
    hello = next(e for e in events if e["name"] == "tfrt_test.print_hello")
    assert hello["args"]["location"].endswith("p.mlir:8:3")
    assert hello["dur"] >= 0 and "tid" in hello and "ts" in hello
