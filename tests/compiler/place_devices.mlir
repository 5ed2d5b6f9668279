// place-devices{device=gpu}: an entry function's tensor arguments go to the
// device once, so do tensors made from no tensor operand (here a splat and
// from_elements) and the results of calls to public functions; private
// functions and tfrt.while bodies keep device tensors; results come back to
// the host.  With the default device nothing moves.
// RUN: tfrt_compile %s -O0 --device=gpu --emit=mlir | FileCheck %s
// RUN: tfrt_compile %s -O0 --emit=mlir | FileCheck %s --check-prefix=CPU
// CPU-NOT: to_device
// CPU-NOT: to_host
// CPU-NOT: tfrt.device
// Each placed kernel says where it runs; the BEF leaves the mark out.
// RUN: tfrt_compile %s --device=gpu -o %t.bef
// RUN: tfrt_translate -bef-to-mlir %t.bef | FileCheck %s --check-prefix=BEF
// BEF: tfrt_array.to_device
// BEF-NOT: tfrt.device

// CHECK-LABEL: func.func private @scale(%arg0: tensor<3xf32>, %arg1: f32) -> tensor<3xf32> {
// CHECK-NEXT:    %[[S:.*]] = tfrt_array.elementwise %arg1 {expr = "a0"
// CHECK-NEXT:    %[[D:.*]] = tfrt_array.to_device %[[S]] {device = "gpu:0"}
// CHECK-NEXT:    %[[M:.*]] = tfrt_array.elementwise %arg0, %[[D]] {{{.*}}tfrt.device = "gpu:0"
// CHECK-NEXT:    tfrt.return %[[M]] : tensor<3xf32>
func.func private @scale(%x: tensor<3xf32>, %k: f32) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %splat = linalg.fill ins(%k : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = arith.mulf %x, %splat : tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @double(%arg0: tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT:    %[[X:.*]] = tfrt_array.to_device %arg0 {device = "gpu:0"}
// CHECK-NEXT:    %[[A:.*]] = tfrt_array.elementwise %[[X]], %[[X]]
// CHECK-NEXT:    %[[H:.*]] = tfrt_array.to_host %[[A]]
// CHECK-NEXT:    tfrt.return %[[H]] : tensor<3xf32>
func.func @double(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = arith.addf %x, %x : tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @main(%arg0: tensor<3xf32>, %arg1: f32) -> (tensor<3xf32>, tensor<2xf32>) {
// CHECK-NEXT:    %[[X:.*]] = tfrt_array.to_device %arg0 {device = "gpu:0"}
// CHECK:         %[[P:.*]] = tfrt.call @scale(%[[X]], %arg1)
// CHECK-NEXT:    %[[Q:.*]] = tfrt.call @double(%[[P]])
// CHECK-NEXT:    %[[QD:.*]] = tfrt_array.to_device %[[Q]] {device = "gpu:0"}
// CHECK:         %[[E:.*]] = tfrt_array.extract %[[QD]]
// CHECK-NEXT:    %[[F:.*]] = tfrt_array.from_elements %[[E]], %arg1
// CHECK-NEXT:    %[[FD:.*]] = tfrt_array.to_device %[[F]] {device = "gpu:0"}
// CHECK:         %[[W:.*]]:{{[0-9]+}} = tfrt.while %{{.*}} @main_while_{{[0-9]+}}(
// CHECK:         %[[R0:.*]] = tfrt_array.to_host %[[W]]#1
// CHECK-NEXT:    %[[R1:.*]] = tfrt_array.to_host
// CHECK-NEXT:    tfrt.return %[[R0]], %[[R1]] : tensor<3xf32>, tensor<2xf32>
// CHECK-LABEL: func.func @main_while_{{[0-9]+}}(
// CHECK-NOT:     to_device
// CHECK-NOT:     to_host
// CHECK:         tfrt.return
func.func @main(%x: tensor<3xf32>, %k: f32) -> (tensor<3xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %three = arith.constant 3 : i32
  %p = func.call @scale(%x, %k) : (tensor<3xf32>, f32) -> tensor<3xf32>
  %q = func.call @double(%p) : (tensor<3xf32>) -> tensor<3xf32>
  %v = tensor.extract %q[%c0] : tensor<3xf32>
  %pair = tensor.from_elements %v, %k : tensor<2xf32>
  %r:2 = scf.while (%i = %zero, %acc = %q) : (i32, tensor<3xf32>) -> (i32, tensor<3xf32>) {
    %c = arith.cmpi slt, %i, %three : i32
    scf.condition(%c) %i, %acc : i32, tensor<3xf32>
  } do {
  ^bb0(%j: i32, %a: tensor<3xf32>):
    %a2 = arith.addf %a, %x : tensor<3xf32>
    %j2 = arith.addi %j, %one : i32
    scf.yield %j2, %a2 : i32, tensor<3xf32>
  }
  %pair2 = arith.addf %pair, %pair : tensor<2xf32>
  return %r#1, %pair2 : tensor<3xf32>, tensor<2xf32>
}
