// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s
// RUN: tfrt_opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// The maps print under MLIR's aliases, defined before the module.
// CHECK: #map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1) -> (d0)>
// CHECK-NEXT: module {

// CHECK-LABEL: func.func @compares(
// GENERIC-LABEL: sym_name = "compares"
func.func @compares(%a: i32, %b: i32, %x: f32, %y: f32) -> (i1, i1, i1) {
  // CHECK-NEXT: %0 = arith.cmpi slt, %arg0, %arg1 : i32
  // GENERIC: "arith.cmpi"(%arg0, %arg1) <{predicate = 2 : i64}> : (i32, i32) -> i1
  %0 = arith.cmpi slt, %a, %b : i32
  // xDSL prints no attributes for the comparisons; they are parsed.
  // CHECK-NEXT: %1 = arith.cmpi uge, %arg0, %arg1 : i32
  // GENERIC-NEXT: "arith.cmpi"(%arg0, %arg1) <{predicate = 9 : i64}> {tag = 1 : i64} : (i32, i32) -> i1
  %1 = arith.cmpi "uge", %a, %b {tag = 1} : i32
  // CHECK-NEXT: %2 = arith.cmpf true, %arg2, %arg3 fastmath<nnan,ninf> : f32
  // GENERIC-NEXT: "arith.cmpf"(%arg2, %arg3) <{fastmath = #arith.fastmath<nnan,ninf>, predicate = 15 : i64}> : (f32, f32) -> i1
  %2 = arith.cmpf true, %x, %y fastmath<nnan,ninf> : f32
  func.return %0, %1, %2 : i1, i1, i1
}

// CHECK-LABEL: func.func @casts(
func.func @casts(%a: i32, %x: f32) -> i64 {
  // CHECK-NEXT: %0 = builtin.unrealized_conversion_cast %arg0 : i32 to i64
  %0 = builtin.unrealized_conversion_cast %a : i32 to i64
  // CHECK-NEXT: %1:2 = builtin.unrealized_conversion_cast %arg0, %arg1 : i32, f32 to f16, index {tag}
  %1:2 = builtin.unrealized_conversion_cast %a, %x : i32, f32 to f16, index {tag}
  // CHECK-NEXT: %2 = builtin.unrealized_conversion_cast to i8
  %2 = builtin.unrealized_conversion_cast to i8
  // CHECK-NEXT: builtin.unrealized_conversion_cast %arg1 : f32 to
  // CHECK-NEXT: return %0 : i64
  builtin.unrealized_conversion_cast %x : f32 to
  func.return %0 : i64
}

// CHECK-LABEL: func.func @named(
// GENERIC-LABEL: sym_name = "named"
func.func @named(%t: tensor<4x8xf32>, %u: tensor<4x8xf32>, %c: tensor<4x8xi1>, %m: memref<4x8xf32>, %n: memref<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK-NEXT: %0 = linalg.sub ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  // GENERIC: "linalg.sub"(%arg0, %arg1, %arg1) <{operandSegmentSizes = array<i32: 2, 1>}> ({
  // GENERIC-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
  // GENERIC-NEXT: %[[S:.*]] = "arith.subf"(%[[A]], %[[B]])
  // GENERIC-NEXT: "linalg.yield"(%[[S]]) : (f32) -> ()
  // GENERIC-NEXT: }) : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = linalg.sub ins(%t, %u : tensor<4x8xf32>, tensor<4x8xf32>) outs(%u : tensor<4x8xf32>) -> tensor<4x8xf32>
  // xDSL prints the attributes of the elementwise ops after `outs`.
  // CHECK-NEXT: %1 = linalg.mul ins(%0, %arg1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg1 : tensor<4x8xf32>) attrs = {tag = 2 : i64} -> tensor<4x8xf32>
  %1 = linalg.mul {tag = 2} ins(%0, %u : tensor<4x8xf32>, tensor<4x8xf32>) outs(%u : tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %2 = linalg.exp ins(%1 : tensor<4x8xf32>) outs(%arg1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.exp ins(%1 : tensor<4x8xf32>) outs(%u : tensor<4x8xf32>) -> (tensor<4x8xf32>)
  // CHECK-NEXT: %3 = linalg.select ins(%arg2, %2, %arg0 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = linalg.select ins(%c, %2, %t : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%u : tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: linalg.copy ins(%arg3 : memref<4x8xf32>) outs(%arg4 : memref<4x8xf32>)
  // CHECK-NEXT: return %3 : tensor<4x8xf32>
  linalg.copy ins(%m : memref<4x8xf32>) outs(%n : memref<4x8xf32>)
  func.return %3 : tensor<4x8xf32>
}

// A convolution without strides/dilations gets MLIR's default of ones.
// CHECK-LABEL: func.func @conv(
func.func @conv(%i: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %o: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  // CHECK-NEXT: %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%arg2 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %0 = linalg.conv_2d_nchw_fchw ins(%i, %k : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%o : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %0 : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func @structured(
// GENERIC-LABEL: sym_name = "structured"
func.func @structured(%t: tensor<4x8xf32>, %r: tensor<8x4xf32>, %v: tensor<4xf32>, %m: memref<4x8xf32>, %mv: memref<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %0 = linalg.transpose ins(%arg0:tensor<4x8xf32>) outs(%arg1:tensor<8x4xf32>) permutation = [1, 0]
  %0 = linalg.transpose ins(%t : tensor<4x8xf32>) outs(%r : tensor<8x4xf32>) permutation = [1, 0]
  // CHECK-NEXT: %1 = linalg.broadcast ins(%arg2:tensor<4xf32>) outs(%arg0:tensor<4x8xf32>) dimensions = [1]
  %1 = linalg.broadcast ins(%v : tensor<4xf32>) outs(%t : tensor<4x8xf32>) dimensions = [1]
  // The short form calls the payload op on (%init, %in).
  // CHECK-NEXT: %2 = linalg.reduce ins(%1:tensor<4x8xf32>) outs(%arg2:tensor<4xf32>) dimensions = [1]
  // CHECK-NEXT: (%[[IN:.*]]: f32, %[[INIT:.*]]: f32) {
  // CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[INIT]], %[[IN]] : f32
  // CHECK-NEXT: linalg.yield %[[SUM]] : f32
  // CHECK-NEXT: }
  // GENERIC: "linalg.reduce"(%{{.*}}, %arg2) <{dimensions = array<i64: 1>}> ({
  // GENERIC-NEXT: ^bb0(%[[GIN:.*]]: f32, %[[GINIT:.*]]: f32):
  // GENERIC-NEXT: "arith.addf"(%[[GINIT]], %[[GIN]])
  %2 = linalg.reduce { arith.addf } ins(%1 : tensor<4x8xf32>) outs(%v : tensor<4xf32>) dimensions = [1]
  // CHECK-NEXT: linalg.reduce ins(%arg3:memref<4x8xf32>) outs(%arg4:memref<4xf32>) dimensions = [1]
  // CHECK-NEXT: (%[[IN2:.*]]: f32, %[[INIT2:.*]]: f32) {
  // CHECK-NEXT: %[[MAX:.*]] = arith.maximumf %[[IN2]], %[[INIT2]] : f32
  // CHECK-NEXT: linalg.yield %[[MAX]] : f32
  // CHECK-NEXT: }
  linalg.reduce ins(%m : memref<4x8xf32>) outs(%mv : memref<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.maximumf %in, %init : f32
      linalg.yield %s : f32
    }
  // Attributes of the trait dictionary other than the traits are kept (xDSL
  // prints them after `attrs =`).
  // CHECK-NEXT: %3 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>) outs(%2 : tensor<4xf32>) attrs = {tag = 3 : i64} {
  // CHECK-NEXT: ^bb0(%[[P:.*]]: f32, %[[Q:.*]]: f32):
  // CHECK-NEXT: %[[G:.*]] = arith.addf %[[P]], %[[Q]] : f32
  // CHECK-NEXT: linalg.yield %[[G]] : f32
  // CHECK-NEXT: } -> tensor<4xf32>
  %3 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"], tag = 3} ins(%t : tensor<4x8xf32>) outs(%2 : tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  // CHECK-NEXT: return %3 : tensor<4xf32>
  func.return %3 : tensor<4xf32>
}
