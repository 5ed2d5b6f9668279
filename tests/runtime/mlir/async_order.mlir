// RUN: tfrt_translate -mlir-to-bef %s | bef_executor --work_queue_type=s - | FileCheck %s
// RUN: tfrt_translate -mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 - | FileCheck %s --check-prefix=MSTD

// On the single-threaded queue enqueued work runs only while the driver
// awaits the results, so the unchained print of the async value comes last.
// CHECK-LABEL: --- Running 'async_after_inline'
// MSTD-LABEL: --- Running 'async_after_inline'
func.func @async_after_inline() -> i32 {
  %ch0 = tfrt.new.chain
  %x = tfrt.constant.i32 1
  %y = "tfrt_test.async_add.i32"(%x, %x) : (i32, i32) -> i32
  %ch1 = tfrt.print.i32 %y, %ch0
  %ch2 = tfrt.print.i32 %x, %ch0
  tfrt.return %y : i32
}
// CHECK-NEXT: int32 = 1
// CHECK-NEXT: int32 = 2
// CHECK-NEXT: 'async_after_inline' returned 2
// The print of %x has a stream of its own (stream analysis), so on worker
// threads it may come after the driver prints the result.
// MSTD-DAG: int32 = 1
// MSTD-DAG: int32 = 2
// MSTD-DAG: 'async_after_inline' returned 2

// Work that nothing waits for still runs before the next function starts.
// CHECK-LABEL: --- Running 'unawaited_sleep'
// MSTD-LABEL: --- Running 'unawaited_sleep'
func.func @unawaited_sleep() {
  %t = tfrt.constant.i32 1000
  "tfrt_test.usleep"(%t) : (i32) -> ()
  tfrt.return
}
// CHECK-NEXT: Slept for 1000 microseconds
// MSTD-NEXT: Slept for 1000 microseconds

// CHECK-LABEL: --- Running 'deep_async_chain'
func.func @deep_async_chain() -> i32 {
  %n = tfrt.constant.i32 500
  %zero = tfrt.constant.i32 0
  %r = tfrt.repeat.i32 %n, %zero : i32 {
    %one = tfrt.constant.i32 1
    %next = "tfrt_test.async_add.i32"(%zero, %one) : (i32, i32) -> i32
    tfrt.return %next : i32
  }
  tfrt.return %r : i32
}
// CHECK-NEXT: 'deep_async_chain' returned 500
// MSTD: 'deep_async_chain' returned 500
