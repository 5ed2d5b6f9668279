// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// MLIR's ODS gives an op with more than one named result definition a
// getAsmResultNames, so each result group is printed under its own name
// (ASM_RESULT_NAMES on the op class) instead of as `%4:2`.

// CHECK-LABEL: func.func @names(
func.func @names(%arg: !corert.tensorhandle) {
  %ch = tfrt.new.chain
  %cpu = corert.get_op_handler %ch "cpu"
  // CHECK: %[[C:.*]], %[[R:.*]] = corert.executeop.seq(%{{.*}}, %{{.*}}) "some.op"() : 1
  %op_ch, %res = corert.executeop.seq(%cpu, %ch) "some.op"() : 1
  // CHECK-NEXT: %{{.*}}, %{{.*}}:2 = corert.executeop.seq(%{{.*}}, %{{.*}}) "some.op"() : 2
  %op_ch2, %r:2 = corert.executeop.seq(%cpu, %ch) "some.op"() : 2
  // CHECK-NEXT: %{{[a-z_0-9]+}} = corert.executeop.seq(%{{.*}}, %{{.*}}) "print"(%arg0)
  %op_ch3 = corert.executeop.seq(%cpu, %ch) "print"(%arg) : 0
  tfrt.return
}
