"""Dynamic batching (tfrt.serving.batcher), with a program that records its calls."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from tfrt.serving.batcher import Batcher, BatcherClosed
from tfrt.serving.repository import ModelVersion, TensorSpec, Variant


class Recorder:
    """Doubles its input; fails on a negative row; records (function, rows)."""

    def __init__(self):
        self.calls = []

    def call(self, fn, x):
        self.calls.append((fn, x.shape[0]))
        if (x < 0).any():
            raise RuntimeError("negative input")
        return x * 2

    def close(self):
        pass


def model(sizes=(1, 4), workers=1, **config):
    variants = [Variant(f"f_b{b}", b, (TensorSpec("x", (b, 3), "f32"),), (TensorSpec("y", (b, 3), "f32"),))
                for b in sizes]
    return ModelVersion("m", 1, None, state="AVAILABLE", programs=[Recorder() for _ in range(workers)],
                        variants=variants, config=config)


def rows(n, start=0):
    return np.arange(start, start + 3 * n, dtype=np.float32).reshape(n, 3)


def run(coro):
    return asyncio.run(coro)


def test_queued_requests_share_calls_of_the_smallest_function_that_holds_them():
    mv = model()

    async def main():
        b = Batcher(mv)
        xs = [rows(1, 3 * i) for i in range(6)]
        outs = await asyncio.gather(*(b.submit([x], 1) for x in xs))
        await b.drain()
        return xs, outs

    xs, outs = run(main())
    for x, (y,) in zip(xs, outs):
        np.testing.assert_array_equal(y, 2 * x)
    # six waiting rows: one call of four, then two rows padded into the four-row function
    assert mv.programs[0].calls == [("f_b4", 4), ("f_b4", 4)]


def test_a_lone_request_takes_the_small_function():
    mv = model()

    async def main():
        b = Batcher(mv)
        (y,) = await b.submit([rows(1)], 1)
        await b.drain()
        return y

    np.testing.assert_array_equal(run(main()), 2 * rows(1))
    assert mv.programs[0].calls == [("f_b1", 1)]


def test_a_request_larger_than_a_call_is_split():
    mv = model()

    async def main():
        b = Batcher(mv)
        (y,) = await b.submit([rows(9)], 9)
        await b.drain()
        return y

    np.testing.assert_array_equal(run(main()), 2 * rows(9))
    assert mv.programs[0].calls == [("f_b4", 4), ("f_b4", 4), ("f_b1", 1)]


def test_a_failing_request_fails_alone():
    mv = model()

    async def main():
        b = Batcher(mv)
        xs = [rows(1), -rows(1) - 1, rows(1, 6)]
        outs = await asyncio.gather(*(b.submit([x], 1) for x in xs), return_exceptions=True)
        await b.drain()
        return xs, outs

    xs, outs = run(main())
    np.testing.assert_array_equal(outs[0][0], 2 * xs[0])
    assert isinstance(outs[1], RuntimeError)
    np.testing.assert_array_equal(outs[2][0], 2 * xs[2])


def test_drain_finishes_queued_requests_then_refuses_new_ones():
    mv = model(workers=2)

    async def main():
        b = Batcher(mv)
        pending = [asyncio.create_task(b.submit([rows(1, i)], 1)) for i in range(20)]
        await asyncio.sleep(0)
        await b.drain()
        outs = await asyncio.gather(*pending)
        with pytest.raises(BatcherClosed):
            await b.submit([rows(1)], 1)
        return outs

    outs = run(main())
    for i, (y,) in enumerate(outs):
        np.testing.assert_array_equal(y, 2 * rows(1, i))
    assert sum(n for p in mv.programs for _, n in p.calls) >= 20


def test_max_wait_collects_requests_that_arrive_later():
    mv = model(max_wait_ms=200)

    async def main():
        b = Batcher(mv)
        first = asyncio.create_task(b.submit([rows(1)], 1))
        await asyncio.sleep(0.02)
        second = asyncio.create_task(b.submit([rows(1, 3)], 1))
        await asyncio.gather(first, second)
        await b.drain()

    run(main())
    assert mv.programs[0].calls == [("f_b4", 4)]
