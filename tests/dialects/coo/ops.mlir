// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @coo(
func.func @coo(%t: !tfrt_tensor.tensor) {
  // CHECK-NEXT: %[[CH:.*]] = tfrt.new.chain
  %ch = tfrt.new.chain
  // CHECK-NEXT: %[[S:.*]]:2 = coo.convert_dht_to_coo.i32.2 %arg0, %[[CH]]
  %s, %c1 = coo.convert_dht_to_coo.i32.2 %t, %ch
  // CHECK-NEXT: coo.convert_coo_to_dht.i32.2 %[[S]]#0, %[[S]]#1
  %d, %c2 = coo.convert_coo_to_dht.i32.2 %s, %c1
  // CHECK-NEXT: coo.tensor_equal.f32.3 %[[S]]#0, %[[S]]#0, %[[CH]]
  %eq, %c3 = coo.tensor_equal.f32.3 %s, %s, %ch
  // CHECK-NEXT: coo.print_tensor %[[S]]#0, %[[CH]]
  %c4 = coo.print_tensor %s, %ch
  tfrt.return
}
