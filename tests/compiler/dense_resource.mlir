// Weights as MLIR resources: dense_resource<key> names a blob of the file's
// {-# dialect_resources #-} section; the compiler sees a dense constant, the
// BEF stores it as a tensor, and tfrt_opt prints it inline.
// RUN: tfrt_compile %s --emit=mlir | FileCheck %s
// RUN: tfrt_compile %s -o %t.bef && bef_executor %t.bef --function=affine --input=2xf32=1,-1 | FileCheck %s --check-prefix=OUT
// RUN: tfrt_opt %s | FileCheck %s --check-prefix=OPT

// CHECK-LABEL: func.func @affine
// CHECK: tfrt_array.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [2.500000e+00, 4.500000e+00, 2.000000e+00]]> : tensor<2x3xf32>
// CHECK: tfrt_array.matmul {{.*}}epilogue = "a0 + a1"
// OUT: result[0]: hal.buffer_view
// OUT-NEXT: 3xf32=-1 -3 2
// OPT: arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [2.500000e+00, 4.500000e+00, 2.000000e+00]]> : tensor<2x3xf32>
// OPT: arith.constant dense<[5.000000e-01, -5.000000e-01, 1.000000e+00]> : tensor<3xf32>
// OPT-NOT: dense_resource
func.func @affine(%x: tensor<2xf32>) -> tensor<3xf32> {
  %w = arith.constant dense_resource<layer0.weight> : tensor<2x3xf32>
  %b = arith.constant dense_resource<"layer0 bias"> : tensor<3xf32>
  %x2 = tensor.expand_shape %x [[0, 1]] output_shape [1, 2] : tensor<2xf32> into tensor<1x2xf32>
  %e = tensor.empty() : tensor<1x3xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3xf32>) -> tensor<1x3xf32>
  %m = linalg.matmul ins(%x2, %w : tensor<1x2xf32>, tensor<2x3xf32>) outs(%z : tensor<1x3xf32>) -> tensor<1x3xf32>
  %b2 = tensor.expand_shape %b [[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
  %s = arith.addf %m, %b2 : tensor<1x3xf32>
  %r = tensor.collapse_shape %s [[0, 1]] : tensor<1x3xf32> into tensor<3xf32>
  return %r : tensor<3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      layer0.weight: "0x040000000000803F0000004000004040000020400000904000000040",
      "layer0 bias": "0x040000000000003F000000BF0000803F"
    }
  }
#-}
