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
// O0: tfrt_array.matmul %arg0, %arg1 {epilogue = "", shape = [3], transpose_a = false, transpose_b = false
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

// A zero tensor.pad of H and W before a convolution, and a -inf one before a
// max pooling, become the kernels' padding at -O2 (no padded copy).
// O0-LABEL: func.func @padded_conv_and_pool
// O0: tfrt_array.pad
// O2-LABEL: func.func @padded_conv_and_pool
// O2-NOT: tfrt_array.pad
// O2: tfrt_array.conv2d %arg0, {{.*}}padding = [1, 1, 2, 0]
// O2-NOT: tfrt_array.pad
// O2: tfrt_array.pool2d {{.*}}kind = "max", padding = [1, 1, 1, 1]
func.func @padded_conv_and_pool(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x3xf32>) -> tensor<1x2x2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 2, 0] high[0, 1, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x2xf32> to tensor<1x6x6x2xf32>
  %e = tensor.empty() : tensor<1x4x4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%p, %w : tensor<1x6x6x2xf32>, tensor<3x3x2x3xf32>) outs(%f : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %q = tensor.pad %c low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x4x4x3xf32> to tensor<1x6x6x3xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e2 = tensor.empty() : tensor<1x2x2x3xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%q, %win : tensor<1x6x6x3xf32>, tensor<3x3xf32>) outs(%f2 : tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  return %m : tensor<1x2x2x3xf32>
}
