"""Tensor shapes: ``TensorShape``, ``PartialTensorShape``, ``FixedRankShape``.

TFRT packs small shapes into 16- or 32-bit representations; the packing is
invisible to kernels (equality, printing and element counts depend only on the
dimensions), so a shape here is an immutable tuple of Python ints.

Printing follows TFRT's ``operator<<``::

    >>> str(TensorShape([1, 57, 92]))
    '[1, 57, 92]'
    >>> str(PartialTensorShape(None))
    'Unknown rank'
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

UNKNOWN_DIM = -1


def _dims_text(dims: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


class TensorShape:
    """A fully known shape (every dimension >= 0)."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable[int] = ()):
        dims = tuple([int(d) for d in dims])
        if dims and min(dims) < 0:
            i = next(i for i, d in enumerate(dims) if d < 0)
            raise ValueError(f"dimension {i} of a TensorShape is negative ({dims[i]})")
        self._dims = dims

    @property
    def dims(self) -> tuple[int, ...]:
        return self._dims

    @property
    def rank(self) -> int:
        return len(self._dims)

    def num_elements(self) -> int:
        return math.prod(self._dims)

    def dim(self, index: int) -> int:
        return self._dims[index]

    def strides(self) -> tuple[int, ...]:
        """Row-major element strides."""
        out = []
        mult = 1
        for d in reversed(self._dims):
            out.append(mult)
            mult *= d
        return tuple(reversed(out))

    def __len__(self) -> int:
        return len(self._dims)

    def __iter__(self):
        return iter(self._dims)

    def __getitem__(self, index):
        return self._dims[index]

    def __eq__(self, other) -> bool:
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._dims)

    def __str__(self) -> str:
        return _dims_text(self._dims)

    def __repr__(self) -> str:
        return f"TensorShape({list(self._dims)})"


class FixedRankShape(TensorShape):
    """A TensorShape whose rank is part of its type (``!ts.fixed_rank_shape.N``)."""

    __slots__ = ()

    def __init__(self, dims: Iterable[int], rank: int):
        super().__init__(dims)
        if len(self._dims) != rank:
            raise ValueError(
                f"shape {_dims_text(self._dims)} has rank {len(self._dims)}, expected rank {rank}"
            )

    def __repr__(self) -> str:
        return f"FixedRankShape({list(self._dims)})"


class PartialTensorShape:
    """A shape with unknown dimensions (-1) or an unknown rank (``dims is None``)."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable[int] | None):
        if dims is None:
            self._dims = None
            return
        dims = tuple(int(d) for d in dims)
        for i, d in enumerate(dims):
            if d < UNKNOWN_DIM:
                raise ValueError(f"dimension {i} of a PartialTensorShape is {d} (< -1)")
        self._dims = dims

    @classmethod
    def from_shape(cls, shape: TensorShape) -> "PartialTensorShape":
        return cls(shape.dims)

    @property
    def dims(self) -> tuple[int, ...] | None:
        return self._dims

    def is_unranked(self) -> bool:
        return self._dims is None

    @property
    def rank(self) -> int:
        """The rank, or -1 when unranked (as TFRT's GetRank)."""
        return UNKNOWN_DIM if self._dims is None else len(self._dims)

    def is_fully_known(self) -> bool:
        return self._dims is not None and UNKNOWN_DIM not in self._dims

    def to_shape(self) -> TensorShape:
        """The TensorShape, or ValueError naming what is unknown (TFRT's messages)."""
        if self._dims is None:
            raise ValueError("Unknown rank")
        unknown = [i for i, d in enumerate(self._dims) if d == UNKNOWN_DIM]
        if unknown:
            raise ValueError(
                "Unknown dimensions at following indices = " + _dims_text(unknown)
            )
        return TensorShape(self._dims)

    def is_compatible_with(self, shape: TensorShape) -> bool:
        if self._dims is None:
            return True
        if len(self._dims) != shape.rank:
            return False
        return all(d in (UNKNOWN_DIM, s) for d, s in zip(self._dims, shape.dims))

    def __eq__(self, other) -> bool:
        if isinstance(other, PartialTensorShape):
            return self._dims == other._dims
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("partial", self._dims))

    def __str__(self) -> str:
        if self._dims is None:
            return "Unknown rank"
        return _dims_text(self._dims)

    def __repr__(self) -> str:
        return f"PartialTensorShape({None if self._dims is None else list(self._dims)})"


def as_shape(value) -> TensorShape:
    """Coerce a TensorShape or a sequence of ints to a TensorShape."""
    if isinstance(value, TensorShape):
        return value
    if isinstance(value, int):
        return TensorShape((value,))
    return TensorShape(value)
