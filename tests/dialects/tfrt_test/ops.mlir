// RUN: tfrt_opt %s | tfrt_opt | FileCheck %s

// CHECK-LABEL: func.func @simple(
func.func @simple(%x: i32, %y: i64, %s: !tfrt.string, %t: !tfrt_tensor.tensor) -> i32 {
  // CHECK-NEXT: %{{.*}}:3 = tfrt_test.count3.i32 %arg0
  %a, %b, %c = tfrt_test.count3.i32 %x
  // CHECK-NEXT: %{{.*}}:3 = tfrt_test.count3.i64 %arg1
  %d, %e, %f = tfrt_test.count3.i64 %y
  // CHECK-NEXT: tfrt_test.resize_bilinear %arg3, %arg1, %arg1
  %small = tfrt_test.resize_bilinear %t, %y, %y
  // CHECK-NEXT: %[[EX:.*]] = tfrt_test.parse_example_from_bytes %arg2
  %ex = tfrt_test.parse_example_from_bytes %s
  // CHECK-NEXT: tfrt_test.get_bytes_field_from_example %[[EX]], %arg2
  %bytes = tfrt_test.get_bytes_field_from_example %ex, %s
  // CHECK-NEXT: tfrt_test.get_int64_field_from_example %[[EX]], %arg2
  %n = tfrt_test.get_int64_field_from_example %ex, %s
  // CHECK-NEXT: tfrt_test.get_string {value = "hello"}
  %str = tfrt_test.get_string {value = "hello"}
  // CHECK-NEXT: tfrt_test.get_string_sync {value = "hello"}
  %str2 = tfrt_test.get_string_sync {value = "hello"}
  // CHECK-NEXT: tfrt_test.test_cost %arg0, %{{.*}} {_tfrt_cost = 100 : i64, id = 0 : i64} : i32, i32
  %cost = tfrt_test.test_cost %x, %a {id = 0 : i64, _tfrt_cost = 100 : i64} : i32, i32
  tfrt.return %cost : i32
}

// CHECK-LABEL: func.func @regions(
func.func @regions(%x: i32, %ch: !tfrt.chain) -> i32 {
  // CHECK-NEXT: %[[R:.*]] = tfrt_test.do.async %arg0, %arg1 : (i32, !tfrt.chain) -> (i32) {
  // CHECK-NEXT:   %{{.*}} = tfrt.add.i32 %arg0, %arg0
  // CHECK-NEXT:   tfrt.return %{{.*}} : i32
  // CHECK-NEXT: }
  %r = tfrt_test.do.async %x, %ch : (i32, !tfrt.chain) -> (i32) {
    %s = tfrt.add.i32 %x, %x
    tfrt.return %s : i32
  }
  // CHECK-NEXT: tfrt_test.do.async : () -> () {
  tfrt_test.do.async : () -> () {
    tfrt.return
  }
  // CHECK: tfrt_test.benchmark "add.i32"(%arg0 : i32) duration_secs = 1, max_count = 100, num_warmup_runs = 1 {
  // CHECK-NEXT:   %{{.*}} = tfrt.add.i32 %arg0, %arg0
  // CHECK-NEXT:   tfrt.return %{{.*}} : i32
  // CHECK-NEXT: }
  tfrt_test.benchmark "add.i32"(%x : i32) max_count = 100, duration_secs = 1 {
    %s = tfrt.add.i32 %x, %x
    tfrt.return %s : i32
  }
  // CHECK: tfrt_test.benchmark "const"() duration_secs = 2, max_count = 3, num_warmup_runs = 10 {
  tfrt_test.benchmark "const"() duration_secs = 2, max_count = 3, num_warmup_runs = 10
  {
    %c = tfrt.constant.i32 42
    tfrt.return %c : i32
  }
  // CHECK: tfrt.return %[[R]] : i32
  tfrt.return %r : i32
}

func.func @target(%x: i32) {
  tfrt.return
}

// CHECK-LABEL: func.func @sync_benchmark(
func.func @sync_benchmark(%x: i32) {
  // CHECK-NEXT: tfrt_test.sync_benchmark @target(%arg0 : i32) duration_secs = 1, max_count = 2, num_warmup_runs = 1
  tfrt_test.sync_benchmark @target(%x : i32) duration_secs = 1, max_count = 2
  tfrt.return
}
