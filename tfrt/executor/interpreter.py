"""The dataflow interpreter: TFRT's ``BEFExecutor`` algorithm, and the in-order sync interpreter.

Runs a call of an async BEF function when no faster path applies: the
function has kernels that are not synchronous (other than control flow
the compiled path unwraps), kernels on streams other than the call's, an
argument that is not available yet, a cancelled request, or a trace; and
also whenever the compiled or column path hands a call over part-way
(``recovery.py`` builds an :class:`_Execution` in the state that path
reached, with :meth:`_Execution.resume`).  Following TFRT's
``lib/bef_executor/bef_executor.cc``:

1. result registers are pre-bound to ``IndirectAsyncValue`` placeholders, so
   results are returned before they are ready;
2. the pseudo kernel readies every zero-operand kernel and publishes the
   arguments;
3. ready kernels of the current stream run inline from a LIFO stack,
   starting on the pseudo kernel's (root) stream; when the stack is empty
   the queue switches to the stream of the first kernel of another stream
   made ready meanwhile; those made ready while the stack is not empty are
   enqueued, one work-queue task per stream;
4. a kernel with an error operand (or any kernel once the request is
   cancelled) is skipped and all its results take that error;
5. a result that is available decrements its users' ready counters at once;
   an unavailable one resumes them from ``and_then`` (enqueued instead when
   continuations nest 100 deep);
6. a register is dropped after its last consuming kernel, so values die as
   early as TFRT frees them.

:func:`_run_in_order` runs a ``tfrt.sync`` function as TFRT's
``BEFInterpreter`` does: program order, on the calling thread.  The traced
variant of the interpreter is in ``traced.py``.
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Any, Sequence

from tfrt.async_value import CONCRETE, ERROR, AsyncValue, ErrorInfo, IndirectAsyncValue
from tfrt.executor.plan import (
    MAX_CONTINUATION_DEPTH,
    KernelPlan,
    _fail,
    _invoke,
    _ReadyQueue,
    _switch_stream,
    _tls,
    result_count,
)
from tfrt.host_context import ExecutionContext
from tfrt.kernels.registry import KernelError

if TYPE_CHECKING:
    from tfrt.executor.program import BEFFunction


class _Execution:
    """One invocation of a function (TFRT creates one BEFExecutor per call)."""

    __slots__ = (
        "fn", "plan", "exec_ctx", "request", "regs", "kuses", "counts", "lock", "tracker",
        "results", "aborted", "ran", "total",
    )  # fmt: skip

    def __init__(self, fn: "BEFFunction", exec_ctx: ExecutionContext) -> None:
        plan = fn.plan
        self.fn = fn
        self.plan = plan
        self.exec_ctx = exec_ctx
        request = exec_ctx.request
        self.request = request
        self.regs: list[AsyncValue | None] = [None] * plan.num_registers
        self.kuses = list(plan.kernel_uses)
        self.counts = list(plan.init_counts)
        self.results: list[AsyncValue] = []
        self.aborted = False
        threaded = exec_ctx.host.work_queue.threaded
        self.lock = threading.Lock() if threaded else None
        # The request's count of kernels not yet run (threaded queues only,
        # where kernels run through _run_kernel): Program.call waits for it.
        tracker = request.tracker if threaded else None
        self.tracker = tracker
        if tracker is not None:
            self._track(tracker, len(plan.kernels) - 1)

    def _track(self, tracker: Any, kernels: int) -> None:
        # ``ran`` counts this execution's kernels as they run (next() is one
        # atomic call), so an abort can count off the ones that never will.
        self.total = kernels
        self.ran = itertools.count()
        tracker.add(kernels)

    @classmethod
    def resume(
        cls,
        fn: "BEFFunction",
        exec_ctx: ExecutionContext,
        regs: list[AsyncValue | None],
        kuses: list[int],
        counts: list[int],
        kernels_left: int,
    ) -> "_Execution":
        """An invocation part-way through, in the state the compiled path left
        (registers, uses left, ready counters); ``kernels_left`` have not run."""
        ex = cls.__new__(cls)
        ex.fn = fn
        ex.plan = fn.plan
        ex.exec_ctx = exec_ctx
        request = exec_ctx.request
        ex.request = request
        ex.regs = regs
        ex.kuses = kuses
        ex.counts = counts
        ex.results = []
        ex.aborted = False
        threaded = exec_ctx.host.work_queue.threaded
        ex.lock = threading.Lock() if threaded else None
        tracker = request.tracker if threaded else None
        ex.tracker = tracker
        if tracker is not None:
            ex._track(tracker, kernels_left)
        return ex

    # -- entry ----------------------------------------------------------------
    def prebind_results(self) -> list[AsyncValue]:
        regs = self.regs
        results = []
        for r in self.plan.result_registers:
            v = regs[r]
            if v is None:
                v = regs[r] = IndirectAsyncValue()
            results.append(v)
        self.results = results
        return results

    def run(self, args: Sequence[AsyncValue]) -> None:
        plan = self.plan
        q = _ReadyQueue(plan.root_stream)
        try:
            self._decrement(plan.start_users, q)
            uses = plan.register_uses
            for i, users in enumerate(plan.arg_users):
                if uses[i]:
                    self._publish(users, args[i], i, q)
        except BaseException as exc:
            self._abort(exc)
            return
        self._process(q)

    def _abort(self, exc: BaseException) -> None:
        """The interpreter failed on this execution outside any kernel.

        A RecursionError or MemoryError in its own bookkeeping, or a
        KeyboardInterrupt landing between two kernels, leaves the
        execution in a state it cannot go on from: its kernels that have
        not run never will.  So its results that are still pending become
        the error, its kernels are counted off the request (the caller
        would wait for them forever otherwise), and the error is reported
        to the host.  A BaseException that is not an Exception also stops
        the request and is raised again, for the caller to see.
        """
        base = not isinstance(exc, Exception)
        if self.aborted:
            if base:
                raise exc
            return
        self.aborted = True
        if base:
            self.request.interrupt(exc)
        tracker = self.tracker
        if tracker is not None:
            self.tracker = None
            left = self.total - next(self.ran)
            if left > 0:
                tracker.done(left)
        info = ErrorInfo(f"{type(exc).__name__}: {exc} (while running {self.fn.describe()})")
        for v in self.results:
            if not v.state:
                try:
                    v._resolve(ERROR, info)
                except RuntimeError:  # resolved by another thread meanwhile
                    pass
        self.exec_ctx.host.emit_error(info)
        if base:
            raise exc

    # -- scheduling -----------------------------------------------------------
    def _decrement(self, users: Sequence[int], q: _ReadyQueue) -> None:
        counts = self.counts
        kernels = self.plan.kernels
        lock = self.lock
        for u in users:
            if lock is None:
                c = counts[u] - 1
                counts[u] = c
            else:
                # acquire/release: a ``with`` block costs twice as much on 3.11
                lock.acquire()
                c = counts[u] - 1
                counts[u] = c
                lock.release()
            if c == 0:
                if kernels[u].stream == q.stream:
                    q.inline.append(u)
                else:
                    q.outline.append(u)

    def _set_register(self, r: int, value: AsyncValue) -> None:
        regs = self.regs
        held = regs[r]
        if held is None:
            regs[r] = value
        else:
            held.forward_to(value)  # a pre-bound function result

    def _publish(self, users: Sequence[int], value: AsyncValue, r: int, q: _ReadyQueue) -> None:
        if value.state:
            self._set_register(r, value)
            if users:
                self._decrement(users, q)
            return
        if not users:
            self._set_register(r, value)
            return
        stream = q.stream
        value.and_then(lambda: self._resume(users, value, r, stream))

    def _resume(self, users: Sequence[int], value: AsyncValue, r: int, stream: int) -> None:
        depth = getattr(_tls, "depth", 0)
        if depth >= MAX_CONTINUATION_DEPTH:
            self.exec_ctx.host.enqueue_task(lambda: self._continue(users, value, r, stream))
            return
        _tls.depth = depth + 1
        try:
            self._continue(users, value, r, stream)
        finally:
            _tls.depth = depth

    def _continue(self, users: Sequence[int], value: AsyncValue, r: int, stream: int) -> None:
        if self.aborted:
            return
        q = _ReadyQueue(stream)
        try:
            self._set_register(r, value)
            self._decrement(users, q)
        except BaseException as exc:
            self._abort(exc)
            return
        self._process(q)

    def _enqueue_outline(self, q: _ReadyQueue) -> None:
        kernels = self.plan.kernels
        ids = sorted(q.outline, key=lambda kid: kernels[kid].stream)
        q.outline = []
        host = self.exec_ctx.host
        start = 0
        while start < len(ids):
            stream = kernels[ids[start]].stream
            end = start + 1
            while end < len(ids) and kernels[ids[end]].stream == stream:
                end += 1
            group = ids[start:end]
            host.enqueue_task(lambda s=stream, g=group: self._process(_ReadyQueue(s, g)))
            start = end

    def _process(self, q: _ReadyQueue) -> None:
        if self.aborted:
            return
        try:
            if self.lock is not None:
                # On a multi-threaded queue, a thread outside the pool that runs
                # kernels inline takes one of the queue's N compute slots.
                with self.exec_ctx.host.work_queue.external_compute():
                    self._process_ready(q)
                return
            self._process_ready(q)
        except BaseException as exc:
            self._abort(exc)

    def _process_ready(self, q: _ReadyQueue) -> None:
        if not q.inline:
            _switch_stream(q, self.plan.kernels)
        if q.outline:
            self._enqueue_outline(q)
        if self.lock is None and type(self) is _Execution:
            self._process_inline(q)
            return
        run = self._run_kernel
        while q.inline:
            run(q.inline.pop(), q)
            if not q.inline:
                _switch_stream(q, self.plan.kernels)
            if q.outline:
                self._enqueue_outline(q)

    def _process_inline(self, q: _ReadyQueue) -> None:
        """The loop of _process with the kernel and the publishing of available
        results inlined: the single-threaded, untraced hot path (same semantics
        as _run_kernel + _publish_results)."""
        regs = self.regs
        kuses = self.kuses
        counts = self.counts
        kernels = self.plan.kernels
        request = self.request
        exec_ctx = self.exec_ctx
        inline = q.inline
        stream = q.stream
        while inline:
            kp = kernels[inline.pop()]
            args = []
            err = request.cancel_value
            for r in kp.args:
                av = regs[r]
                if av.state == ERROR:
                    err = av
                args.append(av)
                u = kuses[r] - 1
                kuses[r] = u
                if not u:
                    regs[r] = None
            av = None
            n = kp.nres
            if err is not None:
                results = [err] * n
            elif kp.simple:
                try:
                    # By arity: a list comprehension is a function call on 3.11.
                    m = len(args)
                    if m == 2:
                        out = kp.fn(*kp.attrs, args[0].value, args[1].value)
                    elif m == 1:
                        out = kp.fn(*kp.attrs, args[0].value)
                    elif m == 0:
                        out = kp.fn(*kp.attrs)
                    else:
                        out = kp.fn(*kp.attrs, *[x.value for x in args])
                except BaseException as exc:
                    results = [_fail(kp, exec_ctx, exc)] * n
                else:
                    if n == 1:
                        results = [AsyncValue(CONCRETE, out)]
                    elif n == 0:
                        results = ()
                    elif result_count(out) == n:
                        results = [AsyncValue(CONCRETE, v) for v in out]
                    else:
                        results = [_fail(kp, exec_ctx, KernelError(
                            f"kernel '{kp.site.name}' returned {result_count(out)} results, expected {n}"))] * n
                    out = None  # a result nobody uses must die now
            else:
                results = _invoke(kp, exec_ctx, args)
            # Drop the operands first and in order (CPython frees a list's
            # items last-first), as TFRT resets the kernel frame's arguments.
            args.reverse()
            args = None
            live = kp.live
            for i in range(n):
                if not live[i]:
                    results[i] = None  # a result nobody uses dies now, in order
                    continue
                res = results[i]
                users = kp.used_by[i]
                if res.state:
                    r = kp.results[i]
                    held = regs[r]
                    if held is None:
                        regs[r] = res
                    else:
                        held.forward_to(res)
                    for u in users:
                        c = counts[u] - 1
                        counts[u] = c
                        if not c:
                            if kernels[u].stream == stream:
                                inline.append(u)
                            else:
                                q.outline.append(u)
                else:
                    self._publish(users, res, kp.results[i], q)
            results = res = None
            if not inline:
                _switch_stream(q, kernels)
                inline = q.inline
                stream = q.stream
            if q.outline:
                self._enqueue_outline(q)

    # -- one kernel -----------------------------------------------------------
    def _take_args(self, kp: KernelPlan) -> list[AsyncValue]:
        regs = self.regs
        kuses = self.kuses
        args = []
        if self.lock is None:
            for r in kp.args:
                args.append(regs[r])
                u = kuses[r] - 1
                kuses[r] = u
                if u == 0:
                    regs[r] = None
        else:
            lock = self.lock
            lock.acquire()
            try:
                for r in kp.args:
                    args.append(regs[r])
                    u = kuses[r] - 1
                    kuses[r] = u
                    if u == 0:
                        regs[r] = None
            finally:
                lock.release()
        return args

    def _run_kernel(self, kid: int, q: _ReadyQueue) -> None:
        kp = self.plan.kernels[kid]
        args = self._take_args(kp)
        err = self.request.cancel_value
        for i in range(len(args)):
            if args[i].state == ERROR:
                err = args[i]
        if err is None:
            results = _invoke(kp, self.exec_ctx, args)
        else:
            results = [err] * kp.nres
        # Drop the operands before publishing, in order, as TFRT resets the
        # frame's arguments first: a value whose last user this was dies now.
        args.reverse()
        del args
        self._publish_results(kp, results, q)
        tracker = self.tracker
        if tracker is not None:
            next(self.ran)
            tracker.done()

    def _publish_results(self, kp: KernelPlan, results: list[AsyncValue], q: _ReadyQueue) -> None:
        live = kp.live
        regs_out = kp.results
        used_by = kp.used_by
        for i in range(kp.nres):
            if live[i]:
                self._publish(used_by[i], results[i], regs_out[i], q)
            results[i] = None  # type: ignore[call-overload]


def _run_in_order(func: "BEFFunction", exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
    """Run a ``tfrt.sync`` function as TFRT's BEFInterpreter does.

    Kernels run one after another in program order, on the calling thread;
    the first error ends the function and every result takes it.
    """
    plan = func.plan
    regs: list[AsyncValue | None] = [None] * plan.num_registers
    regs[: len(args)] = args
    host = exec_ctx.host
    for kp in plan.kernels[1:]:
        operands = [regs[r] for r in kp.args]
        pending = [a for a in operands if not a.state]
        if pending:  # an argument the caller passed unavailable
            host.await_values(pending)
        for a in operands:
            if a.is_error:
                return [a] * len(plan.result_registers)
        results = _invoke(kp, exec_ctx, operands)
        pending = [v for v in results if not v.state]
        if pending:  # an async kernel inside a sync function: wait for it here
            host.await_values(pending)
        for r, v in zip(kp.results, results):
            if v.is_error:
                return [v] * len(plan.result_registers)
            regs[r] = v
    return [regs[r] for r in plan.result_registers]  # type: ignore[misc]
