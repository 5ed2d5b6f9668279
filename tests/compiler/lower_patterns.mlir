// Each lowering pattern, through the default pipeline at -O0 (no fusion) and -O2.
// RUN: tfrt_compile %s -O0 --emit=mlir | FileCheck %s --check-prefix=O0
// RUN: tfrt_compile %s --emit=mlir | FileCheck %s --check-prefix=O2

// O0-LABEL: func.func @dense
// O0: tfrt_array.matmul %arg0, %arg1 {epilogue = "", shape = [2, 3]
// O0: tfrt_array.elementwise {{.*}}expr = "maximum((a0 + a1), cast_f32(0.0))"
// O2-LABEL: func.func @dense
// O2-NEXT: tfrt_array.matmul %arg0, %arg1, %arg2 {epilogue = "maximum(a0 + a1, cast_f32(0.0))"
// O2-NEXT: tfrt.return
func.func @dense(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// O0-LABEL: func.func @contract
// O0: tfrt_array.einsum %arg0, %arg1 {shape = [3], spec = "ab,b->a"}
func.func @contract(%a: tensor<3x4xf32>, %v: tensor<4xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%a, %v : tensor<3x4xf32>, tensor<4xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// O0-LABEL: func.func @transposed
// O0: tfrt_array.transpose %arg0 {perm = [1, 0]}
func.func @transposed(%a: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%a : tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) permutation = [1, 0]
  return %t : tensor<4x3xf32>
}

// O0-LABEL: func.func @loop
// O0: tfrt.repeat.i32
// O0: tfrt.return
// O2-LABEL: func.func @loop
// O2: tfrt.repeat.i32
func.func @loop(%n: index, %x: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i32) {
    %d = arith.addi %acc, %acc : i32
    scf.yield %d : i32
  }
  return %r : i32
}

// O0-LABEL: func.func @branch
// O0: tfrt.if
// O0: } else {
func.func @branch(%c: i1, %x: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    %y = math.exp %x : f32
    scf.yield %y : f32
  } else {
    scf.yield %x : f32
  }
  return %r : f32
}

// O0-LABEL: func.func @calls
// O0: tfrt.call @branch
func.func @calls(%c: i1, %x: f32) -> f32 {
  %r = func.call @branch(%c, %x) : (i1, f32) -> f32
  return %r : f32
}

// An expensive producer read twice by its consumer stays a kernel of its own;
// a cheap one is recomputed inline; splat tensor constants become literals.
// O2-LABEL: func.func @fusion_costs
// O2-NEXT: %[[E:.*]] = tfrt_array.elementwise %arg0 {expr = "exp(a0)"
// O2-NEXT: %[[R:.*]] = tfrt_array.elementwise %[[E]], %arg0 {expr = "a0 * (a0 + (a1 + a1) * cast_f32(3.0))"
// O2-NEXT: tfrt.return %[[R]]
func.func @fusion_costs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %three = arith.constant dense<3.0> : tensor<4xf32>
  %e = math.exp %x : tensor<4xf32>
  %d = arith.addf %x, %x : tensor<4xf32>
  %t = arith.mulf %d, %three : tensor<4xf32>
  %s = arith.addf %e, %t : tensor<4xf32>
  %r = arith.mulf %e, %s : tensor<4xf32>
  return %r : tensor<4xf32>
}

// An embedding lookup written as a generic that reads a table with
// tensor.extract at (index_cast(ids[i, j]), k) becomes one gather.
// O0-LABEL: func.func @embedding
// O0: tfrt_array.gather %arg0, %arg1 {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// O0-NOT: tensor.extract
// O0: tfrt.return
func.func @embedding(%table: tensor<5x4xf32>, %ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %e = tensor.empty() : tensor<2x3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<2x3xi64>) outs(%e : tensor<2x3x4xf32>) {
  ^bb0(%i: i64, %o: f32):
    %ix = arith.index_cast %i : i64 to index
    %k = linalg.index 2 : index
    %v = tensor.extract %table[%ix, %k] : tensor<5x4xf32>
    linalg.yield %v : f32
  } -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}
