// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @tensors(
func.func @tensors(%buf: !ht.host_buffer, %shape: !ts.shape, %n: i64) attributes {tfrt.sync} {
  // CHECK-NEXT: %[[T:.*]] = tfrt_dht_sync.create_uninitialized_tensor.i32.2 [3, 2]
  %t = tfrt_dht_sync.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]
  // CHECK-NEXT: tfrt_dht_sync.create_uninitialized_tensor.complex128.0 []
  %t0 = tfrt_dht_sync.create_uninitialized_tensor.complex128.0 []
  // CHECK-NEXT: tfrt_dht_sync.set_tensor_with_constant_values.i32 %[[T]] [1 : i32, 2 : i32]
  tfrt_dht_sync.set_tensor_with_constant_values.i32 %t [1 : i32, 2 : i32]
  // CHECK-NEXT: tfrt_dht_sync.print_tensor %[[T]]{{$}}
  tfrt_dht_sync.print_tensor %t
  // CHECK-NEXT: tfrt_dht_sync.make_tensor.f32 %arg0, %arg1{{$}}
  %mt = tfrt_dht_sync.make_tensor.f32 %buf, %shape
  // CHECK-NEXT: %[[B:.*]] = tfrt_dht_sync.allocate_buffer %arg2, %arg2
  %b = tfrt_dht_sync.allocate_buffer %n, %n
  // CHECK-NEXT: tfrt_dht_sync.get_buffer_slice %[[B]], %arg2, %arg2
  %sl = tfrt_dht_sync.get_buffer_slice %b, %n, %n
  // CHECK-NEXT: tfrt_dht_sync.get_tensor_shape %[[T]]
  %s = tfrt_dht_sync.get_tensor_shape %t
  // CHECK-NEXT: tfrt.return
  tfrt.return
}

// The generic form prints back in the custom one.
// CHECK-LABEL: func.func @generic(
func.func @generic(%t: !tfrt_tensor.tensor) attributes {tfrt.sync} {
  // CHECK-NEXT: tfrt_dht_sync.set_tensor_with_constant_values.bool %arg0 [true, false]
  "tfrt_dht_sync.set_tensor_with_constant_values.bool"(%t) {values = [true, false]} : (!tfrt_tensor.tensor) -> ()
  // CHECK-NEXT: tfrt_dht_sync.print_tensor %arg0
  "tfrt_dht_sync.print_tensor"(%t) : (!tfrt_tensor.tensor) -> ()
  tfrt.return
}
