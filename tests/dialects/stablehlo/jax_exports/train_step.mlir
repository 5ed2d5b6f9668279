module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<16x8xf32>, %arg3: tensor<16x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<16x4xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x4xf32>
    %4 = stablehlo.tanh %3 : tensor<16x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<16x4xf32>
    %7 = stablehlo.subtract %4, %arg3 : tensor<16x4xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<16x4xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %10 = stablehlo.divide %cst_1, %cst_2 : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %12 = stablehlo.multiply %11, %9 : tensor<16x4xf32>
    %13 = stablehlo.multiply %12, %6 : tensor<16x4xf32>
    %14 = stablehlo.multiply %13, %4 : tensor<16x4xf32>
    %15 = stablehlo.add %13, %14 : tensor<16x4xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<16x4xf32>, tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.reshape %16 : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.reduce(%17 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %19 = stablehlo.dot_general %15, %arg2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
    %20 = stablehlo.transpose %19, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %22 = stablehlo.multiply %21, %20 : tensor<8x4xf32>
    %23 = stablehlo.subtract %arg0, %22 : tensor<8x4xf32>
    %cst_6 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %25 = stablehlo.multiply %24, %18 : tensor<4xf32>
    %26 = stablehlo.subtract %arg1, %25 : tensor<4xf32>
    return %23, %26 : tensor<8x4xf32>, tensor<4xf32>
  }
}
