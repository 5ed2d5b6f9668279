// RUN: tfrt_translate -mlir-to-bef %s | bef_executor - 2>&1 | FileCheck %s
// RUN: tfrt_translate -mlir-to-bef %s | bef_executor --print_error_code - 2>&1 | FileCheck %s --check-prefix=CODE

// CHECK: Choosing memory leak check allocator.
// CHECK-NEXT: Choosing single-threaded work queue.

// CHECK-LABEL: --- Running 'scalars'
func.func @scalars() -> (i1, i32, i64, f32, f64, !tfrt.chain) {
  %t = tfrt.constant.i1 1
  %a = tfrt.constant.i32 2147483647
  %one = tfrt.constant.i32 1
  %wrapped = tfrt.add.i32 %a, %one
  %b = tfrt.constant.i64 -5
  %q, %r = tfrt.div.i32 %wrapped, %one
  %f = tfrt.constant.f32 0.1
  %g = tfrt.add.f32 %f, %f
  %h = tfrt.constant.f64 2.5
  %ch = tfrt.new.chain
  // CHECK-NEXT: int32 = -2147483648
  %ch1 = tfrt.print.i32 %q, %ch
  // CHECK-NEXT: f32 = 0.200000
  %ch2 = tfrt.print.f32 %g, %ch1
  tfrt.return %t, %wrapped, %b, %g, %h, %ch2 : i1, i32, i64, f32, f64, !tfrt.chain
}
// CHECK-NEXT: 'scalars' returned 1,-2147483648,-5,2.000000e-01,2.500000e+00,!tfrt.chain value

// C division truncates toward zero; the remainder takes the dividend's sign.
// CHECK-LABEL: --- Running 'truncating_division'
func.func @truncating_division() -> (i32, i32) {
  %a = tfrt.constant.i32 -7
  %b = tfrt.constant.i32 2
  %q, %r = tfrt.div.i32 %a, %b
  tfrt.return %q, %r : i32, i32
}
// CHECK-NEXT: 'truncating_division' returned -3,-1

// A matched expected-error is silent; the error flows into the result.
// CHECK-LABEL: --- Running 'divide_by_zero'
func.func @divide_by_zero() -> (i32, i32) {
  %x = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  // expected-error @+1 {{runtime error: Divide by zero}}
  %q, %r = tfrt.div.i32 %x, %zero
  %y = tfrt.add.i32 %q, %x
  tfrt.return %y, %x : i32, i32
}
// CHECK-NEXT: 'divide_by_zero' returned <<error: Divide by zero>>,1
// CODE: 'divide_by_zero' returned <<error: Divide by zero, code: INTERNAL>>,1

// CHECK-LABEL: --- Running 'cancelled'
func.func @cancelled() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %x, %ch1 = "tfrt_test.cancel"(%ch0) : (!tfrt.chain) -> (i32, !tfrt.chain)
  // CHECK-NOT: int32
  %ch2 = tfrt.print.i32 %x, %ch1
  tfrt.return %ch2 : !tfrt.chain
}
// CHECK-NEXT: 'cancelled' returned <<error: Cancelled>>
// CODE: 'cancelled' returned <<error: Cancelled, code: CANCELLED>>

// CHECK-LABEL: --- Not running 'takes_args' because it has arguments.
func.func @takes_args(%x: i32) -> i32 {
  tfrt.return %x : i32
}
