"""Python API: load a BEF program and call its functions with Python/numpy values.

    import tfrt.api as tfrt
    prog = tfrt.load("add.bef")            # a path, BEF bytes, or a .mlir path/text
    prog.call("add", 1, 2)                  # -> 3
    futures = prog.call_async("add", 1, 2)  # -> [AsyncValue]; prog.wait(futures)
    pending = prog.submit("add", 1, 2)      # -> Call: .result(timeout=5), .cancel()

Arguments are converted by the function's argument types (``i1`` -> bool,
integers -> int checked for range, ``f16``/``f32`` -> numpy scalars, ``f64`` ->
float, ``tensor<2x3xf32>`` -> a numpy array of exactly that shape and dtype:
lists convert, arrays cast only as numpy's ``same_kind`` allows, and an array
that already matches passes without a copy; other types pass through).  A
value that does not fit raises :class:`tfrt.values.ValueSpecError` (a
ValueError) naming the argument.  ``call`` returns None, one value, or a
tuple; an error result raises :class:`ExecutionError`.  Runtime diagnostics
(errors with the kernel's location) are kept in ``Program.diagnostics``.

``call`` and ``submit`` may be used from many threads at once.  On a
threaded work queue (``mstd``) a call returns once its results are available
and every kernel of the call has run (its request's :class:`WorkTracker`),
without waiting for other calls' work; on ``s`` the calling thread runs the
queued work, then quiesces the queue.  ``Call.cancel()`` cancels one call:
its kernels and tasks that have not started are skipped, and its results
become CANCELLED errors (``result()`` raises :class:`CancelledError`).

Loading a ``.mlir`` input imports the compiler (xDSL, lark); BEF input needs
only the runtime.
"""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

from numpy import ndarray

from tfrt.async_value import CONCRETE, ERROR, AsyncValue, ErrorCode, ErrorInfo, IndirectAsyncValue
from tfrt.bef import program as bp
from tfrt.executor import BEFProgram, set_recursion_limit
from tfrt.host_context import (
    DecodedDiagnostic,
    ExecutionContext,
    HostContext,
    RequestContext,
    WorkTracker,
)
from tfrt.values import ValueSpecError, converter

__all__ = ["Call", "CancelledError", "ExecutionError", "Program", "load"]


class ExecutionError(RuntimeError):
    """A function returned an error value."""

    def __init__(self, function: str, info: ErrorInfo, diagnostics: Sequence[DecodedDiagnostic] = ()):
        self.function = function
        self.info = info
        self.code = info.code
        where = ""
        # The latest report of this message (diagnostics only grow).
        for d in reversed(diagnostics):
            if d.message == info.message and d.location is not None:
                flc = bp.file_line_col(d.location)
                if flc is not None:
                    where = f" (at {flc.file}:{flc.line}:{flc.col})"
                    break
        super().__init__(f"'{function}' failed: {info.message}{where}")


class CancelledError(ExecutionError):
    """A function's result is the cancellation error (its request was cancelled)."""


def _raise_error(function: str, info: ErrorInfo, diagnostics: Sequence[DecodedDiagnostic]) -> None:
    if info.code == ErrorCode.CANCELLED:
        raise CancelledError(function, info, diagnostics)
    raise ExecutionError(function, info, diagnostics)


def _fits(conv: Any, value: Any) -> bool:
    try:
        conv(value)
    except ValueSpecError:
        return False
    return True


def _unwrap(values: Sequence[Any]) -> Any:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return tuple(values)


class Program:
    """A loaded program: ``call``, ``call_async``, ``functions``."""

    def __init__(self, program: BEFProgram, host: HostContext, diagnostics: list[DecodedDiagnostic]):
        self._program = program
        self.host = host
        self.diagnostics = diagnostics
        # name -> (function, converters, (dtype, shape) per argument or None):
        # when every argument is a tensor, arrays of the declared dtype and
        # shape pass unconverted.
        self._calls: dict[str, tuple[Any, tuple, tuple | None]] = {}
        self._threaded = host.work_queue.threaded
        self._queue = host.work_queue
        for fn in program.named_functions():
            if fn.name:
                convs = tuple(converter(t) for t in fn.arg_types)
                specs = tuple(getattr(c, "spec", None) for c in convs)
                self._calls[fn.name] = (fn, convs, specs if None not in specs else None)

    @property
    def functions(self) -> list[str]:
        return [f.name for f in self._program.named_functions()]

    @property
    def bef_program(self) -> BEFProgram:
        return self._program

    def signature(self, name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        fn, _ = self._lookup(name)
        return fn.arg_types, fn.result_types

    def _lookup(self, name: str) -> tuple[Any, tuple]:
        entry = self._calls.get(name)
        if entry is None:
            raise KeyError(f"no function named '{name}' (have: {', '.join(self._calls)})")
        return entry[:2]

    def _convert(self, fn: Any, convs: tuple, args: Sequence[Any]) -> list[Any]:
        if len(args) != len(convs):
            raise TypeError(f"'{fn.name}' takes {len(convs)} arguments ({len(args)} given)")
        try:
            return [a if c is None else c(a) for c, a in zip(convs, args)]
        except ValueSpecError as exc:
            i = next(i for i, (c, a) in enumerate(zip(convs, args)) if c is not None and not _fits(c, a))
            raise type(exc)(f"'{fn.name}' argument {i}: {exc}") from None

    def call(self, name: str, *args: Any) -> Any:
        """Run ``name`` to completion; returns None, a value, or a tuple of values."""
        entry = self._calls.get(name)
        if entry is None:
            self._lookup(name)  # raises the KeyError
        fn, convs, specs = entry
        host = self.host
        values: Any = None
        if specs is not None and len(args) == len(specs):
            for a, (dt, shape) in zip(args, specs):
                if type(a) is not ndarray or a.dtype is not dt or a.shape != shape:
                    break
            else:
                values = args
        if values is None:
            values = self._convert(fn, convs, args)
        request = RequestContext(host, tracker=WorkTracker()) if self._threaded else RequestContext(host)
        try:
            # The context of the function's own kernels: one call deep.
            out = fn.call_values_in(ExecutionContext(host, request, 1), values)
            if type(out) is tuple:
                # Every kernel of the function ran inline, but a called
                # function may have left tasks behind (an async kernel whose
                # value nothing returns): the call waits for those too.
                if self._threaded:
                    if request.tracker.pending:
                        request.tracker.wait()
                elif self._queue.busy:
                    self._queue.quiesce()
                if request.interrupted is None:
                    return out[0] if len(out) == 1 else (out or None)
            else:
                self._finish(out, request, None)
        except BaseException:
            self._abandon(request)
            raise
        if request.interrupted is not None:
            raise request.interrupted
        values = []
        for av in out:
            if av.state == ERROR:
                _raise_error(fn.name, av.value, self.diagnostics)
            values.append(av.value)
        return _unwrap(values)

    def _abandon(self, request: RequestContext) -> None:
        """A call that raised on the calling thread (Ctrl-C while it ran or
        waited): it is cancelled, so what it left queued is skipped; on ``s``
        that work runs now, quickly, rather than inside the next call."""
        request.cancel()
        if not self._threaded:
            self.host.quiesce()

    def _new_request(self) -> RequestContext:
        return RequestContext(self.host, tracker=WorkTracker()) if self._threaded else RequestContext(self.host)

    def _finish(
        self, results: Sequence[AsyncValue], request: RequestContext, timeout: float | None
    ) -> bool:
        """Wait for the results, then for the call's other kernels (prints)."""
        host = self.host
        deadline = None if timeout is None else time.monotonic() + timeout
        if not host.await_values(results, timeout):
            return False
        # Kernels whose results feed no return value finish before the call
        # returns, as they do on the compiled fast path.
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._threaded:
            # s: nothing else runs the queued work; and another thread that
            # shares the queue may be running a task of this call.
            return self._queue.quiesce(remaining)
        return request.tracker.wait(remaining)

    def submit(self, name: str, *args: Any) -> "Call":
        """Start ``name`` and return a :class:`Call` handle (results, ``cancel``, ``result``).

        Returns at once: the function starts in a work-queue task, as
        ``concurrent.futures`` runs a submitted function on a worker.  Bad
        arguments raise here, as for :meth:`call`.  On ``mstd`` a worker
        runs the call; on ``s`` (no threads) it runs when the call is waited
        for.  A call cancelled before it started does not run at all.
        """
        fn, convs = self._lookup(name)
        values = [AsyncValue(CONCRETE, v) for v in self._convert(fn, convs, args)]
        request = self._new_request()
        results = [IndirectAsyncValue() for _ in fn.result_types]
        call = Call(self, fn.name, request, results)
        start = _Start(fn, ExecutionContext(self.host, request), values, call)
        if self._threaded:
            call._start = start
        self.host.work_queue.add_task(start)
        return call

    def call_async(self, name: str, *args: Any) -> list[AsyncValue]:
        """Start ``name``; returns one AsyncValue per result, possibly unavailable."""
        fn, convs = self._lookup(name)
        exec_ctx = self.host.new_execution_context()
        values = [AsyncValue(CONCRETE, v) for v in self._convert(fn, convs, args)]
        return fn.execute(exec_ctx, values)

    def wait(self, values: Sequence[AsyncValue], timeout: float | None = None) -> bool:
        """Block until every value is available (running queued work meanwhile).

        Returns False if ``timeout`` seconds passed first.
        """
        return self.host.await_values(list(values), timeout)

    def quiesce(self) -> None:
        self.host.quiesce()

    def close(self) -> None:
        self.host.shutdown()


class _Start:
    """The work-queue task that starts a submitted call (see :meth:`Program.submit`).

    It runs once, on whichever thread claims it first: a worker, or on a
    threaded queue the caller itself when it waits without a timeout before
    any worker has taken it (sparing the hand-off to a sleeping worker).
    """

    __slots__ = ("_fn", "_exec_ctx", "_args", "_call", "_token")

    def __init__(self, fn: Any, exec_ctx: ExecutionContext, args: list[AsyncValue], call: "Call"):
        self._fn = fn
        self._exec_ctx = exec_ctx
        self._args = args
        self._call = call
        self._token = [True]  # claimed by the one pop() that finds it

    def __call__(self) -> None:
        try:
            self._token.pop()
        except IndexError:
            return  # another thread started the call
        call = self._call
        placeholders = call.results
        cancelled = call.request.cancel_value
        if cancelled is not None:  # cancelled before it started: it never runs
            for p in placeholders:
                p.set_from(cancelled)
            return
        try:
            out = self._fn.execute(self._exec_ctx, self._args)
        except BaseException as exc:
            # Not an error value: the function could not start (a malformed
            # body), or Ctrl-C reached this thread.  result() raises it.
            call._exception = exc
            if not isinstance(exc, Exception):
                call.request.interrupt(exc)
            err = AsyncValue(ERROR, ErrorInfo(f"{type(exc).__name__}: {exc}"))
            for p in placeholders:
                if not p.state:
                    p.set_from(err)
            if not isinstance(exc, Exception):
                raise  # Ctrl-C on s: it reaches the thread that waits
            return
        finally:
            self._args = None
        for p, v in zip(placeholders, out):
            p.forward_to(v)


class Call:
    """A call started by :meth:`Program.submit`.

    ``results`` are its AsyncValues; ``cancel()`` cancels its request (kernels
    and tasks not started yet are skipped, the results become CANCELLED);
    ``wait(timeout)`` and ``result(timeout)`` are bounded waits.
    """

    __slots__ = ("_program", "function", "request", "results", "_exception", "_start")

    def __init__(
        self, program: Program, function: str, request: RequestContext, results: list[AsyncValue]
    ):
        self._program = program
        self.function = function
        self.request = request
        self.results = results
        self._exception: BaseException | None = None
        self._start: _Start | None = None  # the task that starts it, on a threaded queue

    def cancel(self) -> bool:
        """Cancel the call (safe from any thread); as ``concurrent.futures``'
        ``cancel``, a call that has already finished is left as it is and
        False is returned."""
        if self.done():
            return False
        self.request.cancel()
        return True

    @property
    def cancelled(self) -> bool:
        return self.request.cancelled

    def done(self) -> bool:
        """Whether every result is available."""
        return all(v.state for v in self.results)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the call has finished; False if ``timeout`` seconds passed first."""
        start = self._start
        if start is not None and timeout is None:
            # No worker has started it yet, maybe: start it here rather than
            # wait for one to wake up.  (Not with a timeout: the call's
            # inline kernels could take longer.)
            self._start = None
            start()
        return self._program._finish(self.results, self.request, timeout)

    def result(self, timeout: float | None = None) -> Any:
        """The call's value(s), as :meth:`Program.call` returns them.

        Raises TimeoutError if it has not finished within ``timeout`` seconds,
        :class:`CancelledError` if it was cancelled before its results were
        computed, :class:`ExecutionError` for any other error result.  A
        KeyboardInterrupt, SystemExit or other BaseException raised by one of
        its kernels (which stopped the call), or an exception that kept it
        from starting, is raised again here.
        """
        if not self.wait(timeout):
            raise TimeoutError(f"'{self.function}' did not finish within {timeout} s")
        raised = self._exception or self.request.interrupted
        if raised is not None:
            raise raised
        values = []
        for av in self.results:
            if av.state == ERROR:
                _raise_error(self.function, av.value, self._program.diagnostics)
            values.append(av.value)
        return _unwrap(values)

    def __repr__(self) -> str:
        state = "done" if self.done() else ("cancelled" if self.cancelled else "running")
        return f"<Call {self.function!r} {state}>"


def load(
    source: str | bytes | os.PathLike[str],
    *,
    work_queue: str = "s",
    host: HostContext | None = None,
    jit_threshold: int | None = None,
) -> Program:
    """Load a program from a BEF path or bytes (or a ``.mlir`` or ``.onnx`` path, or MLIR text)."""
    from tfrt.bef.reader import read_bef

    data: Any
    filename = "-"
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        filename = os.fspath(source)
        if "\n" in filename or filename.lstrip().startswith(("func.func", "module")):
            data, filename = filename.encode(), "-"
        else:
            with open(filename, "rb") as f:
                magic = f.read(2)
                # A BEF file is mapped and read in place; anything else is read.
                data = filename if magic == b"\x0b\xef" else magic + f.read()
    if isinstance(data, bytes) and data[:2] != b"\x0b\xef":
        from tfrt.passes.compiler import compile_text_to_bef

        # As tfrt_translate does, accept ops no dialect registers: the kernel
        # registry decides at load time whether they can run.  High-level
        # MLIR (linalg, arith, scf...) goes through the compiler first, and
        # an ONNX model through the importer before that.
        if filename.endswith(".onnx"):
            from tfrt.onnx.staged import staged_program
            from tfrt.tools.import_onnx import import_onnx, load_model

            model = load_model(filename)
            # Data-dependent shapes: compiled stages with kernels between them.
            staged = staged_program(model, work_queue=work_queue, host=host, jit_threshold=jit_threshold)
            if staged is not None:
                return staged  # type: ignore[return-value]
            text = import_onnx(model)
        else:
            text = data.decode("utf-8")
        data = compile_text_to_bef(text, filename)
    diagnostics: list[DecodedDiagnostic] = []
    if host is None:
        host = HostContext(work_queue=work_queue, diag_handler=diagnostics.append)
    kwargs = {} if jit_threshold is None else {"jit_threshold": jit_threshold}
    # Function bodies are checked when first called (BEFFormatError then).
    program = BEFProgram.load(read_bef(data, lazy=True), host, **kwargs)
    set_recursion_limit()
    return Program(program, host, diagnostics)
