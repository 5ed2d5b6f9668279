// lower-check: expectations become tfrt_check kernels on one chain, in
// program order; util's constants and barriers become tfrt_check.barrier,
// which the optimizer neither folds nor looks through.  tfrt_check runs the
// tests: a failure is reported at its op and the test goes on.
// RUN: tfrt_compile %s --emit=mlir | FileCheck %s
// RUN: not tfrt_check %s | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @passes() {
// CHECK:         %[[C0:.*]] = tfrt.new.chain
// CHECK:         %[[A:.*]] = tfrt_check.barrier %{{.*}} : (tensor<3xf32>) -> tensor<3xf32>
// CHECK:         %[[S:.*]] = tfrt_array.elementwise %[[A]], %[[A]]
// CHECK:         %[[C1:.*]] = tfrt_check.expect_almost_eq %[[C0]], %[[S]], %{{.*}} {atol = 1.000000e-04 : f32, rtol = 0.000000e+00 : f32}
// CHECK:         %[[N:.*]] = tfrt_check.barrier %{{.*}} : (i32) -> i32
// CHECK:         %[[P:.*]] = tfrt_scalar.eval %[[N]] {expr = "a0 * cast_i32(2)"
// CHECK:         %[[C2:.*]] = tfrt_check.expect_true %[[C1]], %[[P]] : (!tfrt.chain, i32) -> !tfrt.chain
// CHECK:         tfrt_check.expect_eq %[[C2]], %[[S]], %{{.*}} : (!tfrt.chain, tensor<3xf32>, tensor<3xf32>) -> !tfrt.chain
// CHECK:         tfrt.return
// OUT: [==========] Running 3 tests from {{.*}}lower_check.mlir
// OUT-NEXT: [ RUN      ] passes
// OUT-NEXT: [       OK ] passes ({{[0-9]+}} ms)
func.func @passes() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %s = arith.addf %a, %a : tensor<3xf32>
  check.expect_almost_eq_const(%s, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>) : tensor<3xf32>
  %n = util.unfoldable_constant 3 : i32
  %c2 = arith.constant 2 : i32
  %p = arith.muli %n, %c2 : i32
  check.expect_true(%p) : i32
  check.expect_eq_const(%s, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}

// Two failures, both reported, in order; the expectation between them runs.
// CHECK-LABEL: func.func @fails() {
// CHECK-COUNT-2: tfrt_check.expect_eq
// CHECK:         tfrt_check.expect_false
// OUT-NEXT: [ RUN      ] fails
// OUT-NEXT: lower_check.mlir:[[# @LINE + 9]]:3: error: check.expect_eq failed: 1 of 4 elements differ; the first at index [1, 0]: computed 3, expected 4
// OUT-NEXT:   computed: tensor<2x2xi32> {{\[\[}}1, 2], [3, 4]]
// OUT-NEXT:   expected: tensor<2x2xi32> {{\[\[}}1, 2], [4, 4]]
// OUT-NEXT: lower_check.mlir:[[# @LINE + 8]]:3: error: check.expect_false failed: the value is 1; expected zero
// OUT-NEXT: [  FAILED  ] fails ({{[0-9]+}} ms)
func.func @fails() {
  %t = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %one = util.unfoldable_constant 1 : i32
  %b = util.optimization_barrier %t : tensor<2x2xi32>
  check.expect_eq_const(%b, dense<[[1, 2], [4, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  check.expect_eq(%t, %b) : tensor<2x2xi32>
  check.expect_false(%one) : i32
  return
}

// Expectations inside control flow are ordered by the chain too.
// CHECK-LABEL: func.func @branches() {
// CHECK:         tfrt.if
// CHECK:           tfrt_check.expect_true
// CHECK:         tfrt.repeat.i32
// CHECK:           tfrt_check.expect_all_true
// OUT-NEXT: [ RUN      ] branches
// OUT-NEXT: [       OK ] branches ({{[0-9]+}} ms)
// OUT-NEXT: [==========] 3 tests ran.
// OUT-NEXT: [  PASSED  ] 2 tests.
// OUT-NEXT: [  FAILED  ] 1 test, listed below:
// OUT-NEXT: [  FAILED  ] fails
func.func @branches() {
  %cond = util.unfoldable_constant 1 : i1
  %one = util.unfoldable_constant 1 : i32
  %t = util.unfoldable_constant dense<[1, 5]> : tensor<2xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.if %cond {
    check.expect_true(%one) : i32
  }
  scf.for %i = %c0 to %c3 step %c1 {
    check.expect_all_true(%t) : tensor<2xi32>
  }
  return
}
