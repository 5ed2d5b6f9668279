"""Kernels of the ``coo`` dialect: sparse host tensors (TFRT's ``coo_host_tensor_kernels.cc``)::

    %s, %c2 = coo.convert_dht_to_coo.i32.2 %dense, %c1
    %c3 = tfrt_dht.print_tensor %s, %c2
    // CooHostTensor dtype = i32, shape = [3, 2], indices = [0, 0, 0, 1, 0, 2, ...], values = [...]
    %d, %c4 = coo.convert_coo_to_dht.i32.2 %s, %c3
    %eq, %c5 = coo.tensor_equal.i32.2 %s, %s, %c4
    %c6 = coo.print_tensor %s, %c5

Names are ``coo.<kernel>.<dtype>.<rank>`` for dtype f32/i32 and rank 0-3.  The
coordinates reproduce TFRT's index decomposition quirk (see
``CooHostTensor.from_dense``).
"""

from __future__ import annotations

from tfrt.kernels.registry import CHAIN, KernelError, kernel, print_line
from tfrt.tensor.dtype import DType
from tfrt.tensor.host_tensor import CooHostTensor, DenseHostTensor

COO_TYPES = {"f32": DType.F32, "i32": DType.I32}
COO_RANKS = (0, 1, 2, 3)


def _check(t, cls, dtype: DType, rank: int):
    if not isinstance(t, cls):
        raise KernelError(f"expected a {cls.__name__}, got {type(t).__name__}")
    if t.dtype != dtype or t.shape.rank != rank:
        raise KernelError(
            f"tensor {t.dtype.short_name} {t.shape} does not match the kernel's "
            f"{dtype.short_name} rank {rank}"
        )
    return t


for _name, _dtype in COO_TYPES.items():
    for _rank in COO_RANKS:

        def convert_dht_to_coo(dense, chain, _dtype=_dtype, _rank=_rank):
            return CooHostTensor.from_dense(_check(dense, DenseHostTensor, _dtype, _rank)), CHAIN

        def convert_coo_to_dht(coo, chain, _dtype=_dtype, _rank=_rank):
            try:
                return _check(coo, CooHostTensor, _dtype, _rank).to_dense(), CHAIN
            except ValueError as exc:
                raise KernelError(str(exc)) from None

        def tensor_equal(a, b, chain, _dtype=_dtype, _rank=_rank):
            a = _check(a, CooHostTensor, _dtype, _rank)
            b = _check(b, CooHostTensor, _dtype, _rank)
            return a.equal(b), CHAIN

        kernel(f"coo.convert_dht_to_coo.{_name}.{_rank}")(convert_dht_to_coo)
        kernel(f"coo.convert_coo_to_dht.{_name}.{_rank}")(convert_coo_to_dht)
        kernel(f"coo.tensor_equal.{_name}.{_rank}")(tensor_equal)


@kernel("coo.print_tensor")
def print_tensor(tensor, chain):
    """Print a sparse tensor (``CooHostTensor dtype = ..., indices = [...], values = [...]``)."""
    if not isinstance(tensor, CooHostTensor):
        raise KernelError(f"coo.print_tensor: expected a CooHostTensor, got {type(tensor).__name__}")
    print_line(tensor.print_text())
    return CHAIN
