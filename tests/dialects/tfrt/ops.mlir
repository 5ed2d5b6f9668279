// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @constants()
func.func @constants() {
  // CHECK-NEXT: %0 = tfrt.constant.i1 false
  %a = tfrt.constant.i1 false
  // CHECK-NEXT: %1 = tfrt.constant.i1 true
  %b = tfrt.constant.i1 1
  // CHECK-NEXT: %2 = tfrt.constant.i32 -41
  %c = tfrt.constant.i32 -41
  // CHECK-NEXT: %3 = tfrt.constant.i64 42
  %d = tfrt.constant.i64 42
  // CHECK-NEXT: %4 = tfrt.constant.ui32 4095
  %e = tfrt.constant.ui32 4095
  // CHECK-NEXT: %5 = tfrt.constant.ui64 18446744073709551615
  %f = tfrt.constant.ui64 18446744073709551615
  // CHECK-NEXT: %6 = tfrt.constant.f16 1.500000e+00
  %g = tfrt.constant.f16 1.5
  // CHECK-NEXT: %7 = tfrt.constant.bf16 1.500000e+00
  %h = tfrt.constant.bf16 1.5
  // CHECK-NEXT: %8 = tfrt.constant.f32 1.000000e-01
  %i = tfrt.constant.f32 0.1
  // CHECK-NEXT: %9 = tfrt.constant.f64 2.500000e-01
  %j = tfrt.constant.f64 0.25
  // CHECK-NEXT: %10 = tfrt.constant.complex64 1.000000e+00, -2.000000e+00
  %k = tfrt.constant.complex64 1.0, -2.0
  // CHECK-NEXT: %11 = tfrt.constant.complex128 1.000000e+00, 2.000000e+00
  %l = tfrt.constant.complex128 1.0, 2.0
  // CHECK-NEXT: %12 = tfrt.constant_s.i64 7
  %m = tfrt.constant_s.i64 7
  // CHECK-NEXT: %13 = tfrt.constant_s.f16 1.000000e+00
  %n = tfrt.constant_s.f16 1.0
  // CHECK-NEXT: %14 = tfrt.constant_s.f32 1.000000e+00
  %o = tfrt.constant_s.f32 1.0
  // CHECK-NEXT: %15 = tfrt.constant_s.f64 1.000000e+00
  %p = tfrt.constant_s.f64 1.0
  // CHECK-NEXT: tfrt.return
  tfrt.return
}

// CHECK-LABEL: func.func @arithmetic(
func.func @arithmetic(%x: i32, %y: i64, %f: f32, %d: f64, %c: i1) {
  // CHECK-NEXT: tfrt.add.i32 %arg0, %arg0
  %0 = tfrt.add.i32 %x, %x
  // CHECK-NEXT: tfrt.add.i64 %arg1, %arg1
  %1 = tfrt.add.i64 %y, %y
  // CHECK-NEXT: tfrt.add.f32 %arg2, %arg2
  %2 = tfrt.add.f32 %f, %f
  // CHECK-NEXT: tfrt.add.f64 %arg3, %arg3
  %3 = tfrt.add.f64 %d, %d
  // CHECK-NEXT: tfrt.and.i1 %arg4, %arg4
  %4 = tfrt.and.i1 %c, %c
  // CHECK-NEXT: tfrt.equal.i32 %arg0, %arg0
  %5 = tfrt.equal.i32 %x, %x
  // CHECK-NEXT: tfrt.equal.i64 %arg1, %arg1
  %6 = tfrt.equal.i64 %y, %y
  // CHECK-NEXT: %{{.*}}:2 = tfrt.div.i32 %arg0, %arg0
  %q, %r = tfrt.div.i32 %x, %x
  // CHECK-NEXT: %{{.*}}:2 = tfrt.div.i64 %arg1, %arg1
  %q2, %r2 = tfrt.div.i64 %y, %y
  // CHECK-NEXT: tfrt.mul.i32 %arg0, %arg0
  %7 = tfrt.mul.i32 %x, %x
  // CHECK-NEXT: tfrt.mul.i64 %arg1, %arg1
  %8 = tfrt.mul.i64 %y, %y
  // CHECK-NEXT: tfrt.mul_s.i32 %arg0, %arg0
  %9 = tfrt.mul_s.i32 %x, %x
  // CHECK-NEXT: tfrt.mul_s.i64 %arg1, %arg1
  %10 = tfrt.mul_s.i64 %y, %y
  // Kernels without an op definition keep the generic form, as in TFRT.
  // CHECK-NEXT: "tfrt.lessequal.i32"(%arg0, %arg0) : (i32, i32) -> i1
  %11 = "tfrt.lessequal.i32"(%x, %x) : (i32, i32) -> i1
  // CHECK-NEXT: "tfrt.minimum.f32"(%arg2, %arg2) : (f32, f32) -> f32
  %12 = "tfrt.minimum.f32"(%f, %f) : (f32, f32) -> f32
  // CHECK-NEXT: "tfrt.cast.i64_to_f64"(%arg1) : (i64) -> f64
  %13 = "tfrt.cast.i64_to_f64"(%y) : (i64) -> f64
  tfrt.return
}

// CHECK-LABEL: func.func @chains(
func.func @chains(%x: i32) -> !tfrt.chain {
  // CHECK-NEXT: %[[CH:.*]] = tfrt.new.chain
  %ch0 = tfrt.new.chain
  // CHECK-NEXT: %[[P:.*]] = tfrt.print.i32 %arg0, %[[CH]]
  %ch1 = tfrt.print.i32 %x, %ch0
  // CHECK-NEXT: tfrt.merge.chains %[[CH]], %[[P]], %arg0 : !tfrt.chain, !tfrt.chain, i32
  %ch2 = tfrt.merge.chains %ch0, %ch1, %x : !tfrt.chain, !tfrt.chain, i32
  // CHECK-NEXT: tfrt.get_device %{{.*}} {device_name = "GPU:0"}
  %dev = tfrt.get_device %ch2 {device_name = "GPU:0"}
  tfrt.return %ch2 : !tfrt.chain
}

func.func @callee(%a: i32) -> i32 {
  tfrt.return %a : i32
}

func.func @loop_body(%a: i32) -> (i32, i1) {
  %f = tfrt.constant.i1 false
  tfrt.return %a, %f : i32, i1
}

func.func @block(%start: i32, %end: i32, %v: f32) -> !tfrt.chain {
  %ch = tfrt.new.chain
  tfrt.return %ch : !tfrt.chain
}

// CHECK-LABEL: func.func @calls(
func.func @calls(%c: i1, %x: i32, %f: f32) -> i32 {
  // CHECK-NEXT: tfrt.call @callee(%arg1) : (i32) -> i32
  %0 = tfrt.call @callee(%x) : (i32) -> i32
  // CHECK-NEXT: tfrt.cond %arg0 @callee @callee(%arg1) : (i32) -> (i32)
  %1 = tfrt.cond %c @callee @callee (%x) : (i32) -> (i32)
  // CHECK-NEXT: tfrt.case %arg1 [@callee, @callee](%arg1) : (i32) -> (i32)
  %2 = tfrt.case %x [@callee, @callee] (%x) : (i32) -> (i32)
  // CHECK-NEXT: tfrt.while %arg0 @loop_body(%arg1) parallel_iterations(4) : (i32) -> (i32)
  %3 = tfrt.while %c @loop_body(%x) parallel_iterations(4) : (i32) -> (i32)
  // CHECK-NEXT: tfrt.once @callee(%arg1) : (i32) -> (i32)
  %4 = tfrt.once @callee(%x) : (i32) -> (i32)
  // CHECK-NEXT: tfrt.parallel_call.i32 %arg1 to %arg1 fixed %arg1 @block(%arg2) : f32
  %5 = tfrt.parallel_call.i32 %x to %x fixed %x @block(%f) : f32
  tfrt.return %0 : i32
}

// CHECK-LABEL: func.func @regions(
func.func @regions(%c: i1, %x: i32, %f: f32) -> i32 {
  // CHECK-NEXT: %[[IF:.*]] = tfrt.if %arg0, %arg1 : (i32) -> (i32) {
  // CHECK-NEXT:   tfrt.return %arg1 : i32
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   %{{.*}} = tfrt.add.i32 %arg1, %arg1
  // CHECK-NEXT:   tfrt.return %{{.*}} : i32
  // CHECK-NEXT: }
  %r = tfrt.if %c, %x : (i32) -> i32 {
    tfrt.return %x : i32
  } else {
    %y = tfrt.add.i32 %x, %x
    tfrt.return %y : i32
  }
  // A missing else stands for an else that only returns.
  // CHECK-NEXT: tfrt.if %arg0 : () -> () {
  // CHECK-NEXT:   tfrt.return
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   tfrt.return
  // CHECK-NEXT: }
  tfrt.if %c : () -> () {
    tfrt.return
  }
  // CHECK-NEXT: %{{.*}}:2 = tfrt.repeat.i32 %arg1, %arg1, %arg2 : i32, f32 {
  // CHECK-NEXT:   tfrt.return %arg1, %arg2 : i32, f32
  // CHECK-NEXT: }
  %l:2 = tfrt.repeat.i32 %x, %x, %f : i32, f32 {
    tfrt.return %x, %f : i32, f32
  }
  // CHECK-NEXT: tfrt.repeat.i32 %arg1 {
  tfrt.repeat.i32 %x {
    tfrt.return
  }
  // CHECK: tfrt.parallel_for.i32 %arg1 to %arg1 fixed %arg1, %arg2 : f32 {
  // CHECK-NEXT:   tfrt.add.i32 %arg1, %arg1
  // CHECK-NEXT:   tfrt.return
  %d = tfrt.parallel_for.i32 %x to %x fixed %x, %f : f32 {
    %s = tfrt.add.i32 %x, %x
    tfrt.return
  }
  // CHECK: tfrt.return %[[IF]] : i32
  tfrt.return %r : i32
}
