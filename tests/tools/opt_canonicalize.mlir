// -canonicalize: op patterns (tfrt.merge.chains), folding and dead code.
// RUN: tfrt_opt %s -canonicalize -split-input-file | FileCheck %s

// A merge whose input is used elsewhere adds nothing: it goes.
// CHECK-LABEL: func.func @redundant_merge
// CHECK-NOT: tfrt.merge.chains
// CHECK: tfrt.return %arg0, %arg0 : !tfrt.chain, !tfrt.chain
func.func @redundant_merge(%ch: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {
  %out = tfrt.merge.chains %ch : !tfrt.chain
  tfrt.return %out, %ch : !tfrt.chain, !tfrt.chain
}

// -----

// Pure ops nobody uses are erased; effects stay.
// CHECK: // -----
// CHECK-LABEL: func.func @dead_code
// CHECK-NEXT: %0 = tfrt.constant.i32 7
// CHECK-NEXT: %1 = tfrt.print.i32 %0, %arg0
// CHECK-NEXT: tfrt.return %1 : !tfrt.chain
func.func @dead_code(%ch: !tfrt.chain) -> !tfrt.chain {
  %a = tfrt.constant.i32 7
  %unused = tfrt.add.i32 %a, %a
  %ch1 = tfrt.print.i32 %a, %ch
  tfrt.return %ch1 : !tfrt.chain
}

// -----

// Constants move to the start of the function, once each.
// CHECK: // -----
// CHECK-LABEL: func.func @hoisted_constants
// CHECK-NEXT: %0 = tfrt.constant.i32 2
// CHECK-NEXT: %1 = tfrt.constant.i64 2
// CHECK-NEXT: %2 = tfrt.print.i32 %0, %arg0
// CHECK-NEXT: %3 = tfrt.print.i64 %1, %2
// CHECK-NEXT: %4 = tfrt.print.i32 %0, %3
// CHECK-NEXT: tfrt.return %4 : !tfrt.chain
func.func @hoisted_constants(%ch: !tfrt.chain) -> !tfrt.chain {
  %a = tfrt.constant.i32 2
  %ch1 = tfrt.print.i32 %a, %ch
  %b = tfrt.constant.i64 2
  %ch2 = tfrt.print.i64 %b, %ch1
  %c = tfrt.constant.i32 2
  %ch3 = tfrt.print.i32 %c, %ch2
  tfrt.return %ch3 : !tfrt.chain
}
