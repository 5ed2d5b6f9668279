"""Kernels of the `tfrt_check` dialect (``dialects/tfrt_check.py``).

An expectation compares, and on a mismatch records a :class:`CheckFailure`
(the check op's ``file:line:col`` and a message) and returns its chain as
usual: like gtest's ``EXPECT_*``, a failed expectation does not stop the
function, and every failure of a call is reported.  Failures go to the
:class:`CheckFailures` of the call's request (``request.data[CheckFailures]``)
when the caller put one there, else to the host's (``host.shared_context``),
which also writes each failure to stderr unless its ``echo`` is turned off
(``tfrt_check`` collects them per test; ``bef_executor`` shows them).

Comparisons (the ``lhs`` operand is the value computed, ``rhs`` the value
expected):

* ``expect_eq``: same shape, same element type and the same bits, element by
  element, as IREE's runtime compares buffers (bytes): a NaN equals a NaN of
  the same bit pattern, and ``-0.0`` differs from ``0.0``.
* ``expect_almost_eq``: per element, in f64, ``lhs == rhs``, or both NaN, or
  ``rhs`` finite and ``|lhs - rhs| <= atol + rtol * |rhs|`` (IREE's
  ``iree_math_fuzzy_compare_f64``; ``rtol`` scales the expected value).
* ``expect_true``/``expect_false``/``expect_all_true``: non-zero is true.

A message names the first differing element (index, value computed, value
expected), how many elements differ, and both values with their types; when
the shapes or element types differ it says so instead of comparing.
"""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfrt.bef.program import file_line_col
from tfrt.diagnostics import Diagnostic, SourceLoc
from tfrt.kernels.registry import CHAIN, kernel
from tfrt.tensor.small_types import is_float

_ROW_BREAK = re.compile(r",\s*\n\s*")

#: How many elements a message shows of each tensor.
SHOWN_ELEMENTS = 64


@dataclass(frozen=True)
class CheckFailure:
    """One failed expectation: where (the check op's location, or None),
    what (one line) and the values compared (``details``, one per line)."""

    loc: SourceLoc | None
    message: str
    details: tuple[str, ...] = ()

    def render(self, sources: Any = None) -> str:
        """``file:line:col: error: MESSAGE`` (the source line and a caret when
        ``sources``, a ``SourceManager``, has the file), then the details."""
        text = Diagnostic("error", self.message, self.loc).render(sources)
        return text + "".join(f"  {line}\n" for line in self.details)


class CheckFailures:
    """The failures recorded so far; ``take()`` returns them and starts over."""

    def __init__(self, host: Any = None, echo: bool = True) -> None:
        self._lock = threading.Lock()
        self._failures: list[CheckFailure] = []
        self.echo = echo
        #: Expectations evaluated (passed or not).
        self.checked = 0

    def count(self) -> None:
        self.checked += 1

    def add(self, failure: CheckFailure) -> None:
        with self._lock:
            self._failures.append(failure)
        if self.echo:
            sys.stdout.flush()
            sys.stderr.write(failure.render())
            sys.stderr.flush()

    def take(self) -> list[CheckFailure]:
        with self._lock:
            out, self._failures = self._failures, []
        return out

    def __len__(self) -> int:
        return len(self._failures)


def _sink(ctx: Any) -> CheckFailures:
    data = ctx.exec_ctx.request.data
    sink = data.get(CheckFailures) if data else None
    if sink is None:
        sink = ctx.host.shared_context(CheckFailures)
    sink.count()
    return sink


def _record(sink: CheckFailures, ctx: Any, op: str, message: str, details: tuple[str, ...] = ()) -> None:
    loc = None
    where = ctx.location
    flc = file_line_col(where) if where is not None else None
    if flc is not None:
        loc = SourceLoc(flc.file, flc.line, flc.col)
    sink.add(CheckFailure(loc, f"{op} failed: {message}", details))


# -- values --------------------------------------------------------------


def _host(x: Any) -> Any:
    """A device array (CuPy) as a host one; anything else as it is."""
    if type(x) is not np.ndarray and hasattr(x, "__cuda_array_interface__"):
        return x.get()
    return x


_TYPE_NAMES = {
    np.dtype(np.bool_): "i1", np.dtype(np.int8): "i8", np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32", np.dtype(np.int64): "i64", np.dtype(np.uint8): "ui8",
    np.dtype(np.uint16): "ui16", np.dtype(np.uint32): "ui32", np.dtype(np.uint64): "ui64",
    np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
}  # fmt: skip


def element_type_name(dtype: np.dtype) -> str:
    name = _TYPE_NAMES.get(np.dtype(dtype))
    if name is None:  # bf16, the 8/6/4-bit floats, i2/i4: the expression language's names
        from tfrt.kernels.expr import _NAMES

        name = _NAMES.get(np.dtype(dtype), str(dtype))
    return name


def type_name(a: np.ndarray) -> str:
    """``tensor<2x3xf32>`` for an array (``tensor<f32>`` for a 0-d one)."""
    dims = "".join(f"{d}x" for d in a.shape)
    return f"tensor<{dims}{element_type_name(a.dtype)}>"


def format_scalar(v: Any, dtype: np.dtype | None = None) -> str:
    """An element as its type prints it shortest (``0.999``, ``-3``, ``true``)."""
    if dtype is not None:
        v = np.asarray(v, dtype=dtype)[()]
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, np.floating):
        return repr(float(v)) if v.dtype == np.float64 else str(v)
    if isinstance(v, np.complexfloating):  # MLIR's (re, im)
        return f"({format_scalar(v.real)}, {format_scalar(v.imag)})"
    return str(v)


def format_array(a: np.ndarray) -> str:
    """``tensor<2xf32> [1.0, 2.5]``, with at most :data:`SHOWN_ELEMENTS` shown."""
    dtype = a.dtype
    text = np.array2string(
        a,
        separator=", ",
        threshold=SHOWN_ELEMENTS,
        edgeitems=3,
        max_line_width=1 << 30,
        formatter={"all": lambda v: format_scalar(v, dtype)},
    )
    # One line: numpy breaks rows (and blocks) of a multi-dimensional array.
    return f"{type_name(a)} {_ROW_BREAK.sub(', ', text)}"


def _index(flat: int, shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]" if shape else "[]"


def _pair(lhs: Any, rhs: Any) -> tuple[np.ndarray, np.ndarray, str | None]:
    """Both operands as arrays, and what makes them incomparable (or None)."""
    a, b = np.asarray(_host(lhs)), np.asarray(_host(rhs))
    problems = []
    if a.shape != b.shape:
        problems.append(f"the shapes differ ({_shape(a)} computed, {_shape(b)} expected)")
    if a.dtype != b.dtype:
        problems.append(f"the element types differ ({element_type_name(a.dtype)} computed, "
                        f"{element_type_name(b.dtype)} expected)")  # fmt: skip
    return a, b, "; ".join(problems) or None


def _shape(a: np.ndarray) -> str:
    return "x".join(map(str, a.shape)) if a.shape else "0-d"


def _both(a: np.ndarray, b: np.ndarray) -> tuple[str, ...]:
    return (f"computed: {format_array(a)}", f"expected: {format_array(b)}")


def _bits(a: np.ndarray) -> np.ndarray:
    """The elements as unsigned integers of their width (floats compare by bits)."""
    if is_float(a.dtype):  # ml_dtypes' small floats too (numpy kind "V")
        return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")
    return a


#: What a comparison returns on a mismatch: the message and the detail lines.
Mismatch = tuple[str, tuple[str, ...]]


def compare_eq(lhs: Any, rhs: Any) -> Mismatch | None:
    """None when ``lhs`` and ``rhs`` are equal (``expect_eq``), else why not."""
    a, b, problem = _pair(lhs, rhs)
    if problem is not None:
        return problem, _both(a, b)
    differ = _bits(a) != _bits(b)
    if not differ.any():
        return None
    flat = np.flatnonzero(differ)
    i = int(flat[0])
    message = (
        f"{len(flat)} of {a.size} elements differ; the first at index {_index(i, a.shape)}: "
        f"computed {format_scalar(a.reshape(-1)[i])}, expected {format_scalar(b.reshape(-1)[i])}"
    )
    return message, _both(a, b)


def almost_equal(a: np.ndarray, b: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """Per element: ``a`` (computed) is close to ``b`` (expected); complex
    values when both their real and their imaginary parts are."""
    if np.iscomplexobj(a) or np.iscomplexobj(b):
        return almost_equal(a.real, b.real, atol, rtol) & almost_equal(a.imag, b.imag, atol, rtol)
    x = a.astype(np.float64)
    y = b.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(x - y) <= atol + rtol * np.abs(y)
        return (x == y) | (np.isnan(x) & np.isnan(y)) | (np.isfinite(y) & close)


def compare_almost_eq(lhs: Any, rhs: Any, atol: float, rtol: float) -> Mismatch | None:
    """None when ``lhs`` is within ``atol + rtol * |rhs|`` of ``rhs`` everywhere, else why not."""
    a, b, problem = _pair(lhs, rhs)
    if problem is not None:
        return problem, _both(a, b)
    if not is_float(a.dtype) and not np.iscomplexobj(a):
        return f"expected floating-point values, got {type_name(a)}", _both(a, b)
    atol, rtol = float(np.float32(atol)), float(np.float32(rtol))
    differ = ~almost_equal(a, b, atol, rtol)
    if not differ.any():
        return None
    flat = np.flatnonzero(differ)
    i = int(flat[0])
    x, y = a.reshape(-1)[i], b.reshape(-1)[i]
    if np.iscomplexobj(a):  # the part that differs
        part = "real" if not almost_equal(np.asarray(x.real), np.asarray(y.real), atol, rtol) else "imag"
        x0, y0 = getattr(x, part), getattr(y, part)
    else:
        part, x0, y0 = "", x, y
    if not np.isfinite(y0):
        why = "a value that is not finite is met only by itself"
    elif np.isnan(x0):
        why = "NaN computed"
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            why = f"|difference| {abs(float(x0) - float(y0)):.6g} > {atol + rtol * abs(float(y0)):.6g}"
    if part:
        why = f"{part} parts: {why}"
    message = (
        f"{len(flat)} of {a.size} elements differ by more than atol + rtol * |expected| "
        f"(atol {atol:g}, rtol {rtol:g}); the first at index {_index(i, a.shape)}: "
        f"computed {format_scalar(x)}, expected {format_scalar(y)} ({why})"
    )
    return message, _both(a, b)


def _truth(v: Any) -> bool:
    return bool(np.asarray(_host(v)) != 0)


# -- kernels -----------------------------------------------------------------


@kernel("tfrt_check.expect_true", context=True)
def expect_true(ctx, chain, value):
    """Records a failure unless ``value`` is non-zero."""
    sink = _sink(ctx)
    if not _truth(value):
        _record(sink, ctx, "check.expect_true", f"the value is {format_scalar(value)}; expected non-zero")
    return CHAIN


@kernel("tfrt_check.expect_false", context=True)
def expect_false(ctx, chain, value):
    """Records a failure unless ``value`` is zero."""
    sink = _sink(ctx)
    if _truth(value):
        _record(sink, ctx, "check.expect_false", f"the value is {format_scalar(value)}; expected zero")
    return CHAIN


@kernel("tfrt_check.expect_all_true", context=True)
def expect_all_true(ctx, chain, value):
    """Records a failure unless every element of ``value`` is non-zero."""
    sink = _sink(ctx)
    a = np.asarray(_host(value))
    zero = a == 0
    if zero.any():
        flat = np.flatnonzero(zero)
        i = int(flat[0])
        _record(sink, ctx, "check.expect_all_true",
                f"{len(flat)} of {a.size} elements are zero; the first at index {_index(i, a.shape)}",
                (f"computed: {format_array(a)}",))  # fmt: skip
    return CHAIN


@kernel("tfrt_check.expect_eq", context=True)
def expect_eq(ctx, chain, lhs, rhs):
    """Records a failure unless ``lhs`` and ``rhs`` are equal, bit for bit."""
    sink = _sink(ctx)
    mismatch = compare_eq(lhs, rhs)
    if mismatch is not None:
        _record(sink, ctx, "check.expect_eq", *mismatch)
    return CHAIN


@kernel("tfrt_check.expect_almost_eq", attrs=("f32", "f32"), context=True, bind=True)
def expect_almost_eq(atol, rtol):
    """Records a failure unless ``lhs`` is within ``atol + rtol * |rhs|`` of ``rhs``."""
    atol, rtol = float(atol), float(rtol)

    def run(ctx, chain, lhs, rhs):
        sink = _sink(ctx)
        mismatch = compare_almost_eq(lhs, rhs, atol, rtol)
        if mismatch is not None:
            _record(sink, ctx, "check.expect_almost_eq", *mismatch)
        return CHAIN

    return run


@kernel("tfrt_check.barrier")
def barrier(*values):
    """Returns its operands."""
    return values[0] if len(values) == 1 else values
