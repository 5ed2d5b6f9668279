// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @return_count(%x: i32) {
  // expected-error @+1 {{'tfrt.return' op has 1 operands, but enclosing function returns 0}}
  tfrt.return %x : i32
}

// -----

func.func @return_type(%x: i32) -> !tfrt.chain {
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('!tfrt.chain')}}
  tfrt.return %x : i32
}

// -----

func.func @if_return(%c: i1, %x: i32) -> i32 {
  tfrt.if %c, %x : (i32) -> () {
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.if' result}}
    tfrt.return %x : i32
  }
  tfrt.return %x : i32
}

// -----

func.func @repeat_return(%n: i32, %x: f32) {
  %r = tfrt.repeat.i32 %n, %x : f32 {
    %k = tfrt.constant.i32 1
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.repeat.i32' result}}
    tfrt.return %k : i32
  }
  tfrt.return
}

// -----

func.func @parallel_for_return(%x: i32) {
  %d = tfrt.parallel_for.i32 %x to %x fixed %x {
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.parallel_for.i32' result}}
    tfrt.return %x : i32
  }
  tfrt.return
}

// -----

func.func @missing_callee(%x: i32) {
  // expected-error @+1 {{'tfrt.call' op 'missing' does not reference a valid function}}
  tfrt.call @missing(%x) : (i32) -> ()
  tfrt.return
}

// -----

func.func @g(%a: i32) -> i32 {
  tfrt.return %a : i32
}

func.func @call_operands(%x: i32) {
  // expected-error @+1 {{'tfrt.call' op incorrect number of operands for callee}}
  %r = tfrt.call @g(%x, %x) : (i32, i32) -> i32
  tfrt.return
}

// -----

func.func @g(%a: i32) -> i32 {
  tfrt.return %a : i32
}

func.func @call_result_type(%x: i32) {
  // expected-error @+1 {{'tfrt.call' op result type mismatch}}
  %r = tfrt.call @g(%x) : (i32) -> f32
  tfrt.return
}

// -----

func.func @g(%a: i32) -> i32 {
  tfrt.return %a : i32
}

func.func @cond_operands(%c: i1, %x: f32) {
  // expected-error @+1 {{'tfrt.cond' op operand type mismatch for true function}}
  %r = tfrt.cond %c @g @g (%x) : (f32) -> (i32)
  tfrt.return
}

// -----

func.func @p(%s: i32, %e: i32) -> i32 {
  tfrt.return %s : i32
}

func.func @parallel_call_result(%x: i32) {
  // expected-error @+1 {{'tfrt.parallel_call.i32' op async callee must return a chain}}
  %d = tfrt.parallel_call.i32 %x to %x fixed %x @p()
  tfrt.return
}

// -----

func.func @operand_type(%a: i64) {
  // expected-error @+1 {{'tfrt.add.i32' op operand #0 must be 32-bit signless integer, but got 'i64'}}
  %r = "tfrt.add.i32"(%a, %a) : (i64, i64) -> i32
  tfrt.return
}

// -----

func.func @result_type() {
  // expected-error @+1 {{'tfrt.new.chain' op result #0 must be !tfrt.chain type, but got 'i32'}}
  %r = "tfrt.new.chain"() : () -> i32
  tfrt.return
}

// -----

func.func @missing_attribute() {
  // expected-error @+1 {{'tfrt.constant.i32' op requires attribute 'value'}}
  %r = "tfrt.constant.i32"() : () -> i32
  tfrt.return
}

// -----

func.func @repeat_results(%n: i32) {
  // expected-error @+1 {{'tfrt.repeat.i32' op incorrect number of operands}}
  %r:2 = "tfrt.repeat.i32"(%n, %n) ({
  ^bb0(%a: i32):
    tfrt.return %a : i32
  }) : (i32, i32) -> (i32, i32)
  tfrt.return
}
