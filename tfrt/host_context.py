"""HostContext, ExecutionContext, RequestContext, ResourceContext, host allocators.

After TFRT's ``host_context`` library:

* :class:`HostContext` owns what every kernel of a process shares: the kernel
  registry, the work queue, the host allocator, the diagnostic handler (which
  receives runtime errors with the failing kernel's location), one *shared
  context* per type (``shared_context(cls)``) and the devices.
* :class:`RequestContext` is one request (one top-level function run):
  cancellation and a :class:`ResourceContext` (``tfrt.once`` caches there).
* :class:`ExecutionContext` is what kernels receive: host + request.

Tasks: ``host.spawn(fn, *args)`` runs ``fn(*args)`` as one work-queue task
and returns the AsyncValue of its result (TFRT's ``EnqueueWork``); a
function that returns an AsyncValue resolves the task with it when it
resolves, so a task can spawn children and return ``when_all(children)``.
``exec_ctx.spawn`` does the same for a request: once the request is
cancelled, its tasks that have not started resolve to the cancellation
error without running.  The task object *is* its result value and the
queue's callable, so spawning allocates one object (plus the argument
tuple); ``docs/scheduling.md`` has the numbers.

Example::

    host = HostContext(work_queue="s")
    exec_ctx = host.new_execution_context()
    v = host.enqueue_work(lambda: 1 + 2)      # an AsyncValue
    host.await_values([v]); v.get()           # 3
    w = host.spawn(pow, 2, 10)
    host.await_values([w]); w.get()           # 1024
"""

from __future__ import annotations

import datetime
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tfrt.async_value import (
    CANCELLED_ERROR,
    CONCRETE,
    ERROR,
    UNAVAILABLE,
    AsyncValue,
    ErrorCode,
    ErrorInfo,
    _Forward,
    _Join,
)
from tfrt.kernels.registry import KernelError
from tfrt.work_queue import WorkQueue, make_work_queue

#: How deep function executions may nest in one request (HostContext.max_call_depth).
DEFAULT_MAX_CALL_DEPTH = 20_000


def call_hop() -> int:
    """Every how many levels of nested function executions one starts from the
    work queue, on a fresh stack (``tfrt.executor``): a nested execution takes
    up to about a dozen Python frames; this leaves room for continuations
    and the caller's own frames under the interpreter's recursion limit."""
    return max(16, sys.getrecursionlimit() // 25)


# [call_hop()], as of the last tfrt.executor.set_recursion_limit.
_call_hop = [call_hop()]

# ---------------------------------------------------------------------------
# Logging in TFRT_LOG's format (severity, time, thread, file:line) on stderr.


def tfrt_log(severity: str, message: str, where: str = "tfrt") -> None:
    """Write one TFRT_LOG-style line to stderr; ``severity`` is INFO/WARNING/ERROR."""
    now = datetime.datetime.now()
    letter = {"INFO": "I", "WARNING": "W", "ERROR": "E", "FATAL": "F"}.get(severity, "I")
    sys.stdout.flush()
    sys.stderr.write(
        f"{letter} {now:%Y-%m-%d %H:%M:%S}.{now.microsecond:06d} "
        f"{threading.get_ident()} {where}] {message}\n"
    )
    sys.stderr.flush()


# ---------------------------------------------------------------------------
# Host allocators (HostContext::Allocate).  Python manages the memory; these
# keep TFRT's accounting, which the leak checker and the 1 kB test allocator
# report on.


class Allocation:
    """One block handed out by a HostAllocator (release it with ``deallocate``)."""

    __slots__ = ("size", "alignment", "buffer", "freed")

    def __init__(self, size: int, alignment: int) -> None:
        self.size = size
        self.alignment = alignment
        self.buffer = bytearray(size)
        self.freed = False


class HostAllocationError(MemoryError):
    """The host allocator refused a request (the fixed-size test allocator is full)."""


class HostAllocator:
    """Malloc-like: ``allocate(size, alignment) -> Allocation``, ``deallocate(a)``."""

    banner = "Choosing malloc."

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.num_allocations = 0  # alive
        self.num_bytes = 0  # alive
        self.max_num_allocations = 0
        self.max_num_bytes = 0
        self.total_allocations = 0

    def allocate(self, size: int, alignment: int = 8) -> Allocation:
        self._check(size)
        with self._lock:
            self.num_allocations += 1
            self.total_allocations += 1
            self.num_bytes += size
            self.max_num_allocations = max(self.max_num_allocations, self.num_allocations)
            self.max_num_bytes = max(self.max_num_bytes, self.num_bytes)
        return Allocation(size, alignment)

    def deallocate(self, allocation: Allocation) -> None:
        if allocation.freed:
            raise RuntimeError("host allocation freed twice")
        allocation.freed = True
        allocation.buffer = bytearray()
        self._release(allocation.size)
        with self._lock:
            self.num_allocations -= 1
            self.num_bytes -= allocation.size

    # Subclass hooks.
    def _check(self, size: int) -> None:
        pass

    def _release(self, size: int) -> None:
        pass

    def print_stats(self) -> None:
        out = sys.stdout
        out.write("HostAllocator profile:\n")
        out.write(f"Current number of allocations = {self.num_allocations}\n")
        out.write(f"Max number of allocations = {self.max_num_allocations}\n")
        out.write(f"Total number of allocations = {self.total_allocations}\n")
        out.write(f"Current number of bytes allocated = {self.num_bytes}\n")
        out.write(f"Max number of bytes allocated = {self.max_num_bytes}\n")
        out.flush()

    def finish(self) -> int:
        """Called at exit; returns the exit status this allocator wants (0 = fine)."""
        return 0


class ProfiledAllocator(HostAllocator):
    banner = "Choosing profiled allocator based on malloc."

    def finish(self) -> int:
        self.print_stats()
        return 0


class LeakCheckAllocator(HostAllocator):
    """TFRT's default: at exit, anything still allocated is reported and fails the run."""

    banner = "Choosing memory leak check allocator."

    def finish(self) -> int:
        if self.num_bytes == 0:
            return 0
        self.print_stats()
        sys.stdout.write(
            f"Memory leak detected: {self.num_allocations} alive allocations, "
            f"{self.num_bytes} alive bytes\n"
        )
        sys.stdout.flush()
        return 1


class FixedSizeAllocator(HostAllocator):
    """TFRT's ``test_fixed_size_1k``: a capacity; requests of at most 32 bytes are free."""

    banner = "Choosing fixed size malloc."
    EXCLUDE_THRESHOLD = 32

    def __init__(self, capacity: int = 1024) -> None:
        super().__init__()
        self.capacity = capacity
        self.current = 0

    def _check(self, size: int) -> None:
        if size <= self.EXCLUDE_THRESHOLD:
            return
        with self._lock:
            if size + self.current <= self.capacity:
                self.current += size
                msg = f"Allocating {size} bytes. {self.capacity - self.current} remaining."
                ok = True
            else:
                msg = (
                    f"Attempted to allocate {size} bytes. However current capacity "
                    f"is only {self.capacity - self.current}."
                )
                ok = False
        tfrt_log("INFO" if ok else "ERROR", msg, "test_fixed_size_allocator.py:1")
        if not ok:
            raise HostAllocationError(msg)

    def _release(self, size: int) -> None:
        if size <= self.EXCLUDE_THRESHOLD:
            return
        with self._lock:
            self.current -= size
            msg = f"Freeing {size} bytes. {self.capacity - self.current} available."
        tfrt_log("INFO", msg, "test_fixed_size_allocator.py:1")


HOST_ALLOCATORS: dict[str, Callable[[], HostAllocator]] = {
    "malloc": HostAllocator,
    "test_fixed_size_1k": FixedSizeAllocator,
    "profiled_allocator": ProfiledAllocator,
    "leak_check_allocator": LeakCheckAllocator,
}


def make_host_allocator(kind: str) -> HostAllocator:
    factory = HOST_ALLOCATORS.get(kind)
    if factory is None:
        raise ValueError(
            f"unknown host allocator type '{kind}' (expected one of {', '.join(HOST_ALLOCATORS)})"
        )
    return factory()


# ---------------------------------------------------------------------------
# Diagnostics.


@dataclass(frozen=True)
class DecodedDiagnostic:
    """A runtime error as the host reports it: message, code and decoded location.

    ``location`` is a ``tfrt.bef.program`` Location (or None when unknown).
    """

    message: str
    code: str = ErrorCode.INTERNAL
    location: Any = None


def _default_diag_handler(diag: DecodedDiagnostic) -> None:
    sys.stdout.flush()
    sys.stderr.write(f"runtime error: {diag.message}\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------
# Tasks: one work-queue entry and the AsyncValue of its result in one object.


class Task(AsyncValue):
    """``fn(*args)`` as a work-queue task; the object is also the result's AsyncValue.

    The queue calls the task; it runs ``fn`` and resolves itself with the
    return value, or with an error (a :class:`KernelError` keeps its code;
    any other exception becomes INTERNAL with its type and text).  A
    returned AsyncValue is followed: the task resolves when it does.
    """

    __slots__ = ("_fn", "_args")

    def __init__(self, fn: Callable[..., Any], args: tuple) -> None:
        self.state = UNAVAILABLE
        self.value = None
        self._waiters = None
        self._fn = fn
        self._args = args

    def __call__(self) -> None:
        fn = self._fn
        args = self._args
        if args is None:
            return  # already ran (a task queued twice runs once)
        self._fn = self._args = None  # let the arguments die with the call
        try:
            out = fn(*args)
        except KernelError as exc:
            self._resolve(ERROR, ErrorInfo(exc.message, exc.code))
            return
        except BaseException as exc:  # a bug in the task, or Ctrl-C: an error value
            self._resolve(ERROR, ErrorInfo(f"{type(exc).__name__}: {exc}"))
            if not isinstance(exc, Exception):
                self._interrupted(exc)
            return
        if isinstance(out, AsyncValue):
            self._follow(out)
            return
        self._resolve(CONCRETE, out)

    def _interrupted(self, exc: BaseException) -> None:
        """``fn`` raised a BaseException that is not an Exception (KeyboardInterrupt,
        SystemExit): the task's value is an error either way."""

    def _follow(self, out: AsyncValue) -> None:
        if out.state:
            self._resolve(out.state, out.value)
        elif type(out) is _Join and out.adopt(self):
            pass  # the join resolves this task too: no callback needed
        elif out.state:  # resolved meanwhile, or adopted by another task
            self._resolve(out.state, out.value)
        else:
            out.and_then(_Forward(self, out))  # chains of these resolve in a loop


class RequestTask(Task):
    """A task of one request: it does not run once the request is cancelled."""

    __slots__ = ("_request",)

    def __init__(self, fn: Callable[..., Any], args: tuple, request: "RequestContext") -> None:
        self.state = UNAVAILABLE
        self.value = None
        self._waiters = None
        self._fn = fn
        self._args = args
        self._request = request

    def __call__(self) -> None:
        cancelled = self._request.cancel_value
        if cancelled is not None and self._args is not None:
            self._fn = self._args = None
            self._resolve(ERROR, cancelled.value)
            return
        Task.__call__(self)

    def _interrupted(self, exc: BaseException) -> None:
        self._request.interrupt(exc)


class _TrackedTask(RequestTask):
    """A task of a request whose caller waits for its work (``RequestContext.tracker``)."""

    __slots__ = ()

    def __call__(self) -> None:
        # RequestTask.__call__ and Task.__call__ inlined: this is the task
        # API's hot path on threaded queues.
        args = self._args
        if args is None:
            return  # already ran
        fn = self._fn
        self._fn = self._args = None
        request = self._request
        try:
            cancelled = request.cancel_value
            if cancelled is not None:
                self._resolve(ERROR, cancelled.value)
                return
            try:
                out = fn(*args)
            except KernelError as exc:
                self._resolve(ERROR, ErrorInfo(exc.message, exc.code))
                return
            except BaseException as exc:  # a bug in the task, or Ctrl-C: an error value
                self._resolve(ERROR, ErrorInfo(f"{type(exc).__name__}: {exc}"))
                if not isinstance(exc, Exception):
                    request.interrupt(exc)
                return
            if isinstance(out, AsyncValue):
                self._follow(out)
            else:
                self._resolve(CONCRETE, out)
        finally:
            request.tracker.task_done()


# ---------------------------------------------------------------------------
# Resource, request and execution contexts.


class ResourceContext:
    """Named resources shared by the kernels of one request (``tfrt.once`` uses it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._resources: dict[str, Any] = {}

    def get(self, name: str) -> Any | None:
        return self._resources.get(name)

    def set(self, name: str, value: Any) -> None:
        with self._lock:
            self._resources[name] = value

    def get_or_create(self, name: str, factory: Callable[[], Any]) -> Any:
        """The resource ``name``, created by ``factory()`` on first use (atomically)."""
        with self._lock:
            value = self._resources.get(name)
            if value is None:
                value = factory()
                self._resources[name] = value
            return value


class WorkTracker:
    """Counts the kernels and tasks of one request that have not run yet; :meth:`wait` for none.

    The executor adds a function's kernels when an execution of the request
    starts (a called function's execution starts inside a kernel of its
    caller, so the count never drops to zero early) and counts each kernel
    off when it has run or been skipped; ``ExecutionContext.spawn`` counts
    a task from when it is queued until it has run or been skipped.
    ``Program.call`` on a threaded queue waits for this instead of for the
    whole queue to go idle, so concurrent calls do not wait for each
    other's work.
    """

    __slots__ = ("_lock", "_pending", "_idle", "_tasks")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending = 0  # kernels (under the lock)
        self._idle: threading.Event | None = None
        # One entry per task queued and not finished: append and pop are
        # atomic, so a task costs no lock (spawning is the task API's hot path).
        self._tasks: list[None] = []

    @property
    def pending(self) -> int:
        return self._pending + len(self._tasks)

    def add(self, n: int) -> None:
        lock = self._lock
        lock.acquire()
        try:
            if self._pending <= 0 and self._idle is not None:
                self._idle.clear()
            self._pending += n
        finally:
            lock.release()

    def done(self, n: int = 1) -> None:
        lock = self._lock
        lock.acquire()
        try:
            pending = self._pending - n
            self._pending = pending
            if pending <= 0 and not self._tasks and self._idle is not None:
                self._idle.set()  # under the lock: an add() right after clears it again
        finally:
            lock.release()

    def task_queued(self) -> None:
        tasks = self._tasks
        if not tasks and self._idle is not None:
            # Maybe idle already (a task queued after the call's last kernel
            # and task): not any more.
            lock = self._lock
            lock.acquire()
            try:
                tasks.append(None)
                self._idle.clear()
            finally:
                lock.release()
            return
        tasks.append(None)

    def task_done(self) -> None:
        tasks = self._tasks
        tasks.pop()
        if not tasks and self._pending <= 0 and self._idle is not None:
            lock = self._lock
            lock.acquire()
            try:
                if not tasks and self._pending <= 0:
                    self._idle.set()
            finally:
                lock.release()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until nothing is pending; False if ``timeout`` seconds passed first."""
        lock = self._lock
        lock.acquire()
        try:
            if self._pending <= 0 and not self._tasks:
                return True
            idle = self._idle
            if idle is None:
                idle = self._idle = threading.Event()
                # Look again now that the event exists: a task that finished
                # before (task_done takes no lock) did not see it.
                if self._pending <= 0 and not self._tasks:
                    return True
        finally:
            lock.release()
        return idle.wait(timeout)


class RequestContext:
    """One request: cancellation, a resource context and per-request data.

    The resource context is created on first use unless one is given (calls
    from Python that never run ``tfrt.once`` should not pay for it).
    ``tracker`` (a :class:`WorkTracker`, or None) counts the request's
    kernels that have not run, on threaded queues.
    """

    __slots__ = ("host", "_resource_context", "cancel_value", "data", "tracker", "interrupted")

    def __init__(
        self,
        host: "HostContext",
        resource_context: ResourceContext | None = None,
        data: dict[type, Any] | None = None,
        tracker: WorkTracker | None = None,
    ) -> None:
        self.host = host
        self._resource_context = resource_context
        # An error AsyncValue once cancelled (the executor checks it per kernel).
        self.cancel_value: AsyncValue | None = None
        self.data = data
        self.tracker = tracker
        # The first KeyboardInterrupt, SystemExit or other BaseException that
        # is not an Exception raised by one of the request's kernels or tasks
        # (see interrupt()).
        self.interrupted: BaseException | None = None

    @property
    def resource_context(self) -> ResourceContext:
        rc = self._resource_context
        if rc is None:
            rc = self._resource_context = ResourceContext()
        return rc

    def cancel(self) -> None:
        """Cancel the request: kernels and tasks not yet started are skipped with ``Cancelled``.

        Safe from any thread; cancelling twice is cancelling once.
        """
        if self.cancel_value is None:
            self.cancel_value = AsyncValue(ERROR, CANCELLED_ERROR)

    @property
    def cancelled(self) -> bool:
        return self.cancel_value is not None

    def interrupt(self, exc: BaseException) -> None:
        """A kernel or task of the request raised ``exc``, a BaseException that is
        not an Exception (KeyboardInterrupt, SystemExit): the request stops.

        The raising kernel's results are an error, as for any failure; the
        request is cancelled, so what has not started is skipped and loops
        stop at their next iteration, and the first such exception is kept
        for the caller, which raises it once the call has wound down
        (``Program.call``, ``Call.result``), as ``concurrent.futures``
        raises a worker's exception in ``result()``.  The worker thread
        that ran the kernel lives on.
        """
        if self.interrupted is None:
            self.interrupted = exc
        self.cancel()


class ExecutionContext:
    """What kernels see of the runtime: the host and the current request.

    ``depth`` counts the function executions this context is nested in:
    0 for what the caller runs, 1 for the kernels of the function it
    calls, 2 inside a function that one calls (``tfrt.call``, a branch, a
    loop body), and so on.  A function runs its kernels with
    ``exec_ctx.nested()``, which the executor uses to bound recursion (see
    ``HostContext.max_call_depth``): ``deep`` says a function running its
    kernels at this depth starts from the work queue, or fails (one test
    per call instead of several).
    """

    __slots__ = ("host", "request", "depth", "deep", "_nested")

    def __init__(self, host: "HostContext", request: RequestContext, depth: int = 0) -> None:
        self.host = host
        self.request = request
        self.depth = depth
        self.deep = False
        self._nested: ExecutionContext | None = None

    def nested(self) -> "ExecutionContext":
        """The context one function call deeper (made once, then shared)."""
        child = self._nested
        if child is None:
            host = self.host
            depth = self.depth + 1
            child = ExecutionContext(host, self.request, depth)
            child.deep = not depth % _call_hop[0] or depth > host.max_call_depth
            self._nested = child
        return child

    @property
    def resource_context(self) -> ResourceContext:
        return self.request.resource_context

    @property
    def cancel_value(self) -> AsyncValue | None:
        return self.request.cancel_value

    @property
    def work_queue(self) -> WorkQueue:
        return self.host.work_queue

    def spawn(self, fn: Callable[..., Any], *args: Any) -> AsyncValue:
        """Run ``fn(*args)`` as a task of this request; its result as an AsyncValue.

        A task that has not started when the request is cancelled resolves
        to the cancellation error (code CANCELLED) without running.  A call
        that waits for its work (``RequestContext.tracker``) waits for its
        tasks too, as it does for its kernels, whether or not their values
        reach its results.
        """
        request = self.request
        tracker = request.tracker
        if tracker is None:
            task = RequestTask(fn, args, request)
        else:
            tracker.task_queued()
            task = _TrackedTask(fn, args, request)
        self.host.work_queue.add_task(task)
        return task


# ---------------------------------------------------------------------------


class HostContext:
    """Everything kernels of one process share (see the module docstring)."""

    def __init__(
        self,
        *,
        work_queue: WorkQueue | str = "s",
        allocator: HostAllocator | str = "malloc",
        registry: Any = None,
        diag_handler: Callable[[DecodedDiagnostic], None] | None = None,
        max_call_depth: int = DEFAULT_MAX_CALL_DEPTH,
    ) -> None:
        self.work_queue = make_work_queue(work_queue) if isinstance(work_queue, str) else work_queue
        self.allocator = (
            make_host_allocator(allocator) if isinstance(allocator, str) else allocator
        )
        if registry is None:
            from tfrt.kernels.registry import default_registry

            registry = default_registry()
        self.registry = registry
        self.diag_handler = diag_handler or _default_diag_handler
        self._shared: dict[type, Any] = {}
        self._shared_lock = threading.RLock()
        self.devices: dict[str, Any] = {}
        # Deepest nesting of function executions (tfrt.call, branches, loop
        # bodies) a request may reach; a call beyond it returns an error
        # naming the function and the depth (see tfrt.executor).
        self.max_call_depth = max_call_depth

    # -- errors -------------------------------------------------------------
    def emit_error(self, error: ErrorInfo | str, location: Any = None) -> DecodedDiagnostic:
        """Send a runtime error to the diagnostic handler (TFRT's ``EmitError``)."""
        if not isinstance(error, ErrorInfo):
            error = ErrorInfo(str(error))
        diag = DecodedDiagnostic(error.message, error.code, location)
        self.diag_handler(diag)
        return diag

    # -- contexts -----------------------------------------------------------
    def new_request(self, resource_context: ResourceContext | None = None) -> RequestContext:
        return RequestContext(self, resource_context)

    def new_execution_context(
        self, resource_context: ResourceContext | None = None
    ) -> ExecutionContext:
        return ExecutionContext(self, self.new_request(resource_context))

    def shared_context(self, cls: type) -> Any:
        """The one instance of ``cls`` for this host, built as ``cls(host)`` on first use."""
        inst = self._shared.get(cls)
        if inst is not None:
            return inst
        with self._shared_lock:
            inst = self._shared.get(cls)
            if inst is None:
                inst = cls(self)
                self._shared[cls] = inst
            return inst

    # -- work ---------------------------------------------------------------
    def spawn(self, fn: Callable[..., Any], *args: Any) -> AsyncValue:
        """Run ``fn(*args)`` as one work-queue task; its result as an AsyncValue.

        ``fn`` may return a plain value, raise (KernelError keeps its code),
        or return an AsyncValue that the task then follows; see :class:`Task`.
        """
        task = Task(fn, args)
        self.work_queue.add_task(task)
        return task

    def enqueue_work(self, fn: Callable[[], Any]) -> AsyncValue:
        """Run ``fn`` on the work queue; its result (or KernelError) resolves the value."""
        task = Task(fn, ())
        self.work_queue.add_task(task)
        return task

    def enqueue_task(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` on the work queue, ignoring its result."""
        self.work_queue.add_task(fn)

    def enqueue_blocking_work(self, fn: Callable[[], Any]) -> bool:
        """Run ``fn`` on the blocking pool (queued if need be); False if refused."""
        return self.work_queue.add_blocking_task(fn, allow_queuing=True) is None

    def run_blocking_work(self, fn: Callable[[], Any]) -> bool:
        """Run ``fn`` on a blocking thread now, or return False."""
        return self.work_queue.add_blocking_task(fn, allow_queuing=False) is None

    def await_values(self, values: Sequence[AsyncValue], timeout: float | None = None) -> bool:
        """Block until every value is available (running queued work on ``s``).

        Returns False if ``timeout`` seconds passed first.
        """
        return self.work_queue.await_values(values, timeout)

    def quiesce(self) -> None:
        self.work_queue.quiesce()

    def shutdown(self) -> None:
        self.work_queue.shutdown()

    # -- memory -------------------------------------------------------------
    def allocate(self, size: int, alignment: int = 8) -> Allocation:
        return self.allocator.allocate(size, alignment)

    def deallocate(self, allocation: Allocation) -> None:
        self.allocator.deallocate(allocation)
