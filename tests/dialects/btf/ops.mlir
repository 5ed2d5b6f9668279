// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// TFRT has no op definitions for the BTF readers: generic form.
// CHECK-LABEL: func.func @read(
func.func @read(%path: !tfrt.string, %index: i32) {
  // CHECK-NEXT: "btf.read_dense_tensor.i32.2"(%arg0, %arg1) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %t0 = "btf.read_dense_tensor.i32.2"(%path, %index) : (!tfrt.string, i32) -> (!tfrt_tensor.tensor)
  // CHECK-NEXT: "btf.read_dense_tensor.f32.4"(%arg0, %arg1) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %t1 = "btf.read_dense_tensor.f32.4"(%path, %index) : (!tfrt.string, i32) -> (!tfrt_tensor.tensor)
  // CHECK-NEXT: "btf.read_dense_tensor.ui8.0"(%arg0, %arg1) : (!tfrt.string, i32) -> !tfrt_tensor.tensor
  %t2 = "btf.read_dense_tensor.ui8.0"(%path, %index) : (!tfrt.string, i32) -> (!tfrt_tensor.tensor)
  tfrt.return
}
