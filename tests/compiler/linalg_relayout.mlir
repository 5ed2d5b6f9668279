// linalg.pack, linalg.unpack and linalg.softmax: decompose-linalg rewrites them
// into tensor/linalg/arith/math ops (pad, expand_shape, transpose; transpose,
// collapse_shape, extract_slice; max, exp(x - max), sum, divide), which the
// default pipeline then lowers and runs.
// RUN: tfrt_opt %s | tfrt_opt - | FileCheck %s --check-prefix=ROUND
// RUN: tfrt_opt %s -decompose-linalg | FileCheck %s
// RUN: tfrt_compile %s -o %t.bef
// RUN: (bef_executor %t.bef --function=pack && bef_executor %t.bef --function=unpack && \
// RUN:  bef_executor %t.bef --function=softmax) | FileCheck %s --check-prefix=OUT

// ROUND-LABEL: func.func @pack
// ROUND: %pack = linalg.pack %{{.*}} padding_value(%{{.*}} : i32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [2, 3] into %{{.*}} : tensor<3x5xi32> -> tensor<2x2x2x3xi32>

// CHECK-LABEL: func.func @pack
// CHECK:       %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0] high[1, 1] {
// CHECK:         tensor.yield %{{.*}} : i32
// CHECK:       } : tensor<3x5xi32> to tensor<4x6xi32>
// CHECK:       %[[TILES:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0, 1], [2, 3]] output_shape [2, 2, 2, 3] : tensor<4x6xi32> into tensor<2x2x2x3xi32>
// CHECK:       linalg.transpose ins(%[[TILES]]{{.*}}permutation = [2, 0, 1, 3]
// CHECK-NOT:   linalg.pack

// OUT: EXEC @pack
// OUT-NEXT: result[0]: hal.buffer_view
// OUT-NEXT: 2x2x2x3xi32=[{{\[}}[0 1 2][5 6 7]][{{\[}}10 11 12][-1 -1 -1]]][{{\[}}[3 4 -1][8 9 -1]][{{\[}}13 14 -1][-1 -1 -1]]]
func.func @pack() -> tensor<2x2x2x3xi32> {
  %x = arith.constant dense<[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]]> : tensor<3x5xi32>
  %pad = arith.constant -1 : i32
  %d = tensor.empty() : tensor<2x2x2x3xi32>
  %p = linalg.pack %x padding_value(%pad : i32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1]
      inner_tiles = [2, 3] into %d : tensor<3x5xi32> -> tensor<2x2x2x3xi32>
  return %p : tensor<2x2x2x3xi32>
}

// ROUND-LABEL: func.func @unpack
// ROUND: %unpack = linalg.unpack %{{.*}} outer_dims_perm = [1, 0] inner_dims_pos = [1] inner_tiles = [4] into %{{.*}} : tensor<2x2x4xf32> -> tensor<2x6xf32>

// CHECK-LABEL: func.func @unpack
// CHECK:       %[[T:.*]] = linalg.transpose ins({{.*}}tensor<2x2x4xf32>) outs({{.*}}permutation = [1, 0, 2]
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2]] : tensor<2x2x4xf32> into tensor<2x8xf32>
// CHECK:       tensor.extract_slice %[[FLAT]][0, 0] [2, 6] [1, 1] : tensor<2x8xf32> to tensor<2x6xf32>
// CHECK-NOT:   linalg.unpack

// OUT: EXEC @unpack
// OUT-NEXT: result[0]: hal.buffer_view
// OUT-NEXT: 2x6xf32=[0 1 2 3 8 9][4 5 6 7 12 13]
func.func @unpack() -> tensor<2x6xf32> {
  %p = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]],
                             [[8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]]> : tensor<2x2x4xf32>
  %d = tensor.empty() : tensor<2x6xf32>
  %u = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [1] inner_tiles = [4] into %d : tensor<2x2x4xf32> -> tensor<2x6xf32>
  return %u : tensor<2x6xf32>
}

// ROUND-LABEL: func.func @softmax
// ROUND: linalg.softmax dimension(1) ins(%{{.*}} : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xf32>) -> tensor<2x4xf32>

// CHECK-LABEL: func.func @softmax
// CHECK:       arith.constant -3.40282347E+38 : f32
// CHECK:       linalg.fill
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         arith.maxnumf
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:         arith.subf
// CHECK-NEXT:    math.exp
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:         arith.addf
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:         arith.divf
// CHECK-NOT:   linalg.softmax

// Rows of equal values, one of them past what exp can take without
// subtracting the maximum first.
// OUT: EXEC @softmax
// OUT-NEXT: result[0]: hal.buffer_view
// OUT-NEXT: 2x4xf32=[0.25 0.25 0.25 0.25][0.25 0.25 0.25 0.25]
func.func @softmax() -> tensor<2x4xf32> {
  %x = arith.constant dense<[[1.0, 1.0, 1.0, 1.0], [1.0e30, 1.0e30, 1.0e30, 1.0e30]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}
