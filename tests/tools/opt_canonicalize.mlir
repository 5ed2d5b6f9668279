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
