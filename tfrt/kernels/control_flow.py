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
from typing import Sequence

from tfrt.async_value import (
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
        _while_inline(frame.exec_ctx, body, condition, body_args, results)
    return results


def _while_finish(condition: AsyncValue, body_args: list, results: list) -> None:
    if condition.state != ERROR:
        _forward_all(results, body_args)
        return
    # An error condition becomes every result, once the loop values settle.
    run_when_ready(body_args, lambda: _forward_all(results, [condition] * len(results)))


def _while_inline(exec_ctx, body, condition: AsyncValue, body_args: list, results: list) -> None:
    while condition.state != ERROR and condition.value:
        out = body.execute(exec_ctx, body_args)
        condition = out[-1]
        body_args = out[:-1]
        if not condition.state:
            cond = condition
            args = body_args
            cond.and_then(
                lambda: exec_ctx.host.enqueue_task(
                    lambda: _while_inline(exec_ctx, body, cond, args, results)
                )
            )
            return
    _while_finish(condition, body_args, results)


def _while_async(exec_ctx, body, condition: AsyncValue, body_args: list, results: list) -> None:
    if condition.state == ERROR or not condition.value:
        _while_finish(condition, body_args, results)
        return
    out = body.execute_async(exec_ctx, body_args)
    next_condition = out[-1]
    next_args = out[:-1]
    next_condition.and_then(
        lambda: _while_async(exec_ctx, body, next_condition, next_args, results)
    )


_REPEAT_BLOCK = 32  # iterations per block, as TFRT bounds its stack depth


@kernel("tfrt.repeat.i32", kind="async")
def repeat_i32(frame: AsyncKernelFrame):
    count_av = frame.args[0]
    args = list(frame.args[1:])
    results = [IndirectAsyncValue() for _ in range(frame.num_results)]
    exec_ctx = frame.exec_ctx
    body = frame.funcs[0]

    def start() -> None:
        if count_av.state == ERROR:
            _forward_all(results, [count_av] * len(results))
            return
        count = count_av.value
        if count == 0:
            _forward_all(results, args)
            return
        block = _REPEAT_BLOCK if args else count
        _repeat_block(0, block, count, exec_ctx, body, args, results)

    count_av.and_then(start)
    return results


def _repeat_block(start: int, block: int, count: int, exec_ctx, body, args: list, results: list) -> None:
    passed = args
    out: list = passed
    end = min(start + block, count)
    request = exec_ctx.request
    for i in range(start, end):
        cancel = request.cancel_value
        if cancel is not None:
            _forward_all(results, [cancel] * len(results))
            return
        out = body.execute(exec_ctx, passed)
        if i + 1 != count:
            passed = out
    if end >= count:
        _forward_all(results, out)
        return
    passed[0].and_then(
        lambda: _repeat_block(end, block, count, exec_ctx, body, passed, results)
    )


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
