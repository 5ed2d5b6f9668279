"""Work queues: the single-threaded queue's ordering, mstd threads, blocking work."""

from __future__ import annotations

import threading
import time

import pytest

from tfrt.async_value import AsyncValue
from tfrt.work_queue import (
    MultiThreadedWorkQueue,
    SingleThreadedWorkQueue,
    WorkQueueError,
    make_work_queue,
)


def test_names_and_parsing():
    assert make_work_queue("s").name == "single-threaded"
    q = make_work_queue("mstd:3,5")
    try:
        assert q.name == "Multi-threaded C++ work queue (3 threads, 5 blocking threads)"
        assert q.parallelism == 3
    finally:
        q.shutdown()
    q = make_work_queue("mstd:2")
    try:
        assert "(2 threads, 256 blocking threads)" in q.name
    finally:
        q.shutdown()
    for bad in ("x", "s:1", "mstd:a", "mstd:0", "mstd:2,x"):
        with pytest.raises(WorkQueueError):
            make_work_queue(bad)


def test_single_threaded_runs_nothing_until_await():
    q = SingleThreadedWorkQueue()
    seen = []
    q.add_task(lambda: seen.append(1))
    assert seen == []
    q.quiesce()
    assert seen == [1]


def test_single_threaded_await_stops_when_resolved_and_keeps_order():
    q = SingleThreadedWorkQueue()
    seen = []
    v = AsyncValue()
    q.add_task(lambda: seen.append("a"))
    q.add_task(lambda: (seen.append("b"), v.set_value(1)))
    q.add_task(lambda: seen.append("c"))
    q.await_values([v])
    assert seen == ["a", "b"]  # "c" was taken in the batch but put back
    q.add_task(lambda: seen.append("d"))
    q.quiesce()
    assert seen == ["a", "b", "c", "d"]


def test_single_threaded_refuses_unqueued_blocking_work():
    q = SingleThreadedWorkQueue()
    task = lambda: None  # noqa: E731
    assert q.add_blocking_task(task, allow_queuing=False) is task
    assert q.add_blocking_task(task, allow_queuing=True) is None


def test_single_threaded_await_waits_for_other_threads():
    q = SingleThreadedWorkQueue()
    v = AsyncValue()
    threading.Timer(0.01, lambda: v.set_value(5)).start()
    q.await_values([v])
    assert v.get() == 5


def test_multi_threaded_runs_tasks_and_quiesces():
    q = MultiThreadedWorkQueue(2, 4)
    try:
        results = []
        lock = threading.Lock()

        def work(i):
            with lock:
                results.append(i)
            if i < 50:
                q.add_task(lambda: work(i + 50))

        for i in range(50):
            q.add_task(lambda i=i: work(i))
        q.quiesce()
        assert sorted(results) == list(range(100))
        assert not q.is_in_worker_thread()
    finally:
        q.shutdown()


def test_multi_threaded_blocking_pool_runs_in_parallel():
    q = MultiThreadedWorkQueue(1, 8)
    try:
        done = [AsyncValue() for _ in range(4)]
        start = time.perf_counter()
        for v in done:
            q.add_blocking_task(lambda v=v: (time.sleep(0.1), v.set_value(1)))
        q.await_values(done)
        assert time.perf_counter() - start < 0.35  # four sleeps overlapped
        q.quiesce()
    finally:
        q.shutdown()


class _InterruptedDeque:
    """A task queue whose first pop is hit by a Ctrl-C (the window between
    marking a task as running and taking it)."""

    def __init__(self, tasks):
        import collections

        self.items = collections.deque(tasks)
        self.hit = False

    def popleft(self):
        if not self.hit:
            self.hit = True
            raise KeyboardInterrupt
        return self.items.popleft()

    def __bool__(self):
        return bool(self.items)

    def __len__(self):
        return len(self.items)


def test_a_ctrl_c_before_the_pop_leaves_no_running_task_behind():
    from tfrt.work_queue import SingleThreadedWorkQueue

    ran = []
    for how in ("run_next", "await_values"):
        q = SingleThreadedWorkQueue()
        q._items = _InterruptedDeque([lambda: ran.append(how)])
        with pytest.raises(KeyboardInterrupt):
            if how == "run_next":
                q._run_next()
            else:
                q.await_values([AsyncValue()], timeout=5)
        assert q._running == []  # a stale entry made every later quiesce wait forever
        assert q.quiesce(timeout=5)
        assert ran[-1] == how


def test_a_block_running_here_counts_as_a_running_task():
    """``running_here``: a quiesce on another thread waits for the block;
    one inside it empties the queue and returns; ``take_newest`` takes only
    the newest task, which the caller then runs."""
    from tfrt.host_context import Task

    q = SingleThreadedWorkQueue()
    seen: list[str] = []
    older = Task(lambda: seen.append("older"), ())
    newest = Task(lambda: seen.append("newest") or 7, ())
    q.add_task(older)
    q.add_task(newest)
    done = threading.Event()
    with q.running_here():
        assert q.busy
        assert not q.take_newest(older) and q.queued == 2
        assert q.take_newest(newest) and q.queued == 1
        newest()
        assert newest.value == 7 and seen == ["newest"]
        other = threading.Thread(target=lambda: (q.quiesce(), done.set()))
        other.start()
        time.sleep(0.05)
        # The other thread ran the older task (it was queued) and waits for this block.
        assert seen == ["newest", "older"] and not done.is_set()
    other.join(5)
    assert done.is_set() and not q.busy
    assert not q.take_newest(newest)  # (not queued)


def test_a_quiesce_inside_a_block_running_here_empties_the_queue():
    q = SingleThreadedWorkQueue()
    seen: list[int] = []
    with q.running_here():
        q.add_task(lambda: seen.append(1))
        assert q.quiesce(timeout=5)  # (does not wait for the block itself)
        assert seen == [1] and q.busy
    assert not q.busy
