"""AsyncValue: the future/promise cell every register of the executor holds.

After TFRT's ``AsyncValue`` (``documents/async_value.md``): a value is
*unavailable* until it is resolved exactly once, either *concrete* (it holds a
payload) or *error* (it holds an :class:`ErrorInfo`).  Both resolved states are
"available" and final.

``and_then(cb)`` runs ``cb()`` at once, on the caller's thread, when the value
is already available; otherwise the thread that resolves the value runs the
pending callbacks, last registered first (TFRT keeps them on a lock-free
stack, so they run in LIFO order).

Joining: :func:`when_all` is an AsyncValue that resolves once every given
value has (to a combination of their payloads, or the first error), and
:func:`run_when_ready` runs a callback then (TFRT's ``RunWhenReady``).

This sits on the executor's and the task API's hot path, so the class is
lean: ``__slots__``, a plain ``state`` int that readers test without a lock,
and a waiter list created only for a value that someone waits on.  How the
"unavailable -> available" transition is synchronized depends on the
interpreter (see ``docs/scheduling.md``):

* with the GIL, no lock at all: a resolver stores the payload, then the
  state, then takes the waiters one ``list.pop()`` at a time; a thread that
  adds a waiter appends it and then re-reads the state, and takes the
  waiters itself if the value resolved meanwhile.  ``list.append`` and
  ``list.pop`` are atomic and the GIL orders the plain loads and stores, so
  every callback runs exactly once (only the first waiter's list creation
  takes a lock, against a second thread creating it at the same time);
* on a free-threaded build (``python3.13t``), or with the environment
  variable ``TFRT_ASYNC_VALUE_LOCKS=1``, both sides take one of 64 striped
  locks instead: free-threaded CPython gives no ordering between a plain
  store and a later load of another field, which the lock-free protocol
  needs.

Example::

    v = AsyncValue()                 # unavailable
    v.and_then(lambda: print(v.get()))
    v.set_value(42)                  # prints 42
    e = AsyncValue.make_error("something bad happened")
    e.is_error, e.error.code         # (True, 'INTERNAL')
    s = when_all([AsyncValue.make_available(1), AsyncValue.make_available(2)], sum)
    s.get()                          # 3
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any, Callable, Iterable, Sequence

UNAVAILABLE = 0
CONCRETE = 1
ERROR = 2


def _gil_disabled() -> bool:
    probe = getattr(sys, "_is_gil_enabled", None)
    return probe is not None and not probe()


#: True when AsyncValue synchronizes with striped locks (see the module docstring).
USE_LOCKS = _gil_disabled() or os.environ.get("TFRT_ASYNC_VALUE_LOCKS", "") not in ("", "0")

# Guards the creation of a waiter list (lock-free protocol), or, striped, every
# transition of a value (locked protocol).
_lock = threading.Lock()
_lock_acquire = _lock.acquire
_lock_release = _lock.release
_STRIPES = 64
_locks = tuple(threading.Lock() for _ in range(_STRIPES))


class ErrorCode:
    """TFRT's error codes (absl::StatusCode names, as ``--print_error_code`` prints them)."""

    OK = "OK"
    CANCELLED = "CANCELLED"
    UNKNOWN = "UNKNOWN"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    NOT_FOUND = "NOT_FOUND"
    ALREADY_EXISTS = "ALREADY_EXISTS"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    ABORTED = "ABORTED"
    OUT_OF_RANGE = "OUT_OF_RANGE"
    UNIMPLEMENTED = "UNIMPLEMENTED"
    INTERNAL = "INTERNAL"
    UNAVAILABLE = "UNAVAILABLE"
    DATA_LOSS = "DATA_LOSS"
    UNAUTHENTICATED = "UNAUTHENTICATED"


class ErrorInfo:
    """The payload of an error value: a message and a code (default INTERNAL)."""

    __slots__ = ("message", "code")

    def __init__(self, message: str, code: str = ErrorCode.INTERNAL) -> None:
        self.message = message
        self.code = code

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"ErrorInfo({self.message!r}, {self.code})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ErrorInfo)
            and other.message == self.message
            and other.code == self.code
        )

    def __hash__(self) -> int:
        return hash((self.message, self.code))


CANCELLED_ERROR = ErrorInfo("Cancelled", ErrorCode.CANCELLED)


class AsyncValueError(RuntimeError):
    """Raised by :meth:`AsyncValue.get` on an error or unavailable value."""

    def __init__(self, info: ErrorInfo) -> None:
        super().__init__(info.message)
        self.info = info


class AsyncValue:
    """A value that may not be computed yet.  See the module docstring."""

    __slots__ = ("state", "value", "_waiters")

    def __init__(self, state: int = UNAVAILABLE, value: Any = None) -> None:
        # Positional (state, value) keeps the executor's constructor call cheap;
        # prefer the named constructors below in ordinary code.
        self.state = state
        self.value = value
        self._waiters: list[Callable[[], Any]] | None = None

    # -- construction -------------------------------------------------------
    @staticmethod
    def make_available(value: Any) -> "AsyncValue":
        """A concrete value."""
        return AsyncValue(CONCRETE, value)

    @staticmethod
    def make_error(error: str | ErrorInfo, code: str = ErrorCode.INTERNAL) -> "AsyncValue":
        """An error value from a message (code INTERNAL unless given) or an ErrorInfo."""
        if not isinstance(error, ErrorInfo):
            error = ErrorInfo(str(error), code)
        return AsyncValue(ERROR, error)

    # -- queries ------------------------------------------------------------
    @property
    def available(self) -> bool:
        return self.state != UNAVAILABLE

    @property
    def is_concrete(self) -> bool:
        return self.state == CONCRETE

    @property
    def is_error(self) -> bool:
        return self.state == ERROR

    @property
    def error(self) -> ErrorInfo | None:
        """The ErrorInfo of an error value, else None."""
        return self.value if self.state == ERROR else None

    def get(self) -> Any:
        """The payload of a concrete value; raises AsyncValueError otherwise."""
        if self.state == CONCRETE:
            return self.value
        if self.state == ERROR:
            raise AsyncValueError(self.value)
        raise AsyncValueError(ErrorInfo("AsyncValue is not available yet"))

    # -- resolution ---------------------------------------------------------
    def set_value(self, value: Any) -> None:
        """Make an unavailable value concrete and run its waiters."""
        self._resolve(CONCRETE, value)

    emplace = set_value

    def set_error(self, error: str | ErrorInfo, code: str = ErrorCode.INTERNAL) -> None:
        """Make an unavailable value an error and run its waiters."""
        if not isinstance(error, ErrorInfo):
            error = ErrorInfo(str(error), code)
        self._resolve(ERROR, error)

    def set_from(self, other: "AsyncValue") -> None:
        """Resolve to the state and payload of the available value ``other``."""
        self._resolve(other.state, other.value)

    # _resolve(state, value) and and_then(callback) are bound below, after
    # the class, to the lock-free or the locked protocol.
    def _resolve(self, state: int, value: Any) -> None:  # pragma: no cover - replaced
        raise NotImplementedError

    def and_then(self, callback: Callable[[], Any]) -> None:  # pragma: no cover - replaced
        """Run ``callback()`` now if available, else when the value resolves."""
        raise NotImplementedError

    def __repr__(self) -> str:
        if self.state == CONCRETE:
            return f"AsyncValue({self.value!r})"
        if self.state == ERROR:
            return f"AsyncValue(error={self.value!r})"
        return "AsyncValue(<unavailable>)"


_RESOLVED_TWICE = "an AsyncValue can be resolved only once"


def _drain(
    waiters: list[Callable[[], Any]], stack: list[list[Callable[[], Any]]] | None = None
) -> None:
    """Run the callbacks of ``waiters``, last first, taking each with one atomic pop.

    Two threads may drain the same list at once (a resolver and a late
    ``and_then``); each callback is popped, so run, by exactly one of them.
    A callback that raises does not stop the others; the first exception
    is re-raised after them.

    Waiters that only resolve another value (:class:`_Forward`, a
    :class:`_Join` taking its last input) do so here, without a call: the
    resolved value's own waiters are run next from an explicit stack, in
    the order nested calls would run them.  So a chain of forwarded values
    (the results of a deep recursion, a task following a task following a
    task) resolves in a loop, however long it is, instead of one Python
    frame per link.  ``stack`` holds more lists to run after ``waiters``
    (the last first).
    """
    first_exc: BaseException | None = None
    while True:
        while waiters:
            try:
                cb = waiters.pop()
            except IndexError:  # the other drainer took the last one
                break
            try:
                kind = type(cb)
                if kind is _Forward:
                    target = cb.target
                    if target.state:
                        # Settled meanwhile by a failed execution or loop
                        # (their results take the error): nothing to forward.
                        continue
                    more = _settle(target, cb.source.state, cb.source.value)
                    if more:
                        if stack is None:
                            stack = []
                        stack.append(waiters)
                        waiters = more
                    continue
                if kind is _Join:
                    lists = cb._step()
                    if lists:
                        if stack is None:
                            stack = []
                        stack.append(waiters)
                        if len(lists) == 1:
                            waiters = lists[0]
                        else:
                            stack.append(lists[1])
                            waiters = lists[0]
                    continue
                cb()
            except BaseException as exc:
                if first_exc is None:
                    first_exc = exc
        if not stack:
            break
        waiters = stack.pop()
    if first_exc is not None:
        raise first_exc


def _settle_lock_free(v: "AsyncValue", state: int, value: Any) -> list | None:
    """Resolve ``v`` without running its waiters; returns them (or None)."""
    if v.state:
        raise RuntimeError(_RESOLVED_TWICE)
    v.value = value
    v.state = state
    waiters = v._waiters
    if waiters is not None:
        v._waiters = None
    return waiters


def _settle_locked(v: "AsyncValue", state: int, value: Any) -> list | None:
    lock = _locks[(id(v) >> 4) % _STRIPES]
    lock.acquire()
    try:
        if v.state:
            raise RuntimeError(_RESOLVED_TWICE)
        v.value = value
        v.state = state
        waiters = v._waiters
        v._waiters = None
    finally:
        lock.release()
    return waiters


def _resolve_lock_free(self: AsyncValue, state: int, value: Any) -> None:
    if self.state:
        raise RuntimeError(_RESOLVED_TWICE)
    # Payload before state: readers test the state without a lock.
    self.value = value
    self.state = state
    waiters = self._waiters
    if waiters is not None:
        self._waiters = None
        _drain(waiters)


def _and_then_lock_free(self: AsyncValue, callback: Callable[[], Any]) -> None:
    """Run ``callback()`` now if available, else when the value resolves."""
    if self.state:
        callback()
        return
    waiters = self._waiters
    if waiters is None:
        # (acquire/release: a ``with`` block costs twice as much on 3.11)
        _lock_acquire()
        try:
            waiters = self._waiters
            if waiters is None:
                waiters = self._waiters = []
        finally:
            _lock_release()
    waiters.append(callback)
    # The resolver may have taken the waiters before the append: then the
    # state is set by now and this thread runs what is left.
    if self.state:
        _drain(waiters)


def _resolve_locked(self: AsyncValue, state: int, value: Any) -> None:
    lock = _locks[(id(self) >> 4) % _STRIPES]
    lock.acquire()
    try:
        if self.state:
            raise RuntimeError(_RESOLVED_TWICE)
        self.value = value
        self.state = state
        waiters = self._waiters
        self._waiters = None
    finally:
        lock.release()
    if waiters:
        _drain(waiters)


def _and_then_locked(self: AsyncValue, callback: Callable[[], Any]) -> None:
    """Run ``callback()`` now if available, else when the value resolves."""
    if self.state:
        callback()
        return
    lock = _locks[(id(self) >> 4) % _STRIPES]
    lock.acquire()
    try:
        if not self.state:
            waiters = self._waiters
            if waiters is None:
                self._waiters = [callback]
            else:
                waiters.append(callback)
            return
    finally:
        lock.release()
    callback()


if USE_LOCKS:
    AsyncValue._resolve = _resolve_locked  # type: ignore[method-assign]
    AsyncValue.and_then = _and_then_locked  # type: ignore[method-assign]
    _settle = _settle_locked
else:
    AsyncValue._resolve = _resolve_lock_free  # type: ignore[method-assign]
    AsyncValue.and_then = _and_then_lock_free  # type: ignore[method-assign]
    _settle = _settle_lock_free


class _Forward:
    """A waiter on ``source`` that resolves ``target`` to it (see :func:`_drain`).

    Called directly (``and_then`` on an available value) it resolves
    ``target`` as any callback would.
    """

    __slots__ = ("target", "source")

    def __init__(self, target: AsyncValue, source: AsyncValue) -> None:
        self.target = target
        self.source = source

    def __call__(self) -> None:
        source = self.source
        self.target._resolve(source.state, source.value)


class IndirectAsyncValue(AsyncValue):
    """A placeholder for a value produced elsewhere: ``forward_to(v)`` makes it mirror ``v``.

    The executor hands these out as function results before the kernels that
    compute them have run.
    """

    __slots__ = ()

    def forward_to(self, target: AsyncValue) -> None:
        """Resolve to ``target``'s state and payload, now or when ``target`` resolves."""
        if target is self:
            raise RuntimeError("an IndirectAsyncValue cannot forward to itself")
        if target.state:
            self._resolve(target.state, target.value)
            return
        target.and_then(_Forward(self, target))


class _Join(AsyncValue):
    """:func:`when_all`'s value: waits for its inputs one after another.

    It waits on the first unavailable input only; when that one resolves it
    skips every input that is available by then and waits on the next.  So
    at most one of its callbacks is pending at any time, and its fields
    need no lock even when the inputs resolve on different threads.  It is
    its own callback (``__call__``), which saves a bound method per wait.
    """

    __slots__ = ("_values", "_next", "_combine", "_error", "_into")

    def __init__(self, values: Sequence[AsyncValue], combine: Callable[[list], Any] | None) -> None:
        self.state = UNAVAILABLE
        self.value = None
        self._waiters = None
        self._values = values
        self._next = 0
        self._combine = combine
        self._error: AsyncValue | None = None
        # A task whose function returned this value resolves with it (set
        # by the task instead of adding a callback; see host_context).
        self._into: AsyncValue | None = None
        self._step()  # nothing waits on it yet: no waiters to run

    def __call__(self) -> None:
        lists = self._step()
        if lists:
            _drain(lists[0], lists[:0:-1])

    def _step(self) -> list[list[Callable[[], Any]]] | None:
        """Wait on the next unavailable input, or resolve: then the waiter
        lists to run (this join's, then its task's), for the caller to run."""
        values = self._values
        i = self._next
        n = len(values)
        while i < n:
            v = values[i]
            state = v.state
            if not state:
                self._next = i
                v.and_then(self)  # resumes here (at v) once v resolves
                return None
            if state == ERROR and self._error is None:
                self._error = v
            i += 1
        self._values = None
        err = self._error
        if err is not None:
            return self._finish(ERROR, err.value)
        combine = self._combine
        payloads = [v.value for v in values]
        if combine is None:
            return self._finish(CONCRETE, payloads)
        try:
            out = combine(payloads)
        except Exception as exc:  # a bad combine function: an error value, not a crash
            return self._finish(ERROR, ErrorInfo(f"{type(exc).__name__}: {exc}"))
        return self._finish(CONCRETE, out)

    def _finish(self, state: int, value: Any) -> list[list[Callable[[], Any]]] | None:
        waiters = _settle(self, state, value)
        _lock_acquire()
        into = self._into
        self._into = None
        _lock_release()
        if into is None:
            return [waiters] if waiters else None
        more = _settle(into, state, value)
        if not waiters:
            return [more] if more else None
        return [waiters, more] if more else [waiters]

    def adopt(self, target: AsyncValue) -> bool:
        """Make this join resolve ``target`` too; False if it has resolved already.

        One lock round trip instead of a callback: either this sees the join
        unresolved and ``_finish`` (which takes the lock after resolving)
        finds ``target``, or this sees it resolved and the caller copies it.
        """
        _lock_acquire()
        try:
            if self.state or self._into is not None:
                return False
            self._into = target
            return True
        finally:
            _lock_release()


def when_all(
    values: Iterable[AsyncValue], combine: Callable[[list], Any] | None = None
) -> AsyncValue:
    """An AsyncValue that resolves once every value in ``values`` is available.

    It becomes the first error among ``values`` (in their order) if any is
    an error, else ``combine(payloads)`` (the list of payloads when
    ``combine`` is None; an exception from ``combine`` becomes an error).
    No lock and one callback per wait: see :class:`_Join`.
    """
    if type(values) is not list:
        values = list(values)
    return _Join(values, combine)


class _WhenReady:
    """:func:`run_when_ready`'s waiter: the stepping of :class:`_Join`, then a callback."""

    __slots__ = ("_values", "_next", "_callback")

    def __init__(self, values: list[AsyncValue], callback: Callable[[], Any]) -> None:
        self._values = values
        self._next = 0
        self._callback = callback

    def __call__(self) -> None:
        values = self._values
        i = self._next
        n = len(values)
        while i < n:
            v = values[i]
            if not v.state:
                self._next = i
                v.and_then(self)
                return
            i += 1
        self._values = None
        self._callback()


def run_when_ready(values: Iterable[AsyncValue], callback: Callable[[], Any]) -> None:
    """Run ``callback()`` once every value in ``values`` is available (TFRT's RunWhenReady)."""
    pending = [v for v in values if not v.state]
    if not pending:
        callback()
        return
    _WhenReady(pending, callback)()


def first_error(values: Iterable[AsyncValue]) -> AsyncValue | None:
    """The first error among ``values`` (all assumed available), or None."""
    for v in values:
        if v.state == ERROR:
            return v
    return None
