// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// TFRT's dialects accept ops and types they do not define
// (allowUnknownOperations / allowUnknownTypes), so these parse without
// -allow-unregistered-dialect and print in generic form.

// CHECK-LABEL: func.func @unknown_ops(
func.func @unknown_ops(%x: i32, %ch: !tfrt.chain) {
  // CHECK-NEXT: "tfrt.async_add.i32"(%arg0, %arg0) : (i32, i32) -> i32
  %0 = "tfrt.async_add.i32"(%x, %x) : (i32, i32) -> i32
  // CHECK-NEXT: "tfrt_test.print_hello"(%arg1) : (!tfrt.chain) -> !tfrt.chain
  %1 = "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
  // CHECK-NEXT: tfrt_dht.create_uninitialized_tensor.f32.2 [1, 1]
  // CHECK-NEXT: "tfrt_dht.tensor_allclose.f32"
  %t = "tfrt_dht.create_uninitialized_tensor.f32.2"() {shape = [1 : i64, 1 : i64]} : () -> !tfrt_tensor.tensor
  %2, %3 = "tfrt_dht.tensor_allclose.f32"(%t, %t, %ch) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  // CHECK-NEXT: "corert.create_op_attrs"() : () -> !corert.opattrs
  %h = "corert.create_op_attrs"() : () -> !corert.opattrs
  // CHECK: "coo.unknown"() : () -> ()
  "coo.unknown"() : () -> ()
  // CHECK-NEXT: "btf.unknown"() : () -> ()
  "btf.unknown"() : () -> ()
  tfrt.return
}

// CHECK-LABEL: func.func @unknown_types(
// CHECK-SAME: !tfrt.test.resource, %{{.*}}: !ts.some_shape, %{{.*}}: !tfrt_tensor.other, %{{.*}}: !corert.unknown
func.func @unknown_types(%r: !tfrt.test.resource, %s: !ts.some_shape, %t: !tfrt_tensor.other,
                         %c: !corert.unknown) {
  tfrt.return
}
