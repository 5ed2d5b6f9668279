// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @bad_result() {
  // expected-error @+1 {{'ts.build_shape' op result #0 must be !ts.shape type, but got 'i64'}}
  %a = "ts.build_shape"() {value = [1 : i64]} : () -> i64
  tfrt.return
}

// -----

func.func @bad_operand(%p: !ts.partial_shape) {
  // expected-error @+1 {{'ts.get_num_elements' op operand #0 must be !ts.shape type, but got '!ts.partial_shape'}}
  %n = "ts.get_num_elements"(%p) : (!ts.partial_shape) -> i64
  tfrt.return
}

// -----

func.func @bad_rank(%s: !ts.shape) {
  // expected-error @+1 {{'ts.as_fixed_rank_shape.3' op result #0 must be fixed_rank_shape, but got '!ts.fixed_rank_shape.2'}}
  %f = "ts.as_fixed_rank_shape.3"(%s) : (!ts.shape) -> !ts.fixed_rank_shape.2
  tfrt.return
}

// -----

func.func @bad_value() {
  // expected-error @+1 {{'ts.build_shape' op attribute 'value' failed to satisfy constraint: 64-bit integer array attribute}}
  %a = "ts.build_shape"() {value = [1 : i32]} : () -> !ts.shape
  tfrt.return
}
