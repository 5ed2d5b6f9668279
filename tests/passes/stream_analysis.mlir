// RUN: tfrt_opt %s -tfrt-print-stream -verify-diagnostics | FileCheck %s

// Stream analysis of small graphs, reported as remarks: one at each function
// (its entry, the root stream) and one at each op.  The pass leaves the IR
// unchanged.

// CHECK-LABEL: func.func @fork
module attributes {tfrt.cost_threshold = 10 : i64} {

// Two expensive independent ops: the first one feeds the return on the
// critical path, the second becomes its own stream, started by the entry.
// expected-remark@+1 {{stream id: 0, stream cost: 12, parent stream: -1, child streams: [1]}}
func.func @fork(%x: i32) -> (i32, i32) {
  // expected-remark@+1 {{stream id: 0, stream cost: 12, parent stream: -1}}
  %left = tfrt_test.test_cost %x {id = 0 : i64, _tfrt_cost = 10 : i64} : i32
  // expected-remark@+1 {{stream id: 1, stream cost: 10, parent stream: 0}}
  %right = tfrt_test.test_cost %x {id = 1 : i64, _tfrt_cost = 10 : i64} : i32
  // expected-remark@+1 {{stream id: 0, stream cost: 12, parent stream: -1}}
  tfrt.return %left, %right : i32, i32
}

// Cheap siblings are packed together until the pack costs at least the
// threshold (6 here, from the function): 2 + 3 + 2.
// expected-remark@+1 {{stream id: 0, stream cost: 6, parent stream: -1, child streams: [3]}}
func.func @pack(%x: i32) -> (i32, i32, i32, i32) attributes {tfrt.cost_threshold = 6} {
  // expected-remark@+1 {{stream id: 3, stream cost: 7, parent stream: 0}}
  %p = tfrt_test.test_cost %x {id = 0 : i64, _tfrt_cost = 2 : i64} : i32
  // expected-remark@+1 {{stream id: 3, stream cost: 7, parent stream: 0}}
  %q = tfrt_test.test_cost %x {id = 1 : i64, _tfrt_cost = 3 : i64} : i32
  // expected-remark@+1 {{stream id: 3, stream cost: 7, parent stream: 0}}
  %r = tfrt_test.test_cost %x {id = 2 : i64, _tfrt_cost = 2 : i64} : i32
  // expected-remark@+1 {{stream id: 0, stream cost: 6, parent stream: -1}}
  %s = tfrt_test.test_cost %x {id = 3 : i64, _tfrt_cost = 4 : i64} : i32
  // expected-remark@+1 {{stream id: 0, stream cost: 6, parent stream: -1}}
  tfrt.return %p, %q, %r, %s : i32, i32, i32, i32
}

// A stream started by an op in the middle of another stream.
// expected-remark@+1 {{stream id: 0, stream cost: 9, parent stream: -1}}
func.func @fan_out(%x: i32) -> (i32, i32) attributes {tfrt.cost_threshold = 5} {
  // expected-remark@+1 {{stream id: 0, stream cost: 9, parent stream: -1, child streams: [1]}}
  %a = tfrt_test.test_cost %x {id = 0 : i64, _tfrt_cost = 2 : i64} : i32
  // expected-remark@+1 {{stream id: 0, stream cost: 9, parent stream: -1}}
  %b = tfrt_test.test_cost %a {id = 1 : i64, _tfrt_cost = 5 : i64} : i32
  // expected-remark@+1 {{stream id: 1, stream cost: 5, parent stream: 0}}
  %c = tfrt_test.test_cost %a {id = 2 : i64, _tfrt_cost = 5 : i64} : i32
  // expected-remark@+1 {{stream id: 0, stream cost: 9, parent stream: -1}}
  tfrt.return %b, %c : i32, i32
}

// With tfrt.merge_inter_dependent_streams, %w's stream first takes in one
// of the cheap streams it exchanges data with (%z's, the first in LLVM's
// set order), which lifts it over the threshold; %y's stream then packs
// with %v.
// expected-remark@+1 {{stream id: 0, stream cost: 22, parent stream: -1, child streams: [4, 3]}}
func.func @data_deps(%x: i32) -> i32 attributes {tfrt.cost_threshold = 8, tfrt.merge_inter_dependent_streams = true} {
  // expected-remark@+1 {{stream id: 4, stream cost: 9, parent stream: 0}}
  %w = tfrt_test.test_cost %x {id = 0 : i64, _tfrt_cost = 3 : i64} : i32
  // expected-remark@+1 {{stream id: 3, stream cost: 11, parent stream: 0}}
  %y = tfrt_test.test_cost %x {id = 1 : i64, _tfrt_cost = 5 : i64} : i32
  // expected-remark@+1 {{stream id: 4, stream cost: 9, parent stream: 0}}
  %z = tfrt_test.test_cost %x {id = 2 : i64, _tfrt_cost = 5 : i64} : i32
  // expected-remark@+1 {{stream id: 3, stream cost: 11, parent stream: 0}}
  %y2 = tfrt_test.test_cost %y, %w {id = 3 : i64, _tfrt_cost = 1 : i64} : i32, i32
  // expected-remark@+1 {{stream id: 3, stream cost: 11, parent stream: 0}}
  %v = tfrt_test.test_cost %x {id = 4 : i64, _tfrt_cost = 5 : i64} : i32
  // expected-remark@+1 {{stream id: 4, stream cost: 9, parent stream: 0}}
  %z2 = tfrt_test.test_cost %z, %w {id = 5 : i64, _tfrt_cost = 1 : i64} : i32, i32
  // expected-remark@+1 {{stream id: 0, stream cost: 22, parent stream: -1}}
  %r = tfrt_test.test_cost %x {id = 6 : i64, _tfrt_cost = 20 : i64} : i32
  // expected-remark@+1 {{stream id: 0, stream cost: 22, parent stream: -1}}
  tfrt.return %r : i32
}

// Without a positive threshold (0 overrides the module's 10), the threshold
// is the highest cost from the entry, 1 + 2 (%a) + 1 (the merge, or the
// return) = 4, and ops without a cost count 1.  In this mode cheap streams
// are not folded into their parent's stream: %b keeps one started by the
// entry, the merge one started by %a.
// expected-remark@+1 {{stream id: 0, stream cost: 4, parent stream: -1, child streams: [2]}}
func.func @automatic(%x: i32) -> i32 attributes {tfrt.cost_threshold = 0} {
  // expected-remark@+1 {{stream id: 0, stream cost: 4, parent stream: -1, child streams: [1]}}
  %a = tfrt_test.test_cost %x {id = 0 : i64, _tfrt_cost = 2 : i64} : i32
  // expected-remark@+1 {{stream id: 2, stream cost: 1, parent stream: 0}}
  %b = tfrt.constant.i32 1
  // expected-remark@+1 {{stream id: 1, stream cost: 1, parent stream: 0}}
  %c = tfrt.merge.chains %a, %b : i32, i32
  // expected-remark@+1 {{stream id: 0, stream cost: 4, parent stream: -1}}
  tfrt.return %a : i32
}

}

// CHECK: func.func @pack
// CHECK: func.func @fan_out
// CHECK: func.func @data_deps
// CHECK: func.func @automatic
