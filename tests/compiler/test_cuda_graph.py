"""CUDA graphs (``tfrt_compile --device=gpu --cuda-graph``) and device constants.

Each program runs compiled for the GPU with and without ``--cuda-graph``;
the results must be equal, call after call, with new inputs each time.  On
the CuPy stand-in (tests/compiler/cupy_standin.py) stream capture records
each device operation instead of running it, refuses what a capturing
stream refuses (waiting on the device, reading a device value on the
host), and a graph launch runs the recorded operations again over the same
arrays, as a CUDA graph replays its kernels over the same addresses.  With
a GPU and CuPy the same tests run on the real thing.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import tfrt.api
from gpu_fixture import gpu  # noqa: F401 - the fixture
from tfrt.kernels.tfrt_array_gpu import graph_status
from tfrt.passes.compiler import compile_text_to_bef

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(7)


def _standin(mod) -> bool:
    return getattr(mod, "IS_STANDIN", False)


def _load(text: str, cuda_graph: bool, **kwargs):
    return tfrt.api.load(compile_text_to_bef(text, "t.mlir", device="gpu", cuda_graph=cuda_graph, **kwargs))


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _same_over_calls(text: str, name: str, make_args, calls: int = 5, exact: bool = True):
    """Both programs, ``calls`` times with new arguments; returns the graph program."""
    exact = exact and _standin(sys.modules["cupy"])  # cuBLAS may pick other algorithms in a graph
    plain, graphed = _load(text, False), _load(text, True)
    try:
        for _ in range(calls):
            args = make_args()
            want = plain.call(name, *args)
            got = graphed.call(name, *args)
            want, got = (list(v) if isinstance(v, tuple) else [v] for v in (want, got))
            for w, g in zip(want, got, strict=True):
                assert type(g) is np.ndarray and g.dtype == w.dtype and g.shape == w.shape
                if exact:
                    np.testing.assert_array_equal(g, w)
                else:
                    np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    finally:
        plain.close()
    return graphed


def test_an_mlp_is_captured_once_and_replayed(gpu):
    text = (ROOT / "samples" / "mlp_linalg.mlir").read_text()
    prog = _same_over_calls(text, "mlp", lambda: [_f32(2, 4)], calls=6)
    status = graph_status(prog.bef_program.function("mlp.cuda_graph"))
    assert status == {"calls": 1, "graphs": 1, "not_capturable": None}
    if _standin(gpu):
        gpu.launches.clear()
        prog.call("mlp", _f32(2, 4))
        # Calls 2 to 7 replayed the graph; the two fused epilogues ran once each.
        assert gpu.graphs == {"captured": 1, "launched": 6} and sum(gpu.launches.values()) == 2
    prog.close()


def test_constants_cross_to_the_device_once(gpu):
    if not _standin(gpu):
        pytest.skip("counts transfers on the stand-in")
    text = (ROOT / "samples" / "mlp_linalg.mlir").read_text()
    for cuda_graph in (False, True):
        prog = _load(text, cuda_graph)
        prog.call("mlp", _f32(2, 4))
        first = gpu.transfers["to_device"]
        assert first == 5  # the argument and four weights
        for _ in range(3):
            prog.call("mlp", _f32(2, 4))
        assert gpu.transfers["to_device"] == first + 3  # only the arguments again
        gpu.transfers.clear()
        prog.close()


SCALED = """
func.func @f(%x: tensor<3x4xf32>, %k: f32) -> (tensor<3x4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<3x4xf32>
  %splat = linalg.fill ins(%k : f32) outs(%e : tensor<3x4xf32>) -> tensor<3x4xf32>
  %m = arith.mulf %x, %splat : tensor<3x4xf32>
  %t = math.tanh %m : tensor<3x4xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%t : tensor<3x4xf32>) outs(%acc : tensor<4xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  return %t, %s : tensor<3x4xf32>, tensor<4xf32>
}
"""


def test_each_set_of_scalar_operands_has_its_own_graph(gpu):
    """A scalar operand is baked into the launches that use it."""
    ks = iter([0.5, 0.5, 2.0, 2.0, 0.5, -1.0, 2.0])
    prog = _same_over_calls(SCALED, "f", lambda: [_f32(3, 4), np.float32(next(ks))], calls=7, exact=False)
    status = graph_status(prog.bef_program.function("f.cuda_graph"))
    assert status["graphs"] == 3 and status["not_capturable"] is None
    prog.close()


READS_ON_THE_HOST = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %y = math.exp %x : tensor<4xf32>
  %v = tensor.extract %y[%c0] : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %splat = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = arith.addf %y, %splat : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_a_body_that_waits_on_the_device_runs_uncaptured(gpu):
    """tensor.extract copies a device value to the host: no capture can hold
    that, so the function keeps running as it is, with the right results."""
    prog = _same_over_calls(READS_ON_THE_HOST, "f", lambda: [_f32(4)], calls=4)
    status = graph_status(prog.bef_program.function("f.cuda_graph"))
    assert status["graphs"] == 0 and status["not_capturable"], status
    prog.close()


def test_concurrent_calls_get_their_own_results(gpu):
    text = (ROOT / "samples" / "mlp_linalg.mlir").read_text()
    plain, graphed = _load(text, False), _load(text, True)
    inputs = [_f32(2, 4) for _ in range(24)]
    want = [plain.call("mlp", x) for x in inputs]
    graphed.call("mlp", inputs[0])  # warm-up
    got: list = [None] * len(inputs)

    def worker(i0: int) -> None:
        for i in range(i0, len(inputs), 4):
            got[i] = graphed.call("mlp", inputs[i])

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    plain.close()
    graphed.close()


def test_a_resnet_runs_as_one_graph(gpu):
    """A small ResNet (ResNet-50's blocks, one per stage, narrower): convolutions
    with fused epilogues, poolings and the final GEMM, all in one graph."""
    pytest.importorskip("onnx")
    sys.path.insert(0, str(ROOT / "tests" / "onnx"))
    import onnx_models

    from tfrt.tools.import_onnx import import_onnx

    text = import_onnx(onnx_models.resnet50(size=32, classes=10, widths=(8, 16, 32, 64), blocks=(1, 1, 1, 1)))
    prog = _same_over_calls(text, "main", lambda: [_f32(1, 3, 32, 32)], calls=3)
    status = graph_status(prog.bef_program.function("main.cuda_graph"))
    assert status == {"calls": 1, "graphs": 1, "not_capturable": None}
    prog.close()


RECURSIVE = """
func.func @f(%x: tensor<3xf32>, %n: i32) -> tensor<3xf32> {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r:2 = scf.while (%i = %zero, %acc = %x) : (i32, tensor<3xf32>) -> (i32, tensor<3xf32>) {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i, %acc : i32, tensor<3xf32>
  } do {
  ^bb0(%j: i32, %a: tensor<3xf32>):
    %s = func.call @f(%a, %j) : (tensor<3xf32>, i32) -> tensor<3xf32>
    %a2 = arith.addf %s, %x : tensor<3xf32>
    %j2 = arith.addi %j, %one : i32
    scf.yield %j2, %a2 : i32, tensor<3xf32>
  }
  return %r#1 : tensor<3xf32>
}
"""


def test_a_function_calling_itself_is_captured_or_run_never_deadlocked(gpu):
    """The capture of @f meets a call of @f (another scalar operand): that
    call is part of the capture, not a capture of its own under the same lock."""
    x = np.arange(3, dtype=np.float32)
    cpu = tfrt.api.load(compile_text_to_bef(RECURSIVE, "t.mlir"))
    prog = _load(RECURSIVE, True)
    out: list = []

    def calls():
        for n in (0, 2, 2, 3):
            out.append((prog.call("f", x, np.int32(n)), cpu.call("f", x, np.int32(n))))

    t = threading.Thread(target=calls, daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "the calls hung"
    assert len(out) == 4
    for got, want in out:
        np.testing.assert_allclose(got, want, rtol=1e-6)
    prog.close()
    cpu.close()


def test_concurrent_first_calls_leave_the_function_capturable(gpu):
    """A capture waits for a warm-up call to have finished (constants on the
    device, kernels compiled): calls that start together run as they are."""
    text = (ROOT / "samples" / "mlp_linalg.mlir").read_text()
    for _ in range(3):
        prog = _load(text, True)
        barrier = threading.Barrier(4)

        def worker():
            barrier.wait()
            for _ in range(3):
                prog.call("mlp", _f32(2, 4))

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        status = graph_status(prog.bef_program.function("mlp.cuda_graph"))
        assert status["graphs"] == 1 and status["not_capturable"] is None, status
        prog.close()


def test_empty_tensors_replay(gpu):
    text = """
func.func @f(%x: tensor<0x3xf32>, %y: tensor<3xf32>) -> (tensor<0x3xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<0x3xf32>
  %b = linalg.broadcast ins(%y : tensor<3xf32>) outs(%e : tensor<0x3xf32>) dimensions = [0]
  %s = arith.addf %x, %b : tensor<0x3xf32>
  %t = math.exp %y : tensor<3xf32>
  return %s, %t : tensor<0x3xf32>, tensor<3xf32>
}
"""
    prog = _same_over_calls(text, "f", lambda: [_f32(0, 3), _f32(3)], calls=4, exact=False)
    prog.close()


def test_host_operands_key_graphs_by_value(gpu):
    """A host operand (a scalar, or a host array) is baked into the launches
    that read it: graphs are told apart by its value, device arrays by shape."""
    from tfrt.kernels.tfrt_array_gpu import _key

    a, b = np.zeros(3, np.float32), np.ones(3, np.float32)
    assert _key([a]) != _key([b]) and _key([a]) == _key([a.copy()])
    assert _key([np.float32(1)]) != _key([np.float32(2)])
    assert _key([gpu.asarray(a)]) == _key([gpu.asarray(b)])
