module @jit_specials attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x2xf32>, %arg1: tensor<6x2xf32>) -> (tensor<2x3xf32> {jax.result_info = "result[0]"}, tensor<2x3xi32> {jax.result_info = "result[1]"}, tensor<6x2xf32> {jax.result_info = "result[2]"}, tensor<6x2xf32> {jax.result_info = "result[3]"}, tensor<6x2xf32> {jax.result_info = "result[4]"}, tensor<6x2xf32> {jax.result_info = "result[5]"}, tensor<6x2xf32> {jax.result_info = "result[6]"}, tensor<12xf32> {jax.result_info = "result[7]"}, tensor<6x2xf32> {jax.result_info = "result[8]"}, tensor<6x2xf32> {jax.result_info = "result[9]"}, tensor<6x2xf32> {jax.result_info = "result[10]"}, tensor<6x2xi1> {jax.result_info = "result[11]"}, tensor<6x2xf32> {jax.result_info = "result[12]"}, tensor<6x2xf32> {jax.result_info = "result[13]"}, tensor<6x2xf32> {jax.result_info = "result[14]"}, tensor<6x2xf32> {jax.result_info = "result[15]"}, tensor<6x2xf32> {jax.result_info = "result[16]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<6x2xf32>) -> tensor<2x6xf32>
    %values, %indices = chlo.top_k(%0, k = 3) : tensor<2x6xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
    %1 = chlo.erf %arg0 : tensor<6x2xf32> -> tensor<6x2xf32>
    %2 = stablehlo.tanh %arg0 : tensor<6x2xf32>
    %3 = chlo.erf_inv %2 : tensor<6x2xf32> -> tensor<6x2xf32>
    %4 = stablehlo.abs %arg0 : tensor<6x2xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %6 = stablehlo.add %4, %5 : tensor<6x2xf32>
    %7 = chlo.lgamma %6 : tensor<6x2xf32> -> tensor<6x2xf32>
    %8 = stablehlo.abs %arg0 : tensor<6x2xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %10 = stablehlo.add %8, %9 : tensor<6x2xf32>
    %11 = chlo.digamma %10 : tensor<6x2xf32> -> tensor<6x2xf32>
    %12 = call @cumsum(%arg0) : (tensor<6x2xf32>) -> tensor<6x2xf32>
    %13 = call @cumprod(%arg1) : (tensor<6x2xf32>) -> tensor<12xf32>
    %14 = stablehlo.atan2 %arg0, %arg1 : tensor<6x2xf32>
    %15 = chlo.sinh %arg0 : tensor<6x2xf32> -> tensor<6x2xf32>
    %16 = stablehlo.abs %arg0 : tensor<6x2xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %18 = stablehlo.add %16, %17 : tensor<6x2xf32>
    %19 = call @arccosh(%18) : (tensor<6x2xf32>) -> tensor<6x2xf32>
    %20 = call @isinf(%arg0) : (tensor<6x2xf32>) -> tensor<6x2xi1>
    %21 = chlo.next_after %arg0, %arg1 : tensor<6x2xf32>, tensor<6x2xf32> -> tensor<6x2xf32>
    %22 = stablehlo.negate %arg0 : tensor<6x2xf32>
    %23 = stablehlo.exponential %22 : tensor<6x2xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %25 = stablehlo.add %24, %23 : tensor<6x2xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %27 = stablehlo.divide %26, %25 : tensor<6x2xf32>
    %28 = stablehlo.cbrt %arg0 : tensor<6x2xf32>
    %29 = chlo.bessel_i1e %arg0 : tensor<6x2xf32> -> tensor<6x2xf32>
    %30 = stablehlo.abs %arg0 : tensor<6x2xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %32 = stablehlo.add %30, %31 : tensor<6x2xf32>
    %33 = stablehlo.abs %arg1 : tensor<6x2xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %35 = stablehlo.add %33, %34 : tensor<6x2xf32>
    %36 = stablehlo.compare NE, %32, %32, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %37 = stablehlo.compare NE, %35, %35, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %38 = stablehlo.or %36, %37 : tensor<6x2xi1>
    %cst_6 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %40 = stablehlo.compare EQ, %35, %39, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %42 = stablehlo.compare EQ, %32, %41, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %44 = stablehlo.compare EQ, %35, %43, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %46 = stablehlo.compare LT, %35, %45, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %48 = stablehlo.compare LT, %32, %47, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %49 = stablehlo.and %42, %44 : tensor<6x2xi1>
    %50 = stablehlo.or %46, %48 : tensor<6x2xi1>
    %51 = stablehlo.or %50, %49 : tensor<6x2xi1>
    %52 = stablehlo.or %51, %38 : tensor<6x2xi1>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %53 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %54 = stablehlo.compare GE, %35, %53, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %55 = stablehlo.compare GT, %35, %32, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %56 = stablehlo.and %54, %55 : tensor<6x2xi1>
    %57 = stablehlo.log %35 : tensor<6x2xf32>
    %58 = stablehlo.multiply %32, %57 : tensor<6x2xf32>
    %59 = stablehlo.subtract %58, %35 : tensor<6x2xf32>
    %60 = chlo.lgamma %32 : tensor<6x2xf32> -> tensor<6x2xf32>
    %61 = stablehlo.subtract %59, %60 : tensor<6x2xf32>
    %cst_12 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %62 = stablehlo.log %cst_12 : tensor<f32>
    %63 = stablehlo.negate %62 : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %63, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %65 = stablehlo.compare LT, %61, %64, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    %66 = stablehlo.exponential %61 : tensor<6x2xf32>
    %67 = stablehlo.or %44, %52 : tensor<6x2xi1>
    %68 = stablehlo.or %67, %65 : tensor<6x2xi1>
    %69 = stablehlo.or %68, %40 : tensor<6x2xi1>
    %70 = stablehlo.not %69 : tensor<6x2xi1>
    %71 = stablehlo.and %70, %56 : tensor<6x2xi1>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %73 = stablehlo.subtract %72, %32 : tensor<6x2xf32>
    %74 = stablehlo.add %35, %73 : tensor<6x2xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %76 = stablehlo.add %74, %75 : tensor<6x2xf32>
    %cst_15 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %79 = stablehlo.add %35, %78 : tensor<6x2xf32>
    %80 = stablehlo.multiply %76, %35 : tensor<6x2xf32>
    %81 = stablehlo.divide %79, %80 : tensor<6x2xf32>
    %cst_17 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %cst_19 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %86 = stablehlo.negate %35 : tensor<6x2xf32>
    %87 = stablehlo.multiply %81, %86 : tensor<6x2xf32>
    %88 = stablehlo.subtract %85, %87 : tensor<6x2xf32>
    %89 = stablehlo.divide %88, %80 : tensor<6x2xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %90:15 = stablehlo.while(%iterArg = %71, %iterArg_30 = %81, %iterArg_31 = %82, %iterArg_32 = %73, %iterArg_33 = %76, %iterArg_34 = %cst_21, %iterArg_35 = %79, %iterArg_36 = %80, %iterArg_37 = %77, %iterArg_38 = %35, %iterArg_39 = %83, %iterArg_40 = %84, %iterArg_41 = %85, %iterArg_42 = %86, %iterArg_43 = %89) : tensor<6x2xi1>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<f32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>
    cond {
      %cst_44 = stablehlo.constant dense<2.000000e+03> : tensor<f32>
      %110 = stablehlo.compare LT, %iterArg_34, %cst_44, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c = stablehlo.constant dense<false> : tensor<i1>
      %111 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0, 1] : (tensor<6x2xi1>, tensor<i1>) -> tensor<i1>
      %112 = stablehlo.and %110, %111 : tensor<i1>
      stablehlo.return %112 : tensor<i1>
    } do {
      %cst_44 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %110 = stablehlo.add %iterArg_34, %cst_44 : tensor<f32>
      %cst_45 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %111 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %112 = stablehlo.add %iterArg_32, %111 : tensor<6x2xf32>
      %cst_46 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %113 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %114 = stablehlo.add %iterArg_33, %113 : tensor<6x2xf32>
      %115 = stablehlo.broadcast_in_dim %110, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %116 = stablehlo.multiply %112, %115 : tensor<6x2xf32>
      %117 = stablehlo.multiply %iterArg_35, %114 : tensor<6x2xf32>
      %118 = stablehlo.multiply %iterArg_37, %116 : tensor<6x2xf32>
      %119 = stablehlo.subtract %117, %118 : tensor<6x2xf32>
      %120 = stablehlo.multiply %iterArg_36, %114 : tensor<6x2xf32>
      %121 = stablehlo.multiply %iterArg_38, %116 : tensor<6x2xf32>
      %122 = stablehlo.subtract %120, %121 : tensor<6x2xf32>
      %cst_47 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %123 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %124 = stablehlo.compare NE, %122, %123, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
      %125 = stablehlo.divide %119, %122 : tensor<6x2xf32>
      %126 = stablehlo.subtract %iterArg_30, %125 : tensor<6x2xf32>
      %127 = stablehlo.divide %126, %125 : tensor<6x2xf32>
      %128 = stablehlo.abs %127 : tensor<6x2xf32>
      %cst_48 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %129 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %130 = stablehlo.select %124, %128, %129 : tensor<6x2xi1>, tensor<6x2xf32>
      %131 = stablehlo.select %124, %125, %iterArg_30 : tensor<6x2xi1>, tensor<6x2xf32>
      %132 = stablehlo.multiply %iterArg_41, %114 : tensor<6x2xf32>
      %133 = stablehlo.subtract %132, %iterArg_35 : tensor<6x2xf32>
      %134 = stablehlo.multiply %iterArg_39, %116 : tensor<6x2xf32>
      %135 = stablehlo.subtract %133, %134 : tensor<6x2xf32>
      %136 = stablehlo.broadcast_in_dim %110, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %137 = stablehlo.multiply %iterArg_37, %136 : tensor<6x2xf32>
      %138 = stablehlo.add %135, %137 : tensor<6x2xf32>
      %139 = stablehlo.multiply %iterArg_42, %114 : tensor<6x2xf32>
      %140 = stablehlo.subtract %139, %iterArg_36 : tensor<6x2xf32>
      %141 = stablehlo.multiply %iterArg_40, %116 : tensor<6x2xf32>
      %142 = stablehlo.subtract %140, %141 : tensor<6x2xf32>
      %143 = stablehlo.broadcast_in_dim %110, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %144 = stablehlo.multiply %iterArg_38, %143 : tensor<6x2xf32>
      %145 = stablehlo.add %142, %144 : tensor<6x2xf32>
      %146 = stablehlo.multiply %131, %145 : tensor<6x2xf32>
      %147 = stablehlo.subtract %138, %146 : tensor<6x2xf32>
      %148 = stablehlo.divide %147, %122 : tensor<6x2xf32>
      %149 = stablehlo.select %124, %148, %iterArg_43 : tensor<6x2xi1>, tensor<6x2xf32>
      %150 = stablehlo.subtract %149, %iterArg_43 : tensor<6x2xf32>
      %151 = stablehlo.abs %150 : tensor<6x2xf32>
      %cst_49 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %152 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %153 = stablehlo.select %124, %151, %152 : tensor<6x2xi1>, tensor<6x2xf32>
      %154 = stablehlo.abs %119 : tensor<6x2xf32>
      %cst_50 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %cst_51 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %155 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<f32>
      %156 = stablehlo.divide %155, %cst_50 : tensor<f32>
      %157 = stablehlo.broadcast_in_dim %156, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %158 = stablehlo.compare GT, %154, %157, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
      %cst_52 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %159 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %160 = stablehlo.multiply %iterArg_35, %159 : tensor<6x2xf32>
      %161 = stablehlo.select %158, %160, %iterArg_35 : tensor<6x2xi1>, tensor<6x2xf32>
      %cst_53 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %162 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %163 = stablehlo.multiply %119, %162 : tensor<6x2xf32>
      %164 = stablehlo.select %158, %163, %119 : tensor<6x2xi1>, tensor<6x2xf32>
      %cst_54 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %165 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %166 = stablehlo.multiply %iterArg_36, %165 : tensor<6x2xf32>
      %167 = stablehlo.select %158, %166, %iterArg_36 : tensor<6x2xi1>, tensor<6x2xf32>
      %cst_55 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %168 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %169 = stablehlo.multiply %122, %168 : tensor<6x2xf32>
      %170 = stablehlo.select %158, %169, %122 : tensor<6x2xi1>, tensor<6x2xf32>
      %cst_56 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %171 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %172 = stablehlo.multiply %iterArg_41, %171 : tensor<6x2xf32>
      %173 = stablehlo.select %158, %172, %iterArg_41 : tensor<6x2xi1>, tensor<6x2xf32>
      %cst_57 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %174 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %175 = stablehlo.multiply %iterArg_42, %174 : tensor<6x2xf32>
      %176 = stablehlo.select %158, %175, %iterArg_42 : tensor<6x2xi1>, tensor<6x2xf32>
      %cst_58 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %177 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %178 = stablehlo.multiply %138, %177 : tensor<6x2xf32>
      %179 = stablehlo.select %158, %178, %138 : tensor<6x2xi1>, tensor<6x2xf32>
      %cst_59 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %180 = stablehlo.broadcast_in_dim %cst_59, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %181 = stablehlo.multiply %145, %180 : tensor<6x2xf32>
      %182 = stablehlo.select %158, %181, %145 : tensor<6x2xi1>, tensor<6x2xf32>
      %cst_60 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %183 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %184 = stablehlo.compare GT, %130, %183, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
      %185 = stablehlo.and %iterArg, %184 : tensor<6x2xi1>
      %186 = stablehlo.select %iterArg, %131, %iterArg_30 : tensor<6x2xi1>, tensor<6x2xf32>
      %187 = stablehlo.select %iterArg, %130, %iterArg_31 : tensor<6x2xi1>, tensor<6x2xf32>
      %188 = stablehlo.select %iterArg, %112, %iterArg_32 : tensor<6x2xi1>, tensor<6x2xf32>
      %189 = stablehlo.select %iterArg, %114, %iterArg_33 : tensor<6x2xi1>, tensor<6x2xf32>
      %190 = stablehlo.select %iterArg, %164, %iterArg_35 : tensor<6x2xi1>, tensor<6x2xf32>
      %191 = stablehlo.select %iterArg, %170, %iterArg_36 : tensor<6x2xi1>, tensor<6x2xf32>
      %192 = stablehlo.select %iterArg, %161, %iterArg_37 : tensor<6x2xi1>, tensor<6x2xf32>
      %193 = stablehlo.select %iterArg, %167, %iterArg_38 : tensor<6x2xi1>, tensor<6x2xf32>
      %194 = stablehlo.select %iterArg, %173, %iterArg_39 : tensor<6x2xi1>, tensor<6x2xf32>
      %195 = stablehlo.select %iterArg, %176, %iterArg_40 : tensor<6x2xi1>, tensor<6x2xf32>
      %196 = stablehlo.select %iterArg, %179, %iterArg_41 : tensor<6x2xi1>, tensor<6x2xf32>
      %197 = stablehlo.select %iterArg, %182, %iterArg_42 : tensor<6x2xi1>, tensor<6x2xf32>
      %198 = stablehlo.select %iterArg, %149, %iterArg_43 : tensor<6x2xi1>, tensor<6x2xf32>
      stablehlo.return %185, %186, %187, %188, %189, %110, %190, %191, %192, %193, %194, %195, %196, %197, %198 : tensor<6x2xi1>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<f32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>
    }
    %91 = stablehlo.multiply %90#1, %66 : tensor<6x2xf32>
    %cst_22 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %93 = stablehlo.subtract %92, %91 : tensor<6x2xf32>
    %94 = stablehlo.not %56 : tensor<6x2xi1>
    %95 = stablehlo.and %70, %94 : tensor<6x2xi1>
    %cst_23 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %100:7 = stablehlo.while(%iterArg = %95, %iterArg_30 = %32, %iterArg_31 = %96, %iterArg_32 = %97, %iterArg_33 = %35, %iterArg_34 = %98, %iterArg_35 = %99) : tensor<6x2xi1>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>
    cond {
      %c = stablehlo.constant dense<false> : tensor<i1>
      %110 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0, 1] : (tensor<6x2xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %110 : tensor<i1>
    } do {
      %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %110 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %111 = stablehlo.add %iterArg_30, %110 : tensor<6x2xf32>
      %112 = stablehlo.divide %iterArg_33, %111 : tensor<6x2xf32>
      %113 = stablehlo.multiply %iterArg_34, %112 : tensor<6x2xf32>
      %114 = stablehlo.multiply %iterArg_31, %iterArg_33 : tensor<6x2xf32>
      %115 = stablehlo.multiply %111, %111 : tensor<6x2xf32>
      %116 = stablehlo.divide %114, %115 : tensor<6x2xf32>
      %117 = stablehlo.subtract %113, %116 : tensor<6x2xf32>
      %118 = stablehlo.add %iterArg_35, %117 : tensor<6x2xf32>
      %119 = stablehlo.divide %iterArg_33, %111 : tensor<6x2xf32>
      %120 = stablehlo.multiply %iterArg_31, %119 : tensor<6x2xf32>
      %121 = stablehlo.add %iterArg_32, %120 : tensor<6x2xf32>
      %122 = stablehlo.divide %120, %121 : tensor<6x2xf32>
      %cst_37 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %123 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
      %124 = stablehlo.compare GT, %122, %123, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
      %125 = stablehlo.and %iterArg, %124 : tensor<6x2xi1>
      %126 = stablehlo.select %iterArg, %111, %iterArg_30 : tensor<6x2xi1>, tensor<6x2xf32>
      %127 = stablehlo.select %iterArg, %120, %iterArg_31 : tensor<6x2xi1>, tensor<6x2xf32>
      %128 = stablehlo.select %iterArg, %121, %iterArg_32 : tensor<6x2xi1>, tensor<6x2xf32>
      %129 = stablehlo.select %iterArg, %iterArg_33, %iterArg_33 : tensor<6x2xi1>, tensor<6x2xf32>
      %130 = stablehlo.select %iterArg, %117, %iterArg_34 : tensor<6x2xi1>, tensor<6x2xf32>
      %131 = stablehlo.select %iterArg, %118, %iterArg_35 : tensor<6x2xi1>, tensor<6x2xf32>
      stablehlo.return %125, %126, %127, %128, %129, %130, %131 : tensor<6x2xi1>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>
    }
    %101 = stablehlo.multiply %100#3, %66 : tensor<6x2xf32>
    %102 = stablehlo.divide %101, %32 : tensor<6x2xf32>
    %103 = stablehlo.select %56, %93, %102 : tensor<6x2xi1>, tensor<6x2xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %105 = stablehlo.select %44, %104, %103 : tensor<6x2xi1>, tensor<6x2xf32>
    %cst_28 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %107 = stablehlo.select %40, %106, %105 : tensor<6x2xi1>, tensor<6x2xf32>
    %cst_29 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %109 = stablehlo.select %52, %108, %107 : tensor<6x2xi1>, tensor<6x2xf32>
    return %values, %indices, %1, %3, %7, %11, %12, %13, %14, %15, %19, %20, %21, %27, %28, %29, %109 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<12xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xi1>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>, tensor<6x2xf32>
  }
  func.func private @cumsum(%arg0: tensor<6x2xf32>) -> tensor<6x2xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<6x2xf32>) -> tensor<6x2xf32>
    return %0 : tensor<6x2xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<6x2xf32>) -> tensor<6x2xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1>, padding = dense<[[5, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 6, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<6x2xf32>, tensor<f32>) -> tensor<6x2xf32>
    return %1 : tensor<6x2xf32>
  }
  func.func private @cumprod(%arg0: tensor<6x2xf32>) -> tensor<12xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<6x2xf32>) -> tensor<12xf32>
    %1 = call @cumprod_1(%0) : (tensor<12xf32>) -> tensor<12xf32>
    return %1 : tensor<12xf32>
  }
  func.func private @cumprod_1(%arg0: tensor<12xf32>) -> tensor<12xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1>, padding = dense<[[11, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 12>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<12xf32>, tensor<f32>) -> tensor<12xf32>
    return %0 : tensor<12xf32>
  }
  func.func private @arccosh(%arg0: tensor<6x2xf32>) -> tensor<6x2xf32> {
    %0 = chlo.acosh %arg0 : tensor<6x2xf32> -> tensor<6x2xf32>
    return %0 : tensor<6x2xf32>
  }
  func.func private @isinf(%arg0: tensor<6x2xf32>) -> tensor<6x2xi1> {
    %0 = stablehlo.abs %arg0 : tensor<6x2xf32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x2xf32>
    %2 = stablehlo.compare EQ, %0, %1, FLOAT : (tensor<6x2xf32>, tensor<6x2xf32>) -> tensor<6x2xi1>
    return %2 : tensor<6x2xi1>
  }
}
