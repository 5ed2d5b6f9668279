// --mlir-print-ir-after-all dumps the module after every pass, in order.
// RUN: tfrt_opt %s --pass-pipeline='builtin.module(cse,canonicalize)' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s

// CHECK: // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: module {
// CHECK: %1 = tfrt.add.i32 %0, %0
// CHECK-NEXT: %2 = tfrt.print.i32 %1, %arg0
// CHECK-NEXT: %3 = tfrt.merge.chains %arg0 : !tfrt.chain
// CHECK-NEXT: tfrt.return %3, %2 : !tfrt.chain, !tfrt.chain
// CHECK: // -----// IR Dump After Canonicalizer (canonicalize) //----- //
// CHECK-NEXT: module {
// CHECK-NOT: tfrt.merge.chains
// CHECK: tfrt.return %arg0, %2 : !tfrt.chain, !tfrt.chain
func.func @f(%ch: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 1
  %c = tfrt.add.i32 %a, %b
  %ch1 = tfrt.print.i32 %c, %ch
  %m = tfrt.merge.chains %ch : !tfrt.chain
  tfrt.return %m, %ch1 : !tfrt.chain, !tfrt.chain
}
