"""StableHLO's ``gather``, ``scatter`` and ``torch_index_select`` through
``stablehlo-legalize-to-linalg``: small programs against numpy written from
the specification, and JAX programs against ``jax.jit`` (skipped without JAX)."""

from __future__ import annotations

import numpy as np
import pytest
from shlo_jax_check import check_jax, run


def test_gather_clamps_start_indices_into_the_operand():
    """Rows of 2 from a 5x3 operand: a start index past the end is clamped to
    dim - slice_size (3), a negative one to 0, as the spec says."""
    text = """
    func.func @main(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>) -> tensor<4x2x3xf32> {
      %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2],
          start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false,
          slice_sizes = array<i64: 2, 3>}> : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x2x3xf32>
      return %0 : tensor<4x2x3xf32>
    }"""
    x = np.arange(15, dtype=np.float32).reshape(5, 3)
    i = np.array([[0], [2], [9], [-4]], np.int32)
    want = np.stack([x[s : s + 2] for s in (0, 2, 3, 0)])
    np.testing.assert_array_equal(run(text, x, i), want)


def test_gather_with_batching_dimensions_and_a_trailing_index_vector_dim():
    """operand [b, n, f], indices [b, k] (index_vector_dim = 2 = rank: one
    component), batch dim 0 of both matched: result[b, k, f] = x[b, i[b, k], f]."""
    text = """
    func.func @main(%x: tensor<2x5x3xf32>, %i: tensor<2x4xi64>) -> tensor<2x4x3xf32> {
      %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2],
          collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0],
          start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 3>}>
          : (tensor<2x5x3xf32>, tensor<2x4xi64>) -> tensor<2x4x3xf32>
      return %0 : tensor<2x4x3xf32>
    }"""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    i = rng.integers(0, 5, (2, 4)).astype(np.int64)
    want = np.take_along_axis(x, i[:, :, None], axis=1)
    np.testing.assert_array_equal(run(text, x, i), want)


SCATTER = """
func.func @main(%x: tensor<4x3xf32>, %y: tensor<4x3xi32>, %i: tensor<3x2xi32>, %u: tensor<3x2xf32>,
                %v: tensor<3x2xi32>) -> (tensor<4x3xf32>, tensor<4x3xi32>) {
  %0:2 = "stablehlo.scatter"(%x, %y, %i, %u, %v) <{indices_are_sorted = false,
      scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):
    %s = stablehlo.add %a, %c : tensor<f32>
    %m = stablehlo.maximum %b, %d : tensor<i32>
    stablehlo.return %s, %m : tensor<f32>, tensor<i32>
  }) : (tensor<4x3xf32>, tensor<4x3xi32>, tensor<3x2xi32>, tensor<3x2xf32>, tensor<3x2xi32>)
     -> (tensor<4x3xf32>, tensor<4x3xi32>)
  return %0#0, %0#1 : tensor<4x3xf32>, tensor<4x3xi32>
}"""


def scatter_ref(x, y, idx, u, v):
    """The spec's scatter: each update element whose result index is in bounds
    is combined; one out of bounds is skipped (element by element)."""
    x, y = x.copy(), y.copy()
    for p in range(idx.shape[0]):
        r0, c0 = idx[p]
        for w in range(u.shape[1]):
            r, c = r0, c0 + w
            if 0 <= r < x.shape[0] and 0 <= c < x.shape[1]:
                x[r, c] += u[p, w]
                y[r, c] = max(y[r, c], v[p, w])
    return x, y


def test_scatter_two_operands_repeated_and_partly_out_of_bounds_windows():
    x = np.zeros((4, 3), np.float32)
    y = np.full((4, 3), -5, np.int32)
    # [1, 0]: in bounds twice (repeated); [2, 2]: the second element is out of
    # bounds; [7, 0] and [0, -3]: entirely out
    idx = np.array([[1, 0], [1, 0], [2, 2]], np.int32)
    u = np.array([[1, 2], [10, 20], [100, 200]], np.float32)
    v = np.array([[3, -9], [1, 7], [4, 8]], np.int32)
    got = run(SCATTER, x, y, idx, u, v)
    for g, w in zip(got, scatter_ref(x, y, idx, u, v)):
        np.testing.assert_array_equal(g, w)
    idx2 = np.array([[7, 0], [0, -3], [3, 1]], np.int32)
    got = run(SCATTER, x, y, idx2, u, v)
    for g, w in zip(got, scatter_ref(x, y, idx2, u, v)):
        np.testing.assert_array_equal(g, w)


def test_scatter_with_batching_dimensions():
    """operand [b, n], indices [b, k] (one component), updates [b, k]:
    result[b, i[b, k]] = update[b, k] (the body returns the update)."""
    text = """
    func.func @main(%x: tensor<2x5xi32>, %i: tensor<2x3xi32>, %u: tensor<2x3xi32>) -> tensor<2x5xi32> {
      %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<
          inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0],
          scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        stablehlo.return %b : tensor<i32>
      }) : (tensor<2x5xi32>, tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x5xi32>
      return %0 : tensor<2x5xi32>
    }"""
    x = np.zeros((2, 5), np.int32)
    i = np.array([[4, 0, 2], [1, 1, 3]], np.int32)
    u = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    want = np.array([[2, 0, 3, 0, 1], [0, 5, 0, 6, 0]], np.int32)  # in order: the later update wins
    np.testing.assert_array_equal(run(text, x, i, u), want)


def test_torch_index_select():
    text = """
    func.func @main(%x: tensor<3x4x2xf32>, %i: tensor<3x2xi32>) -> tensor<3x2x2xf32> {
      %0 = "stablehlo.torch_index_select"(%x, %i) <{batch_dims = 1 : i64, dim = 1 : i64}>
          : (tensor<3x4x2xf32>, tensor<3x2xi32>) -> tensor<3x2x2xf32>
      return %0 : tensor<3x2x2xf32>
    }"""
    x = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    i = np.array([[0, 3], [1, 1], [2, 0]], np.int32)
    np.testing.assert_array_equal(run(text, x, i), np.stack([x[b, i[b]] for b in range(3)]))


# --------------------------------------------------------------------------
# against jax.jit


def test_jax_indexing_and_index_updates():
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4, 3)).astype(np.float32)
    i = np.array([0, 4, 2, -1, 7], np.int32)
    u = rng.standard_normal((5, 3)).astype(np.float32)
    check_jax(lambda x, i: x[i], x, i)
    check_jax(lambda x, i, u: x.at[i, 1].add(u), x, i, u)
    check_jax(jax.grad(lambda x, i: (x[i] ** 2).sum()), x, i)


@pytest.mark.slow
def test_jax_gather_scatter_sweep():
    jax = pytest.importorskip("jax")
    jnp, lax = jax.numpy, jax.lax
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 4, 3)).astype(np.float32)
    i = np.array([0, 4, 2, -1, 7], np.int32)
    ii = np.array([[0, 1], [4, 3], [2, 0]], np.int32)
    u = rng.standard_normal((5, 3)).astype(np.float32)
    xb = rng.standard_normal((3, 6, 2)).astype(np.float32)
    ib = rng.integers(0, 6, (3, 4)).astype(np.int32)
    check_jax(lambda x, i: jnp.take(x, i, axis=1, mode="clip"), x, i)
    check_jax(lambda x, i: jnp.take(x, i, axis=1, mode="fill", fill_value=-1), x, i)
    check_jax(lambda x, ii: x[ii[:, 0], ii[:, 1]], x, ii)
    check_jax(
        lambda x, ii: jax.vmap(lambda s: lax.dynamic_slice(x, (s[0], s[1], 0), (2, 2, 3)))(ii),
        x,
        ii,
    )
    check_jax(lambda x, i: jnp.take_along_axis(x, i[:, :, None], axis=1), xb, ib)
    check_jax(lambda x, i: jax.vmap(lambda a, b: a[b])(x, i), xb, ib)
    check_jax(lambda x, i, u: x.at[i, 1].set(u, mode="drop"), x, i, u)
    check_jax(lambda x, i: x.at[:, i % 4].multiply(2.0), x, i)
    check_jax(lambda x, i: x.at[i % 5].max(jnp.ones((5, 4, 3), np.float32)), x, i)
    xb2 = rng.standard_normal((3, 6)).astype(np.float32)
    ub = rng.standard_normal((3, 4)).astype(np.float32)
    check_jax(lambda x, i, u: jax.vmap(lambda a, b, c: a.at[b].add(c))(x, i, u), xb2, ib, ub)

    def window_scatter(x, idx, u):
        dn = lax.ScatterDimensionNumbers(
            update_window_dims=(1, 2),
            inserted_window_dims=(0,),
            scatter_dims_to_operand_dims=(0, 1),
        )
        return lax.scatter_add(x, idx, u, dn, mode=lax.GatherScatterMode.FILL_OR_DROP)

    # windows entirely in or entirely out of bounds (XLA drops a window partly
    # out of bounds whole; the specification drops only its outside elements)
    idx = np.array([[1, 0], [3, 2], [4, 8]], np.int32)
    check_jax(window_scatter, x, idx, rng.standard_normal((3, 2, 3)).astype(np.float32))
