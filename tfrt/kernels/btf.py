"""Kernels of the ``btf`` dialect: reading TFRT's Binary Tensor Format.

    %t = "btf.read_dense_tensor.i32.2"(%path, %index) : (!tfrt.string, i32) -> !tfrt_tensor.tensor

``btf.read_dense_tensor.<dtype>.<rank>`` (dtype f32 i32 i64 i8 ui8, rank 0-4)
reads record ``index`` of the file at ``path`` on the host's *blocking* work
queue (file I/O must not occupy a compute thread) and returns an AsyncValue
that the read resolves.  A failure (``failed to open file PATH for reading``,
a wrong index, dtype or rank) is reported at the kernel's location and
becomes the result's error, as TFRT's ``ReadTensorFromBTF`` does.
"""

from __future__ import annotations

from tfrt.kernels.registry import kernel
from tfrt.tensor import btf
from tfrt.tensor.dtype import DType

BTF_READ_TYPES = {
    "f32": DType.F32,
    "i32": DType.I32,
    "i64": DType.I64,
    "i8": DType.I8,
    "ui8": DType.UI8,
}
BTF_READ_RANKS = (0, 1, 2, 3, 4)


def _make_reader(dtype: DType, rank: int):
    def read_dense_tensor(frame):
        path, index = frame.arg(0), frame.arg(1)
        result = frame.allocate_result(0)

        def work() -> None:
            try:
                tensor = btf.read_dense_tensor(path, int(index), dtype=dtype, rank=rank)
            except btf.BTFError as exc:
                err = frame.emit_error(str(exc))
                result.set_error(err.value)
                return
            except Exception as exc:  # a bug must still resolve the result
                result.set_error(f"{type(exc).__name__}: {exc}")
                return
            result.set_value(tensor)

        if not frame.host.enqueue_blocking_work(work):
            work()

    return read_dense_tensor


for _name, _dtype in BTF_READ_TYPES.items():
    for _rank in BTF_READ_RANKS:
        kernel(f"btf.read_dense_tensor.{_name}.{_rank}", kind="async")(_make_reader(_dtype, _rank))
