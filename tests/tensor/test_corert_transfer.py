"""`corert.get_dst_tensor_type`, `corert.transfer`, `corert.transfer_inferred_tensortype`
and the complex `corert.create_dense_tensor` kernels."""

from __future__ import annotations

from .pipeline import run_mlir

PRINT = '"corert.print_tensorhandle"({h}, {ch}) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain'


def test_transfers_between_host_and_device():
    run = run_mlir(f"""
func.func @f() -> !tfrt.chain {{
  %ch0 = tfrt.new.chain
  %th = corert.const_dense_tensor dense<[1.0, 2.0]> : tensor<2xf32>
  %cpu = tfrt.get_device %ch0 {{device_name = "CPU:0"}}
  %dev = tfrt.get_device %ch0 {{device_name = "cpu_async:0"}}
  %type = corert.get_dst_tensor_type %th, %cpu
  %h1 = corert.transfer %th, %cpu, %type
  %ch1 = {PRINT.format(h="%h1", ch="%ch0")}
  %d = corert.transfer_inferred_tensortype %th, %dev
  %ch2 = {PRINT.format(h="%d", ch="%ch1")}
  %back = corert.transfer_inferred_tensortype %d, %cpu
  %ch3 = {PRINT.format(h="%back", ch="%ch2")}
  %bad = corert.transfer %th, %dev, %type
  %null = tfrt.get_device %ch0 {{device_name = "null"}}
  %none = corert.get_dst_tensor_type %th, %null
  tfrt.return %ch3 : !tfrt.chain
}}
""")
    assert run.lines == [
        "DenseHostTensor dtype = f32, shape = [2], values = [1.000000e+00, 2.000000e+00]",
        "DeviceTensor device = cpu_async:0, dtype = f32, shape = [2]",
        "DenseHostTensor dtype = f32, shape = [2], values = [1.000000e+00, 2.000000e+00]",
    ]
    assert sorted(run.diagnostics, key=lambda d: d[1]) == [
        ("cannot transfer to cpu_async:0 as a DenseHost tensor", 14),
        (
            "failed to find dst device type for src_tensor_type=DenseHostTensor "
            "and dst_device_type=null",
            16,
        ),
    ]


def test_scalar_tensors_become_dense_on_the_host():
    run = run_mlir(f"""
func.func @f() -> !tfrt.chain {{
  %ch0 = tfrt.new.chain
  %cpu = tfrt.get_device %ch0 {{device_name = "CPU:0"}}
  %null = "corert.create_null_op_handler"() : () -> !corert.ophandler
  %h = "corert.create_cpu_op_handler"(%null) : (!corert.ophandler) -> !corert.ophandler
  %s = corert.executeop(%h) "tfrt_test.create_from_scalar"() {{shape = [2, 1], value = 3 : i32}} : 1
  %t = corert.transfer_inferred_tensortype %s, %cpu
  %ch1 = {PRINT.format(h="%s", ch="%ch0")}
  %ch2 = {PRINT.format(h="%t", ch="%ch1")}
  tfrt.return %ch2 : !tfrt.chain
}}
""")
    assert run.diagnostics == []
    assert run.lines == [
        "ScalarHostTensor dtype = i32, shape = [2, 1], value = 3",
        "DenseHostTensor dtype = i32, shape = [2, 1], values = [3, 3]",
    ]


def test_complex_dense_tensors_take_interleaved_parts():
    run = run_mlir(f"""
func.func @f() -> !tfrt.chain {{
  %ch0 = tfrt.new.chain
  %c = corert.create_dense_tensor.complex64 {{shape = [2], value = [1.0 : f32, -2.0 : f32, 3.0 : f32, 0.5 : f32]}}
  %z = corert.create_dense_tensor.complex128 {{shape = [1, 2], value = [0.25, 4.0]}}
  %odd = corert.create_dense_tensor.complex64 {{shape = [1], value = [1.0 : f32]}}
  %ch1 = {PRINT.format(h="%c", ch="%ch0")}
  %ch2 = {PRINT.format(h="%z", ch="%ch1")}
  tfrt.return %ch2 : !tfrt.chain
}}
""")
    assert run.lines == [
        "DenseHostTensor dtype = complex64, shape = [2], values = "
        "[(1.000000e+00,-2.000000e+00), (3.000000e+00,5.000000e-01)]",
        "DenseHostTensor dtype = complex128, shape = [1, 2], values = "
        "[(2.500000e-01,4.000000e+00), (2.500000e-01,4.000000e+00)]",
    ]
    assert run.diagnostics == [
        ("1 floats for a complex tensor: expected (real, imaginary) pairs", 6)
    ]
