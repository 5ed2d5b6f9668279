// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @ops(
func.func @ops() attributes {tfrt.sync} {
  // CHECK-NEXT: %[[CPU:.*]] = corert_sync.get_op_handler "cpu"
  %cpu = corert_sync.get_op_handler "cpu"
  // CHECK-NEXT: %[[A:.*]] = corert_sync.const_dense_tensor dense<[1, 2]> : tensor<2xi32>
  %a = corert_sync.const_dense_tensor dense<[1, 2]> : tensor<2xi32>
  // CHECK-NEXT: %[[B:.*]] = corert_sync.create_dense_tensor.i32 {shape = [2], value = [10 : i32, 20 : i32]}
  %b = corert_sync.create_dense_tensor.i32 {shape = [2], value = [10 : i32, 20 : i32]}
  // CHECK-NEXT: corert_sync.create_dense_tensor.complex64 {shape = [], value = [1.000000e+00 : f32, 2.000000e+00 : f32]}
  %z = corert_sync.create_dense_tensor.complex64 {shape = [], value = [1.0 : f32, 2.0 : f32]}
  // CHECK-NEXT: %[[C:.*]] = corert_sync.executeop(%[[CPU]]) "tfrt_test.add"(%[[A]], %[[B]]) : 1
  %c = corert_sync.executeop(%cpu) "tfrt_test.add"(%a, %b) : 1
  // CHECK-NEXT: corert_sync.executeop(%[[CPU]]) "tfrt_test.print"(%[[C]]){{$}}
  corert_sync.executeop(%cpu) "tfrt_test.print"(%c)
  // CHECK-NEXT: corert_sync.executeop(%[[CPU]]) "tfrt_test.create_dense_tensor"() {shape = [2], values = [1 : i32, 2 : i32]} : 1
  %d = corert_sync.executeop(%cpu) "tfrt_test.create_dense_tensor"() {shape = [2], values = [1 : i32, 2 : i32]} : 1
  // CHECK-NEXT: corert_sync.executeop(%[[CPU]]) "tfrt_test.split"(%[[C]]) : 2
  %e:2 = corert_sync.executeop(%cpu) "tfrt_test.split"(%c) : 2
  // CHECK-NEXT: tfrt.return
  tfrt.return
}
