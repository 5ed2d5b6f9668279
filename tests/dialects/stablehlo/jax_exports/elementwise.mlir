module @jit_elementwise attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xi32>, %arg3: tensor<4xi32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}, tensor<4xf32> {jax.result_info = "result[3]"}, tensor<4xf32> {jax.result_info = "result[4]"}, tensor<4xf32> {jax.result_info = "result[5]"}, tensor<4xf32> {jax.result_info = "result[6]"}, tensor<4xf32> {jax.result_info = "result[7]"}, tensor<4xf32> {jax.result_info = "result[8]"}, tensor<4xf32> {jax.result_info = "result[9]"}, tensor<4xf32> {jax.result_info = "result[10]"}, tensor<4xf32> {jax.result_info = "result[11]"}, tensor<4xf32> {jax.result_info = "result[12]"}, tensor<4xf32> {jax.result_info = "result[13]"}, tensor<4xf32> {jax.result_info = "result[14]"}, tensor<4xf32> {jax.result_info = "result[15]"}, tensor<4xi32> {jax.result_info = "result[16]"}, tensor<4xi32> {jax.result_info = "result[17]"}, tensor<4xi32> {jax.result_info = "result[18]"}, tensor<4xi32> {jax.result_info = "result[19]"}, tensor<4xi32> {jax.result_info = "result[20]"}, tensor<4xi32> {jax.result_info = "result[21]"}, tensor<4xi32> {jax.result_info = "result[22]"}, tensor<4xi32> {jax.result_info = "result[23]"}, tensor<4xi32> {jax.result_info = "result[24]"}, tensor<4xi32> {jax.result_info = "result[25]"}, tensor<4xi32> {jax.result_info = "result[26]"}, tensor<4xf32> {jax.result_info = "result[27]"}, tensor<4xf32> {jax.result_info = "result[28]"}, tensor<4xi32> {jax.result_info = "result[29]"}, tensor<4xi32> {jax.result_info = "result[30]"}, tensor<4xf32> {jax.result_info = "result[31]"}, tensor<4xi1> {jax.result_info = "result[32]"}, tensor<4xi1> {jax.result_info = "result[33]"}, tensor<4xi1> {jax.result_info = "result[34]"}, tensor<4xi32> {jax.result_info = "result[35]"}, tensor<4xf32> {jax.result_info = "result[36]"}, tensor<4xf32> {jax.result_info = "result[37]"}, tensor<4xf32> {jax.result_info = "result[38]"}, tensor<4xf32> {jax.result_info = "result[39]"}, tensor<4xf32> {jax.result_info = "result[40]"}, tensor<4xf32> {jax.result_info = "result[41]"}, tensor<4xcomplex<f32>> {jax.result_info = "result[42]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<4xf32>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<4xf32>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<4xf32>
    %4 = stablehlo.maximum %arg0, %arg1 : tensor<4xf32>
    %5 = stablehlo.minimum %arg0, %arg1 : tensor<4xf32>
    %6 = stablehlo.power %arg0, %arg1 : tensor<4xf32>
    %7 = call @remainder(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %8 = stablehlo.exponential %arg0 : tensor<4xf32>
    %9 = stablehlo.abs %arg0 : tensor<4xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<4xf32>
    %11 = stablehlo.exponential_minus_one %arg0 : tensor<4xf32>
    %12 = stablehlo.floor %arg0 : tensor<4xf32>
    %13 = stablehlo.ceil %arg0 : tensor<4xf32>
    %14 = call @round(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %15 = call @rint(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %16 = stablehlo.sign %arg0 : tensor<4xf32>
    %17 = stablehlo.abs %arg2 : tensor<4xi32>
    %18 = stablehlo.negate %arg2 : tensor<4xi32>
    %19 = stablehlo.and %arg2, %arg3 : tensor<4xi32>
    %20 = stablehlo.or %arg2, %arg3 : tensor<4xi32>
    %21 = stablehlo.xor %arg2, %arg3 : tensor<4xi32>
    %22 = stablehlo.not %arg2 : tensor<4xi32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %23 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %24 = stablehlo.shift_left %arg2, %23 : tensor<4xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %25 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %26 = stablehlo.shift_right_arithmetic %arg2, %25 : tensor<4xi32>
    %27 = stablehlo.shift_right_logical %arg2, %arg3 : tensor<4xi32>
    %28 = stablehlo.popcnt %arg2 : tensor<4xi32>
    %29 = stablehlo.count_leading_zeros %arg2 : tensor<4xi32>
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %30 = call @clip(%arg0, %cst, %cst_1) : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    %31 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %32 = call @_where(%31, %arg0, %arg1) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %33 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
    %34 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
    %35 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4xf32>
    %36 = stablehlo.is_finite %arg0 : (tensor<4xf32>) -> tensor<4xi1>
    %37 = stablehlo.compare EQ, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %38 = stablehlo.compare NE, %arg2, %arg3, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %39 = call @floor_divide(%arg2, %arg3) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %40 = stablehlo.abs %arg0 : tensor<4xf32>
    %41 = stablehlo.sqrt %40 : tensor<4xf32>
    %42 = stablehlo.abs %arg0 : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %44 = stablehlo.add %42, %43 : tensor<4xf32>
    %45 = stablehlo.rsqrt %44 : tensor<4xf32>
    %46 = stablehlo.tanh %arg0 : tensor<4xf32>
    %47 = stablehlo.tan %arg0 : tensor<4xf32>
    %48 = stablehlo.convert %arg1 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %cst_3 = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f32>>
    %49 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %50 = stablehlo.multiply %49, %48 : tensor<4xcomplex<f32>>
    %51 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %52 = stablehlo.add %51, %50 : tensor<4xcomplex<f32>>
    %53 = stablehlo.real %52 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %54 = stablehlo.convert %arg1 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %cst_4 = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f32>>
    %55 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %56 = stablehlo.multiply %55, %54 : tensor<4xcomplex<f32>>
    %57 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %58 = stablehlo.add %57, %56 : tensor<4xcomplex<f32>>
    %59 = stablehlo.imag %58 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %60 = stablehlo.convert %arg1 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %cst_5 = stablehlo.constant dense<(0.000000e+00,1.000000e+00)> : tensor<complex<f32>>
    %61 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %62 = stablehlo.multiply %61, %60 : tensor<4xcomplex<f32>>
    %63 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %64 = stablehlo.add %63, %62 : tensor<4xcomplex<f32>>
    %65 = stablehlo.real %64 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %66 = stablehlo.imag %64 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %67 = stablehlo.negate %66 : tensor<4xf32>
    %68 = stablehlo.complex %65, %67 : tensor<4xcomplex<f32>>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %24, %26, %27, %28, %29, %30, %32, %33, %34, %35, %36, %37, %38, %39, %41, %45, %46, %47, %53, %59, %68 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>
  }
  func.func private @remainder(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.compare NE, %0, %1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.compare LT, %0, %3, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.compare LT, %arg1, %5, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %7 = stablehlo.compare NE, %4, %6, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %8 = stablehlo.and %7, %2 : tensor<4xi1>
    %9 = stablehlo.add %0, %arg1 : tensor<4xf32>
    %10 = stablehlo.select %8, %9, %0 : tensor<4xi1>, tensor<4xf32>
    return %10 : tensor<4xf32>
  }
  func.func private @round(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @rint(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @clip(%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<4xf32>
    %3 = stablehlo.convert %arg2 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<4xf32>
    return %5 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @floor_divide(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<4xi32>
    %1 = stablehlo.sign %arg0 : tensor<4xi32>
    %2 = stablehlo.sign %arg1 : tensor<4xi32>
    %3 = stablehlo.compare NE, %1, %2, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %7 = stablehlo.and %3, %6 : tensor<4xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %9 = stablehlo.subtract %0, %8 : tensor<4xi32>
    %10 = call @_where_0(%7, %9, %0) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    return %10 : tensor<4xi32>
  }
  func.func private @_where_0(%arg0: tensor<4xi1>, %arg1: tensor<4xi32>, %arg2: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xi32>
    return %0 : tensor<4xi32>
  }
}
