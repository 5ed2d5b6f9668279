"""AsyncValue: the future/promise cell every register of the executor holds.

After TFRT's ``AsyncValue`` (``documents/async_value.md``): a value is
*unavailable* until it is resolved exactly once, either *concrete* (it holds a
payload) or *error* (it holds an :class:`ErrorInfo`).  Both resolved states are
"available" and final.

``and_then(cb)`` runs ``cb()`` at once, on the caller's thread, when the value
is already available; otherwise the thread that resolves the value runs the
pending callbacks, last registered first (TFRT keeps them on a lock-free
stack, so they run in LIFO order).

This sits on the executor's hot path, so the class is lean: ``__slots__``, a
plain ``state`` int that readers test without a lock, and one module lock that
only the unavailable path takes (a resolved value never changes again, so
reading it needs no lock).

Example::

    v = AsyncValue()                 # unavailable
    v.and_then(lambda: print(v.get()))
    v.set_value(42)                  # prints 42
    e = AsyncValue.make_error("something bad happened")
    e.is_error, e.error.code         # (True, 'INTERNAL')
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterable

UNAVAILABLE = 0
CONCRETE = 1
ERROR = 2

# One lock guards the transition "unavailable -> available" and the waiter
# lists of every value.  Contention is low (Python holds the GIL anyway) and it
# keeps each AsyncValue at three slots.
_lock = threading.Lock()


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

    def _resolve(self, state: int, value: Any) -> None:
        with _lock:
            if self.state != UNAVAILABLE:
                raise RuntimeError("an AsyncValue can be resolved only once")
            # Store the payload before the state: lock-free readers test the
            # state first.
            self.value = value
            self.state = state
            waiters = self._waiters
            self._waiters = None
        if waiters:
            _run_lifo(waiters)

    def and_then(self, callback: Callable[[], Any]) -> None:
        """Run ``callback()`` now if available, else when the value resolves."""
        if self.state:
            callback()
            return
        with _lock:
            if not self.state:
                waiters = self._waiters
                if waiters is None:
                    self._waiters = [callback]
                else:
                    waiters.append(callback)
                return
        callback()

    def __repr__(self) -> str:
        if self.state == CONCRETE:
            return f"AsyncValue({self.value!r})"
        if self.state == ERROR:
            return f"AsyncValue(error={self.value!r})"
        return "AsyncValue(<unavailable>)"


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
        target.and_then(lambda: self._resolve(target.state, target.value))


def _run_lifo(waiters: list[Callable[[], Any]]) -> None:
    first_exc: BaseException | None = None
    for cb in reversed(waiters):
        try:
            cb()
        except BaseException as exc:  # keep running the others, re-raise after
            if first_exc is None:
                first_exc = exc
    if first_exc is not None:
        raise first_exc


def run_when_ready(values: Iterable[AsyncValue], callback: Callable[[], Any]) -> None:
    """Run ``callback()`` once every value in ``values`` is available (TFRT's RunWhenReady)."""
    pending = [v for v in values if not v.state]
    if not pending:
        callback()
        return
    remaining = [len(pending)]
    guard = threading.Lock()

    def one_ready() -> None:
        with guard:
            remaining[0] -= 1
            done = remaining[0] == 0
        if done:
            callback()

    for v in pending:
        v.and_then(one_ready)


def first_error(values: Iterable[AsyncValue]) -> AsyncValue | None:
    """The first error among ``values`` (all assumed available), or None."""
    for v in values:
        if v.state == ERROR:
            return v
    return None
