// A layer that uses mylib's activations; lower-mylib turns them into math/arith.
//   tfrt_compile model.mlir --load-pass-plugin mylib_passes.py --preprocess=lower-mylib -o model.bef
//   bef_executor model.bef --function=layer --input=2x4xf32=-2,-1,0,1,2,3,4,5 --input=4x3xf32=0.5
func.func @layer(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = "mylib.softplus"(%m) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = "mylib.gelu"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}
