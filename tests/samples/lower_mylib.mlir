// The sample pass's rewrites (samples/lowering_pass/mylib_passes.py).
// RUN: tfrt_opt %s --allow-unregistered-dialect --load-pass-plugin %S/../../samples/lowering_pass/mylib_passes.py --pass-pipeline=lower-mylib | filecheck %s
// RUN: tfrt_opt %s --allow-unregistered-dialect --load-pass-plugin %S/../../samples/lowering_pass/mylib_passes.py --pass-pipeline='lower-mylib{gelu=tanh}' | filecheck %s --check-prefix=TANH

// CHECK-LABEL: func.func @softplus
// CHECK-NEXT:    %[[E:.*]] = math.exp %arg0 : tensor<4xf32>
// CHECK-NEXT:    %[[L:.*]] = math.log1p %[[E]] : tensor<4xf32>
// CHECK-NEXT:    return %[[L]]
func.func @softplus(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "mylib.softplus"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @gelu
// CHECK:         arith.constant dense<0.70710678118654{{[0-9]*}}> : tensor<2x2xf64>
// CHECK:         %[[S:.*]] = arith.mulf %arg0,
// CHECK-NEXT:    %[[F:.*]] = math.erf %[[S]] : tensor<2x2xf64>
// CHECK-NEXT:    %[[P:.*]] = arith.addf %[[F]],
// CHECK-NEXT:    %[[H:.*]] = arith.mulf %arg0,
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[H]], %[[P]] : tensor<2x2xf64>
// CHECK-NEXT:    return %[[Y]]
// TANH-LABEL: func.func @gelu
// TANH-NOT:     math.erf
// TANH:         math.tanh
func.func @gelu(%x: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %y = "mylib.gelu"(%x) : (tensor<2x2xf64>) -> tensor<2x2xf64>
  return %y : tensor<2x2xf64>
}
