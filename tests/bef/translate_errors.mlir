// RUN: tfrt_translate -mlir-to-bef -split-input-file -verify-diagnostics %s

// What BEF cannot hold is reported at the op, in TFRT's words.

func.func @no_terminator() -> i32 {
  // expected-error @+1 {{all functions need to have a tfrt.return}}
  %x = "my.producer"() : () -> i32
}

// -----

// expected-error @+1 {{external functions are not allowed}}
func.func private @declared_only(i32) -> i32

// -----

func.func @dangling_reference() {
  // expected-error @+1 {{function @nowhere not defined}}
  "my.invoke"() {target = @nowhere} : () -> ()
  tfrt.return
}

// -----

func.func @dictionary_attribute() {
  // expected-error @+1 {{BEF files cannot encode the 'options' attribute}}
  "my.op"() {options = {verbose = true}} : () -> ()
  tfrt.return
}

// -----

func.func @sync_returns_its_argument(%x: i32) -> i32 attributes {tfrt.sync} {
  // expected-error @+1 {{return value 0 is an argument in a sync function}}
  tfrt.return %x : i32
}

// -----

func.func @sync_returns_twice() -> (i32, i32) attributes {tfrt.sync} {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{return value 1 is duplicated in a sync function}}
  tfrt.return %one, %one : i32, i32
}
