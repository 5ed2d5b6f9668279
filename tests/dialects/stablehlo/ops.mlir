// The custom forms of the stablehlo and chlo ops, as JAX and stablehlo-opt
// print them, read and printed back; the printed text reads again.
// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise(
// CHECK-NEXT: %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
// CHECK-NEXT: %1 = stablehlo.subtract %0, %arg1 : tensor<4xf32>
// CHECK-NEXT: %2 = stablehlo.exponential %1 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo<result_accuracy_mode TOLERANCE>>} : tensor<4xf32>
// CHECK-NEXT: %3 = stablehlo.convert %arg2 : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT: %4 = stablehlo.abs %arg3 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK-NEXT: %5 = stablehlo.complex %arg0, %arg1 : tensor<4xcomplex<f32>>
// CHECK-NEXT: %6 = stablehlo.real %5 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
// CHECK-NEXT: %7 = stablehlo.is_finite %arg0 : (tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT: %8 = stablehlo.shift_right_logical %arg2, %arg2 : tensor<4xi32>
// CHECK-NEXT: %9 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4xf32>
// CHECK-NEXT: %10 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT: return %9 : tensor<4xf32>
// CHECK-NEXT: }
func.func @elementwise(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %c: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = "stablehlo.subtract"(%0, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.exponential %1 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo<result_accuracy_mode TOLERANCE>>} : tensor<4xf32>
  %3 = stablehlo.convert %i : (tensor<4xi32>) -> tensor<4xf32>
  %4 = stablehlo.abs %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %5 = stablehlo.complex %a, %b : tensor<4xcomplex<f32>>
  %6 = stablehlo.real %5 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %7 = stablehlo.is_finite %a : (tensor<4xf32>) -> tensor<4xi1>
  %8 = stablehlo.shift_right_logical %i, %i : tensor<4xi32>
  %9 = stablehlo.reduce_precision %a, format = e5m10 : tensor<4xf32>
  %10 = stablehlo.bitcast_convert %a : (tensor<4xf32>) -> tensor<4xi32>
  return %9 : tensor<4xf32>
}

// CHECK-LABEL: func.func @compare_select(
// CHECK-NEXT: %0 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT: %1 = stablehlo.compare EQ, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT: %2 = stablehlo.select %0, %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: %3 = stablehlo.select %arg2, %arg0, %arg1 : tensor<i1>, tensor<4xf32>
// CHECK-NEXT: %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %4 = stablehlo.clamp %cst, %3, %cst : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %5 = stablehlo.clamp %arg0, %arg1, %arg0 : tensor<4xf32>
// CHECK-NEXT: return %4 : tensor<4xf32>
// CHECK-NEXT: }
func.func @compare_select(%a: tensor<4xf32>, %b: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %0 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = stablehlo.compare EQ, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.select %0, %a, %b : tensor<4xi1>, tensor<4xf32>
  %3 = stablehlo.select %p, %a, %b : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %4 = stablehlo.clamp %lo, %3, %lo : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = stablehlo.clamp %a, %b, %a : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// CHECK-LABEL: func.func @shapes(
// CHECK-NEXT: %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: %2 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %3 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT: %4 = stablehlo.iota dim = 1 : tensor<2x3xi32>
// CHECK-NEXT: %5 = stablehlo.slice %arg0 [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %6 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
// CHECK-NEXT: %7 = stablehlo.dynamic_update_slice %arg0, %6, %arg2, %arg2 : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
// CHECK-NEXT: %8 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %9 = stablehlo.pad %arg0, %arg1, low = [1, -1], high = [0, 2], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
// CHECK-NEXT: %10 = stablehlo.reverse %arg0, dims = [0] : tensor<2x3xf32>
// CHECK-NEXT: %11 = stablehlo.dynamic_broadcast_in_dim %arg1, %arg3, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK-NEXT: %12 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
// CHECK-NEXT: %13 = stablehlo.broadcast %arg0, sizes = [4] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %2 : tensor<3x2xf32>
// CHECK-NEXT: }
func.func @shapes(%x: tensor<2x3xf32>, %v: tensor<f32>, %i: tensor<i32>, %n: tensor<2xi64>) -> tensor<3x2xf32> {
  %0 = stablehlo.broadcast_in_dim %v, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %1 = stablehlo.broadcast_in_dim %x, dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
  %2 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %3 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %4 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %5 = stablehlo.slice %x [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %6 = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  %7 = stablehlo.dynamic_update_slice %x, %6, %i, %i : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %8 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %9 = stablehlo.pad %x, %v, low = [1, -1], high = [0, 2], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  %10 = stablehlo.reverse %x, dims = [0] : tensor<2x3xf32>
  %11 = stablehlo.dynamic_broadcast_in_dim %v, %n, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
  %12 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  %13 = stablehlo.broadcast %x, sizes = [4] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  return %2 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @contractions(
// CHECK-NEXT: %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %1 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: %2 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: %3 = stablehlo.dot %arg2, %arg3, precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: %4 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return %0 : tensor<2x3x5xf32>
// CHECK-NEXT: }
func.func @contractions(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %m: tensor<3x4xf32>, %n: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = stablehlo.dot_general %m, %n, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %2 = stablehlo.dot_general %m, %n, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %3 = stablehlo.dot %m, %n, precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %4 = "stablehlo.dot_general"(%m, %n) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @convolution(
// CHECK-NEXT: %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x8x8x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: return %0 : tensor<1x4x4x4xf32>
// CHECK-NEXT: }
func.func @convolution(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x1x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x8x8x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @reductions(
// CHECK-NEXT: %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %c = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT: %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT: %1:2 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
// CHECK-NEXT: reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>)  {
// CHECK-NEXT: %3 = stablehlo.maximum %arg2, %arg4 : tensor<f32>
// CHECK-NEXT: %4 = stablehlo.minimum %arg3, %arg5 : tensor<i32>
// CHECK-NEXT: stablehlo.return %3, %4 : tensor<f32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: %2 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {
// CHECK-NEXT: %3 = stablehlo.subtract %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %3 : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : tensor<2xf32>
// CHECK-NEXT: }
func.func @reductions(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %1:2 = stablehlo.reduce(%x init: %c), (%i init: %z) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%j: tensor<i32>, %k: tensor<i32>)  {
    %m = stablehlo.maximum %a, %b : tensor<f32>
    %n = stablehlo.minimum %j, %k : tensor<i32>
    stablehlo.return %m, %n : tensor<f32>, tensor<i32>
  }
  %2 = stablehlo.reduce(%x init: %c) across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %s = stablehlo.subtract %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @control_flow(
// CHECK-NEXT: %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1) : tensor<i32>, tensor<4xf32>
// CHECK-NEXT: cond {
// CHECK-NEXT: %c = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT: %3 = stablehlo.compare GT, %iterArg, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %3 : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: %c = stablehlo.constant dense<1> : tensor<i32>
// CHECK-NEXT: %3 = stablehlo.subtract %iterArg, %c : tensor<i32>
// CHECK-NEXT: %4 = stablehlo.sine %iterArg_0 : tensor<4xf32>
// CHECK-NEXT: stablehlo.return %3, %4 : tensor<i32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %1 = "stablehlo.if"(%arg2) ({
// CHECK-NEXT: stablehlo.return %arg1 : tensor<4xf32>
// CHECK-NEXT: }, {
// CHECK-NEXT: stablehlo.return %0#1 : tensor<4xf32>
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<4xf32>
// CHECK-NEXT: %2 = "stablehlo.case"(%arg0) ({
// CHECK-NEXT: stablehlo.return %arg1 : tensor<4xf32>
// CHECK-NEXT: }, {
// CHECK-NEXT: stablehlo.return %1 : tensor<4xf32>
// CHECK-NEXT: }) : (tensor<i32>) -> tensor<4xf32>
// CHECK-NEXT: return %2 : tensor<4xf32>
// CHECK-NEXT: }
func.func @control_flow(%n: tensor<i32>, %x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %0:2 = stablehlo.while(%iterArg = %n, %iterArg_0 = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare GT, %iterArg, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.subtract %iterArg, %c : tensor<i32>
    %2 = stablehlo.sine %iterArg_0 : tensor<4xf32>
    stablehlo.return %1, %2 : tensor<i32>, tensor<4xf32>
  }
  %3 = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<4xf32>
  }, {
    stablehlo.return %0#1 : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %4 = "stablehlo.case"(%n) ({
    stablehlo.return %x : tensor<4xf32>
  }, {
    stablehlo.return %3 : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// CHECK-LABEL: func.func @misc(
// CHECK-NEXT: %0 = stablehlo.custom_call @my_target(%arg0) {backend_config = "", has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %1:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<4xf32>, tensor<2xui64>
// CHECK-NEXT: %2 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<4xf32>, tensor<2xui64>>
// CHECK-NEXT: %3 = stablehlo.get_tuple_element %2[0] : (tuple<tensor<4xf32>, tensor<2xui64>>) -> tensor<4xf32>
// CHECK-NEXT: %4 = stablehlo.fft %arg2, type = IFFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
// CHECK-NEXT: %output_state, %output = stablehlo.rng_bit_generator %arg1, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui32>)
// CHECK-NEXT: %5 = stablehlo.composite "my.gelu" %arg0 {composite_attributes = {approximate = true}, decomposition = @gelu} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %6 = stablehlo.cholesky %arg3, lower = true : tensor<3x3xf32>
// CHECK-NEXT: %7 = stablehlo.create_token : !stablehlo.token
// CHECK-NEXT: %8 = stablehlo.after_all %7, %7 : !stablehlo.token
// CHECK-NEXT: return %3 : tensor<4xf32>
// CHECK-NEXT: }
func.func @misc(%x: tensor<4xf32>, %s: tensor<2xui64>, %c: tensor<8xcomplex<f32>>, %m: tensor<3x3xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @my_target(%x) {backend_config = "", has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  %1:2 = stablehlo.optimization_barrier %x, %s : tensor<4xf32>, tensor<2xui64>
  %2 = stablehlo.tuple %x, %s : tuple<tensor<4xf32>, tensor<2xui64>>
  %3 = stablehlo.get_tuple_element %2[0] : (tuple<tensor<4xf32>, tensor<2xui64>>) -> tensor<4xf32>
  %4 = stablehlo.fft %c, type = IFFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  %5:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui32>)
  %6 = stablehlo.composite "my.gelu" %x {composite_attributes = {approximate = true}, decomposition = @gelu} : (tensor<4xf32>) -> tensor<4xf32>
  %7 = stablehlo.cholesky %m, lower = true : tensor<3x3xf32>
  %8 = stablehlo.create_token : !stablehlo.token
  %9 = stablehlo.after_all %8, %8 : !stablehlo.token
  return %3 : tensor<4xf32>
}

// CHECK-LABEL: func.func @gelu(
// CHECK-NEXT: return %arg0 : tensor<4xf32>
// CHECK-NEXT: }
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// CHECK-LABEL: func.func @chlo(
// CHECK-NEXT: %0 = chlo.erf %arg0 : tensor<2x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<2x6xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
// CHECK-NEXT: %1 = chlo.broadcast_add %arg0, %arg1 : (tensor<2x6xf32>, tensor<6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: %2 = chlo.broadcast_multiply %arg1, %arg0 {broadcast_dimensions = array<i64: 1>} : (tensor<6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: %3 = chlo.next_after %arg0, %arg0 : tensor<2x6xf32>, tensor<2x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %4 = chlo.lgamma %arg0 : tensor<2x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %5 = chlo.broadcast_compare %arg0, %arg1 {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x6xf32>, tensor<6xf32>) -> tensor<2x6xi1>
// CHECK-NEXT: return %0 : tensor<2x6xf32>
// CHECK-NEXT: }
func.func @chlo(%x: tensor<2x6xf32>, %y: tensor<6xf32>) -> tensor<2x6xf32> {
  %0 = chlo.erf %x : tensor<2x6xf32> -> tensor<2x6xf32>
  %values, %indices = chlo.top_k(%x, k = 3) : tensor<2x6xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %1 = chlo.broadcast_add %x, %y : (tensor<2x6xf32>, tensor<6xf32>) -> tensor<2x6xf32>
  %2 = chlo.broadcast_multiply %y, %x {broadcast_dimensions = array<i64: 1>} : (tensor<6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
  %3 = chlo.next_after %x, %x : tensor<2x6xf32>, tensor<2x6xf32> -> tensor<2x6xf32>
  %4 = chlo.lgamma %x : tensor<2x6xf32> -> tensor<2x6xf32>
  %5 = chlo.broadcast_compare %x, %y {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x6xf32>, tensor<6xf32>) -> tensor<2x6xi1>
  return %0 : tensor<2x6xf32>
}

