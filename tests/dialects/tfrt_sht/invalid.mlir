// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @values_are_strings() {
  // expected-error @+1 {{'tfrt_sht.create_tensor' op attribute 'values' failed to satisfy constraint: string array attribute}}
  %a = "tfrt_sht.create_tensor"() {shape = [1], values = [1]} : () -> !tfrt_tensor.tensor
  tfrt.return
}

// -----

func.func @shape_required() {
  // expected-error @+1 {{'tfrt_sht.create_tensor' op requires attribute 'shape'}}
  %a = "tfrt_sht.create_tensor"() {values = ["a"]} : () -> !tfrt_tensor.tensor
  tfrt.return
}
