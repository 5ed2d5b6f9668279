"""The `tfrt_array` kernels that exist for a GPU: device constants and CUDA graphs.

``tfrt_array.device_constant`` copies a BEF constant to the device on the
first call and keeps the copy for the program's life, so weights cross the
bus once instead of on every call.

``tfrt_array.graph_call @f(...)`` runs ``@f``, a function of device kernels,
as a CUDA graph (CuPy's stream capture).  Python launches each kernel of a
plain call one by one, and at batch 1 that launch time, not the GPU, is
what a model costs; a graph launches the whole function at once:

1. The first call runs ``@f`` as it is: element-wise kernels are compiled,
   constants reach the device, cuBLAS picks its algorithms; a call that
   comes while none has finished runs as it is too.
2. The second captures it: on a capturing stream, the kernels' launches are
   recorded instead of run, over input buffers made for the graph; every
   device allocation made meanwhile is kept for the graph's life, so the
   recorded addresses stay the graph's own.
3. Each call then copies its operands into the graph's input buffers,
   launches the graph on the current stream and returns copies of the
   graph's outputs (a later replay overwrites them), all under one lock per
   graph, so concurrent calls see their own results: CuPy's legacy default
   stream orders one replay's work before the next's; on a stream of its
   own a replay waits for its copies before it lets the next one in.

A launch is recorded with its host operands (scalars) baked in, so one graph
is captured per distinct set of host operands (up to ``MAX_GRAPHS``; beyond
that, calls run uncaptured).  A body that cannot be captured, because a
kernel waits on the device (a device value read on the host, a loop whose
condition lives on the device), or it returns host values, is run as it is
from then on; :func:`graph_status` says why.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from tfrt.async_value import AsyncValue
from tfrt.kernels.registry import AsyncKernelFrame, kernel
from tfrt.kernels.tfrt_array import CAPTURING, _on_gpu, to_device

# Calls of a function run as they are before the graph is captured.
WARMUP_CALLS = 1
# Graphs kept per function (one per distinct set of scalar operands).
MAX_GRAPHS = 8


# Device copies of constants, by the host array's id: BEF decodes each dense
# attribute once per file, so every plan of a function (interpreted,
# column, compiled) meets the same host array; an entry goes when it does.
_DEVICE_COPIES: dict[tuple[int, str], Any] = {}
_COPIES_LOCK = threading.Lock()


@kernel("tfrt_array.device_constant", attrs=("str",), bind=True)
def device_constant(device):
    """The constant operand on ``device``: copied by the first call, then kept."""

    def run(x):
        key = (id(x), device)
        value = _DEVICE_COPIES.get(key)
        if value is None:
            value = to_device(device, x)
            with _COPIES_LOCK:
                if key not in _DEVICE_COPIES:
                    _DEVICE_COPIES[key] = value
                    weakref.finalize(x, _DEVICE_COPIES.pop, key, None)
                value = _DEVICE_COPIES[key]
        return value

    return run


class NotCapturable(Exception):
    """The function cannot run as a CUDA graph (the message says why)."""


class _Graph:
    """One captured graph: its input and output buffers and what it keeps alive."""

    __slots__ = ("graph", "inputs", "outputs", "keep", "lock")

    def __init__(self, graph: Any, inputs: list, outputs: list, keep: list) -> None:
        self.graph = graph
        self.inputs = inputs
        self.outputs = outputs
        self.keep = keep
        self.lock = threading.Lock()

    def replay(self, cp: Any, values: list) -> list[AsyncValue]:
        with self.lock:
            for buffer, value in zip(self.inputs, values):
                if buffer is not None:
                    cp.copyto(buffer, value)
            self.graph.launch()
            # Copies, enqueued before the lock is released: on CuPy's legacy
            # default stream, which every thread shares, the next replay
            # overwrites the buffers only after these have read them.
            outputs = [AsyncValue.make_available(out.copy()) for out in self.outputs]
            stream = cp.cuda.get_current_stream()
            if stream.ptr != 0:
                stream.synchronize()  # a stream of this thread's own orders nothing for the others
            return outputs


class _GraphState:
    """Per function: warm-up count, the captured graphs, or why there are none."""

    def __init__(self) -> None:
        self.calls = 0
        self.warm = 0  # uncaptured calls that completed
        self.graphs: dict[tuple, _Graph] = {}
        self.not_capturable: str | None = None
        self.lock = threading.Lock()


def _key(values: list) -> tuple:
    """Device arrays by shape and dtype (their contents are copied in); host
    values, baked into the launches that use them, by value."""
    key = []
    for v in values:
        if _on_gpu((v,)):
            key.append(("a", v.shape, str(v.dtype)))
        elif isinstance(v, np.ndarray):
            key.append(("h", v.shape, str(v.dtype), v.tobytes()))
        else:
            key.append(("s", type(v).__name__, repr(v)))
    return tuple(key)


def _capture(cp: Any, exec_ctx: Any, fn: Any, values: list) -> _Graph:
    """Record ``fn`` over fresh input buffers (see the module docstring)."""
    inputs = [cp.empty_like(v) if _on_gpu((v,)) else None for v in values]
    args = [AsyncValue.make_available(b if b is not None else v) for b, v in zip(inputs, values)]
    keep: list = []
    pool = cp.get_default_memory_pool()

    def allocate(size: int) -> Any:
        memory = pool.malloc(size)
        keep.append(memory)  # never back to the pool while the graph lives
        return memory

    stream = cp.cuda.Stream(non_blocking=True)
    results: list[AsyncValue] = []
    failure: str | None = None
    with cp.cuda.using_allocator(allocate), stream:
        stream.begin_capture()
        CAPTURING.on = True
        try:
            results = fn.execute(exec_ctx, args)
        except Exception as exc:  # noqa: BLE001 - reported as the reason
            failure = f"{type(exc).__name__}: {exc}"
        finally:
            CAPTURING.on = False  # captures do not nest (graph_call runs a nested body as it is)
            try:
                graph = stream.end_capture()
            except Exception as exc:  # noqa: BLE001 - the capture was invalidated
                failure = failure or f"the capture failed: {exc}"
    if failure is None:
        for i, r in enumerate(results):
            if not r.available:
                failure = f"result {i} was not ready when the body returned (work left on a queue)"
            elif r.is_error:
                failure = f"result {i}: {r.error}"
            elif not _on_gpu((r.value,)):
                failure = f"result {i} is a host value ({type(r.value).__name__}), not a device array"
            if failure:
                break
    if failure is not None:
        raise NotCapturable(failure)
    outputs = [r.value for r in results]
    # The cuBLAS workspaces the recorded products use belong to this thread's
    # handles: they live as long as the graph, whichever thread replays it.
    from tfrt.kernels import cublas

    return _Graph(graph, inputs, outputs, keep + [stream, *cublas.thread_workspaces()])


@kernel("tfrt_array.graph_call", kind="async")
def graph_call(frame: AsyncKernelFrame):
    """Call ``frame.funcs[0]`` through a CUDA graph (see the module docstring)."""
    fn = frame.funcs[0]
    state = getattr(fn, "_graph_state", None)
    if state is None:
        state = fn._graph_state = _GraphState()
    args = frame.args
    values = [a.value for a in args]
    if state.not_capturable is not None or getattr(CAPTURING, "on", False) or not _on_gpu(values):
        # (Inside another graph's capture, a call of this function is part of it.)
        return fn.execute(frame.exec_ctx, args)
    import cupy as cp

    key = _key(values)
    graph = state.graphs.get(key)
    if graph is None:
        with state.lock:
            graph = state.graphs.get(key)
            if graph is None:
                if state.warm < WARMUP_CALLS or len(state.graphs) >= MAX_GRAPHS or state.not_capturable:
                    graph = None
                else:
                    try:
                        graph = state.graphs[key] = _capture(cp, frame.exec_ctx, fn, values)
                    except NotCapturable as exc:
                        state.not_capturable = str(exc)
        if graph is None:
            results = fn.execute(frame.exec_ctx, args)
            with state.lock:
                state.calls += 1
                # A warm-up counts once it has run: a capture must find the
                # kernels compiled and the constants on the device.
                if all(r.available and not r.is_error for r in results):
                    state.warm += 1
            return results
    return graph.replay(cp, values)


def graph_status(fn: Any) -> dict[str, Any]:
    """How a function called through ``graph_call`` runs: ``calls`` run
    uncaptured (warm-up, and any that no graph serves), ``graphs`` captured,
    ``not_capturable`` (the reason, or None)."""
    state = getattr(fn, "_graph_state", None)
    if state is None:
        return {"calls": 0, "graphs": 0, "not_capturable": None}
    return {"calls": state.calls, "graphs": len(state.graphs), "not_capturable": state.not_capturable}
