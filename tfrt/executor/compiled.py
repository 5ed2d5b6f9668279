"""The compiled fast path: a function as straight-line Python.

Runs the calls of a function from its ``jit_threshold``-th call on (2 by
default; ``BEFFunction.compile()`` compiles at once) when the plan has an
order (:func:`tfrt.executor.plan._replay`: every kernel is synchronous or
control flow the generated code unwraps, ``FAST_ASYNC_KERNELS``, and the
whole function runs inline on the calling thread when every value is
available), every argument is available and the request is not
cancelled.  The generated code has one line per kernel, ``r = add(r, c)``
(a dying operand's local is reused by the result, so it is freed when the
kernel returns, as TFRT drops operands), ``del`` after other registers'
last use; functions longer than ``FAST_CHUNK`` kernels compile to several
chained functions.

Errors cost nothing until they happen: a kernel that raises unwinds out of
the generated code, and ``recovery.py`` hands the rest of the call to the
interpreter in the state it would have reached itself.  A control-flow
kernel whose results are not all concrete (an error, or work still queued)
exits the same way (:class:`_Pending`).  ``tests/runtime/test_fast_path.py``
checks on random programs that this path and the interpreter print, report
and return the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from tfrt.async_value import CONCRETE, AsyncValue
from tfrt.executor.plan import ArityError, KernelPlan, _invoke, result_count
from tfrt.host_context import ExecutionContext
from tfrt.kernels.registry import KernelContext

if TYPE_CHECKING:
    from tfrt.executor.program import BEFFunction


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
    namespace: dict[str, Any] = {"KernelContext": KernelContext, "_Cancelled": _Cancelled,
                                 "ArityError": ArityError, "result_count": result_count}  # fmt: skip
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
                stmts = [call]
            elif kp.nres == 1:
                stmts = [f"{outs[0]} = {call}"]
            elif kp.sync:  # (a kernel that returns another count is reported, not unpacked)
                stmts = [f"t = {call}; n = result_count(t)", f"if n != {kp.nres}: raise ArityError(n, {kp.nres})",
                         f"{', '.join(outs)}, = t; del t"]  # fmt: skip
            else:
                stmts = [f"{', '.join(outs)}, = {call}"]
            for stmt in stmts:
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
