// -inline: tfrt.call of a single-block function is replaced by its body and
// the private callee, now unused, is erased.
// RUN: tfrt_opt %s -inline | FileCheck %s
// RUN: tfrt_opt %s -inline -mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// CHECK-NOT: @double
func.func private @double(%ch: !tfrt.chain, %x: i32) -> (!tfrt.chain, i32) {
  %y = tfrt.add.i32 %x, %x
  tfrt.return %ch, %y : !tfrt.chain, i32
}

// CHECK-LABEL: func.func @main(%arg0: !tfrt.chain) -> !tfrt.chain {
// CHECK-NEXT: %0 = tfrt.constant.i32 21
// CHECK-NEXT: %1 = tfrt.add.i32 %0, %0
// CHECK-NEXT: %2 = tfrt.print.i32 %1, %arg0
// CHECK-NEXT: tfrt.return %2 : !tfrt.chain
// LOC: tfrt.add.i32 %0, %0 loc(callsite("{{.*}}opt_inline.mlir":8:3 at "{{.*}}opt_inline.mlir":20:3))
func.func @main(%ch: !tfrt.chain) -> !tfrt.chain {
  %x = tfrt.constant.i32 21
  %ch1, %y = tfrt.call @double(%ch, %x) : (!tfrt.chain, i32) -> (!tfrt.chain, i32)
  %ch2 = tfrt.print.i32 %y, %ch1
  tfrt.return %ch2 : !tfrt.chain
}
