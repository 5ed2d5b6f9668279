"""N-Queens with one runtime task per queen placement.

    python samples/nqueens/nqueens.py 8
    python samples/nqueens/nqueens.py 4 6 8 10 --work_queue_type=mstd:2

``nqueens.mlir`` calls the async kernel ``nqueens.count`` defined here.  The
kernel spawns one task per square of the first row through the runtime's
task API (``exec_ctx.spawn``, which queues the task on the host's work queue
and returns the AsyncValue of its result); each task checks which squares of
the next row are safe, spawns one task per safe square, and returns
``when_all(children, sum)``, the join of their counts as an AsyncValue.  A
task on the last row returns 1; one with no safe square returns 0.  So every
placement is one work-queue task that resolves one AsyncValue, and the
counts flow back up the tree through joins, never through a blocking wait.

The tasks belong to the call's request: cancelling it (``Program.submit(...)
.cancel()``) resolves the tasks that have not started to CANCELLED without
running them.

Import it to use the pieces: :func:`load` (the program on a host with
this kernel), :func:`solve` (count on a loaded program),
:func:`count_recursive` (plain recursion: solutions and placements, the
reference and the task count).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import tfrt.api
from tfrt.async_value import when_all
from tfrt.host_context import HostContext
from tfrt.kernels.registry import (
    BUILTIN_KERNEL_MODULES,
    AsyncKernelFrame,
    KernelError,
    KernelRegistry,
    kernel,
)
from tfrt.work_queue import WorkQueueError

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "nqueens.mlir"
MAX_N = 20  # the search grows ~6x per size; 20 would already take days


def place(spawn, n: int, row: int, cols: int, d1: int, d2: int):
    """The task of one placement: queens stand on rows < ``row``; count the completions.

    ``cols``, ``d1`` and ``d2`` are bit masks of the columns and diagonals
    the queens attack on ``row``.  Returns 1 on a full board, 0 on a dead
    end, else the join of one child task per safe square.
    """
    if row == n:
        return 1
    mask = (1 << n) - 1
    free = ~(cols | d1 | d2) & mask
    if not free:
        return 0
    children = []
    row += 1
    while free:
        bit = free & -free
        free ^= bit
        children.append(
            spawn(place, spawn, n, row, cols | bit, ((d1 | bit) << 1) & mask, (d2 | bit) >> 1)
        )
    return when_all(children, sum)


@kernel("nqueens.count", kind="async")
def count_kernel(frame: AsyncKernelFrame):
    """``%count = "nqueens.count"(%n) : (i32) -> i32``: solutions, one task per placement."""
    n = frame.arg(0)
    if not 1 <= n <= MAX_N:
        raise KernelError(f"nqueens.count: N must be between 1 and {MAX_N}, got {n}")
    # The empty board is the kernel's own work: its children, the queens of
    # the first row, are the first tasks.
    return place(frame.exec_ctx.spawn, n, 0, 0, 0, 0)


def count_recursive(n: int) -> tuple[int, int]:
    """(solutions, placements) by plain recursion: the reference, and the number of tasks."""
    mask = (1 << n) - 1
    placements = 0

    def go(row: int, cols: int, d1: int, d2: int) -> int:
        nonlocal placements
        if row == n:
            return 1
        found = 0
        free = ~(cols | d1 | d2) & mask
        while free:
            bit = free & -free
            free ^= bit
            placements += 1
            found += go(row + 1, cols | bit, ((d1 | bit) << 1) & mask, (d2 | bit) >> 1)
        return found

    return go(0, 0, 0, 0), placements


def registry() -> KernelRegistry:
    """The built-in kernels plus ``nqueens.count``."""
    reg = KernelRegistry()
    for name in BUILTIN_KERNEL_MODULES:
        reg.add_module(name)
    reg.add_module(sys.modules[__name__])
    return reg


_compiled: bytes | None = None


def program_bef() -> bytes:
    """nqueens.mlir compiled to BEF (once per process)."""
    global _compiled
    if _compiled is None:
        from tfrt.passes.compiler import compile_text_to_bef

        _compiled = compile_text_to_bef(PROGRAM.read_text(), str(PROGRAM))
    return _compiled


def load(work_queue: str = "s") -> tfrt.api.Program:
    """The N-Queens program on a new host with the given work queue (``s``, ``mstd:N``).

    Runtime errors are kept in the program's ``diagnostics`` (and raised by
    ``call`` as ExecutionError), not printed.
    """
    diagnostics: list = []
    host = HostContext(work_queue=work_queue, registry=registry(), diag_handler=diagnostics.append)
    program = tfrt.api.load(program_bef(), host=host)
    program.diagnostics = diagnostics
    return program


def solve(program: tfrt.api.Program, n: int) -> int:
    """The number of solutions for an n x n board."""
    return program.call("nqueens", n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="nqueens", description="Count N-Queens solutions with one runtime task per placement."
    )
    parser.add_argument("sizes", metavar="N", type=int, nargs="+", help=f"board sizes (1..{MAX_N})")
    parser.add_argument(
        "--work_queue_type", default="s", help="s (single-threaded) or mstd:N (N worker threads)"
    )
    opts = parser.parse_args(argv)
    try:
        program = load(opts.work_queue_type)
    except WorkQueueError as exc:
        parser.error(str(exc))
    try:
        for n in opts.sizes:
            t0 = time.perf_counter()
            try:
                found = solve(program, n)
            except tfrt.api.ExecutionError as exc:
                sys.stderr.write(f"nqueens: error: {exc.info.message}\n")
                return 1
            seconds = time.perf_counter() - t0
            _, tasks = count_recursive(n)
            print(
                f"N={n}: {found} solutions, {tasks} tasks in {seconds:.3f} s "
                f"({tasks / seconds:,.0f} tasks/s, {opts.work_queue_type})"
            )
    finally:
        program.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
