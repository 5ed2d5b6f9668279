// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @invalid_cost(%arg: i32) -> i32 {
  // expected-error @+1 {{'tfrt_test.test_cost' op cost value must be larger than 0}}
  %r = tfrt_test.test_cost %arg {id = 0 : i64, _tfrt_cost = 0 : i64} : i32
  tfrt.return %r : i32
}

// -----

func.func @missing_cost(%arg: i32) -> i32 {
  // expected-error @+1 {{'tfrt_test.test_cost' op requires attribute '_tfrt_cost'}}
  %r = tfrt_test.test_cost %arg {id = 0 : i64} : i32
  tfrt.return %r : i32
}

// -----

func.func @do_async_return(%x: i32) {
  %r = tfrt_test.do.async %x : (i32) -> (i32) {
    %c = tfrt.new.chain
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt_test.do.async' result}}
    tfrt.return %c : !tfrt.chain
  }
  tfrt.return
}

// -----

func.func @benchmark_without_result() {
  // expected-error @+1 {{'tfrt_test.benchmark' op incorrect number of return values. One return value is expected}}
  tfrt_test.benchmark "b"() duration_secs = 1, max_count = 1 {
    tfrt.return
  }
  tfrt.return
}

// -----

func.func @target(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @sync_benchmark_result(%x: i32) {
  // expected-error @+1 {{'tfrt_test.sync_benchmark' op Target benchmark function must return zero value.}}
  tfrt_test.sync_benchmark @target(%x : i32) duration_secs = 1, max_count = 1
  tfrt.return
}

// -----

func.func @benchmark_duplicate_keyword() {
  // expected-error @+1 {{duplicate attribute 'max_count'}}
  tfrt_test.benchmark "b"() max_count = 1, max_count = 2 {
    %c = tfrt.constant.i32 1
    tfrt.return %c : i32
  }
  tfrt.return
}
