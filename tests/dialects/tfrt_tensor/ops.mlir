// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// Every op of the tfrt_tensor dialect in its custom form; printing is a fixed point.

// CHECK-LABEL: func.func @ops(
func.func @ops(%a: !tfrt_tensor.tensor, %b: !tfrt_tensor.tensor) -> !tfrt_tensor.tensor {
  // CHECK-NEXT: %[[C:.*]] = tfrt_tensor.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %c = tfrt_tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK-NEXT: tfrt_tensor.add %arg0, %arg1
  %add = tfrt_tensor.add %a, %b
  // CHECK-NEXT: tfrt_tensor.sub %arg0, %arg1
  %sub = tfrt_tensor.sub %a, %b
  // CHECK-NEXT: tfrt_tensor.mul %arg0, %arg1
  %mul = tfrt_tensor.mul %a, %b
  // CHECK-NEXT: tfrt_tensor.div %arg0, %arg1
  %div = tfrt_tensor.div %a, %b
  // CHECK-NEXT: tfrt_tensor.maximum %arg0, %arg1
  %max = tfrt_tensor.maximum %a, %b
  // CHECK-NEXT: tfrt_tensor.minimum %arg0, %arg1
  %min = tfrt_tensor.minimum %a, %b
  // CHECK-NEXT: tfrt_tensor.relu %arg0
  %relu = tfrt_tensor.relu %a
  // CHECK-NEXT: tfrt_tensor.neg %arg0
  %neg = tfrt_tensor.neg %a
  // CHECK-NEXT: tfrt_tensor.abs %arg0
  %abs = tfrt_tensor.abs %a
  // CHECK-NEXT: tfrt_tensor.sigmoid %arg0
  %sig = tfrt_tensor.sigmoid %a
  // CHECK-NEXT: tfrt_tensor.tanh %arg0
  %tanh = tfrt_tensor.tanh %a
  // CHECK-NEXT: tfrt_tensor.exp %arg0
  %exp = tfrt_tensor.exp %a
  // CHECK-NEXT: tfrt_tensor.log %arg0
  %log = tfrt_tensor.log %a
  // CHECK-NEXT: tfrt_tensor.sqrt %arg0
  %sqrt = tfrt_tensor.sqrt %a
  // CHECK-NEXT: tfrt_tensor.rsqrt %arg0
  %rsqrt = tfrt_tensor.rsqrt %a
  // CHECK-NEXT: tfrt_tensor.bias_add %arg0, %[[C]]
  %bias = tfrt_tensor.bias_add %a, %c
  // CHECK-NEXT: tfrt_tensor.matmul %arg0, %arg1 {transpose_a = false, transpose_b = true}
  %mm = tfrt_tensor.matmul %a, %b {transpose_b = true, transpose_a = false}
  // CHECK-NEXT: tfrt_tensor.conv2d %arg0, %arg1 {dilations = [1, 1], padding = "SAME", strides = [1, 1, 1, 1]}
  %conv = tfrt_tensor.conv2d %a, %b {dilations = [1, 1], padding = "SAME", strides = [1, 1, 1, 1]}
  // CHECK-NEXT: tfrt_tensor.max_pool %arg0 {ksize = [2, 2], padding = "VALID", strides = [2, 2]}
  %mp = tfrt_tensor.max_pool %a {ksize = [2, 2], padding = "VALID", strides = [2, 2]}
  // CHECK-NEXT: tfrt_tensor.avg_pool %arg0 {ksize = [3, 3], padding = "SAME", strides = [1, 1]}
  %ap = tfrt_tensor.avg_pool %a {ksize = [3, 3], padding = "SAME", strides = [1, 1]}
  // CHECK-NEXT: tfrt_tensor.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 {epsilon = 1.000000e-03 : f32}
  %bn = tfrt_tensor.batch_norm %a, %b, %b, %b, %b {epsilon = 1.0e-3 : f32}
  // CHECK-NEXT: tfrt_tensor.softmax %arg0 {axis = -1 : i64}
  %sm = tfrt_tensor.softmax %a {axis = -1}
  // CHECK-NEXT: tfrt_tensor.reduce_sum %arg0 {axes = [], keepdims = false}
  %rs = tfrt_tensor.reduce_sum %a {axes = [], keepdims = false}
  // CHECK-NEXT: tfrt_tensor.reduce_mean %arg0 {axes = [0], keepdims = true}
  %rm = tfrt_tensor.reduce_mean %a {axes = [0], keepdims = true}
  // CHECK-NEXT: tfrt_tensor.reduce_max %arg0 {axes = [0, 1], keepdims = false}
  %rx = tfrt_tensor.reduce_max %a {axes = [0, 1], keepdims = false}
  // CHECK-NEXT: tfrt_tensor.argmax %arg0 {axis = 1 : i64}
  %am = tfrt_tensor.argmax %a {axis = 1}
  // CHECK-NEXT: tfrt_tensor.reshape %arg0 {shape = [1, -1]}
  %rh = tfrt_tensor.reshape %a {shape = [1, -1]}
  // CHECK-NEXT: tfrt_tensor.transpose %arg0 {perm = [1, 0]}
  %tr = tfrt_tensor.transpose %a {perm = [1, 0]}
  // CHECK-NEXT: tfrt_tensor.broadcast_to %arg0 {shape = [4, 3]}
  %bc = tfrt_tensor.broadcast_to %a {shape = [4, 3]}
  // CHECK-NEXT: tfrt_tensor.concat %arg0, %arg1, %arg0 {axis = 0 : i64}
  %cc = tfrt_tensor.concat %a, %b, %a {axis = 0}
  // CHECK-NEXT: tfrt_tensor.slice %arg0 {begin = [0, 1], size = [-1, 2]}
  %sl = tfrt_tensor.slice %a {begin = [0, 1], size = [-1, 2]}
  // CHECK-NEXT: tfrt_tensor.cast %arg0 {dtype = i32}
  %ct = tfrt_tensor.cast %a {dtype = i32}
  // CHECK-NEXT: tfrt_tensor.copy %arg0
  %cp = tfrt_tensor.copy %a
  // CHECK-NEXT: %[[G:.*]] = tfrt_tensor.to_device %arg0 "gpu:0"
  %g = tfrt_tensor.to_device %a "gpu:0"
  // CHECK-NEXT: %[[H:.*]] = tfrt_tensor.to_host %[[G]]
  %h = tfrt_tensor.to_host %g
  // CHECK-NEXT: tfrt.return %[[H]] : !tfrt_tensor.tensor
  tfrt.return %h : !tfrt_tensor.tensor
}

// The generic form of a registered op reads the same.
// CHECK-LABEL: func.func @generic(
func.func @generic(%a: !tfrt_tensor.tensor) -> !tfrt_tensor.tensor {
  // CHECK-NEXT: tfrt_tensor.matmul %arg0, %arg0 {transpose_a = true, transpose_b = false}
  %m = "tfrt_tensor.matmul"(%a, %a) {transpose_a = true, transpose_b = false} : (!tfrt_tensor.tensor, !tfrt_tensor.tensor) -> !tfrt_tensor.tensor
  tfrt.return %m : !tfrt_tensor.tensor
}
