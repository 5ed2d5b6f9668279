"""Work queues: where enqueued kernels, continuations and blocking work run.

After TFRT's ``ConcurrentWorkQueue``.  Two kinds, chosen by name with
:func:`make_work_queue`:

``s``
    :class:`SingleThreadedWorkQueue`.  Starts no threads.  Tasks (blocking or
    not) go on one FIFO list and run only inside :meth:`await_values` (a batch
    at a time, until the awaited values resolve) and :meth:`quiesce` (until the
    list is empty), on the caller's thread.  TFRT's tests rely on that order:
    work enqueued by a function runs after the function's inline kernels.

``mstd[:N[,M]]``
    :class:`MultiThreadedWorkQueue`.  N worker threads (default: the number of
    CPUs) share one FIFO; blocking work goes to a separate pool of up to M
    threads (default 256) started on demand.  Handing a task to a sleeping
    thread costs ~100 µs on these machines, so the executor runs small kernels
    inline and only enqueues what TFRT enqueues (other streams, async kernels).

Example::

    q = make_work_queue("s")
    v = AsyncValue()
    q.add_task(lambda: v.set_value(1))   # queued, not run
    q.await_values([v])                  # runs it
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import traceback
from collections import deque
from typing import Callable, Iterator, Sequence

from tfrt.async_value import AsyncValue

Task = Callable[[], object]

DEFAULT_NUM_BLOCKING_THREADS = 256


class WorkQueueError(ValueError):
    """A malformed ``--work_queue_type`` value."""


class WorkQueue:
    """The interface both queues implement."""

    name: str = ""
    threaded: bool = False

    def add_task(self, task: Task) -> None:
        raise NotImplementedError  # pragma: no cover - interface

    def add_blocking_task(self, task: Task, allow_queuing: bool = True) -> Task | None:
        """Run ``task`` on the blocking pool; returns the task back if it cannot."""
        raise NotImplementedError  # pragma: no cover - interface

    def await_values(self, values: Sequence[AsyncValue]) -> None:
        raise NotImplementedError  # pragma: no cover - interface

    def quiesce(self) -> None:
        raise NotImplementedError  # pragma: no cover - interface

    @property
    def parallelism(self) -> int:
        return 1

    def external_compute(self) -> "contextlib.AbstractContextManager[None]":
        """Held by a thread outside the pool while it runs kernels inline."""
        return contextlib.nullcontext()

    def is_in_worker_thread(self) -> bool:
        return False

    def shutdown(self) -> None:
        """Stop any threads (after draining the work)."""


def _report_task_failure() -> None:
    # A task that raises is a bug in a kernel or in the runtime; keep the
    # queue alive and say what happened, as a crashed worker would be silent.
    sys.stderr.write("tfrt: a work queue task raised:\n")
    traceback.print_exc()
    sys.stderr.flush()


class SingleThreadedWorkQueue(WorkQueue):
    """TFRT's ``s`` queue: no threads; work runs only in await/quiesce."""

    name = "single-threaded"
    threaded = False

    def __init__(self) -> None:
        self._items: list[Task] = []
        self._cv = threading.Condition(threading.Lock())
        self._in_task = False

    def add_task(self, task: Task) -> None:
        with self._cv:
            self._items.append(task)
            self._cv.notify_all()

    def add_blocking_task(self, task: Task, allow_queuing: bool = True) -> Task | None:
        # No threads to run it on right away: refuse what may not wait.
        if not allow_queuing:
            return task
        self.add_task(task)
        return None

    def is_in_worker_thread(self) -> bool:
        return self._in_task

    def _execute(self, task: Task) -> None:
        self._in_task = True
        try:
            task()
        except Exception:
            _report_task_failure()
        finally:
            self._in_task = False

    def quiesce(self) -> None:
        while True:
            with self._cv:
                if not self._items:
                    return
                batch, self._items = self._items, []
            for task in batch:
                self._execute(task)

    def await_values(self, values: Sequence[AsyncValue]) -> None:
        remaining = [0]
        for v in values:
            if not v.state:
                remaining[0] += 1
        if not remaining[0]:
            return
        cv = self._cv

        def one_done() -> None:
            with cv:
                remaining[0] -= 1
                cv.notify_all()

        for v in values:
            if not v.state:
                v.and_then(one_done)

        batch: list[Task] = []
        next_index = 0
        while True:
            with cv:
                if remaining[0] == 0:
                    break
            if next_index == len(batch):
                with cv:
                    while remaining[0] != 0 and not self._items:
                        cv.wait()
                    if remaining[0] == 0:
                        break
                    batch, self._items = self._items, []
                next_index = 0
            task = batch[next_index]
            next_index += 1
            self._execute(task)
        # Work taken but not run goes back to the front, in order.
        if next_index < len(batch):
            with cv:
                self._items[:0] = batch[next_index:]
                cv.notify_all()


class MultiThreadedWorkQueue(WorkQueue):
    """TFRT's ``mstd`` queue: N workers on one FIFO plus an on-demand blocking pool."""

    threaded = True

    def __init__(self, num_threads: int, num_blocking_threads: int = DEFAULT_NUM_BLOCKING_THREADS):
        if num_threads <= 0 or num_blocking_threads <= 0:
            raise WorkQueueError("mstd needs at least one worker and one blocking thread")
        self.num_threads = num_threads
        self.num_blocking_threads = num_blocking_threads
        self.name = (
            f"Multi-threaded C++ work queue ({num_threads} threads, "
            f"{num_blocking_threads} blocking threads)"
        )
        self._lock = threading.Lock()
        self._work_cv = threading.Condition(self._lock)  # workers wait for tasks
        self._idle_cv = threading.Condition(self._lock)  # quiesce waits for pending == 0
        self._tasks: deque[Task] = deque()
        self._blocking: deque[Task] = deque()
        self._blocking_cv = threading.Condition(self._lock)
        self._pending = 0  # queued + running, both pools
        # Threads computing right now: workers running a task, plus threads
        # outside the pool (the caller) running kernels inline.  Workers start
        # no task while N threads compute, so the caller's inline stream and
        # the pool together never oversubscribe the N cores the queue is for.
        self._computing = 0
        self._idle_blocking = 0
        self._num_blocking_started = 0
        self._stopping = False
        self._local = threading.local()
        self._workers = [
            threading.Thread(target=self._worker_loop, name=f"tfrt-worker-{i}", daemon=True)
            for i in range(num_threads)
        ]
        for t in self._workers:
            t.start()

    @property
    def parallelism(self) -> int:
        return self.num_threads

    def is_in_worker_thread(self) -> bool:
        return getattr(self._local, "worker", False)

    # -- non-blocking pool ----------------------------------------------------
    def add_task(self, task: Task) -> None:
        with self._lock:
            self._pending += 1
            self._tasks.append(task)
            self._work_cv.notify()

    def _worker_loop(self) -> None:
        self._local.worker = True
        self._local.computing = True
        while True:
            with self._lock:
                while (
                    not self._tasks or self._computing >= self.num_threads
                ) and not self._stopping:
                    self._work_cv.wait()
                if not self._tasks:
                    return
                task = self._tasks.popleft()
                self._computing += 1
            self._run(task, computing=True)

    def _run(self, task: Task, computing: bool = False) -> None:
        try:
            task()
        except Exception:
            _report_task_failure()
        finally:
            with self._lock:
                self._pending -= 1
                if computing:
                    self._computing -= 1
                    self._work_cv.notify()
                if self._pending == 0:
                    self._idle_cv.notify_all()

    @contextlib.contextmanager
    def external_compute(self) -> Iterator[None]:
        local = self._local
        if getattr(local, "computing", False):  # a worker, or already counted
            yield
            return
        with self._lock:
            self._computing += 1
        local.computing = True
        try:
            yield
        finally:
            local.computing = False
            with self._lock:
                self._computing -= 1
                self._work_cv.notify()

    @contextlib.contextmanager
    def _not_computing(self) -> Iterator[None]:
        """A thread that waits gives its compute slot to the pool meanwhile."""
        local = self._local
        if not getattr(local, "computing", False):
            yield
            return
        with self._lock:
            self._computing -= 1
            self._work_cv.notify()
        local.computing = False
        try:
            yield
        finally:
            with self._lock:
                self._computing += 1
            local.computing = True

    # -- blocking pool --------------------------------------------------------
    def add_blocking_task(self, task: Task, allow_queuing: bool = True) -> Task | None:
        with self._lock:
            if self._idle_blocking == 0:
                if self._num_blocking_started >= self.num_blocking_threads:
                    if not allow_queuing:
                        return task
                else:
                    self._num_blocking_started += 1
                    threading.Thread(
                        target=self._blocking_loop, name="tfrt-blocking", daemon=True
                    ).start()
            self._pending += 1
            self._blocking.append(task)
            self._blocking_cv.notify()
        return None

    def _blocking_loop(self) -> None:
        while True:
            with self._lock:
                self._idle_blocking += 1
                while not self._blocking and not self._stopping:
                    self._blocking_cv.wait()
                self._idle_blocking -= 1
                if not self._blocking:
                    self._num_blocking_started -= 1
                    return
                task = self._blocking.popleft()
            self._run(task)

    # -- waiting --------------------------------------------------------------
    def await_values(self, values: Sequence[AsyncValue]) -> None:
        pending = [v for v in values if not v.state]
        if not pending:
            return
        done = threading.Event()
        remaining = [len(pending)]
        guard = threading.Lock()

        def one_done() -> None:
            with guard:
                remaining[0] -= 1
                last = remaining[0] == 0
            if last:
                done.set()

        for v in pending:
            v.and_then(one_done)
        with self._not_computing():
            done.wait()

    def quiesce(self) -> None:
        with self._not_computing(), self._lock:
            while self._pending:
                self._idle_cv.wait()

    def shutdown(self) -> None:
        self.quiesce()
        with self._lock:
            self._stopping = True
            self._work_cv.notify_all()
            self._blocking_cv.notify_all()


def make_work_queue(spec: str) -> WorkQueue:
    """A work queue from TFRT's ``--work_queue_type`` syntax: ``s``, ``mstd``, ``mstd:N``, ``mstd:N,M``."""
    name, _, args = spec.partition(":")
    if name == "s":
        if args:
            raise WorkQueueError(f"invalid argument for s work queue: {args}")
        return SingleThreadedWorkQueue()
    if name == "mstd":
        if not args:
            return MultiThreadedWorkQueue(os.cpu_count() or 1)
        threads, _, blocking = args.partition(",")
        try:
            n = int(threads)
            m = int(blocking) if blocking else DEFAULT_NUM_BLOCKING_THREADS
        except ValueError:
            raise WorkQueueError(f"invalid argument for mstd work queue: {args}") from None
        return MultiThreadedWorkQueue(n, m)
    raise WorkQueueError(f"unknown work queue type '{name}'")
