// RUN: tfrt_opt %s -split-input-file -verify-diagnostics

func.func @invalid_opattrs() {
  %ch = tfrt.new.chain
  %cpu = corert.get_op_handler %ch "cpu"
  // expected-error @+1 {{'corert.executeop' op each op_attr should be a key-value pair, where the key is a string}}
  %res0 = "corert.executeop"(%cpu)
    {op_name = "some.op", op_attrs = [1 : i32], op_func_attrs = []} : (!corert.ophandler) -> !corert.tensorhandle
  tfrt.return
}

// -----

func.func @invalid_opattrs_seq() {
  %ch = tfrt.new.chain
  %cpu = corert.get_op_handler %ch "cpu"
  // expected-error @+1 {{'corert.executeop.seq' op each op_attr should be a key-value pair, where the key is a string}}
  %c = "corert.executeop.seq"(%cpu, %ch)
    {op_name = "some.op", op_attrs = [[1 : i32, 2 : i32]], op_func_attrs = []} : (!corert.ophandler, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// -----

func.func @missing_fn(%c: !corert.tensorhandle) {
  %ch = tfrt.new.chain
  // expected-error @+1 {{'corert.cond' op 'nope' does not reference a valid function}}
  %ch1 = corert.cond %c @nope @nope (%ch) : () -> ()
  tfrt.return
}

// -----

func.func @takes_nothing(%ch: !tfrt.chain) -> !tfrt.chain {
  tfrt.return %ch : !tfrt.chain
}

func.func @mismatch(%x: !corert.tensorhandle) {
  %ch = tfrt.new.chain
  // expected-error @+1 {{'corert.while' op 'takes_nothing' has mismatching operand types}}
  %ch1, %r = corert.while @takes_nothing @takes_nothing (%ch, %x) : (!corert.tensorhandle) -> (!corert.tensorhandle)
  tfrt.return
}

// -----

func.func @bad_shape_attr() {
  // expected-error @+1 {{'corert.const_string_tensor' op attribute 'value' failed to satisfy constraint: string array attribute}}
  %a = corert.const_string_tensor {shape = [1], value = [1]}
  tfrt.return
}
