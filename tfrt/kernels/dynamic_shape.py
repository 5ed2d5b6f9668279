"""Kernels whose result shapes depend on the values of their operands: ONNX's
NonZero, NonMaxSuppression, Compress and Unique.

A compiled program has static shapes, so these run between compiled
programs: ``tfrt.onnx.staged`` compiles the graph up to such a node, runs
its kernel here on the arrays, and compiles the rest for the shapes it
returns.  Each kernel is a plain sync kernel over numpy arrays, looked up
in the registry by name like every other; it raises :class:`KernelError`
for an operand the operator does not define a result for.

Semantics are the ONNX operator specifications (opsets 9-13 for NonZero,
10/11 for NonMaxSuppression, 9/11 for Compress, 11 for Unique), with the
selection order and tie rules of ONNX's reference implementation, which
onnxruntime shares for NonMaxSuppression.  Optional operands are None.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfrt.kernels.registry import KernelError, kernel

__all__ = ["compress", "non_max_suppression", "non_zero", "unique"]


def _array(x: Any, what: str) -> np.ndarray:
    if x is None:
        raise KernelError(f"{what} is missing")
    return np.asarray(x)


@kernel("tfrt_onnx.non_zero")
def non_zero(x: Any) -> np.ndarray:
    """The indices of the nonzero elements: int64 ``[rank, n]``, in row-major
    order.  A 0-d input gives ``[0, n]`` (its rank is 0), as ONNX's shape
    inference and reference implementation say (onnxruntime returns
    ``[1, n]`` there)."""
    x = _array(x, "the input")
    nz = x != 0
    if x.ndim == 0:
        return np.zeros((0, int(nz)), np.int64)
    return np.stack(np.nonzero(nz)).astype(np.int64, copy=False).reshape(x.ndim, -1)


@kernel("tfrt_onnx.compress", attrs=("any",))
def compress(axis: Any, x: Any, condition: Any) -> np.ndarray:
    """The slices of ``x`` along ``axis`` (the flattened elements where
    ``axis`` is None) whose ``condition`` entry is true.  A shorter condition
    drops the slices past its end; a longer one is an error (onnxruntime
    ignores the extra entries, numpy refuses them: ONNX does not define it)."""
    x = _array(x, "the input")
    cond = _array(condition, "the condition")
    if cond.ndim != 1:
        raise KernelError(f"the condition must be 1-D, it has shape {cond.shape}")
    cond = cond.astype(bool) if cond.dtype != np.bool_ else cond
    if x.ndim == 0:
        raise KernelError("the input is a scalar: Compress takes a tensor of rank 1 or more")
    if axis is None:
        x = x.reshape(-1)
        axis = 0
        where = "the flattened input"
    else:
        axis = int(axis)
        if not -x.ndim <= axis < x.ndim:
            raise KernelError(f"axis {axis} is out of range for an input of rank {x.ndim}")
        axis %= x.ndim
        where = f"axis {axis} of the input"
    size = x.shape[axis]
    if cond.shape[0] > size:
        raise KernelError(f"the condition has {cond.shape[0]} entries, more than the {size} of {where}")
    picked = np.flatnonzero(cond)
    return np.take(x, picked, axis=axis)


def _scalar(x: Any, what: str) -> Any:
    """An optional scalar operand (a 0-d or one-element tensor), None where
    it is absent or empty (which ONNX treats as absent)."""
    if x is None:
        return None
    a = np.asarray(x)
    if a.size == 0:
        return None
    if a.size != 1:
        raise KernelError(f"{what} must hold one value, it has shape {a.shape}")
    return a.reshape(-1)[0]


@kernel("tfrt_onnx.non_max_suppression", attrs=("i64",))
def non_max_suppression(center_point_box: int, boxes: Any, scores: Any, max_output: Any = None,
                        iou_threshold: Any = None, score_threshold: Any = None) -> np.ndarray:  # fmt: skip
    """Greedy non-maximum suppression per batch and class: int64
    ``[num_selected, 3]`` rows of (batch, class, box), batch by batch, class
    by class, each class's boxes in the order they were selected.

    Candidates are the boxes whose score is above ``score_threshold`` (all of
    them where it is absent), highest score first, the lower box index first
    among equal scores.  The best remaining candidate is selected, and every
    candidate whose intersection over union with it is above
    ``iou_threshold`` is dropped, until ``max_output`` boxes are selected or
    none remain.  Boxes are ``[y1, x1, y2, x2]`` (corners in either order)
    with ``center_point_box`` 0, ``[x_center, y_center, width, height]`` with
    1.  A pair with no overlap, or where either box has no area, never
    suppresses.  The arithmetic is in the boxes' type, in the order ONNX's
    reference implementation computes it.
    """
    boxes = _array(boxes, "boxes")
    scores = _array(scores, "scores")
    if center_point_box not in (0, 1):
        raise KernelError(f"center_point_box must be 0 or 1, not {center_point_box}")
    if boxes.ndim != 3 or boxes.shape[2] != 4:
        raise KernelError(f"boxes must have shape [batches, boxes, 4], not {list(boxes.shape)}")
    if scores.ndim != 3 or scores.shape[0] != boxes.shape[0] or scores.shape[2] != boxes.shape[1]:
        raise KernelError(
            f"scores must have shape [batches, classes, boxes] = [{boxes.shape[0]}, C, {boxes.shape[1]}], "
            f"not {list(scores.shape)}"
        )
    if boxes.dtype.kind != "f" or scores.dtype.kind != "f":
        raise KernelError(f"boxes and scores must be float tensors, not {boxes.dtype} and {scores.dtype}")
    limit = _scalar(max_output, "max_output_boxes_per_class")
    limit = 0 if limit is None else max(int(limit), 0)
    iou = _scalar(iou_threshold, "iou_threshold")
    iou = boxes.dtype.type(0) if iou is None else iou
    if not 0 <= iou <= 1:  # (NaN included)
        raise KernelError(f"iou_threshold must be in [0, 1], it is {iou}")
    score_min = _scalar(score_threshold, "score_threshold")
    rows: list[tuple[int, int, int]] = []
    if limit == 0:
        return np.zeros((0, 3), np.int64)
    for b in range(boxes.shape[0]):
        lo, hi = _corners(boxes[b], center_point_box)
        for c in range(scores.shape[1]):
            s = scores[b, c]
            cand = np.arange(s.shape[0]) if score_min is None else np.flatnonzero(s > score_min)
            # Highest score first; a stable sort keeps equal scores in box order.
            cand = cand[np.argsort(-s[cand], kind="stable")]
            taken = 0
            while cand.size and taken < limit:
                top = int(cand[0])
                rows.append((b, c, top))
                taken += 1
                rest = cand[1:]
                cand = rest[~_suppressed(lo, hi, top, rest, iou)]
    return np.array(rows, np.int64).reshape(-1, 3)


def _corners(boxes: np.ndarray, center: int) -> tuple[np.ndarray, np.ndarray]:
    """Per box, its (x, y) minimum corner and maximum corner."""
    if center == 0:
        y1, x1, y2, x2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
        lo = np.stack([np.minimum(x1, x2), np.minimum(y1, y2)], axis=1)
        hi = np.stack([np.maximum(x1, x2), np.maximum(y1, y2)], axis=1)
        return lo, hi
    half_w = boxes[:, 2] / boxes.dtype.type(2)
    half_h = boxes[:, 3] / boxes.dtype.type(2)
    lo = np.stack([boxes[:, 0] - half_w, boxes[:, 1] - half_h], axis=1)
    hi = np.stack([boxes[:, 0] + half_w, boxes[:, 1] + half_h], axis=1)
    return lo, hi


def _suppressed(lo: np.ndarray, hi: np.ndarray, top: int, rest: np.ndarray, iou: Any) -> np.ndarray:
    """Which boxes of ``rest`` the selected box ``top`` suppresses (the
    relation is symmetric, so testing each candidate against the boxes
    selected before it is the same as this)."""
    if rest.size == 0:
        return np.zeros(0, bool)
    ilo = np.maximum(lo[rest], lo[top])
    ihi = np.minimum(hi[rest], hi[top])
    overlap = (ihi[:, 0] > ilo[:, 0]) & (ihi[:, 1] > ilo[:, 1])
    with np.errstate(all="ignore"):
        inter = (ihi[:, 0] - ilo[:, 0]) * (ihi[:, 1] - ilo[:, 1])
        area_top = (hi[top, 0] - lo[top, 0]) * (hi[top, 1] - lo[top, 1])
        area = (hi[rest, 0] - lo[rest, 0]) * (hi[rest, 1] - lo[rest, 1])
        # The candidate is the reference's first box, the selected one its second.
        union = area + area_top - inter
        ratio = inter / np.where(union > 0, union, 1)
    valid = overlap & (inter > 0) & (area > 0) & (area_top > 0) & (union > 0)
    return valid & (ratio > iou)


@kernel("tfrt_onnx.unique", attrs=("any", "i64"))
def unique(axis: Any, sorted_: int, x: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct elements of ``x`` (flattened where ``axis`` is None), or
    its distinct slices along ``axis``: ``(y, indices, inverse_indices,
    counts)``, the last three int64.  ``sorted_`` 1 sorts them ascending,
    0 keeps the order of their first occurrences.  Equality is numpy's, as
    in ONNX's reference implementation: -0 equals 0 and NaNs are one value
    (sorted last)."""
    x = _array(x, "the input")
    if axis is None:
        flat = x.reshape(-1)
        y, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
        ax = 0
        src = flat
    else:
        ax = int(axis)
        if not -x.ndim <= ax < x.ndim:
            raise KernelError(f"axis {ax} is out of range for an input of rank {x.ndim}")
        ax %= x.ndim
        if x.shape[ax] == 0:
            empty = np.zeros(0, np.int64)
            return x.copy(), empty, empty, empty
        y, first, inverse, counts = np.unique(
            x, return_index=True, return_inverse=True, return_counts=True, axis=ax
        )
        src = x
    first = first.astype(np.int64).reshape(-1)
    inverse = inverse.astype(np.int64).reshape(-1)
    counts = counts.astype(np.int64).reshape(-1)
    if not sorted_:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        first, counts, inverse = first[order], counts[order], rank[inverse]
        y = np.take(src, first, axis=ax)
    else:
        # The values as they occur in x (numpy's unique may give -0 for 0).
        y = np.take(src, first, axis=ax)
    return y, first, inverse.astype(np.int64), counts
