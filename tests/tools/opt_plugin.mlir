// --load-pass-plugin registers the ModulePass classes of a Python file.
// RUN: tfrt_opt %s --load-pass-plugin %S/pass_plugin.py -count-ops | FileCheck %s
// RUN: tfrt_opt %s --load-pass-plugin=%S/pass_plugin.py --pass-pipeline='builtin.module(count-ops{attribute=n},cse)' | FileCheck %s --check-prefix=OPT

// CHECK: func.func @f(%arg0: i32) -> i32 attributes {tfrt.op_count = 3 : i64} {
// OPT: func.func @f(%arg0: i32) -> i32 attributes {n = 3 : i64} {
func.func @f(%x: i32) -> i32 {
  %a = tfrt.add.i32 %x, %x
  %b = tfrt.add.i32 %a, %a
  tfrt.return %b : i32
}
