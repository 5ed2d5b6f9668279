"""AsyncValue: states, and_then order, errors, indirect forwarding, threads."""

from __future__ import annotations

import threading

import pytest

from tfrt.async_value import (
    AsyncValue,
    AsyncValueError,
    ErrorCode,
    ErrorInfo,
    IndirectAsyncValue,
    run_when_ready,
)


def test_states():
    v = AsyncValue()
    assert not v.available and not v.is_concrete and not v.is_error
    v.set_value(3)
    assert v.available and v.is_concrete and v.get() == 3
    e = AsyncValue.make_error("boom")
    assert e.is_error and e.error == ErrorInfo("boom", ErrorCode.INTERNAL)
    with pytest.raises(AsyncValueError, match="boom"):
        e.get()
    with pytest.raises(AsyncValueError):
        AsyncValue().get()


def test_resolves_only_once():
    v = AsyncValue.make_available(1)
    with pytest.raises(RuntimeError):
        v.set_value(2)
    with pytest.raises(RuntimeError):
        v.set_error("x")


def test_and_then_runs_now_when_available():
    seen = []
    AsyncValue.make_available(1).and_then(lambda: seen.append("now"))
    assert seen == ["now"]


def test_pending_callbacks_run_lifo():
    v = AsyncValue()
    seen = []
    for i in range(4):
        v.and_then(lambda i=i: seen.append(i))
    assert seen == []
    v.set_value(None)
    assert seen == [3, 2, 1, 0]


def test_error_code_and_cancelled():
    v = AsyncValue()
    v.set_error("Cancelled", ErrorCode.CANCELLED)
    assert v.error.code == "CANCELLED" and str(v.error) == "Cancelled"


def test_indirect_forwards_now_or_later():
    target = AsyncValue()
    ind = IndirectAsyncValue()
    ind.forward_to(target)
    assert not ind.available
    target.set_value(7)
    assert ind.get() == 7
    ind2 = IndirectAsyncValue()
    ind2.forward_to(AsyncValue.make_error("bad"))
    assert ind2.error.message == "bad"
    with pytest.raises(RuntimeError):
        ind2.forward_to(ind2)


def test_run_when_ready_waits_for_all():
    a, b = AsyncValue(), AsyncValue()
    done = []
    run_when_ready([a, b, AsyncValue.make_available(0)], lambda: done.append(1))
    a.set_value(1)
    assert done == []
    b.set_error("x")
    assert done == [1]


def test_concurrent_and_then_and_resolve():
    # Every callback registered from any thread runs exactly once.
    for _ in range(20):
        v = AsyncValue()
        count = [0]
        lock = threading.Lock()

        def bump():
            with lock:
                count[0] += 1

        threads = [threading.Thread(target=lambda: [v.and_then(bump) for _ in range(50)]) for _ in range(4)]
        for t in threads:
            t.start()
        v.set_value(1)
        for t in threads:
            t.join()
        assert count[0] == 200
