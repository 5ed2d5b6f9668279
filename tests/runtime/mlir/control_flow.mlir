// RUN: tfrt_translate -mlir-to-bef %s | bef_executor - | FileCheck %s
// RUN: tfrt_translate -mlir-to-bef %s | bef_executor -work_queue_type=mstd - | FileCheck %s

func.func @fib(%n: i32) -> i32 {
  %one = tfrt.constant.i32 1
  %small = "tfrt.lessequal.i32"(%n, %one) : (i32, i32) -> i1
  %r = tfrt.if %small, %n : (i32) -> i32 {
    tfrt.return %n : i32
  } else {
    %m1 = tfrt.constant.i32 -1
    %a = tfrt.add.i32 %n, %m1
    %b = tfrt.add.i32 %a, %m1
    %fa = tfrt.call @fib(%a) : (i32) -> i32
    %fb = tfrt.call @fib(%b) : (i32) -> i32
    %s = tfrt.add.i32 %fa, %fb
    tfrt.return %s : i32
  }
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'recursion'
func.func @recursion() -> i32 {
  %n = tfrt.constant.i32 15
  %r = tfrt.call @fib(%n) : (i32) -> i32
  tfrt.return %r : i32
}
// CHECK-NEXT: 'recursion' returned 610

func.func @double(%ch: !tfrt.chain, %x: i32) -> (!tfrt.chain, i32) {
  %y = tfrt.add.i32 %x, %x
  tfrt.return %ch, %y : !tfrt.chain, i32
}
func.func @negate(%ch: !tfrt.chain, %x: i32) -> (!tfrt.chain, i32) {
  %zero = tfrt.constant.i32 0
  %y = "tfrt.minus.i32"(%zero, %x) : (i32, i32) -> i32
  tfrt.return %ch, %y : !tfrt.chain, i32
}

// An index out of range picks the last branch.
// CHECK-LABEL: --- Running 'case_clamps'
func.func @case_clamps() -> (i32, i32, i32) {
  %ch = tfrt.new.chain
  %x = tfrt.constant.i32 21
  %i0 = tfrt.constant.i32 0
  %i5 = tfrt.constant.i32 5
  %im = tfrt.constant.i32 -1
  %c0, %a = tfrt.case %i0 [@double, @negate] (%ch, %x) : (!tfrt.chain, i32) -> (!tfrt.chain, i32)
  %c1, %b = tfrt.case %i5 [@double, @negate] (%ch, %x) : (!tfrt.chain, i32) -> (!tfrt.chain, i32)
  %c2, %c = tfrt.case %im [@double, @negate] (%ch, %x) : (!tfrt.chain, i32) -> (!tfrt.chain, i32)
  tfrt.return %a, %b, %c : i32, i32, i32
}
// CHECK-NEXT: 'case_clamps' returned 42,-21,-21

// The loop body's results feed the next iteration, in order.
// CHECK-LABEL: --- Running 'repeat_prints_in_order'
func.func @repeat_prints_in_order() -> i32 {
  %n = tfrt.constant.i32 40
  %ch0 = tfrt.new.chain
  %v0 = tfrt.constant.i32 0
  %ch, %v = tfrt.repeat.i32 %n, %ch0, %v0 : !tfrt.chain, i32 {
    %one = tfrt.constant.i32 1
    %next = tfrt.add.i32 %v0, %one
    %ch1 = tfrt.print.i32 %next, %ch0
    tfrt.return %ch1, %next : !tfrt.chain, i32
  }
  tfrt.return %v : i32
}
// CHECK-NEXT: int32 = 1
// CHECK-NEXT: int32 = 2
// CHECK: int32 = 33
// CHECK-NEXT: int32 = 34
// CHECK: int32 = 40
// CHECK-NEXT: 'repeat_prints_in_order' returned 40
