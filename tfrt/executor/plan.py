"""The shared plan: what every execution path knows about a function, and how a kernel is called.

Runs once per function, when it is first called through the interpreter
(``BEFFunction.plan``): :func:`_build_plan` turns the body's columns into a
:class:`FunctionPlan` of :class:`KernelPlan` records (the kernel's
implementation looked up once, attributes decoded once, operand and result
registers, used-by lists, ready counts, register use counts, its stream).
Every other module reads this plan: the interpreter (``interpreter.py``)
schedules kernels from it, the compiled path (``compiled.py``) generates
code from it and its replayed order (:func:`_replay`), recovery
(``recovery.py``) rebuilds the interpreter's state from it, and the column
path (``columns.py``) uses it only when a kernel fails.  A kernel is called
in exactly one way, :func:`_invoke` (with :func:`_fail` turning what it
raises into an error value at its location), whichever path calls it.

Imports nothing else of the package.
"""

from __future__ import annotations

import gc
import threading
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from tfrt.async_value import CONCRETE, ERROR, AsyncValue, ErrorCode, ErrorInfo
from tfrt.bef import program as bp
from tfrt.bef.reader import BEFFormatError
from tfrt.host_context import ExecutionContext
from tfrt.kernels.registry import AsyncKernelFrame, KernelContext, KernelError

if TYPE_CHECKING:
    from tfrt.executor.program import BEFProgram


MAX_CONTINUATION_DEPTH = 100  # TFRT's kMaxStackDepth for and_then continuations


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


class KernelPlan:
    """Everything the executor needs about one kernel, decoded once."""

    __slots__ = (
        "kid",  # kernel-table index (1-based; 0 is the pseudo kernel)
        "_site",  # a KernelSite, or (name, location, program) until first asked for
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

    @property
    def site(self) -> KernelSite:
        """The kernel's identity for diagnostics (made when first asked for:
        most kernels never need one)."""
        s = self._site
        if type(s) is tuple:
            s = self._site = KernelSite(*s)
        return s

    @site.setter
    def site(self, value: KernelSite) -> None:
        self._site = value

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
        "_order",  # the kernel order when every value is available (fast path); see order
        "replays",  # position in order -> the interpreter's state there (_resume_state)
    )

    @property
    def order(self) -> tuple[int, ...] | None:
        """The order the whole function runs in, inline, when every value is
        available (None: it does not run whole inline); replayed when the
        compiled path or recovery first asks, not when the plan is built."""
        order = self._order
        if order is _NOT_YET:
            order = self._order = _replay(self)
        return order

    @order.setter
    def order(self, value: tuple[int, ...] | None) -> None:
        self._order = value


_NOT_YET: Any = object()


def _build_plan(fn: bp.Function, program: "BEFProgram") -> FunctionPlan:
    plan = FunctionPlan()
    cols = fn.columns
    if cols is not None:  # straight from the body's columns: no Kernel objects
        return _plan_from_columns(plan, fn, cols, program)
    if True:  # a function built in memory (tests, benchmarks)
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
    _name_regions(program, fn, kernels)
    plan.order = _NOT_YET if fast_ok else None
    plan.replays = {}
    return plan


def _name_regions(program: "BEFProgram", fn: bp.Function, kernels: list) -> None:
    """Name the regions this function runs after it, for messages (a region
    is an anonymous function: a branch or a loop body)."""
    this = program.functions[fn.index] if fn.index < len(program.functions) else None
    label = getattr(this, "name", "") or getattr(this, "owner", None)
    if label:
        for kp in kernels[1:]:
            for callee in kp.funcs:
                # A BEF function (a native one has no owner) of no name: a region.
                if getattr(callee, "owner", "") is None and not callee.name:
                    callee.owner = label


def _plan_from_columns(plan: FunctionPlan, fn: bp.Function, cols: Any, program: "BEFProgram") -> FunctionPlan:
    """The plan of a body read from a file: the per-register tables (uses,
    users latest first) with numpy for a large body, then one loop making
    the kernels' records, looking each kernel up once per code."""
    n = len(cols)
    nregs = cols.num_registers
    nfargs = cols.num_args_fn
    L = cols.lists
    if L is not None:
        code, loc, na, nt, nf, nr = L.code, L.locations, L.num_args, L.num_attrs, L.num_funcs, L.num_results
        args, attrs, funcs, returns = L.args, L.attrs, L.funcs, L.returns
        a0, t0, f0, rb = L.arg_start, L.attr_start, L.func_start, L.result_base
        users: list = [[] for _ in range(nregs)]
        for k in range(n - 1, -1, -1):  # latest use first: MLIR's use-list order
            for i in range(a0[k], a0[k] + na[k]):
                users[args[i]].append(k + 1)
        start = [k + 1 for k in range(n) if not na[k]]
        uses = [len(u) for u in users]
    else:
        code, loc = cols.code.tolist(), cols.locations.tolist()
        na, nt, nf, nr = (c.tolist() for c in (cols.num_args, cols.num_attrs, cols.num_funcs, cols.num_results))
        args_a = cols.args.astype(np.int64)
        args, attrs, funcs, returns = args_a.tolist(), cols.attrs.tolist(), cols.funcs.tolist(), cols.returns.tolist()
        a0, t0, f0, rb = (x.tolist() for x in (cols.arg_start, cols.attr_start, cols.func_start, cols.result_base))
        # Users of each register, latest use first, as one sorted list cut per register.
        user = np.repeat(np.arange(1, n + 1, dtype=np.int64), cols.num_args)
        by_reg = np.lexsort((-user, args_a))
        flat = user[by_reg].tolist()
        count = np.bincount(args_a, minlength=nregs)
        ends = np.cumsum(count).tolist()
        begins = [0, *ends[:-1]]
        users = [flat[b:e] for b, e in zip(begins, ends)]
        start = (np.flatnonzero(cols.num_args == 0) + 1).tolist()
        uses = count.tolist()
    for r in returns:
        uses[r] += 1
    stream = cols.stream_list()
    result_registers = tuple(returns)
    plan.num_registers = nregs
    plan.register_uses = tuple(uses)
    kernel_uses = list(uses)
    for r in result_registers:
        kernel_uses[r] -= 1
    plan.kernel_uses = kernel_uses
    plan.result_registers = result_registers
    plan.start_users = tuple(start)
    plan.arg_users = tuple(tuple(users[i]) for i in range(nfargs))
    plan.root_stream = cols.root_stream
    table = program._kernel_table()
    kdefs, names, functions = table.kdefs, program.bef.kernel_names, program.functions
    attr_cache: dict = {}
    kernels: list[KernelPlan | None] = [None]
    counts = [0]
    all_sync = True
    fast_ok = True
    new = KernelPlan.__new__
    for k in range(n):
        c = code[k]
        kdef = kdefs[c]
        name = names[c]
        if kdef is None:  # a name outside the Kernels section: the reader let it through
            program._load_error(f"unknown kernel name '{name}'", KernelSite(name, loc[k], program).decoded_location())
        kp = new(KernelPlan)
        kp.kid = k + 1
        kp._site = (name, loc[k], program)
        kp.kdef = kdef
        kp.fn = kdef.fn
        sync = kp.sync = kdef.is_sync
        kp.context = kdef.context
        kp.simple = sync and not kdef.context
        if nt[k]:
            offsets = tuple(attrs[t0[k] : t0[k] + nt[k]])
            key = (c, offsets)
            values = attr_cache.get(key)
            if values is None:
                values = attr_cache[key] = program._decode_attrs(kdef, name, offsets, kp.site)
            kp.attrs = values
        else:
            kp.attrs = ()
        if kdef.binds:
            kp.fn = kdef.bind(kp.attrs)
            kp.attrs = ()
        if nf[k]:
            try:
                kp.funcs = tuple([functions[i] for i in funcs[f0[k] : f0[k] + nf[k]]])
            except IndexError:
                program._load_error(f"kernel '{name}' refers to a function that does not exist",
                                    kp.site.decoded_location())  # fmt: skip
        else:
            kp.funcs = ()
        s = a0[k]
        kp.args = tuple(args[s : s + na[k]])
        base = rb[k]
        m = nr[k]
        if m == 1:
            kp.results = (base,)
            kp.used_by = (users[base],)
            kp.live = (uses[base] > 0,)
        else:
            results = kp.results = tuple(range(base, base + m))
            kp.used_by = tuple([users[r] for r in results])
            kp.live = tuple([uses[r] > 0 for r in results])
        kp.stream = stream[k]
        kp.nres = m
        kernels.append(kp)
        counts.append(na[k] or 1)
        if not sync:
            all_sync = False
            if fast_ok and name not in FAST_ASYNC_KERNELS:
                fast_ok = False
    plan.kernels = kernels
    plan.init_counts = counts
    plan.all_sync = all_sync
    _name_regions(program, fn, kernels)
    plan.order = _NOT_YET if fast_ok else None
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
    elif isinstance(exc, ArityError):
        info = ErrorInfo(f"kernel '{kp.site.name}' returned {exc.got} results, expected {exc.expected}")
    elif isinstance(exc, BEFFormatError):  # a callee's body, checked when first called
        info = ErrorInfo(f"invalid BEF file: {exc}", ErrorCode.INVALID_ARGUMENT)
    else:
        info = ErrorInfo(f"{type(exc).__name__}: {exc}", ErrorCode.INTERNAL)
        if not isinstance(exc, Exception):
            exec_ctx.request.interrupt(exc)
    exec_ctx.host.emit_error(info, kp.site.decoded_location())
    return AsyncValue(ERROR, info)


class ArityError(Exception):
    """A synchronous kernel returned ``got`` results where its kernel entry
    says ``expected`` (raised by the column and compiled paths; ``_fail``
    reports it as the interpreter does)."""

    def __init__(self, got: int, expected: int) -> None:
        super().__init__(got, expected)
        self.got = got
        self.expected = expected


def result_count(out: Any) -> int:
    """How many results a synchronous kernel of several results returned:
    a tuple's or list's length, 1 for anything else (a kernel that returns
    one value where the file says it has two is reported, not unpacked)."""
    return len(out) if isinstance(out, (tuple, list)) else 1


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
        got = result_count(out)
        if got != n:
            return [_fail(kp, exec_ctx, KernelError(
                f"kernel '{kp.site.name}' returned {got} results, expected {n}"))] * n
        return [AsyncValue(CONCRETE, v) for v in out]
    frame = AsyncKernelFrame(exec_ctx, kp.site, args, kp.attrs, kp.funcs, n)
    return _call_frame(kp.fn, frame, exec_ctx, n, lambda: kp)


def _call_frame(fn: Callable[..., Any], frame: AsyncKernelFrame, exec_ctx: ExecutionContext, n: int,
                kernel_plan: Callable[[], KernelPlan]) -> list[AsyncValue]:  # fmt: skip
    """An async kernel's call: ``fn(frame)``, and what it gave as one
    AsyncValue per result.  ``kernel_plan()`` is asked for only to report
    a kernel that left a result unset or returned the wrong number."""
    try:
        out = fn(frame)
    except BaseException as exc:
        _report_raised(frame, exec_ctx, exc)
        out = None
    if out is None:
        return _frame_results(kernel_plan(), exec_ctx, frame)
    if n == 1 and isinstance(out, AsyncValue):  # the common case
        return [out]
    if isinstance(out, AsyncValue) or not isinstance(out, (list, tuple)):
        out = (out,)
    if len(out) != n:
        kp = kernel_plan()
        return [_fail(kp, exec_ctx, KernelError(
            f"kernel '{kp.site.name}' returned {len(out)} results, expected {n}"))] * n
    return [v if isinstance(v, AsyncValue) else AsyncValue(CONCRETE, v) for v in out]


def _report_raised(frame: AsyncKernelFrame, exec_ctx: ExecutionContext, exc: BaseException) -> None:
    """An async kernel raised ``exc``: the error at the kernel (its unset results take it)."""
    if isinstance(exc, KernelError):
        frame.report_error(exc.message, exc.code)
    elif isinstance(exc, BEFFormatError):  # a callee's body, checked when first called
        frame.report_error(f"invalid BEF file: {exc}", ErrorCode.INVALID_ARGUMENT)
    else:
        frame.report_error(f"{type(exc).__name__}: {exc}")
        if not isinstance(exc, Exception):
            exec_ctx.request.interrupt(exc)


def _frame_results(kp: KernelPlan, exec_ctx: ExecutionContext, frame: AsyncKernelFrame) -> list[AsyncValue]:
    results = frame.results
    for i, r in enumerate(results):
        if r is None:
            results[i] = _fail(kp, exec_ctx, KernelError(f"kernel '{kp.site.name}' did not set result {i}"))
    # A copy: the caller clears its list as it publishes the results,
    # and a kernel that reports an error later (frame.report_error from
    # a task) must still find the values it allocated in the frame's.
    return list(results)  # type: ignore[arg-type]


def _async_raised(kp: KernelPlan, exec_ctx: ExecutionContext, exc: BaseException) -> list[AsyncValue]:
    """What :func:`_invoke` returns for an async kernel that raised ``exc``
    (for a caller that ran the kernel's work itself: the flat interpreter's
    ``tfrt.if``)."""
    frame = AsyncKernelFrame(exec_ctx, kp.site, [], kp.attrs, kp.funcs, kp.nres)
    _report_raised(frame, exec_ctx, exc)
    return _frame_results(kp, exec_ctx, frame)


_tls = threading.local()


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
