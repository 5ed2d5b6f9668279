"""bef_executor --function/--input/--output: calling one function with arguments
the way iree-run-module does."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BIN = Path(sys.executable).parent

MLP = """
func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %s: f32, %n: index) -> (tensor<2x2xf32>, f32, index) {
  %e = tensor.empty() : tensor<2x2xf32>
  %z = arith.constant 0.0 : f32
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%i : tensor<2x2xf32>) -> tensor<2x2xf32>
  %t = arith.mulf %s, %s : f32
  %m = arith.addi %n, %n : index
  return %r, %t, %m : tensor<2x2xf32>, f32, index
}

func.func @get(%t: tensor<4xi32>, %i: index) -> i32 {
  %v = tensor.extract %t[%i] : tensor<4xi32>
  return %v : i32
}
"""


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text(MLP)
    return path


def _run(*args, cwd=None):
    return subprocess.run([str(BIN / "bef_executor"), *map(str, args)], capture_output=True, text=True, cwd=cwd)


def test_inputs_and_printed_results(src, tmp_path):
    w = tmp_path / "w.npy"
    np.save(w, np.arange(6, dtype=np.float32).reshape(3, 2))
    out = _run(src, "--function=f", "--input=2x3xf32=1,0,0,0,1,1", f"--input=@{w}", "--input=f32=1.5", "--input=4")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "EXEC @f\n"
        "result[0]: hal.buffer_view\n"
        "2x2xf32=[0 1][6 8]\n"
        "result[1]: f32=2.25\n"
        "result[2]: i64=8\n"
    )
    assert out.stderr == ""


def test_outputs_to_npy_and_compiled_bef(src, tmp_path):
    bef = tmp_path / "m.bef"
    subprocess.run([str(BIN / "tfrt_compile"), str(src), "-o", str(bef)], check=True)
    y = tmp_path / "y.npy"
    out = _run(bef, "--function", "f", "--input=2x3xf32=1", "--input=3x2xf32=2", "--input=0", "--input=1",
               f"--output=@{y}", "--output=", "--output=-")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "EXEC @f\nresult[2]: i64=2\n"
    np.testing.assert_array_equal(np.load(y), np.full((2, 2), 6, np.float32))


@pytest.mark.parametrize(
    "args,message",
    [
        (["--function=g"], "no function named 'g' (have: f, get)"),
        (["--function=f", "--input=2x3xf32=1"], "'f' takes 4 arguments (tensor<2x3xf32>, tensor<3x2xf32>, f32, i64), 1 --input given"),
        (["--function=f", "--input=2x2xf32=1", "--input=3x2xf32=1", "--input=1", "--input=1"],
         "--input #0 ('2x2xf32=1'): the function takes tensor<2x3xf32>, got 2x2xf32"),
        (["--function=get", "--input=4xi32=1,2,3", "--input=1"], "--input #0 ('4xi32=1,2,3'): 4xi32 needs 4 values, got 3"),
        (["--function=get", "--input=@missing.npy", "--input=1"], "cannot open 'missing.npy'"),
        (["--input=4xi32=1"], "--input and --output need --function=NAME"),
        (["--function=get", "--input=4xi32=1", "--input=1", "--output=#y"], "expected -, @file.npy or +file.npy"),
        (["--function=get", "--input=4xi32=1", "--input=1", "--output=@nodir/y.npy"],
         "--output #0 ('@nodir/y.npy'): no directory 'nodir'"),
    ],
)
def test_bad_arguments_are_reported(src, tmp_path, args, message):
    out = _run(src, *args, cwd=tmp_path)
    assert out.returncode == 1
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    # Nothing ran: a bad argument is found before the function is called.
    assert "EXEC" not in out.stdout


def test_an_npz_archive_is_not_an_npy_input(src, tmp_path):
    np.savez(tmp_path / "t.npz", t=np.arange(4, dtype=np.int32))
    out = _run(src, "--function=get", "--input=@t.npz", "--input=1", cwd=tmp_path)
    assert out.returncode == 1
    assert "--input #0 ('@t.npz'): 't.npz' is an .npz archive" in out.stderr
    assert "Traceback" not in out.stderr


def test_runtime_error_points_at_the_source_op(src):
    out = _run(src, "--function=get", "--input=4xi32=1,2,3,4", "--input=9")
    assert out.returncode == 1
    assert f"{src}:13:3: error: runtime error: tfrt_array.extract: index 9 is out of bounds" in out.stderr
    assert "tensor.extract %t[%i]" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="SIGPIPE")
def test_a_reader_that_closes_the_pipe_early_gets_no_error(tmp_path):
    """`bef_executor prog | head -1`: the tool stops quietly, as C tools do."""
    src = tmp_path / "loop.mlir"
    src.write_text(
        "func.func @main() {\n"
        "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        "  %n = arith.constant 100000 : index\n"
        "  scf.for %i = %c0 to %n step %c1 {\n"
        '    printf.print_format "line {}\\n", %i : index\n'
        "  }\n  return\n}\n"
    )
    proc = subprocess.Popen([str(BIN / "bef_executor"), str(src)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, as `head -1` does
    err = proc.stderr.read()
    proc.wait(timeout=120)
    assert first  # the driver's first line
    assert err == b"", err.decode()
    assert proc.returncode in (0, -13)  # done, or ended by SIGPIPE


# ---------------------------------------------------------------------------
# --benchmark

_LATENCY = re.compile(
    r"  latency     min ([0-9.,]+) ms   median ([0-9.,]+) ms   p99 ([0-9.,]+) ms   mean ([0-9.,]+) ms\n"
)


def _numbers(stdout: str) -> list[float]:
    match = _LATENCY.search(stdout)
    assert match, stdout
    return [float(v.replace(",", "")) for v in match.groups()]


def test_benchmark_prints_results_once_then_latency_and_throughput(src):
    out = _run(src, "--function=get", "--input=4xi32=5,6,7,8", "--input=2", "--benchmark=30",
               "--benchmark_warmup=3")  # fmt: skip
    assert out.returncode == 0, out.stderr
    head, bench = out.stdout.split("BENCHMARK", 1)
    assert head == "EXEC @get\nresult[0]: i32=7\n"
    assert bench.startswith(" @get: 30 calls after 3 warm-up, work queue s\n  first call  ")
    lo, median, p99, mean = _numbers(out.stdout)
    assert 0 < lo <= median <= p99 and lo <= mean <= p99
    assert re.search(r"  throughput  [0-9,.]+ calls/s\n$", out.stdout)
    assert out.stderr == ""


def test_benchmark_runs_the_function_first_plus_warmup_plus_n_times(tmp_path):
    """Each call prints once: 1 + 4 warm-up + 7 timed."""
    src = tmp_path / "p.mlir"
    src.write_text(
        "func.func @p() -> !tfrt.chain {\n"
        "  %ch0 = tfrt.new.chain\n  %x = tfrt.constant.i32 5\n"
        "  %ch1 = tfrt.print.i32 %x, %ch0\n  tfrt.return %ch1 : !tfrt.chain\n}\n"
    )
    for queue in ("s", "mstd:2"):
        out = _run(src, "--benchmark=7", "--benchmark_warmup=4", f"--work_queue_type={queue}")
        assert out.returncode == 0, out.stderr
        assert out.stdout.count("int32 = 5\n") == 12, out.stdout
        assert f"BENCHMARK @p: 7 calls after 4 warm-up, work queue {queue}\n" in out.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--benchmark"], "--benchmark needs --function=NAME (have: f, get)"),
        (["--function=get", "--benchmark=0"], "--benchmark takes a positive number of calls, not '0'"),
        (["--function=get", "--benchmark=many"], "--benchmark takes a positive number of calls, not 'many'"),
        (["--function=get", "--benchmark", "--benchmark_warmup=-1"],
         "--benchmark_warmup takes a non-negative number of calls, not '-1'"),
        (["--functions=get", "--benchmark"], "--benchmark measures one function: name it with --function"),
    ],
)
def test_bad_benchmark_arguments_are_reported(src, args, message):
    out = _run(src, *args)
    assert out.returncode == 1
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert "BENCHMARK" not in out.stdout


def test_benchmark_stops_at_a_failing_first_call(src):
    out = _run(src, "--function=get", "--input=4xi32=1,2,3,4", "--input=9", "--benchmark=5")
    assert out.returncode == 1
    assert "index 9 is out of bounds" in out.stderr
    assert "BENCHMARK" not in out.stdout
    assert "Traceback" not in out.stderr
