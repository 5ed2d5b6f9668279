// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @shapes(
func.func @shapes(%i: i32) {
  %ch0 = tfrt.new.chain
  // CHECK: %[[S:.*]] = ts.build_shape [1, 57, 92]
  %s = ts.build_shape [1 : i64, 57 : i64, 92 : i64]
  // CHECK-NEXT: %[[E:.*]] = ts.build_shape []
  %empty = ts.build_shape []
  // CHECK-NEXT: ts.equal_shape %[[S]], %[[E]]
  %eq = ts.equal_shape %s, %empty
  // CHECK-NEXT: ts.get_dimension %[[S]], %arg0
  %dim = ts.get_dimension %s, %i
  // CHECK-NEXT: ts.get_num_elements %[[S]]
  %n = ts.get_num_elements %s
  // CHECK-NEXT: ts.print_shape %[[S]], %{{.*}}
  %ch1 = ts.print_shape %s, %ch0
  // CHECK-NEXT: %[[F:.*]] = ts.as_fixed_rank_shape.3 %[[S]]
  %f = ts.as_fixed_rank_shape.3 %s
  // CHECK-NEXT: ts.print_fixed_rank_shape.3 %[[F]], %{{.*}}
  %ch2 = ts.print_fixed_rank_shape.3 %f, %ch1
  // CHECK-NEXT: %[[P:.*]] = ts.build_partial_shape [-1, 57]
  %p = ts.build_partial_shape [-1 : i64, 57 : i64]
  // CHECK-NEXT: ts.build_unranked_partial_shape
  %u = ts.build_unranked_partial_shape
  // CHECK-NEXT: ts.print_partial_shape %[[P]], %{{.*}}
  %ch3 = ts.print_partial_shape %p, %ch2
  // CHECK-NEXT: %[[T:.*]] = ts.to_shape %[[P]]
  %s2 = ts.to_shape %p
  // CHECK-NEXT: ts.to_partial_shape %[[T]]
  %p2 = ts.to_partial_shape %s2
  tfrt.return
}

// CHECK-LABEL: func.func @types(
// CHECK-SAME: !ts.shape, %{{.*}}: !ts.partial_shape, %{{.*}}: !ts.fixed_rank_shape.2
func.func @types(%a: !ts.shape, %b: !ts.partial_shape, %c: !ts.fixed_rank_shape.2) {
  tfrt.return
}
