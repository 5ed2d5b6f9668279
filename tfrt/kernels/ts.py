"""Kernels of the ``ts`` (tensor shape) dialect (TFRT's ``tensor_shape_kernels.cc``)::

    %a  = ts.build_shape [1 : i64, 57 : i64, 92 : i64]
    %c1 = ts.print_shape %a, %c0                // shape = [1, 57, 92]
    %p  = ts.build_partial_shape [-1 : i64, 57 : i64]
    %c2 = ts.print_partial_shape %p, %c1        // partial_tensor_shape = [-1, 57]
    %s  = ts.to_shape %p                        // error: Unknown dimensions at following indices = [0]
"""

from __future__ import annotations

import numpy as np

from tfrt.kernels.registry import CHAIN, KernelError, kernel, print_line
from tfrt.tensor.shape import FixedRankShape, PartialTensorShape, TensorShape

# TFRT registers ranks 1-3; its dialect also defines rank 0, which works the same.
FIXED_RANKS = (0, 1, 2, 3)


def _dims(value) -> list[int]:
    return [int(d) for d in np.asarray(value).reshape(-1)]


def _shape(value, what: str = "shape") -> TensorShape:
    if not isinstance(value, TensorShape):
        raise KernelError(f"expected a !ts.shape {what}, got {type(value).__name__}")
    return value


def _partial(value) -> PartialTensorShape:
    if not isinstance(value, PartialTensorShape):
        raise KernelError(f"expected a !ts.partial_shape, got {type(value).__name__}")
    return value


@kernel("ts.build_shape", attrs=("i64[]",))
def build_shape(value):
    try:
        return TensorShape(_dims(value))
    except ValueError as exc:
        raise KernelError(str(exc)) from None


@kernel("ts.print_shape")
def print_shape(shape, chain):
    print_line(f"shape = {_shape(shape)}")
    return CHAIN


@kernel("ts.equal_shape")
def equal_shape(lhs, rhs):
    return _shape(lhs) == _shape(rhs)


@kernel("ts.get_dimension")
def get_dimension(shape, index):
    s = _shape(shape)
    if not 0 <= index < s.rank:
        raise KernelError(f"dimension index {index} is out of range for shape {s}")
    return s.dim(index)


@kernel("ts.get_num_elements")
def get_num_elements(shape):
    return _shape(shape).num_elements()


for _rank in FIXED_RANKS:

    def as_fixed_rank_shape(shape, _rank=_rank):
        s = _shape(shape)
        try:
            return FixedRankShape(s.dims, _rank)
        except ValueError as exc:
            raise KernelError(str(exc)) from None

    def print_fixed_rank_shape(shape, chain, _rank=_rank):
        if not isinstance(shape, FixedRankShape) or shape.rank != _rank:
            raise KernelError(f"expected a !ts.fixed_rank_shape.{_rank}")
        print_line(f"fixed_rank_shape = {shape}")
        return CHAIN

    kernel(f"ts.as_fixed_rank_shape.{_rank}")(as_fixed_rank_shape)
    kernel(f"ts.print_fixed_rank_shape.{_rank}")(print_fixed_rank_shape)


@kernel("ts.build_partial_shape", attrs=("i64[]",))
def build_partial_shape(value):
    try:
        return PartialTensorShape(_dims(value))
    except ValueError as exc:
        raise KernelError(str(exc)) from None


@kernel("ts.build_unranked_partial_shape")
def build_unranked_partial_shape():
    return PartialTensorShape(None)


@kernel("ts.print_partial_shape")
def print_partial_shape(shape, chain):
    print_line(f"partial_tensor_shape = {_partial(shape)}")
    return CHAIN


@kernel("ts.to_shape")
def to_shape(shape):
    try:
        return _partial(shape).to_shape()
    except ValueError as exc:
        raise KernelError(str(exc)) from None


@kernel("ts.to_partial_shape")
def to_partial_shape(shape):
    return PartialTensorShape.from_shape(_shape(shape))
