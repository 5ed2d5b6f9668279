// XOR, learned by a 2-8-1 sigmoid network trained with plain gradient descent.
//
//   tfrt_compile samples/xor/train.mlir -o train.bef
//   bef_executor train.bef --function=train \
//       --output=@weights.npy --output=+weights.npy --output=+weights.npy --output=+weights.npy
//
// @train runs the whole training loop (scf.for, the weights carried as
// iteration arguments), prints the loss every 250 steps, and returns the
// trained weights w1, b1, w2, b2 and the last loss; the --output flags above
// write the four weights, in order, into one .npy file (infer.mlir reads it).
// The initial weights are constants: standard normal draws from numpy's
// default_rng(0), w1 then w2, rounded to 6 decimals; biases start at zero.
// Loss: mean squared error over the four examples; learning rate 2.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0, d1) -> ()>

// 1 / (1 + exp(-z)), elementwise.
func.func private @sigmoid(%z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %x = math.exp %n : f32
    %d = arith.addf %one, %x : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

func.func private @sigmoid_out(%z: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %e = tensor.empty() : tensor<4x1xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<4x1xf32>) outs(%e : tensor<4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %x = math.exp %n : f32
    %d = arith.addf %one, %x : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// One step: forward, loss, backward, update.  Returns the new weights and the loss.
func.func private @step(%x: tensor<4x2xf32>, %y: tensor<4x1xf32>,
                        %w1: tensor<2x8xf32>, %b1: tensor<8xf32>,
                        %w2: tensor<8x1xf32>, %b2: tensor<1xf32>)
    -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<1xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %lr = arith.constant 2.0 : f32

  // Forward: h = sigmoid(x w1 + b1), o = sigmoid(h w2 + b2).
  %e48 = tensor.empty() : tensor<4x8xf32>
  %z48 = linalg.fill ins(%zero : f32) outs(%e48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %xw = linalg.matmul ins(%x, %w1 : tensor<4x2xf32>, tensor<2x8xf32>) outs(%z48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xw, %b1 : tensor<4x8xf32>, tensor<8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %h = func.call @sigmoid(%a1) : (tensor<4x8xf32>) -> tensor<4x8xf32>

  %e41 = tensor.empty() : tensor<4x1xf32>
  %z41 = linalg.fill ins(%zero : f32) outs(%e41 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %hw = linalg.matmul ins(%h, %w2 : tensor<4x8xf32>, tensor<8x1xf32>) outs(%z41 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %a2 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hw, %b2 : tensor<4x1xf32>, tensor<1xf32>) outs(%e41 : tensor<4x1xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x1xf32>
  %out = func.call @sigmoid_out(%a2) : (tensor<4x1xf32>) -> tensor<4x1xf32>

  // Loss: mean((o - y)^2).
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sq = linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%out, %y : tensor<4x1xf32>, tensor<4x1xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%p: f32, %t: f32, %acc: f32):
    %d = arith.subf %p, %t : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %d2 : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %sum = tensor.extract %sq[] : tensor<f32>
  %quarter = arith.constant 0.25 : f32
  %loss = arith.mulf %sum, %quarter : f32

  // Backward.  d_o = dL/d(pre-activation of o) = 0.5 (o - y) o (1 - o).
  %d_o = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%out, %y : tensor<4x1xf32>, tensor<4x1xf32>) outs(%e41 : tensor<4x1xf32>) {
  ^bb0(%p: f32, %t: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %d = arith.subf %p, %t : f32
    %g = arith.mulf %d, %half : f32
    %c = arith.subf %one, %p : f32
    %pc = arith.mulf %p, %c : f32
    %r = arith.mulf %g, %pc : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>

  // dw2 = h^T d_o, db2 = column sums of d_o.
  %e84 = tensor.empty() : tensor<8x4xf32>
  %hT = linalg.transpose ins(%h : tensor<4x8xf32>) outs(%e84 : tensor<8x4xf32>) permutation = [1, 0]
  %e81 = tensor.empty() : tensor<8x1xf32>
  %z81 = linalg.fill ins(%zero : f32) outs(%e81 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %dw2 = linalg.matmul ins(%hT, %d_o : tensor<8x4xf32>, tensor<4x1xf32>) outs(%z81 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %e1 = tensor.empty() : tensor<1xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
  %db2 = linalg.reduce ins(%d_o : tensor<4x1xf32>) outs(%z1 : tensor<1xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }

  // d_h = (d_o w2^T) h (1 - h); dw1 = x^T d_h, db1 = column sums of d_h.
  %e18 = tensor.empty() : tensor<1x8xf32>
  %w2T = linalg.transpose ins(%w2 : tensor<8x1xf32>) outs(%e18 : tensor<1x8xf32>) permutation = [1, 0]
  %back = linalg.matmul ins(%d_o, %w2T : tensor<4x1xf32>, tensor<1x8xf32>) outs(%z48 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d_h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%back, %h : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%g: f32, %p: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %c = arith.subf %one, %p : f32
    %pc = arith.mulf %p, %c : f32
    %r = arith.mulf %g, %pc : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e24 = tensor.empty() : tensor<2x4xf32>
  %xT = linalg.transpose ins(%x : tensor<4x2xf32>) outs(%e24 : tensor<2x4xf32>) permutation = [1, 0]
  %e28 = tensor.empty() : tensor<2x8xf32>
  %z28 = linalg.fill ins(%zero : f32) outs(%e28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %dw1 = linalg.matmul ins(%xT, %d_h : tensor<2x4xf32>, tensor<4x8xf32>) outs(%z28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %z8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %db1 = linalg.reduce ins(%d_h : tensor<4x8xf32>) outs(%z8 : tensor<8xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }

  // w -= lr * dw.
  %nw1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w1, %dw1 : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e28 : tensor<2x8xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %step = arith.mulf %g, %lr : f32
    %r = arith.subf %w, %step : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %nw2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w2, %dw2 : tensor<8x1xf32>, tensor<8x1xf32>) outs(%e81 : tensor<8x1xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %step = arith.mulf %g, %lr : f32
    %r = arith.subf %w, %step : f32
    linalg.yield %r : f32
  } -> tensor<8x1xf32>
  %nb1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%b1, %db1 : tensor<8xf32>, tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %step = arith.mulf %g, %lr : f32
    %r = arith.subf %w, %step : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %nb2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%b2, %db2 : tensor<1xf32>, tensor<1xf32>) outs(%e1 : tensor<1xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %step = arith.mulf %g, %lr : f32
    %r = arith.subf %w, %step : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>
  return %nw1, %nb1, %nw2, %nb2, %loss : tensor<2x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<1xf32>, f32
}

func.func @train() -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<1xf32>, f32) {
  %x = arith.constant dense<[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]> : tensor<4x2xf32>
  %y = arith.constant dense<[[0.0], [1.0], [1.0], [0.0]]> : tensor<4x1xf32>
  %w1 = arith.constant dense<[[0.125730, -0.132105, 0.640423, 0.104900, -0.535669, 0.361595, 1.304000, 0.947081],
                              [-0.703735, -1.265422, -0.623274, 0.041326, -2.325031, -0.218792, -1.245911, -0.732267]]> : tensor<2x8xf32>
  %b1 = arith.constant dense<0.0> : tensor<8xf32>
  %w2 = arith.constant dense<[[-0.544259], [-0.316300], [0.411631], [1.042513],
                              [-0.128535], [1.366463], [-0.665195], [0.351510]]> : tensor<8x1xf32>
  %b2 = arith.constant dense<0.0> : tensor<1xf32>
  %inf = arith.constant 0x7F800000 : f32

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 3000 : index
  %every = arith.constant 250 : index
  %r:5 = scf.for %i = %c0 to %steps step %c1
      iter_args(%a = %w1, %b = %b1, %c = %w2, %d = %b2, %l = %inf)
      -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<1xf32>, f32) {
    %na, %nb, %nc, %nd, %loss = func.call @step(%x, %y, %a, %b, %c, %d)
        : (tensor<4x2xf32>, tensor<4x1xf32>, tensor<2x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<1xf32>)
        -> (tensor<2x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<1xf32>, f32)
    %rem = arith.remui %i, %every : index
    %show = arith.cmpi eq, %rem, %c0 : index
    scf.if %show {
      printf.print_format "step {} loss {}\n", %i : index, %loss : f32
    }
    scf.yield %na, %nb, %nc, %nd, %loss : tensor<2x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<1xf32>, f32
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<2x8xf32>, tensor<8xf32>, tensor<8x1xf32>, tensor<1xf32>, f32
}
