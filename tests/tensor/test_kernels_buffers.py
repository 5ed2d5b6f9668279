"""Host buffers and the kernels around them: `tfrt_dht.allocate_buffer`,
`get_buffer`, `get_buffer_slice`, `print_buffer`, `make_tensor.<t>`; also the
ui16 tensor kernels, `ts.*_fixed_rank_shape.0` and `coo.print_tensor`."""

from __future__ import annotations

import re

import numpy as np

from .pipeline import run_mlir


def test_tensors_share_the_memory_of_buffers_and_slices():
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %size = tfrt.constant.i64 24
  %align = tfrt.constant.i64 64
  %buf = tfrt_dht.allocate_buffer %size, %align
  %ch1 = tfrt_dht.print_buffer %buf, %ch0
  %off = tfrt.constant.i64 8
  %n = tfrt.constant.i64 16
  %slice = tfrt_dht.get_buffer_slice %buf, %off, %n
  %shape = ts.build_shape [2 : i64, 2 : i64]
  %t, %ch2 = tfrt_dht.make_tensor.f32 %slice, %shape, %ch1
  %ch3 = tfrt_dht.fill_tensor_with_constant.f32 %t, %ch2 2.5 : f32
  %whole = ts.build_shape [6 : i64]
  %all, %ch4 = tfrt_dht.make_tensor.f32 %buf, %whole, %ch3
  %ch5 = tfrt_dht.set_tensor_with_constant_values.f32 %all, %ch4 [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]
  %ch6 = tfrt_dht.print_tensor %t, %ch5
  %b2, %ch7 = tfrt_dht.get_buffer %t, %ch6
  %bits, %ch8 = tfrt_dht.make_tensor.i32 %b2, %shape, %ch7
  %ch9 = tfrt_dht.print_tensor %bits, %ch8
  %ch10 = tfrt_dht.print_buffer %b2, %ch9
  tfrt.return %ch10 : !tfrt.chain
}
""")
    assert run.diagnostics == []
    first, tensor, bits, last = run.lines
    m = re.fullmatch(r"HostBuffer<pointer=0x([0-9a-f]+), size=24>", first)
    assert m and int(m.group(1), 16) % 64 == 0  # the requested alignment
    # The slice is bytes 8..24: elements 2..5 of the whole buffer's f32 view.
    assert tensor == (
        "DenseHostTensor dtype = f32, shape = [2, 2], values = "
        "[3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]"
    )
    expected = np.array([3, 4, 5, 6], np.float32).view(np.int32)
    assert bits == (
        "DenseHostTensor dtype = i32, shape = [2, 2], values = ["
        + ", ".join(str(v) for v in expected) + "]"
    )
    m2 = re.fullmatch(r"HostBuffer<pointer=0x([0-9a-f]+), size=16>", last)
    assert m2 and int(m2.group(1), 16) == int(m.group(1), 16) + 8


def test_buffer_errors_are_reported_at_the_kernel():
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %size = tfrt.constant.i64 16
  %three = tfrt.constant.i64 3
  %buf = tfrt_dht.allocate_buffer %size, %three
  %eight = tfrt.constant.i64 8
  %good = tfrt_dht.allocate_buffer %size, %eight
  %slice = tfrt_dht.get_buffer_slice %good, %eight, %size
  %shape = ts.build_shape [3 : i64]
  %t, %ch1 = tfrt_dht.make_tensor.i64 %good, %shape, %ch0
  tfrt.return %ch1 : !tfrt.chain
}
""")
    # Independent kernels: the executor picks the order.
    assert sorted(run.diagnostics, key=lambda d: d[1]) == [
        ("tfrt_dht.allocate_buffer: alignment 3 is not a power of two", 6),
        ("tfrt_dht.get_buffer_slice: [8, 24) is outside the parent buffer of 16 bytes", 9),
        (
            "dht.make_tensor failed: buffer_size (16) is not equal to the number of elements "
            "in shape ([3]) times element size (8)",
            11,
        ),
    ]


def test_buffers_are_charged_to_the_host_allocator():
    # A 1 KiB fixed-size host allocator refuses a 2 KiB buffer, as TFRT's does.
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %size = tfrt.constant.i64 2048
  %align = tfrt.constant.i64 8
  %buf = tfrt_dht.allocate_buffer %size, %align
  %ch1 = tfrt_dht.print_buffer %buf, %ch0
  tfrt.return %ch1 : !tfrt.chain
}
""", allocator="test_fixed_size_1k")
    assert [d[0] for d in run.diagnostics] == ["Cannot allocate host buffer"]


def test_ui16_tensor_kernels():
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %u = tfrt_dht.create_uninitialized_tensor.ui16.1 [3 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.ui16 %u, %ch0 [1 : ui16, 65535 : ui16, 7 : ui16]
  %ch2 = tfrt_dht.print_tensor %u, %ch1
  %v = tfrt_dht.create_uninitialized_tensor.ui16.1 [3 : i64]
  %ch3 = tfrt_dht.fill_tensor_with_constant.ui16 %v, %ch2 7 : ui16
  %ch4 = tfrt_dht.print_tensor %v, %ch3
  %same, %ch5 = tfrt_dht.tensor_equal.ui16 %u, %u, %ch4
  %diff, %ch6 = tfrt_dht.tensor_equal.ui16 %u, %v, %ch5
  %ch7 = tfrt.print.i1 %same, %ch6
  %ch8 = tfrt.print.i1 %diff, %ch7
  tfrt.return %ch8 : !tfrt.chain
}
""")
    assert run.diagnostics == []
    assert run.lines == [
        "DenseHostTensor dtype = u16, shape = [3], values = [1, 65535, 7]",
        "DenseHostTensor dtype = u16, shape = [3], values = [7, 7, 7]",
        "int1 = 1",
        "int1 = 0",
    ]


def test_rank_zero_fixed_rank_shape_and_coo_print():
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %s = ts.build_shape []
  %f = ts.as_fixed_rank_shape.0 %s
  %ch1 = ts.print_fixed_rank_shape.0 %f, %ch0
  %d = tfrt_dht.create_uninitialized_tensor.i32.2 [2 : i64, 2 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.i32 %d, %ch1 [0 : i32, 5 : i32, 0 : i32, 0 : i32]
  %coo, %ch3 = coo.convert_dht_to_coo.i32.2 %d, %ch2
  %ch4 = coo.print_tensor %coo, %ch3
  %ch5 = coo.print_tensor %d, %ch4
  %bad = ts.build_shape [2 : i64]
  %f2 = ts.as_fixed_rank_shape.0 %bad
  tfrt.return %ch5 : !tfrt.chain
}
""")
    assert run.lines[0] == "fixed_rank_shape = []"
    assert run.lines[1].startswith("CooHostTensor dtype = i32, shape = [2, 2], indices = [")
    assert sorted(run.diagnostics, key=lambda d: d[1]) == [
        ("coo.print_tensor: expected a CooHostTensor, got DenseHostTensor", 11),
        ("shape [2] has rank 1, expected rank 0", 13),
    ]
