// RUN: tfrt_translate -mlir-to-bef --disable-optional-sections %s | tfrt_translate -bef-to-mlir --mlir-print-op-generic 2>&1 | FileCheck %s

// Without the optional sections, bef -> mlir invents attribute names and
// `none` types, and says so.

// CHECK: warning: Missing AttributeTypes, AttributeNames or RegisterTypes sections.
// CHECK: "func.func"
// CHECK-SAME: sym_name = "answer"
func.func @answer() -> i32 {
  // CHECK-NEXT: [[X:%.*]] = "my.op"() {attr0 = {{.*}}, attr1 = {{.*}}} : () -> none
  // CHECK-NEXT: "tfrt.return"([[X]]) : (none) -> ()
  %x = "my.op"() {b = 1 : i32, a = "s"} : () -> i32
  tfrt.return %x : i32
}
