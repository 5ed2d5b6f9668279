"""Kernels that index with values known only at run time: the lowering of
``tensor.gather``, ``tensor.scatter``, slices at run-time offsets and
``tensor.reshape`` by a shape tensor (``dialects/tfrt_array.py`` defines the ops).

MLIR leaves an index out of bounds, a slice past the end, ``unique``
coordinates that repeat and a reshape to a shape other than the result
type's undefined.  Here each is an error naming the ``tensor`` op, never a
wrapped or clipped access (numpy wraps negative indices).  Coordinates are
the index tensor's integers as ``arith.index_cast`` reads them: sign
extended, so an ``i1`` true is -1.

Attributes arrive first, in name order; index lists as int64 arrays.  Each
kernel works on numpy arrays, or on cupy arrays where the operands live on a
GPU (index values are checked on the host).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfrt.kernels.registry import KernelError, kernel
from tfrt.kernels.tfrt_array import _xp

_I64S = "i64[]"
# MLIR's ShapedType::kDynamic: a slice position the operands give.
DYNAMIC = -(2**63)


def _host(x: Any) -> np.ndarray:
    if hasattr(x, "__cuda_array_interface__") and hasattr(x, "get"):
        return x.get()
    return np.asarray(x)


def _coordinates(indices: Any, k: int) -> np.ndarray:
    """The index tensor as an ``(n, k)`` int64 array (sign-extended)."""
    idx = _host(indices)
    idx = (
        np.where(idx, np.int64(-1), np.int64(0)) if idx.dtype == np.bool_ else idx.astype(np.int64)
    )
    return idx.reshape(-1, k)


def _where(flat: int, lead: tuple[int, ...], *more: int) -> str:
    """``[i, j, ...]``: the position of row ``flat`` of the leading dimensions."""
    at = [int(i) for i in np.unravel_index(flat, lead)] if lead else []
    return "[" + ", ".join(str(i) for i in [*at, *more]) + "]"


def _check(op: str, coords: np.ndarray, sizes: list[int], dims: list[int], lead: tuple[int, ...],
           unique: bool) -> None:  # fmt: skip
    """Every coordinate within its dimension; with ``unique``, no tuple twice."""
    for j, (d, size) in enumerate(zip(dims, sizes)):
        column = coords[:, j]
        bad = np.flatnonzero((column < 0) | (column >= size))
        if bad.size:
            row = int(bad[0])
            raise KernelError(
                f"{op}: coordinate {int(column[row])} at indices{_where(row, lead, j)} is out of "
                f"bounds for dimension {d} of size {size}"
            )
    if not unique or coords.shape[0] < 2:
        return
    _, first, counts = np.unique(coords, axis=0, return_index=True, return_counts=True)
    if (counts > 1).any():
        row = int(first[np.flatnonzero(counts > 1)[0]])
        tup = ", ".join(str(int(c)) for c in coords[row])
        raise KernelError(
            f"{op}: coordinates ({tup}) appear more than once in the indices (first at "
            f"indices{_where(row, lead)}), which the op's 'unique' rules out"
        )


def _index_arrays(xp: Any, shape: tuple[int, ...], dims: list[int], coords: np.ndarray,
                  lead: tuple[int, ...]) -> tuple[Any, ...]:  # fmt: skip
    """Advanced indices selecting, for each leading position, the slice at its
    coordinates: shaped ``lead + shape`` with the gathered dimensions 1."""
    rank = len(shape)
    n_lead = len(lead)
    out = []
    for d in range(rank):
        if d in dims:
            c = coords[:, dims.index(d)].reshape(lead + (1,) * rank)
        else:
            view = [1] * (n_lead + rank)
            view[n_lead + d] = shape[d]
            c = np.arange(shape[d], dtype=np.int64).reshape(view)
        out.append(c if xp is np else xp.asarray(c))
    return tuple(out)


@kernel("tfrt_array.gather_slices", attrs=(_I64S, _I64S, "i1"))
def gather_slices(dims, shape, unique, x, indices):
    """``tensor.gather``: the source slice at each coordinate tuple of ``indices``."""
    xp = _xp(x)
    dims = [int(d) for d in dims]
    lead = tuple(int(d) for d in indices.shape[:-1])
    coords = _coordinates(indices, len(dims))
    _check("tensor.gather", coords, [x.shape[d] for d in dims], dims, lead, bool(unique))
    result = x[_index_arrays(xp, tuple(x.shape), dims, coords, lead)]
    return xp.reshape(result, tuple(int(d) for d in shape))


@kernel("tfrt_array.scatter_slices", attrs=(_I64S, "i1"))
def scatter_slices(dims, unique, source, dest, indices):
    """``tensor.scatter``: a copy of ``dest`` with each slice of ``source`` written
    at its coordinates.  Repeated coordinates are refused even without
    ``unique`` (MLIR's verifier requires it): which write wins is undefined."""
    xp = _xp(dest)
    dims = [int(d) for d in dims]
    lead = tuple(int(d) for d in indices.shape[:-1])
    coords = _coordinates(indices, len(dims))
    _check("tensor.scatter", coords, [dest.shape[d] for d in dims], dims, lead, True)
    full = lead + tuple(1 if d in dims else s for d, s in enumerate(dest.shape))
    out = xp.array(dest, copy=True)
    out[_index_arrays(xp, tuple(dest.shape), dims, coords, lead)] = xp.reshape(source, full)
    return out


def _positions(offsets, strides, positions) -> tuple[list[int], list[int]]:
    values = iter(int(_host(p)) for p in positions)
    try:
        offs = [next(values) if int(o) == DYNAMIC else int(o) for o in offsets]
        strs = [next(values) if int(s) == DYNAMIC else int(s) for s in strides]
    except StopIteration:
        raise KernelError(
            "tfrt_array: fewer slice positions than the dynamic entries need"
        ) from None
    return offs, strs


def _slice_index(op: str, shape, offs, sizes, strs) -> tuple[Any, ...]:
    """The index of the slice (basic slices when the strides are positive),
    after checking that every position it touches is in bounds."""
    index: list[Any] = []
    basic = True
    for d, (dim, o, n, s) in enumerate(zip(shape, offs, sizes, strs)):
        n = int(n)
        if n == 0:
            if not 0 <= o <= dim:
                raise KernelError(
                    f"{op}: offset {o} is out of bounds for dimension {d} of size {dim}"
                )
            index.append(slice(0, 0))
            continue
        last = o + (n - 1) * s
        for pos in (o, last):
            if not 0 <= pos < dim:
                raise KernelError(
                    f"{op}: the slice along dimension {d} (offset {o}, size {n}, stride {s}) reaches "
                    f"index {pos}, out of bounds for size {dim}"
                )
        if s > 0:
            index.append(slice(o, last + 1, s))
        else:
            basic = False
            index.append(o + s * np.arange(n, dtype=np.int64))
    if basic:
        return tuple(index)
    arrays = [np.arange(i.start, i.stop, i.step or 1) if isinstance(i, slice) else i for i in index]
    return np.ix_(*arrays)


@kernel("tfrt_array.dynamic_extract_slice", attrs=(_I64S, _I64S, _I64S, _I64S))
def dynamic_extract_slice(offsets, shape, sizes, strides, x, *positions):
    """``tensor.extract_slice`` whose offsets or strides are run-time values
    (``positions``, in the order of the ``kDynamic`` entries: offsets, then strides)."""
    offs, strs = _positions(offsets, strides, positions)
    index = _slice_index("tensor.extract_slice", x.shape, offs, sizes, strs)
    xp = _xp(x)
    if not all(isinstance(i, slice) for i in index):
        index = tuple(i if xp is np else xp.asarray(i) for i in index)
    return xp.reshape(x[index], tuple(int(d) for d in shape))


@kernel("tfrt_array.dynamic_insert_slice", attrs=(_I64S, _I64S, _I64S))
def dynamic_insert_slice(offsets, sizes, strides, source, dest, *positions):
    """``tensor.insert_slice`` whose offsets or strides are run-time values."""
    offs, strs = _positions(offsets, strides, positions)
    index = _slice_index("tensor.insert_slice", dest.shape, offs, sizes, strs)
    xp = _xp(dest)
    if not all(isinstance(i, slice) for i in index):
        index = tuple(i if xp is np else xp.asarray(i) for i in index)
    out = xp.array(dest, copy=True)
    out[index] = xp.reshape(source, tuple(int(n) for n in sizes))
    return out


@kernel("tfrt_array.reshape_checked", attrs=(_I64S,))
def reshape_checked(shape, x, shape_values):
    """``tensor.reshape`` by a shape tensor known at run time: the shape it holds
    must be the result type's."""
    want = [int(d) for d in shape]
    got = [int(v) for v in _host(shape_values).reshape(-1)]
    if got != want:
        raise KernelError(
            f"tensor.reshape: the shape operand holds {got}, but the result type's shape is {want}"
        )
    return _xp(x).reshape(x, tuple(want))
