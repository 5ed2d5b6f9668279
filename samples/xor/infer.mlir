// XOR inference with the weights train.mlir learned.
//
//   tfrt_compile samples/xor/infer.mlir -o infer.bef
//   bef_executor infer.bef --function=infer --input=4x2xf32=0,0,0,1,1,0,1,1 \
//       --input=@weights.npy --input=@weights.npy --input=@weights.npy --input=@weights.npy
//
// @infer(x, w1, b1, w2, b2) = sigmoid(sigmoid(x w1 + b1) w2 + b2) for a batch
// of four inputs, the weights read from the .npy file training wrote (each
// @weights.npy reads the file's next array: w1, b1, w2, b2).  It prints one
// line per input and returns the four outputs.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

func.func @infer(%x: tensor<4x2xf32>, %w1: tensor<2x8xf32>, %b1: tensor<8xf32>,
                 %w2: tensor<8x1xf32>, %b2: tensor<1xf32>) -> tensor<4x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e48 = tensor.empty() : tensor<4x8xf32>
  %z48 = linalg.fill ins(%zero : f32) outs(%e48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %xw = linalg.matmul ins(%x, %w1 : tensor<4x2xf32>, tensor<2x8xf32>) outs(%z48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xw, %b1 : tensor<4x8xf32>, tensor<8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %p, %q : f32
    %n = arith.negf %s : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e41 = tensor.empty() : tensor<4x1xf32>
  %z41 = linalg.fill ins(%zero : f32) outs(%e41 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %hw = linalg.matmul ins(%h, %w2 : tensor<4x8xf32>, tensor<8x1xf32>) outs(%z41 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hw, %b2 : tensor<4x1xf32>, tensor<1xf32>) outs(%e41 : tensor<4x1xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %p, %q : f32
    %n = arith.negf %s : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>

  // One line per example: its two inputs, the output, and the output rounded
  // to a class (1 when above 0.5).
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %a = tensor.extract %x[%i, %c0] : tensor<4x2xf32>
    %b = tensor.extract %x[%i, %c1] : tensor<4x2xf32>
    %y = tensor.extract %out[%i, %c0] : tensor<4x1xf32>
    %ai = arith.fptosi %a : f32 to i32
    %bi = arith.fptosi %b : f32 to i32
    %above = arith.cmpf ogt, %y, %half : f32
    %cls = arith.extui %above : i1 to i32
    printf.print_format "{} xor {} -> {} ({})\n", %ai : i32, %bi : i32, %y : f32, %cls : i32
  }
  return %out : tensor<4x1xf32>
}
