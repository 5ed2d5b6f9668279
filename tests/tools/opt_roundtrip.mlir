// tfrt_opt prints what MLIR prints, and what it prints it reads back.
// RUN: tfrt_opt -allow-unregistered-dialect %s | tfrt_opt -allow-unregistered-dialect | FileCheck %s
// RUN: tfrt_opt -allow-unregistered-dialect %s --mlir-print-op-generic | tfrt_opt -allow-unregistered-dialect | FileCheck %s
// RUN: tfrt_opt -allow-unregistered-dialect %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: module {
// CHECK-NEXT: func.func @select(%arg0: i1, %arg1: i32, %arg2: i32) -> i32 {
func.func @select(%c: i1, %a: i32, %b: i32) -> i32 {
  // Region arguments print with the names of the operands they stand for.
  // CHECK-NEXT: %0 = tfrt.if %arg0, %arg1, %arg2 : (i32, i32) -> (i32) {
  // CHECK-NEXT:   %1 = tfrt.add.i32 %arg1, %arg2
  // CHECK-NEXT:   tfrt.return %1 : i32
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   tfrt.return %arg2 : i32
  // CHECK-NEXT: }
  // GENERIC: "tfrt.if"(%arg0, %arg1, %arg2) ({
  // GENERIC-NEXT: ^bb0(%arg3: i32, %arg4: i32):
  // GENERIC-NEXT:   %1 = "tfrt.add.i32"(%arg3, %arg4) : (i32, i32) -> i32
  %r = tfrt.if %c, %a, %b : (i32, i32) -> (i32) {
    %s = tfrt.add.i32 %a, %b
    tfrt.return %s : i32
  } else {
    tfrt.return %b : i32
  }
  // CHECK-NEXT: tfrt.return %0 : i32
  tfrt.return %r : i32
}

// CHECK: func.func @loop(%arg0: i32, %arg1: f32) -> (i32, f32) {
func.func @loop(%n: i32, %f: f32) -> (i32, f32) {
  // CHECK-NEXT: %0:2 = tfrt.repeat.i32 %arg0, %arg0, %arg1 : i32, f32 {
  %a, %b = tfrt.repeat.i32 %n, %n, %f : i32, f32 {
    tfrt.return %n, %f : i32, f32
  }
  // CHECK: tfrt.return %0#0, %0#1 : i32, f32
  tfrt.return %a, %b : i32, f32
}

// CHECK: func.func @constants() {
func.func @constants() {
  // CHECK-NEXT: %0 = tfrt.constant.f32 1.000000e-01
  // CHECK-NEXT: %1 = tfrt.constant.i1 true
  // CHECK-NEXT: "t.attrs"() {a = [1, 2 : i32], b = 2.500000e+00 : f64, z = "s"} : () -> ()
  %0 = tfrt.constant.f32 0.1
  %1 = tfrt.constant.i1 true
  "t.attrs"() {z = "s", b = 2.5 : f64, a = [1, 2 : i32]} : () -> ()
  tfrt.return
}
