// The verifiers of the stablehlo ops: the spec's shape rules, in StableHLO's words.
// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @add_shapes(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.add' op requires the same shape for all operands and results}}
  %0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @add_elements(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.add' op requires compatible types for all operands and results}}
  %0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @broadcast_size(%x: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'stablehlo.broadcast_in_dim' op size of operand dimension 0 (3) is not equal to 1 or size of result dimension 1 (4)}}
  %0 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @broadcast_rank(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'stablehlo.broadcast_in_dim' op broadcast_dimensions size (2) does not match operand rank (1)}}
  %0 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dot_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'stablehlo.dot_general' op contracting dimension sizes must match for lhs/rhs}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_result(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'stablehlo.dot_general' op inferred shape '[2, 5]' is incompatible with return type of operation 'tensor<2x4xf32>'}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reduce_dims(%x: tensor<2x3xf32>, %c: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.reduce' op dimensions 2 is out of range [0, 2)}}
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_result(%x: tensor<2x3xf32>, %c: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{'stablehlo.reduce' op inferred type(s) are incompatible with return type(s) of operation: result shape [3] vs the inputs' shape without the reduced dimensions [2]}}
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'stablehlo.transpose' op permutation [1, 1] is not a permutation of [0, 2)}}
  %0 = stablehlo.transpose %x, dims = [1, 1] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'stablehlo.reshape' op number of output elements (5) doesn't match expected number of elements (6)}}
  %0 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @concatenate_shapes(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'stablehlo.concatenate' op shapes of operand (0) and (1) are not compatible at non-concat index 1: (2, 3) != (2, 4)}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @slice_limit(%x: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.slice' op limit index 5 is larger than dimension size 4 in dimension 0}}
  %0 = stablehlo.slice %x [3:5] : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @pad_interior(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.pad' op Interior padding cannot be negative: -1}}
  %0 = stablehlo.pad %x, %v, low = [0], high = [0], interior = [-1] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pad_result(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<5xf32> {
  // expected-error @+1 {{'stablehlo.pad' op inferred type(s) 'tensor<6xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  %0 = stablehlo.pad %x, %v, low = [1], high = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @compare_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.compare' op result #0 must be tensor of bool values, but got 'tensor<4xf32>'}}
  %0 = stablehlo.compare LT, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_direction(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{expected one of [EQ, NE, GE, GT, LE, LT] for comparison_direction, got 'LESS'}}
  %0 = stablehlo.compare LESS, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @select_pred(%p: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.select' op operand #0 must be ranked tensor of bool values, but got 'tensor<4xf32>'}}
  %0 = stablehlo.select %p, %a, %a : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conv_groups(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{'stablehlo.convolution' op expects input feature dimension (3) to be a multiple of feature_group_count. Got feature_group_count = 2.}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @conv_result(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  // expected-error @+1 {{'stablehlo.convolution' op inferred shape '[1, 6, 6, 4]' is incompatible with return type of operation 'tensor<1x8x8x4xf32>'}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

func.func @conv_layout(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{Unexpected dimension b, expecting f}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, b]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @gather_index_map(%x: tensor<5x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'stablehlo.gather' op start_index_map size (2) is not equal to size of index dimension (1) of start_indices (1)}}
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @while_cond(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.while' op expect condition block return a zero-ranked tensor of i1 but got 'tensor<f32>'}}
  %0 = stablehlo.while(%iterArg = %x) : tensor<f32>
  cond {
    stablehlo.return %iterArg : tensor<f32>
  } do {
    stablehlo.return %iterArg : tensor<f32>
  }
  return %0 : tensor<f32>
}

// -----

func.func @if_branches(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<i32>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.if' op branch 1 returns ('tensor<i32>') but the op's results are ('tensor<f32>')}}
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %b : tensor<i32>
  }) : (tensor<i1>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @case_index(%i: tensor<i64>, %a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.case' op operand #0 must be ranked tensor of 32-bit signless integer values of rank 0, but got 'tensor<i64>'}}
  %0 = "stablehlo.case"(%i) ({
    stablehlo.return %a : tensor<f32>
  }) : (tensor<i64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @applies_non_commutative(%x: tensor<2x3xf32>, %c: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.subtract' is not a commutative binary stablehlo op that `applies` may name}}
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.subtract across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @iota_dim(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'stablehlo.iota' op iota dimension cannot go beyond the output rank or be negative.}}
  %0 = stablehlo.iota dim = 1 : tensor<4xi32>
  return %0 : tensor<4xi32>
}
