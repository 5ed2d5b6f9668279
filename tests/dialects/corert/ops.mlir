// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @execute(
// CHECK-SAME: %arg0: !corert.tensorhandle
func.func @execute(%arg: !corert.tensorhandle) -> !corert.tensorhandle {
  // CHECK-NEXT: %[[CH:.*]] = tfrt.new.chain
  %ch = tfrt.new.chain
  // CHECK-NEXT: %[[CPU:.*]] = corert.get_op_handler %[[CH]] "cpu"
  %host = corert.get_op_handler %ch "cpu"
  // CHECK-NEXT: corert.executeop(%[[CPU]]) "demo.scale"(%arg0) {shape = [4, 8], values = [2.500000e-01 : f32]} : 1
  %res0 = corert.executeop(%host) "demo.scale"(%arg)
    {shape = [4, 8], values = [0.25 : f32]} : 1
  // CHECK-NEXT: corert.executeop(%[[CPU]]) "demo.scale"(%arg0){{$}}
  corert.executeop(%host) "demo.scale"(%arg)
  // CHECK-NEXT: %[[R2:.*]] = corert.executeop(%[[CPU]]) "demo.scale"() : 1
  %res2 = corert.executeop(%host) "demo.scale"() : 1
  // Function attributes come in a second dictionary; an empty first one
  // stays so that the text reads back the same way.
  // CHECK-NEXT: corert.executeop(%[[CPU]]) "demo.scale"() {} {f = @execute} : 1
  %res3 = corert.executeop(%host) "demo.scale"() {} {f = @execute} : 1
  // CHECK-NEXT: corert.executeop(%[[CPU]]) "demo.scale"(%arg0, %arg0) {T = i32, "quoted key", flag} : 2
  %res4:2 = corert.executeop(%host) "demo.scale"(%arg, %arg) {T = i32, "quoted key", flag} : 2
  // CHECK-NEXT: = corert.executeop.seq(%[[CPU]], %[[CH]]) "demo.scale"() : 1
  %op_ch, %res5 = corert.executeop.seq(%host, %ch) "demo.scale"() : 1
  // CHECK-NEXT: = corert.executeop.seq(%[[CPU]], %[[CH]]) "print"(%arg0){{$}}
  %op_ch2 = corert.executeop.seq(%host, %ch) "print"(%arg) : 0
  // CHECK-NEXT: corert.register_op_handler %[[CPU]] "cpu2"
  %reg = corert.register_op_handler %host "cpu2"
  // CHECK-NEXT: corert.tensorhandle_to_int32 %arg0
  %i = corert.tensorhandle_to_int32 %arg
  // CHECK-NEXT: tfrt.return %[[R2]] : !corert.tensorhandle
  tfrt.return %res2 : !corert.tensorhandle
}

// CHECK-LABEL: func.func @constants()
func.func @constants() {
  // CHECK-NEXT: corert.const_dense_tensor dense<[7, 8, 9]> : tensor<3xi32>
  %a = corert.const_dense_tensor dense<[7, 8, 9]>: tensor<3xi32>
  // CHECK-NEXT: corert.const_dense_tensor dense<1> : tensor<i32>
  %b = corert.const_dense_tensor dense<1> : tensor<i32>
  // CHECK-NEXT: corert.const_string_tensor {shape = [1, 2], value = ["const", "string"]}
  %c = corert.const_string_tensor {shape = [1, 2], value = ["const", "string"]}
  // CHECK-NEXT: corert.create_dense_tensor.ui64 {shape = [1, 1], value = [1 : ui64]}
  %d = corert.create_dense_tensor.ui64 {shape = [1, 1], value = [1 : ui64]}
  // CHECK-NEXT: corert.create_dense_tensor.i1 {shape = [1], value = [false]}
  %e = corert.create_dense_tensor.i1 {shape = [1], value = [false]}
  // CHECK-NEXT: corert.create_dense_tensor.bf16 {shape = [1], value = [2.500000e+00 : bf16]}
  %f = corert.create_dense_tensor.bf16 {shape = [1], value = [2.5 : bf16]}
  tfrt.return
}

func.func @pick(%ch: !tfrt.chain, %x: !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle) {
  tfrt.return %ch, %x : !tfrt.chain, !corert.tensorhandle
}

// CHECK-LABEL: func.func @control_flow(
func.func @control_flow(%c: !corert.tensorhandle, %x: !corert.tensorhandle) {
  %ch = tfrt.new.chain
  // CHECK: = corert.cond %arg0 @pick @pick(%{{.*}}, %arg1) : (!corert.tensorhandle) -> (!corert.tensorhandle)
  %ch1, %r = corert.cond %c @pick @pick (%ch, %x) : (!corert.tensorhandle) -> (!corert.tensorhandle)
  // CHECK-NEXT: = corert.while @pick @pick(%{{.*}}, %arg1) : (!corert.tensorhandle) -> (!corert.tensorhandle)
  %ch2, %r2 = corert.while @pick @pick (%ch, %x) : (!corert.tensorhandle) -> (!corert.tensorhandle)
  tfrt.return
}

// CHECK-LABEL: func.func @device_ops(
func.func @device_ops(%th: !corert.tensorhandle, %dev: !tfrt.device, %type: !tfrt.tensor_type) {
  // CHECK-NEXT: corert.get_dst_tensor_type %arg0, %arg1
  %t = corert.get_dst_tensor_type %th, %dev
  // CHECK-NEXT: corert.transfer %arg0, %arg1, %arg2
  %a = corert.transfer %th, %dev, %type
  // CHECK-NEXT: corert.transfer_inferred_tensortype %arg0, %arg1
  %b = corert.transfer_inferred_tensortype %th, %dev
  tfrt.return
}

// CHECK-LABEL: func.func @types_and_attributes(
// CHECK-SAME: !corert.ophandler, %{{.*}}: !corert.string, %{{.*}}: !corert.quint8, %{{.*}}: !corert.qint32, %{{.*}}: !corert.opattrs
func.func @types_and_attributes(%h: !corert.ophandler, %s: !corert.string, %q: !corert.quint8,
                                %q32: !corert.qint32, %oa: !corert.opattrs) {
  // CHECK-NEXT: shape = #corert.shape<1x?x3>
  %0 = tfrt_test.get_string {shape = #corert.shape<1x?x3>, value = "a"}
  // CHECK-NEXT: shape = #corert.shape<*>
  %1 = tfrt_test.get_string {shape = #corert.shape<*>, value = "b"}
  // CHECK-NEXT: shape = #corert.shape<>
  %2 = tfrt_test.get_string {shape = #corert.shape<>, value = "c"}
  tfrt.return
}
