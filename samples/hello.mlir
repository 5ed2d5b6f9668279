// hello.mlir: a first TFRT program.
//
//   tfrt_opt samples/hello.mlir -canonicalize          simplify it
//   tfrt_translate -mlir-to-bef samples/hello.mlir | bef_executor -
//                                                      run it: int32 = 3
//
// Kernels run as soon as their inputs are ready; the chain (!tfrt.chain)
// orders the side effect (the print) before the function returns.
func.func @hello() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt.add.i32 %one, %two
  // Nothing uses %twice: -canonicalize erases it.
  %twice = tfrt.add.i32 %sum, %sum
  %ch1 = tfrt.print.i32 %sum, %ch0
  // Merging a chain with itself adds nothing: -canonicalize replaces the
  // merge by %ch1.
  %done = tfrt.merge.chains %ch1, %ch1 : !tfrt.chain, !tfrt.chain
  tfrt.return %done : !tfrt.chain
}
