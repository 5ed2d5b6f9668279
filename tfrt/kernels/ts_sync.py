"""Kernels of the ``ts_sync`` dialect: the `ts` shape kernels for sync functions.

Each kernel calls the `ts` kernel of the same name, so the two agree::

    %p = ts_sync.build_partial_shape [2 : i64, -1 : i64]
    %s = ts_sync.to_shape %p      // error: Unknown dimensions at following indices = [1]

They are thin wrappers rather than the `ts` functions registered twice: the
registry files a kernel under the module of its function, and
``KernelRegistry().add_module("tfrt.kernels.ts_sync")`` must hold these.
"""

from __future__ import annotations

from tfrt.kernels.registry import kernel
from tfrt.kernels import ts as ts


@kernel("ts_sync.build_shape", attrs=("i64[]",))
def build_shape(value):
    return ts.build_shape(value)


@kernel("ts_sync.get_num_elements")
def get_num_elements(shape):
    return ts.get_num_elements(shape)


@kernel("ts_sync.build_partial_shape", attrs=("i64[]",))
def build_partial_shape(value):
    return ts.build_partial_shape(value)


@kernel("ts_sync.to_shape")
def to_shape(shape):
    return ts.to_shape(shape)


@kernel("ts_sync.to_partial_shape")
def to_partial_shape(shape):
    return ts.to_partial_shape(shape)
