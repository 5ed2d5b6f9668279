"""The CuPy the stand-ins pretend to be is CuPy: the names and signatures of
``tfrt.kernels.cupy_names`` against CuPy itself and against both stand-ins.

* Everywhere: each stand-in (tests/compiler/cupy_standin.py for the kernels'
  names, ``K``; tests/devices/fake_cupy.py for the device's, ``D``) has every
  listed name its code paths use, with the listed signature, and nothing
  CuPy-looking beyond the list, so it cannot offer what CuPy lacks.
* Where CuPy is installed (it imports without a GPU): each listed name exists
  in CuPy with the listed signature.  What is compared: the parameter names,
  kinds (positional-only, keyword-only, ``*args``/``**kwargs``) and defaults,
  as ``inspect.signature`` gives them for Python functions, or as the
  signature line CuPy's Cython embeds in a docstring gives them (C types
  dropped) where ``inspect`` cannot see one; for a property, constant or
  operator, that it exists.  The behaviour behind a signature is not
  compared, except the refusals that need no GPU (``ufunc.reduce`` beyond
  add and multiply, ``writeable=`` on ``as_strided``, an invalid kernel name).
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

import cupy_standin
from tfrt.kernels import cupy_names
from tfrt.kernels.cupy_names import ATTRIBUTE, FLAGS, NAMES, UFUNCS, signature

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from devices import fake_cupy  # noqa: E402 - tests/devices is a package under tests/

_DOC_SIGNATURE = re.compile(r"^[\w.]+\((.*)\)(\s*->.*)?$")


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, "", ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def _from_doc(obj) -> str | None:
    """The signature line Cython embeds at the top of a docstring, C types
    dropped (``swapaxes(self, Py_ssize_t axis1, ...)`` -> ``(self, axis1, ...)``)."""
    lines = [line.strip() for line in (getattr(obj, "__doc__", None) or "").splitlines() if line.strip()]
    if not lines:
        return None
    m = _DOC_SIGNATURE.match(lines[0].replace("\\*", "*"))
    if m is None:
        return None
    params = []
    for part in _split_top(m.group(1)):
        lhs, eq, default = part.partition("=")
        name = lhs.split()[-1]
        params.append(f"{name}={default.strip()}" if eq else name)
    return f"({', '.join(params)})"


def _canonical(sig: inspect.Signature) -> str:
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def _listed(name: str) -> str:
    return _canonical(signature(NAMES[name][0]))


def _resolve(root, name: str):
    obj = root
    for part in name.split("."):
        if not hasattr(obj, part) and isinstance(obj, type) and hasattr(obj, "null"):
            obj = obj.null  # an instance attribute (Stream.ptr): on CuPy's null stream, made without a GPU
        obj = getattr(obj, part)
    return obj


# -- the stand-ins against the list ----------------------------------------

STANDIN = cupy_standin.make_module()
FAKE = fake_cupy.make_module()
_BOOKKEEPING = {"launches", "transfers", "synchronized", "graphs", "IS_STANDIN"}  # the stand-ins' own


def _check_standin(root, name: str, ufunc_type) -> None:
    obj = _resolve(root, name)
    text, _ = NAMES[name]
    if name in UFUNCS:
        assert isinstance(obj, ufunc_type), f"{name}: not a ufunc"
        return
    if text == ATTRIBUTE:
        return
    assert _canonical(inspect.signature(obj)) == _listed(name), name


@pytest.mark.parametrize("name", cupy_names.used_by("KG"))
def test_the_kernels_stand_in_has_each_name_they_use_with_cupys_signature(name):
    _check_standin(STANDIN, name, cupy_standin.ufunc)


@pytest.mark.parametrize("name", [n for n in cupy_names.used_by("D") if not n.startswith(("ndarray.", "ufunc"))])
def test_the_device_fake_has_each_name_the_device_uses_with_cupys_signature(name):
    # The device's arrays are numpy arrays (FakeArray): their methods are numpy's.
    _check_standin(FAKE, name, object)


def _public(obj) -> set[str]:
    return {n for n in vars(obj) if not n.startswith("_")} if not isinstance(obj, type) else {
        n for klass in obj.__mro__[:-1] for n in vars(klass) if not n.startswith("_")}  # fmt: skip


def test_the_stand_ins_offer_nothing_beyond_the_list():
    """A name a stand-in has but the list lacks would let code pass there
    that CuPy may refuse."""
    listed = set(NAMES)
    offered = {n for n in _public(STANDIN) if n not in _BOOKKEEPING}
    offered |= {f"lib.stride_tricks.{n}" for n in _public(STANDIN.lib.stride_tricks)}
    offered.discard("lib")
    offered |= {f"cuda.{n}" for n in _public(STANDIN.cuda)}
    offered |= {f"cuda.runtime.{n}" for n in _public(STANDIN.cuda.runtime)}
    offered -= {"cuda", "cuda.runtime"}
    offered |= {f"ndarray.{n}" for n in _public(cupy_standin.ndarray)}
    offered |= {f"ufunc.{n}" for n in _public(cupy_standin.ufunc)}
    assert offered <= listed, sorted(offered - listed)
    dunders = {n for n in vars(cupy_standin.ndarray) if n.startswith("__") and n.endswith("__")}
    protocol = {"__init__", "__module__", "__doc__", "__slots__", "__weakref__", "__repr__", "__hash__",
                "__array__", "__array_ufunc__", "__array_function__"}  # fmt: skip
    assert {f"ndarray.{n}" for n in dunders - protocol} <= listed, sorted(
        f"ndarray.{n}" for n in dunders - protocol if f"ndarray.{n}" not in listed)

    fake = {n for n in _public(FAKE) if n not in _BOOKKEEPING} - {"cuda"}
    fake |= {f"cuda.{n}" for n in _public(FAKE.cuda)} - {"cuda.runtime", "cuda.memory"}
    fake |= {f"cuda.runtime.{n}" for n in _public(FAKE.cuda.runtime)}
    fake |= {f"cuda.memory.{n}" for n in _public(FAKE.cuda.memory)}
    fake |= {f"lib.stride_tricks.{n}" for n in _public(FAKE.lib.stride_tricks)}
    fake.discard("lib")
    assert fake <= listed, sorted(fake - listed)


def test_the_stand_ins_refuse_names_cupy_lacks():
    with pytest.raises(AttributeError):
        STANDIN.fmax  # noqa: B018 - cupy has fmax, but the kernels do not use it: not stood in
    with pytest.raises(AttributeError):
        FAKE.bitwise_and  # noqa: B018
    with pytest.raises(TypeError, match="writeable"):
        STANDIN.lib.stride_tricks.as_strided(STANDIN.empty(4), shape=(2,), strides=(4,), writeable=False)


def test_the_stand_ins_flags_are_cupys():
    flags = STANDIN.empty((2, 3)).flags
    assert {n for n in dir(flags) if not n.startswith("_")} == set(FLAGS)
    assert not hasattr(flags, "writeable")


# -- the list against CuPy -----------------------------------------------------


@pytest.fixture(scope="module")
def cupy():
    return pytest.importorskip("cupy", reason="the gpu extra (cupy) is not installed")


def _real_signature(obj) -> str:
    """``inspect``'s signature, or the signature line at the top of the
    docstring for a class (its constructor's: ``inspect`` gives ``ndarray``
    ``(*args, _obj=None, ...)``) and where ``inspect`` finds none (Cython)."""
    text = _from_doc(obj) if isinstance(obj, type) else None
    if text is None:
        try:
            return _canonical(inspect.signature(obj))
        except (TypeError, ValueError):
            text = _from_doc(obj)
    assert text is not None, f"no signature for {obj!r}"
    return _canonical(signature(text))


@pytest.mark.parametrize("name", list(NAMES))
def test_each_listed_name_is_cupys(cupy, name):
    obj = _resolve(cupy, name)
    text, _ = NAMES[name]
    if name in UFUNCS:
        assert isinstance(obj, cupy.ufunc), f"cupy.{name} is not a ufunc"
        nin = 1 if text.startswith("(x,") else 2
        assert obj.nin == nin
    if text == ATTRIBUTE:
        return
    assert _real_signature(obj) == _listed(name), f"cupy.{name}"


@pytest.mark.parametrize("name", list(cupy_names.CUPYX_NAMES))
def test_each_listed_cupyx_name_is_cupys(cupy, name):
    import cupyx

    _resolve(cupyx, name)


def test_cupys_flags_have_no_writeable(cupy):
    from cupy._core.flags import Flags

    flags = Flags(True, False, True)
    assert set(FLAGS) <= {n for n in dir(flags) if not n.startswith("_")}
    assert not hasattr(flags, "writeable")


def test_cupy_refuses_what_the_stand_in_refuses(cupy):
    """The refusals that need no GPU: each is raised before an array is touched."""
    with pytest.raises(NotImplementedError):
        cupy.maximum.reduce(object())
    with pytest.raises(NotImplementedError):
        STANDIN.maximum.reduce(STANDIN.empty(3, "float32"))
    with pytest.raises(TypeError):
        cupy.lib.stride_tricks.as_strided(object(), shape=(2,), strides=(4,), writeable=False)
    for module in (cupy, STANDIN):
        with pytest.raises(ValueError, match="Invalid kernel name"):
            module.ElementwiseKernel("float32 a", "float32 out", "out = a", "not a name")
        with pytest.raises(ValueError, match="Invalid kernel name"):
            module.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "not a name")
