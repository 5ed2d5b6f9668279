// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @bad_tensor(%x: i32) {
  %ch = tfrt.new.chain
  // expected-error @+1 {{'tfrt_dht.print_tensor' op operand #0 must be !tfrt_tensor.tensor type, but got 'i32'}}
  %c = "tfrt_dht.print_tensor"(%x, %ch) : (i32, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// -----

func.func @bad_shape() {
  // expected-error @+1 {{'tfrt_dht.create_uninitialized_tensor.i32.1' op attribute 'shape' failed to satisfy constraint: 64-bit integer array attribute}}
  %t = "tfrt_dht.create_uninitialized_tensor.i32.1"() {shape = ["x"]} : () -> !tfrt_tensor.tensor
  tfrt.return
}
