"""Work queues: where enqueued kernels, continuations and blocking work run.

After TFRT's ``ConcurrentWorkQueue``.  Two kinds, chosen by name with
:func:`make_work_queue`:

``s``
    :class:`SingleThreadedWorkQueue`.  Starts no threads.  Tasks (blocking or
    not) go on one FIFO and run only inside :meth:`await_values` (in order,
    until the awaited values resolve) and :meth:`quiesce` (until the FIFO is
    empty), on the caller's thread.  TFRT's tests rely on that order: work
    enqueued by a function runs after the function's inline kernels.

``mstd[:N[,M]]``
    :class:`MultiThreadedWorkQueue`.  N worker threads (default: the number of
    CPUs), each with its own deque, newest task first, stealing the oldest
    from the others when idle (TFRT's work-stealing queue); blocking work goes
    to a separate pool of up to M threads (default 256) started on demand.
    Handing a task to a sleeping thread costs ~100 µs on these machines, so
    the executor runs small kernels inline and only enqueues what TFRT
    enqueues (other streams, async kernels).

A task is any callable taking no arguments; ``HostContext.spawn`` queues
task objects that are at once the callable and the AsyncValue of the result.
Neither queue takes a lock per task (``docs/scheduling.md``).

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
from threading import get_ident
from time import monotonic, perf_counter, process_time, thread_time
from typing import Callable, Iterable, Iterator, Sequence

from tfrt.async_value import AsyncValue

Task = Callable[[], object]

DEFAULT_NUM_BLOCKING_THREADS = 256
# Longest a sleeping thread waits before it looks again by itself.
_WAIT_SLICE = 0.05
# GIL contention (see MultiThreadedWorkQueue): every _PROBE_TASKS tasks a
# worker that runs beside another one compares its CPU time with the wall
# time over at least _PROBE_WINDOW seconds; below _FAIR_SHARE of a core, with
# the process's other threads having used at least as much CPU meanwhile, it
# is mostly waiting for the interpreter lock, and parks for _PARK_MIN seconds,
# doubling up to _PARK_MAX while that goes on.  Meanwhile a worker's own new
# tasks do not wake sleeping peers; a probe that finds the workers running
# side by side (tasks that release the GIL) ends that.
_PROBE_TASKS = 128
_PROBE_WINDOW = 0.01
_FAIR_SHARE = 0.6
_PARK_MIN = 0.05
_PARK_MAX = 0.5


class WorkQueueError(ValueError):
    """A malformed ``--work_queue_type`` value."""


class WorkQueue:
    """The interface both queues implement."""

    name: str = ""
    threaded: bool = False

    def add_task(self, task: Task) -> None:
        raise NotImplementedError  # pragma: no cover - interface

    def add_tasks(self, tasks: Iterable[Task]) -> None:
        """Queue several tasks at once (one wake-up check for all of them)."""
        for task in tasks:
            self.add_task(task)

    def add_blocking_task(self, task: Task, allow_queuing: bool = True) -> Task | None:
        """Run ``task`` on the blocking pool; returns the task back if it cannot."""
        raise NotImplementedError  # pragma: no cover - interface

    def await_values(self, values: Sequence[AsyncValue], timeout: float | None = None) -> bool:
        """Block until every value is available; False if ``timeout`` seconds passed first."""
        raise NotImplementedError  # pragma: no cover - interface

    def quiesce(self, timeout: float | None = None) -> bool:
        """Run or wait for all work; False if ``timeout`` seconds passed first."""
        raise NotImplementedError  # pragma: no cover - interface

    @property
    def parallelism(self) -> int:
        return 1

    def external_compute(self) -> "contextlib.AbstractContextManager[None]":
        """Held by a thread outside the pool while it runs kernels inline."""
        return contextlib.nullcontext()

    def is_in_worker_thread(self) -> bool:
        return False

    @property
    def queued(self) -> int:
        """How many tasks wait in the queue (0 where the queue cannot tell)."""
        return 0

    @property
    def busy(self) -> bool:
        """Tasks are queued or running (as far as the queue can tell)."""
        return self.queued > 0

    def shutdown(self) -> None:
        """Stop any threads (after draining the work)."""


def _report_task_failure() -> None:
    # A task that raises is a bug in a kernel or in the runtime; keep the
    # queue alive and say what happened, as a crashed worker would be silent.
    # Worker threads catch BaseException too (a KeyboardInterrupt or
    # SystemExit raised by code on a worker would end the thread, and once
    # every worker had ended, every later call would hang); the ``s``
    # queue's loops run on the caller's thread and let such an exception
    # reach the caller, as Ctrl-C should.
    sys.stderr.write("tfrt: a work queue task raised:\n")
    traceback.print_exc()
    sys.stderr.flush()


class SingleThreadedWorkQueue(WorkQueue):
    """TFRT's ``s`` queue: no threads; work runs only in await/quiesce.

    One FIFO deque: ``add_task`` is an atomic ``append`` (plus a wake-up
    only when a thread sleeps in :meth:`await_values` or :meth:`quiesce`
    waiting for another thread), and the awaiting thread takes one task at
    a time with an atomic ``popleft``, so tasks added while it runs go
    behind the ones already queued, in order, as TFRT's batches do.

    Several threads may share the queue (each runs tasks while it waits),
    so :meth:`quiesce` also waits for the tasks that other threads are
    running: one of them may be a task of the caller's own call.
    """

    name = "single-threaded"
    threaded = False

    def __init__(self) -> None:
        self._items: deque[Task] = deque()
        self._cv = threading.Condition(threading.Lock())
        self._sleepers = 0  # threads waiting for work, a value or the others' tasks
        self._running: list[object] = []  # one entry per task running (append/remove: atomic)
        self._local = threading.local()

    def add_task(self, task: Task) -> None:
        self._items.append(task)
        if self._sleepers:
            self._notify()

    def add_tasks(self, tasks: Iterable[Task]) -> None:
        self._items.extend(tasks)
        if self._sleepers:
            self._notify()

    def _notify(self) -> None:
        with self._cv:
            self._cv.notify_all()

    @property
    def queued(self) -> int:
        return len(self._items)

    @property
    def busy(self) -> bool:
        """Tasks are queued, or running on some thread."""
        return bool(self._items or self._running)

    def add_blocking_task(self, task: Task, allow_queuing: bool = True) -> Task | None:
        # No threads to run it on right away: refuse what may not wait.
        if not allow_queuing:
            return task
        self.add_task(task)
        return None

    def is_in_worker_thread(self) -> bool:
        return getattr(self._local, "in_task", False)

    def _run_next(self, only: Task | None = None) -> bool:
        """Run the oldest queued task here; False if there is none (or, with
        ``only``, when the oldest is another task: it stays queued)."""
        running = self._running
        # The entry goes in before the pop (a quiesce never sees the task in
        # neither place) and comes out in the finally: a Ctrl-C landing
        # between the append and the pop must not leave it behind, or every
        # later quiesce waits for a task nobody runs.  It is this call's own
        # object, so an interrupt before the append removes nothing.
        mark = object()
        try:
            running.append(mark)
            try:
                task = self._items.popleft()
            except IndexError:
                return False
            if only is not None and task is not only:  # (another thread's: still the oldest)
                self._items.appendleft(task)
                return False
            try:
                task()
            except Exception:
                _report_task_failure()
            return True
        finally:
            try:
                running.remove(mark)
            except ValueError:  # interrupted before the append
                pass
            if not running and self._sleepers:
                self._notify()

    def quiesce(self, timeout: float | None = None) -> bool:
        """Run queued tasks until none is queued and no thread runs one.

        Called from inside a task (a kernel that quiesces), it only empties
        the queue: waiting for the others would wait for itself.  Returns
        False if ``timeout`` seconds passed first.
        """
        local = self._local
        outer = getattr(local, "in_task", False)
        local.in_task = True
        run_next = self._run_next
        deadline = None if timeout is None else monotonic() + timeout
        try:
            while True:
                while run_next():
                    if deadline is not None and monotonic() >= deadline:
                        return False
                if outer or not self._running:
                    return True
                if not self._sleep_while_running(deadline):
                    return False
        finally:
            local.in_task = outer

    def run_queued_until(self, value: AsyncValue) -> None:
        """Run queued tasks here, oldest first, until ``value`` is available
        or none is queued (an await that never waits for another thread)."""
        local = self._local
        outer = getattr(local, "in_task", False)
        local.in_task = True
        run_next = self._run_next
        try:
            while not value.state and run_next():
                pass
        finally:
            local.in_task = outer

    def run_if_only(self, task: Task) -> bool:
        """Run ``task`` here now if it is the only queued task: what
        ``run_queued_until(task)`` does then, for a caller that waits for
        that task's value (the ordered path), without its loop.  False,
        nothing run, when other tasks are queued (they run first: the queue
        keeps its order)."""
        if len(self._items) != 1:
            return False
        local = self._local
        outer = getattr(local, "in_task", False)
        local.in_task = True
        try:
            return self._run_next(task)
        finally:
            local.in_task = outer

    def _sleep_while_running(self, deadline: float | None) -> bool:
        items = self._items
        running = self._running
        with self._cv:
            self._sleepers += 1
            try:
                while not items and running:
                    wait = _WAIT_SLICE
                    if deadline is not None:
                        wait = min(wait, deadline - monotonic())
                        if wait <= 0:
                            return False
                    self._cv.wait(wait)
            finally:
                self._sleepers -= 1
        return True

    def await_values(self, values: Sequence[AsyncValue], timeout: float | None = None) -> bool:
        pending = [v for v in values if not v.state]
        if not pending:
            return True
        deadline = None if timeout is None else monotonic() + timeout
        local = self._local
        outer = getattr(local, "in_task", False)
        local.in_task = True
        popleft = self._items.popleft
        running = self._running
        watched: set[int] = set()
        try:
            while pending:
                v = pending[-1]
                while not v.state:
                    if deadline is not None and monotonic() >= deadline:
                        return False
                    # _run_next, inlined: the task API's hot loop on s.
                    mark = object()
                    task = None
                    try:
                        running.append(mark)
                        try:
                            task = popleft()
                        except IndexError:
                            pass
                        else:
                            try:
                                task()
                            except Exception:
                                _report_task_failure()
                    finally:
                        try:
                            running.remove(mark)
                        except ValueError:  # interrupted before the append
                            pass
                        if not running and self._sleepers:
                            self._notify()
                    if task is None:
                        # Nothing queued: the value resolves on another thread
                        # (a blocking task, a timer), or more work arrives.
                        if id(v) not in watched:
                            watched.add(id(v))
                            v.and_then(self._notify)
                        self._sleep_until(v, deadline)
                pending.pop()
        finally:
            local.in_task = outer
        return True

    def _sleep_until(self, v: AsyncValue, deadline: float | None) -> None:
        items = self._items
        with self._cv:
            self._sleepers += 1
            try:
                while not items and not v.state:
                    # The slice only bounds a wake-up lost on a build without
                    # the GIL; with it, add_task always sees a sleeper.
                    wait = _WAIT_SLICE
                    if deadline is not None:
                        wait = min(wait, deadline - monotonic())
                        if wait <= 0:
                            return
                    self._cv.wait(wait)
            finally:
                self._sleepers -= 1


class _ExternalCompute:
    """``with queue.external_compute():`` for a thread outside the pool (see the queue)."""

    __slots__ = ("_queue", "_counted")

    def __init__(self, queue: "MultiThreadedWorkQueue") -> None:
        self._queue = queue
        self._counted = False

    def __enter__(self) -> None:
        q = self._queue
        local = q._local
        if getattr(local, "computing", False):  # a worker, or already counted
            return
        with q._lock:
            q._computing += 1
        local.computing = True
        self._counted = True

    def __exit__(self, *exc: object) -> None:
        if not self._counted:
            return
        q = self._queue
        q._local.computing = False
        with q._lock:
            q._computing -= 1
            q._slot_cv.notify()


class MultiThreadedWorkQueue(WorkQueue):
    """TFRT's ``mstd`` queue: N workers with a deque each, stealing, plus a blocking pool.

    As in TFRT's work-stealing queue, a worker pushes the tasks it creates
    onto its own deque and pops the newest first (depth first: small live
    state, warm caches); an idle worker takes the oldest task of the
    threads outside the pool (one FIFO deque) or steals the oldest task of
    another worker.  Pushing and popping are single atomic deque
    operations, with no lock; the lock is taken only to sleep, to wake a
    sleeping worker (``add_task`` checks a plain counter first), and to take
    or return a compute slot: a worker holds one slot for as long as it
    finds work, not per task.

    Workers that only take turns on the GIL slow each other down (each
    forced hand-over can stall both threads for milliseconds on a busy
    machine), so a worker that measures it got less than 60% of a core
    beside another worker parks for a while and leaves its deque to be
    stolen from; workers running side by side (tasks that release the GIL)
    keep going.  ``docs/scheduling.md`` has the measurements.
    """

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
        self._work_cv = threading.Condition(self._lock)  # idle workers wait for tasks
        self._slot_cv = threading.Condition(self._lock)  # a worker with a task waits for a slot
        self._idle_cv = threading.Condition(self._lock)  # quiesce waits for all idle
        self._blocking_cv = threading.Condition(self._lock)
        self._inject: deque[Task] = deque()  # tasks from threads outside the pool
        self._queues: list[deque[Task]] = [deque() for _ in range(num_threads)]
        self._queue_of: dict[int, deque[Task]] = {}  # worker thread id -> its deque
        self._sleeping = 0  # workers with no task and no slot, waiting (under _lock)
        self._active = 0  # workers holding a slot
        self._parked = 0  # workers stepping aside from GIL contention (see _worker_loop)
        self._park_cv = threading.Condition(self._lock)
        self._gil_bound = False  # workers were last seen taking turns on the GIL
        self._park = _PARK_MIN  # how long the next worker that steps aside waits
        self._waking = False  # a wake-up is on its way: later adds need not send another
        # Threads computing right now: workers holding a slot, plus threads
        # outside the pool (the caller) running kernels inline.  Workers start
        # no task while N threads compute, so the caller's inline stream and
        # the pool together never oversubscribe the N cores the queue is for.
        self._computing = 0
        self._blocking: deque[Task] = deque()
        self._blocking_pending = 0  # blocking tasks queued or running
        self._idle_blocking = 0
        self._num_blocking_started = 0
        self._stopping = False
        self._local = threading.local()
        self._workers = [
            threading.Thread(
                target=self._worker_loop, args=(i,), name=f"tfrt-worker-{i}", daemon=True
            )
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
        queue = self._queue_of.get(get_ident())
        if queue is None:
            self._inject.append(task)
            if self._sleeping and not self._waking:
                self._wake()
            return
        queue.append(task)
        # A worker's own work wakes a sleeping peer to steal it, unless the
        # workers were just found taking turns on the GIL (see _worker_loop).
        if self._sleeping and not self._waking and not self._gil_bound:
            self._wake()

    def add_tasks(self, tasks: Iterable[Task]) -> None:
        queue = self._queue_of.get(get_ident())
        if queue is None:
            self._inject.extend(tasks)
            if self._sleeping and not self._waking:
                self._wake()
            return
        queue.extend(tasks)
        if self._sleeping and not self._waking and not self._gil_bound:
            self._wake()

    def _wake(self) -> None:
        with self._lock:
            if self._sleeping:
                self._waking = True
                self._work_cv.notify()

    def _has_work(self) -> bool:
        if self._inject:
            return True
        for q in self._queues:
            if q:
                return True
        return False

    def _idle(self) -> bool:
        """Nothing queued or running (called under _lock)."""
        return (
            self._sleeping + self._parked == self.num_threads
            and not self._blocking_pending
            and not self._has_work()
        )

    def _worker_loop(self, index: int) -> None:
        local = self._local
        local.worker = True
        mine = self._queues[index]
        self._queue_of[get_ident()] = mine
        n = len(self._queues)
        victims = [self._queues[(index + k) % n] for k in range(1, n)]
        inject = self._inject
        pop = mine.pop
        limit = self.num_threads
        while True:
            task = _take(pop, inject, victims)
            if task is None:
                if not self._sleep():
                    return
                continue
            self._take_slot()
            local.computing = True
            # Hold the slot while there is work: no lock per task.
            count = 0
            wall0 = perf_counter()
            cpu0 = thread_time()
            proc0 = process_time()
            contended = False
            while True:
                try:
                    task()
                except BaseException:  # a worker outlives whatever a task raises
                    _report_task_failure()
                if self._computing > limit:
                    break  # a thread outside the pool started computing: yield the slot
                count += 1
                if count == _PROBE_TASKS:
                    count = 0
                    if inject:  # outside work waits at most _PROBE_TASKS tasks
                        try:
                            task = inject.popleft()
                            continue
                        except IndexError:
                            pass
                    if self._active > 1:
                        wall = perf_counter()
                        if wall - wall0 >= _PROBE_WINDOW:
                            cpu = thread_time()
                            proc = process_time()
                            mine = cpu - cpu0
                            if mine < _FAIR_SHARE * (wall - wall0):
                                # Short of CPU: waiting for the GIL if other
                                # threads of the process ran meanwhile (not if
                                # this one just blocked inside its tasks).
                                if proc - proc0 - mine >= mine:
                                    contended = True
                                    break
                            else:
                                # Workers really run side by side (the tasks
                                # release the GIL): wake peers for work again.
                                self._gil_bound = False
                                self._park = _PARK_MIN
                            wall0, cpu0, proc0 = wall, cpu, proc
                    else:
                        wall0 = perf_counter()
                        cpu0 = thread_time()
                        proc0 = process_time()
                try:
                    task = pop()
                except IndexError:
                    task = _take(pop, inject, victims)
                    if task is None:
                        break
            local.computing = False
            with self._lock:
                self._computing -= 1
                self._active -= 1
                self._slot_cv.notify()
                if contended and self._active > 0:
                    # Threads that hold the GIL in turn only slow each other
                    # down: step aside while another worker runs, leaving the
                    # queued work to it (it steals from this deque).
                    self._gil_bound = True
                    park = self._park
                    self._park = min(park * 2, _PARK_MAX)
                    self._parked += 1
                    if self._idle():
                        self._idle_cv.notify_all()
                    self._park_cv.wait(park)
                    self._parked -= 1

    def _take_slot(self) -> None:
        with self._lock:
            while self._computing >= self.num_threads:
                self._slot_cv.wait()
            self._computing += 1
            self._active += 1

    def _sleep(self) -> bool:
        """Wait for work; False once the queue is shutting down and drained."""
        with self._lock:
            self._sleeping += 1
            try:
                while not self._has_work():
                    if self._stopping:
                        return False
                    if self._idle():
                        self._idle_cv.notify_all()
                    # The timeout bounds a wake-up lost on a build without
                    # the GIL, and how long a peer's work waits for a steal
                    # when peers do not wake each other (GIL-bound tasks).
                    self._work_cv.wait(self._park if self._gil_bound else _WAIT_SLICE)
                    self._waking = False
            finally:
                self._sleeping -= 1
        return True

    def external_compute(self) -> "contextlib.AbstractContextManager[None]":
        return _ExternalCompute(self)

    @contextlib.contextmanager
    def _not_computing(self) -> Iterator[None]:
        """A thread that waits gives its compute slot to the pool meanwhile."""
        local = self._local
        if not getattr(local, "computing", False):
            yield
            return
        with self._lock:
            self._computing -= 1
            self._slot_cv.notify()
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
            self._blocking_pending += 1
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
            try:
                task()
            except BaseException:  # a blocking thread outlives what a task raises
                _report_task_failure()
            finally:
                with self._lock:
                    self._blocking_pending -= 1
                    if self._idle():
                        self._idle_cv.notify_all()

    # -- waiting --------------------------------------------------------------
    def await_values(self, values: Sequence[AsyncValue], timeout: float | None = None) -> bool:
        pending = [v for v in values if not v.state]
        if not pending:
            return True
        deadline = None if timeout is None else monotonic() + timeout
        mine = self._queue_of.get(get_ident())
        if mine is not None:
            # A worker that waits keeps running work meanwhile: with one
            # worker, sleeping here would leave its own tasks unrun.
            return self._help_until(pending, mine, deadline)
        with self._not_computing():
            for v in pending:
                if not v.state:
                    done = threading.Event()
                    v.and_then(done.set)
                    if deadline is None:
                        done.wait()
                    elif not done.wait(max(0.0, deadline - monotonic())):
                        return False
        return True

    def _help_until(self, pending: list[AsyncValue], mine: deque, deadline: float | None) -> bool:
        n = len(self._queues)
        index = self._queues.index(mine)
        victims = [self._queues[(index + k) % n] for k in range(1, n)]
        for v in pending:
            done: threading.Event | None = None
            while not v.state:
                if deadline is not None and monotonic() >= deadline:
                    return False
                task = _take(mine.pop, self._inject, victims)
                if task is None:
                    if done is None:
                        done = threading.Event()
                        v.and_then(done.set)
                    done.wait(_WAIT_SLICE)
                    continue
                try:
                    task()
                except BaseException:  # on a worker thread: see _worker_loop
                    _report_task_failure()
        return True

    def quiesce(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else monotonic() + timeout
        with self._not_computing(), self._lock:
            while not self._idle():
                wait = _WAIT_SLICE
                if deadline is not None:
                    wait = min(wait, deadline - monotonic())
                    if wait <= 0:
                        return False
                self._idle_cv.wait(wait)
        return True

    def shutdown(self) -> None:
        self.quiesce()
        with self._lock:
            self._stopping = True
            self._work_cv.notify_all()
            self._park_cv.notify_all()
            self._blocking_cv.notify_all()


def _take(pop: Callable[[], Task], inject: deque, victims: list[deque]) -> Task | None:
    """A worker's next task: its own newest, else the oldest from outside, else a steal."""
    try:
        return pop()
    except IndexError:
        pass
    if inject:
        try:
            return inject.popleft()
        except IndexError:
            pass
    for q in victims:
        if q:
            try:
                return q.popleft()
            except IndexError:
                pass
    return None


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
