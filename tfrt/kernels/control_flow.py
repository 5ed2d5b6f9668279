"""TFRT's control-flow kernels (``lib/basic_kernels/control_flow_kernels.cc``, ``parallel_kernels.cc``).

Control flow is ordinary kernels that run functions (``frame.funcs``): a
callee's arguments are the kernel's argument values, its results become the
kernel's results (placeholders while the callee still runs).

    %r = tfrt.call @f(%a) : (i32) -> i32
    %r = tfrt.if %c, %a : (i32) -> i32 { ... } else { ... }
    %r:2 = tfrt.repeat.i32 %n, %ch, %v : !tfrt.chain, i32 { ... }
    %a, %b = tfrt.while %c @body(%x, %y) parallel_iterations(1) : (i32, i32) -> (i32, i32)
    %done = tfrt.parallel_for.i32 %s to %e fixed %bs, %x : i32 { ... }
"""

from __future__ import annotations

import threading
from time import perf_counter
from typing import Sequence

from tfrt.async_value import (
    CONCRETE,
    ERROR,
    AsyncValue,
    ErrorInfo,
    IndirectAsyncValue,
    run_when_ready,
)
from tfrt.kernels.registry import CHAIN, AsyncKernelFrame, kernel

# -- chains --------------------------------------------------------------------


@kernel("tfrt.new.chain")
def new_chain():
    return CHAIN


@kernel("tfrt.merge.chains")
def merge_chains(*_values):
    return CHAIN


@kernel("tfrt.alias.value")
def alias_value(_chain, value):
    return value


# -- calls and branches -------------------------------------------------------


@kernel("tfrt.call", kind="async")
def call(frame: AsyncKernelFrame):
    return frame.funcs[0].execute(frame.exec_ctx, frame.args)


def _forward_all(targets: Sequence[IndirectAsyncValue], values: Sequence[AsyncValue]) -> None:
    for t, v in zip(targets, values):
        t.forward_to(v)


def _branch(frame: AsyncKernelFrame, selector, pick) -> None:
    """Run ``pick(selector_value)``'s function on args[1:], now or when the selector resolves."""
    args = frame.args
    exec_ctx = frame.exec_ctx
    n = frame.num_results

    def run(results_out: list) -> None:
        if selector.state == ERROR:
            results_out.extend([selector] * n)
            return
        fn = pick(selector.value)
        results_out.extend(fn.execute(exec_ctx, args[1:]))

    if selector.state:
        out: list = []
        run(out)
        return out
    placeholders = [IndirectAsyncValue() for _ in range(n)]

    def later() -> None:
        out: list = []
        run(out)
        _forward_all(placeholders, out)

    selector.and_then(later)
    return placeholders


@kernel("tfrt.if", kind="async")
def if_(frame: AsyncKernelFrame):
    then_fn, else_fn = frame.funcs[0], frame.funcs[1]
    return _branch(frame, frame.args[0], lambda c: then_fn if c else else_fn)


@kernel("tfrt.cond", kind="async")
def cond(frame: AsyncKernelFrame):
    """tfrt.if with symbol functions (``a_true_fn``, ``b_false_fn`` sort in that order)."""
    return if_(frame)


@kernel("tfrt.case", kind="async")
def case(frame: AsyncKernelFrame):
    branches = frame.funcs

    def pick(index: int):
        if index < 0 or index >= len(branches):
            index = len(branches) - 1  # out of range: the last branch
        return branches[index]

    return _branch(frame, frame.args[0], pick)


# -- loops --------------------------------------------------------------------
#
# Loops run iteratively: one Python loop, never a frame per iteration or per
# block, so a loop of any length runs in constant stack and (for a body whose
# values die each iteration) constant memory.  Each checks the request's
# cancellation before every iteration, and after _SLICE seconds of running
# (checked every _REPEAT_BLOCK iterations) it hands the rest of the loop to
# the work queue: the thread gets back to its queue, so on ``s`` a caller's
# bounded wait (``Call.result(timeout)``) and other queued work get their
# turn during a long loop, and on ``mstd`` the worker takes other tasks.
# While the iterations' values come back concrete, the loops pass plain
# values from one iteration to the next (BEFFunction.call_values) instead
# of AsyncValues.

_REPEAT_BLOCK = 32  # iterations per block, as TFRT's repeat runs them
_SLICE = 0.02  # seconds a loop runs before it lets its thread take other work


def _concrete(values: Sequence[AsyncValue]) -> bool:
    for v in values:
        if v.state != CONCRETE:
            return False
    return True


def _resolve_all(targets: Sequence[IndirectAsyncValue], values: tuple) -> None:
    for t, v in zip(targets, values):
        t.set_value(v)


def _loop_failed(exec_ctx, results: Sequence[IndirectAsyncValue], exc: BaseException) -> None:
    """Something raised out of a loop's own code (not a kernel: those fail as
    values), a Ctrl-C between two kernels, say: its results still resolve,
    so nothing waits for them forever."""
    info = ErrorInfo(f"{type(exc).__name__}: {exc}")
    for r in results:
        if not r.state:
            try:
                r.set_error(info)
            except RuntimeError:  # resolved meanwhile
                pass
    if not isinstance(exc, Exception):
        exec_ctx.request.interrupt(exc)


@kernel("tfrt.while", attrs=("i64",), kind="async")
def while_(frame: AsyncKernelFrame):
    (parallel_iterations,) = frame.attrs
    body = frame.funcs[0]
    condition = frame.args[0]
    body_args = list(frame.args[1:])
    results = [IndirectAsyncValue() for _ in range(frame.num_results)]
    if parallel_iterations > 1:
        _while_async(frame.exec_ctx, body, condition, body_args, results)
    else:
        _WhileLoop(frame.exec_ctx, body, condition, body_args, results).run()
    return results


def _while_finish(condition: AsyncValue, body_args: list, results: list) -> None:
    if condition.state != ERROR:
        _forward_all(results, body_args)
        return
    # An error condition becomes every result, once the loop values settle.
    run_when_ready(body_args, lambda: _forward_all(results, [condition] * len(results)))


class _Loop:
    """A loop kernel's state; ``run`` steps it, and a failure outside the body's
    kernels (a BaseException) fails the loop's results before propagating."""

    __slots__ = ()

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:
            _loop_failed(self.exec_ctx, self.results, exc)
            raise


class _WhileLoop(_Loop):
    """``tfrt.while`` with ``parallel_iterations(1)``: the body runs inline while
    the condition is available and true (TFRT's TFRTWhileInlineImpl); a
    condition still pending continues the loop from a task once it resolves."""

    __slots__ = ("exec_ctx", "body", "condition", "args", "results")

    def __init__(self, exec_ctx, body, condition: AsyncValue, args: list, results: list) -> None:
        self.exec_ctx = exec_ctx
        self.body = body
        self.condition = condition
        self.args = args
        self.results = results

    def _run(self) -> None:
        exec_ctx = self.exec_ctx
        body = self.body
        request = exec_ctx.request
        inner = exec_ctx.nested()  # the body's kernels' context (call_values_in)
        condition = self.condition
        args = self.args
        self.condition = self.args = None
        deadline = perf_counter() + _SLICE
        n = 0
        # Plain values while the iterations come back concrete.
        vals = cond = None
        if condition.state == CONCRETE and _concrete(args):
            cond = condition.value
            vals = tuple([a.value for a in args])
        while True:
            if vals is not None:
                if not cond:
                    _resolve_all(self.results, vals)
                    return
            elif condition.state == ERROR or not condition.value:
                _while_finish(condition, args, self.results)
                return
            cancelled = request.cancel_value
            if cancelled is not None:
                if vals is not None:
                    args = [AsyncValue(CONCRETE, v) for v in vals]
                _while_finish(cancelled, args, self.results)
                return
            n += 1
            if n == _REPEAT_BLOCK:
                n = 0
                if perf_counter() >= deadline:
                    self._later(AsyncValue(CONCRETE, cond) if vals is not None else condition,
                                args if vals is None else [AsyncValue(CONCRETE, v) for v in vals])
                    return
            if vals is not None:
                out = body.call_values_in(inner, vals)
                if type(out) is tuple:
                    cond = out[-1]
                    vals = out[:-1]
                    continue
                vals = None
            else:
                out = body.execute(exec_ctx, args)
            condition = out[-1]
            args = out[:-1]
            if not condition.state:
                # TFRT waits for the condition, then goes on in a task.
                self.condition = condition
                self.args = args
                condition.and_then(self._enqueue)
                return
            if condition.state == CONCRETE and _concrete(args):
                cond = condition.value
                vals = tuple([a.value for a in args])

    def _later(self, condition: AsyncValue, args: list) -> None:
        self.condition = condition
        self.args = args
        self.exec_ctx.host.enqueue_task(self.run)

    def _enqueue(self) -> None:
        self.exec_ctx.host.enqueue_task(self.run)


def _while_async(exec_ctx, body, condition: AsyncValue, body_args: list, results: list) -> None:
    if condition.state == ERROR or not condition.value:
        _while_finish(condition, body_args, results)
        return
    cancelled = exec_ctx.request.cancel_value
    if cancelled is not None:
        _while_finish(cancelled, body_args, results)
        return
    out = body.execute_async(exec_ctx, body_args)
    next_condition = out[-1]
    next_args = out[:-1]
    next_condition.and_then(
        lambda: _while_async(exec_ctx, body, next_condition, next_args, results)
    )


@kernel("tfrt.repeat.i32", kind="async")
def repeat_i32(frame: AsyncKernelFrame):
    count_av = frame.args[0]
    args = list(frame.args[1:])
    results = [IndirectAsyncValue() for _ in range(frame.num_results)]
    loop = _RepeatLoop(frame.exec_ctx, frame.funcs[0], args, results)

    def start() -> None:
        if count_av.state == ERROR:
            _forward_all(results, [count_av] * len(results))
            return
        count = count_av.value
        if count <= 0:
            _forward_all(results, args)
            return
        loop.count = count
        loop.run()

    count_av.and_then(start)
    return results


class _RepeatLoop(_Loop):
    """``tfrt.repeat.i32`` (TFRT's TFRTRepeatI32Block, as one loop).

    Blocks of 32 iterations; between blocks it waits for the first loop value
    when that is still pending, as TFRT does (an async body then runs at most
    a block ahead of its values), and goes on in the resolving thread.
    """

    __slots__ = ("exec_ctx", "body", "count", "next", "passed", "results")

    def __init__(self, exec_ctx, body, args: list, results: list) -> None:
        self.exec_ctx = exec_ctx
        self.body = body
        self.count = 0
        self.next = 0
        self.passed = args
        self.results = results

    def _run(self) -> None:
        exec_ctx = self.exec_ctx
        body = self.body
        request = exec_ctx.request
        inner = exec_ctx.nested()  # the body's kernels' context (call_values_in)
        count = self.count
        i = self.next
        passed = self.passed
        self.passed = None
        deadline = perf_counter() + _SLICE
        vals = tuple([a.value for a in passed]) if _concrete(passed) else None
        while True:
            end = min(i + _REPEAT_BLOCK, count)
            while i < end:
                cancelled = request.cancel_value
                if cancelled is not None:
                    _forward_all(self.results, [cancelled] * len(self.results))
                    return
                i += 1
                if vals is not None:
                    out = body.call_values_in(inner, vals)
                    if type(out) is tuple:
                        vals = out
                        continue
                    vals = None
                    passed = out
                else:
                    passed = body.execute(exec_ctx, passed)
            if i >= count:
                if vals is not None:
                    _resolve_all(self.results, vals)
                else:
                    _forward_all(self.results, passed)
                return
            if vals is None:
                if passed and not passed[0].state:
                    self.next = i
                    self.passed = passed
                    passed[0].and_then(self.run)  # the next block once it resolves
                    return
                if _concrete(passed):
                    vals = tuple([a.value for a in passed])
            if perf_counter() >= deadline:
                self.next = i
                self.passed = passed if vals is None else [AsyncValue(CONCRETE, v) for v in vals]
                exec_ctx.host.enqueue_task(self.run)
                return


@kernel("tfrt.once", kind="async")
def once(frame: AsyncKernelFrame):
    fn = frame.funcs[0]
    n = frame.num_results
    resources = frame.exec_ctx.resource_context
    if resources is None:
        err = AsyncValue(ERROR, ErrorInfo("tfrt.once requires resource context"))
        return [err] * n
    state = resources.get_or_create(f"tfrt.once @{fn.name}", lambda: _OnceState(n))
    if state.claim():
        _forward_all(state.results, fn.execute(frame.exec_ctx, frame.args))
    return list(state.results)


class _OnceState:
    def __init__(self, n: int) -> None:
        self.results = [IndirectAsyncValue() for _ in range(n)]
        self._executed = False
        self._lock = threading.Lock()

    def claim(self) -> bool:
        with self._lock:
            if self._executed:
                return False
            self._executed = True
            return True


# -- parallel loops -------------------------------------------------------------


@kernel("tfrt.parallel_for.i32", kind="async")
def parallel_for_i32(frame: AsyncKernelFrame):
    start, end, block_size = frame.arg(0), frame.arg(1), frame.arg(2)
    extra = list(frame.args[3:])
    body = frame.funcs[0]
    exec_ctx = frame.exec_ctx
    nres = body.num_results
    if nres > 1:
        return AsyncValue(ERROR, ErrorInfo("Invalid parallel body function result types"))
    total = end - start
    done = AsyncValue()
    block_results: list[AsyncValue] = []
    guard = threading.Lock()

    def compute(b: int, e: int) -> None:
        fn_args = [AsyncValue.make_available(b + start), AsyncValue.make_available(e + start), *extra]
        out = body.execute(exec_ctx, fn_args)
        if nres == 1:
            with guard:
                block_results.append(out[0])

    def on_done() -> None:
        if nres == 1:
            run_when_ready(list(block_results), lambda: done.set_value(CHAIN))
        else:
            done.set_value(CHAIN)

    parallel_for(exec_ctx, total, block_size, compute, on_done)
    return done


@kernel("tfrt.parallel_call.i32", kind="async")
def parallel_call_i32(frame: AsyncKernelFrame):
    """tfrt.parallel_for.i32 with a symbol function instead of a region."""
    return parallel_for_i32(frame)


def parallel_for(exec_ctx, total: int, block_size: int, compute, on_done) -> None:
    """TFRT's ParallelFor with a fixed block size: split [0, total) and run the blocks.

    The caller's thread runs one block; the others are split recursively
    into work-queue tasks (TFRT's ``EvalBlocks``), so the range fans out
    in O(log n) steps.
    """
    if total <= 0:
        on_done()
        return
    block = min(max(block_size, 1), total)
    if total <= block:
        compute(0, total)
        on_done()
        return
    num_blocks = (total + block - 1) // block
    pending = [num_blocks]
    guard = threading.Lock()
    host = exec_ctx.host

    def eval_blocks(first: int, last: int) -> None:
        while last - first > 1:
            mid = first + (last - first) // 2
            host.enqueue_task(lambda m=mid, e=last: eval_blocks(m, e))
            last = mid
        compute(first * block, min(total, last * block))
        with guard:
            pending[0] -= 1
            finished = pending[0] == 0
        if finished:
            on_done()

    eval_blocks(0, num_blocks)
