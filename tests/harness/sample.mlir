// Checks the .mlir collector itself: substitutions, pipes, `not`.
// RUN: cat %s | FileCheck %s
// RUN: not false
// RUN: echo %S | FileCheck --check-prefix=DIR %s
// CHECK: Checks the .mlir collector
// DIR: harness
