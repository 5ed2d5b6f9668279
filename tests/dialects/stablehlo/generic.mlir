// The generic forms of the ops without a custom form (sort, gather, scatter,
// reduce_window, batch_norm_*, torch_index_select, triangular_solve), written
// as IREE's tests write them: inherent attributes in the attribute dictionary,
// which print back as properties (<{...}>); ops with a custom form print it.
// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @sort(
// CHECK-NEXT: %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
// CHECK-NEXT: %1 = stablehlo.compare LT, %arg2, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %1 : tensor<i1>
// CHECK-NEXT: }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
// CHECK-NEXT: return %0#1 : tensor<5xi32>
// CHECK-NEXT: }
func.func @sort(%k: tensor<5xf32>, %v: tensor<5xi32>) -> tensor<5xi32> {
  %0:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%lt) : (tensor<i1>) -> ()
  }) {dimension = 0 : i64, is_stable = true} : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
  return %0#1 : tensor<5xi32>
}

// CHECK-LABEL: func.func @gather_scatter(
// CHECK-NEXT: %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = "stablehlo.scatter"(%arg0, %arg1, %0) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
// CHECK-NEXT: ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK-NEXT: %2 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
// CHECK-NEXT: stablehlo.return %2 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: return %1 : tensor<4x3xf32>
// CHECK-NEXT: }
func.func @gather_scatter(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  %s = "stablehlo.scatter"(%x, %i, %g) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @windows(
// CHECK-NEXT: %0 = "stablehlo.reduce_window"(%arg0, %arg1) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %1 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %1 : tensor<f32>
// CHECK-NEXT: }) : (tensor<1x4x4x1xf32>, tensor<f32>) -> tensor<1x2x2x1xf32>
// CHECK-NEXT: return %0 : tensor<1x2x2x1xf32>
// CHECK-NEXT: }
func.func @windows(%x: tensor<1x4x4x1xf32>, %c: tensor<f32>) -> tensor<1x2x2x1xf32> {
  %r = "stablehlo.reduce_window"(%x, %c) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>, padding = dense<0> : tensor<4x2xi64>} : (tensor<1x4x4x1xf32>, tensor<f32>) -> tensor<1x2x2x1xf32>
  return %r : tensor<1x2x2x1xf32>
}

// CHECK-LABEL: func.func @others(
// CHECK-NEXT: %0 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %1 = "stablehlo.torch_index_select"(%arg1, %arg2) <{batch_dims = 0 : i64, dim = 0 : i64}> : (tensor<4xf32>, tensor<3xi32>) -> tensor<3xf32>
// CHECK-NEXT: %2 = stablehlo.fft %arg1, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
// CHECK-NEXT: %3 = "stablehlo.triangular_solve"(%arg3, %arg0) <{left_side = false, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %0 : tensor<2x4xf32>
// CHECK-NEXT: }
func.func @others(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %i: tensor<3xi32>, %m: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %n = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.000000e-03 : f32, feature_index = 1 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %t = "stablehlo.torch_index_select"(%s, %i) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<4xf32>, tensor<3xi32>) -> tensor<3xf32>
  %f = "stablehlo.fft"(%s) {fft_length = array<i64: 4>, fft_type = #stablehlo<fft_type RFFT>} : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  %a = "stablehlo.triangular_solve"(%m, %x) {left_side = false, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<4x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %n : tensor<2x4xf32>
}

