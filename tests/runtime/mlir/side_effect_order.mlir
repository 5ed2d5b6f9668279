// RUN: tfrt_translate -mlir-to-bef %s | bef_executor --work_queue_type=s - | FileCheck %s
// RUN: tfrt_translate -mlir-to-bef %s | bef_executor --work_queue_type=mstd:2 - | FileCheck %s --check-prefix=MSTD

// Side effects against the "returned" line.  A function call runs, on the
// calling thread, every kernel that becomes ready on the stream it is
// processing (switching to another stream only once that one has nothing
// left); a kernel of another stream that becomes ready meanwhile is enqueued.
// On the single-threaded queue the driver runs queued tasks one at a time
// only until the results are available, prints them, then runs the rest.
// The stream of each op is the stream analysis's (tfrt_opt -tfrt-print-stream).

// The print (stream 1) is enqueued with the constant, whose value is also a
// result: the driver runs that task to get the result, and the print, ready
// inside the same task, runs before the line.  The error flows into the
// second result only.
// CHECK-LABEL: --- Running 'print_in_a_task_the_results_need'
// MSTD-LABEL: --- Running 'print_in_a_task_the_results_need'
func.func @print_in_a_task_the_results_need() -> (i32, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %x = tfrt.constant.i32 1
  %c1 = tfrt.print.i32 %x, %c0
  %e = "tfrt_test.fail"(%c0) : (!tfrt.chain) -> !tfrt.chain // expected-error {{something bad happened}}
  tfrt.return %x, %e : i32, !tfrt.chain
}
// CHECK-NEXT: int32 = 1
// CHECK-NEXT: 'print_in_a_task_the_results_need' returned 1,<<error: something bad happened>>
// MSTD-DAG: int32 = 1
// MSTD-DAG: 'print_in_a_task_the_results_need' returned 1,<<error: something bad happened>>

// The print waits for the new chain (stream 2), a task the results do not
// need: the results are ready once the constant's task has run, so the line
// comes first.  The error flows into the first result, not the second.
// CHECK-LABEL: --- Running 'print_in_a_task_the_results_do_not_need'
// MSTD-LABEL: --- Running 'print_in_a_task_the_results_do_not_need'
func.func @print_in_a_task_the_results_do_not_need() -> (i32, i32) {
  %c0 = tfrt.new.chain
  %x = tfrt.constant.i32 3
  %e = "tfrt_test.fail"() : () -> i32 // expected-error {{something bad happened}}
  %s = tfrt.add.i32 %e, %x
  %c1 = tfrt.print.i32 %x, %c0
  tfrt.return %s, %x : i32, i32
}
// CHECK-NEXT: 'print_in_a_task_the_results_do_not_need' returned <<error: something bad happened>>,3
// CHECK-NEXT: int32 = 3
// MSTD-DAG: 'print_in_a_task_the_results_do_not_need' returned <<error: something bad happened>>,3
// MSTD-DAG: int32 = 3

// The call starts on the root stream, which here is stream 2 (the stream
// analysis merged the return op's stream into it), not stream 0: the
// constant runs inline and returns the result, the adds follow on stream 1,
// and the new chain (stream 3) is enqueued, so the print comes after the line.
// CHECK-LABEL: --- Running 'root_stream_is_not_stream_zero'
// MSTD-LABEL: --- Running 'root_stream_is_not_stream_zero'
func.func @root_stream_is_not_stream_zero() -> i32 {
  %c0 = tfrt.new.chain
  %v1 = tfrt.constant.i32 1
  %v2 = tfrt.add.i32 %v1, %v1
  %v3 = tfrt.add.i32 %v1, %v2
  %c4 = tfrt.print.i32 %v1, %c0
  %v5 = tfrt.add.i32 %v1, %v3
  tfrt.return %v1 : i32
}
// CHECK-NEXT: 'root_stream_is_not_stream_zero' returned 1
// CHECK-NEXT: int32 = 1
// MSTD-DAG: 'root_stream_is_not_stream_zero' returned 1
// MSTD-DAG: int32 = 1

// Each call of @helper runs the failing kernel and the add it feeds inline
// (stream 0), and enqueues the doubling (stream 1) and the new chain of the
// print (stream 3).  The driver runs the tasks in order until the second
// result of the last call is ready: the prints of the first two calls run on
// the way, the last one after the line.  Later calls of a function run
// compiled code; they must order their kernels the same way.
func.func @helper(%a: i32) -> (i32, i32) {
  %c0 = tfrt.new.chain
  %c1 = tfrt.print.i32 %a, %c0
  %e = "tfrt_test.fail"() : () -> i32 // expected-error 3 {{something bad happened}}
  %s = tfrt.add.i32 %e, %a
  %d = tfrt.add.i32 %a, %a
  tfrt.return %s, %d : i32, i32
}

// CHECK-LABEL: --- Running 'calls'
// MSTD-LABEL: --- Running 'calls'
func.func @calls() -> (i32, i32) {
  %one = tfrt.constant.i32 1
  %e1, %r1 = tfrt.call @helper(%one) : (i32) -> (i32, i32)
  %e2, %r2 = tfrt.call @helper(%r1) : (i32) -> (i32, i32)
  %e3, %r3 = tfrt.call @helper(%r2) : (i32) -> (i32, i32)
  tfrt.return %e3, %r3 : i32, i32
}
// CHECK-NEXT: int32 = 1
// CHECK-NEXT: int32 = 2
// CHECK-NEXT: 'calls' returned <<error: something bad happened>>,8
// CHECK-NEXT: int32 = 4
// MSTD-DAG: int32 = 1
// MSTD-DAG: int32 = 2
// MSTD-DAG: 'calls' returned <<error: something bad happened>>,8
// MSTD-DAG: int32 = 4
