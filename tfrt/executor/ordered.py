"""The ordered path: a blocking host call of a body without side effects, in its ORDER.

TFRT's executor runs a kernel when its operands are ready, and the order
it picks (the ready stack, streams, continuations) decides the order of
side effects, which ``flat.py`` and ``interpreter.py`` reproduce exactly.
A body whose kernels are all pure (``KernelDef.pure``: no effect but their
results) has no side effect to order, so a call of it may run its kernels
in the body's ORDER column (a topological order the file carries), as the
column path does, whatever their streams and even when some are async:

* a pure async kernel is called with its frame; when a later kernel
  reads its result, the work it queued runs right away (its task, when
  that is the newest on the queue; the queued tasks in order until the
  value is there otherwise): every task on the queue is the call's own
  (it was idle when the call started), its pure kernels' work.  A result
  only returned stays the AsyncValue it is;
* ``tfrt.if`` runs its branch on the branch's column plan (or compiled
  code): the branches of one body (the regions of an unrolled loop) share
  one, made when the plan is (``bp.body_classes``); a region not made yet
  runs on the plan another region with the same body made
  (``BEFProgram.region_plan``).

Only the results and errors of such a call can be observed, and the
results are the same in any order.  Errors are not: which kernel reports
first, and where, follows TFRT's order.  So the ordered path gives up on
anything but the plain case and runs the call again from the start on the
interpreter (TFRT's order), which is exact because nothing it did can be
seen: a kernel that raises, an async result that is an error, a value
the queue does not set (another thread sets it, later), a branch that is
not pure or has no column plan, a call nested too deep, a cancelled
request.  Nothing is reported before that, and the async work already
started only computes values nobody reads.

It runs only for a blocking call made by the host (``BEFFunction.run``:
execute, then wait for the results, as ``bef_executor`` does), on an idle
single-threaded queue without a tracer, with every argument available and
the request not cancelled.  Nothing can look at such a call between its
start and its end.  Any other call may not: a host that executes and then
does something before it waits sees which results are available and
which diagnostics were reported by then (and may cancel the rest), and a
call made by a kernel (``tfrt.call``) has a caller whose own scheduling
sees when each result becomes available.  A cancel (from another thread)
is seen when an async result is next waited for, which runs the call
again in TFRT's order:
every kernel is then cancelled, as if the cancel had come before the
first one ran (as on the column path, a run of synchronous kernels does
not look for one).  A Ctrl-C (or SystemExit) stops the call as it stops
the interpreter's (``_FlatExecution._abort``): reported, the request
interrupted, raised again; a kernel that raises one is not told apart
from a signal (TFRT's order makes it that kernel's error).  The
arguments are held until the call ends (running it again needs them).
``tests/runtime/test_ordered_path.py`` compares it with the interpreter.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfrt.async_value import CONCRETE, AsyncValue, ErrorInfo
from tfrt.bef import program as bp
from tfrt.executor.columns import (
    _FREE_Y,
    _K_ATTR,
    _K_GENERAL,
    _K_NONE,
    _K_ONE,
    _K_TWO,
    _attribute_decoder,
    _general_step,
    _Operands,
)
from tfrt.executor.plan import KernelSite
from tfrt.host_context import ExecutionContext
from tfrt.kernels.registry import AsyncKernelFrame

if TYPE_CHECKING:
    from tfrt.executor.program import BEFFunction

# The steps beyond the column path's: an async kernel of one result and one
# or two operands, a tfrt.if of one result and operand, and any other async
# kernel or tfrt.if (with a spec in x, as a general step).
_K_ASYNC, _K_IF, _K_ASYNC_SPEC, _K_IF_SPEC = 5, 6, 8, 9
# An async step's d: a later kernel reads its result (it is waited for).
_READ = 8


class _Restart(Exception):
    """The call leaves the ordered path: run it again on the interpreter."""


class OrderedPlan:
    """A body's steps in execution order (``_ColumnPlan``'s lists, with the
    async and if steps)."""

    __slots__ = ("kinds", "fns", "xs", "ys", "rs", "ds", "num_registers", "returns")


class _Frame(AsyncKernelFrame):
    """An async kernel's frame whose site is made if the kernel asks for it,
    from the calling function's own columns (``_cols``: functions that
    share a plan differ in their locations) and ``_where``: the register
    of the kernel's first result, or ``(k,)``, its index in the body; and
    whose operands are plain values (``_values``: a pure kernel reads them
    with ``arg``; ``args`` makes their AsyncValues if it is asked for)."""

    __slots__ = ("_program", "_cols", "_where", "_values", "_avs")

    @property  # type: ignore[override]
    def args(self) -> list[AsyncValue]:
        avs = self._avs
        if avs is None:
            avs = self._avs = [AsyncValue(CONCRETE, v) for v in self._values]
        return avs

    def arg(self, index: int) -> Any:
        return self._values[index]

    @property
    def _site(self) -> KernelSite:  # type: ignore[override]
        program = self._program
        cols = self._cols
        where = self._where
        if type(where) is int:  # (the kernel with results whose first is that register)
            first = (np.asarray(cols.result_base) == where) & (np.asarray(cols.num_results) > 0)
            k = int(np.flatnonzero(first)[0])
        else:
            k = where[0]
        return KernelSite(program.bef.kernel_names[int(cols.code[k])], int(cols.locations[k]), program)


_new_frame = _Frame.__new__


def build_ordered_plan(func: BEFFunction) -> OrderedPlan | None:
    """The ordered plan of ``func``'s body, or None when some kernel is not
    pure (a ``tfrt.if`` counts as pure: its branch is checked when it runs)."""
    program = func.program
    cols = func.bef_function.columns
    if cols is None or not len(cols):
        return None
    table = program._kernel_table()
    if not table.ordered[cols.code].all():
        return None
    n = len(cols)
    nregs = cols.num_registers
    order = cols.order.astype(np.int64)
    na = cols.num_args.astype(np.int64)[order]
    nt = cols.num_attrs.astype(np.int64)[order]
    nr = cols.num_results.astype(np.int64)[order]
    nf = cols.num_funcs.astype(np.int64)[order]
    codes = cols.code[order]
    is_if = table.is_if[codes]
    is_async = table.is_async[codes] & ~is_if  # (tfrt.if is an async kernel too)
    if (is_if & ((nf != 2) | (na < 1))).any() or ((nf > 0) & ~is_if).any():
        return None  # (a malformed if: the interpreter reports it)
    binding = table.binds[codes]
    fns = table.fns[codes]
    rb = cols.result_base[order].astype(np.int64)
    ops = _Operands(cols, order, na, rb)
    x, y, d = ops.x, ops.y, ops.d
    kind = np.full(n, _K_GENERAL, np.int64)
    one = (nr == 1) & ~is_async & ~is_if
    nt_call = np.where(binding, 0, nt)  # (a bound kernel takes only operands)
    kind[one & (nt_call == 0) & (na == 0)] = _K_NONE
    kind[one & (nt_call == 0) & (na == 1)] = _K_ONE
    kind[one & (nt_call == 0) & (na == 2)] = _K_TWO
    kind[one & (nt_call == 1) & (na == 0)] = _K_ATTR
    # An async kernel of one result and one or two operands, and a tfrt.if
    # of one result and one operand, are steps of their own; the others
    # carry a spec (as a general step does).
    async1 = is_async & (nr == 1) & (na >= 1) & (na <= 2) & (nt == 0)
    if1 = is_if & (nr == 1) & (na == 2)
    kind[is_async] = _K_ASYNC_SPEC
    kind[async1] = _K_ASYNC
    kind[is_if] = _K_IF_SPEC
    kind[if1] = _K_IF
    y = np.where(async1 & (na == 1), -1, y)
    d = np.where(((kind == _K_TWO) | (kind == _K_IF) | (kind == _K_ASYNC)) & (x == y), d & ~_FREE_Y, d)
    # An async kernel's result that a later kernel reads is waited for
    # right after the kernel (_READ); one only returned stays as it is.
    d = np.where(async1 & ops.has_use[rb], d | _READ, d)
    kinds = kind.tolist()
    xs = x.tolist()
    fl = fns.tolist()
    q_if = np.flatnonzero(kind == _K_IF)
    if len(q_if):
        f0 = cols.func_start[order[q_if]].astype(np.int64)
        fl_funcs = cols.funcs.astype(np.int64)
        branches = _branch_plans(program, fl_funcs[f0].tolist(), fl_funcs[f0 + 1].tolist())
        for q, b in zip(q_if.tolist(), branches):
            fl[q] = b
    decode = _attribute_decoder(program, table, cols, order, codes, nt) if nt.any() else None
    attrs: dict[int, tuple] = {}  # execution position -> decoded attributes
    for p in np.flatnonzero(nt > 0).tolist():
        values = decode(p)  # type: ignore[misc]
        if values is None:
            return None  # a bad attribute: the interpreter reports it
        attrs[p] = values
    for p in np.flatnonzero(binding).tolist():
        fl[p] = table.kdefs[int(codes[p])].bind(attrs.get(p, ()))
    funcs = cols.funcs
    fstart = cols.func_start
    special = (kind == _K_ATTR) | (kind == _K_GENERAL) | (kind == _K_ASYNC_SPEC) | (kind == _K_IF_SPEC)
    has_use = ops.has_use
    for p in np.flatnonzero(special).tolist():
        k = kinds[p]
        values = () if binding[p] else attrs.get(p, ())
        if k == _K_ATTR:
            xs[p] = values[0]
            continue
        k_args, results, k_free, k_dead = ops.spec(p, int(rb[p]), int(nr[p]))
        if k == _K_IF_SPEC:
            s = int(fstart[order[p]])
            xs[p] = (k_args, results, k_free, k_dead, int(funcs[s]), int(funcs[s + 1]))
        elif k == _K_ASYNC_SPEC:
            read = tuple([bool(has_use[r]) for r in results])
            xs[p] = (values, k_args, results, k_free, k_dead, read, int(order[p]))
        else:
            xs[p] = (values, k_args, results, k_free, k_dead)
    plan = OrderedPlan()
    # The integer fields as arrays: their ints are made as the loop reads
    # them (a list would hold a Python int per step from the start).
    plan.kinds, plan.fns, plan.xs = kinds, fl, xs
    plan.ys, plan.rs, plan.ds = (array("q", a.astype(np.int64).tobytes()) for a in (y, rb, d))
    plan.num_registers = nregs
    plan.returns = ops.returns.tolist()
    return plan


class _SharedBody:
    """The body that the branches of a class share (``bp.body_classes``:
    the regions of an unrolled loop, say): its column plan and, from the
    class's ``jit_threshold``-th call on, its compiled code (``fast``),
    when that code names no kernel's site, so that it is the same for
    every branch of the class.  A kernel that raises in either raises out
    of it (the ordered call then runs again in TFRT's order)."""

    __slots__ = ("cp", "fn", "fast")

    def __init__(self, cp: Any, fn: Any) -> None:
        self.cp = cp
        self.fn = fn  # the function whose calls count (None: no more compiling)
        self.fast: Any = None

    def run(self, ctx: ExecutionContext, values: list) -> Any:
        """A call on the column plan (counted: it may compile the code)."""
        fn = self.fn
        if fn is not None:
            fast = fn._fast_code()
            if fast is not None:
                self.fn = None
                if fn.program._fast_codes.get(fn._body()) is fast:  # (site-free: shared by body)
                    self.fast = fast.func
                    return fast.func(ctx, *values)
            elif fn._calls < 0:  # (never compiles)
                self.fn = None
        cp = self.cp
        return cp.run(ctx, None, values) if cp.kinds else tuple([values[i] for i in cp.returns])


def _branch_plans(program: Any, then: list[int], else_: list[int]) -> list[tuple]:
    """Per ``tfrt.if`` of one operand: (then, else, then's body, else's
    body), where a branch's body is a ``_SharedBody`` when other branches
    have the same body (``bp.body_classes``), made now; None otherwise
    (the call finds the branch's plan when it runs it:
    ``_OrderedCall._branch``)."""
    m = len(then)
    nfuncs = len(program.bef.functions)
    reps = np.asarray(bp.body_classes(program.bef.functions, then + else_), np.int64)
    reps[reps < 0] = nfuncs  # (no plan)
    bodies = np.full(nfuncs + 1, None, object)
    for r in np.flatnonzero(np.bincount(reps, minlength=nfuncs + 1)[:nfuncs] > 1).tolist():
        cp = None
        try:
            branch = program.functions[r]
            if branch.kind == bp.ASYNC_FUNCTION and len(branch.arg_types) == 1:
                cp = branch._column_plan()
        except Exception:  # (a malformed body: reported if the branch runs)
            cp = None
        if cp is not None and cp.pure:
            bodies[r] = _SharedBody(cp, branch)
    got = bodies[reps].tolist()
    return list(zip(then, else_, got[:m], got[m:]))


def _called(frame: _Frame, out: Any, n: int) -> list[AsyncValue]:
    """What async kernel ``fn(frame)`` gave, as its ``n`` AsyncValues
    (``plan._call_frame``'s reading, but for anything that function would
    report, which restarts the call instead: nothing is reported here)."""
    if out is None:
        out = frame.results
        if any(v is None for v in out):
            raise _Restart  # a result left unset
    elif isinstance(out, AsyncValue) or not isinstance(out, (list, tuple)):
        out = (out,)
    if len(out) != n:
        raise _Restart
    return [v if isinstance(v, AsyncValue) else AsyncValue(CONCRETE, v) for v in out]


def _never(task: Any) -> bool:
    return False


class _OrderedCall:
    """One call on an ordered plan."""

    __slots__ = ("fn", "plan", "program", "ctx", "bctx", "deep", "request", "args", "regs", "it", "help", "run_only",
                 "unmade", "cols")

    def __init__(self, fn: BEFFunction, ctx: ExecutionContext, args: Sequence[AsyncValue]) -> None:
        plan = fn._ordered
        self.fn = fn
        self.plan = plan
        self.program = fn.program
        self.unmade = fn.program.functions._items  # (None: no object made for the function)
        self.ctx = ctx
        self.bctx = bctx = ctx._nested or ctx.nested()  # (a branch's kernels run here)
        self.deep = bctx.deep
        self.request = ctx.request
        self.args = list(args)
        regs: list[Any] = [None] * plan.num_registers
        regs[: len(args)] = [a.value for a in args]
        self.regs = regs
        self.it = zip(plan.kinds, plan.fns, plan.xs, plan.ys, plan.rs, plan.ds)
        # The queue was idle when the call started and the host waits for
        # the call: every queued task is the call's own, its pure kernels'
        # work, and a wait runs them here.
        wq = ctx.host.work_queue
        self.help = wq.run_queued_until
        self.run_only = getattr(wq, "run_if_only", _never)
        self.cols = fn.bef_function.columns  # (the function's own locations)

    def start(self) -> list[AsyncValue]:
        """Run the call: its results, or those of the call run again in
        TFRT's order."""
        try:
            self._loop()
        except Exception as exc:
            return self._restart(exc)
        except BaseException as exc:
            self._abort(exc)
        return self._results()

    def _results(self) -> list[AsyncValue]:
        regs = self.regs
        out = []
        for r in self.plan.returns:
            v = regs[r]
            out.append(v if isinstance(v, AsyncValue) else AsyncValue(CONCRETE, v))
        self.regs = []
        return out

    def _restart(self, exc: Exception) -> list[AsyncValue]:
        """Run the call again from the start on the interpreter."""
        self.regs = []
        self.it = iter(())
        del exc
        fn = self.fn
        ex = fn._execution(self.ctx)
        results = ex.prebind_results()
        ex.run(self.args)
        return results

    def _abort(self, exc: BaseException) -> None:
        """Ctrl-C or SystemExit: what the interpreter does when one stops a
        call (``_FlatExecution._abort``): reported, the request interrupted,
        raised again."""
        self.regs = []
        self.it = iter(())
        info = ErrorInfo(f"{type(exc).__name__}: {exc} (while running {self.fn.describe()})")
        self.request.interrupt(exc)
        self.ctx.host.emit_error(info)
        raise exc

    def _loop(self) -> None:
        """Run the steps."""
        regs = self.regs
        v = None
        for kind, f, x, y, r, d in self.it:
            if kind == 2:
                v = f(regs[x], regs[y])
            elif kind == 1:
                v = f(regs[x])
            elif kind == 3:
                v = f(x)
            elif kind == 0:
                v = f()
            elif kind == _K_IF:
                self._if1(f, x, y, r, d)
                continue
            elif kind == _K_ASYNC:
                self._async1(f, x, y, r, d)
                continue
            elif kind == _K_ASYNC_SPEC:
                self._async(f, x)
                continue
            elif kind == _K_IF_SPEC:
                self._if(x)
                continue
            else:
                v = None
                _general_step(regs, f, x)
                continue
            if d:
                if d == 1:
                    regs[x] = None
                else:
                    if d & 1:
                        regs[x] = None
                    if d & 2:
                        regs[y] = None
                    if d & 4:
                        v = None
                        continue
            regs[r] = v

    def _async1(self, f: Any, x: int, y: int, r: int, d: int) -> None:
        """An async kernel of one result and operands ``x`` (and ``y``)."""
        regs = self.regs
        frame = _new_frame(_Frame)
        frame.exec_ctx = self.ctx
        frame._program = self.program
        frame._cols = self.cols
        frame._where = r
        frame._values = [regs[x]] if y < 0 else [regs[x], regs[y]]
        frame._avs = None
        frame.attrs = frame.funcs = ()
        frame.results = [None]
        if d & 1:
            regs[x] = None
        if d & 2:
            regs[y] = None
        out = f(frame)
        if not isinstance(out, AsyncValue):
            out = _called(frame, out, 1)[0]
        if d & _READ:
            regs[r] = self._value(out)
        elif not d & 4:
            regs[r] = out

    def _value(self, w: AsyncValue) -> Any:
        """The value of an async kernel's result that a later kernel reads:
        the work it queued runs now (its task when that is the only one
        queued, the queued tasks in order otherwise: every one is the
        call's own)."""
        if not w.state:
            if not self.run_only(w):
                self.help(w)
            if not w.state:
                raise _Restart  # (set by another thread, later: TFRT's order)
        if w.state != CONCRETE or self.request.cancel_value is not None:
            raise _Restart  # (cancelled: every kernel is, in TFRT's order)
        return w.value

    def _if1(self, branches: tuple, x: int, y: int, r: int, d: int) -> None:
        """``tfrt.if`` of one result on condition ``x`` and operand ``y``
        (``branches``: see ``_branch_plans``)."""
        regs = self.regs
        values = [regs[y]]
        if regs[x]:
            index, body = branches[0], branches[2]
        else:
            index, body = branches[1], branches[3]
        if d & 1:
            regs[x] = None
        if d & 2:
            regs[y] = None
        if body is not None and self.unmade[index] is None and not self.deep:
            fast = body.fast
            out = body.run(self.bctx, values) if fast is None else fast(self.bctx, *values)
            if type(out) is not tuple:
                raise _Restart
        else:
            out = self._branch(index, values)
        if len(out) != 1:
            raise _Restart
        if not d & 4:
            regs[r] = out[0]

    def _async(self, f: Any, spec: tuple) -> None:
        attrs, k_args, results, k_free, k_dead, read, k = spec
        regs = self.regs
        frame = self._frame((k,), [regs[a] for a in k_args], attrs, len(results))
        for a in k_free:
            regs[a] = None
        out = _called(frame, f(frame), len(results))
        for r, v, gone, wait in zip(results, out, k_dead, read):
            if wait:
                regs[r] = self._value(v)
            elif not gone:
                regs[r] = v

    def _frame(self, where: Any, values: list, attrs: tuple, n: int) -> _Frame:
        """An async kernel's frame (its site from ``where``: see _Frame)."""
        frame = _new_frame(_Frame)
        frame.exec_ctx = self.ctx
        frame._program = self.program
        frame._cols = self.cols
        frame._where = where
        frame._values = values
        frame._avs = None
        frame.attrs = attrs
        frame.funcs = ()
        frame.results = [None] * n
        return frame

    def _if(self, spec: tuple) -> None:
        k_args, results, k_free, k_dead, then_i, else_i = spec
        regs = self.regs
        index = then_i if regs[k_args[0]] else else_i
        values = [regs[a] for a in k_args[1:]]
        for a in k_free:
            regs[a] = None
        self._store(self._branch(index, values), results, k_dead)

    def _branch(self, index: int, values: list) -> tuple:
        """Run function ``index`` on ``values`` on its column plan (or its
        compiled code): a tuple of its results' values."""
        ctx = self.bctx
        if self.deep:
            raise _Restart
        program = self.program
        cp = program.region_plan(index, len(values))
        if cp is None:
            branch = program.functions[index]
            if branch.kind != bp.ASYNC_FUNCTION or len(values) != len(branch.arg_types):
                raise _Restart
            cp = branch._column_plan()
            if cp is None or not cp.pure:
                raise _Restart  # a branch the column path does not take, or not pure
            fast = branch._fast_code()  # (counts the call, as call_values_in does)
            out = cp.run(ctx, None, values) if fast is None else fast.func(ctx, *values)
        elif not cp.pure:
            raise _Restart
        elif not cp.kinds:  # (a region that returns its arguments)
            return tuple([values[r] for r in cp.returns])
        else:
            out = cp.run(ctx, None, values)
        if type(out) is not tuple:
            raise _Restart
        return out

    def _store(self, out: tuple, results: tuple, k_dead: tuple) -> None:
        if len(out) != len(results):
            raise _Restart
        regs = self.regs
        for r, v, gone in zip(results, out, k_dead):
            if not gone:
                regs[r] = v
