// The tensor ops MLIR has and xDSL lacks (gather, scatter, generate, bitcast,
// rank) and a pad computed from its indices: they print back in the custom
// and the generic form, lower to kernels (gather/scatter to the checking
// ones, generate and the pad body to the generic kernel through
// linalg.index), and run; a coordinate out of bounds is a run-time error at
// the op.
// RUN: tfrt_opt %s | tfrt_opt - | FileCheck %s --check-prefix=ROUND
// RUN: tfrt_opt %s --mlir-print-op-generic | tfrt_opt - | FileCheck %s --check-prefix=ROUND
// RUN: tfrt_compile %s -O0 --emit=mlir | FileCheck %s --check-prefix=LOWER
// RUN: tfrt_compile %s -o %t.bef
// RUN: (bef_executor %t.bef --function=gather && bef_executor %t.bef --function=scatter && \
// RUN:  bef_executor %t.bef --function=generate && bef_executor %t.bef --function=pad && \
// RUN:  bef_executor %t.bef --function=bits) | FileCheck %s --check-prefix=OUT
// RUN: not bef_executor %t.bef --function=gather_out_of_bounds 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: not bef_executor %t.bef --function=scatter_twice 2>&1 | FileCheck %s --check-prefix=TWICE

// ROUND-LABEL: func.func @gather
// ROUND: %gather = tensor.gather %{{.*}}[%{{.*}}] gather_dims([0]) : (tensor<4x5xf32>, tensor<3x1xindex>) -> tensor<3x5xf32>
// LOWER-LABEL: func.func @gather
// LOWER: tfrt_array.gather_slices %{{.*}}, %{{.*}} {dims = [0], shape = [3, 5], unique = false}
// LOWER-NOT: tensor.
// OUT: EXEC @gather
// OUT-NEXT: result[0]: hal.buffer_view
// OUT-NEXT: 3x5xf32=[30 31 32 33 34][0 1 2 3 4][30 31 32 33 34]
func.func @gather() -> tensor<3x5xf32> {
  %src = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0], [10.0, 11.0, 12.0, 13.0, 14.0],
                               [20.0, 21.0, 22.0, 23.0, 24.0], [30.0, 31.0, 32.0, 33.0, 34.0]]> : tensor<4x5xf32>
  %idx = arith.constant dense<[[3], [0], [3]]> : tensor<3x1xindex>
  %g = tensor.gather %src[%idx] gather_dims([0]) : (tensor<4x5xf32>, tensor<3x1xindex>) -> tensor<3x5xf32>
  return %g : tensor<3x5xf32>
}

// ROUND-LABEL: func.func @scatter
// ROUND: %scatter = tensor.scatter %{{.*}} into %{{.*}}[%{{.*}}] scatter_dims([1]) unique : (tensor<2x3x1xi32>, tensor<3x4xi32>, tensor<2x1xi64>) -> tensor<3x4xi32>
// LOWER-LABEL: func.func @scatter
// LOWER: tfrt_array.scatter_slices %{{.*}}, %{{.*}}, %{{.*}} {dims = [1], unique = true}
// OUT: EXEC @scatter
// OUT-NEXT: result[0]: hal.buffer_view
// OUT-NEXT: 3x4xi32=[0 -4 0 -1][0 -5 0 -2][0 -6 0 -3]
func.func @scatter() -> tensor<3x4xi32> {
  %upd = arith.constant dense<[[[-1], [-2], [-3]], [[-4], [-5], [-6]]]> : tensor<2x3x1xi32>
  %dest = arith.constant dense<0> : tensor<3x4xi32>
  %idx = arith.constant dense<[[3], [1]]> : tensor<2x1xi64>
  %s = tensor.scatter %upd into %dest[%idx] scatter_dims([1]) unique
      : (tensor<2x3x1xi32>, tensor<3x4xi32>, tensor<2x1xi64>) -> tensor<3x4xi32>
  return %s : tensor<3x4xi32>
}

// ROUND-LABEL: func.func @generate
// ROUND: %generated = tensor.generate {
// ROUND-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
// ROUND: tensor.yield %{{.*}} : i32
// ROUND-NEXT: } : tensor<2x3xi32>
// LOWER-LABEL: func.func @generate
// LOWER: tfrt_array.generic {{.*}}idx0{{.*}}idx1
// OUT: EXEC @generate
// OUT-NEXT: result[0]: hal.buffer_view
// OUT-NEXT: 2x3xi32=[0 1 2][10 11 12]
func.func @generate() -> tensor<2x3xi32> {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %ten = arith.constant 10 : index
    %r = arith.muli %i, %ten : index
    %s = arith.addi %r, %j : index
    %v = arith.index_cast %s : index to i32
    tensor.yield %v : i32
  } : tensor<2x3xi32>
  return %g : tensor<2x3xi32>
}

// ROUND-LABEL: func.func @pad
// ROUND: %padded = tensor.pad %{{.*}} low[1, 0] high[0, 2] {
// LOWER-LABEL: func.func @pad
// LOWER: tfrt_array.generic
// LOWER: tfrt_array.insert_slice {{.*}}offsets = [1, 0], sizes = [1, 2]
// OUT: EXEC @pad
// OUT-NEXT: result[0]: hal.buffer_view
// OUT-NEXT: 2x4xf32=[-0 -1 -2 -3][7 8 -3 -4]
func.func @pad() -> tensor<2x4xf32> {
  %x = arith.constant dense<[[7.0, 8.0]]> : tensor<1x2xf32>
  %p = tensor.pad %x low[1, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %v = arith.index_cast %s : index to i32
    %f = arith.sitofp %v : i32 to f32
    %n = arith.negf %f : f32
    tensor.yield %n : f32
  } : tensor<1x2xf32> to tensor<2x4xf32>
  return %p : tensor<2x4xf32>
}

// ROUND-LABEL: func.func @bits
// ROUND: tensor.bitcast %{{.*}} : tensor<2xf32> to tensor<2xi32>
// ROUND: %rank = tensor.rank %{{.*}} : tensor<2xf32>
// OUT: EXEC @bits
// OUT-NEXT: result[0]: hal.buffer_view
// OUT-NEXT: 2xi32=1065353216 -1073741824
// OUT-NEXT: result[1]: i64=1
func.func @bits() -> (tensor<2xi32>, index) {
  %f = arith.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %b = tensor.bitcast %f : tensor<2xf32> to tensor<2xi32>
  %r = tensor.rank %f : tensor<2xf32>
  return %b, %r : tensor<2xi32>, index
}

// OOB: error: runtime error: tensor.gather: coordinate 4 at indices[0, 0] is out of bounds for dimension 0 of size 4
// OOB-NEXT: %g = tensor.gather
func.func @gather_out_of_bounds() -> tensor<1x5xf32> {
  %src = arith.constant dense<1.0> : tensor<4x5xf32>
  %idx = util.unfoldable_constant dense<[[4]]> : tensor<1x1xi32>
  %g = tensor.gather %src[%idx] gather_dims([0]) : (tensor<4x5xf32>, tensor<1x1xi32>) -> tensor<1x5xf32>
  return %g : tensor<1x5xf32>
}

// TWICE: error: runtime error: tensor.scatter: coordinates (2) appear more than once in the indices (first at indices[0]), which the op's 'unique' rules out
func.func @scatter_twice() -> tensor<4xf32> {
  %upd = arith.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %dest = arith.constant dense<0.0> : tensor<4xf32>
  %idx = util.unfoldable_constant dense<[[2], [2]]> : tensor<2x1xindex>
  %s = tensor.scatter %upd into %dest[%idx] scatter_dims([0]) unique
      : (tensor<2x1xf32>, tensor<4xf32>, tensor<2x1xindex>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
