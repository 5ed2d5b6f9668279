// printf.print_format lowers to tfrt_scalar.print; insert-chains threads one
// chain through prints, loops, branches, calls and while loops in program order.
// RUN: tfrt_compile %s -O0 --emit=mlir | FileCheck %s
// RUN: bef_executor %s --function=main --input=2 --input=f32=1.5 --work_queue_type=mstd:4 | FileCheck %s --check-prefix=OUT

// CHECK-LABEL: func.func @show(%arg0: f32) -> f32 {
// CHECK-NEXT:    %[[C:.*]] = tfrt.new.chain
// CHECK-NEXT:    tfrt_scalar.print %[[C]], %arg0 {format = "show {}\0A"}
// CHECK-NEXT:    tfrt.return %arg0 : f32
// CHECK-LABEL: func.func private @show.chained(%arg0: f32, %arg1: !tfrt.chain) -> (f32, !tfrt.chain) {
// CHECK-NEXT:    %[[P:.*]] = tfrt_scalar.print %arg1, %arg0
// CHECK-NEXT:    tfrt.return %arg0, %[[P]] : f32, !tfrt.chain
func.func @show(%v: f32) -> f32 {
  printf.print_format "show {}\n", %v : f32
  return %v : f32
}

// CHECK-LABEL: func.func @main(
// CHECK:         %[[C0:.*]] = tfrt.new.chain
// CHECK:         %[[C1:.*]] = tfrt_scalar.print %[[C0]], %arg1 {format = "start {}\0A"}
// CHECK:         %[[L:.*]]:4 = tfrt.repeat.i32 %{{.*}}, %[[C1]] : i64, f32, i64, !tfrt.chain {
// CHECK-NEXT:      %[[C2:.*]] = tfrt_scalar.print %[[C1]],
// CHECK:           tfrt.return %{{.*}}, %{{.*}}, %{{.*}}, %[[C2]] : i64, f32, i64, !tfrt.chain
// CHECK:         %[[C3:.*]] = tfrt.if %{{.*}}, %[[L]]#3 : (i1, !tfrt.chain) -> (!tfrt.chain) {
// CHECK-NEXT:      %[[C4:.*]] = tfrt_scalar.print %[[L]]#3, %{{.*}} {format = "grew {}\0A"}
// CHECK-NEXT:      tfrt.return %[[C4]] : !tfrt.chain
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tfrt.return %[[L]]#3 : !tfrt.chain
// CHECK:         %[[S:.*]]:2 = tfrt.call @show.chained(%[[L]]#1, %[[C3]]) : (f32, !tfrt.chain) -> (f32, !tfrt.chain)
// CHECK:         %[[W:.*]]:5 = tfrt.while %{{.*}} @main_while_1(%[[S]]#0, %{{.*}}, %{{.*}}, %{{.*}}, %[[S]]#1) parallel_iterations(1) : (f32, i64, i64, i64, !tfrt.chain) -> (f32, i64, i64, i64, !tfrt.chain)
// CHECK:         tfrt_scalar.print %[[W]]#4 {format = "end\0A"}
// CHECK-LABEL: func.func @main_while_1(%arg0: f32, %arg1: i64, %arg2: i64, %arg3: i64, %arg4: !tfrt.chain) -> (f32, i64, i64, i64, !tfrt.chain, i1) {
// CHECK-NEXT:    %[[B:.*]] = tfrt_scalar.print %arg4, %arg1 {format = "body {}\0A"}
// CHECK:         tfrt.return %arg0, %{{.*}}, %arg2, %arg3, %[[B]], %{{.*}} : f32, i64, i64, i64, !tfrt.chain, i1

// OUT:      EXEC @main
// OUT-NEXT: start 1.5
// OUT-NEXT: iter 0 acc 1.5
// OUT-NEXT: iter 1 acc 3.0
// OUT-NEXT: grew 1
// OUT-NEXT: show 6.0
// OUT-NEXT: body 0
// OUT-NEXT: body 1
// OUT-NEXT: end
// OUT-NEXT: result[0]: f32=6
func.func @main(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  printf.print_format "start {}\n", %x : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    printf.print_format "iter {} acc {}\n", %i : index, %acc : f32
    %y = arith.addf %acc, %acc : f32
    scf.yield %y : f32
  }
  %p = arith.cmpf ogt, %r, %x : f32
  scf.if %p {
    printf.print_format "grew {}\n", %p : i1
  }
  %s = func.call @show(%r) : (f32) -> f32
  %w:2 = scf.while (%a = %s, %k = %c0) : (f32, index) -> (f32, index) {
    %lt = arith.cmpi slt, %k, %c2 : index
    scf.condition(%lt) %a, %k : f32, index
  } do {
  ^bb0(%a2: f32, %k2: index):
    printf.print_format "body {}\n", %k2 : index
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %a2, %k3 : f32, index
  }
  printf.print_format "end\n"
  return %w#0 : f32
}
