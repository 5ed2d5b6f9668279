// RUN: tfrt_translate -mlir-to-bef %s | tfrt_translate -bef-to-mlir | FileCheck %s

// MLIR -> BEF -> MLIR keeps functions, kernels, attributes, function
// references and regions.

// CHECK-LABEL: func @double(
// CHECK-SAME: i32) -> i32
func.func @double(%v: i32) -> i32 {
  // CHECK-NEXT: [[SUM:%.*]] = tfrt.add.i32 [[ARG:%.*]], [[ARG]]
  // CHECK-NEXT: tfrt.return [[SUM]] : i32
  %sum = tfrt.add.i32 %v, %v
  tfrt.return %sum : i32
}

// CHECK-LABEL: func @caller() -> i32
func.func @caller() -> i32 {
  // CHECK-NEXT: [[C:%.*]] = tfrt.constant.i32 21
  // CHECK-NEXT: [[R:%.*]] = tfrt.call @double([[C]]) : (i32) -> i32
  // CHECK-NEXT: tfrt.return [[R]] : i32
  %c = tfrt.constant.i32 21
  %r = tfrt.call @double(%c) : (i32) -> i32
  tfrt.return %r : i32
}

// CHECK-LABEL: func @attributes()
func.func @attributes() {
  // CHECK: "my.op"() {dense = dense<[1, 2, 3]> : tensor<3xi64>, flag = true, list = [1 : i32, "two"], name = "text", ty = f32} : () -> ()
  "my.op"() {name = "text", flag = true, ty = f32, list = [1 : i32, "two"], dense = dense<[1, 2, 3]> : tensor<3xi64>} : () -> ()
  tfrt.return
}

// CHECK-LABEL: func @choose
func.func @choose(%c: i1, %a: i32, %b: i32) -> i32 {
  // CHECK: tfrt.if
  // CHECK: tfrt.return {{.*}} : i32
  // CHECK: } else {
  // CHECK: tfrt.return {{.*}} : i32
  %r = tfrt.if %c, %a, %b : (i32, i32) -> (i32) {
    tfrt.return %a : i32
  } else {
    tfrt.return %b : i32
  }
  tfrt.return %r : i32
}

// CHECK-LABEL: func private @from_python
// CHECK-SAME: tfrt.native
func.func private @from_python(i32) -> i32 attributes {tfrt.native}

// CHECK-LABEL: func @in_order
// CHECK-SAME: tfrt.sync
func.func @in_order(%x: i32) -> i32 attributes {tfrt.sync} {
  %y = "my.kernel"(%x) : (i32) -> i32
  tfrt.return %y : i32
}
