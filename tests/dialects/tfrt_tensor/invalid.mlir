// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

// Shapes known at compile time are checked with the kernels' own rules.
func.func @contraction() {
  %a = tfrt_tensor.constant dense<1.0> : tensor<2x3xf32>
  // expected-error @+1 {{'tfrt_tensor.matmul' op contraction dimensions differ (3 vs 2) for shapes [2, 3] and [2, 3]}}
  %m = tfrt_tensor.matmul %a, %a {transpose_a = false, transpose_b = false}
  tfrt.return
}

// -----

// ... through the ops and copies computed from constants.
func.func @through_ops() {
  %a = tfrt_tensor.constant dense<1.0> : tensor<2x3xf32>
  %t = tfrt_tensor.transpose %a {perm = [1, 0]}
  %g = tfrt_tensor.to_device %t "cpu_async"
  %r = tfrt_tensor.relu %g
  // expected-error @+1 {{'tfrt_tensor.add' op shapes [3, 2] and [2, 3] are not broadcast-compatible}}
  %s = tfrt_tensor.add %r, %a
  tfrt.return
}

// -----

func.func @float_only() {
  %a = tfrt_tensor.constant dense<1> : tensor<4xi32>
  // expected-error @+1 {{'tfrt_tensor.sigmoid' op dtype i32 is not a floating-point type}}
  %s = tfrt_tensor.sigmoid %a
  tfrt.return
}

// -----

func.func @dtypes() {
  %a = tfrt_tensor.constant dense<1> : tensor<4xi32>
  %b = tfrt_tensor.constant dense<1.0> : tensor<4xf32>
  // expected-error @+1 {{'tfrt_tensor.mul' op input 1 has dtype f32, expected i32}}
  %s = tfrt_tensor.mul %a, %b
  tfrt.return
}

// -----

func.func @reshape() {
  %a = tfrt_tensor.constant dense<1.0> : tensor<2x3xf32>
  // expected-error @+1 {{'tfrt_tensor.reshape' op cannot reshape [2, 3] (6 elements) to [4, 2]}}
  %r = tfrt_tensor.reshape %a {shape = [4, 2]}
  tfrt.return
}

// -----

// Attributes are checked whatever the inputs.
func.func @padding(%x: !tfrt_tensor.tensor) {
  // expected-error @+1 {{'tfrt_tensor.max_pool' op padding 'FULL' is not recognized (expected SAME or VALID)}}
  %p = tfrt_tensor.max_pool %x {ksize = [2, 2], padding = "FULL", strides = [2, 2]}
  tfrt.return
}

// -----

func.func @window(%x: !tfrt_tensor.tensor) {
  // expected-error @+1 {{'tfrt_tensor.conv2d' op strides must be two positive integers, got [1, 0]}}
  %p = tfrt_tensor.conv2d %x, %x {dilations = [1, 1], padding = "VALID", strides = [1, 0]}
  tfrt.return
}

// -----

// Every attribute is required: BEF stores them by position.
func.func @missing(%x: !tfrt_tensor.tensor) {
  // expected-error @+1 {{'tfrt_tensor.matmul' op requires attribute 'transpose_b'}}
  %p = tfrt_tensor.matmul %x, %x {transpose_a = false}
  tfrt.return
}

// -----

func.func @epsilon_type(%x: !tfrt_tensor.tensor) {
  // expected-error @+1 {{'tfrt_tensor.batch_norm' op attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute}}
  %n = tfrt_tensor.batch_norm %x, %x, %x, %x, %x {epsilon = 1.0e-3}
  tfrt.return
}

// -----

func.func @axis_type(%x: !tfrt_tensor.tensor) {
  // expected-error @+1 {{'tfrt_tensor.softmax' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %n = tfrt_tensor.softmax %x {axis = 1 : i32}
  tfrt.return
}

// -----

func.func @cast_type(%x: !tfrt_tensor.tensor) {
  // expected-error @+1 {{'tfrt_tensor.cast' op attribute 'dtype' must be a tensor element type, but got !tfrt.chain}}
  %c = tfrt_tensor.cast %x {dtype = !tfrt.chain}
  tfrt.return
}

// -----

func.func @concat_nothing() {
  // expected-error @+1 {{'tfrt_tensor.concat' op needs at least one input}}
  %c = tfrt_tensor.concat {axis = 0}
  tfrt.return
}

// -----

func.func @device_name(%x: !tfrt_tensor.tensor) {
  // expected-error @+1 {{'tfrt_tensor.to_device' op invalid device name 'gpu:x' (expected KIND or KIND:INDEX)}}
  %g = tfrt_tensor.to_device %x "gpu:x"
  tfrt.return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'tfrt_tensor.constant' op element type index cannot be stored in a dense host tensor}}
  %c = tfrt_tensor.constant dense<1> : tensor<2xindex>
  tfrt.return
}

// -----

func.func @operand_type(%x: i32) {
  // expected-error @+1 {{'tfrt_tensor.relu' op operand #0 must be !tfrt_tensor.tensor type, but got 'i32'}}
  %r = "tfrt_tensor.relu"(%x) : (i32) -> !tfrt_tensor.tensor
  tfrt.return
}
