"""The runtime never hangs and never loses an error, on every work queue.

Each check runs in its own process with a timeout, so a regression fails
the test instead of hanging the suite.  One test per way a call used to
hang or fail where it should not:

1. an error an async kernel reports later (``frame.report_error`` from a
   task) reaches the call on ``mstd`` as it does on ``s``;
2. a kernel raising ``KeyboardInterrupt`` or ``SystemExit`` stops its call,
   which raises it, and leaves every worker (and blocking thread) alive;
3. a ``RecursionError`` in the executor's own bookkeeping ends the call
   with an error; deep recursion through ``tfrt.call`` runs, and past
   ``HostContext.max_call_depth`` it ends in the same clean error on every
   queue;
4. ``tfrt.repeat.i32``, ``tfrt.while`` and chains of forwarded values run
   iteratively: loops far past the old limit (about 190,000 iterations) in
   flat memory;
5. ``Program.submit`` returns at once, and ``cancel()`` stops a running loop
   between iterations;
6. a call interrupted by Ctrl-C leaves nothing queued behind: the next call
   is as fast as ever.

Then the property test: random programs from 8 threads on ``s``,
``mstd:1``, ``mstd:2`` and ``mstd:4`` (``never_hangs_stress.py``).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent

# The scripts run on the runtime alone (no compiler): ``load(name, queue)``
# builds a program of never_hangs_programs.py on a fresh host.
PRELUDE = '''
import gc, os, resource, sys, threading, time
sys.path.insert(0, sys.argv[1])
import never_hangs_programs
import tfrt.api as api
from tfrt.executor import BEFProgram, set_recursion_limit
from tfrt.host_context import HostContext
from tfrt.kernels.registry import BUILTIN_KERNEL_MODULES, KernelError, KernelRegistry, kernel

QUEUES = ("s", "mstd:1", "mstd:2")
set_recursion_limit()  # as tfrt.api.load does


def load(program, queue, **host_args):
    registry = KernelRegistry()
    for name in BUILTIN_KERNEL_MODULES:
        registry.add_module(name)
    registry.add_module(sys.modules["__main__"])
    diags = []
    host = HostContext(work_queue=queue, registry=registry, diag_handler=diags.append, **host_args)
    bef = never_hangs_programs.PROGRAMS[program]().build()
    return api.Program(BEFProgram.load(bef, host), host, diags)


def outcome(fn):
    try:
        return ("ok", fn())
    except api.CancelledError:
        return ("cancelled",)
    except api.ExecutionError as exc:
        return ("error", exc.info.message)
    except TimeoutError:
        return ("hung",)
    except BaseException as exc:
        if isinstance(exc, Exception):
            return ("exception", type(exc).__name__, str(exc)[:200])
        return ("base", type(exc).__name__)


def max_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
'''


def run_script(*parts: str, timeout: float = 120, quiet: bool = True) -> str:
    """Run PRELUDE and ``parts`` in a fresh interpreter; its stdout.  A hang is
    a TimeoutExpired, a failed assertion a non-zero exit: both fail the test,
    as does (``quiet``) a worker reporting a task that raised."""
    source = PRELUDE + "\n".join(textwrap.dedent(p) for p in parts)
    # A script still running 10 s before its limit prints every thread's
    # stack to stderr, which the failure then shows (where it hung).
    dump = f"import faulthandler\nfaulthandler.dump_traceback_later({max(timeout - 10, 1)})\n"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", dump + source, str(HERE)],
            capture_output=True, text=True, timeout=timeout, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        raise AssertionError(f"the script ran past {timeout} s\n--- stdout\n{out[-2000:]}\n--- stderr\n{err[-8000:]}") from None
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    if quiet:
        assert "a work queue task raised" not in proc.stderr, proc.stderr[-4000:]
    return proc.stdout


# 1 ---------------------------------------------------------------------------



def test_errors_reported_later_by_async_kernels_arrive_on_every_queue():
    # On mstd the kernel's later report_error found its result slot cleared
    # (the executor had emptied the frame's own list) and set nothing: the
    # call never returned.
    run_script('''
        want = ("error", "something bad happened asynchronously")
        for q in QUEUES:
            prog = load("errors", q)
            for name in ("alone", "concrete", "indirect", "in_call", "in_repeat"):
                for _ in range(3):  # the interpreter, then the compiled path
                    got = outcome(lambda: prog.submit(name).result(timeout=10))
                    assert got == want, (q, name, got)
                    got = outcome(lambda: prog.call(name))
                    assert got == want, (q, name, got)
            prog.close()
    ''')


# 2 ---------------------------------------------------------------------------

BASE_KERNELS = '''
KINDS = (KeyboardInterrupt, SystemExit)


@kernel("nh.raise")
def raise_(x, kind):
    if x < 0:
        raise KINDS[kind](f"raised for {x}")
    return x


@kernel("nh.async_raise", kind="async")
def async_raise(frame):
    # In a task of the request, on a worker thread under mstd.
    return frame.exec_ctx.spawn(raise_, frame.arg(0), frame.arg(1))


@kernel("nh.blocking_raise", kind="async")
def blocking_raise(frame):
    # The blocking thread resolves the result, then raises.
    x = frame.arg(0)
    out = frame.allocate_result(0)

    def work():
        out.set_value(x)
        raise SystemExit("a blocking task exits")

    frame.host.enqueue_blocking_work(work)
'''



def test_kernels_raising_keyboard_interrupt_or_system_exit_leave_the_workers_alive():
    # A worker caught only Exception: each such kernel ended a worker, and
    # once all had ended every later call hung.  Now the call stops and
    # raises the exception, as concurrent.futures' result() does.
    run_script(BASE_KERNELS, '''
        for q in QUEUES + ("mstd:1,1",):
            prog = load("base", q)
            for _ in range(3):  # more rounds than there are workers
                for name in ("f", "in_call", "async", "unused"):
                    for kind, exc in enumerate(("KeyboardInterrupt", "SystemExit")):
                        got = outcome(lambda: prog.call(name, -1, kind))
                        assert got == ("base", exc), (q, name, got)
                        got = outcome(lambda: prog.submit(name, -1, kind).result(timeout=10))
                        assert got == ("base", exc), (q, name, got)
                # It stops a loop of a million iterations at once.
                t0 = time.monotonic()
                assert outcome(lambda: prog.call("in_loop", -1, 0)) == ("base", "KeyboardInterrupt")
                assert time.monotonic() - t0 < 5
                # A blocking thread outlives a task that raises.  (On s, blocking
                # work runs on the caller's thread, and what escapes it reaches
                # the caller, as Ctrl-C does.)
                want = ("base", "SystemExit") if q == "s" else ("ok", 7)
                assert outcome(lambda: prog.call("blocking", 7)) == want, q
            # Clean inputs still run, on live workers and blocking threads.
            assert prog.submit("f", 3, 0).result(timeout=10) == 6
            assert prog.call("async", 5, 1) == 5
            if q != "s":
                assert prog.submit("blocking", 9).result(timeout=10) == 9
            workers = getattr(prog.host.work_queue, "_workers", [])
            assert all(w.is_alive() for w in workers), q
            prog.close()
    ''', quiet=False)  # the blocking task's SystemExit is reported


# 3 ---------------------------------------------------------------------------



def test_deep_recursion_runs_and_a_recursion_error_cannot_leave_a_call_unfinished():
    out = run_script('''
        for q in QUEUES:
            prog = load("rec", q)
            # 2,000 levels (4,000 nested executions): past the Python stack
            # before (RecursionError on s, no return at all on mstd:2).
            assert prog.call("f", 2000) == 2000, q
            assert prog.submit("f", 2000).result(timeout=60) == 2000, q
            # Too little stack for the executor's own frames: a RecursionError
            # in its bookkeeping must end the call, not leave it pending (the
            # request's count of kernels to run was never counted down).
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(350)
            try:
                call = prog.submit("f", 600)
                got = outcome(lambda: call.result(timeout=20))
                got2 = outcome(lambda: prog.call("f", 600))
            finally:
                sys.setrecursionlimit(limit)
            for g in (got, got2):
                assert g[0] in ("error", "exception"), (q, g)
                assert "RecursionError" in str(g), (q, g)
            assert call.done()
            assert prog.call("f", 300) == 300, q  # fine afterwards
            print(q, got[0], got2[0])
            prog.close()
    ''')
    assert len(out.splitlines()) == 3


def test_recursion_past_the_maximum_depth_is_the_same_clean_error_on_every_queue():
    out = run_script('''
        seen = set()
        for q in QUEUES:
            prog = load("rec", q, max_call_depth=500)
            assert prog.call("f", 240) == 240  # 481 nested executions: within
            for run in (lambda: prog.call("f", 1000), lambda: prog.submit("f", 1000).result(30)):
                seen.add(outcome(run))
            prog.close()
        assert len(seen) == 1, seen
        print(seen.pop()[1])
    ''')
    assert "called at depth 501, past the maximum call depth 500" in out, out
    assert "function 'f'" in out, out


# 4 ---------------------------------------------------------------------------


TICK = '''
TICKS = [0]


@kernel("nh.tick")
def tick(x):
    TICKS[0] += 1
    return x + 1
'''


def test_long_loops_run_iteratively_in_flat_memory():
    # Each 32-iteration block of tfrt.repeat.i32 re-entered the next through
    # and_then: a RecursionError past about 190,000 iterations.
    run_script(TICK, '''
        for q in QUEUES:
            prog = load("loops", q)
            assert prog.call("repeat", 20_000) == 20_000
            assert prog.call("while", 20_000) == 20_001
            gc.collect()
            before = max_rss_mib()
            assert prog.call("repeat", 250_000) == 250_000, q
            assert prog.call("while", 250_000) == 250_001, q
            grew = max_rss_mib() - before
            assert grew < 8, (q, grew)  # MiB: nothing is kept per iteration
            assert prog.call("async_repeat", 3_000) == 3_000, q
            assert prog.call("while2", 2_000) == 2_001, q
            prog.close()
    ''')


def test_long_chains_of_forwarded_values_resolve_in_a_loop():
    run_script('''
        from tfrt.async_value import AsyncValue, IndirectAsyncValue, when_all
        from tfrt.host_context import HostContext

        chain = [IndirectAsyncValue() for _ in range(100_000)]
        for a, b in zip(chain, chain[1:]):
            a.forward_to(b)
        end = AsyncValue()
        chain[-1].forward_to(end)
        end.set_value(7)  # one frame, not one per link
        assert all(v.get() == 7 for v in chain)

        root = AsyncValue()
        join = root
        for _ in range(20_000):
            join = when_all([join], lambda p: p[0] + 1)
        root.set_value(0)
        assert join.get() == 20_000

        host = HostContext()  # a task returning a task returning a task ...
        def nest(k):
            return 0 if k == 0 else host.spawn(nest, k - 1)
        top = host.spawn(nest, 20_000)
        assert host.await_values([top], timeout=60) and top.get() == 0
    ''')


@pytest.mark.slow
def test_ten_million_iterations_of_a_one_kernel_body_in_flat_memory():
    out = run_script(TICK, '''
        for q in ("s", "mstd:2"):
            prog = load("loops", q)
            assert prog.call("repeat", 100_000) == 100_000
            gc.collect()
            before = max_rss_mib()
            t0 = time.perf_counter()
            assert prog.call("repeat", 10_000_000) == 10_000_000
            dt = time.perf_counter() - t0
            grew = max_rss_mib() - before
            print(f"{q}: 10,000,000 iterations in {dt:.1f} s, max RSS {before:.1f} -> "
                  f"{max_rss_mib():.1f} MiB")
            assert grew < 8, (q, grew)
            prog.close()
    ''', timeout=900)
    print(out)


# 5 ---------------------------------------------------------------------------


def test_submit_returns_at_once_and_cancel_stops_a_running_loop():
    # submit ran the function on the calling thread, so a loop ran (or
    # launched all its iterations) before submit returned.
    run_script(TICK, '''
        for q in QUEUES:
            prog = load("loops", q)
            for name in ("ticking", "while", "while2", "async_repeat"):
                t0 = time.monotonic()
                call = prog.submit(name, 50_000_000)
                assert time.monotonic() - t0 < 0.05, (q, name, "submit blocked")
                t1 = time.monotonic()
                assert outcome(lambda: call.result(timeout=0.1)) == ("hung",)  # still running
                assert time.monotonic() - t1 < 1, (q, name, "result(timeout) overran")
                call.cancel()
                t2 = time.monotonic()
                assert outcome(lambda: call.result(timeout=10)) == ("cancelled",), (q, name)
                assert time.monotonic() - t2 < 1, (q, name, "cancel took too long")
                if name == "ticking":
                    ticks = TICKS[0]
                    assert ticks > 0
                    time.sleep(0.05)
                    assert TICKS[0] == ticks, (q, "the loop went on after cancel")
                assert prog.call(name, 10) in (10, 11)  # the program is fine
            prog.close()
    ''')


# 6 ---------------------------------------------------------------------------


def test_a_call_interrupted_by_ctrl_c_leaves_nothing_behind():
    # On s, an interrupted call's queued work ran inside the next call.
    run_script(TICK, '''
        import random
        import signal


        def ctrl_c():
            os.kill(os.getpid(), signal.SIGINT)


        rng = random.Random(6)
        for q in ("s", "mstd:2"):
            prog = load("loops", q)
            for name in ("async_repeat", "repeat", "while", "while2"):
                timer = threading.Timer(0.05 + rng.random() * 0.1, ctrl_c)
                timer.start()
                try:
                    prog.call(name, 10_000_000)
                    raise AssertionError("not interrupted")
                except KeyboardInterrupt:
                    pass
                finally:
                    timer.join()
                t0 = time.monotonic()
                assert prog.call("add", 1, 2) == 3
                assert prog.call(name, 100) in (100, 101)
                assert time.monotonic() - t0 < 1.0, (q, name, time.monotonic() - t0)
            prog.close()
    ''')


# The property -------------------------------------------------------------------


def _stress(*args: str, timeout: float) -> str:
    proc = subprocess.run(
        [sys.executable, str(HERE / "never_hangs_stress.py"), *args],
        capture_output=True, text=True, timeout=timeout, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert "a work queue task raised" not in proc.stderr, proc.stderr[-3000:]
    return proc.stdout


def test_random_programs_from_8_threads_never_hang_or_lose_an_error():
    # A few seconds: 4 programs, 40 calls each, on s, mstd:1, mstd:2 and mstd:4.
    out = _stress("--seeds", "4", "--calls", "40", timeout=240)
    assert "0 failing program runs" in out, out


@pytest.mark.slow
def test_random_programs_from_8_threads_never_hang_or_lose_an_error_long():
    # The documented long run (docs/scheduling.md) is --seeds 200.
    out = _stress("--seeds", "100", "--first", "1000", "--calls", "64", timeout=3000)
    assert "0 failing program runs" in out, out


def test_cancel_after_the_call_finished_changes_nothing():
    import tfrt.api

    prog = tfrt.api.load("""
func.func @f(%n: i32) -> i32 {
  %one = arith.constant 1 : i32
  %r = arith.addi %n, %one : i32
  return %r : i32
}""")
    c = prog.submit("f", 100)
    assert c.result() == 101
    assert c.cancel() is False
    assert not c.cancelled and c.result() == 101
