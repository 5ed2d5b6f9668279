// RUN: tfrt_translate -mlir-to-bef %s | bef_executor - | FileCheck %s
// RUN: tfrt_translate -mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 - | FileCheck %s

// A two-layer perceptron with batch normalization, in tfrt_tensor ops.  The
// expected numbers come from the same computation in numpy (float32):
//   z1 = x @ w1t.T + b1; n1 = (z1 - mean) * (scale / sqrt(var + 1e-3)) + offset
//   h1 = max(n1, 0); probs = softmax(h1 @ w2 + b2)
// Layer 1 runs on the cpu_async device (a worker-thread stream), layer 2 on
// the host.

// CHECK-LABEL: --- Running 'mlp'
func.func @mlp() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %x = tfrt_tensor.constant dense<[[0.5, -1.0, 2.0, 0.0, 1.5],
                                   [1.0, 1.0, -0.5, 2.5, -2.0],
                                   [-1.5, 0.25, 0.75, -1.0, 3.0]]> : tensor<3x5xf32>
  // Layer 1 weights, stored transposed ([out, in]).
  %w1t = tfrt_tensor.constant dense<[[0.1, 0.2, -0.3, 0.4, 0.0],
                                     [-0.5, 0.6, 0.1, -0.2, 0.3],
                                     [0.25, -0.75, 0.5, 0.5, -0.25],
                                     [0.0, 0.1, 0.2, 0.3, 0.4]]> : tensor<4x5xf32>
  %b1 = tfrt_tensor.constant dense<[0.0, 0.1, -0.1, 0.2]> : tensor<4xf32>
  %scale = tfrt_tensor.constant dense<[1.0, 0.5, 2.0, 1.5]> : tensor<4xf32>
  %offset = tfrt_tensor.constant dense<[0.0, 0.1, -0.2, 0.3]> : tensor<4xf32>
  %mean = tfrt_tensor.constant dense<[0.2, -0.1, 0.3, 0.5]> : tensor<4xf32>
  %var = tfrt_tensor.constant dense<[1.0, 0.25, 4.0, 0.5]> : tensor<4xf32>
  %w2 = tfrt_tensor.constant dense<[[0.3, -0.2, 0.5],
                                    [0.6, 0.4, -0.1],
                                    [-0.7, 0.2, 0.9],
                                    [0.1, -0.3, 0.2]]> : tensor<4x3xf32>
  %b2 = tfrt_tensor.constant dense<[0.01, 0.02, 0.03]> : tensor<3xf32>

  %dx = tfrt_tensor.to_device %x "cpu_async"
  %dw1t = tfrt_tensor.to_device %w1t "cpu_async"
  %db1 = tfrt_tensor.to_device %b1 "cpu_async"
  %m1 = tfrt_tensor.matmul %dx, %dw1t {transpose_a = false, transpose_b = true}
  %z1 = tfrt_tensor.bias_add %m1, %db1
  %hz1 = tfrt_tensor.to_host %z1
  %n1 = tfrt_tensor.batch_norm %hz1, %scale, %offset, %mean, %var {epsilon = 1.000000e-03 : f32}
  %h1 = tfrt_tensor.relu %n1

  %m2 = tfrt_tensor.matmul %h1, %w2 {transpose_a = false, transpose_b = false}
  %logits = tfrt_tensor.bias_add %m2, %b2
  %probs = tfrt_tensor.softmax %logits {axis = -1}
  %class = tfrt_tensor.argmax %probs {axis = 1}
  %class32 = tfrt_tensor.cast %class {dtype = i32}
  %avg = tfrt_tensor.reduce_mean %probs {axes = [0], keepdims = false}
  %total = tfrt_tensor.reduce_sum %probs {axes = [], keepdims = false}

  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3, 4], values = [0.000000e+00, 9.999999e-02, 8.998625e-01, 1.571522e+00, 1.249375e+00, 0.000000e+00, 3.999250e-01, 0.000000e+00, 0.000000e+00, 2.370464e+00, 0.000000e+00, 1.942382e+00]
  %ch1 = tfrt_dht.print_tensor %h1, %ch0
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3, 3], values = [1.452676e-01, 1.724048e-01, 6.823276e-01, 2.348068e-01, 1.820002e-01, 5.831929e-01, 6.558204e-01, 1.895858e-01, 1.545938e-01]
  %ch2 = tfrt_dht.print_tensor %probs, %ch1
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3], values = [2, 2, 0]
  %ch3 = tfrt_dht.print_tensor %class32, %ch2
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3], values = [3.452983e-01, 1.813303e-01, 4.733715e-01]
  %ch4 = tfrt_dht.print_tensor %avg, %ch3
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [], values = [3.000000e+00]
  %ch5 = tfrt_dht.print_tensor %total, %ch4
  // CHECK-NEXT: 'mlp' returned !tfrt.chain value
  tfrt.return %ch5 : !tfrt.chain
}
