"""samples/nqueens: one runtime task per placement, joined as AsyncValues.

The counts for N = 4..12 are the known ones under both work queues; one
task runs per placement; bad input is a clear error; cancelling the call
stops the tasks that have not started.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import tfrt.api
from tfrt.async_value import CONCRETE, ERROR, AsyncValue

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "nqueens"
sys.path.insert(0, str(SAMPLE))

import nqueens  # noqa: E402

# OEIS A000170.
KNOWN = {4: 2, 5: 10, 6: 4, 7: 40, 8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200}


@pytest.fixture(scope="module", params=["s", "mstd:2"])
def program(request):
    prog = nqueens.load(request.param)
    yield prog
    prog.close()


def test_known_counts_4_to_12(program):
    for n, expected in KNOWN.items():
        assert nqueens.solve(program, n) == expected, n
    assert [nqueens.solve(program, n) for n in (1, 2, 3)] == [1, 0, 0]


def test_the_reference_recursion_agrees():
    for n, expected in KNOWN.items():
        assert nqueens.count_recursive(n)[0] == expected


def test_one_task_per_placement():
    # Run the sample's task function on a host whose spawn counts the tasks.
    prog = nqueens.load("s")
    try:
        host = prog.host
        spawned = []

        def spawn(fn, *args):
            task = host.spawn(fn, *args)
            spawned.append(task)
            return task

        for n in (5, 6, 8):
            spawned.clear()
            root = nqueens.place(spawn, n, 0, 0, 0, 0)
            assert host.await_values([root], timeout=60)
            assert root.get() == KNOWN[n]
            assert len(spawned) == nqueens.count_recursive(n)[1]
            assert all(t.state == CONCRETE for t in spawned)  # every task resolved its value
    finally:
        prog.close()


def test_bad_sizes_are_clear_errors(program):
    for bad in (0, -3, nqueens.MAX_N + 1):
        with pytest.raises(tfrt.api.ExecutionError, match="N must be between 1 and"):
            nqueens.solve(program, bad)
    with pytest.raises(OverflowError):
        nqueens.solve(program, 2**40)  # not an i32


def test_cancelling_before_the_tasks_start_runs_none_of_them():
    # On s the kernel runs inline when the function is executed; its tasks
    # wait in the queue until the caller waits.
    prog = nqueens.load("s")
    try:
        ran = []
        original = nqueens.place

        def counting_place(spawn, *args):
            ran.append(args)
            return original(spawn, *args)

        nqueens.place = counting_place
        try:
            host = prog.host
            exec_ctx = host.new_execution_context()
            fn = prog.bef_program.function("nqueens")
            results = fn.execute(exec_ctx, [AsyncValue.make_available(8)])
            assert ran == [(8, 0, 0, 0, 0)]
            exec_ctx.request.cancel()
            assert host.await_values(results, timeout=60)
            # A submitted call cancelled before it started runs nothing.
            call = prog.submit("nqueens", 8)
            call.cancel()
            with pytest.raises(tfrt.api.CancelledError, match="Cancelled") as info:
                call.result(timeout=60)
        finally:
            nqueens.place = original
        assert info.value.code == "CANCELLED"
        # Only the kernel's own inline call (the empty board) ran; the 8
        # first-row tasks resolved as cancelled without running.
        assert ran == [(8, 0, 0, 0, 0)]
        assert results[0].error.code == "CANCELLED"
        assert call.results[0].state == ERROR
        assert nqueens.solve(prog, 6) == 4  # the program is fine afterwards
    finally:
        prog.close()


def test_cancelling_on_a_worker_queue_stops_the_search():
    # mstd:1 with the caller holding the only compute slot: the worker cannot
    # start a task until the call is cancelled, then skips them all.
    prog = nqueens.load("mstd:1")
    try:
        queue = prog.host.work_queue
        with queue.external_compute():
            call = prog.submit("nqueens", 12)
            call.cancel()
        with pytest.raises(tfrt.api.CancelledError):
            call.result(timeout=60)
        assert call.cancelled and call.done()
        assert nqueens.solve(prog, 7) == 40
    finally:
        prog.close()


def _run_sample(*args):
    return subprocess.run(
        [sys.executable, str(SAMPLE / "nqueens.py"), *args],
        capture_output=True, text=True, timeout=300,
    )


def test_command_line():
    out = _run_sample("4", "6", "--work_queue_type=mstd:2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("N=4: 2 solutions, 16 tasks in ")
    assert lines[1].startswith("N=6: 4 solutions, 152 tasks in ")
    assert lines[1].endswith("tasks/s, mstd:2)")


def test_command_line_errors_have_no_traceback():
    out = _run_sample("0")
    assert out.returncode == 1
    expected = f"nqueens: error: nqueens.count: N must be between 1 and {nqueens.MAX_N}, got 0\n"
    assert out.stderr == expected
    out = _run_sample("4", "--work_queue_type=mstd:x")
    assert out.returncode == 2
    assert "invalid argument for mstd work queue" in out.stderr
    assert "Traceback" not in out.stderr
