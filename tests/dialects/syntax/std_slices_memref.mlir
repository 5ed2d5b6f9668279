// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK: #map = affine_map<(d0)[s0] -> (d0 + s0)>
// CHECK-NEXT: module {
// CHECK: "memref.global"() <{alignment = 64 : i64, constant, initial_value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, sym_name = "cst", sym_visibility = "private", type = memref<2xf32>}> : () -> ()
memref.global "private" constant @cst : memref<2xf32> = dense<[1.0, 2.0]> {alignment = 64}
// CHECK: "memref.global"() <{initial_value, sym_name = "buf", sym_visibility = "public", type = memref<3xf16>}> : () -> ()
memref.global "public" @buf : memref<3xf16> = uninitialized

// CHECK-LABEL: func.func @slices(
func.func @slices(%t: tensor<8x?xf32>, %u: tensor<6x?xf32>, %m: memref<8x16xf32>, %i: index, %j: index, %pad: f32, %s0: tensor<f32>) {
  // CHECK-NEXT: %[[E:.*]] = tensor.extract_slice %arg0[%arg3, 0] [4, %arg4] [1, 2] : tensor<8x?xf32> to tensor<4x?xf32>
  %e = tensor.extract_slice %t[%i, 0] [4, %j] [1, 2] : tensor<8x?xf32> to tensor<4x?xf32>
  // CHECK-NEXT: tensor.insert_slice %[[E]] into %arg0[0, %arg3] [4, %arg4] [%arg3, 1] {tag = 1 : i64} : tensor<4x?xf32> into tensor<8x?xf32>
  %ins = tensor.insert_slice %e into %t[0, %i] [4, %j] [%i, 1] {tag = 1} : tensor<4x?xf32> into tensor<8x?xf32>
  // CHECK-NEXT: tensor.extract_slice %arg6[] [] [] : tensor<f32> to tensor<f32>
  %z = tensor.extract_slice %s0[] [] [] : tensor<f32> to tensor<f32>
  // CHECK-NEXT: %[[X:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2]] output_shape [2, 3, %arg4] : tensor<6x?xf32> into tensor<2x3x?xf32>
  %x = tensor.expand_shape %u [[0, 1], [2]] output_shape [2, 3, %j] : tensor<6x?xf32> into tensor<2x3x?xf32>
  // CHECK-NEXT: tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x3x?xf32> into tensor<6x?xf32>
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x?xf32> into tensor<6x?xf32>
  // CHECK-NEXT: tensor.pad %arg0 nofold low[%arg3, 1] high[2, 0] {
  // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
  // CHECK-NEXT:   tensor.yield %arg5 : f32
  // CHECK-NEXT: } : tensor<8x?xf32> to tensor<?x?xf32>
  %p = tensor.pad %t nofold low[%i, 1] high[2, 0] {
  ^bb0(%a: index, %b: index):
    tensor.yield %pad : f32
  } : tensor<8x?xf32> to tensor<?x?xf32>
  // CHECK-NEXT: %[[S:.*]] = memref.subview %arg2[%arg3, 2] [4, 4] [1, 1] : memref<8x16xf32> to memref<4x4xf32, strided<[16, 1], offset: ?>>
  %s = memref.subview %m[%i, 2] [4, 4] [1, 1] : memref<8x16xf32> to memref<4x4xf32, strided<[16, 1], offset: ?>>
  // CHECK-NEXT: memref.reinterpret_cast %arg2 to offset: [%arg3], sizes: [4, %arg4], strides: [%arg4, 1] : memref<8x16xf32> to memref<4x?xf32, strided<[?, 1], offset: ?>>
  %r = memref.reinterpret_cast %m to offset: [%i], sizes: [4, %j], strides: [%j, 1] : memref<8x16xf32> to memref<4x?xf32, strided<[?, 1], offset: ?>>
  // CHECK-NEXT: %[[ME:.*]] = memref.expand_shape %arg2 {{\[\[}}0, 1], [2]] output_shape [2, 4, 16] : memref<8x16xf32> into memref<2x4x16xf32>
  %me = memref.expand_shape %m [[0, 1], [2]] output_shape [2, 4, 16] : memref<8x16xf32> into memref<2x4x16xf32>
  // CHECK-NEXT: memref.collapse_shape %[[ME]] {{\[\[}}0, 1], [2]] : memref<2x4x16xf32> into memref<8x16xf32>
  %mc = memref.collapse_shape %me [[0, 1], [2]] : memref<2x4x16xf32> into memref<8x16xf32>
  // CHECK-NEXT: return
  func.return
}

// CHECK-LABEL: func.func @memrefs(
func.func @memrefs(%w: memref<10xf32>, %d: index, %s: index, %v: f32) -> f32 {
  // CHECK-NEXT: %[[A:.*]] = memref.alloc(%arg1)[%arg2] {alignment = 64 : i64} : memref<?xf32, #map>
  %a = memref.alloc(%d)[%s] {alignment = 64 : i64} : memref<?xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  // CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  // CHECK-NEXT: "memref.cast"(%[[B]]) : (memref<4xf32>) -> memref<?xf32>
  %c = memref.cast %b : memref<4xf32> to memref<?xf32>
  // CHECK-NEXT: %[[SP:.*]] = "memref.memory_space_cast"(%[[B]]) : (memref<4xf32>) -> memref<4xf32, 1 : i64>
  %sp = memref.memory_space_cast %b : memref<4xf32> to memref<4xf32, 1>
  // CHECK-NEXT: "memref.copy"(%[[B]], %[[B]]) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %b, %b : memref<4xf32> to memref<4xf32>
  // CHECK-NEXT: "memref.rank"(%[[B]]) : (memref<4xf32>) -> index
  %rank = memref.rank %b : memref<4xf32>
  // CHECK-NEXT: "memref.extract_aligned_pointer_as_index"(%[[B]]) : (memref<4xf32>) -> index
  %ptr = memref.extract_aligned_pointer_as_index %b : memref<4xf32> -> index
  // CHECK-NEXT: "memref.atomic_rmw"(%arg3, %arg0, %arg1) <{kind = 0 : i64}> : (f32, memref<10xf32>, index) -> f32
  %o = memref.atomic_rmw addf %v, %w[%d] : (f32, memref<10xf32>) -> f32
  // CHECK-NEXT: "memref.atomic_rmw"(%arg3, %arg0, %arg1) <{kind = 5 : i64}> : (f32, memref<10xf32>, index) -> f32
  %o2 = memref.atomic_rmw maxnumf %v, %w[%d] : (f32, memref<10xf32>) -> f32
  // CHECK-NEXT: %[[SC:.*]] = "memref.alloca_scope"() ({
  // CHECK-NEXT:   "memref.alloca_scope.return"(%arg3) : (f32) -> ()
  // CHECK-NEXT: }) : () -> f32
  %sc = memref.alloca_scope -> (f32) {
    memref.alloca_scope.return %v : f32
  }
  // CHECK-NEXT: "memref.alloca_scope"() ({
  // CHECK-NEXT:   memref.alloca() : memref<4xf32>
  // CHECK-NEXT:   "memref.alloca_scope.return"() : () -> ()
  // CHECK-NEXT: }) : () -> ()
  memref.alloca_scope {
    %t = memref.alloca() : memref<4xf32>
  }
  // CHECK-NEXT: %[[TAG:.*]] = memref.alloc() : memref<1xi32>
  %tag = memref.alloc() : memref<1xi32>
  // CHECK-NEXT: "memref.dma_start"(%[[B]], %arg1, %[[SP]], %arg2, %arg1, %[[TAG]], %arg2) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<4xf32>, index, memref<4xf32, 1 : i64>, index, index, memref<1xi32>, index) -> ()
  memref.dma_start %b[%d], %sp[%s], %d, %tag[%s] : memref<4xf32>, memref<4xf32, 1>, memref<1xi32>
  // CHECK-NEXT: "memref.dma_wait"(%[[TAG]], %arg2, %arg1) : (memref<1xi32>, index, index) -> ()
  memref.dma_wait %tag[%s], %d : memref<1xi32>
  // CHECK-NEXT: return %[[SC]] : f32
  func.return %sc : f32
}
