// mlp.mlir: a two-layer perceptron on dense host tensors.
//
//   tfrt_translate -mlir-to-bef samples/mlp.mlir | bef_executor -
//
// Each tfrt_tensor op is a kernel that runs on the device its inputs live on
// (host tensors: the CPU).  Tensors are values, so no chains thread through
// the computation; only the prints are ordered, by %ch.  The shapes are known
// from the constants, so `tfrt_opt samples/mlp.mlir` already checks them
// (try a 3x3 %w2).
func.func @mlp() -> !tfrt.chain {
  %ch0 = tfrt.new.chain

  // A batch of two inputs with four features each.
  %x = tfrt_tensor.constant dense<[[1.0, 2.0, -1.0, 0.5],
                                   [0.0, -1.5, 2.0, 1.0]]> : tensor<2x4xf32>

  // Layer 1: 4 -> 3, relu.
  %w1 = tfrt_tensor.constant dense<[[0.2, -0.5, 0.1],
                                    [0.4, 0.3, -0.2],
                                    [-0.3, 0.8, 0.5],
                                    [0.1, -0.1, 0.9]]> : tensor<4x3xf32>
  %b1 = tfrt_tensor.constant dense<[0.1, 0.0, -0.2]> : tensor<3xf32>
  %m1 = tfrt_tensor.matmul %x, %w1 {transpose_a = false, transpose_b = false}
  %z1 = tfrt_tensor.bias_add %m1, %b1
  %h1 = tfrt_tensor.relu %z1

  // Layer 2: 3 -> 2, softmax over the classes.
  %w2 = tfrt_tensor.constant dense<[[0.7, -0.4],
                                    [-0.6, 0.9],
                                    [0.5, 0.2]]> : tensor<3x2xf32>
  %b2 = tfrt_tensor.constant dense<[0.05, -0.05]> : tensor<2xf32>
  %m2 = tfrt_tensor.matmul %h1, %w2 {transpose_a = false, transpose_b = false}
  %logits = tfrt_tensor.bias_add %m2, %b2
  %probs = tfrt_tensor.softmax %logits {axis = -1}
  %class = tfrt_tensor.argmax %probs {axis = 1}

  %ch1 = tfrt_dht.print_tensor %probs, %ch0
  %ch2 = tfrt_dht.print_tensor %class, %ch1
  tfrt.return %ch2 : !tfrt.chain
}
