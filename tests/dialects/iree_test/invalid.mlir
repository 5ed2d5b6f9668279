// The verifiers of IREE's check and util ops: operand types must agree.
// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @eq_types(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'check.expect_eq' op failed to verify that all of {lhs, rhs} have same type ('tensor<2xf32>' vs 'tensor<3xf32>')}}
  "check.expect_eq"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> ()
  return
}

// -----

func.func @almost_eq_types(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{'check.expect_almost_eq' op failed to verify that all of {lhs, rhs} have same type}}
  "check.expect_almost_eq"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> ()
  return
}

// -----

func.func @eq_const_type(%a: tensor<2xf32>) {
  // expected-error @+1 {{'check.expect_eq_const' op failed to verify that all of {lhs, value} have same type ('tensor<2xf32>' vs 'tensor<2xi32>')}}
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xf32>
  return
}

// -----

func.func @true_of_float(%a: f32) {
  // expected-error @+1 {{'check.expect_true' op operand #0 must be signless integer, but got 'f32'}}
  check.expect_true(%a) : f32
  return
}

// -----

func.func @all_true_of_float(%a: tensor<2xf32>) {
  // expected-error @+1 {{'check.expect_all_true' op operand #0 must be tensor of signless integer values, but got 'tensor<2xf32>'}}
  check.expect_all_true(%a) : tensor<2xf32>
  return
}

// -----

func.func @almost_eq_of_integers(%a: tensor<2xi32>) {
  // expected-error @+1 {{'check.expect_almost_eq' op operand #0 must be tensor of floating-point values, but got 'tensor<2xi32>'}}
  check.expect_almost_eq(%a, %a) : tensor<2xi32>
  return
}

// -----

func.func @eq_of_scalars(%a: i32) {
  // expected-error @+1 {{'check.expect_eq' op operand #0 must be tensor, but got 'i32'}}
  check.expect_eq(%a, %a) : i32
  return
}

// -----

func.func @barrier_types(%a: tensor<2xf32>) {
  // expected-error @+1 {{'util.optimization_barrier' op failed to verify that all of {operands, results} have same type}}
  %0 = "util.optimization_barrier"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @unfoldable_type() {
  // expected-error @+1 {{'util.unfoldable_constant' op value of type 'i32' does not match the result type 'i64'}}
  %0 = "util.unfoldable_constant"() {value = 1 : i32} : () -> i64
  return
}
