"""The BEF executor: execution plans, TFRT's dataflow algorithm, and a compiled fast path.

Loading (:meth:`BEFProgram.load`) checks every kernel name against the
registry (an unknown name is reported at the first op that uses it, as
TFRT's loader does: ``unknown kernel name 'X'``), resolves native functions,
and builds one :class:`FunctionPlan` per function: the kernel implementation
looked up once, attributes decoded once, operand/result registers, used-by
lists, initial ready counts and the per-register use counts.

Running a function (:meth:`BEFFunction.execute`) follows TFRT's
``BEFExecutor`` (``lib/bef_executor/bef_executor.cc``):

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

The fast path: a function whose kernels are sync (``@kernel`` default kind)
or control flow (``FAST_ASYNC_KERNELS``: call, if, while, repeat), and which
step 3 runs whole on the calling thread when every value is available (a
kernel of another stream becomes ready only when the current stream has
nothing left, so the queue switches streams instead of enqueueing it), runs
in an order known at load time (``_replay``).  A function that would enqueue
work stays with the interpreter: TFRT runs that work later, after the
caller's next kernels and, on ``s``, after the driver prints the results if
they are ready by then.  After it has been called
``jit_threshold`` times it is compiled to a straight-line Python function:
one line per kernel, ``r = add(r, c)`` (a dying operand's local is reused by
the result, so it is freed when the kernel returns, as TFRT drops operands),
``del`` after other registers' last use; functions longer than
``FAST_CHUNK`` kernels compile to several chained functions.  Errors cost
nothing until they happen: a kernel that raises unwinds out of the generated
code, the traceback's line number says which kernel failed, the frame's
locals hold the live registers, and the interpreter takes over in the state
it would have reached itself (ready counters and queue replayed up to that
kernel): the failed kernel's results are published and every kernel ready
on the current stream runs before the call returns.  A control-flow kernel
whose results are not all concrete (an error, or work still queued) exits
the same way (``_Pending``), and the kernels waiting for an unavailable
result resume when it resolves, in the task that resolves it.
``tests/runtime/test_fast_path.py`` checks on random programs that both
paths print, report and return the same; ``test_side_effect_order.py``
checks the order of their output against the driver's "returned" line.

Example::

    program = BEFProgram.load(read_bef("x.bef"), HostContext())
    fn = program.function("main")
    results = fn.execute(host.new_execution_context(), [])   # AsyncValues
"""

from __future__ import annotations

import gc
import itertools
import sys
import threading
from typing import Any, Callable, Sequence

import numpy as np

from tfrt.async_value import (
    CONCRETE,
    ERROR,
    AsyncValue,
    ErrorCode,
    ErrorInfo,
    IndirectAsyncValue,
)
from tfrt.bef import program as bp
from tfrt.bef.reader import BEFFormatError
from tfrt.host_context import ExecutionContext, HostContext, _call_hop, call_hop
from tfrt.kernels.registry import (
    AsyncKernelFrame,
    KernelContext,
    KernelDef,
    KernelError,
)

__all__ = [
    "BEFFunction",
    "BEFProgram",
    "FunctionPlan",
    "NativeFunction",
    "ProgramLoadError",
    "debug_info",
    "location_to_string",
]

MAX_CONTINUATION_DEPTH = 100  # TFRT's kMaxStackDepth for and_then continuations
DEFAULT_JIT_THRESHOLD = 2


class ProgramLoadError(Exception):
    """The BEF file could not be loaded; the diagnostics went to the host's handler."""


# ---------------------------------------------------------------------------
# Locations.


def location_to_string(loc: bp.Location) -> str:
    """TFRT's opaque location string (``file;line;col``, ``child(name)``, ``a<-b``, ``a,b``)."""
    if isinstance(loc, bp.FileLineColLocation):
        return f"{loc.file};{loc.line};{loc.col}"
    if isinstance(loc, bp.NameLocation):
        if isinstance(loc.child, bp.UnknownLocation):
            return loc.name
        return f"{location_to_string(loc.child)}({loc.name})"
    if isinstance(loc, bp.CallSiteLocation):
        return f"{location_to_string(loc.callee)}<-{location_to_string(loc.caller)}"
    if isinstance(loc, bp.FusedLocation):
        return ",".join(location_to_string(c) for c in loc.locations)
    return "(unknown)"


def debug_info(loc: bp.Location) -> str | None:
    """TFRT's kernel debug info: a NameLoc's name, the names in a fused loc, a call site's callee name."""
    if isinstance(loc, bp.NameLocation):
        return loc.name
    if isinstance(loc, bp.FusedLocation):
        return "".join(c.name for c in loc.locations if isinstance(c, bp.NameLocation))
    if isinstance(loc, bp.CallSiteLocation) and isinstance(loc.callee, bp.NameLocation):
        return loc.callee.name
    return None


_UNKNOWN = bp.UnknownLocation()


class KernelSite:
    """A kernel's identity for diagnostics: name, BEF location offset, decoded lazily."""

    __slots__ = ("name", "location", "_program", "_decoded")

    def __init__(self, name: str, location: int, program: "BEFProgram | None") -> None:
        self.name = name
        self.location = location
        self._program = program
        self._decoded: bp.Location | None = None

    def decoded_location(self) -> bp.Location:
        loc = self._decoded
        if loc is None:
            loc = _UNKNOWN
            if self._program is not None:
                try:
                    loc = self._program.bef.location(self.location)
                except Exception:  # an offset the reader cannot decode is "unknown"
                    loc = _UNKNOWN
            self._decoded = loc
        return loc

    def debug_info(self) -> str | None:
        return debug_info(self.decoded_location())

    def __repr__(self) -> str:
        return f"KernelSite({self.name!r}, {self.location})"


# ---------------------------------------------------------------------------
# Plans.


class KernelPlan:
    """Everything the executor needs about one kernel, decoded once."""

    __slots__ = (
        "kid",  # kernel-table index (1-based; 0 is the pseudo kernel)
        "site",
        "kdef",
        "fn",
        "sync",
        "context",
        "simple",  # sync and no context: the interpreter calls it inline
        "attrs",
        "funcs",
        "args",
        "results",
        "used_by",
        "live",  # per result: does its register have users (TFRT user_count > 0)
        "stream",
        "nres",
    )

    def __repr__(self) -> str:
        return f"KernelPlan({self.kid}, {self.site.name!r})"


class FunctionPlan:
    """The precomputed form of one BEF function body."""

    __slots__ = (
        "num_registers",
        "kernels",  # kernels[kid]; index 0 is None (pseudo kernel)
        "init_counts",  # ready counters, index = kid
        "kernel_uses",  # per register: uses by kernels (tfrt.return excluded)
        "register_uses",  # per register: TFRT user_count (return included)
        "start_users",
        "arg_users",
        "result_registers",
        "root_stream",  # the pseudo kernel's stream: where the ready queue starts
        "all_sync",
        "order",  # the kernel order when every value is available (fast path)
        "replays",  # position in order -> the interpreter's state there (_resume_state)
    )


def _build_plan(fn: bp.Function, program: "BEFProgram") -> FunctionPlan:
    plan = FunctionPlan()
    cols = fn.columns
    if cols is not None:  # straight from the body's columns: no Kernel objects
        kernel_records, uses, start, users = cols.records(program.bef.kernel_names)
        result_registers = tuple(cols.returns.tolist())
        nregs = cols.num_registers
        pseudo = (tuple(start), *(tuple(users[i]) for i in range(cols.num_args_fn)))
        del users
    else:
        kernel_records = [
            (k.name, k.location, k.args, k.attrs, k.funcs, k.results, k.used_by, k.num_operands, k.stream_id)
            for k in fn.kernels
        ]
        uses = fn.register_uses
        result_registers = tuple(fn.result_registers)
        nregs = fn.num_registers
        pseudo = fn.pseudo_used_by
    plan.num_registers = nregs
    plan.register_uses = tuple(uses)
    kernel_uses = list(uses)
    for r in result_registers:
        kernel_uses[r] -= 1
    plan.kernel_uses = kernel_uses
    plan.result_registers = result_registers
    plan.start_users = tuple(pseudo[0]) if pseudo else ()
    plan.arg_users = tuple(tuple(u) for u in pseudo[1:])
    plan.root_stream = fn.root_stream
    kernels: list[KernelPlan | None] = [None]
    counts = [0]
    all_sync = True
    fast_ok = True
    make = program._make_kernel_plan
    for i, k in enumerate(kernel_records):
        kp = make(plan, i + 1, *k)
        kernels.append(kp)
        counts.append(max(1, k[7]))
        all_sync = all_sync and kp.sync
        fast_ok = fast_ok and (kp.sync or kp.site.name in FAST_ASYNC_KERNELS)
    plan.kernels = kernels
    plan.init_counts = counts
    plan.all_sync = all_sync
    # Name the regions this function runs after it, for messages (a region
    # is an anonymous function: a branch or a loop body).
    this = program.functions[fn.index] if fn.index < len(program.functions) else None
    label = getattr(this, "name", "") or getattr(this, "owner", None)
    if label:
        for kp in kernels[1:]:
            for callee in kp.funcs:
                if type(callee) is BEFFunction and not callee.name and callee.owner is None:
                    callee.owner = label
    plan.order = _replay(plan) if fast_ok else None
    plan.replays = {}
    return plan


# Async kernels the fast path may call: control flow, whose results are
# usually available when it returns (a branch or body of sync kernels).  The
# generated code unwraps them; an unavailable or error result hands the rest
# of the function to the interpreter (_Pending, _recover).
FAST_ASYNC_KERNELS = frozenset(
    {"tfrt.call", "tfrt.if", "tfrt.cond", "tfrt.case", "tfrt.while", "tfrt.repeat.i32"}
)


def _replay(plan: FunctionPlan, stop: int = -1) -> Any:
    """Step 3 of the algorithm with every value available, on the calling thread.

    Returns the kernel order when the whole function runs inline: every
    kernel that becomes ready belongs to the current stream, or becomes ready
    when the current stream has nothing left to run (the queue then switches
    to its stream).  Returns None when a ready kernel of another stream would
    be enqueued while the current stream still has work: TFRT runs it later
    from the work queue, after the caller's next kernels (on ``s``, after the
    driver prints the results if they are ready by then), which only the
    interpreter reproduces.

    With ``stop``, a position in that order, it returns the state right after
    kernel ``stop`` is taken from the inline stack: the ready counters and
    the queue (stream and inline stack), for the interpreter to go on from.
    """
    kernels = plan.kernels
    counts = list(plan.init_counts)
    q = _ReadyQueue(plan.root_stream)

    def ready(users: Sequence[int]) -> None:
        for u in users:
            c = counts[u] - 1
            counts[u] = c
            if not c:
                if kernels[u].stream == q.stream:
                    q.inline.append(u)
                else:
                    q.outline.append(u)

    ready(plan.start_users)
    for i, users in enumerate(plan.arg_users):
        if plan.register_uses[i]:
            ready(users)
    order: list[int] = []
    while True:
        if not q.inline:
            _switch_stream(q, kernels)
        if q.outline:
            return None  # TFRT enqueues these
        if not q.inline:
            break
        kid = q.inline.pop()
        if len(order) == stop:
            return counts, q
        order.append(kid)
        kp = kernels[kid]
        for users, live in zip(kp.used_by, kp.live):
            if live:
                ready(users)
    if len(order) != len(kernels) - 1:
        return None  # some kernel never becomes ready (malformed counts): no fast path
    return tuple(order)


def _resume_state(plan: FunctionPlan, pos: int) -> tuple[list[int], "_ReadyQueue"]:
    """``_replay(plan, pos)``, computed once per position and copied: a
    function that hands over to the interpreter at one kernel (a call whose
    results are pending) tends to do so at that kernel on every call."""
    state = plan.replays.get(pos)
    if state is None:
        counts, q = _replay(plan, pos)
        state = plan.replays[pos] = (tuple(counts), q.stream, tuple(q.inline), tuple(q.outline))
    counts, stream, inline, outline = state
    q = _ReadyQueue(stream, list(inline))
    q.outline = list(outline)
    return list(counts), q


# ---------------------------------------------------------------------------
# Kernel invocation shared by the interpreter and the fast path's recovery.


def _error_results(err: AsyncValue, n: int) -> list[AsyncValue]:
    return [err] * n


def _fail(kp: KernelPlan, exec_ctx: ExecutionContext, exc: BaseException) -> AsyncValue:
    """The error value of a kernel that raised ``exc`` (emitted at its location).

    A BaseException that is not an Exception (KeyboardInterrupt, SystemExit)
    is an error value too, so the executor's bookkeeping goes on as for
    any failure; it also stops the request (``RequestContext.interrupt``),
    and the caller raises it once the call has wound down.
    """
    if isinstance(exc, KernelError):
        info = ErrorInfo(exc.message, exc.code)
    elif isinstance(exc, BEFFormatError):  # a callee's body, checked when first called
        info = ErrorInfo(f"invalid BEF file: {exc}", ErrorCode.INVALID_ARGUMENT)
    else:
        info = ErrorInfo(f"{type(exc).__name__}: {exc}", ErrorCode.INTERNAL)
        if not isinstance(exc, Exception):
            exec_ctx.request.interrupt(exc)
    exec_ctx.host.emit_error(info, kp.site.decoded_location())
    return AsyncValue(ERROR, info)


def _invoke(kp: KernelPlan, exec_ctx: ExecutionContext, args: list[AsyncValue]) -> list[AsyncValue]:
    """Run one kernel whose operands are all concrete; returns its result values."""
    n = kp.nres
    if kp.sync:
        try:
            if kp.context:
                out = kp.fn(KernelContext(exec_ctx, kp.site), *kp.attrs, *[a.value for a in args])
            else:
                out = kp.fn(*kp.attrs, *[a.value for a in args])
        except BaseException as exc:
            return [_fail(kp, exec_ctx, exc)] * n
        if n == 1:
            return [AsyncValue(CONCRETE, out)]
        if n == 0:
            return []
        if len(out) != n:
            return [_fail(kp, exec_ctx, KernelError(
                f"kernel '{kp.site.name}' returned {len(out)} results, expected {n}"))] * n
        return [AsyncValue(CONCRETE, v) for v in out]
    frame = AsyncKernelFrame(exec_ctx, kp.site, args, kp.attrs, kp.funcs, n)
    try:
        out = kp.fn(frame)
    except BaseException as exc:
        if isinstance(exc, KernelError):
            frame.report_error(exc.message, exc.code)
        elif isinstance(exc, BEFFormatError):  # a callee's body, checked when first called
            frame.report_error(f"invalid BEF file: {exc}", ErrorCode.INVALID_ARGUMENT)
        else:
            frame.report_error(f"{type(exc).__name__}: {exc}")
            if not isinstance(exc, Exception):
                exec_ctx.request.interrupt(exc)
        out = None
    if out is None:
        results = frame.results
        for i, r in enumerate(results):
            if r is None:
                results[i] = _fail(kp, exec_ctx, KernelError(
                    f"kernel '{kp.site.name}' did not set result {i}"))
        # A copy: the caller clears its list as it publishes the results,
        # and a kernel that reports an error later (frame.report_error from
        # a task) must still find the values it allocated in the frame's.
        return list(results)  # type: ignore[arg-type]
    if isinstance(out, AsyncValue) or not isinstance(out, (list, tuple)):
        out = (out,)
    if len(out) != n:
        return [_fail(kp, exec_ctx, KernelError(
            f"kernel '{kp.site.name}' returned {len(out)} results, expected {n}"))] * n
    return [v if isinstance(v, AsyncValue) else AsyncValue(CONCRETE, v) for v in out]


# ---------------------------------------------------------------------------
# The interpreter (TFRT's BEFExecutor).

_tls = threading.local()


class _ReadyQueue:
    __slots__ = ("stream", "inline", "outline")

    def __init__(self, stream: int, inline: list[int] | None = None) -> None:
        self.stream = stream
        self.inline = inline if inline is not None else []
        self.outline: list[int] = []


def _switch_stream(q: _ReadyQueue, kernels: Sequence[Any]) -> None:
    """TFRT's SwitchStreamId: with the inline stack empty, adopt the stream of
    the first outline kernel and move that stream's outline kernels inline."""
    outline = q.outline
    if not outline:
        return
    stream = kernels[outline[0]].stream
    q.stream = stream
    cut = _partition_like_libstdcxx(outline, lambda kid: kernels[kid].stream != stream)
    q.inline = outline[cut:]
    q.outline = outline[:cut]


def _partition_like_libstdcxx(ids: list[int], keep_out: Callable[[int], bool]) -> int:
    """std::partition (bidirectional version): moves ids with keep_out(id) first.

    TFRT partitions its outline list with it, which is not stable; emulating it
    keeps the kernel order TFRT would produce.
    """
    first, last = 0, len(ids)
    while True:
        while True:
            if first == last:
                return first
            if keep_out(ids[first]):
                first += 1
            else:
                break
        last -= 1
        while True:
            if first == last:
                return first
            if not keep_out(ids[last]):
                last -= 1
            else:
                break
        ids[first], ids[last] = ids[last], ids[first]
        first += 1


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
                    out = kp.fn(*kp.attrs, *[x.value for x in args])
                except BaseException as exc:
                    results = [_fail(kp, exec_ctx, exc)] * n
                else:
                    if n == 1:
                        results = [AsyncValue(CONCRETE, out)]
                    elif n == 0:
                        results = ()
                    elif len(out) == n:
                        results = [AsyncValue(CONCRETE, v) for v in out]
                    else:
                        results = [_fail(kp, exec_ctx, KernelError(
                            f"kernel '{kp.site.name}' returned {len(out)} results, expected {n}"))] * n
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


class _TracedExecution(_Execution):
    """The interpreter with a per-kernel trace hook: chosen per call, so tracing off costs nothing."""

    __slots__ = ()

    def _run_kernel(self, kid: int, q: _ReadyQueue) -> None:
        tracer = self.fn.program.tracer
        kp = self.plan.kernels[kid]
        token = tracer.begin(kp.site)
        try:
            _Execution._run_kernel(self, kid, q)
        finally:
            tracer.end(kp.site, token)


# ---------------------------------------------------------------------------
# The compiled straight-line fast path.


class _FastCode:
    """A function compiled to straight-line Python, with what recovery needs.

    Long functions are split into chunks (Python's compiler slows down more
    than linearly on very long functions); registers that live across a
    chunk boundary travel in a list ``X`` owned by the driver function.
    """

    __slots__ = ("func", "chunks", "names")

    def __init__(self, func: Callable[..., tuple], chunks: dict, names: list[str]):
        self.func = func
        # code object -> {line: (position in order, kernel done?)}
        self.chunks = chunks
        # per register: the local name inside chunks ("" when never named)
        self.names = names


class _Cancelled(Exception):
    """Raised by the generated code when a context kernel cancelled the request."""


class _Pending(Exception):
    """Raised by the generated code when an async kernel's results are not all
    concrete (unavailable, or an error it has reported): the kernel has run,
    and ``results`` are its AsyncValues for the interpreter to go on with."""

    def __init__(self, results: list[AsyncValue]) -> None:
        super().__init__()
        self.results = results


def _async_caller(kp: KernelPlan) -> Callable[..., Any]:
    """The fast path's call of async kernel ``kp``: plain values in, plain
    values out while its results come back concrete."""
    n = kp.nres

    def call(exec_ctx: ExecutionContext, *values: Any) -> Any:
        results = _invoke(kp, exec_ctx, [AsyncValue(CONCRETE, v) for v in values])
        for av in results:
            if av.state != CONCRETE:
                raise _Pending(results)
        if n == 1:
            return results[0].value
        if n == 0:
            return None
        return tuple(av.value for av in results)

    return call


def _literal(value: Any) -> str | None:
    """Python source for a constant the generated code can inline, or None."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if type(value) is int or type(value) is str:
        return repr(value)
    if type(value) is float and value == value and value not in (float("inf"), float("-inf")):
        return repr(value)
    return None


FAST_CHUNK = 1000  # kernels per generated function


def _compile_fast(fn: "BEFFunction") -> _FastCode:
    plan = fn.plan
    order = plan.order
    assert order is not None
    kernels = plan.kernels
    nargs = len(fn.arg_types)
    nregs = plan.num_registers
    namespace: dict[str, Any] = {"KernelContext": KernelContext, "_Cancelled": _Cancelled}
    fn_names: dict[int, str] = {}
    returned = set(plan.result_registers)

    # Last position (in `order`) reading each register; -1: never read.
    last_read = [-1] * nregs
    for pos, kid in enumerate(order):
        for r in kernels[kid].args:
            last_read[r] = pos
    # Slot names: a register whose last reader is kernel k hands its local
    # name to k's first result, so `r = add(r, c)` frees the old value right
    # after the kernel returns, as TFRT drops a kernel's operands.
    names = [""] * nregs
    for i in range(nargs):
        names[i] = f"r{i}"
    pending_dead: set[int] = set()

    # A function of at most FAST_CHUNK kernels compiles to one Python function
    # taking the arguments as parameters; longer ones to chunks sharing X.
    single = len(order) <= FAST_CHUNK
    chunks_src: list[tuple[str, list[str], dict[int, tuple[int, bool]]]] = []
    for c0 in range(0, max(len(order), 1), FAST_CHUNK):
        c1 = min(c0 + FAST_CHUNK, len(order))
        chunk_name = f"_chunk{c0 // FAST_CHUNK}"
        if single:
            params = "".join(f", {names[i]}" for i in range(nargs))
            lines = [f"def _fast(ctx{params}):"]
        else:
            lines = [f"def {chunk_name}(ctx, X):"]
        line_pos: dict[int, tuple[int, bool]] = {}
        if any(kernels[k].context or not kernels[k].sync for k in order[c0:c1]):
            lines.append("    rq = ctx.request")
        loaded: set[int] = set()
        defined_here: set[int] = set()
        for pos in range(c0, c1):
            kp = kernels[order[pos]]
            # Live-in registers come out of X (and X lets go of them).
            for r in kp.args:
                if not single and r not in loaded and r not in defined_here:
                    loaded.add(r)
                    lines.append(f"    {names[r]} = X[{r}]; X[{r}] = None")
            call_args = []
            if not kp.sync:  # control flow (FAST_ASYNC_KERNELS): a caller that unwraps
                fname = f"c{kp.kid}"
                namespace[fname] = _async_caller(kp)
                call_args.append("ctx")
            else:
                key = id(kp.fn)
                fname = fn_names.get(key)
                if fname is None:
                    fname = f"k{len(fn_names)}"
                    fn_names[key] = fname
                    namespace[fname] = kp.fn
                if kp.context:
                    site_name = f"s{kp.kid}"
                    namespace[site_name] = kp.site
                    call_args.append(f"KernelContext(ctx, {site_name})")
                for j, a in enumerate(kp.attrs):
                    lit = _literal(a)
                    if lit is None:
                        lit = f"a{kp.kid}_{j}"
                        namespace[lit] = a
                    call_args.append(lit)
            call_args.extend(names[r] for r in kp.args)
            dying = []
            for r in kp.args:
                if last_read[r] == pos and r not in returned and r not in dying:
                    dying.append(r)
            outs = []
            free = [names[r] for r in dying]
            for i, r in enumerate(kp.results):
                if kp.live[i] and free:
                    names[r] = free.pop(0)  # reuse a dying operand's local
                else:
                    names[r] = f"r{r}"
                outs.append(names[r])
                defined_here.add(r)
            call = f"{fname}({', '.join(call_args)})"
            if kp.nres == 0:
                stmt = call
            elif kp.nres == 1:
                stmt = f"{outs[0]} = {call}"
            else:
                stmt = f"{', '.join(outs)}, = {call}"
            lines.append("    " + stmt)
            line_pos[len(lines)] = (pos, False)
            post = []
            dead = list(free)  # dying operands whose local was not reused
            for i, r in enumerate(kp.results):
                if not kp.live[i] and names[r] not in dead:
                    dead.append(names[r])
            if dead:
                post.append(f"del {', '.join(dead)}")
            if kp.context or not kp.sync:
                post.append("if rq.cancel_value is not None: raise _Cancelled")
            for p in post:
                lines.append("    " + p)
                line_pos[len(lines)] = (pos, True)
        if single:
            res = [names[r] for r in plan.result_registers]
            lines.append(f"    return ({', '.join(res)}{',' if len(res) == 1 else ''})")
            chunks_src.append(("_fast", lines, line_pos))
            break
        # Live-out: registers defined or loaded here that later chunks read
        # or the function returns.
        for r in sorted(defined_here | loaded):
            if last_read[r] >= c1 or r in returned:
                lines.append(f"    X[{r}] = {names[r]}")
        lines.append("    return")
        chunks_src.append((chunk_name, lines, line_pos))

    label = f"{fn.name or 'anonymous'}#{fn.index}"
    chunks: dict[Any, dict[int, tuple[int, bool]]] = {}
    for chunk_name, lines, line_pos in chunks_src:
        source = "\n".join(lines) + "\n"
        exec(compile(source, f"<tfrt fast path: {label} {chunk_name}>", "exec"), namespace)
        chunks[namespace[chunk_name].__code__] = line_pos
    if not single:
        driver = ["def _fast(ctx, *args):", f"    X = list(args) + [None] * {nregs - nargs}"]
        for chunk_name, _, _ in chunks_src:
            driver.append(f"    {chunk_name}(ctx, X)")
        res = [f"X[{r}]" for r in plan.result_registers]
        driver.append(f"    return ({', '.join(res)}{',' if len(res) == 1 else ''})")
        exec(compile("\n".join(driver) + "\n", f"<tfrt fast path: {label}>", "exec"), namespace)
    return _FastCode(namespace["_fast"], chunks, names)


def _recover(
    fn: "BEFFunction",
    fast: _FastCode,
    exec_ctx: ExecutionContext,
    exc: BaseException,
    args: Sequence[Any],
) -> list[AsyncValue]:
    """Finish a fast-path call that raised: find where, then interpret the rest.

    The compiled code runs kernels in the order the interpreter would, all
    inline, so the interpreter's state at the failing kernel is known: the
    registers are the frame's live locals, the ready counters and the ready
    queue come from replaying the schedule (_replay).  The interpreter takes
    over from there as if it had run the function from the start: the failed
    kernel's results are published, and every kernel ready on the current
    stream runs before this returns, as in TFRT; kernels waiting for an
    unavailable result resume when it resolves.
    """
    tb = exc.__traceback__
    frame = None
    lineno = 0
    line_pos: dict[int, tuple[int, bool]] | None = None
    while tb is not None:
        lp = fast.chunks.get(tb.tb_frame.f_code)
        if lp is not None:
            frame = tb.tb_frame
            lineno = tb.tb_lineno
            line_pos = lp
        tb = tb.tb_next
    if frame is None or line_pos is None or lineno not in line_pos:
        raise exc  # not a kernel failure: a bug in the fast path itself
    pos, done = line_pos[lineno]
    plan = fn.plan
    order = plan.order
    f_locals = frame.f_locals
    X = f_locals.get("X", ())
    regs: list[AsyncValue | None] = [None] * plan.num_registers
    for r, v in enumerate(X):
        if v is not None:
            regs[r] = AsyncValue(CONCRETE, v)
    # Locals of the failing chunk: the registers whose current name they hold.
    owner = _local_owners(fn, order, pos, done)
    for name, r in owner.items():
        if name in f_locals and name != "X":
            regs[r] = AsyncValue(CONCRETE, f_locals[name])
    del frame, f_locals, tb, X
    exc.__traceback__ = None
    kp = plan.kernels[order[pos]]
    if done:  # it ran and returned; a check after it raised (cancellation)
        results = [regs[r] for r in kp.results]
    elif isinstance(exc, _Pending):  # an async kernel ran; its results are not all concrete
        results = exc.results
        exc.results = None
    else:
        results = [_fail(kp, exec_ctx, exc)] * kp.nres
    del exc
    for r in kp.results:
        regs[r] = None  # published below, as the interpreter publishes them
    kuses = _uses_after(plan, pos)
    _release_dead(regs, kuses, plan)
    # What the caller gets: values already computed, placeholders for the
    # rest (forwarded when their kernels run, as in prebind_results).
    out = []
    for r in plan.result_registers:
        v = regs[r]
        if v is None:
            v = regs[r] = IndirectAsyncValue()
        out.append(v)
    counts, q = _resume_state(plan, pos)
    ex = _Execution.resume(fn, exec_ctx, regs, kuses, counts, len(order) - pos - 1)
    ex.results = [v for v in out if not v.state]
    live = kp.live
    used_by = kp.used_by
    for i, r in enumerate(kp.results):
        if live[i]:
            ex._publish(used_by[i], results[i], r, q)
        results[i] = None  # type: ignore[call-overload]  # a result nobody uses dies now
    del results
    ex._process(q)
    return out


def _local_owners(fn: "BEFFunction", order: tuple[int, ...], pos: int, done: bool) -> dict[str, int]:
    """Which register each local name holds when kernel ``pos`` runs (names are reused)."""
    plan = fn.plan
    kernels = plan.kernels
    names = fn._fast.names  # type: ignore[union-attr]
    chunk_start = pos - pos % FAST_CHUNK
    owners: dict[str, int] = {}
    if len(order) <= FAST_CHUNK:  # one function: the arguments are parameters
        for i in range(len(fn.arg_types)):
            owners[names[i]] = i
    # Replay the naming of _compile_fast up to `pos` within the chunk.
    for p in range(chunk_start, pos + 1):
        kp = kernels[order[p]]
        for r in kp.args:
            owners[names[r]] = r
        if p < pos or done:
            for r in kp.results:
                owners[names[r]] = r
    return owners


def _uses_after(plan: FunctionPlan, pos: int) -> list[int]:
    kuses = list(plan.kernel_uses)
    for kid in plan.order[: pos + 1]:
        for r in plan.kernels[kid].args:
            kuses[r] -= 1
    return kuses


def _release_dead(regs: list, kuses: list[int], plan: FunctionPlan) -> None:
    returned = set(plan.result_registers)
    for r in range(len(regs)):
        if kuses[r] <= 0 and r not in returned:
            regs[r] = None


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


# ---------------------------------------------------------------------------
# The column path: a function's first calls, straight from the file's columns.
#
# A function whose kernels are all synchronous, take no context and sit on
# the call's (root) stream runs its first calls here, before the fast path is
# compiled: numpy turns the body's columns into a few Python lists, in
# execution order, and one loop calls the kernels on plain values.  Nothing
# per kernel is built beyond those lists.  A kernel that raises hands the
# rest of the call to the interpreter's rules (_finish_in_order): every
# other kernel is synchronous, so all of them run before the call returns.

_K_NONE, _K_ONE, _K_TWO, _K_ATTR, _K_GENERAL = 0, 1, 2, 3, 4
_FREE_X, _FREE_Y, _DEAD = 1, 2, 4


class _ColumnPlan:
    # One list per step field, in execution order: the kind of call, the
    # kernel, operand x (or the attribute, or a general step's spec), operand
    # y, the result register, and what dies after the call (_FREE_X ...).
    __slots__ = ("kinds", "fns", "xs", "ys", "rs", "ds", "num_registers", "returns")

    def run(self, exec_ctx: ExecutionContext, fn: "BEFFunction", values: Sequence[Any]) -> Any:
        """Plain values in; a tuple of plain values out, or a list of
        AsyncValues when a kernel failed (the rest ran by the interpreter's rules)."""
        regs: list[Any] = [None] * self.num_registers
        regs[: len(values)] = values
        v = None
        kind = x = r = None
        try:
            for kind, f, x, y, r, d in zip(self.kinds, self.fns, self.xs, self.ys, self.rs, self.ds):
                if kind == 2:
                    v = f(regs[x], regs[y])
                elif kind == 1:
                    v = f(regs[x])
                elif kind == 3:
                    v = f(x)
                elif kind == 0:
                    v = f()
                else:
                    v = None  # the last result is in regs: drop this reference
                    _general_step(regs, f, x)
                    continue
                if d:
                    if d == 1:  # the common case: the first operand's last use
                        regs[x] = None
                    else:
                        if d & 1:
                            regs[x] = None
                        if d & 2:
                            regs[y] = None
                        if d & 4:
                            v = None  # a result nobody uses dies now
                            continue
                regs[r] = v
        except BaseException as exc:
            v = None  # regs holds every value the rest of the call needs
            return _recover_columns(fn, exec_ctx, regs, self._position(kind, x, r), exc)
        return tuple([regs[r] for r in self.returns])

    def _position(self, kind: int, x: Any, r: int) -> int:
        """Which step failed, from its locals: a general step's spec is its
        own object, and the other kinds have one result, so their result
        register is theirs alone."""
        kinds, xs, rs = self.kinds, self.xs, self.rs
        for p in range(len(kinds)):
            if kind == _K_GENERAL:
                if kinds[p] == _K_GENERAL and xs[p] is x:
                    return p
            elif kinds[p] != _K_GENERAL and rs[p] == r:
                return p
        raise AssertionError("a failed step that is not in the plan")


def _general_step(regs: list, f: Callable[..., Any], spec: tuple) -> None:
    attrs, args, results, free, dead = spec
    out = f(*attrs, *[regs[a] for a in args])
    n = len(results)
    if n > 1 and len(out) != n:
        raise _ArityError(len(out), n)
    for a in free:
        regs[a] = None
    if n == 1:
        if not dead[0]:
            regs[results[0]] = out
        return
    if n == 0:
        return
    for r, v, gone in zip(results, out, dead):
        if not gone:
            regs[r] = v


class _ArityError(Exception):
    def __init__(self, got: int, expected: int) -> None:
        super().__init__(got, expected)
        self.got = got
        self.expected = expected


def _column_plan(func: "BEFFunction") -> _ColumnPlan | None:
    """The column plan of ``func``, or None when it does not qualify."""
    program = func.program
    cols = func.bef_function.columns
    if cols is None or program.tracer:
        return None
    n = len(cols)
    table = program._kernel_table()
    simple = table.simple
    if n and not simple[cols.code].all():
        return None
    if n and (cols.stream.min() != cols.stream.max() or int(cols.stream[0]) != cols.root_stream):
        return None  # kernels off the call's stream are enqueued: the interpreter's order
    nregs = cols.num_registers
    order = cols.order.astype(np.int64)
    na = cols.num_args.astype(np.int64)[order]
    nt = cols.num_attrs.astype(np.int64)[order]
    nr = cols.num_results.astype(np.int64)[order]
    codes = cols.code[order]
    binding = table.binds[codes] if n else np.zeros(0, bool)
    fns = table.fns[codes].tolist()
    decode = None
    if binding.any():
        # Binding kernels get their attributes now and take only operands.
        decode = _attribute_decoder(program, table, cols, order, codes, nt)
        for p in np.nonzero(binding)[0].tolist():
            values = decode(p)
            if values is None:
                return None  # a bad attribute: the full plan reports it
            fns[p] = table.kdefs[codes[p]].bind(values)
        nt = np.where(binding, 0, nt)
    a0 = cols.arg_start[order]
    args = cols.args.astype(np.int64)
    rb = cols.result_base[order]
    returned = np.zeros(nregs + 1, bool)
    returns = cols.returns.astype(np.int64)
    returned[returns] = True
    # Per operand use: its position in execution order; the last use of a
    # register that the function does not return frees it.
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    use_pos = np.repeat(rank, cols.num_args.astype(np.int64))
    last = np.full(nregs + 1, -1, np.int64)
    np.maximum.at(last, args, use_pos)
    free = (use_pos == last[args]) & ~returned[args]
    has_use = last >= 0
    # Operand x and y of each kernel (in execution order), where it has them.
    xi = np.where(na >= 1, a0, 0)
    yi = np.where(na >= 2, a0 + 1, 0)
    pad = len(args) == 0
    x = args[xi] if not pad else np.zeros(n, np.int64)
    y = args[yi] if not pad else np.zeros(n, np.int64)
    fx = free[xi] & (na >= 1) if not pad else np.zeros(n, bool)
    fy = free[yi] & (na >= 2) if not pad else np.zeros(n, bool)
    dead = ~has_use[rb] & ~returned[rb]
    d = fx * _FREE_X + fy * _FREE_Y + dead * _DEAD
    kind = np.full(n, _K_GENERAL, np.int64)
    one = nr == 1
    kind[one & (nt == 0) & (na == 0)] = _K_NONE
    kind[one & (nt == 0) & (na == 1)] = _K_ONE
    kind[one & (nt == 0) & (na == 2)] = _K_TWO
    kind[one & (nt == 1) & (na == 0)] = _K_ATTR
    # A kernel that uses one register twice frees it once.
    d = np.where((kind == _K_TWO) & (x == y), d & ~_FREE_Y, d)
    xs = x.tolist()
    kinds = kind.tolist()
    special = np.nonzero(kind >= _K_ATTR)[0].tolist()
    if special:
        decode = decode or _attribute_decoder(program, table, cols, order, codes, nt)
        free_l = free.tolist()
        args_l = args.tolist()
        has_use_l = has_use.tolist()
        returned_l = returned.tolist()
        for p in special:
            values = () if binding[p] else decode(p)  # bound: the attributes are applied
            if values is None:
                return None  # a bad attribute: the full plan reports it
            if kinds[p] == _K_ATTR:
                xs[p] = values[0]
                continue
            s = int(a0[p])
            k_args = tuple(args_l[s : s + int(na[p])])
            # Operands die in the order of their last use in the operand
            # list, as the interpreter drops a kernel's operands.
            last_use = {a: i for i, a in enumerate(k_args) if free_l[s + i]}
            k_free = sorted(last_use, key=last_use.__getitem__)
            base = int(rb[p])
            results = tuple(range(base, base + int(nr[p])))
            k_dead = tuple(not has_use_l[r] and not returned_l[r] for r in results)
            xs[p] = (values, k_args, results, tuple(k_free), k_dead)
    plan = _ColumnPlan()
    plan.kinds, plan.fns, plan.xs, plan.ys, plan.rs, plan.ds = kinds, fns, xs, y.tolist(), rb.tolist(), d.tolist()
    plan.num_registers = nregs
    plan.returns = returns.tolist()
    return plan


def _attribute_decoder(program: "BEFProgram", table: "_KernelTable", cols: Any, order: np.ndarray,
                       codes: np.ndarray, nt: np.ndarray) -> Callable[[int], tuple | None]:  # fmt: skip
    """``decode(p)``: the attributes of the kernel at execution position ``p``
    (None when one cannot be decoded)."""
    names = program.bef.kernel_names
    starts = cols.attr_start[order].tolist()
    counts = nt.tolist()
    attrs = cols.attrs.tolist()
    codes_l = codes.tolist()

    def decode(p: int) -> tuple | None:
        code, s = codes_l[p], starts[p]
        return program._attribute_values(table.kdefs[code], names[code], attrs[s : s + counts[p]])

    return decode


def _recover_columns(fn: "BEFFunction", exec_ctx: ExecutionContext, values: list, pos: int,
                     exc: BaseException) -> list[AsyncValue]:  # fmt: skip
    """Finish a column-path call whose kernel at ``pos`` (execution order) raised."""
    plan = fn.plan
    cols = fn.bef_function.columns
    order = [k + 1 for k in cols.order.tolist()]
    kp = plan.kernels[order[pos]]
    exc.__traceback__ = None  # the failed kernel's frame lets go of its values now
    if isinstance(exc, _ArityError):
        exc = KernelError(f"kernel '{kp.site.name}' returned {exc.got} results, expected {exc.expected}")
    kuses = list(plan.kernel_uses)
    for kid in order[: pos + 1]:
        for r in plan.kernels[kid].args:
            kuses[r] -= 1
    returned = set(plan.result_registers)
    regs: list[AsyncValue | None] = [None] * plan.num_registers
    defined = list(range(cols.num_args_fn))
    for kid in order[:pos]:
        defined.extend(plan.kernels[kid].results)
    for r in defined:
        if kuses[r] > 0 or r in returned:
            regs[r] = AsyncValue(CONCRETE, values[r])
    values.clear()
    err = _fail(kp, exec_ctx, exc)
    del exc
    for i, r in enumerate(kp.results):
        regs[r] = err if kp.live[i] else None
    _release_dead(regs, kuses, plan)
    return _finish_in_order(plan, exec_ctx, regs, kuses, order[pos + 1 :])


def _finish_in_order(plan: FunctionPlan, exec_ctx: ExecutionContext, regs: list, kuses: list[int],
                     todo: Sequence[int]) -> list[AsyncValue]:  # fmt: skip
    """Run the kernels ``todo`` of a function whose kernels are all
    synchronous and on the call's stream, by the interpreter's rules: every
    operand is available (an error skips the kernel), operands die after
    their last use and unused results at once."""
    kernels = plan.kernels
    returned = set(plan.result_registers)
    request = exec_ctx.request
    for kid in todo:
        kp = kernels[kid]
        args = [regs[r] for r in kp.args]
        for r in kp.args:
            u = kuses[r] - 1
            kuses[r] = u
            if not u and r not in returned:
                regs[r] = None
        err = request.cancel_value
        for i in range(len(args)):
            if args[i].state == ERROR:
                err = args[i]
        results = _invoke(kp, exec_ctx, args) if err is None else [err] * kp.nres
        args.reverse()  # operands die in order
        args = None
        live = kp.live
        for i, r in enumerate(kp.results):
            regs[r] = results[i] if live[i] else None
            results[i] = None  # a result nobody uses dies now
    return [regs[r] for r in plan.result_registers]


def _without_gc(build: Callable[..., Any], *args: Any) -> Any:
    """Run ``build`` with the cyclic GC paused: plans are many small objects
    and no cycles, and a collection pass over them every few hundred
    allocations would cost more than building them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return build(*args)
    finally:
        if enabled:
            gc.enable()


class _KernelTable:
    """Per kernel code of a program: its definition, function and whether the
    column path may call it (sync, no context)."""

    __slots__ = ("kdefs", "fns", "simple", "binds")

    def __init__(self, program: "BEFProgram") -> None:
        registry = program.host.registry
        self.kdefs = [registry.get(name) for name in program.bef.kernel_names]
        self.fns = np.empty(len(self.kdefs), object)
        self.fns[:] = [kd.fn if kd is not None else None for kd in self.kdefs]
        self.simple = np.array(
            [kd is not None and kd.is_sync and not kd.context for kd in self.kdefs], bool
        )
        self.binds = np.array([kd is not None and kd.binds for kd in self.kdefs], bool)


# ---------------------------------------------------------------------------
# Functions.


class BEFFunction:
    """A BEF function of a loaded program (TFRT's ``BEFFunction``)."""

    def __init__(self, program: "BEFProgram", fn: bp.Function) -> None:
        self.program = program
        self.index = fn.index
        self.name = fn.name
        self.kind = fn.kind
        self.arg_types = tuple(fn.arg_types)
        self.result_types = tuple(fn.result_types)
        self.bef_function = fn
        self._plan: FunctionPlan | None = None
        self._columns: _ColumnPlan | None | bool = False  # False: not looked at yet
        self._fast: _FastCode | None = None
        self._calls = 0
        # For a region (no name): the function it belongs to, once known.
        self.owner: str | None = None

    def describe(self) -> str:
        """``function 'f'``, or ``a region of function 'f'`` for a branch or loop body."""
        if self.name:
            return f"function '{self.name}'"
        if self.owner:
            return f"a region of function '{self.owner}'"
        return "a region"

    @property
    def plan(self) -> FunctionPlan:
        """The interpreter's plan, built (and the body checked) when first needed."""
        plan = self._plan
        if plan is None:
            plan = self._plan = _without_gc(_build_plan, self.bef_function, self.program)
        return plan

    def prepare(self) -> None:
        """Check the body and build what the first call needs (done by the
        first call otherwise).  Raises BEFFormatError for a malformed body."""
        if self.kind == bp.SYNC_FUNCTION or self._column_plan() is None:
            self.plan  # noqa: B018

    def _column_plan(self) -> _ColumnPlan | None:
        cp = self._columns
        if cp is False:
            cp = self._columns = _without_gc(_column_plan, self)
        return cp  # type: ignore[return-value]

    @property
    def num_arguments(self) -> int:
        return len(self.arg_types)

    @property
    def num_results(self) -> int:
        return len(self.result_types)

    def __repr__(self) -> str:
        return f"BEFFunction({self.name!r}, {self.arg_types} -> {self.result_types})"

    # -- execution ------------------------------------------------------------
    def execute(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """Run the function; returns one AsyncValue per result, possibly unavailable.

        ``exec_ctx`` is the caller's context; the function's kernels run one
        level deeper (``exec_ctx.nested()``).  Every ``call_hop()``-th level
        starts on the work queue instead of inline (see ``_deep``).
        """
        if len(args) != len(self.arg_types):
            raise TypeError(
                f"function '{self.name}' takes {len(self.arg_types)} arguments, got {len(args)}"
            )
        ctx = exec_ctx._nested or exec_ctx.nested()
        if ctx.deep:
            return self._deep(ctx, args)
        if self.kind == bp.SYNC_FUNCTION:
            return _run_in_order(self, ctx, args)
        fast = self._fast_code()
        if fast is not None and ctx.request.cancel_value is None:
            for a in args:
                if a.state != CONCRETE:
                    break
            else:
                vals = [a.value for a in args]
                try:
                    out = fast.func(ctx, *vals)
                except BaseException as exc:
                    return _recover(self, fast, ctx, exc, vals)
                return [AsyncValue(CONCRETE, v) for v in out]
        elif fast is None and ctx.request.cancel_value is None:
            cp = self._column_plan()
            if cp is not None:
                for a in args:
                    if a.state != CONCRETE:
                        break
                else:
                    out = cp.run(ctx, self, [a.value for a in args])
                    if type(out) is tuple:
                        return [AsyncValue(CONCRETE, v) for v in out]
                    return out
        ex = _TracedExecution(self, ctx) if self.program.tracer else _Execution(self, ctx)
        results = ex.prebind_results()
        ex.run(args)
        return results

    def _deep(self, ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """A call at a depth that is a multiple of ``call_hop()``, or beyond the limit.

        Nested calls nest Python frames (a dozen per level), so recursion
        through ``tfrt.call`` would end in a RecursionError, or worse.  At
        every ``call_hop()``-th level (the recursion limit / 25) the function
        starts in a work-queue task instead: that task runs from the queue's
        loop, on a shallow stack, and the caller gets placeholders for the
        results (as TFRT enqueues a continuation that nests too deep).  So
        recursion of any depth runs, on every queue, with its memory growing
        with the depth and its stack bounded.  Past
        ``HostContext.max_call_depth`` the call returns an error naming the
        function and the depth (a function that recurses without end ends
        there, the same on every queue).  A ``tfrt.sync`` function is not
        deferred: it runs in order, inline.
        """
        depth = ctx.depth
        limit = ctx.host.max_call_depth
        if depth > limit:
            info = ErrorInfo(
                f"{self.describe()} called at depth {depth}, past the maximum call depth "
                f"{limit} (HostContext.max_call_depth)",
                ErrorCode.RESOURCE_EXHAUSTED,
            )
            return [AsyncValue(ERROR, info)] * len(self.result_types)
        if self.kind == bp.SYNC_FUNCTION:
            return _run_in_order(self, ctx, args)
        return self._start_later(ctx, args)

    def _start_later(self, ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """Run the function (at ``ctx``'s depth) from a work-queue task; placeholders now."""
        ex = _TracedExecution(self, ctx) if self.program.tracer else _Execution(self, ctx)
        results = ex.prebind_results()
        args = list(args)
        ctx.host.enqueue_task(lambda: ex.run(args))
        return results

    def execute_async(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """Start the function in a work-queue task; results are placeholders (TFRT's ExecuteAsync)."""
        ctx = exec_ctx._nested or exec_ctx.nested()
        if ctx.depth > ctx.host.max_call_depth:
            return self._deep(ctx, args)
        return self._start_later(ctx, args)

    def call_values(self, exec_ctx: ExecutionContext, values: Sequence[Any]) -> list[AsyncValue] | tuple:
        """Run with plain argument values.

        Returns a tuple of plain values when the compiled path ran without an
        error, else a list of AsyncValues (the caller awaits and unwraps).
        """
        return self.call_values_in(exec_ctx._nested or exec_ctx.nested(), values)

    def call_values_in(self, ctx: ExecutionContext, values: Sequence[Any]) -> list[AsyncValue] | tuple:
        """:meth:`call_values` given the context the function's own kernels run
        in (the caller's ``exec_ctx.nested()``), for callers that make it once:
        a loop calling its body, ``Program.call``."""
        if ctx.deep:
            return self._deep(ctx, [AsyncValue(CONCRETE, v) for v in values])
        fast = self._fast  # only ever set for functions that are not SYNC_FUNCTIONs
        if fast is None:
            if self.kind == bp.SYNC_FUNCTION:
                return _run_in_order(self, ctx, [AsyncValue(CONCRETE, v) for v in values])
            fast = self._fast_code()
        if fast is not None and ctx.request.cancel_value is None:
            try:
                return fast.func(ctx, *values)
            except BaseException as exc:
                return _recover(self, fast, ctx, exc, values)
        if fast is None and ctx.request.cancel_value is None:
            cp = self._column_plan()
            if cp is not None:
                return cp.run(ctx, self, values)
        ex = _TracedExecution(self, ctx) if self.program.tracer else _Execution(self, ctx)
        results = ex.prebind_results()
        ex.run([AsyncValue(CONCRETE, v) for v in values])
        return results

    def _fast_code(self) -> _FastCode | None:
        fast = self._fast
        if fast is not None:
            return fast
        if self.program.tracer:
            return None
        self._calls += 1
        if self._calls < self.program.jit_threshold or self._calls < 0:
            return None
        if self.plan.order is None:
            self._calls = -(1 << 62)  # never qualifies: stop counting
            return None
        self._fast = _compile_fast(self)
        return self._fast

    def compile(self) -> bool:
        """Compile the fast path now (if the function qualifies); returns whether it did."""
        if self.plan.order is None:
            return False
        if self._fast is None:
            self._fast = _compile_fast(self)
        return True


class NativeFunction:
    """A ``{tfrt.native}`` function: a registered Python callable (TFRT's NativeFunction)."""

    def __init__(self, program: "BEFProgram", fn: bp.Function, impl: Callable[..., Any]) -> None:
        self.program = program
        self.index = fn.index
        self.name = fn.name
        self.kind = fn.kind
        self.arg_types = tuple(fn.arg_types)
        self.result_types = tuple(fn.result_types)
        self.impl = impl
        self.plan = None

    @property
    def num_arguments(self) -> int:
        return len(self.arg_types)

    @property
    def num_results(self) -> int:
        return len(self.result_types)

    def __repr__(self) -> str:
        return f"NativeFunction({self.name!r})"

    def _call(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        n = len(self.result_types)
        try:
            out = self.impl(list(args), n, exec_ctx.host)
        except KernelError as exc:
            return [AsyncValue(ERROR, ErrorInfo(exc.message, exc.code))] * n
        except BaseException as exc:  # errors are values, whatever raised them
            if not isinstance(exc, Exception):
                exec_ctx.request.interrupt(exc)
            return [AsyncValue(ERROR, ErrorInfo(f"{type(exc).__name__}: {exc}"))] * n
        out = list(out or ())
        if len(out) != n:
            err = ErrorInfo(f"native function '{self.name}' returned {len(out)} results, expected {n}")
            return [AsyncValue(ERROR, err)] * n
        return [v if isinstance(v, AsyncValue) else AsyncValue(CONCRETE, v) for v in out]

    def execute(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        pending = [a for a in args if not a.state]
        if not pending:
            return self._call(exec_ctx, args)
        results = [IndirectAsyncValue() for _ in self.result_types]
        from tfrt.async_value import run_when_ready

        def go() -> None:
            for ind, v in zip(results, self._call(exec_ctx, args)):
                ind.forward_to(v)

        run_when_ready(pending, go)
        return results  # type: ignore[return-value]

    def execute_async(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        results = [IndirectAsyncValue() for _ in self.result_types]

        def go() -> None:
            for ind, v in zip(results, self.execute(exec_ctx, args)):
                ind.forward_to(v)

        exec_ctx.host.enqueue_task(go)
        return results  # type: ignore[return-value]

    def call_values(self, exec_ctx: ExecutionContext, values: Sequence[Any]) -> list[AsyncValue]:
        return self.execute(exec_ctx, [AsyncValue(CONCRETE, v) for v in values])

    call_values_in = call_values  # a native function does not nest


# ---------------------------------------------------------------------------
# Programs.


class BEFProgram:
    """A loaded BEF file: its functions, ready to run on a host."""

    def __init__(self, bef: bp.BefFile, host: HostContext, *, jit_threshold: int = DEFAULT_JIT_THRESHOLD) -> None:
        self.bef = bef
        self.host = host
        self.jit_threshold = jit_threshold
        self.tracer: Any = None  # set by tfrt.tracing to trace every kernel
        self.functions: list[BEFFunction | NativeFunction] = []
        self._by_name: dict[str, BEFFunction | NativeFunction] = {}
        self._kernels: _KernelTable | None = None

    def _kernel_table(self) -> _KernelTable:
        table = self._kernels
        if table is None:
            table = self._kernels = _KernelTable(self)
        return table

    @classmethod
    def load(
        cls, bef: bp.BefFile, host: HostContext, *, jit_threshold: int = DEFAULT_JIT_THRESHOLD
    ) -> "BEFProgram":
        """Resolve kernels and native functions.  Each function's body is
        checked and planned when it is first called (``BEFFunction.prepare``
        does it ahead of time).

        Problems are reported to ``host.diag_handler`` (an unknown kernel at
        the location of the first op that uses it) and raise ProgramLoadError.
        """
        prog = cls(bef, host, jit_threshold=jit_threshold)
        prog._check_kernel_names()
        registry = host.registry
        for f in bef.functions:
            if f.kind == bp.NATIVE_FUNCTION:
                ndef = registry.get_native(f.name)
                if ndef is None:
                    # TFRT's loader wording, plus the name it leaves out.
                    prog._load_error(
                        "invalid FunctionIndex section in BEF file: unable to find native "
                        f"function in global registry: '{f.name}'"
                    )
                obj: BEFFunction | NativeFunction = NativeFunction(prog, f, ndef.fn)
            else:
                obj = BEFFunction(prog, f)
            prog.functions.append(obj)
            if f.name:
                prog._by_name[f.name] = obj
        return prog

    def function(self, name: str) -> BEFFunction | NativeFunction | None:
        return self._by_name.get(name)

    def _load_error(self, message: str, location: bp.Location | None = None) -> None:
        self.host.emit_error(ErrorInfo(message), location)
        raise ProgramLoadError(message)

    def _check_kernel_names(self) -> None:
        registry = self.host.registry
        for code, name in enumerate(self.bef.kernel_names):
            if name not in registry:
                self._load_error(f"unknown kernel name '{name}'", self._first_use(code, name))

    def _first_use(self, code: int, name: str) -> bp.Location | None:
        """The location of the first kernel ``code`` of the file (None when
        no body that can be read uses it).

        Only a load that fails looks: bodies are searched through their
        columns, and a body that is itself malformed is passed over (it is
        reported when its function is called, or by ``--verify_all``).
        """
        for f in self.bef.functions:
            if f.kind == bp.NATIVE_FUNCTION:
                continue
            try:
                cols = f.columns
            except BEFFormatError:
                continue
            if cols is None:  # a function built in memory
                for k in f.kernels:
                    if k.name == name:
                        return KernelSite(name, k.location, self).decoded_location()
                continue
            hits = np.flatnonzero(cols.code == code)
            if len(hits):
                return KernelSite(name, int(cols.locations[hits[0]]), self).decoded_location()
        return None

    def _make_kernel_plan(
        self, plan: FunctionPlan, kid: int, name: str, location: int, args: tuple[int, ...],
        attrs: tuple[int, ...], funcs: tuple[int, ...], results: tuple[int, ...],
        used_by: tuple[tuple[int, ...], ...], _num_operands: int, stream: int,
    ) -> KernelPlan:  # fmt: skip
        kdef: KernelDef | None = self.host.registry.get(name)
        site = KernelSite(name, location, self)
        if kdef is None:  # a name outside the Kernels section: the reader let it through
            self._load_error(f"unknown kernel name '{name}'", site.decoded_location())
        kp = KernelPlan()
        kp.kid = kid
        kp.site = site
        kp.kdef = kdef
        kp.fn = kdef.fn
        kp.sync = kdef.is_sync
        kp.context = kdef.context
        kp.simple = kp.sync and not kp.context
        kp.attrs = self._decode_attrs(kdef, name, attrs, site) if attrs else ()
        if kdef.binds:
            kp.fn = kdef.bind(kp.attrs)
            kp.attrs = ()
        try:
            kp.funcs = tuple([self.functions[i] for i in funcs])
        except IndexError:
            self._load_error(f"kernel '{name}' refers to a function that does not exist",
                             site.decoded_location())
        kp.args = args
        kp.results = results
        kp.used_by = used_by
        uses = plan.register_uses
        kp.live = tuple([uses[r] > 0 for r in results])
        kp.stream = stream
        kp.nres = len(results)
        return kp

    def _decode_attrs(self, kdef: KernelDef, name: str, offsets: tuple[int, ...], site: KernelSite) -> tuple[Any, ...]:
        try:
            return self._attr_values(kdef, offsets)
        except _AttributeProblem as problem:
            self._load_error(f"kernel '{name}': {problem}", site.decoded_location())
            raise  # not reached: _load_error raises

    def _attribute_values(self, kdef: KernelDef, name: str, offsets: Sequence[int]) -> tuple[Any, ...] | None:
        """The decoded attributes, or None when one cannot be decoded (the
        full plan then reports it)."""
        try:
            return self._attr_values(kdef, offsets)
        except _AttributeProblem:
            return None

    def _attr_values(self, kdef: KernelDef, offsets: Sequence[int]) -> tuple[Any, ...]:
        declared = kdef.attr_codes
        recorded = self.bef.attribute_types
        values = []
        for i, off in enumerate(offsets):
            code = declared[i] if declared is not None and i < len(declared) else None
            if code is None and recorded is not None:
                code = recorded.get(off)
            if code is None:
                raise _AttributeProblem(
                    f"attribute {i} has no recorded type "
                    "(the BEF file has no AttributeTypes section and the kernel does not "
                    "declare the attribute's kind)"
                )
            try:
                values.append(self.bef.attribute(off, code))
            except Exception as exc:
                raise _AttributeProblem(f"cannot decode attribute {i}: {exc}") from None
        return tuple(values)


class _AttributeProblem(Exception):
    pass


def set_recursion_limit(limit: int = 20000) -> None:
    """Room for nested function executions on the Python stack: ``call_hop()``
    levels (800 with this limit) nest inline before a call starts from the
    work queue on a fresh stack."""
    if sys.getrecursionlimit() < limit:
        sys.setrecursionlimit(limit)
    _call_hop[0] = call_hop()
