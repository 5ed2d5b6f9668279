"""Many Python threads calling one BEF program at once, under mstd:2.

10,000 calls from 8 threads all get their own, correct results, and the
calls that fail (a division by zero) raise without losing or swapping the
results of the others.  Cancelling a call skips its kernels that have not
run and reports CANCELLED, and other calls are unaffected.  A call waits
for its own kernels only, not for the work of other calls.  Every wait is
bounded, so a deadlock fails the test instead of hanging it.
"""

from __future__ import annotations

import sys
import threading

import pytest
from runtime_helpers import run_threads

import tfrt.api as api
from tfrt.async_value import AsyncValue
from tfrt.host_context import HostContext
from tfrt.kernels.registry import BUILTIN_KERNEL_MODULES, KernelRegistry, kernel

TIMEOUT = 120  # seconds: a bound on every wait, far beyond what the work needs

SOURCE = """\
func.func @f(%a: i32, %b: i32) -> (i32, i32) {
  %s = "tfrt_test.async_add.i32"(%a, %a) : (i32, i32) -> i32
  %q, %r = tfrt.div.i32 %s, %b
  tfrt.return %q, %r : i32, i32
}

func.func @gated(%x: i32) -> i32 {
  %g = "calls_test.gate"(%x) : (i32) -> i32
  %a = "calls_test.tick"(%g) : (i32) -> i32
  %b = "calls_test.tick"(%a) : (i32) -> i32
  tfrt.return %b : i32
}
"""

# x -> the Event that calls_test.gate(x) waits for; ticks records tick inputs.
GATES: dict[int, threading.Event] = {}
TICKS: list[int] = []
_ticks_lock = threading.Lock()


@kernel("calls_test.gate", kind="async")
def gate(frame):
    """Resolves to x on a blocking thread once GATES[x] is set."""
    x = frame.arg(0)
    out = AsyncValue()

    def wait() -> None:
        GATES[x].wait(TIMEOUT)
        out.set_value(x)

    frame.host.enqueue_blocking_work(wait)
    return out


@kernel("calls_test.tick")
def tick(x):
    with _ticks_lock:
        TICKS.append(x)
    return x + 1


@pytest.fixture(scope="module")
def bef_bytes():
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    return write_bef(parse_module(SOURCE, "calls.mlir", allow_unregistered=True))


@pytest.fixture
def program(bef_bytes):
    registry = KernelRegistry()
    for name in BUILTIN_KERNEL_MODULES:
        registry.add_module(name)
    registry.add_module(sys.modules[__name__])
    diagnostics: list = []
    host = HostContext(work_queue="mstd:2", registry=registry, diag_handler=diagnostics.append)
    prog = api.load(bef_bytes, host=host)
    prog.diagnostics = diagnostics
    GATES.clear()
    TICKS.clear()
    yield prog
    for event in GATES.values():
        event.set()  # never leave a blocking thread waiting
    prog.close()



def test_10000_calls_from_8_threads(program):
    per_thread = 1250
    outcomes: dict[int, tuple] = {}
    lock = threading.Lock()

    def caller(t):
        for k in range(per_thread):
            i = t * per_thread + k
            b = i % 7  # every seventh call divides by zero
            try:
                if k % 2:
                    got = ("ok", *program.call("f", i, b))
                else:
                    got = ("ok", *program.submit("f", i, b).result(timeout=TIMEOUT))
            except api.ExecutionError as exc:
                got = ("error", exc.info.message, exc.code)
            with lock:
                assert i not in outcomes
                outcomes[i] = got

    run_threads([lambda t=t: caller(t) for t in range(8)])
    assert len(outcomes) == 8 * per_thread
    for i, got in outcomes.items():
        b = i % 7
        if b == 0:
            assert got == ("error", "Divide by zero", "INTERNAL"), (i, got)
        else:
            assert got == ("ok", *divmod(2 * i, b)), (i, got)
    assert sum(d.message == "Divide by zero" for d in program.diagnostics) == len(
        [i for i in outcomes if i % 7 == 0]
    )


def test_cancel_skips_pending_kernels_and_reports_it(program):
    GATES[1] = threading.Event()
    GATES[2] = threading.Event()
    cancelled = program.submit("gated", 1)
    kept = program.submit("gated", 2)
    assert not cancelled.done()
    cancelled.cancel()
    GATES[1].set()
    GATES[2].set()
    with pytest.raises(api.CancelledError, match="'gated' failed: Cancelled") as info:
        cancelled.result(timeout=TIMEOUT)
    assert info.value.code == "CANCELLED"
    assert kept.result(timeout=TIMEOUT) == 4
    assert sorted(TICKS) == [2, 3]  # only the kept call's kernels ran
    assert "cancelled" in repr(cancelled) or "done" in repr(cancelled)


def test_cancelling_some_of_many_concurrent_calls(program):
    per_thread = 40
    for x in range(8 * per_thread):
        GATES[x] = threading.Event()
    outcomes: dict[int, object] = {}
    lock = threading.Lock()
    started = threading.Barrier(9, timeout=TIMEOUT)

    def caller(t):
        mine = range(t * per_thread, (t + 1) * per_thread)
        calls = [(x, program.submit("gated", x)) for x in mine]
        for x, call in calls:
            if x % 3 == 0:
                call.cancel()
        started.wait()  # every call submitted, the chosen ones cancelled
        for x, call in calls:
            try:
                got = call.result(timeout=TIMEOUT)
            except api.CancelledError:
                got = "cancelled"
            with lock:
                outcomes[x] = got

    def opener():
        started.wait()
        for x in sorted(GATES):
            GATES[x].set()

    run_threads([lambda t=t: caller(t) for t in range(8)] + [opener])
    assert len(outcomes) == 8 * per_thread
    for x, got in outcomes.items():
        assert got == ("cancelled" if x % 3 == 0 else x + 2), (x, got)
    kept = [x for x in outcomes if x % 3]
    assert sorted(TICKS) == sorted([x for x in kept] + [x + 1 for x in kept])


def test_result_has_a_bounded_wait(program):
    GATES[5] = threading.Event()
    call = program.submit("gated", 5)
    with pytest.raises(TimeoutError, match="did not finish within"):
        call.result(timeout=0.05)
    assert not call.wait(timeout=0.01)
    GATES[5].set()
    assert call.result(timeout=TIMEOUT) == 7


def test_a_call_does_not_wait_for_other_calls(program):
    GATES[9] = threading.Event()
    slow = program.submit("gated", 9)  # parked on a closed gate
    done = []
    run_threads([lambda: done.append(program.call("f", 21, 4))])
    assert done == [(10, 2)]
    assert not slow.done()
    GATES[9].set()
    assert slow.result(timeout=TIMEOUT) == 11


def test_cancelling_after_the_result_changes_nothing(program):
    call = program.submit("f", 10, 3)
    assert call.result(timeout=TIMEOUT) == (6, 2)
    call.cancel()
    assert call.result(timeout=TIMEOUT) == (6, 2)
