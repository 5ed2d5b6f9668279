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


def test_run_if_only_runs_the_only_queued_task_as_the_queue_would():
    """``run_if_only``: the task runs here, marked running and inside a
    task, when it is the only one queued; with others queued nothing runs
    and the queue keeps its order."""
    from tfrt.host_context import Task

    q = SingleThreadedWorkQueue()
    seen: list = []
    first = Task(lambda: seen.append("first"), ())
    second = Task(lambda: seen.append(("second", q.busy, q.is_in_worker_thread())) or 7, ())
    q.add_task(first)
    q.add_task(second)
    assert not q.run_if_only(second) and not q.run_if_only(first) and q.queued == 2 and seen == []
    q.run_queued_until(first)
    assert seen == ["first"]
    assert q.run_if_only(second)
    assert second.value == 7 and seen[1] == ("second", True, True)
    assert not q.busy and not q.is_in_worker_thread() and q.queued == 0
    assert not q.run_if_only(second)  # (not queued)
    other = Task(lambda: 1, ())
    q.add_task(other)
    assert not q.run_if_only(second) and q.queued == 1  # (another task: left queued)
