"""Recovery: the compiled or column path hands a call over to the interpreter part-way.

Runs only when a kernel fails on one of the fast paths (or a control-flow
kernel's results are pending on the compiled path, or a context kernel
cancelled the request).  Both paths run kernels in an order the
interpreter would have run them in, all inline, so the interpreter's state
at the failing kernel is known: :func:`_recover` (compiled path) reads the
live registers from the generated frame's locals and replays the ready
counters and queue up to that kernel, then resumes an
:class:`~tfrt.executor.interpreter._Execution`; the column path
(``columns.py``) has only synchronous kernels on one stream, so
:func:`_finish_in_order` runs the rest in its order by the interpreter's
rules.  Either way the caller gets what the interpreter would have given:
the failed kernel's results are errors, the kernels that use them are
skipped, the others run before the call returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from tfrt.async_value import CONCRETE, ERROR, AsyncValue, IndirectAsyncValue
from tfrt.executor import compiled
from tfrt.executor.compiled import _FastCode, _Pending
from tfrt.executor.interpreter import _Execution
from tfrt.executor.plan import FunctionPlan, _fail, _invoke, _resume_state
from tfrt.host_context import ExecutionContext

if TYPE_CHECKING:
    from tfrt.executor.program import BEFFunction


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
    chunk_start = pos - pos % compiled.FAST_CHUNK
    owners: dict[str, int] = {}
    if len(order) <= compiled.FAST_CHUNK:  # one function: the arguments are parameters
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
