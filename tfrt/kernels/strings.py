"""Kernels over string tensors: ONNX's StringConcat, StringSplit,
StringNormalizer, RegexFullMatch, Equal, Cast to and from strings,
``ai.onnx.ml``'s LabelEncoder and CategoryMapper, and the operators that
only move elements (Identity, Reshape, Gather, Concat, Squeeze, Unsqueeze,
Transpose, Slice, Flatten, Expand, Where, Shape, Size).

A compiled program holds numeric tensors only, so ``tfrt.onnx.staged`` runs
every node that reads or produces a string tensor here, between compiled
programs, as it runs the nodes whose result shapes depend on data.  A
string tensor is a numpy array of ``object`` dtype holding Python ``str``
(what onnxruntime returns); each kernel returns one.  The kernels are plain
sync kernels of the registry, numpy and the standard library only; an
operand the operator does not define a result for is a :class:`KernelError`.

Semantics are the ONNX operator specifications (StringConcat, StringSplit,
RegexFullMatch 20; StringNormalizer 10; Cast 6-21; LabelEncoder 1-4,
CategoryMapper 1 of ``ai.onnx.ml``).  Where the specification leaves a case
open (Cast's number formats) onnxruntime's choice is taken, and a string it
does not define (``"12abc"`` cast to an integer) is an error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfrt.kernels.registry import KernelError, kernel

__all__ = [
    "as_strings",
    "cast_from_string",
    "cast_to_string",
    "category_mapper",
    "label_encoder",
    "regex_full_match",
    "string_concat",
    "string_equal",
    "string_normalizer",
    "string_split",
]


def as_strings(x: Any, what: str = "the input") -> np.ndarray:
    """``x`` as an object array of ``str`` (bytes decoded as UTF-8, as ONNX
    stores strings)."""
    if x is None:
        raise KernelError(f"{what} is missing")
    a = np.asarray(x)
    if a.dtype.kind == "U":
        return a.astype(object)
    if a.dtype.kind == "S":
        a = a.astype(object)
    if a.dtype != object:
        raise KernelError(f"{what} must be a string tensor, not {a.dtype}")
    out = np.empty(a.shape, object)
    flat = out.reshape(-1)
    for i, v in enumerate(a.reshape(-1)):
        if isinstance(v, str):
            flat[i] = v
        elif isinstance(v, (bytes, np.bytes_)):
            try:
                flat[i] = bytes(v).decode("utf-8")
            except UnicodeDecodeError:
                raise KernelError(
                    f"{what} holds bytes that are not UTF-8: {bytes(v)[:20]!r}"
                ) from None
        elif isinstance(v, np.str_):
            flat[i] = str(v)
        else:
            raise KernelError(f"{what} holds a {type(v).__name__}, not a string")
    return out


def _map(fn, *arrays: np.ndarray, otype=object) -> np.ndarray:
    """``fn`` elementwise over broadcast arrays (an object array, or
    ``otype``)."""
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = " and ".join(str(list(a.shape)) for a in arrays)
        raise KernelError(f"shapes {shapes} do not broadcast") from None
    bs = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    out = np.empty(int(np.prod(shape, dtype=np.int64)), otype)
    for i in range(out.size):
        out[i] = fn(*(b[i] for b in bs))
    return out.reshape(shape)


@kernel("tfrt_onnx.string_concat")
def string_concat(x: Any, y: Any) -> np.ndarray:
    """``x + y`` elementwise, broadcast as numpy does."""
    return _map(lambda a, b: a + b, as_strings(x, "input X"), as_strings(y, "input Y"))


@kernel("tfrt_onnx.string_equal")
def string_equal(x: Any, y: Any) -> np.ndarray:
    """``x == y`` elementwise (code point by code point), broadcast."""
    return _map(lambda a, b: a == b, as_strings(x, "input A"), as_strings(y, "input B"), otype=bool)


@kernel("tfrt_onnx.string_split", attrs=("any", "any"))
def string_split(
    delimiter: str | None, maxsplit: int | None, x: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Each string split at ``delimiter`` (at runs of spaces, leading and
    trailing ones ignored, where it is None or empty), at most
    ``maxsplit`` times: the substrings, padded with empty strings to the
    longest count (shape ``x.shape + [n]``), and the counts (int64, x's
    shape)."""
    x = as_strings(x)
    sep = delimiter or None
    limit = -1 if maxsplit is None else int(maxsplit)
    if limit < 0 and maxsplit is not None:
        raise KernelError(f"maxsplit must not be negative, it is {maxsplit}")
    # An empty string has no substrings, whatever the delimiter (onnxruntime;
    # ONNX's reference implementation gives one empty substring).
    parts = [_split(s, sep, limit) if s else [] for s in x.reshape(-1)]
    counts = np.array([len(p) for p in parts], np.int64).reshape(x.shape)
    width = max((len(p) for p in parts), default=0)
    y = np.full((len(parts), width), "", object)
    for i, p in enumerate(parts):
        y[i, : len(p)] = p
    return y.reshape(*x.shape, width), counts


def _split(s: str, sep: str | None, limit: int) -> list[str]:
    if sep is not None:
        return s.split(sep, limit)
    # Runs of spaces separate; the last piece loses its trailing spaces
    # (onnxruntime).  Other whitespace is refused: onnxruntime does not split
    # there, ONNX's reference implementation does.
    for c in s:
        if c != " " and c.isspace():
            raise KernelError(
                f"the string {s[:40]!r} holds whitespace other than spaces ({c!r}): where to split it is not "
                "settled (onnxruntime splits at spaces only, ONNX's reference at every whitespace character)"
            )
    return s.strip(" ").split(None, limit)


# The locales whose case mapping is Unicode's simple one (one character to
# one, as towupper/towlower), and those that change ASCII letters only.
_UNICODE_LOCALES = {
    "",
    "en_US",
    "en_US.UTF-8",
    "en_US.utf8",
    "en-US",
    "en_GB",
    "en_GB.UTF-8",
    "C.UTF-8",
}
_ASCII_LOCALES = {"C", "POSIX"}
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _change_case(s: str, upper: bool, ascii_only: bool) -> str:
    """``s`` upper- or lowercased character by character: a character whose
    full mapping is several (``ß`` -> ``SS``) is kept, and no mapping
    depends on its neighbours (a final sigma), as towupper/towlower."""
    if ascii_only:
        return s.translate(_ASCII_UPPER if upper else _ASCII_LOWER)
    if s.isascii():
        return s.upper() if upper else s.lower()
    out = []
    for c in s:
        m = c.upper() if upper else c.lower()
        if len(m) != 1:
            # Unicode's simple mapping where the full one is several
            # characters: U+0130 lowercases to "i"; a Greek letter with
            # ypogegrammeni uppercases to its titlecase letter (U+1F80 ->
            # U+1F88); the rest (ß, ligatures) stay, as towupper/towlower.
            m = ("i" if c == "\u0130" else c) if not upper else c.title()
            m = m if len(m) == 1 else c
        out.append(m)
    return "".join(out)


@kernel("tfrt_onnx.string_normalizer", attrs=("any", "any", "any", "any"))
def string_normalizer(
    case_change: str, case_sensitive: int, locale: str, stopwords: Sequence[str], x: Any
) -> np.ndarray:
    """``x`` (``[C]`` or ``[1, C]``) without its stopwords (compared as they
    are, or both lowercased when ``case_sensitive`` is 0), then lowercased,
    uppercased or left (``case_change`` LOWER, UPPER, NONE).  Where every
    string is dropped the result is one empty string (``[1]`` or
    ``[1, 1]``).  The locale is the default one (``en_US``: Unicode's simple
    case mapping) or ``C``/``POSIX`` (ASCII letters only)."""
    x = as_strings(x)
    if case_change not in ("LOWER", "UPPER", "NONE"):
        raise KernelError(f"case_change_action must be LOWER, UPPER or NONE, not '{case_change}'")
    if locale not in _UNICODE_LOCALES and locale not in _ASCII_LOCALES:
        raise KernelError(
            f"locale '{locale}' is not supported (the default one, en_US, and C are: other locales map case otherwise)"
        )
    ascii_only = locale in _ASCII_LOCALES
    if x.ndim == 2 and x.shape[0] != 1 or x.ndim not in (1, 2):
        raise KernelError(f"the input must have shape [C] or [1, C], not {list(x.shape)}")
    flat = list(x.reshape(-1))
    if case_sensitive:
        stop = set(stopwords)
        kept = [s for s in flat if s not in stop]
    else:
        stop = {_change_case(w, False, ascii_only) for w in stopwords}
        kept = [s for s in flat if _change_case(s, False, ascii_only) not in stop]
    if case_change != "NONE":
        kept = [_change_case(s, case_change == "UPPER", ascii_only) for s in kept]
    if not kept:
        kept = [""]
    out = np.empty(len(kept), object)
    out[:] = kept
    return out.reshape(1, -1) if x.ndim == 2 else out


# -- RegexFullMatch ----------------------------------------------------------
# RE2's syntax read by Python's re: constructs RE2 reads and Python reads
# otherwise (or the other way round) are refused, and the rest is rewritten
# where the two differ in meaning (\d, \w, \b are ASCII in RE2: re.ASCII;
# \s lacks \v in RE2; $ is the end of the text in RE2 without the m flag).
_RE_UNSUPPORTED = [
    (re.compile(r"\(\?[=!]|\(\?<[=!]"), "lookaround assertions (RE2 has none)"),
    (re.compile(r"\(\?>"), "atomic groups (RE2 has none)"),
    (re.compile(r"\(\?\("), "conditional groups (RE2 has none)"),
    (re.compile(r"\(\?#"), "comment groups (RE2 has none)"),
    (
        re.compile(r"\[:\^?[a-z]+:\]"),
        "POSIX classes such as [[:alpha:]] (Python's re reads them as a set of characters)",
    ),
    (re.compile(r"(?<!\\)\{,"), "a {,n} repetition (RE2 reads it as text, Python's re as {0,n})"),
    (re.compile(r"\(\?P[=>]"), "named backreferences (?P=name) (RE2 has none)"),
]


def _translate_regex(pattern: str) -> tuple[str, bool]:
    """``pattern`` (RE2 syntax) as a Python pattern to use with
    ``re.ASCII``, and whether it matches case-insensitively."""
    for rx, why in _RE_UNSUPPORTED:
        if rx.search(pattern):
            raise KernelError(f"pattern {pattern!r}: {why} are not supported")
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    multiline = ignore_case = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise KernelError(f"pattern {pattern!r}: a trailing backslash")
            e = pattern[i + 1]
            if e.isdigit():
                raise KernelError(
                    f"pattern {pattern!r}: \\{e} (backreferences and octal escapes) is not supported"
                )
            if e in "pPQECz" or e == "x" and pattern[i + 2 : i + 3] == "{":
                raise KernelError(f"pattern {pattern!r}: the escape \\{e} is not supported")
            if e == "Z":
                raise KernelError(f"pattern {pattern!r}: \\Z is not RE2 syntax")
            if e == "s":
                out.append(r"\t\n\f\r " if in_class else r"[\t\n\f\r ]")
            elif e == "S":
                if in_class:
                    raise KernelError(
                        f"pattern {pattern!r}: \\S inside a character class is not supported"
                    )
                out.append(r"[^\t\n\f\r ]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            elif c == "[":
                out.append(r"\[")  # a literal '[' in RE2; Python warns of nested sets
                i += 1
                continue
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                out.append("[^")
                i += 2
            else:
                out.append("[")
                i += 1
            if pattern[i : i + 1] == "]":  # a leading ']' is a literal
                out.append(r"\]")
                i += 1
            continue
        if c == "(" and pattern[i + 1 : i + 2] == "?":
            m = re.match(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])", pattern[i:])
            if m and (m.group(1) or m.group(2)):
                flags = (m.group(1) or "") + (m.group(2) or "")
                bad = set(flags) - set("ims")
                if bad:
                    raise KernelError(
                        f"pattern {pattern!r}: the flag(s) {''.join(sorted(bad))} are not supported"
                    )
                if m.group(2):
                    raise KernelError(
                        f"pattern {pattern!r}: clearing flags ((?-...)) is not supported"
                    )
                if m.group(3) == ":" and "m" in flags:
                    raise KernelError(
                        f"pattern {pattern!r}: the m flag of a group ((?m:...)) is not supported"
                    )
                multiline |= "m" in flags
                ignore_case |= "i" in flags
            elif pattern[i + 2 : i + 3] == "<" and pattern[i + 3 : i + 4] not in ("=", "!"):
                out.append("(?P<")  # RE2's (?<name>...)
                i += 3
                continue
        if c == "$" and not multiline:
            out.append(r"\Z")
            i += 1
            continue
        if c == "{":
            m = re.match(r"\{(\d+)(?:,(\d*))?\}", pattern[i:])
            if m and max(int(m.group(1)), int(m.group(2) or 0)) > 1000:
                raise KernelError(
                    f"pattern {pattern!r}: a repetition count above 1000 (RE2's limit)"
                )
        if c in "*+?}" and pattern[i + 1 : i + 2] == "+":
            raise KernelError(f"pattern {pattern!r}: possessive quantifiers are not RE2 syntax")
        out.append(c)
        i += 1
    return "".join(out), ignore_case


_REGEX_CACHE: dict[str, tuple[re.Pattern, bool]] = {}


def compile_regex(pattern: str) -> tuple[re.Pattern, bool]:
    """The compiled form of an RE2 ``pattern`` and whether it ignores case;
    a KernelError for one Python's re cannot read as RE2 does."""
    got = _REGEX_CACHE.get(pattern)
    if got is not None:
        return got
    text, icase = _translate_regex(pattern)
    try:
        rx = re.compile(text, re.ASCII)
    except re.error as exc:
        raise KernelError(f"pattern {pattern!r}: {exc}") from None
    if len(_REGEX_CACHE) > 256:
        _REGEX_CACHE.clear()
    _REGEX_CACHE[pattern] = (rx, icase)
    return rx, icase


@kernel("tfrt_onnx.regex_full_match", attrs=("any",))
def regex_full_match(pattern: str, x: Any) -> np.ndarray:
    """Whether each string matches ``pattern`` (RE2 syntax) as a whole."""
    rx, icase = compile_regex(pattern)
    x = as_strings(x)
    flat = x.reshape(-1)
    if icase and (not pattern.isascii() or not all(s.isascii() for s in flat)):
        # RE2 folds case over Unicode, re.ASCII over ASCII only.
        raise KernelError(
            f"pattern {pattern!r}: case-insensitive matching of text outside ASCII is not supported"
        )
    out = np.fromiter((rx.fullmatch(s) is not None for s in flat), bool, flat.size)
    return out.reshape(x.shape)


# -- Cast --------------------------------------------------------------------
# ASCII digits only (Python's \d and float() take other scripts' digits too).
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_SPACE = " \t\n\v\f\r"  # C's isspace (str.strip() takes Unicode spaces too)
_SPECIAL = {
    "nan": math.nan,
    "+nan": math.nan,
    "-nan": math.nan,
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
}


def _format_number(v: Any, kind: str) -> str:
    if kind == "f":
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "INF" if f > 0 else "-INF"
        return f"{f:.8g}"
    if kind == "b":
        return "1" if v else "0"
    return str(int(v))


@kernel("tfrt_onnx.cast_to_string")
def cast_to_string(x: Any) -> np.ndarray:
    """Numbers as text, as onnxruntime writes them: floats of every width
    with 8 significant digits (``%.8g``: ``0.33333334``, ``1e+20``, ``-0``),
    ``NaN``, ``INF``, ``-INF``; integers in decimal; booleans ``1``, ``0``."""
    a = np.asarray(x)
    if a.dtype == object or a.dtype.kind in "US":
        return as_strings(a)
    kind = a.dtype.kind
    if kind == "V" or a.dtype.name in ("bfloat16",) or "float8" in a.dtype.name:
        try:
            a = a.astype(np.float32)
        except (TypeError, ValueError):
            raise KernelError(f"casting {a.dtype} to string is not supported") from None
        kind = "f"
    if kind not in "fiub":
        raise KernelError(f"casting {a.dtype} to string is not supported")
    out = np.empty(a.shape, object)
    flat = out.reshape(-1)
    for i, v in enumerate(a.reshape(-1).tolist()):
        flat[i] = _format_number(v, kind)
    return out


@kernel("tfrt_onnx.cast_from_string", attrs=("any",))
def cast_from_string(dtype: str, x: Any) -> np.ndarray:
    """Text as numbers of ``dtype`` (a numpy dtype name).  Floats take plain
    and scientific decimal notation and ``NaN``, ``INF``, ``+INF``, ``-INF``
    in any case, surrounding whitespace ignored; integers take decimal
    digits with a sign.  Anything else (``"12abc"``, ``"2.5"`` to an
    integer), and a value outside the type's range, is an error: ONNX leaves
    it undefined and onnxruntime reads a prefix or wraps around."""
    x = as_strings(x)
    want = np.dtype(dtype)
    flat = x.reshape(-1)
    if want == object:
        return x
    if want.kind == "f" or dtype == "bfloat16":
        vals = np.empty(flat.size, np.float64)
        for i, s in enumerate(flat):
            t = s.strip(_SPACE)
            special = _SPECIAL.get(t.lower())
            if special is not None:
                vals[i] = special
                continue
            if not _DECIMAL.fullmatch(t):
                raise KernelError(f"element {i} ('{s[:40]}') is not a number")
            vals[i] = float(t)
            if math.isinf(vals[i]):
                raise KernelError(f"element {i} ('{s[:40]}') is out of the range of {want}")
        with np.errstate(over="ignore"):
            out = vals.astype(want)
        bad = np.flatnonzero(np.isinf(out.astype(np.float64)) & ~np.isinf(vals))
        if bad.size:
            raise KernelError(
                f"element {int(bad[0])} ('{flat[bad[0]][:40]}') is out of the range of {want}"
            )
        return out.reshape(x.shape)
    if want.kind in "iu":
        info = np.iinfo(want)
        out = np.empty(flat.size, want)
        for i, s in enumerate(flat):
            t = s.strip(_SPACE)
            if not _INTEGER.fullmatch(t):
                raise KernelError(f"element {i} ('{s[:40]}') is not an integer")
            v = int(t)
            if not info.min <= v <= info.max:
                raise KernelError(f"element {i} ('{s[:40]}') is out of the range of {want}")
            out[i] = v
        return out.reshape(x.shape)
    raise KernelError(f"casting a string to {want} is not supported (ONNX does not define it)")


# -- ai.onnx.ml --------------------------------------------------------------
def lookup_key(v: Any) -> Any:
    """The dictionary key of a value: NaNs are one key (a NaN key maps a
    NaN input, as LabelEncoder-4 says); -0.0 and 0.0 one, as equality."""
    if isinstance(v, float) and math.isnan(v):
        return "__nan__"
    return v


@kernel("tfrt_onnx.label_encoder", attrs=("any", "any", "any", "any"))
def label_encoder(
    keys: np.ndarray, values: np.ndarray, default: Any, out_dtype: str, x: Any
) -> np.ndarray:
    """Each element of ``x`` mapped to the value of the equal key, or to
    ``default``; the result is of ``out_dtype`` (``object``: strings)."""
    keys = np.asarray(keys)
    values = np.asarray(values)
    if keys.shape != values.shape or keys.ndim != 1:
        raise KernelError(
            f"keys and values must be two lists of one length, not {list(keys.shape)} and {list(values.shape)}"
        )
    want = np.dtype(out_dtype)
    if keys.dtype == object:
        x = as_strings(x)
        keys = as_strings(keys, "the keys")
    else:
        x = np.asarray(x)
        if x.dtype == object or x.dtype.kind in "US":
            raise KernelError(f"the input is a string tensor, the keys are {keys.dtype}")
        if x.dtype.kind != keys.dtype.kind:
            raise KernelError(f"the input is {x.dtype}, the keys are {keys.dtype}")
        x = x.astype(keys.dtype, copy=False)
    table = {}
    for k, v in zip(keys.tolist(), values.tolist()):
        table.setdefault(lookup_key(k), v)  # the first of repeated keys (the caller keeps one of each)
    flat = x.reshape(-1).tolist()
    out = np.empty(len(flat), want)
    for i, v in enumerate(flat):
        out[i] = table.get(lookup_key(v), default)
    return out.reshape(x.shape)


@kernel("tfrt_onnx.category_mapper", attrs=("any", "any", "any", "any"))
def category_mapper(cats_strings: Sequence[str], cats_int64s: Sequence[int], default_string: str, default_int64: int,
                    x: Any) -> np.ndarray:  # fmt: skip
    """Strings to their int64 category (``default_int64`` where none), or
    int64 categories to their strings (``default_string`` where none)."""
    if len(cats_strings) != len(cats_int64s):
        raise KernelError(
            f"cats_strings has {len(cats_strings)} entries, cats_int64s {len(cats_int64s)}"
        )
    a = np.asarray(x)
    if a.dtype == object or a.dtype.kind in "US":
        a = as_strings(a)
        # The last of repeated categories wins, as onnxruntime (ONNX does not say).
        table = {s: int(i) for s, i in zip(cats_strings, cats_int64s)}
        out = np.fromiter((table.get(s, default_int64) for s in a.reshape(-1)), np.int64, a.size)
        return out.reshape(a.shape)
    if a.dtype.kind not in "iu":
        raise KernelError(f"the input must be a string or int64 tensor, not {a.dtype}")
    table = {int(i): s for s, i in zip(cats_strings, cats_int64s)}
    out = np.empty(a.size, object)
    for j, v in enumerate(a.reshape(-1).tolist()):
        out[j] = table.get(v, default_string)
    return out.reshape(a.shape)


# -- operators that only move elements ----------------------------------------
def _ints(v: Any, what: str) -> list[int]:
    a = np.asarray(v)
    if a.dtype.kind not in "iu":
        raise KernelError(f"{what} must be integers, not {a.dtype}")
    return [int(i) for i in a.reshape(-1)]


def _axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise KernelError(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank


def _reshape(allowzero: int, x: np.ndarray, shape: Any) -> np.ndarray:
    dims = _ints(shape, "the shape")
    out = []
    for i, d in enumerate(dims):
        if d == 0 and not allowzero:
            if i >= x.ndim:
                raise KernelError(
                    f"shape entry {i} is 0 (copy the input's dimension), the input has rank {x.ndim}"
                )
            out.append(x.shape[i])
        else:
            out.append(d)
    if out.count(-1) > 1 or any(d < -1 for d in out):
        raise KernelError(f"the shape {dims} is not valid")
    try:
        return x.reshape(out)
    except ValueError:
        raise KernelError(
            f"an input of shape {list(x.shape)} cannot be reshaped to {dims}"
        ) from None


def _slice(x: np.ndarray, starts: Any, ends: Any, axes: Any, steps: Any) -> np.ndarray:
    st, en = _ints(starts, "starts"), _ints(ends, "ends")
    ax = list(range(len(st))) if axes is None else _ints(axes, "axes")
    sp = [1] * len(st) if steps is None else _ints(steps, "steps")
    if not len(st) == len(en) == len(ax) == len(sp):
        raise KernelError("starts, ends, axes and steps must have one length")
    index = [slice(None)] * x.ndim
    for s, e, a, p in zip(st, en, ax, sp):
        if p == 0:
            raise KernelError("a step of 0")
        a = _axis(a, x.ndim)
        dim = x.shape[a]
        # ONNX's clamping: negative starts and ends count from the end, then
        # into [0, dim] (a positive step) or starts into [0, dim - 1] and ends
        # into [-1, dim - 1], -1 meaning "past the first" (a negative step).
        s, e = (s + dim if s < 0 else s), (e + dim if e < 0 else e)
        if p > 0:
            s, e = min(max(s, 0), dim), min(max(e, 0), dim)
        else:
            s, e = min(max(s, 0), dim - 1), min(max(e, -1), dim - 1)
        index[a] = slice(s, None if e < 0 else e, p)
    return x[tuple(index)]


@kernel("tfrt_onnx.move", attrs=("any", "any"))
def move(op: str, attrs: dict, *operands: Any) -> Any:
    """One of the operators that only move, copy or count elements, on
    arrays of any element type (strings included): ``op`` is its ONNX name,
    ``attrs`` its attributes."""
    if not operands or operands[0] is None:
        raise KernelError("the input is missing")
    x = np.asarray(operands[0])
    if x.dtype.kind in "US":
        x = as_strings(x)
    try:
        return _move(op, attrs, x, list(operands[1:]))
    except (ValueError, IndexError, TypeError) as exc:
        raise KernelError(str(exc)) from None


def _move(op: str, a: dict, x: np.ndarray, rest: list) -> Any:
    rest += [None] * 4
    if op == "Identity":
        return x.copy()
    if op == "Shape":
        shape = list(x.shape)
        start, end = a.get("start", 0), a.get("end")
        return np.array(shape[slice(start, end)], np.int64)
    if op == "Size":
        return np.array(x.size, np.int64)
    if op == "Reshape":
        return _reshape(
            int(a.get("allowzero", 0)), x, rest[0] if rest[0] is not None else a.get("shape")
        )
    if op == "Flatten":
        axis = a.get("axis", 1)
        if not -x.ndim <= axis <= x.ndim:
            raise KernelError(f"axis {axis} is out of range for rank {x.ndim}")
        axis = axis + x.ndim if axis < 0 else axis
        lead = int(np.prod(x.shape[:axis], dtype=np.int64))
        return x.reshape(lead, int(np.prod(x.shape[axis:], dtype=np.int64)))
    if op == "Transpose":
        perm = a.get("perm")
        return np.transpose(x, None if perm is None else list(perm)).copy()
    if op in ("Squeeze", "Unsqueeze"):
        axes = rest[0] if rest[0] is not None else a.get("axes")
        if op == "Squeeze":
            if axes is None:
                return x.reshape([d for d in x.shape if d != 1])
            ax = sorted({_axis(i, x.ndim) for i in _ints(axes, "axes")})
            for i in ax:
                if x.shape[i] != 1:
                    raise KernelError(f"axis {i} has size {x.shape[i]}, not 1")
            return x.reshape([d for i, d in enumerate(x.shape) if i not in ax])
        if axes is None:
            raise KernelError("axes are missing")
        ax_list = _ints(axes, "axes")
        rank = x.ndim + len(ax_list)
        ax = {_axis(i, rank) for i in ax_list}
        if len(ax) != len(ax_list):
            raise KernelError(f"axes {ax_list} repeat an axis")
        shape, it = [], iter(x.shape)
        for i in range(rank):
            shape.append(1 if i in ax else next(it))
        return x.reshape(shape)
    if op == "Gather":
        idx = np.asarray(rest[0])
        if idx.dtype.kind not in "iu":
            raise KernelError(f"the indices must be integers, not {idx.dtype}")
        axis = _axis(a.get("axis", 0), x.ndim)
        dim = x.shape[axis]
        if idx.size and (idx.min() < -dim or idx.max() >= dim):
            raise KernelError(f"an index is out of range for axis {axis} of size {dim}")
        return np.take(x, np.where(idx < 0, idx + dim, idx), axis=axis)
    if op == "Concat":
        parts = [x] + [np.asarray(r) for r in rest if r is not None]
        parts = [as_strings(p) if p.dtype.kind in "US" else p for p in parts]
        axis = _axis(a.get("axis", 0), x.ndim)
        return np.concatenate(parts, axis=axis)
    if op == "Slice":
        if rest[0] is None and "starts" in a:  # Slice-1: attributes
            return _slice(x, a["starts"], a["ends"], a.get("axes"), None).copy()
        return _slice(x, rest[0], rest[1], rest[2], rest[3]).copy()
    if op == "Expand":
        shape = _ints(rest[0], "the shape")
        try:
            full = np.broadcast_shapes(x.shape, tuple(shape))
        except ValueError:
            raise KernelError(
                f"an input of shape {list(x.shape)} does not expand to {shape}"
            ) from None
        return np.broadcast_to(x, full).copy()
    if op == "Where":  # x is the condition here
        cond = x.astype(bool)
        p, q = rest[0], rest[1]
        p = as_strings(p, "input X") if np.asarray(p).dtype.kind in "OUS" else np.asarray(p)
        q = as_strings(q, "input Y") if np.asarray(q).dtype.kind in "OUS" else np.asarray(q)
        return np.where(cond, p, q)
    raise KernelError(f"{op} has no kernel here")
