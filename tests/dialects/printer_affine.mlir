// RUN: tfrt_opt %s | FileCheck %s
// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s
// RUN: tfrt_opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: tfrt_opt %s --mlir-print-op-generic | tfrt_opt --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Affine maps and integer sets print in MLIR's syntax under MLIR's aliases:
// one `#mapN`/`#setN` per distinct attribute, all maps before all sets, each
// numbered in order of first appearance, defined before the top-level op.

#matmul_a = affine_map<(m, n, k) -> (m, k)>
#matmul_b = affine_map<(m, n, k) -> (k, n)>
#matmul_c = affine_map<(m, n, k) -> (m, n)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bcast = affine_map<(d0, d1) -> (d1)>
#guard = affine_set<(d0)[s0] : (d0 - s0 >= 0, s0 - d0 - 1 >= 0)>

// CHECK:      #map = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-NEXT: #map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-NEXT: #map3 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NEXT: #map4 = affine_map<(d0, d1) -> (d1)>
// CHECK-NEXT: #map5 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #map6 = affine_map<() -> ()>
// CHECK-NEXT: #map7 = affine_map<()[s0, s1] -> (s0 - s1 * 3)>
// CHECK-NEXT: #map8 = affine_map<(d0)[s0] -> (d0 * 32 - s0, d0 floordiv 4, (d0 + s0) mod 3, -d0, d0 ceildiv 2 + 7)>
// CHECK-NEXT: #map9 = affine_map<(d0)[s0] -> (d0 + s0)>
// CHECK-NEXT: #set = affine_set<(d0)[s0] : (d0 - s0 >= 0, s0 - d0 - 1 >= 0)>
// CHECK-NEXT: #set1 = affine_set<(d0, d1) : (d0 - d1 * 2 == 0)>
// CHECK-NEXT: module {

// In the generic form an op's regions come before its own attributes.
// GENERIC:      #map = affine_map<(d0, d1, d2) -> (d0, d2)>
// GENERIC-NEXT: #map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
// GENERIC-NEXT: #map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
// GENERIC-NEXT: #map3 = affine_map<(d0, d1) -> (d0, d1)>
// GENERIC-NEXT: #map4 = affine_map<(d0, d1) -> (d1)>
// GENERIC-NEXT: #map5 = affine_map<(d0, d1) -> (d1, d0)>
// GENERIC-NEXT: #map6 = affine_map<(d0)[s0] -> (d0 + s0)>
// GENERIC-NEXT: #map7 = affine_map<() -> ()>
// GENERIC-NEXT: #map8 = affine_map<()[s0, s1] -> (s0 - s1 * 3)>
// GENERIC-NEXT: #map9 = affine_map<(d0)[s0] -> (d0 * 32 - s0, d0 floordiv 4, (d0 + s0) mod 3, -d0, d0 ceildiv 2 + 7)>
// GENERIC-NEXT: #set = affine_set<(d0, d1) : (d0 - d1 * 2 == 0)>
// GENERIC-NEXT: #set1 = affine_set<(d0)[s0] : (d0 - s0 >= 0, s0 - d0 - 1 >= 0)>
// GENERIC-NEXT: "builtin.module"() ({

// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT: %0 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%arg2 : tensor<4x16xf32>) {
// CHECK:      %1 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%0 : tensor<4x16xf32>) {
// GENERIC: "linalg.generic"(%arg0, %arg1, %arg2) <{indexing_maps = [#map, #map1, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.generic {indexing_maps = [#matmul_a, #matmul_b, #matmul_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  // The same maps written out again share the aliases.
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%0 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @bias(
// CHECK-SAME: attributes {guard = #set} {
// CHECK-NEXT: %0 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16xf32>) outs(%arg0 : tensor<4x16xf32>) attrs = {check = #set1} {
// GENERIC: "linalg.generic"(%arg0, %arg1, %arg0) <{indexing_maps = [#map3, #map4, #map3],
// GENERIC: }) {check = #set} : (tensor<4x16xf32>, tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// GENERIC: }) {guard = #set1} : () -> ()
func.func @bias(%m: tensor<4x16xf32>, %v: tensor<16xf32>) -> tensor<4x16xf32> attributes {guard = #guard} {
  %0 = linalg.generic {indexing_maps = [#id2, #bcast, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"], check = affine_set<(d0, d1) : (d0 == d1 * 2)>} ins(%m, %v : tensor<4x16xf32>, tensor<16xf32>) outs(%m : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// Maps nested in types and in other attributes use the aliases too; strided
// layouts keep their own syntax.
// CHECK-LABEL: func.func @layouts(
// CHECK-SAME: %arg0: memref<4x4xf32, #map5>, %arg1: memref<8xf32, strided<[2], offset: ?>>, %arg2: index)
// CHECK-SAME: attributes {nested = [#map6, {inner = #map5}], none = #map6, syms = #map7, tile = #map8} {
// CHECK-NEXT: %0 = memref.alloc()[%arg2] : memref<4xf32, #map9>
// GENERIC: ^bb0(%arg0: memref<4x4xf32, #map5>, %arg1: memref<8xf32, strided<[2], offset: ?>>, %arg2: index):
// GENERIC-NEXT: "memref.alloc"(%arg2) <{operandSegmentSizes = array<i32: 0, 1>}> : (index) -> memref<4xf32, #map6>
// GENERIC: }) {nested = [#map7, {inner = #map5}], none = #map7, syms = #map8, tile = #map9} : () -> ()
func.func @layouts(%t: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, %st: memref<8xf32, strided<[2], offset: ?>>, %i: index) attributes {
    tile = affine_map<(d0)[s0] -> (d0 * 32 - s0, d0 floordiv 4, (d0 + s0) mod 3, -d0, d0 ceildiv 2 + 7)>,
    none = affine_map<() -> ()>,
    syms = affine_map<()[s0, s1] -> (s0 + s1 * -3)>,
    nested = [affine_map<() -> ()>, {inner = affine_map<(d0, d1) -> (d1, d0)>}]} {
  %b = memref.alloc()[%i] : memref<4xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  return
}
