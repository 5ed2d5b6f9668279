module @jit_gather_scatter attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x3xf32>, %arg1: tensor<3xi32>, %arg2: tensor<3x3xf32>) -> (tensor<3x3xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<5x3xf32> {jax.result_info = "result[2]"}, tensor<5x3xf32> {jax.result_info = "result[3]"}, tensor<2x2xf32> {jax.result_info = "result[4]"}, tensor<5x3xf32> {jax.result_info = "result[5]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<3xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<3xi1>, tensor<3xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<3x1xi32>) -> tensor<3x3xf32>
    %7 = stablehlo.slice %arg1 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
    %8 = stablehlo.reshape %7 : (tensor<1xi32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %c_1, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<5> : tensor<i32>
    %10 = stablehlo.add %c_3, %c_4 : tensor<i32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.select %9, %10, %c_5 : tensor<i1>, tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %12 = stablehlo.compare LT, %8, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_7 = stablehlo.constant dense<3> : tensor<i32>
    %13 = stablehlo.add %8, %c_7 : tensor<i32>
    %14 = stablehlo.select %12, %13, %8 : tensor<i1>, tensor<i32>
    %15 = stablehlo.dynamic_slice %arg0, %11, %14, sizes = [5, 1] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<5x1xf32>
    %16 = stablehlo.reshape %15 : (tensor<5x1xf32>) -> tensor<5xf32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %17 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %18 = stablehlo.compare LT, %arg1, %17, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_9 = stablehlo.constant dense<5> : tensor<i32>
    %19 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %20 = stablehlo.add %arg1, %19 : tensor<3xi32>
    %21 = stablehlo.select %18, %20, %arg1 : tensor<3xi1>, tensor<3xi32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %23 = "stablehlo.scatter"(%arg0, %22, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %50 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %50 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<3x1xi32>, tensor<3x3xf32>) -> tensor<5x3xf32>
    %24 = stablehlo.slice %arg2 [0:3, 0:1] : (tensor<3x3xf32>) -> tensor<3x1xf32>
    %25 = stablehlo.reshape %24 : (tensor<3x1xf32>) -> tensor<3xf32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %26 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %27 = stablehlo.compare LT, %arg1, %26, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_11 = stablehlo.constant dense<5> : tensor<i32>
    %28 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %29 = stablehlo.add %arg1, %28 : tensor<3xi32>
    %30 = stablehlo.select %27, %29, %arg1 : tensor<3xi1>, tensor<3xi32>
    %c_12 = stablehlo.constant dense<1> : tensor<i32>
    %31 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %32 = stablehlo.convert %31 : tensor<3xi32>
    %33 = stablehlo.broadcast_in_dim %30, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %35 = stablehlo.concatenate %33, %34, dim = 1 : (tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
    %36 = "stablehlo.scatter"(%arg0, %35, %25) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %50 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
      stablehlo.return %50 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<3x2xi32>, tensor<3xf32>) -> tensor<5x3xf32>
    %37 = stablehlo.slice %arg1 [0:1] : (tensor<3xi32>) -> tensor<1xi32>
    %38 = stablehlo.reshape %37 : (tensor<1xi32>) -> tensor<i32>
    %c_13 = stablehlo.constant dense<0> : tensor<i32>
    %39 = stablehlo.compare LT, %38, %c_13, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_14 = stablehlo.constant dense<5> : tensor<i32>
    %40 = stablehlo.add %38, %c_14 : tensor<i32>
    %41 = stablehlo.select %39, %40, %38 : tensor<i1>, tensor<i32>
    %c_15 = stablehlo.constant dense<1> : tensor<i32>
    %42 = stablehlo.dynamic_slice %arg0, %41, %c_15, sizes = [2, 2] : (tensor<5x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    %43 = stablehlo.slice %arg2 [0:2, 0:2] : (tensor<3x3xf32>) -> tensor<2x2xf32>
    %44 = stablehlo.slice %arg1 [1:2] : (tensor<3xi32>) -> tensor<1xi32>
    %45 = stablehlo.reshape %44 : (tensor<1xi32>) -> tensor<i32>
    %c_16 = stablehlo.constant dense<0> : tensor<i32>
    %46 = stablehlo.compare LT, %45, %c_16, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_17 = stablehlo.constant dense<5> : tensor<i32>
    %47 = stablehlo.add %45, %c_17 : tensor<i32>
    %48 = stablehlo.select %46, %47, %45 : tensor<i1>, tensor<i32>
    %c_18 = stablehlo.constant dense<0> : tensor<i32>
    %49 = stablehlo.dynamic_update_slice %arg0, %43, %48, %c_18 : (tensor<5x3xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<5x3xf32>
    return %6, %16, %23, %36, %42, %49 : tensor<3x3xf32>, tensor<5xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<2x2xf32>, tensor<5x3xf32>
  }
}
