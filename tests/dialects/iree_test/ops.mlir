// IREE's check and util ops print as they parse (IREE's custom forms), and
// the printed form parses again.
// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @expectations(
func.func @expectations(%i: i32, %t: tensor<2x2xi32>, %f: tensor<2xf32>) {
  // CHECK-NEXT: check.expect_true(%arg0) : i32
  check.expect_true(%i) : i32
  // CHECK-NEXT: check.expect_false(%arg0) : i32
  check.expect_false(%i) : i32
  // CHECK-NEXT: check.expect_all_true(%arg1) : tensor<2x2xi32>
  check.expect_all_true(%t) : tensor<2x2xi32>
  // CHECK-NEXT: check.expect_eq(%arg1, %arg1) : tensor<2x2xi32>
  check.expect_eq(%t, %t) : tensor<2x2xi32>
  // CHECK-NEXT: check.expect_eq_const(%arg1, dense<1> : tensor<2x2xi32>) : tensor<2x2xi32>
  check.expect_eq_const(%t, dense<1> : tensor<2x2xi32>) : tensor<2x2xi32>
  // CHECK-NEXT: check.expect_almost_eq(%arg2, %arg2) : tensor<2xf32>
  check.expect_almost_eq(%f, %f) : tensor<2xf32>
  // CHECK-NEXT: check.expect_almost_eq(%arg2, %arg2, atol 1.230000e+02) : tensor<2xf32>
  check.expect_almost_eq(%f, %f, atol 123.0) : tensor<2xf32>
  // CHECK-NEXT: check.expect_almost_eq(%arg2, %arg2, rtol 1.000000e-03) : tensor<2xf32>
  check.expect_almost_eq(%f, %f, rtol 1.0e-3) : tensor<2xf32>
  // CHECK-NEXT: check.expect_almost_eq_const(%arg2, dense<1.000000e+00> : tensor<2xf32>) : tensor<2xf32>
  check.expect_almost_eq_const(%f, dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  // CHECK-NEXT: check.expect_almost_eq_const(%arg2, dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, atol 2.500000e-01, rtol 1.250000e-01) : tensor<2xf32>
  check.expect_almost_eq_const(%f, dense<[1.0, 2.0]> : tensor<2xf32>, atol 0.25, rtol 0.125) : tensor<2xf32>
  // CHECK-NEXT: return
  return
}

// CHECK-LABEL: func.func @hints(
func.func @hints(%f: tensor<2xf32>, %i: i32) -> (tensor<2xf32>, i32) {
  // CHECK-NEXT: %[[C:.*]] = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %c = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  // CHECK-NEXT: %[[S:.*]] = util.unfoldable_constant 3 : i32
  %s = util.unfoldable_constant 3 : i32
  // CHECK-NEXT: %[[X:.*]] = util.unfoldable_constant 2.500000e+00 : f32
  %x = util.unfoldable_constant 2.5 : f32
  // CHECK-NEXT: %[[B:.*]]:2 = util.optimization_barrier %arg0, %arg1 : tensor<2xf32>, i32
  %b:2 = util.optimization_barrier %f, %i : tensor<2xf32>, i32
  // CHECK-NEXT: util.optimization_barrier{{$}}
  util.optimization_barrier
  // CHECK-NEXT: return %[[B]]#0, %[[B]]#1
  return %b#0, %b#1 : tensor<2xf32>, i32
}
