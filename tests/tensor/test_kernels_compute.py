"""The device-dispatched ``tfrt_tensor.*`` kernels, run from MLIR through the executor."""

from __future__ import annotations

import gc

import pytest

from tfrt.devices import get_device
from tfrt.devices.ops import OPS
from tfrt.kernels.registry import default_registry
from tfrt.kernels.tfrt_tensor import ATTR_KINDS

from .pipeline import run_mlir

PROGRAM = """
func.func @main() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = "tfrt_tensor.constant"() {value = dense<[[1.0, -2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> !tfrt_tensor.tensor
  %d = "tfrt_tensor.to_device"(%a) {device = "DEVICE"} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %m = "tfrt_tensor.matmul"(%d, %d) {transpose_a = false, transpose_b = true} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %r = "tfrt_tensor.relu"(%m) : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %s = "tfrt_tensor.reduce_sum"(%r) {axes = [1], keepdims = false} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %t = "tfrt_tensor.transpose"(%r) {perm = [1, 0]} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %k = "tfrt_tensor.concat"(%r, %t) {axis = 0} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %i = "tfrt_tensor.cast"(%k) {dtype = i32} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %h1 = "tfrt_tensor.to_host"(%s) : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %h2 = "tfrt_tensor.to_host"(%i) : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %c1 = tfrt_dht.print_tensor %h1, %c0
  %c2 = tfrt_dht.print_tensor %h2, %c1
  tfrt.return %c2 : !tfrt.chain
}
"""


def test_every_op_has_a_kernel_with_declared_attribute_kinds():
    reg = default_registry()
    for name, spec in OPS.items():
        kdef = reg.get("tfrt_tensor." + name)
        assert kdef is not None, name
        assert kdef.attrs == tuple(ATTR_KINDS[a] for a in sorted(spec.attrs))


@pytest.mark.parametrize("device", ["cpu", "cpu_async"])
@pytest.mark.parametrize("work_queue", ["s", "mstd:2"])
def test_program_runs_on_a_device(device, work_queue):
    run = run_mlir(PROGRAM.replace("DEVICE", device), work_queue=work_queue)
    assert run.diagnostics == []
    assert run.lines == [
        "DenseHostTensor dtype = f32, shape = [2], values = [5.000000e+00, 2.500000e+01]",
        "DenseHostTensor dtype = i32, shape = [4, 2], values = [5, 0, 0, 25, 5, 0, 0, 25]",
    ]


def test_null_device_runs_the_same_program_without_computing():
    null = get_device("null")
    null.clear()
    run = run_mlir(PROGRAM.replace("DEVICE", "null"))
    assert run.diagnostics == []
    assert run.lines == [
        "DenseHostTensor dtype = f32, shape = [2], values = [0.000000e+00, 0.000000e+00]",
        "DenseHostTensor dtype = i32, shape = [4, 2], values = [0, 0, 0, 0, 0, 0, 0, 0]",
    ]
    ops = [c[1] for c in null.calls if c[0] == "op"]
    # Independent ops run in stream order, not block order: compare the set.
    assert sorted(ops) == sorted(["matmul", "relu", "reduce_sum", "transpose", "concat", "cast"])


def test_op_errors_are_reported_at_the_kernel():
    # %b's shape is not known at compile time (the dialect's verifier would
    # reject the add of two constants): the error comes from the kernel.
    run = run_mlir("""
func.func @f() -> !tfrt_tensor.tensor {
  %a = "tfrt_tensor.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> !tfrt_tensor.tensor
  %b = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c = "tfrt_tensor.add"(%a, %b) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %d = "tfrt_tensor.relu"(%c) : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %e = "tfrt_tensor.to_device"(%a) {device = "tpu:0"} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  tfrt.return %d : !tfrt_tensor.tensor
}
""")
    # Independent kernels: the executor picks their order.
    diags = sorted(run.diagnostics, key=lambda d: d[1])
    assert diags[0] == ("add: shapes [3] and [2] are not broadcast-compatible", 5)
    assert diags[1][0].startswith("unknown device kind 'tpu'")
    assert diags[1][1] == 7
    # The relu was skipped: the error flowed to the result without a second report.
    assert run.results["f"][0].error.message == "add: shapes [3] and [2] are not broadcast-compatible"


def test_conv_pool_batchnorm_softmax_program():
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %x = "tfrt_tensor.constant"() {value = dense<1.0> : tensor<1x4x4x2xf32>} : () -> !tfrt_tensor.tensor
  %w = "tfrt_tensor.constant"() {value = dense<0.5> : tensor<3x3x2x3xf32>} : () -> !tfrt_tensor.tensor
  %y = "tfrt_tensor.conv2d"(%x, %w) {dilations = [1, 1], padding = "SAME", strides = [1, 1]} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %p = "tfrt_tensor.max_pool"(%y) {ksize = [2, 2], padding = "VALID", strides = [2, 2]} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %one = "tfrt_tensor.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> !tfrt_tensor.tensor
  %zero = "tfrt_tensor.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> !tfrt_tensor.tensor
  %n = "tfrt_tensor.batch_norm"(%p, %one, %zero, %zero, %one) {epsilon = 0.0 : f32} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %f = "tfrt_tensor.reshape"(%n) {shape = [1, -1]} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %s = "tfrt_tensor.softmax"(%f) {axis = -1} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %am = "tfrt_tensor.argmax"(%s) {axis = 1} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %c1 = tfrt_dht.print_tensor %p, %c0
  %c2 = tfrt_dht.print_tensor %am, %c1
  tfrt.return %c2 : !tfrt.chain
}
""")
    assert run.diagnostics == []
    # Every 2x2 pooling window holds an interior position: 3x3 taps of 2 channels x 0.5.
    assert run.lines[0] == (
        "DenseHostTensor dtype = f32, shape = [1, 2, 2, 3], values = ["
        + ", ".join(["9.000000e+00"] * 12) + "]"
    )
    assert run.lines[1] == "DenseHostTensor dtype = i64, shape = [1], values = [0]"


def test_registers_release_device_memory_after_their_last_use():
    dev = get_device("cpu_async")
    gc.collect()
    dev.synchronize()
    base = dev.memory_stats().bytes_in_use
    dev.allocator.reset_peak()
    body = "\n".join(
        f'  %r{i + 1} = "tfrt_tensor.relu"(%r{i}) : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor'
        for i in range(30)
    )
    run = run_mlir(f"""
func.func @f() -> !tfrt.chain {{
  %c0 = tfrt.new.chain
  %a = "tfrt_tensor.constant"() {{value = dense<1.0> : tensor<256x256xf32>}} : () -> !tfrt_tensor.tensor
  %r0 = "tfrt_tensor.to_device"(%a) {{device = "cpu_async"}} : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
{body}
  %h = "tfrt_tensor.to_host"(%r30) : (!tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  %c1 = tfrt_dht.print_tensor %h, %c0
  tfrt.return %c1 : !tfrt.chain
}}
""")
    assert run.lines[0].startswith("DenseHostTensor dtype = f32, shape = [256, 256], values = [1.000000e+00")
    peak = dev.memory_stats().peak_bytes_in_use - base
    assert peak <= 3 * 256 * 256 * 4, peak  # a couple of live tensors, not 31
    del run
    gc.collect()
    dev.synchronize()
    assert dev.memory_stats().bytes_in_use == base
