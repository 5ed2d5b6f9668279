// outline-cuda-graphs (tfrt_compile --device=gpu --cuda-graph): an entry
// function's device kernels move into a private function that
// tfrt_array.graph_call runs as a CUDA graph; the transfers of its arguments
// and results stay outside.  Constants become device_constants inside the
// graph.  A function that prints, or hands a scalar back to the host part,
// is left as it is.
// RUN: tfrt_compile %s --device=gpu --cuda-graph --emit=mlir | FileCheck %s
// RUN: tfrt_compile %s --device=gpu --emit=mlir | FileCheck %s --check-prefix=PLAIN
// RUN: not tfrt_compile %s --cuda-graph --emit=mlir 2>&1 | FileCheck %s --check-prefix=CPU
// PLAIN-NOT: graph_call
// PLAIN: tfrt_array.device_constant
// CPU: error: --cuda-graph needs --device=gpu (the device is 'cpu')

// CHECK-LABEL: func.func @layer(%arg0: tensor<2x4xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[X:.*]] = tfrt_array.to_device %arg0 {device = "gpu:0"}
// CHECK-NEXT:    %[[G:.*]] = tfrt_array.graph_call @layer.cuda_graph(%[[X]]) : (tensor<2x4xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[H:.*]] = tfrt_array.to_host %[[G]]
// CHECK-NEXT:    tfrt.return %[[H]] : tensor<2x3xf32>
// CHECK-LABEL: func.func private @layer.cuda_graph(%arg0: tensor<2x4xf32>) -> tensor<2x3xf32> {
// CHECK:         %[[C:.*]] = tfrt_array.constant dense
// CHECK-NEXT:    %[[W:.*]] = tfrt_array.device_constant %[[C]] {device = "gpu:0"}
// CHECK:         %[[M:.*]] = tfrt_array.matmul %arg0, %[[W]]
// CHECK-NEXT:    tfrt.return %[[M]] : tensor<2x3xf32>
func.func @layer(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.0, 0.0, -1.0]]> : tensor<4x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%f : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = math.tanh %m : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// A scalar result computed from device values: no graph.
// CHECK-LABEL: func.func @first(%arg0: tensor<4xf32>) -> f32 {
// CHECK-NOT:     graph_call
// CHECK:         tfrt.return
func.func @first(%x: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %y = math.exp %x : tensor<4xf32>
  %v = tensor.extract %y[%c0] : tensor<4xf32>
  return %v : f32
}

// A print is an effect a replay would not repeat: no graph.
// CHECK-LABEL: func.func @noisy(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NOT:     graph_call
// CHECK:         tfrt.return
func.func @noisy(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.exp %x : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %y[%c0] : tensor<4xf32>
  printf.print_format "{}", %v : f32
  return %y : tensor<4xf32>
}
// CHECK-NOT: cuda_graph
