"""Argument and result values at the program boundary.

One place decides how a Python/numpy value becomes an argument of a function
whose BEF signature names its type (``i32``, ``f32``, ``tensor<2x3xf32>``...)
and how results print.  ``tfrt.api`` converts call arguments with it, and
``bef_executor --function`` parses and prints values with IREE's
``iree-run-module`` conventions:

    --input=2x2xf32=1,2,3,4      shape x dtype = values (spaces, commas, [] ok)
    --input=2x2xf32              zeros of that shape
    --input=f32=3.5  --input=7   scalars (a bare value takes the declared type)
    --input=@x.npy               the next array stored in x.npy
    --input=4xf32=@raw.bin       raw little-endian element data

    result[0]: hal.buffer_view   a tensor result is printed as
    2x2xf32=[1 2][3 4]           SHAPExDTYPE=values, rows in brackets
    result[1]: i32=7             a scalar result as DTYPE=value

Only numpy is imported; the runtime side stays light.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from tfrt.kernels.expr import DTYPES as KERNEL_DTYPES
from tfrt.tensor import small_types as st

__all__ = [
    "DTYPES",
    "ValueSpecError",
    "ValueRangeError",
    "TensorType",
    "parse_type",
    "converter",
    "parse_input",
    "format_value",
    "format_result",
    "NpyReader",
]

# MLIR element type -> numpy dtype: the kernels' types, plus unsigned and index.
DTYPES: dict[str, np.dtype] = {
    **KERNEL_DTYPES,
    **{f"ui{w}": np.dtype(f"uint{w}") for w in (8, 16, 32, 64)},
    "index": np.dtype(np.int64),
}
# dtype -> name: the first spelling (signless before si*, which share storage).
_NAMES: dict[np.dtype, str] = {}
for _name, _dt in DTYPES.items():
    if _name != "index":
        _NAMES.setdefault(_dt, _name)


class ValueSpecError(ValueError):
    """An argument or ``--input`` does not match what the function declares."""


class ValueRangeError(ValueSpecError, OverflowError):
    """An integer does not fit the declared type."""


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int, ...]
    element: str

    @property
    def dtype(self) -> np.dtype:
        return DTYPES[self.element]

    def __str__(self) -> str:
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + self.element + ">"


_TENSOR_RE = re.compile(r"^tensor<((?:\d+x)*)([a-z]+\d*[A-Z0-9]*)>$")


def parse_type(name: str) -> TensorType | str | None:
    """A BEF type name as a :class:`TensorType`, a scalar type name, or None (opaque)."""
    m = _TENSOR_RE.match(name)
    if m is not None:
        if m.group(2) not in DTYPES:
            return None
        dims = tuple(int(d) for d in m.group(1).split("x") if d)
        return TensorType(dims, m.group(2))
    return name if name in DTYPES else None


def dtype_name(dtype: np.dtype) -> str:
    return _NAMES.get(np.dtype(dtype), str(dtype))


def _scalar_converter(name: str) -> Callable[[Any], Any]:
    dt = DTYPES[name]
    if name == "i1":
        def to_bool(v: Any) -> bool:
            if isinstance(v, np.ndarray) and v.shape != ():
                raise ValueSpecError(f"expected an i1 scalar, got an array of shape {v.shape}")
            return bool(v)
        return to_bool
    if dt.kind in "iu" or st.is_integer(dt):
        info = _int_range(dt)

        def to_int(v: Any) -> int:
            if isinstance(v, np.ndarray) and v.shape != ():
                raise ValueSpecError(f"expected an {name} scalar, got an array of shape {v.shape}")
            if isinstance(v, (float, np.floating)):
                if v != int(v):
                    raise ValueSpecError(f"expected an {name} value, got {v!r}")
            iv = int(v)
            if not info.min <= iv <= info.max:
                raise ValueRangeError(f"{iv} does not fit in {name}")
            return iv
        return to_int
    if name == "f64":
        def to_f64(v: Any) -> float:
            if isinstance(v, np.ndarray) and v.shape != ():
                raise ValueSpecError(f"expected an f64 scalar, got an array of shape {v.shape}")
            return float(v)
        return to_f64
    scalar = dt.type
    small = st.is_small_float(dt)

    def to_float(v: Any) -> Any:
        if isinstance(v, np.ndarray) and v.shape != ():
            raise ValueSpecError(f"expected an {name} scalar, got an array of shape {v.shape}")
        if small and getattr(v, "dtype", None) != dt:
            return st.convert(np.float64(v), dt)
        return scalar(v)
    return to_float


def _tensor_converter(tt: TensorType) -> Callable[[Any], Any]:
    dt = tt.dtype
    shape = tt.shape

    def to_tensor(v: Any) -> Any:
        if type(v) is np.ndarray and v.dtype == dt and v.shape == shape:
            return v  # the common case: no copy
        if not isinstance(v, np.ndarray) and hasattr(v, "__cuda_array_interface__"):
            if v.dtype != dt or tuple(v.shape) != shape:
                raise ValueSpecError(f"expected {tt}, got a device array {tuple(v.shape)} {v.dtype}")
            return v
        a = np.asarray(v)
        if a.dtype != dt:
            if isinstance(v, np.ndarray) and not np.can_cast(a.dtype, dt, "same_kind"):
                raise ValueSpecError(f"expected {tt}, got an array of {a.dtype} (numpy would not cast it to {dt})")
            try:
                # Small floats: rounded once (ml_dtypes rounds f64 twice).
                a = st.convert(a, dt) if st.is_small_float(dt) else a.astype(dt)
            except (TypeError, ValueError) as exc:
                raise ValueSpecError(f"expected {tt}: {exc}") from None
        if a.shape != shape:
            got = "x".join(map(str, a.shape)) or "scalar"
            raise ValueSpecError(f"expected {tt}, got shape {got}")
        return a

    to_tensor.spec = (dt, shape)  # type: ignore[attr-defined]  # for callers' fast checks
    return to_tensor


def converter(type_name: str) -> Callable[[Any], Any] | None:
    """How to convert an argument of BEF type ``type_name`` (None: pass it through)."""
    t = parse_type(type_name)
    if t is None:
        return None
    if isinstance(t, TensorType):
        return _tensor_converter(t)
    return _scalar_converter(t)


# ---------------------------------------------------------------------------
# --input parsing (iree-run-module's syntax).

_SPEC_RE = re.compile(r"^((?:\d+x)*)([a-z]+\d*[A-Z0-9]*)$")


class NpyReader:
    """Successive ``@file.npy`` inputs naming one file read its arrays in order."""

    def __init__(self) -> None:
        self._files: dict[str, Any] = {}

    def next(self, path: str) -> np.ndarray:
        f = self._files.get(path)
        if f is None:
            try:
                f = open(path, "rb")
            except OSError as exc:
                raise ValueSpecError(f"cannot open '{path}': {exc.strerror}") from None
            self._files[path] = f
        # np.load guesses the format from the first bytes: an .npz archive
        # would come back as an NpzFile, anything else as a pickle error.
        try:
            start = f.tell()
        except OSError:
            raise ValueSpecError(f"'{path}' is not a regular file (a pipe?)") from None
        magic = f.read(6)
        if not magic:
            raise ValueSpecError(f"'{path}' has no more arrays" if start else f"'{path}' is empty")
        if magic.startswith(b"PK"):
            raise ValueSpecError(f"'{path}' is an .npz archive; @FILE takes .npy files (np.save)")
        if magic != b"\x93NUMPY":
            raise ValueSpecError(f"'{path}' is not a numpy .npy file")
        f.seek(start)
        try:
            return np.load(f, allow_pickle=False)
        except EOFError:
            raise ValueSpecError(f"'{path}' has no more arrays") from None
        except (ValueError, OSError) as exc:
            raise ValueSpecError(f"'{path}' is not a numpy .npy file: {exc}") from None

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()


def _parse_number(text: str, dt: np.dtype) -> Any:
    t = text.strip()
    if dt.kind == "b":
        low = t.lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
        raise ValueSpecError(f"'{t}' is not an i1 value (0, 1, true, false)")
    if st.is_integer(dt):
        try:
            v = int(t, 0)
        except ValueError:
            raise ValueSpecError(f"'{t}' is not an integer") from None
        info = _int_range(dt)
        if not info.min <= v <= info.max:
            raise ValueRangeError(f"{v} does not fit in {dtype_name(dt)}")
        return v
    try:
        return float(t)
    except ValueError:
        raise ValueSpecError(f"'{t}' is not a number") from None


def _as_array(values: Any, dt: np.dtype) -> np.ndarray:
    """Parsed numbers as an array of ``dt`` (small floats rounded once)."""
    if st.is_small_float(dt):
        return np.asarray(st.convert(np.asarray(values, np.float64), dt))
    return np.asarray(values, dt)


def parse_input(spec: str, declared: str | None, npy: NpyReader | None = None) -> Any:
    """One ``--input`` value, checked against the declared BEF type when known."""
    want = parse_type(declared) if declared is not None else None
    if spec.startswith("@"):
        a = (npy or NpyReader()).next(spec[1:])
        return _check(a, want, declared)
    head, eq, body = spec.partition("=")
    m = _SPEC_RE.match(head)
    if not eq:
        m2 = _SPEC_RE.match(spec)
        if m2 is not None and m2.group(2) in DTYPES and (m2.group(1) or spec in DTYPES):
            shape = tuple(int(d) for d in m2.group(1).split("x") if d)
            return _check(np.zeros(shape, DTYPES[m2.group(2)]), want, declared)
        # A bare value takes the declared scalar type.
        if isinstance(want, str):
            return _check(_as_array(_parse_number(spec, DTYPES[want]), DTYPES[want]), want, declared)
        if isinstance(want, TensorType) and want.shape == ():
            return _check(_as_array(_parse_number(spec, want.dtype), want.dtype), want, declared)
        raise ValueSpecError(f"expected SHAPExTYPE=VALUES (e.g. 2x2xf32=1,2,3,4) or @file.npy, got '{spec}'")
    if m is None or m.group(2) not in DTYPES:
        raise ValueSpecError(f"'{head}' is not SHAPExTYPE (e.g. 2x2xf32, i32)")
    shape = tuple(int(d) for d in m.group(1).split("x") if d)
    dt = DTYPES[m.group(2)]
    count = int(np.prod(shape, dtype=np.int64))
    body = body.strip()
    if body.startswith("@"):
        path = body[1:]
        try:
            raw = np.fromfile(path, dtype=dt.newbyteorder("<"))
        except OSError as exc:
            raise ValueSpecError(f"cannot open '{path}': {exc.strerror}") from None
        except ValueError as exc:
            raise ValueSpecError(f"'{path}': {exc}") from None
        if raw.size != count:
            raise ValueSpecError(f"'{path}' holds {raw.size} {m.group(2)} elements, {head} needs {count}")
        return _check(raw.astype(dt).reshape(shape), want, declared)
    tokens = [t for t in re.split(r"[\s,\[\]]+", body) if t]
    if not tokens:
        a = np.zeros(shape, dt)
    elif len(tokens) == 1 and count != 1:
        a = np.broadcast_to(_as_array(_parse_number(tokens[0], dt), dt), shape).copy()  # a splat
    elif len(tokens) != count:
        raise ValueSpecError(f"{head} needs {count} values, got {len(tokens)}")
    else:
        a = _as_array([_parse_number(t, dt) for t in tokens], dt).reshape(shape)
    return _check(a, want, declared)


def _check(a: np.ndarray, want: Any, declared: str | None) -> Any:
    if want is None:
        return a
    got = "x".join(map(str, a.shape))
    got = f"{got}x{dtype_name(a.dtype)}" if got else dtype_name(a.dtype)
    if isinstance(want, TensorType):
        if a.shape != want.shape or a.dtype != want.dtype:
            raise ValueSpecError(f"the function takes {declared}, got {got}")
        return a
    if a.shape != () or a.dtype != DTYPES[want]:
        raise ValueSpecError(f"the function takes {declared}, got {got}")
    if want in ("i1", "f64") or DTYPES[want].kind in "iu":
        return a[()].item()
    return int(a[()]) if st.is_integer(DTYPES[want]) else a[()]


# ---------------------------------------------------------------------------
# Printing (iree-run-module's buffer view format).


def _int_range(dt: np.dtype) -> Any:
    """``min``/``max`` of an integer type (ml_dtypes' i2/i4 included)."""
    if dt.kind in "iu":
        return np.iinfo(dt)
    import ml_dtypes

    return ml_dtypes.iinfo(dt)


def _format_element(v: Any, kind: str) -> str:
    if kind == "b":
        return "1" if v else "0"
    if kind in "iu":
        return str(int(v))
    f = float(v)
    if f != f:
        return "NAN"
    if f in (float("inf"), float("-inf")):
        return "-INF" if f < 0 else "INF"
    return "%G" % f


def format_value(a: Any, max_elements: int = 1024) -> str:
    """``2x2xf32=[1 2][3 4]``; a 0-d value prints as ``f32=5``."""
    if hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray):
        a = a.get()
    a = np.asarray(a)
    kind = a.dtype.kind
    if kind not in "biuf" and st.is_integer(a.dtype):
        kind = "i"  # i2/i4: printed as integers
    head = "".join(f"{d}x" for d in a.shape) + dtype_name(a.dtype)
    flat = a.reshape(-1)
    shown = min(flat.size, max_elements)
    items = [_format_element(v, kind) for v in flat[:shown].tolist()]
    if a.ndim <= 1:
        body = " ".join(items)
        if shown < flat.size:
            body += "..."
        return f"{head}={body}"
    # Nested brackets, innermost dimension as rows: [[1 2][3 4]] -> [1 2][3 4]
    # at the top level, as IREE prints it.
    def nest(level: int, start: int) -> tuple[str, int]:
        dim = a.shape[level]
        if level == a.ndim - 1:
            row = items[start:start + dim]
            text = "[" + " ".join(row) + ("..." if start + dim > shown else "") + "]"
            return text, start + dim
        parts = []
        pos = start
        for _ in range(dim):
            if pos >= shown:
                parts.append("...")
                break
            part, pos = nest(level + 1, pos)
            parts.append(part)
        return "[" + "".join(parts) + "]", pos

    inner = []
    pos = 0
    for _ in range(a.shape[0]):
        if pos >= shown:
            inner.append("...")
            break
        part, pos = nest(1, pos)
        inner.append(part)
    return f"{head}=" + "".join(inner)


def format_result(index: int, value: Any, type_name: str | None = None, max_elements: int = 1024) -> str:
    """A result as ``iree-run-module`` prints it (tensors as hal.buffer_view)."""
    t = parse_type(type_name) if type_name is not None else None
    is_array = isinstance(value, np.ndarray) or (
        hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.generic)
    )
    if isinstance(t, TensorType) or (t is None and is_array and np.ndim(value) > 0):
        return f"result[{index}]: hal.buffer_view\n{format_value(value, max_elements)}"
    if isinstance(t, str):
        return f"result[{index}]: {format_value(np.asarray(value, DTYPES[t]), max_elements)}"
    if isinstance(value, (bool, np.bool_, int, float, np.number)) or is_array:
        if isinstance(value, bool):
            a = np.asarray(value)
        elif isinstance(value, int):
            a = np.asarray(value, np.int64)
        else:
            a = np.asarray(value)
        return f"result[{index}]: {format_value(a, max_elements)}"
    return f"result[{index}]: {type_name or type(value).__name__} {value!r}"
