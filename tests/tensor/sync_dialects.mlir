// RUN: tfrt_translate -mlir-to-bef %s | bef_executor - 2>&1 | FileCheck %s

// Sync functions (`tfrt.sync`) that use the `tfrt_dht_sync` and `ts_sync`
// kernels: no chains, effects in program order.

// CHECK-LABEL: --- Running 'tensors_in_order'
func.func @tensors_in_order() attributes {tfrt.sync} {
  %t = tfrt_dht_sync.create_uninitialized_tensor.i32.2 [2 : i64, 2 : i64]
  tfrt_dht_sync.set_tensor_with_constant_values.i32 %t [1 : i32, 2 : i32, 3 : i32, 4 : i32]
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [2, 2], values = [1, 2, 3, 4]
  tfrt_dht_sync.print_tensor %t
  tfrt_dht_sync.set_tensor_with_constant_values.i32 %t [5 : i32, 6 : i32, 7 : i32, 8 : i32]
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [2, 2], values = [5, 6, 7, 8]
  tfrt_dht_sync.print_tensor %t
  tfrt.return
}

// A tensor over the second half of a buffer shares its memory.
// CHECK-LABEL: --- Running 'tensor_over_buffer'
func.func @tensor_over_buffer() attributes {tfrt.sync} {
  %size = tfrt.constant_s.i64 16
  %align = tfrt.constant_s.i64 8
  %eight = tfrt.constant_s.i64 8
  %buf = tfrt_dht_sync.allocate_buffer %size, %align
  %half = tfrt_dht_sync.get_buffer_slice %buf, %eight, %eight
  %shape = ts_sync.build_shape [2 : i64]
  %f = tfrt_dht_sync.make_tensor.f32 %half, %shape
  tfrt_dht_sync.set_tensor_with_constant_values.f32 %f [1.5 : f32, -2.0 : f32]
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [1.500000e+00, -2.000000e+00]
  tfrt_dht_sync.print_tensor %f
  tfrt.return
}

// CHECK-LABEL: --- Running 'shape_arithmetic'
func.func @shape_arithmetic() -> i64 attributes {tfrt.sync} {
  %t = tfrt_dht_sync.create_uninitialized_tensor.f32.3 [2 : i64, 3 : i64, 4 : i64]
  %s = tfrt_dht_sync.get_tensor_shape %t
  %p = ts_sync.to_partial_shape %s
  %s2 = ts_sync.to_shape %p
  %n = ts_sync.get_num_elements %s2
  tfrt.return %n : i64
}
// CHECK-NEXT: 'shape_arithmetic' returned 24

// CHECK-LABEL: --- Running 'unknown_dimension'
func.func @unknown_dimension() -> i64 attributes {tfrt.sync} {
  %p = ts_sync.build_partial_shape [2 : i64, -1 : i64]
  // A matched expected-error is silent: the error flows into the result.
  // expected-error @+1 {{runtime error: Unknown dimensions at following indices = [1]}}
  %s = ts_sync.to_shape %p
  %n = ts_sync.get_num_elements %s
  tfrt.return %n : i64
}
// CHECK-NEXT: 'unknown_dimension' returned <<error: Unknown dimensions at following indices = [1]>>

// CHECK-LABEL: --- Running 'buffer_size_mismatch'
func.func @buffer_size_mismatch() attributes {tfrt.sync} {
  %size = tfrt.constant_s.i64 12
  %align = tfrt.constant_s.i64 8
  %buf = tfrt_dht_sync.allocate_buffer %size, %align
  %shape = ts_sync.build_shape [2 : i64]
  // expected-error @+1 {{tfrt_dht_sync.make_tensor failed: buffer_size (12) is not equal to the number of elements in shape ([2]) times element size (4)}}
  %f = tfrt_dht_sync.make_tensor.f32 %buf, %shape
  tfrt.return
}

// `corert_sync`: op-by-op execution in a sync function.  The op handler is
// registered by an ordinary function that runs first.
// CHECK-LABEL: --- Running 'register_cpu'
func.func @register_cpu() {
  %null = "corert.create_null_op_handler"() : () -> !corert.ophandler
  %cpu = "corert.create_cpu_op_handler"(%null) : (!corert.ophandler) -> !corert.ophandler
  corert.register_op_handler %cpu "cpu"
  tfrt.return
}

// CHECK-LABEL: --- Running 'corert_ops'
func.func @corert_ops() attributes {tfrt.sync} {
  %cpu = corert_sync.get_op_handler "cpu"
  %a = corert_sync.const_dense_tensor dense<[1, 2]> : tensor<2xi32>
  %b = corert_sync.create_dense_tensor.i32 {shape = [2], value = [10 : i32, 20 : i32]}
  %c = corert_sync.executeop(%cpu) "tfrt_test.add"(%a, %b) : 1
  // A sync function runs kernel after kernel in program order, so the two
  // prints come out in this order although no value links them.
  // CHECK: DenseHostTensor dtype = i32, shape = [2], values = [11, 22]
  corert_sync.executeop(%cpu) "tfrt_test.print"(%c)
  %d = corert_sync.executeop(%cpu) "tfrt_test.create_dense_tensor"() {shape = [1, 2], values = [3 : i32, 4 : i32]} : 1
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [1, 2], values = [3, 4]
  corert_sync.executeop(%cpu) "tfrt_test.print"(%d)
  tfrt.return
}

// CHECK-LABEL: --- Running 'corert_unknown_handler'
func.func @corert_unknown_handler() attributes {tfrt.sync} {
  // expected-error @+1 {{op_handler not found: tpu}}
  %tpu = corert_sync.get_op_handler "tpu"
  tfrt.return
}
