// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @tensors(
func.func @tensors(%buf: !ht.host_buffer, %shape: !ts.shape, %n: i64) {
  // CHECK-NEXT: %[[CH:.*]] = tfrt.new.chain
  %ch = tfrt.new.chain
  // CHECK-NEXT: %[[T:.*]] = tfrt_dht.create_uninitialized_tensor.i32.2 [3, 2]
  %t = tfrt_dht.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]
  // CHECK-NEXT: tfrt_dht.create_uninitialized_tensor.f32.0 []
  %t0 = tfrt_dht.create_uninitialized_tensor.f32.0 []
  // CHECK-NEXT: tfrt_dht.fill_tensor_with_constant.i32 %[[T]], %[[CH]] 4 : i32
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %t, %ch 4 : i32
  // CHECK-NEXT: tfrt_dht.set_tensor_with_constant_values.i32 %[[T]], %[[CH]] [1 : i32, 2 : i32]
  %c2 = tfrt_dht.set_tensor_with_constant_values.i32 %t, %ch [1 : i32, 2 : i32]
  // CHECK-NEXT: %{{.*}}:2 = tfrt_dht.tensor_equal.i32 %[[T]], %[[T]], %[[CH]]
  %eq, %c3 = tfrt_dht.tensor_equal.i32 %t, %t, %ch
  // CHECK-NEXT: tfrt_dht.print_tensor %[[T]], %[[CH]]
  %c4 = tfrt_dht.print_tensor %t, %ch
  // CHECK-NEXT: %{{.*}}:2 = tfrt_dht.make_tensor.f32 %arg0, %arg1, %[[CH]]
  %mt, %c5 = tfrt_dht.make_tensor.f32 %buf, %shape, %ch
  // CHECK-NEXT: %[[B:.*]] = tfrt_dht.allocate_buffer %arg2, %arg2
  %b = tfrt_dht.allocate_buffer %n, %n
  // CHECK-NEXT: %{{.*}}:2 = tfrt_dht.get_buffer %[[T]], %[[CH]]
  %gb, %c6 = tfrt_dht.get_buffer %t, %ch
  // CHECK-NEXT: tfrt_dht.get_buffer_slice %[[B]], %arg2, %arg2
  %sl = tfrt_dht.get_buffer_slice %b, %n, %n
  // CHECK-NEXT: tfrt_dht.print_buffer %[[B]], %[[CH]]
  %c7 = tfrt_dht.print_buffer %b, %ch
  // CHECK-NEXT: tfrt_dht.get_tensor_shape %[[T]]
  %s = tfrt_dht.get_tensor_shape %t
  tfrt.return
}
