// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// TFRT has no op definition for tfrt_sht.create_tensor: generic form, with
// its data as plain attributes.
// CHECK-LABEL: func.func @basic()
func.func @basic() {
  // CHECK-NEXT: "tfrt_sht.create_tensor"() {shape = [2], values = ["string", "tensor"]} : () -> !tfrt_tensor.tensor
  %a = "tfrt_sht.create_tensor"()
    {shape = [2], values = ["string", "tensor"]} : () -> !tfrt_tensor.tensor
  tfrt.return
}
