"""The flat interpreter: TFRT's ``BEFExecutor`` algorithm on plain values and flat lists.

Runs a call of an async function read from a file when the interpreter is
needed (kernels that are not synchronous, kernels on other streams,
pending arguments, a cancelled request) on a single-threaded work queue
without a tracer.  It schedules exactly as ``interpreter.py`` does (the
same ready stack, stream switches, enqueued groups of other streams,
continuations and their depth limit, error values and cancellation,
registers dropped after their last use); what differs is the shape:

* the plan (:class:`FlatPlan`) is a dozen Python lists indexed by kernel or
  register, made from the body's columns with numpy: no object per kernel;
* a register holds the plain value of an available result, or an
  :class:`_Err` holding the error AsyncValue; no AsyncValue is made for a
  synchronous kernel's result;
* a synchronous kernel of one result and up to two operands (most
  kernels) runs inline in :meth:`_FlatExecution._process_inline`; any
  other kernel, or any kernel while an error value exists in the call or
  the request is cancelled, takes the general step, which calls
  :func:`tfrt.executor.plan._invoke` on AsyncValues (its
  :class:`~tfrt.executor.plan.KernelPlan` made when first needed) and
  publishes the results as the interpreter does;
* an async kernel of one or two operands gets its frame without a
  KernelPlan (its name and location looked up only if asked for);
  ``tfrt.if`` runs its branch through the branch's own fast path
  (``call_values``) without a kernel frame, and publishes available
  results as plain values.

A function's interpreter calls take this path from its first call (the
compiled path still takes over from the ``jit_threshold``-th call of a
function that runs inline).

A threaded queue or a tracer runs ``interpreter.py``/``traced.py``
instead (``program.py`` chooses); recovery from the compiled or column
path resumes in ``interpreter.py``.  ``tests/runtime/test_flat_interpreter.py``
runs random programs through both interpreters and compares what they
print, report and return.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfrt.async_value import CONCRETE, ERROR, AsyncValue, ErrorInfo, IndirectAsyncValue
from tfrt.bef.reader import BEFFormatError
from tfrt.executor.plan import (
    MAX_CONTINUATION_DEPTH,
    KernelPlan,
    KernelSite,
    _async_raised,
    _call_frame,
    _fail,
    _invoke,
    _partition_like_libstdcxx,
    _ReadyQueue,
    _tls,
)
from tfrt.host_context import ExecutionContext
from tfrt.kernels.registry import AsyncKernelFrame, KernelError

if TYPE_CHECKING:
    from tfrt.executor.program import BEFFunction

# Kernel modes: how the loop calls a kernel.
M_NONE, M_ONE, M_TWO, M_IF, M_GENERAL, M_ASYNC = 0, 1, 2, 3, 4, 5


class _Err:
    """A register's error value (a plain value is never one of these)."""

    __slots__ = ("av",)

    def __init__(self, av: AsyncValue) -> None:
        self.av = av


class _Site(KernelSite):
    """An async kernel's identity for its frame, looked up when asked for
    (most kernels never are)."""

    __slots__ = ("_plan", "_kid")

    def __init__(self, plan: FlatPlan, kid: int) -> None:
        self._plan = plan
        self._kid = kid
        self._decoded = None

    @property
    def name(self) -> str:  # type: ignore[override]
        plan = self._plan
        return plan.program.bef.kernel_names[int(plan.codes[self._kid - 1])]

    @property
    def location(self) -> int:  # type: ignore[override]
        return int(self._plan.locs[self._kid - 1])

    @property
    def _program(self) -> Any:  # type: ignore[override]
        return self._plan.program


class _Frame(AsyncKernelFrame):
    """An async kernel's frame whose identity (name, location) is looked up
    from the plan when asked for."""

    __slots__ = ("_plan", "_kid")

    @property
    def _site(self) -> KernelSite:  # type: ignore[override]
        return _Site(self._plan, self._kid)


_new_frame = _Frame.__new__


class FlatPlan:
    """A function body as lists, indexed by kernel id (1-based; 0 is the
    pseudo kernel) or by register.

    ``users1[r]``: the one kernel that uses register ``r``; 0 for none; for
    several, ``-((b << 24 | m) + 1)``: they are ``ulist[b:b + m]``, latest
    use first.  A simple kernel's operands are ``x[kid]`` and ``y[kid]``;
    another's ``arglist[astart[kid]:]`` (as many as it has); its results
    the registers ``res[kid] ..``.
    """

    __slots__ = (
        "program", "cols", "label", "n", "num_registers", "mode", "fn", "x", "y", "res", "nres", "stream",
        "users1", "ulist", "kernel_uses", "init_counts", "start_users", "arg_users", "arg_live",
        "result_registers", "returned", "root_stream", "kps", "arglist", "astart", "attrs", "codes", "locs",
        "fkids",
    )  # fmt: skip

    def kernel_plan(self, kid: int) -> KernelPlan:
        """What :func:`_invoke` and :func:`_fail` need of kernel ``kid``, made
        when first needed."""
        kp = self.kps.get(kid)
        if kp is None:
            kp = self.kps[kid] = _kernel_plan(self, kid)
        return kp

    def users_of(self, r: int) -> list[int]:
        u = self.users1[r]
        if u > 0:
            return [u]
        if u == 0:
            return []
        v = -u - 1
        b = v >> 24
        return self.ulist[b : b + (v & 0xFFFFFF)]

    def operands(self, kid: int) -> list[int]:
        """The operand registers of a kernel that is not simple."""
        s = self.astart[kid]
        m = s & 255
        s >>= 8
        if m == 255:  # (255 or more)
            m = int(self.cols.num_args[kid - 1])
        return self.arglist[s : s + m]

    def live(self, r: int) -> bool:
        """TFRT's user_count > 0: a kernel uses register ``r`` or the function returns it."""
        return self.kernel_uses[r] > 0 or r in self.returned

    def callees(self, kid: int) -> tuple:
        """The functions kernel ``kid`` runs (a region is named after this function)."""
        if kid not in self.fkids:
            return ()
        cols = self.cols
        k = kid - 1
        m = int(cols.num_funcs[k])
        s = int(cols.func_start[k])
        functions = self.program.functions
        fs = tuple([functions[i] for i in cols.funcs[s : s + m].tolist()])
        label = self.label
        if label:
            for callee in fs:
                if getattr(callee, "owner", "") is None and not callee.name:
                    callee.owner = label
        return fs


def _with_pseudo(a: np.ndarray, first: int = 0) -> list:
    """``[first, *a]`` as a list (index = kernel id)."""
    out = np.empty(len(a) + 1, a.dtype)
    out[0] = first
    out[1:] = a
    return out.tolist()


def build_flat_plan(func: BEFFunction) -> FlatPlan:
    """The flat plan of ``func`` (its body read from a file), with numpy:
    no loop in Python over the kernels but over those with attributes."""
    program = func.program
    cols = func.bef_function.columns
    n = len(cols)
    nregs = cols.num_registers
    nfargs = cols.num_args_fn
    table = program._kernel_table()
    code = np.asarray(cols.code, np.int64)
    na = np.asarray(cols.num_args, np.int64)
    nt = np.asarray(cols.num_attrs, np.int64)
    nf = np.asarray(cols.num_funcs, np.int64)
    nr = np.asarray(cols.num_results, np.int64)
    args = np.asarray(cols.args, np.int64)
    returns = np.asarray(cols.returns, np.int64)
    a0 = np.asarray(cols.arg_start, np.int64)
    rb = np.asarray(cols.result_base, np.int64)
    kdefs = table.kdefs
    names = program.bef.kernel_names
    functions = program.functions

    def load_error(message: str, k: int) -> None:
        c = int(code[k])
        program._load_error(message.format(names[c]),
                            KernelSite(names[c], int(cols.locations[k]), program).decoded_location())  # fmt: skip

    if n:
        known = np.array([kd is not None for kd in kdefs], bool)
        unknown = ~known[code]
        if unknown.any():  # a name outside the Kernels section: the reader let it through
            load_error("unknown kernel name '{}'", int(np.flatnonzero(unknown)[0]))
        if len(cols.funcs) and int(cols.funcs.max()) >= len(functions):
            fk = np.repeat(np.arange(n), nf)
            bad = int(fk[np.flatnonzero(np.asarray(cols.funcs) >= len(functions))[0]])
            load_error("kernel '{}' refers to a function that does not exist", bad)

    plan = FlatPlan()
    plan.program = program
    plan.cols = cols
    this = functions[func.index] if func.index < len(functions) else None
    plan.label = getattr(this, "name", "") or getattr(this, "owner", None)
    plan.n = n
    plan.num_registers = nregs
    plan.kps = {}
    # Users of each register, latest use first (MLIR's use-list order): a
    # stable sort of the operands, reversed, by register.
    count = np.bincount(args, minlength=nregs) if len(args) else np.zeros(nregs, np.int64)
    ends = np.cumsum(count)
    begins = ends - count
    if len(args):
        user = np.repeat(np.arange(n, 0, -1, dtype=np.int64), na[::-1])
        flat = user[np.argsort(args[::-1], kind="stable")]
        users1 = np.where(count == 1, flat[np.minimum(begins, len(flat) - 1)], 0)
        several = count > 1
        if several.any():
            if int(count.max()) >= 1 << 24:  # (more uses of one register than a file can hold)
                raise BEFFormatError(f"function {func.index}: a register has {int(count.max())} uses")
            kept = np.repeat(several, count)  # in flat's order (sorted by register)
            plan.ulist = flat[kept].tolist()
            # b: where each register's users start in the kept list
            kb = np.cumsum(np.where(several, count, 0)) - np.where(several, count, 0)
            users1[several] = -((kb[several] << 24 | count[several]) + 1)
        else:
            plan.ulist = []
    else:
        users1 = np.zeros(nregs, np.int64)
        plan.ulist = []
    plan.users1 = users1.tolist()
    returned = set(returns.tolist())
    plan.kernel_uses = count.tolist()
    plan.returned = returned
    plan.result_registers = tuple(returns.tolist())
    plan.root_stream = cols.root_stream
    plan.init_counts = _with_pseudo(np.maximum(na, 1))
    plan.start_users = (np.flatnonzero(na == 0) + 1).tolist()
    plan.arg_users = [plan.users_of(i) for i in range(nfargs)]
    plan.arg_live = [plan.live(i) for i in range(nfargs)]
    plan.codes = code
    plan.locs = np.asarray(cols.locations)

    # Modes: a synchronous kernel without context, of one result that some
    # kernel uses and the function does not return, with up to two
    # operands and no attributes left after binding, runs inline.
    kdead = np.zeros(0, bool)
    simple = table.simple[code] if n else kdead
    binds = table.binds[code] if n else kdead
    # (A kernel of no results has its base one past the last register.)
    rbc = np.minimum(rb, nregs - 1) if nregs else np.zeros(n, np.int64)
    used = (count[rbc] > 0) & (nr == 1) if nregs and n else np.zeros(n, bool)
    if returned and n:
        ret_mask = np.zeros(nregs, bool)
        ret_mask[returns] = True
        used &= ~ret_mask[rbc]
    fast = simple & (nr == 1) & used & (na <= 2) & (nf == 0) & ((nt == 0) | binds)
    mode = np.where(fast, np.minimum(na, 2), M_GENERAL)
    if n:
        is_if_code = np.array([name in ("tfrt.if", "tfrt.cond") for name in names], bool)
        mode[is_if_code[code] & (nf == 2) & (na >= 1)] = M_IF
        is_async = np.array([kd is not None and not kd.is_sync and not kd.binds for kd in kdefs], bool)
        mode[is_async[code] & (mode == M_GENERAL)] = M_ASYNC
    last = max(len(args) - 1, 0)
    x = np.where(na >= 1, args[np.minimum(a0, last)], 0) if len(args) else np.zeros(n, np.int64)
    y = np.where(na >= 2, args[np.minimum(a0 + 1, last)], 0) if len(args) else np.zeros(n, np.int64)
    if n:
        # A tfrt.if's x and y: its branches (function indices), not operands.
        ifs = np.flatnonzero(mode == M_IF)
        if len(ifs):
            fl = np.asarray(cols.funcs, np.int64)
            f0 = np.asarray(cols.func_start, np.int64)[ifs]
            x[ifs] = fl[f0]
            y[ifs] = fl[f0 + 1]
        # An async kernel of one or two operands takes them from x and y;
        # one of none or more is a general step.
        mode[(mode == M_ASYNC) & ((na == 0) | (na > 2))] = M_GENERAL
    fn_l = _with_pseudo(table.fns[code]) if n else [None]
    # Where the other kernels' operands are (-1: a simple kernel's are x, y).
    other = mode >= M_IF
    if other.any():
        # Only their operands, in kernel order: astart indexes this list.
        mine = np.repeat(other, na)
        plan.arglist = args[mine].tolist()
        m = np.where(other, na, 0)
        plan.astart = _with_pseudo(np.where(other, (np.cumsum(m) - m) << 8 | np.minimum(m, 255), -1), -1)
    else:
        plan.arglist = []
        plan.astart = _with_pseudo(np.full(n, -1, np.int64), -1)
    attrs: dict[int, tuple] = {}
    plan.attrs = attrs
    plan.fkids = set((np.flatnonzero(nf > 0) + 1).tolist())
    if n:
        # Attributes, decoded (and checked) now as the interpreter's plan
        # does; a binding kernel's are bound into its function.
        cache: dict = {}
        for k in np.flatnonzero(nt > 0).tolist():
            c = int(code[k])
            s = int(cols.attr_start[k])
            offsets = tuple(cols.attrs[s : s + int(nt[k])].tolist())
            values = cache.get((c, offsets))
            if values is None:
                site = KernelSite(names[c], int(cols.locations[k]), program)
                values = cache[c, offsets] = program._decode_attrs(kdefs[c], names[c], offsets, site)
            attrs[k + 1] = values
        for k in np.flatnonzero(binds).tolist():
            fn_l[k + 1] = kdefs[int(code[k])].bind(attrs.get(k + 1, ()))
    plan.mode = _with_pseudo(mode, M_GENERAL)
    plan.fn = fn_l
    plan.x = _with_pseudo(x)
    plan.y = _with_pseudo(y)
    plan.res = _with_pseudo(rb)
    plan.nres = _with_pseudo(nr)
    plan.stream = _with_pseudo(np.asarray(cols.stream, np.int64), plan.root_stream) if n else [plan.root_stream]
    return plan


def _kernel_plan(plan: FlatPlan, kid: int) -> KernelPlan:
    """Kernel ``kid``'s record for :func:`_invoke` and :func:`_fail` (the
    scheduling fields stay in the flat plan's lists)."""
    program = plan.program
    k = kid - 1
    c = int(plan.codes[k])
    kdef = program._kernel_table().kdefs[c]
    kp = KernelPlan.__new__(KernelPlan)
    kp.kid = kid
    kp._site = (program.bef.kernel_names[c], int(plan.locs[k]), program)
    kp.kdef = kdef
    sync = kp.sync = kdef.is_sync
    kp.context = kdef.context
    kp.simple = sync and not kdef.context
    if kdef.binds:
        kp.fn = plan.fn[kid]
        kp.attrs = ()
    else:
        kp.fn = kdef.fn
        kp.attrs = plan.attrs.get(kid, ())
    kp.funcs = plan.callees(kid)
    if plan.astart[kid] >= 0:
        kp.args = tuple(plan.operands(kid))
    else:  # a simple kernel (run here while an error value exists)
        kp.args = ((), (plan.x[kid],), (plan.x[kid], plan.y[kid]))[plan.mode[kid]]
    base = plan.res[kid]
    kp.nres = m = plan.nres[kid]
    kp.results = tuple(range(base, base + m))
    kp.stream = plan.stream[kid]
    return kp


class _FlatExecution:
    """One invocation of a function on a flat plan (single-threaded queue)."""

    # (CPython releases slots in sorted name order: "held" goes before
    # "results", so that results die in the general interpreter's order,
    # last first, when the call outlives its caller's references.)
    __slots__ = ("fn", "plan", "exec_ctx", "request", "regs", "kuses", "counts", "held", "results",
                 "aborted", "dirty")  # fmt: skip

    def __init__(self, fn: BEFFunction, exec_ctx: ExecutionContext) -> None:
        plan = fn.flat_plan
        self.fn = fn
        self.plan = plan
        self.exec_ctx = exec_ctx
        self.request = exec_ctx.request
        self.regs: list[Any] = [None] * plan.num_registers
        self.kuses = list(plan.kernel_uses)
        self.counts = list(plan.init_counts)
        self.results: list[AsyncValue] = []
        self.held: dict[int, IndirectAsyncValue] = {}
        self.aborted = False
        self.dirty = False  # an error value is in some register

    def prebind_results(self) -> list[AsyncValue]:
        held = self.held
        results = []
        for r in self.plan.result_registers:
            v = held.get(r)
            if v is None:
                v = held[r] = IndirectAsyncValue()
            results.append(v)
        self.results = results
        return results

    def run(self, args: Sequence[AsyncValue]) -> None:
        plan = self.plan
        q = _ReadyQueue(plan.root_stream)
        try:
            self._decrement(plan.start_users, q)
            live = plan.arg_live
            for i, users in enumerate(plan.arg_users):
                if live[i]:
                    self._publish(users, args[i], i, q)
        except BaseException as exc:
            self._abort(exc)
            return
        self._process(q)

    def _abort(self, exc: BaseException) -> None:
        """As ``_Execution._abort`` (single-threaded: no tracker)."""
        base = not isinstance(exc, Exception)
        if self.aborted:
            if base:
                raise exc
            return
        self.aborted = True
        if base:
            self.request.interrupt(exc)
        info = ErrorInfo(f"{type(exc).__name__}: {exc} (while running {self.fn.describe()})")
        for v in self.results:
            if not v.state:
                try:
                    v._resolve(ERROR, info)
                except RuntimeError:
                    pass
        self.exec_ctx.host.emit_error(info)
        if base:
            raise exc

    # -- scheduling -----------------------------------------------------------
    def _decrement(self, users: Sequence[int], q: _ReadyQueue) -> None:
        counts = self.counts
        stream = self.plan.stream
        for u in users:
            c = counts[u] - 1
            counts[u] = c
            if c == 0:
                if stream[u] == q.stream:
                    q.inline.append(u)
                else:
                    q.outline.append(u)

    def _set_register(self, r: int, value: AsyncValue) -> None:
        """An available value into register ``r`` (and the function's result)."""
        if self.plan.kernel_uses[r]:  # (a register only returned is read by nobody)
            if value.state == CONCRETE:
                self.regs[r] = value.value
            else:
                self.regs[r] = _Err(value)
                self.dirty = True
        held = self.held.get(r)
        if held is not None:
            held.forward_to(value)

    def _publish(self, users: Sequence[int], value: AsyncValue, r: int, q: _ReadyQueue) -> None:
        if value.state:
            self._set_register(r, value)
            if users:
                self._decrement(users, q)
            return
        if not users:
            held = self.held.get(r)
            if held is not None:
                held.forward_to(value)
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
            # _continue, inlined: one async result on the hot path.
            if self.aborted:
                return
            q = _ReadyQueue(stream)
            try:
                self._set_register(r, value)
                self._decrement(users, q)
                if not q.inline:
                    self._switch_stream(q)
                if q.outline:
                    self._enqueue_outline(q)
                self._process_inline(q)
            except BaseException as exc:
                self._abort(exc)
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

    def _switch_stream(self, q: _ReadyQueue) -> None:
        """TFRT's SwitchStreamId (see ``plan._switch_stream``)."""
        outline = q.outline
        if not outline:
            return
        stream = self.plan.stream
        s = stream[outline[0]]
        q.stream = s
        cut = _partition_like_libstdcxx(outline, lambda kid: stream[kid] != s)
        q.inline = outline[cut:]
        q.outline = outline[:cut]

    def _enqueue_outline(self, q: _ReadyQueue) -> None:
        stream = self.plan.stream
        ids = sorted(q.outline, key=stream.__getitem__)
        q.outline = []
        host = self.exec_ctx.host
        start = 0
        while start < len(ids):
            s = stream[ids[start]]
            end = start + 1
            while end < len(ids) and stream[ids[end]] == s:
                end += 1
            group = ids[start:end]
            host.enqueue_task(lambda s=s, g=group: self._process(_ReadyQueue(s, g)))
            start = end

    def _process(self, q: _ReadyQueue) -> None:
        if self.aborted:
            return
        try:
            if not q.inline:
                self._switch_stream(q)
            if q.outline:
                self._enqueue_outline(q)
            self._process_inline(q)
        except BaseException as exc:
            self._abort(exc)

    def _process_inline(self, q: _ReadyQueue) -> None:
        plan = self.plan
        regs = self.regs
        kuses = self.kuses
        counts = self.counts
        mode = plan.mode
        fns = plan.fn
        X = plan.x
        Y = plan.y
        R = plan.res
        S = plan.stream
        U1 = plan.users1
        UL = plan.ulist
        request = self.request
        inline = q.inline
        outline = q.outline
        stream = q.stream
        dirty = self.dirty
        while inline:
            kid = inline.pop()
            m = mode[kid]
            # (Modes as literals: M_NONE, M_ONE, M_TWO are 0, 1, 2.)
            if m <= 2 and not dirty and request.cancel_value is None:
                if m == 2:  # M_TWO
                    xr = X[kid]
                    yr = Y[kid]
                    a = regs[xr]
                    b = regs[yr]
                    u = kuses[xr] - 1
                    kuses[xr] = u
                    if not u:
                        regs[xr] = None
                    u = kuses[yr] - 1
                    kuses[yr] = u
                    if not u:
                        regs[yr] = None
                    try:
                        out = fns[kid](a, b)
                    except BaseException as exc:
                        a = b = None
                        self._failed(kid, exc, q)
                        self._after_kernel(q)
                        dirty = True
                        inline = q.inline
                        outline = q.outline
                        stream = q.stream
                        continue
                    a = b = None  # the operands die first, in order
                elif m == 1:  # M_ONE
                    xr = X[kid]
                    a = regs[xr]
                    u = kuses[xr] - 1
                    kuses[xr] = u
                    if not u:
                        regs[xr] = None
                    try:
                        out = fns[kid](a)
                    except BaseException as exc:
                        a = None
                        self._failed(kid, exc, q)
                        self._after_kernel(q)
                        dirty = True
                        inline = q.inline
                        outline = q.outline
                        stream = q.stream
                        continue
                    a = None
                else:
                    try:
                        out = fns[kid]()
                    except BaseException as exc:
                        self._failed(kid, exc, q)
                        self._after_kernel(q)
                        dirty = True
                        inline = q.inline
                        outline = q.outline
                        stream = q.stream
                        continue
                r = R[kid]
                regs[r] = out
                out = None
                u = U1[r]
                if u > 0:
                    c = counts[u] - 1
                    counts[u] = c
                    if not c:
                        if S[u] == stream:
                            inline.append(u)
                        else:
                            outline.append(u)
                elif u:
                    v = -u - 1  # several users: ulist[b:b + m]
                    b = v >> 24
                    for u in UL[b : b + (v & 0xFFFFFF)]:
                        c = counts[u] - 1
                        counts[u] = c
                        if not c:
                            if S[u] == stream:
                                inline.append(u)
                            else:
                                outline.append(u)
            else:
                if dirty or request.cancel_value is not None:
                    self._general(kid, q)
                elif m == 5:  # M_ASYNC
                    self._async(kid, q)
                elif m == 3:  # M_IF
                    self._if(kid, q)
                else:
                    self._general(kid, q)
                dirty = self.dirty
                # A nested continuation may have switched nothing here, but
                # the queue object is this loop's: re-read what it holds.
                inline = q.inline
                outline = q.outline
                stream = q.stream
            if not inline:
                if outline:
                    self._switch_stream(q)
                    inline = q.inline
                    outline = q.outline
                    stream = q.stream
            if outline:
                self._enqueue_outline(q)
                outline = q.outline

    def _after_kernel(self, q: _ReadyQueue) -> None:
        """What the loop does after each kernel: switch streams when the
        current one has nothing ready, enqueue the other streams' kernels."""
        if not q.inline and q.outline:
            self._switch_stream(q)
        if q.outline:
            self._enqueue_outline(q)

    # -- the general step -----------------------------------------------------
    def _failed(self, kid: int, exc: BaseException, q: _ReadyQueue) -> None:
        """A simple kernel raised: its result is the error, published."""
        kp = self.plan.kernel_plan(kid)
        err = _fail(kp, self.exec_ctx, exc)
        del exc
        self._publish_out(kid, [err] * kp.nres, q)

    def _general(self, kid: int, q: _ReadyQueue) -> None:
        """Any kernel, on AsyncValues, as the interpreter runs it."""
        kp = self.plan.kernel_plan(kid)
        regs = self.regs
        kuses = self.kuses
        args = []
        err = self.request.cancel_value
        for r in kp.args:
            v = regs[r]
            if type(v) is _Err:
                av = err = v.av
            else:
                av = AsyncValue(CONCRETE, v)
            args.append(av)
            u = kuses[r] - 1
            kuses[r] = u
            if not u:
                regs[r] = None
        v = av = None
        if err is not None:
            results = [err] * kp.nres
        else:
            results = _invoke(kp, self.exec_ctx, args)
        args.reverse()  # drop the operands first, in order
        del args
        self._publish_out(kid, results, q)

    def _async(self, kid: int, q: _ReadyQueue) -> None:
        """An async kernel on available operands (``_invoke``'s async half,
        without a KernelPlan unless something goes wrong)."""
        plan = self.plan
        regs = self.regs
        kuses = self.kuses
        r = plan.x[kid]
        args = [AsyncValue(CONCRETE, regs[r])]
        u = kuses[r] - 1
        kuses[r] = u
        if not u:
            regs[r] = None
        if plan.init_counts[kid] == 2:
            r = plan.y[kid]
            args.append(AsyncValue(CONCRETE, regs[r]))
            u = kuses[r] - 1
            kuses[r] = u
            if not u:
                regs[r] = None
        n = plan.nres[kid]
        exec_ctx = self.exec_ctx
        frame = _new_frame(_Frame)
        frame.exec_ctx = exec_ctx
        frame._plan = plan
        frame._kid = kid
        frame.args = args
        frame.attrs = plan.attrs.get(kid, ())
        frame.funcs = plan.callees(kid) if kid in plan.fkids else ()
        frame.results = [None] * n
        results = _call_frame(plan.fn[kid], frame, exec_ctx, n, lambda: plan.kernel_plan(kid))
        frame = None
        args.reverse()  # drop the operands first, in order
        del args
        self._publish_out(kid, results, q)

    def _publish_out(self, kid: int, results: list[AsyncValue], q: _ReadyQueue) -> None:
        """Kernel ``kid``'s result values into its registers, in order (a
        result nobody uses dies at its turn)."""
        plan = self.plan
        base = plan.res[kid]
        if len(results) == 1:
            # _publish and _set_register, inlined: a continuation chain
            # nests no deeper here than in the general interpreter.
            value = results[0]
            results[0] = None  # type: ignore[call-overload]
            r = base
            kernel_uses = plan.kernel_uses[r]
            if not kernel_uses and r not in plan.returned:
                return  # a result nobody uses dies now
            if value.state:
                if kernel_uses:
                    if value.state == CONCRETE:
                        self.regs[r] = value.value
                    else:
                        self.regs[r] = _Err(value)
                        self.dirty = True
                held = self.held.get(r)
                if held is not None:
                    held.forward_to(value)
                if kernel_uses:
                    self._decrement(plan.users_of(r), q)
                return
            if kernel_uses:  # (an async kernel's result, as a rule)
                users = plan.users_of(r)
                stream = q.stream
                value.and_then(lambda: self._resume(users, value, r, stream))
                return
            held = self.held.get(r)  # only returned: the result follows it now
            if held is not None:
                held.forward_to(value)
            return
        for i in range(plan.nres[kid]):
            r = base + i
            if plan.live(r):
                self._publish(plan.users_of(r), results[i], r, q)
            results[i] = None  # type: ignore[call-overload]

    def _if(self, kid: int, q: _ReadyQueue) -> None:
        """``tfrt.if`` on available operands: the branch through its own fast
        path (``call_values``); what it returns is published as the general
        step publishes ``_invoke``'s results (``control_flow.if_``)."""
        plan = self.plan
        regs = self.regs
        argregs = plan.operands(kid)
        index = plan.x[kid] if regs[argregs[0]] else plan.y[kid]
        ctx = self.exec_ctx
        ctx = ctx._nested or ctx.nested()
        # A region not made yet (run once, as a rule): its body's shared column plan, if any.
        cp = None if ctx.deep else plan.program.region_plan(index, len(argregs) - 1)
        if cp is not None:
            self._if_on(kid, q, argregs, lambda values: cp.run(ctx, lambda: self._branch(index), values))
            return
        branch = self._branch(index)
        if len(argregs) - 1 != len(branch.arg_types):
            self._general(kid, q)  # execute's arity error, at the kernel
            return
        self._if_on(kid, q, argregs, lambda values: branch.call_values_in(ctx, values))

    def _branch(self, index: int) -> Any:
        """Function ``index`` (a branch of this function's ``tfrt.if``)."""
        branch = self.plan.program.functions[index]
        if getattr(branch, "owner", "") is None and not branch.name:
            branch.owner = self.plan.label  # a region, named after this function for messages
        return branch

    def _if_on(self, kid: int, q: _ReadyQueue, argregs: list[int], call: Any) -> None:
        """The rest of ``tfrt.if``: ``call(values)`` runs the branch on the
        operands' values (dropped from their registers first)."""
        plan = self.plan
        regs = self.regs
        values = []
        kuses = self.kuses
        for i, r in enumerate(argregs):
            if i:
                values.append(regs[r])
            u = kuses[r] - 1
            kuses[r] = u
            if not u:
                regs[r] = None
        try:
            out = call(values)
        except BaseException as exc:
            values.reverse()  # the operands die in order, as the general step drops them
            values = None
            kp = plan.kernel_plan(kid)
            self._publish_out(kid, _async_raised(kp, self.exec_ctx, exc), q)
            return
        values.reverse()
        values = None
        n = plan.nres[kid]
        if type(out) is tuple and len(out) == n:
            # Plain values (the branch ran on a fast path): into the
            # registers, each released at its turn as _publish_out does.
            out = list(out)  # (the tuple dies here)
            r = plan.res[kid]
            for i in range(n):
                v = out[i]
                out[i] = None
                if r in plan.returned:
                    self._publish(plan.users_of(r), AsyncValue(CONCRETE, v), r, q)
                elif plan.kernel_uses[r]:
                    regs[r] = v
                    self._decrement(plan.users_of(r), q)
                v = None  # a result nobody uses dies now
                r += 1
            return
        if type(out) is tuple:
            out = [AsyncValue(CONCRETE, v) for v in out]  # (the tuple dies here)
        else:
            # A copy: the list may be the branch's own (an interpreted
            # call's results, which it still reads), as _invoke copies.
            out = list(out)
        if len(out) != n:
            kp = plan.kernel_plan(kid)
            err = _fail(kp, self.exec_ctx, KernelError(
                f"kernel '{kp.site.name}' returned {len(out)} results, expected {n}"))  # fmt: skip
            out = [err] * n
        self._publish_out(kid, out, q)
