"""mstd:N lets at most N threads compute at once, the caller's inline work included."""

import threading
import time

from tfrt.async_value import AsyncValue
from tfrt.work_queue import make_work_queue


def test_worker_waits_while_the_caller_computes_inline():
    wq = make_work_queue("mstd:1")
    try:
        started = threading.Event()
        with wq.external_compute():
            wq.add_task(started.set)
            # The one slot is the caller's: the worker must not start the task.
            assert not started.wait(0.2)
        assert started.wait(5)
    finally:
        wq.shutdown()


def test_awaiting_gives_the_slot_to_the_pool():
    wq = make_work_queue("mstd:1")
    try:
        v = AsyncValue()
        with wq.external_compute():
            wq.add_task(lambda: v.set_value(7))
            wq.await_values([v])  # would deadlock if the caller kept its slot
        assert v.value == 7
    finally:
        wq.shutdown()


def test_two_slots_run_two_tasks_beside_the_caller_only_one():
    wq = make_work_queue("mstd:2")
    try:
        running, peak, lock = [0], [0], threading.Lock()

        def task():
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            time.sleep(0.05)
            with lock:
                running[0] -= 1

        with wq.external_compute():
            for _ in range(4):
                wq.add_task(task)
            time.sleep(0.3)
            assert peak[0] == 1  # caller + one worker = two compute threads
        wq.quiesce()
    finally:
        wq.shutdown()
