"""Dynamic batching: requests for one model version become one call.

Each loaded copy of the program (``workers`` in the model's config) has a
task that takes the first waiting request, adds the requests queued behind it
while their rows fit the largest batch the model takes (and, with
``max_wait_ms`` > 0, waits that long for more), stacks their rows, pads them to
the smallest function that holds them, makes one call in the copy's own
thread, and hands each request its slice of the results.  With the default
``max_wait_ms`` of 0 a lone request never waits; under load, requests that
arrive while a call runs form the next batch.

A call that fails for a batch of several requests is made again for each
request alone, so that one request's bad data fails only that request.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfrt.serving.repository import ModelVersion, Variant


class BatcherClosed(Exception):
    """The version is being unloaded; the request goes to another version."""


@dataclass
class Request:
    inputs: list[np.ndarray]  # batched models: leading dimension = rows
    rows: int
    future: asyncio.Future
    enqueued: float = field(default_factory=time.perf_counter)


class Batcher:
    """Batches and runs the requests of one model version."""

    def __init__(self, mv: ModelVersion, metrics: Any = None):
        self.mv = mv
        self.metrics = metrics
        self.max_rows = mv.max_batch_size if mv.batched else 1
        self.max_wait = float(mv.config.get("max_wait_ms", 0)) / 1000.0
        self.queue: asyncio.Queue[Request | None] = asyncio.Queue()
        self.pools = [
            concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=f"{mv.name}-v{mv.version}-{i}")
            for i in range(len(mv.programs))
        ]
        self.tasks = [asyncio.create_task(self._serve(i)) for i in range(len(mv.programs))]
        self.inflight = 0
        self.closing = False

    # -- front ----------------------------------------------------------------
    async def submit(self, inputs: list[np.ndarray], rows: int) -> list[np.ndarray]:
        """Queue a request; its outputs (each with ``rows`` rows when batched)."""
        if self.closing:
            raise BatcherClosed(f"model '{self.mv.name}' version {self.mv.version} is being unloaded")
        fut = asyncio.get_running_loop().create_future()
        self.inflight += 1
        try:
            await self.queue.put(Request(inputs, rows, fut))
            self._gauge()
            return await fut
        finally:
            self.inflight -= 1

    async def drain(self) -> None:
        """Finish every queued request, then stop."""
        if self.closing:
            return
        self.closing = True
        for _ in self.tasks:
            await self.queue.put(None)
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for pool in self.pools:
            pool.shutdown(wait=True)

    # -- back -----------------------------------------------------------------
    def _gauge(self) -> None:
        if self.metrics is not None:
            self.metrics.queue_depth.labels(self.mv.name).set(self.queue.qsize())

    async def _serve(self, worker: int) -> None:
        loop = asyncio.get_running_loop()
        program = self.mv.programs[worker]
        pool = self.pools[worker]
        carry: Request | None = None
        stopping = False
        while True:
            if carry is not None:
                first, carry = carry, None
            elif stopping:
                return
            else:
                first = await self.queue.get()
                if first is None:
                    return
            batch, rows = [first], first.rows
            deadline = loop.time() + self.max_wait
            while rows < self.max_rows and not stopping:
                try:
                    timeout = deadline - loop.time()
                    nxt = self.queue.get_nowait() if timeout <= 0 else await asyncio.wait_for(self.queue.get(), timeout)
                except (asyncio.QueueEmpty, asyncio.TimeoutError):
                    break
                if nxt is None:
                    stopping = True  # after this batch (and a carried request)
                    break
                if rows + nxt.rows > self.max_rows:
                    carry = nxt
                    break
                batch.append(nxt)
                rows += nxt.rows
            self._gauge()
            await self._run(loop, pool, program, batch, rows)

    async def _run(self, loop, pool, program, batch: list[Request], rows: int) -> None:
        batch = [r for r in batch if not r.future.done()]  # cancelled by a gone client
        if not batch:
            return
        if self.metrics is not None:
            self.metrics.batch_rows.labels(self.mv.name).observe(rows)
        outcomes = await loop.run_in_executor(pool, _run_batch, program, self.mv, batch)
        for req, outcome in zip(batch, outcomes):
            if req.future.done():
                continue
            if isinstance(outcome, BaseException):
                req.future.set_exception(outcome)
            else:
                req.future.set_result(outcome)


def _run_batch(program: Any, mv: ModelVersion, batch: list[Request]) -> list[Any]:
    """Each request's outputs, or the exception its call raised."""
    try:
        return _call(program, mv, batch)
    except Exception as exc:  # noqa: BLE001 - reported per request below
        if len(batch) == 1:
            return [exc]
    outcomes: list[Any] = []
    for req in batch:  # one request's data must not fail the others
        try:
            outcomes.extend(_call(program, mv, [req]))
        except Exception as exc:  # noqa: BLE001
            outcomes.append(exc)
    return outcomes


def _as_tuple(out: Any) -> tuple:
    if out is None:
        return ()
    return out if isinstance(out, tuple) else (out,)


def _call(program: Any, mv: ModelVersion, batch: list[Request]) -> list[list[np.ndarray]]:
    if not mv.batched:
        return [[np.asarray(v) for v in _as_tuple(program.call(mv.signature.function, *req.inputs))] for req in batch]
    n_in = len(mv.signature.inputs)
    stacked = [
        batch[0].inputs[i] if len(batch) == 1 else np.concatenate([r.inputs[i] for r in batch])
        for i in range(n_in)
    ]
    total = sum(r.rows for r in batch)
    outputs: list[list[np.ndarray]] = [[] for _ in mv.signature.outputs]
    start = 0
    while start < total:
        take = min(total - start, mv.max_batch_size)
        variant = _smallest(mv.variants, take)
        args = [_padded(x[start : start + take], variant.batch or take) for x in stacked]
        results = _as_tuple(program.call(variant.function, *args))
        for j, value in enumerate(results):
            outputs[j].append(np.asarray(value)[:take])
        start += take
    joined = [parts[0] if len(parts) == 1 else np.concatenate(parts) for parts in outputs]
    out, offset = [], 0
    for req in batch:
        out.append([x[offset : offset + req.rows] for x in joined])
        offset += req.rows
    return out


def _smallest(variants: list[Variant], rows: int) -> Variant:
    for v in variants:
        if v.batch is not None and v.batch >= rows:
            return v
    return variants[-1]


def _padded(x: np.ndarray, rows: int) -> np.ndarray:
    if x.shape[0] == rows:
        return np.ascontiguousarray(x)
    pad = np.zeros((rows - x.shape[0], *x.shape[1:]), x.dtype)
    return np.concatenate([x, pad])
