"""The tensor kernels (tfrt_dht, tfrt_sht, ts, coo, btf, CPU test kernels) run from MLIR."""

from __future__ import annotations

import numpy as np
import pytest

from tfrt.kernels.registry import KernelRegistry, default_registry
from tfrt.tensor import btf

from .pipeline import run_mlir


def test_every_family_is_registered():
    reg = default_registry()
    for name in (
        "tfrt_dht.create_uninitialized_tensor.f32.4", "tfrt_dht.create_uninitialized_tensor.bf16.0",
        "tfrt_dht.fill_tensor_with_constant.complex64", "tfrt_dht.tensor_allclose.1000ulp.f64",
        "tfrt_dht.set_tensor_with_values.i64", "tfrt_dht.print_tensor", "tfrt_sht.create_tensor",
        "ts.build_shape", "ts.print_fixed_rank_shape.3", "coo.convert_dht_to_coo.f32.3",
        "btf.read_dense_tensor.ui8.0", "tfrt_test.max_pooling_2d.f32", "tfrt_tensor.conv2d",
        "tfrt_tensor.to_host",
    ):
        assert name in reg, name
    only_dht = KernelRegistry().add_module("tfrt.kernels.tfrt_dht")
    assert "tfrt_dht.print_tensor" in only_dht and "ts.build_shape" not in only_dht


def test_dense_kernels_print_and_compare():
    run = run_mlir("""
func.func @f() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [2 : i64, 3 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %a, %c0 7 : i32
  %c2 = tfrt_dht.print_tensor %a, %c1
  %c3 = "tfrt_dht.print_tensor_shape"(%a, %c2) : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %b = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c4 = "tfrt_dht.set_tensor_with_constant_values.f32"(%b, %c3) { values = [1.0 : f32, 2.5 : f32, -3.0 : f32] } : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %c5 = tfrt_dht.print_tensor %b, %c4
  %eq, %c6 = tfrt_dht.tensor_equal.i32 %a, %a, %c5
  %c7 = tfrt.print.i1 %eq, %c6
  %close, %c8 = "tfrt_dht.tensor_allclose.f32"(%b, %b, %c7) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %c9 = tfrt.print.i1 %close, %c8
  tfrt.return
}
""")
    assert run.lines == [
        "DenseHostTensor dtype = i32, shape = [2, 3], values = [7, 7, 7, 7, 7, 7]",
        "[2, 3]",
        "DenseHostTensor dtype = f32, shape = [3], values = [1.000000e+00, 2.500000e+00, -3.000000e+00]",
        "int1 = 1",
        "int1 = 1",
    ]
    assert run.diagnostics == []


def test_set_values_count_is_checked():
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %b = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%b, %c0) { values = [1.0 : f32] } : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return %c1 : !tfrt.chain
}
""")
    assert run.diagnostics == [("Incorrect number of values for the tensor: 1, but expected 3", 5)]
    assert run.results["f"][0].error.message == "Incorrect number of values for the tensor: 1, but expected 3"


def test_fill_checks_the_tensor_dtype():
    run = run_mlir("""
func.func @f() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %a, %c0 1 : i32
  tfrt.return
}
""")
    assert run.diagnostics == [("tensor has dtype f32, the kernel expects i32", 5)]


def test_string_tensor():
    run = run_mlir("""
func.func @f() {
  %c0 = tfrt.new.chain
  %a = "tfrt_sht.create_tensor"() {shape = [2], values = ["string", "tensor"]} : () -> !tfrt_tensor.tensor
  %c1 = tfrt_dht.print_tensor %a, %c0
  %b = "tfrt_sht.create_tensor"() {shape = [3], values = ["x"]} : () -> !tfrt_tensor.tensor
  tfrt.return
}
""")
    assert run.lines == ['StringHostTensor shape = [2], values = ["string", "tensor"]']
    assert run.diagnostics == [("Shape mismatch", 6)]


def test_shape_kernels():
    run = run_mlir("""
func.func @f() {
  %ch = tfrt.new.chain
  %a = ts.build_shape [1 : i64, 57 : i64, 92 : i64]
  %c1 = ts.print_shape %a, %ch
  %n = ts.get_num_elements %a
  %c2 = tfrt.print.i64 %n, %c1
  %f = ts.as_fixed_rank_shape.3 %a
  %c3 = ts.print_fixed_rank_shape.3 %f, %c2
  %p = ts.build_partial_shape [-1 : i64, 57 : i64, -1 : i64]
  %c4 = ts.print_partial_shape %p, %c3
  %u = ts.build_unranked_partial_shape
  %c5 = ts.print_partial_shape %u, %c4
  %q = ts.to_partial_shape %a
  %c6 = ts.print_partial_shape %q, %c5
  %e = ts.equal_shape %a, %a
  %c7 = tfrt.print.i1 %e, %c6
  %bad = ts.to_shape %p
  tfrt.return
}
""")
    assert run.lines == [
        "shape = [1, 57, 92]",
        "int64 = 5244",
        "fixed_rank_shape = [1, 57, 92]",
        "partial_tensor_shape = [-1, 57, -1]",
        "partial_tensor_shape = Unknown rank",
        "partial_tensor_shape = [1, 57, 92]",
        "int1 = 1",
    ]
    assert run.diagnostics == [("Unknown dimensions at following indices = [0, 2]", 18)]


def test_coo_kernels():
    run = run_mlir("""
func.func @f() {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %a, %c0 4 : i32
  %s, %c2 = coo.convert_dht_to_coo.i32.2 %a, %c1
  %c3 = tfrt_dht.print_tensor %s, %c2
  %d, %c4 = coo.convert_coo_to_dht.i32.2 %s, %c3
  %c5 = tfrt_dht.print_tensor %d, %c4
  %eq, %c6 = coo.tensor_equal.i32.2 %s, %s, %c5
  %c7 = tfrt.print.i1 %eq, %c6
  %w, %c8 = coo.convert_dht_to_coo.i32.1 %a, %c7
  tfrt.return
}
""")
    assert run.lines[0] == (
        "CooHostTensor dtype = i32, shape = [3, 2], indices = [0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2], "
        "values = [4, 4, 4, 4, 4, 4]"
    )
    assert run.lines[1] == ""  # TFRT's COO print ends with its own newline
    assert run.lines[3] == "int1 = 1"
    assert run.diagnostics == [("tensor i32 [3, 2] does not match the kernel's i32 rank 1", 12)]


@pytest.mark.parametrize("work_queue", ["s", "mstd:2"])
def test_btf_reads_on_the_blocking_queue(tmp_path, work_queue):
    path = tmp_path / "t.btf"
    btf.write(path, [np.array([[1, 2], [3, 4]], np.int32), np.arange(5, dtype=np.int32)])
    run = run_mlir(f"""
func.func @f() {{
  %c0 = tfrt.new.chain
  %path = "tfrt_test.get_string"() {{ value = "{path}" }} : () -> !tfrt.string
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  %t0 = "btf.read_dense_tensor.i32.2"(%path, %zero) : (!tfrt.string, i32) -> (!tfrt_tensor.tensor)
  %c1 = tfrt_dht.print_tensor %t0, %c0
  %t1 = "btf.read_dense_tensor.i32.1"(%path, %one) : (!tfrt.string, i32) -> (!tfrt_tensor.tensor)
  %c2 = tfrt_dht.print_tensor %t1, %c1
  %bad = "btf.read_dense_tensor.f32.1"(%path, %one) : (!tfrt.string, i32) -> (!tfrt_tensor.tensor)
  %missing = "tfrt_test.get_string"() {{ value = "/nonexistent/x.btf" }} : () -> !tfrt.string
  %t3 = "btf.read_dense_tensor.i32.2"(%missing, %zero) : (!tfrt.string, i32) -> (!tfrt_tensor.tensor)
  tfrt.return
}}
""", work_queue=work_queue)
    assert run.lines == [
        "DenseHostTensor dtype = i32, shape = [2, 2], values = [1, 2, 3, 4]",
        "DenseHostTensor dtype = i32, shape = [5], values = [0, 1, 2, 3, 4]",
    ]
    assert sorted(run.diagnostics) == [
        ("failed to open file /nonexistent/x.btf for reading", 13),
        ("unexpected tensor dtype 2. Expected dtype is 4", 11),
    ]


def test_max_pooling_and_flatten():
    run = run_mlir("""
func.func @f() {
  %ch0 = tfrt.new.chain
  %in = "tfrt_dht.create_uninitialized_tensor.f32.4"() { shape = [1 : i64, 4 : i64, 4 : i64, 1 : i64] } : () -> !tfrt_tensor.tensor
  %ch1 = "tfrt_dht.set_tensor_with_constant_values.f32"(%in, %ch0) { values = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32, 7.0 : f32, 8.0 : f32, 9.0 : f32, 10.0 : f32, 11.0 : f32, 12.0 : f32, 13.0 : f32, 14.0 : f32, 15.0 : f32, 16.0 : f32] } : (!tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %out = "tfrt_dht.create_uninitialized_tensor.f32.4"() { shape = [1 : i64, 2 : i64, 2 : i64, 1 : i64] } : () -> !tfrt_tensor.tensor
  %ch2 = "tfrt_test.max_pooling_2d.f32"(%in, %out, %ch1) { padding = "valid", pool_size = [2 : i32, 2 : i32], strides = [2 : i32, 2 : i32] } : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %flat = "tfrt_dht.create_uninitialized_tensor.f32.2"() { shape = [1 : i64, 4 : i64] } : () -> !tfrt_tensor.tensor
  %ch3 = "tfrt_test.flatten.f32"(%out, %flat, %ch2) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %ch4 = tfrt_dht.print_tensor %flat, %ch3
  %same = "tfrt_dht.create_uninitialized_tensor.f32.4"() { shape = [1 : i64, 2 : i64, 2 : i64, 1 : i64] } : () -> !tfrt_tensor.tensor
  %ch5 = "tfrt_test.max_pooling_2d.f32"(%in, %same, %ch4) { padding = "same", pool_size = [3 : i32, 3 : i32], strides = [2 : i32, 2 : i32] } : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %ch6 = tfrt_dht.print_tensor %same, %ch5
  %ch7 = "tfrt_test.max_pooling_2d.f32"(%in, %out, %ch6) { padding = "invalid", pool_size = [2 : i32, 2 : i32], strides = [2 : i32, 2 : i32] } : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  %ch8 = "tfrt_test.max_pooling_2d.f32"(%in, %flat, %ch6) { padding = "valid", pool_size = [2 : i32, 2 : i32], strides = [2 : i32, 2 : i32] } : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}
""")
    assert run.lines == [
        "DenseHostTensor dtype = f32, shape = [1, 4], values = [6.000000e+00, 8.000000e+00, "
        "1.400000e+01, 1.600000e+01]",
        # SAME, 3x3 windows, stride 2 on 4x4: TFRT pads 0 before and 1 after.
        "DenseHostTensor dtype = f32, shape = [1, 2, 2, 1], values = [1.100000e+01, 1.200000e+01, "
        "1.500000e+01, 1.600000e+01]",
    ]
    assert run.diagnostics == [
        ("MaxPool2D padding 'invalid' is not recognized", 14),
        ("MaxPool2D output must have rank 4, got shape [1, 4]", 15),
    ]


def test_uninitialized_tensors_are_charged_to_the_host_allocator():
    run = run_mlir("""
func.func @f() {
  %x0 = tfrt_dht.create_uninitialized_tensor.f32.1 [32 : i64]
  %x1 = tfrt_dht.create_uninitialized_tensor.f32.1 [32 : i64]
  %x2 = tfrt_dht.create_uninitialized_tensor.f32.1 [1024 : i64]
  tfrt.return
}
""", allocator="test_fixed_size_1k")
    assert run.diagnostics == [("Cannot allocate tensor", 5)]
