// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @while_loop(
func.func @while_loop(%x: i32, %y: f32, %b: i1) -> (i32, f32) {
  // CHECK: %[[W:.*]]:2 = scf.while (%[[A:.*]] = %arg0, %[[C:.*]] = %arg1) : (i32, f32) -> (i32, f32) {
  %r:2 = scf.while (%a = %x, %c = %y) : (i32, f32) -> (i32, f32) {
    // CHECK-NEXT: scf.condition(%arg2) %[[A]], %[[C]] : i32, f32
    scf.condition(%b) %a, %c : i32, f32
  // CHECK-NEXT: } do {
  } do {
  // CHECK-NEXT: ^bb0(%[[A2:.*]]: i32, %[[C2:.*]]: f32):
  ^bb0(%a2: i32, %c2: f32):
    // CHECK-NEXT: scf.yield %[[A2]], %[[C2]] : i32, f32
    scf.yield %a2, %c2 : i32, f32
  }
  // MLIR's spelling without operands; xDSL prints an empty `()`.
  // CHECK: scf.while () : () -> () {
  scf.while : () -> () {
    scf.condition(%b)
  } do {
    scf.yield
  // CHECK: } attributes {tag = "w"}
  } attributes {tag = "w"}
  return %r#0, %r#1 : i32, f32
}

// CHECK-LABEL: func.func @parallel_loop(
func.func @parallel_loop(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  // CHECK: "scf.parallel"(%c0, %c0, %arg0, %arg0, %c1, %c1, %cst) <{operandSegmentSizes = array<i32: 2, 2, 2, 1>}> ({
  // CHECK-NEXT: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
  %p = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) init (%z) -> f32 {
    // CHECK-NEXT: arith.addi %[[I]], %[[J]] : index
    %k = arith.addi %i, %j : index
    %v = arith.constant 1.0 : f32
    // CHECK: scf.reduce(%{{.*}} : f32) {
    scf.reduce(%v : f32) {
    // CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
    ^bb0(%l: f32, %r: f32):
      // CHECK-NEXT: %[[S:.*]] = arith.addf %[[L]], %[[R]] : f32
      %s = arith.addf %l, %r : f32
      // CHECK-NEXT: scf.reduce.return %[[S]] : f32
      scf.reduce.return %s : f32
    }
  // CHECK: }) : (index, index, index, index, index, index, f32) -> f32
  }
  // CHECK: "scf.parallel"(%c0, %arg0, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  // CHECK-NEXT: ^bb0(%{{.*}}: index):
  // CHECK-NEXT: scf.reduce
  // CHECK-NEXT: }) : (index, index, index) -> ()
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
  }
  return %p : f32
}

// CHECK-LABEL: func.func @regions(
func.func @regions(%x: i32, %y: f32, %n: index) -> i32 {
  // CHECK: %{{.*}}:2 = scf.execute_region -> (i32, f32) {
  // CHECK-NEXT: scf.yield %arg0, %arg1 : i32, f32
  %e:2 = scf.execute_region -> (i32, f32) {
    scf.yield %x, %y : i32, f32
  }
  // CHECK: scf.execute_region -> i32 {
  // CHECK: } {tag = 1 : i64}
  %e1 = scf.execute_region -> i32 {
    scf.yield %x : i32
  } {tag = 1 : i64}
  // CHECK: %[[SW:.*]] = scf.index_switch %arg2 -> i32
  // CHECK-NEXT: case 2 {
  // CHECK-NEXT: scf.yield %arg0 : i32
  // CHECK-NEXT: }
  // CHECK-NEXT: case -5 {
  // CHECK-NEXT: scf.yield %{{.*}} : i32
  // CHECK-NEXT: }
  // CHECK-NEXT: default {
  // CHECK-NEXT: scf.yield %arg0 : i32
  // CHECK-NEXT: }
  %s = scf.index_switch %n -> i32
  case 2 {
    scf.yield %x : i32
  }
  case -5 {
    scf.yield %e1 : i32
  }
  default {
    scf.yield %x : i32
  }
  // CHECK: scf.index_switch %arg2
  // CHECK-NEXT: default {
  // CHECK-NEXT: scf.yield
  // CHECK-NEXT: }
  scf.index_switch %n
  default {
  }
  return %s : i32
}

// CHECK-LABEL: func.func @switch(
func.func @switch(%flag: i32, %a: i32) {
  // CHECK: cf.switch %arg0 : i32, [
  // CHECK-NEXT: default: ^bb1(%arg1 : i32),
  // CHECK-NEXT: 42: ^bb2,
  // CHECK-NEXT: -3: ^bb3(%arg1, %arg0 : i32, i32)
  // CHECK-NEXT: ]
  cf.switch %flag : i32, [
    default: ^bb1(%a : i32),
    42: ^bb2,
    -3: ^bb3(%a, %flag : i32, i32)
  ]
^bb1(%p: i32):
  // CHECK: cf.br ^bb2
  cf.br ^bb2
^bb2:
  return
^bb3(%q: i32, %w: i32):
  // CHECK: cf.switch %arg0 : i32, [
  // CHECK-NEXT: default: ^bb2
  // CHECK-NEXT: ]
  cf.switch %flag : i32, [
    default: ^bb2
  ]
}
