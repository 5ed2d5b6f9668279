// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @shapes(
func.func @shapes() -> i64 attributes {tfrt.sync} {
  // CHECK-NEXT: %[[S:.*]] = ts_sync.build_shape [1, 57, 92]
  %s = ts_sync.build_shape [1 : i64, 57 : i64, 92 : i64]
  // CHECK-NEXT: ts_sync.build_shape []
  %empty = ts_sync.build_shape []
  // CHECK-NEXT: %[[N:.*]] = ts_sync.get_num_elements %[[S]]
  %n = ts_sync.get_num_elements %s
  // CHECK-NEXT: %[[P:.*]] = ts_sync.build_partial_shape [-1, 57]
  %p = ts_sync.build_partial_shape [-1 : i64, 57 : i64]
  // CHECK-NEXT: %[[S2:.*]] = ts_sync.to_shape %[[P]]
  %s2 = ts_sync.to_shape %p
  // CHECK-NEXT: ts_sync.to_partial_shape %[[S2]]
  %p2 = ts_sync.to_partial_shape %s2
  // CHECK-NEXT: tfrt.return %[[N]] : i64
  tfrt.return %n : i64
}

// CHECK-LABEL: func.func @generic(
func.func @generic(%p: !ts.partial_shape) -> !ts.shape {
  // CHECK-NEXT: %[[S:.*]] = ts_sync.to_shape %arg0
  %s = "ts_sync.to_shape"(%p) : (!ts.partial_shape) -> !ts.shape
  // CHECK-NEXT: tfrt.return %[[S]] : !ts.shape
  tfrt.return %s : !ts.shape
}
