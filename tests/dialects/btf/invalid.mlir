// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @path_is_a_string(%index: i32) {
  // expected-error @+1 {{'btf.read_dense_tensor.i32.2' op operand #0 must be !tfrt.string type, but got 'i32'}}
  %t = "btf.read_dense_tensor.i32.2"(%index, %index) : (i32, i32) -> !tfrt_tensor.tensor
  tfrt.return
}

// -----

func.func @one_result(%path: !tfrt.string, %index: i32) {
  // expected-error @+1 {{'btf.read_dense_tensor.i32.2' op requires one result}}
  %t:2 = "btf.read_dense_tensor.i32.2"(%path, %index) : (!tfrt.string, i32) -> (!tfrt_tensor.tensor, !tfrt_tensor.tensor)
  tfrt.return
}
