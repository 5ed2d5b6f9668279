"""Many threads resolving and waiting on AsyncValues and work queues at once.

Every callback runs exactly once and sees its value's payload; joins
combine the right payloads; tasks spawned and awaited from many threads
all resolve to their own results; every wait is bounded.  The thread
switch interval is cut to a few microseconds so that threads interleave
inside the runtime's operations.  The same checks run a second time in a
subprocess with ``TFRT_ASYNC_VALUE_LOCKS=1``: the striped-lock protocol a
free-threaded build uses.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest
from runtime_helpers import run_threads

import tfrt.async_value as av
from tfrt.async_value import AsyncValue, run_when_ready, when_all
from tfrt.host_context import HostContext, Task
from tfrt.kernels.registry import KernelError

TIMEOUT = 120  # seconds: a bound on every wait, far beyond what the work needs


@contextmanager
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(old)



def check_callbacks_run_once():
    """4 threads add callbacks to values that 4 other threads resolve meanwhile."""
    n = 3000
    values = [AsyncValue() for _ in range(n)]
    seen = [[0] * n for _ in range(4)]
    payload_ok = [True] * 4

    def waiter(w):
        order = list(range(n))
        random.Random(w).shuffle(order)
        for i in order:
            v = values[i]

            def cb(i=i, v=v):
                seen[w][i] += 1
                if v.value != i * 7:
                    payload_ok[w] = False

            v.and_then(cb)

    def resolver(r):
        for i in range(r, n, 4):
            values[i].set_value(i * 7)

    with fast_switching():
        run_threads(
            [lambda w=w: waiter(w) for w in range(4)] + [lambda r=r: resolver(r) for r in range(4)]
        )
    assert all(v.state for v in values)
    for w in range(4):
        assert seen[w] == [1] * n, f"waiter {w}: a callback ran twice or never"
    assert all(payload_ok)


def check_joins():
    """Joins over values that different threads resolve, errors included."""
    n = 2000
    values = [AsyncValue() for _ in range(n)]
    bad = {i for i in range(0, n, 97)}
    joins = []
    groups = []
    for k in range(0, n, 10):
        group = list(range(k, k + 10))
        groups.append(group)
        joins.append(when_all([values[i] for i in group], sum))
    ready = []
    run_when_ready(values, lambda: ready.append(True))

    def resolver(r):
        for i in range(r, n, 4):
            if i in bad:
                values[i].set_error(f"bad {i}")
            else:
                values[i].set_value(i)

    with fast_switching():
        run_threads([lambda r=r: resolver(r) for r in range(4)])
    assert ready == [True]
    for group, j in zip(groups, joins):
        errs = [i for i in group if i in bad]
        if errs:
            assert j.is_error and j.error.message == f"bad {errs[0]}"  # the first error, in order
        else:
            assert j.get() == sum(group)


def _tree(spawn, depth, label):
    """A task that spawns two children down to ``depth``; leaves are ``label``."""
    if depth == 0:
        if label % 13 == 0:
            raise KernelError(f"leaf {label} failed", "INVALID_ARGUMENT")
        return label
    children = [spawn(_tree, spawn, depth - 1, label) for _ in range(2)]
    return when_all(children, sum)


def check_spawning_threads(spec):
    """8 threads spawn task trees on one host and await them; each gets its own result."""
    host = HostContext(work_queue=spec)
    results = {}

    def caller(t):
        for k in range(15):
            label = t * 100 + k
            root = host.spawn(_tree, host.spawn, 5, label)
            assert host.await_values([root], timeout=TIMEOUT), "await timed out"
            results[label] = root

    try:
        with fast_switching():
            run_threads([lambda t=t: caller(t) for t in range(8)])
        host.quiesce()
    finally:
        host.shutdown()
    assert len(results) == 8 * 15
    for label, root in results.items():
        if label % 13 == 0:
            assert root.is_error
            assert root.error.message == f"leaf {label} failed"
            assert root.error.code == "INVALID_ARGUMENT"
        else:
            assert root.get() == 32 * label


def check_task_follows_a_join_resolving_elsewhere():
    """A task returns a join while another thread resolves the join's input."""
    for _ in range(300):
        child = AsyncValue()
        join = when_all([child], sum)
        task = Task(lambda j=join: j, ())
        with fast_switching():
            run_threads([task, lambda c=child: c.set_value(5)])
        assert task.state and task.get() == 5 and join.get() == 5


def check_quiesce_with_adders(spec):
    """quiesce returns while other threads are adding work, and then nothing is pending."""
    host = HostContext(work_queue=spec)
    done = []
    lock = threading.Lock()

    def work(i):
        with lock:
            done.append(i)

    def adder(t):
        for i in range(500):
            host.enqueue_task(lambda i=i: work(t * 1000 + i))

    try:
        with fast_switching():
            run_threads([lambda t=t: adder(t) for t in range(4)] + [host.quiesce, host.quiesce])
        host.quiesce()
        assert sorted(done) == sorted(t * 1000 + i for t in range(4) for i in range(500))
    finally:
        host.shutdown()


CHECKS = [
    check_callbacks_run_once,
    check_joins,
    check_task_follows_a_join_resolving_elsewhere,
    lambda: check_spawning_threads("mstd:2"),
    lambda: check_spawning_threads("mstd:4"),
    lambda: check_spawning_threads("s"),
    lambda: check_quiesce_with_adders("mstd:2"),
    lambda: check_quiesce_with_adders("s"),
]


CHECK_IDS = [
    "callbacks", "joins", "task-follows-join", "spawn-mstd2", "spawn-mstd4", "spawn-s",
    "quiesce-mstd2", "quiesce-s",
]


@pytest.mark.parametrize("check", CHECKS, ids=CHECK_IDS)
def test_stress(check):
    check()


def test_resolving_twice_is_refused_from_any_thread():
    with fast_switching():
        for _ in range(50):
            v = AsyncValue()
            outcomes = []

            def resolve(x, v=v, outcomes=outcomes):
                try:
                    v.set_value(x)
                    outcomes.append("ok")
                except RuntimeError:
                    outcomes.append("refused")

            run_threads([lambda: resolve(1), lambda: resolve(2)])
            assert "ok" in outcomes and v.value in (1, 2)


def test_the_locked_protocol_passes_the_same_checks():
    """What a free-threaded build runs: every check again, with striped locks."""
    here = Path(__file__).resolve().parent
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import tfrt.async_value as av\n"
        "assert av.USE_LOCKS, 'the locked protocol is not selected'\n"
        "import test_async_stress as t\n"
        "for check in t.CHECKS: check()\n"
        "print('locked protocol: all checks passed')\n"
    )
    env = dict(os.environ, TFRT_ASYNC_VALUE_LOCKS="1")
    out = subprocess.run([sys.executable, "-c", code, str(here)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "all checks passed" in out.stdout


def test_protocol_matches_the_interpreter():
    gil_disabled = getattr(sys, "_is_gil_enabled", lambda: True)() is False
    if gil_disabled:
        assert av.USE_LOCKS
    elif not os.environ.get("TFRT_ASYNC_VALUE_LOCKS"):
        assert not av.USE_LOCKS
