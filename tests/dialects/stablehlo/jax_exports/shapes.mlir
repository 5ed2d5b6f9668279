module @jit_shapes attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<4xf32>) -> (tensor<3x2x4xf32> {jax.result_info = "result[0]"}, tensor<6x4xf32> {jax.result_info = "result[1]"}, tensor<2x6x4xf32> {jax.result_info = "result[2]"}, tensor<5x3x7xf32> {jax.result_info = "result[3]"}, tensor<2x1x2xf32> {jax.result_info = "result[4]"}, tensor<2x3x4xf32> {jax.result_info = "result[5]"}, tensor<3x4xf32> {jax.result_info = "result[6]"}, tensor<10xf32> {jax.result_info = "result[7]"}, tensor<2x3x5xf32> {jax.result_info = "result[8]"}, tensor<2x4xf32> {jax.result_info = "result[9]"}, tensor<2x3xi32> {jax.result_info = "result[10]"}, tensor<f32> {jax.result_info = "result[11]"}, tensor<3x4xf32> {jax.result_info = "result[12]"}, tensor<i1> {jax.result_info = "result[13]"}, tensor<4xi1> {jax.result_info = "result[14]"}, tensor<3x3x4xf32> {jax.result_info = "result[15]"}, tensor<2x4xf32> {jax.result_info = "result[16]"}, tensor<2x3x4xf32> {jax.result_info = "result[17]"}, tensor<3x3xf32> {jax.result_info = "result[18]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    %2 = stablehlo.concatenate %arg0, %arg0, dim = 1 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
    %cst = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %3 = call @_pad(%arg0, %cst) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<5x3x7xf32>
    %4 = stablehlo.slice %arg0 [0:2, 1:3:2, 0:4:2] : (tensor<2x3x4xf32>) -> tensor<2x1x2xf32>
    %5 = call @_flip(%arg0) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
    %7 = stablehlo.iota dim = 0 : tensor<10xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %9 = stablehlo.dot_general %arg0, %8, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    %11 = call @argmax(%arg0) : (tensor<2x3x4xf32>) -> tensor<2x3xi32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%arg0 init: %cst_2) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%arg0 init: %cst_3) applies stablehlo.multiply across dimensions = [0] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x3x4xf32>
    %15 = stablehlo.compare GT, %arg0, %14, FLOAT : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xi1>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %16 = stablehlo.reduce(%15 init: %c) applies stablehlo.or across dimensions = [0, 1, 2] : (tensor<2x3x4xi1>, tensor<i1>) -> tensor<i1>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x3x4xf32>
    %18 = stablehlo.compare GT, %arg0, %17, FLOAT : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xi1>
    %c_6 = stablehlo.constant dense<true> : tensor<i1>
    %19 = stablehlo.reduce(%18 init: %c_6) applies stablehlo.and across dimensions = [0, 1] : (tensor<2x3x4xi1>, tensor<i1>) -> tensor<4xi1>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.pad %arg0, %cst_7, low = [-1, 0, 1], high = [1, 0, -1], interior = [1, 0, 0] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<3x3x4xf32>
    %21 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x1xf32>
    %23 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<2x4xf32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x4xf32>
    %25 = stablehlo.multiply %23, %24 : tensor<2x4xf32>
    %26 = stablehlo.optimization_barrier %arg0 : tensor<2x3x4xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %28 = call @tril(%27) : (tensor<3x3xf32>) -> tensor<3x3xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %9, %10, %11, %12, %13, %16, %19, %20, %25, %26, %28 : tensor<3x2x4xf32>, tensor<6x4xf32>, tensor<2x6x4xf32>, tensor<5x3x7xf32>, tensor<2x1x2xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<10xf32>, tensor<2x3x5xf32>, tensor<2x4xf32>, tensor<2x3xi32>, tensor<f32>, tensor<3x4xf32>, tensor<i1>, tensor<4xi1>, tensor<3x3x4xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>, tensor<3x3xf32>
  }
  func.func private @_pad(%arg0: tensor<2x3x4xf32>, %arg1: tensor<f32>) -> tensor<5x3x7xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [1, 0, 2], high = [2, 0, 1], interior = [0, 0, 0] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<5x3x7xf32>
    return %1 : tensor<5x3x7xf32>
  }
  func.func private @_flip(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0, 2] : tensor<2x3x4xf32>
    return %0 : tensor<2x3x4xf32>
  }
  func.func private @argmax(%arg0: tensor<2x3x4xf32>) -> tensor<2x3xi32> {
    %0 = stablehlo.iota dim = 2 : tensor<2x3x4xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [2] : (tensor<2x3x4xf32>, tensor<2x3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<2x3xi32>
  }
  func.func private @tril(%arg0: tensor<3x3xf32>) -> tensor<3x3xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<3x3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x3xi32>
    %2 = stablehlo.add %0, %1 : tensor<3x3xi32>
    %3 = stablehlo.iota dim = 1 : tensor<3x3xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<3x3xi1>, tensor<3x3xf32>
    return %6 : tensor<3x3xf32>
  }
}
