// mlp_linalg.mlir: a two-layer perceptron in standard MLIR (func/linalg/arith),
// as mlir-opt, IREE or a model exporter would write it.  The compiler lowers it
// to kernels, fuses the bias and relu into the matmuls and writes BEF:
//
//   tfrt_compile samples/mlp_linalg.mlir -o mlp.bef
//   tfrt_compile samples/mlp_linalg.mlir --emit=mlir          # see the kernel IR
//   bef_executor mlp.bef --function=mlp --input=2x4xf32=1,2,-1,0.5,0,-1.5,2,1
//
// or from Python:  tfrt.api.load("samples/mlp_linalg.mlir").call("mlp", x)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<[[0.2, -0.5, 0.1], [0.4, 0.3, -0.2], [-0.3, 0.8, 0.5], [0.1, 0.1, 0.1]]> : tensor<4x3xf32>
  %b1 = arith.constant dense<[0.1, -0.1, 0.0]> : tensor<3xf32>
  %w2 = arith.constant dense<[[1.0, -1.0], [0.5, 0.5], [-0.25, 2.0]]> : tensor<3x2xf32>
  %b2 = arith.constant dense<[0.0, 0.5]> : tensor<2xf32>

  // Layer 1: 4 -> 3, relu(x @ w1 + b1).
  %e1 = tensor.empty() : tensor<2x3xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z1 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b1 : tensor<2x3xf32>, tensor<3xf32>) outs(%e1 : tensor<2x3xf32>) {
  ^bb0(%m: f32, %b: f32, %o: f32):
    %s = arith.addf %m, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>

  // Layer 2: 3 -> 2, linear.
  %e2 = tensor.empty() : tensor<2x2xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m2 = linalg.matmul ins(%h1, %w2 : tensor<2x3xf32>, tensor<3x2xf32>) outs(%z2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2, %b2 : tensor<2x2xf32>, tensor<2xf32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%m: f32, %b: f32, %o: f32):
    %s = arith.addf %m, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
