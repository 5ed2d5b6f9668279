// -split-input-file keeps each chunk's line numbers; -verify-diagnostics
// matches every error against the annotations.
// RUN: tfrt_opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: not tfrt_opt %s -split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: func.func @good
func.func @good(%x: i32) -> i32 {
  tfrt.return %x : i32
}

// -----

func.func @bad_return(%x: i32) {
  // ERR: opt_diagnostics.mlir:[[# @LINE + 2]]:3: error: 'tfrt.return' op has 1 operands, but enclosing function returns 0
  // expected-error @+1 {{'tfrt.return' op has 1 operands, but enclosing function returns 0}}
  tfrt.return %x : i32
}

// -----

// CHECK: // -----
// CHECK: func.func @also_good
func.func @also_good() {
  tfrt.return
}
