// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @bad_chain(%t: !tfrt_tensor.tensor) {
  // expected-error @+1 {{'coo.convert_dht_to_coo.i32.2' op operand #1 must be !tfrt.chain type, but got '!tfrt_tensor.tensor'}}
  %s, %c = "coo.convert_dht_to_coo.i32.2"(%t, %t) : (!tfrt_tensor.tensor, !tfrt_tensor.tensor) -> (!tfrt_tensor.tensor, !tfrt.chain)
  tfrt.return
}
