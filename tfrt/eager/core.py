"""Eager tensors and op dispatch: one op per call, the shared kernels, no compiler.

A :class:`Tensor` is a handle returned at once by every op.  Its dtype and
shape are always known (they come from the op's metadata function in
``tfrt.devices.ops``); its value is one of

* a numpy array (``_v``): computed on the host, available now;
* a ``DeviceTensor`` of a non-host device (``_x.dt``), valid once the device
  has run the work that produces it (its ``ready`` event);
* an ``AsyncValue`` (``_x.av``) of either, while an input is still pending;
* a symbol of a function being traced (``_x.sym``, see ``tfrt.eager.function``).

Dispatching an op (:meth:`OpDef.call`) converts the inputs, picks the device
(the innermost ``tfrt.device`` scope, else the inputs' device), looks up the
result metadata in a cache keyed by (input metadata, attributes) -- on a miss
it runs the op's metadata function, which rejects bad shapes and dtypes --
and then:

* host inputs available: the op's kernel (``tfrt.devices.array_ops``) runs
  inline and the result is available at once, TFRT's "inline" kernels;
* a device: the op is launched on the device's stream and returns at once;
* an input pending: the op is queued behind it (``run_when_ready``, then the
  eager host's work queue) and returns a pending handle.

The binary and unary ops without attributes have a shorter path still
(:func:`_binary_fast`): two host tensors whose metadata was seen before cost
one dict lookup and the numpy call.

Errors: a rejected op raises :class:`OpError` at the call, naming the op and
the user's file and line (the first frame outside this package, found only
when an error is raised).  An op that fails inside asynchronous work makes
its results, and everything computed from them, hold the error; ``numpy()``
raises it with the op and the line that dispatched it.  An error that nobody
reads is reported as a ``RuntimeWarning`` when its last tensor dies.

Layer 0 of ``tfrt.eager`` (``core < methods < variables < tape < tracing <
__init__``): imports no other eager module.  The layers above plug into
dispatch through state kept here, never through imports back up:

* ``_TAPES``: the recording ``GradientTape`` objects of every thread
  (``tfrt.eager.tape`` adds and removes them).  :func:`_record` hands each op
  to the tapes of the calling thread (``tape._record(name, ins, outs,
  attrs)``), :func:`_read_variable` each variable read
  (``tape._read_variable(var, value)``).
* the thread's stack of functions being traced (``tfrt.eager.tracing``
  pushes and pops its ``Trace`` objects with :func:`_push_trace` and
  :func:`_pop_trace`; ``_TRACING`` counts them over all threads).
  :func:`current_trace` is the innermost; an op with a traced input goes to
  its ``add_op``, and variables use its ``read_variable``, ``alias`` and
  ``assign_variable``.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfrt.async_value import CONCRETE, ERROR, AsyncValue, ErrorInfo, run_when_ready
from tfrt.devices import ops as _ops
from tfrt.devices.array_ops import FLOAT_UFUNCS, IMPLS, UFUNCS, VIEWS
from tfrt.devices.base import DeviceError
from tfrt.tensor.dtype import dtype_from_numpy
from tfrt.tensor.host_tensor import TensorMetadata
from tfrt.tensor.shape import TensorShape

_TFRT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_new = object.__new__

# --------------------------------------------------------------------------
# errors


def user_site(depth: int = 1) -> tuple[str, int] | None:
    """(file, line) of the innermost frame outside the tfrt package."""
    try:
        f = sys._getframe(depth + 1)
    except ValueError:
        return None
    while f is not None and f.f_code.co_filename.startswith(_TFRT_DIR):
        f = f.f_back
    if f is None:
        return None
    return f.f_code.co_filename, f.f_lineno


def _site_text(site: tuple[str, int] | None) -> str:
    if site is None:
        return ""
    path, line = site
    try:
        rel = os.path.relpath(path)
        if not rel.startswith(".."):
            path = rel
    except ValueError:  # another drive
        pass
    return f" (at {path}:{line})"


class OpError(_ops.OpError):
    """An eager op failed: ``op``, ``message`` and the user's ``site`` (file, line).

    ``str(e)`` reads ``matmul: contraction dimensions differ ... (at train.py:12)``.
    """

    def __init__(self, op: str, message: str, site: tuple[str, int] | None = None):
        self.op = op
        self.message = message
        self.site = site
        head = message if message.startswith(f"{op}:") else f"{op}: {message}"
        super().__init__(head + _site_text(site))

    @property
    def filename(self) -> str | None:
        return self.site[0] if self.site else None

    @property
    def lineno(self) -> int | None:
        return self.site[1] if self.site else None


class ErrorRecord:
    """The origin of an error produced inside asynchronous work.

    Every tensor that holds the error keeps its record alive; when the last
    one dies and nobody read the error (``numpy()`` and friends), the error
    is reported as a RuntimeWarning rather than lost.
    """

    __slots__ = ("__weakref__", "message", "observed", "op", "site")

    def __init__(self, op: str, message: str, site):
        self.op = op
        self.message = message
        self.site = site
        self.observed = False
        _BY_MESSAGE[message] = self

    def exception(self) -> OpError:
        self.observed = True
        return OpError(self.op, self.message, self.site)

    def __del__(self):
        if not self.observed:
            try:
                warnings.warn(
                    f"an error in asynchronous work was never read: "
                    f"{OpError(self.op, self.message, self.site)}",
                    RuntimeWarning,
                    stacklevel=1,
                )
            except Exception:  # interpreter shutdown
                pass


# Device streams propagate an error by its message; the first op to produce
# a message is its origin.
_BY_MESSAGE: weakref.WeakValueDictionary[str, ErrorRecord] = weakref.WeakValueDictionary()


class _EagerError(ErrorInfo):
    """An ErrorInfo that carries its ErrorRecord through AsyncValues."""

    def __init__(self, record: ErrorRecord):
        super().__init__(OpError(record.op, record.message, record.site).args[0])
        self.record = record


def _record_of(info: ErrorInfo, op: str, site) -> ErrorRecord:
    rec = getattr(info, "record", None)
    if rec is None:
        rec = _BY_MESSAGE.get(info.message)
    if rec is None:
        rec = ErrorRecord(op, info.message, site)
    return rec


# --------------------------------------------------------------------------
# metadata, interned so that caches can key on identity


class Meta:
    """A tensor's dtype (numpy) and shape (tuple), interned: equal metadata is
    the same object, so caches hash it by identity."""

    __slots__ = ("dtype", "md", "ndim", "shape", "size")

    def __init__(self, md: TensorMetadata):
        self.md = md
        self.dtype = md.dtype.np_dtype
        self.shape = md.shape.dims
        self.ndim = len(self.shape)
        self.size = md.shape.num_elements()

    def __repr__(self) -> str:
        return f"Meta({self.md})"


_METAS: dict[tuple, Meta] = {}
_NP_METAS: dict[tuple, Meta] = {}
_meta_lock = threading.Lock()


def meta_of_md(md: TensorMetadata) -> Meta:
    key = (md.dtype, md.shape.dims)
    m = _METAS.get(key)
    if m is None:
        with _meta_lock:
            m = _METAS.setdefault(key, Meta(md))
    return m


def meta_of(dtype, shape) -> Meta:
    """The interned metadata of numpy ``dtype`` and ``shape``."""
    key = (dtype, shape)
    m = _NP_METAS.get(key)
    if m is None:
        try:
            dt = dtype_from_numpy(np.dtype(dtype))
        except (ValueError, TypeError, KeyError) as exc:
            raise TypeError(f"tfrt tensors cannot hold dtype {np.dtype(dtype)}: {exc}") from None
        m = meta_of_md(TensorMetadata(dt, TensorShape(shape)))
        _NP_METAS[key] = m
    return m


# --------------------------------------------------------------------------
# tensors


class _Ext:
    """What a tensor that is not simply a host array carries."""

    __slots__ = ("av", "dev", "dt", "err", "mirror", "op", "site", "sym")

    def __init__(self, dev=None, dt=None, av=None, sym=None, site=None, op=None):
        self.dev = dev  # the device (None: the host)
        self.dt = dt  # DeviceTensor, once launched
        self.av = av  # AsyncValue of an ndarray (host) or DeviceTensor (device)
        self.sym = sym  # symbol in a function being traced
        self.site = site
        self.op = op
        self.err: ErrorRecord | None = None
        # (device, DeviceTensor): a host tensor's copy on a device;
        # (None, ndarray): a device tensor's host copy, once read
        self.mirror = None


def _host_tensor(v, m: Meta) -> Tensor:
    t = _new(Tensor)
    t._v = v
    t._m = m
    t._x = None
    return t


def _ext_tensor(m: Meta, x: _Ext) -> Tensor:
    t = _new(Tensor)
    t._v = None
    t._m = m
    t._x = x
    return t


class Tensor:
    """An eager tensor: returned at once by every op; ``shape`` and ``dtype``
    never wait, ``numpy()`` waits for the value (and raises its error).

        >>> x = tfrt.constant(np.ones((2, 3), np.float32))
        >>> y = (x @ x.T + 1.0).numpy()
    """

    # _v: the host array (None until available on the host); _m: the Meta;
    # _x: None for a plain host tensor, else an _Ext.
    __slots__ = ("__weakref__", "_m", "_v", "_x")
    # numpy defers to these operators (ndarray + Tensor -> Tensor.__radd__).
    __array_priority__ = 1000

    def __init__(self, value, dtype=None):
        src = constant(value, dtype)
        self._v, self._m, self._x = src._v, src._m, src._x

    # -- metadata (never waits) -----------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._m.shape

    @property
    def dtype(self) -> np.dtype:
        return self._m.dtype

    @property
    def ndim(self) -> int:
        return self._m.ndim

    @property
    def size(self) -> int:
        return self._m.size

    @property
    def device(self) -> str:
        x = self._x
        return x.dev.name if x is not None and x.dev is not None else "cpu:0"

    def __len__(self) -> int:
        if not self._m.shape:
            raise TypeError("len() of a 0-d tensor")
        return self._m.shape[0]

    # -- values (wait) ---------------------------------------------------
    def numpy(self) -> np.ndarray:
        """The value as a read-only numpy array; waits for it and raises its error."""
        v = self._v
        if v is None:
            v = _fetch(self)
        out = v.view() if type(v) is np.ndarray else np.asarray(v)
        out.flags.writeable = False
        return out

    def __array__(self, dtype=None, copy=None):
        v = self.numpy()
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        if copy:
            return v.copy()
        return v

    def item(self):
        return self.numpy().item()

    def tolist(self):
        return self.numpy().tolist()

    def __bool__(self) -> bool:
        if self._m.size != 1:
            raise ValueError(
                f"the truth value of a tensor with {self._m.size} elements is ambiguous"
            )
        return bool(self.numpy().reshape(()))

    def __float__(self) -> float:
        return float(self.numpy())

    def __int__(self) -> int:
        return int(self.numpy())

    def __index__(self) -> int:
        if self._m.dtype.kind not in "iub":
            raise TypeError("only integer tensors can be used as an index")
        return int(self.numpy())

    def __repr__(self) -> str:
        x = self._x
        if x is not None and x.sym is not None:
            return f"tfrt.Tensor(<traced {x.sym}>, shape={self.shape}, dtype={self.dtype})"
        try:
            text = np.array2string(self.numpy(), separator=", ")
        except OpError as exc:
            text = f"<error: {exc}>"
        dev = "" if self.device == "cpu:0" else f", device={self.device!r}"
        return f"tfrt.Tensor({text}, shape={self.shape}, dtype={self.dtype}{dev})"

    def __str__(self) -> str:
        try:
            return str(self.numpy())
        except OpError as exc:
            return f"<error: {exc}>"

    __hash__ = object.__hash__

    def __setitem__(self, key, value):
        raise TypeError("tfrt tensors are immutable (build a new one, or use a tfrt.Variable)")

    def __iter__(self):
        if not self._m.shape:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._m.shape[0]):
            yield self[i]

    # -- placement ---------------------------------------------------------
    def to(self, device) -> Tensor:
        """This tensor on ``device`` (``"cpu"``, ``"gpu"``, a Device); the copy is queued."""
        if isinstance(device, str):
            from tfrt.devices import get_device

            device = get_device(device)
        return transfer(self, None if _is_host(device) else device)

    def cpu(self) -> Tensor:
        return self.to("cpu")

    def _read(self) -> Tensor:
        return self

    # Operators and numpy-style methods are attached by tfrt.eager.methods.


def _fetch(t: Tensor):
    """The host value of a tensor that is not a plain host array (waits)."""
    x = t._x
    if x.sym is not None:
        raise OpError(
            "@tfrt.function",
            "cannot read the value of a traced tensor (Python control flow cannot depend "
            "on it; return it from the function instead)",
            user_site(),
        )
    if x.err is not None:
        raise x.err.exception()
    if x.dev is not None and x.mirror is not None and x.mirror[0] is None:
        return x.mirror[1]  # fetched before
    av = _as_host_value(t)
    if type(av) is np.ndarray:
        return av
    host = eager_host()
    host.await_values([av])
    if av.state == ERROR:
        info = av.value
        rec = _record_of(info, x.op or "numpy", x.site)
        x.err = rec
        raise rec.exception()
    v = av.value
    if x.dev is None:
        t._v = v  # the value is final
    else:
        x.mirror = (None, v)  # the host copy, for later reads
    return v


# --------------------------------------------------------------------------
# the eager host (work queue for pending inputs) and device scopes

_host = None
_host_lock = threading.Lock()


def eager_host():
    """The HostContext whose work queue runs ops queued behind pending inputs."""
    global _host
    if _host is None:
        with _host_lock:
            if _host is None:
                from tfrt.host_context import HostContext

                # Errors reach the user through the tensors that hold them
                # (numpy() raises, an unread one warns), not as printed diagnostics.
                _host = HostContext(work_queue="s", diag_handler=_ignore)
    return _host


def _ignore(diagnostic) -> None:
    return None


# Per thread: ``devices``, the stack of device scopes; ``traces``, the stack
# of functions being traced.
_local = threading.local()
# Number of non-host device scopes active in any thread; while it is zero the
# fast paths need not look at the thread's scope stack.
_SCOPED = 0
# Number of device scopes of any kind active in any thread.
_SCOPES = 0
_scope_lock = threading.Lock()


def current_device():
    """The device of the innermost ``tfrt.device`` scope of this thread, or None."""
    stack = getattr(_local, "devices", None)
    return stack[-1] if stack else None


class device_scope:
    """``with tfrt.device("gpu"):`` -- ops in the block run on that device;
    tensors they use that live elsewhere are copied there (queued)."""

    def __init__(self, device):
        if isinstance(device, str):
            from tfrt.devices import get_device

            device = get_device(device)
        self.device = device

    def __enter__(self):
        global _SCOPED, _SCOPES
        stack = getattr(_local, "devices", None)
        if stack is None:
            stack = _local.devices = []
        stack.append(self.device)
        with _scope_lock:
            _SCOPES += 1
            if not _is_host(self.device):
                _SCOPED += 1
        return self.device

    def __exit__(self, *exc):
        global _SCOPED, _SCOPES
        _local.devices.pop()
        with _scope_lock:
            _SCOPES -= 1
            if not _is_host(self.device):
                _SCOPED -= 1
        return False


def _is_host(dev) -> bool:
    return dev is None or dev.kind == "cpu"


# --------------------------------------------------------------------------
# converting arguments


def _is_symbolic(t: Tensor) -> bool:
    x = t._x
    return x is not None and x.sym is not None


def _scalar_dtype(value, like: Meta | None):
    """The dtype a Python scalar takes next to a tensor of ``like`` (numpy's weak scalars)."""
    if like is not None:
        kind = like.dtype.kind
        if isinstance(value, bool):
            return like.dtype
        if isinstance(value, int) and kind in "iufcV":
            return like.dtype
        if isinstance(value, float) and kind in "fcV":
            return like.dtype
        if isinstance(value, complex) and kind == "c":
            return like.dtype
    return None


_SCALARS: dict = {}


def to_tensor(value, like: Meta | None = None, dtype=None) -> Tensor:
    """``value`` as a Tensor (tensors pass through; arrays and scalars become constants)."""
    if isinstance(value, Tensor):
        return value._read() if type(value) is not Tensor else value
    if dtype is None and type(value) in (bool, int, float, complex):
        # -0.0 == 0.0 (and hashes alike): the key keeps the sign apart.
        key = (type(value), value, like) if type(value) in (bool, int) else (type(value), repr(value), like)
        t = _SCALARS.get(key)
        if t is not None:
            return t
        arr = np.array(value, dtype=_scalar_dtype(value, like))
        t = _host_tensor(arr, meta_of(arr.dtype, ()))
        if len(_SCALARS) > 1024:
            _SCALARS.clear()
        _SCALARS[key] = t
        return t
    arr = np.array(value, dtype=dtype, copy=True)
    if arr.dtype == object or arr.dtype.kind in "SUO":
        raise TypeError(f"cannot make a tfrt tensor of {type(value).__name__} ({arr.dtype})")
    return _host_tensor(arr, meta_of(arr.dtype, arr.shape))


def constant(value, dtype=None) -> Tensor:
    """A tensor holding a copy of ``value`` (an array, nested lists, a scalar).

    dtypes follow numpy (``[1.0, 2.0]`` is float64); inside a ``tfrt.device``
    scope the tensor is copied to that device.
    """
    if isinstance(value, Tensor):
        t = value if dtype is None or np.dtype(dtype) == value.dtype else value.astype(dtype)
    else:
        t = to_tensor(value, None, dtype)
    dev = current_device()
    if not _is_host(dev):
        return transfer(t, dev)
    return t


def transfer(t: Tensor, dev) -> Tensor:
    """``t`` on device ``dev`` (None: the host); queued, recorded on tapes as a copy."""
    x = t._x
    here = None if x is None else x.dev
    if here is dev:
        return t
    if x is not None and x.sym is not None:
        return t  # a traced function runs on one device
    if dev is None:
        v = _as_host_value(t)
        out = (
            _host_tensor(v, t._m)
            if type(v) is np.ndarray
            else _ext_tensor(t._m, _Ext(None, None, v, None, x.site, "copy"))
        )
    else:
        v = _device_value_or_av(t, dev)
        site = x.site if x is not None else None
        if type(v) is AsyncValue:
            out = _ext_tensor(t._m, _Ext(dev, None, v, None, site, "copy"))
        else:
            out = _ext_tensor(t._m, _Ext(dev, v, None, None, site, "copy"))
    if _TAPES:
        _record("copy", (t,), (out,), {})
    return out


# --------------------------------------------------------------------------
# kernels


def _freeze(value):
    if type(value) in (list, tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    return value


def _attrs_key(attrs: dict):
    """A hashable key of an attribute dict (None when a value is not hashable)."""
    items = []
    for k, v in attrs.items():
        tv = type(v)
        if tv is list or tv is tuple:
            v = tuple(v)
        elif tv is np.ndarray:
            v = tuple(v.tolist())
        items.append((k, v))
    key = tuple(items)
    try:
        hash(key)
    except TypeError:
        return None
    return key


# Ops that only move or select data: no floating-point exceptions to silence.
_QUIET = frozenset({
    "matmul", "bias_add", "conv2d", "reduce_sum", "reshape", "transpose", "broadcast_to", "concat", "slice", "strided_slice", "pad", "copy",
    "where", "argmax", "reduce_max", "reduce_min", "max_pool", "relu", "neg", "abs",
})  # fmt: skip


def _host_kernel(name: str, ins: Sequence[Meta], outs: Sequence[Meta], attrs: dict) -> Callable:
    """The host kernel of op ``name`` for these metadata: ``kernel(*arrays) ->
    array`` (one result) or list (several)."""
    single = len(outs) == 1
    uf = UFUNCS.get(name)
    if uf is None and all(m.dtype.char in "fd" for m in ins):
        uf = FLOAT_UFUNCS.get(name)
    if uf is not None and single:
        fn = getattr(np, uf)
        if outs[0].ndim:
            return fn
        return lambda *arrays: np.asarray(fn(*arrays))
    impl = IMPLS[name]
    view = VIEWS.get(name)
    specs = [(m.shape, m.dtype) for m in outs]
    empty = np.empty
    # IEEE results (inf, nan) of float ops are the ops' semantics, not warnings
    # (as on every device); ops that only move data need no errstate.
    quiet = name in _QUIET or all(m.dtype.kind in "iub" for m in ins)

    if view is not None:

        def kernel(x):
            if x.flags.c_contiguous:
                return view(np, x, attrs)
            out = empty(specs[0][0], specs[0][1])
            impl(np, [x], [out], attrs)
            return out

    elif single and quiet:
        shape, dtype = specs[0]

        def kernel(*arrays):
            out = empty(shape, dtype)
            impl(np, arrays, (out,), attrs)
            return out

    else:
        errstate = np.errstate

        def kernel(*arrays):
            results = [empty(s, d) for s, d in specs]
            with errstate(all="ignore"):
                impl(np, arrays, results, attrs)
            return results[0] if single else results

    return kernel


# --------------------------------------------------------------------------
# tapes and traces: the layers above plug in here (see the module docstring)

# The GradientTapes recording in any thread (tfrt.eager.tape adds and removes them).
_TAPES: list = []
# Number of functions being traced in any thread (_push_trace, _pop_trace):
# while it is zero dispatch need not look at the thread's trace stack.
_TRACING = 0


def _record(name: str, ins, outs, attrs) -> None:
    """Hand an op that ran to the tapes recording in this thread."""
    me = threading.get_ident()
    for tape in _TAPES:
        if tape._thread == me:
            tape._record(name, ins, outs, attrs)


def _read_variable(var, value) -> None:
    """Variable ``var`` was read as ``value``: tell the tapes recording in this thread."""
    me = threading.get_ident()
    for tape in _TAPES:
        if tape._thread == me:
            tape._read_variable(var, value)


def current_trace():
    """The innermost function being traced in this thread (a ``tracing.Trace``), or None."""
    stack = getattr(_local, "traces", None)
    return stack[-1] if stack else None


def _push_trace(trace) -> None:
    """Ops with traced inputs go to ``trace`` until the matching :func:`_pop_trace`."""
    global _TRACING
    stack = getattr(_local, "traces", None)
    if stack is None:
        stack = _local.traces = []
    stack.append(trace)
    _TRACING += 1


def _pop_trace() -> None:
    global _TRACING
    _TRACING -= 1
    _local.traces.pop()


# --------------------------------------------------------------------------
# dispatch


class OpDef:
    """One op of ``tfrt.devices.ops`` as eager code calls it."""

    __slots__ = ("cache", "fast", "name", "spec")

    def __init__(self, name: str):
        self.name = name
        self.spec = _ops.OPS[name]
        # (input metas, frozen attrs) -> (out metas, normalized attrs, host kernel)
        self.cache: dict = {}
        # binary/unary ops without attributes: input metas -> (out meta, kernel)
        self.fast: dict = {}

    def prepare(self, metas: tuple, attrs: dict):
        """(out metas, normalized attrs, host kernel), cached; raises OpError."""
        if attrs:
            akey = _attrs_key(attrs)
            key = None if akey is None else (metas, akey)
        else:
            key = metas
        if key is not None:
            e = self.cache.get(key)
            if e is not None:
                return e
        spec = self.spec
        try:
            norm = _ops.normalize_attrs(spec, attrs)
            mds = spec.infer([m.md for m in metas], norm)
        except DeviceError as exc:
            raise OpError(self.name, str(exc), user_site()) from None
        outs = tuple(meta_of_md(md) for md in mds)
        e = (outs, norm, _host_kernel(self.name, metas, outs, norm))
        if key is not None:
            if len(self.cache) > 4096:
                self.cache.clear()
                self.fast.clear()
            self.cache[key] = e
            if not attrs and len(outs) == 1 and len(metas) <= 2:
                self.fast[metas if len(metas) == 2 else metas[0]] = (outs[0], e[2])
        return e

    def call(self, inputs: Sequence[Any], attrs: dict):
        """Run the op on ``inputs``; one Tensor or a tuple of Tensors."""
        name = self.name
        spec = self.spec
        if spec.num_inputs is not None and len(inputs) != spec.num_inputs:
            raise OpError(name, f"expects {spec.num_inputs} inputs, got {len(inputs)}", user_site())
        ins = inputs
        for a in inputs:
            if type(a) is not Tensor:
                ins = _convert_inputs(name, inputs)
                break
        if _TRACING:
            trace = current_trace()
            if trace is not None and any(_is_symbolic(t) for t in ins):
                return trace.add_op(self, ins, attrs)
        outs, norm, kernel = self.prepare(tuple([t._m for t in ins]), attrs)
        if not _SCOPES:
            vals = []
            for t in ins:
                v = t._v
                if v is None:
                    break
                vals.append(v)
            else:
                # Every input is a host array: run the kernel inline.
                try:
                    res = kernel(*vals)
                except DeviceError as exc:
                    raise OpError(name, str(exc), user_site()) from None
                except (ValueError, TypeError, ArithmeticError, MemoryError, IndexError) as exc:
                    raise OpError(name, f"{type(exc).__name__}: {exc}", user_site()) from exc
                if len(outs) == 1:
                    result = _new(Tensor)
                    result._v = res
                    result._m = outs[0]
                    result._x = None
                    if _TAPES:
                        _record(name, ins, (result,), norm)
                    return result
                results = tuple(_host_tensor(r, m) for r, m in zip(res, outs))
                if _TAPES:
                    _record(name, ins, results, norm)
                return results
        dev = _placement(name, ins)
        if dev is None:
            for t in ins:
                if t._v is None:
                    results = _dispatch_pending(self, ins, outs, norm, kernel, user_site())
                    break
            else:
                results = _run_inline(name, kernel, ins, outs)
        else:
            results = _dispatch_device(self, ins, outs, norm, dev, user_site())
        if _TAPES:
            _record(name, ins, results, norm)
        return results[0] if len(results) == 1 else results


def _run_inline(name, kernel, ins, outs) -> tuple:
    try:
        res = kernel(*[t._v for t in ins])
    except DeviceError as exc:
        raise OpError(name, str(exc), user_site()) from None
    except (ValueError, TypeError, ArithmeticError, MemoryError, IndexError) as exc:
        raise OpError(name, f"{type(exc).__name__}: {exc}", user_site()) from exc
    if len(outs) == 1:
        return (_host_tensor(res, outs[0]),)
    return tuple(_host_tensor(r, m) for r, m in zip(res, outs))


def all_host(ins) -> bool:
    """Whether no input lives on a device (host tensors, pending or not)."""
    for t in ins:
        x = t._x
        if x is not None and x.dev is not None:
            return False
    return True


def _convert_inputs(name: str, inputs) -> list:
    # A scalar takes the dtype of a tensor beside it: the first non-bool one
    # (where(cond, x, 0.0) is x's dtype), or a bool one for a Python bool.
    numeric = boolean = None
    for a in inputs:
        if isinstance(a, Tensor):
            if a._m.dtype.kind == "b":
                boolean = boolean or a._m
            else:
                numeric = numeric or a._m
    try:
        return [
            a if type(a) is Tensor
            else to_tensor(a, (boolean or numeric) if isinstance(a, bool) else (numeric or boolean))
            for a in inputs
        ]  # fmt: skip
    except TypeError as exc:
        raise OpError(name, str(exc), user_site()) from None


def _placement(name: str, ins: Sequence[Tensor]):
    """The device an op runs on: the innermost scope's, else its inputs' (None: the host)."""
    if _SCOPES:
        scope = current_device()
        if scope is not None:
            return None if _is_host(scope) else scope
    dev = None
    for t in ins:
        x = t._x
        if x is not None and x.dev is not None and x.dev is not dev:
            if dev is not None:
                raise OpError(
                    name,
                    f"inputs live on {dev.name} and {x.dev.name}; "
                    "move one with .to(...) or use a tfrt.device scope",
                    user_site(),
                )
            dev = x.dev
    return dev


def _host_value_or_av(t: Tensor):
    """An ndarray (available) or an AsyncValue of one for tensor ``t`` on the host."""
    v = t._v
    if v is not None:
        return v
    return _as_host_value(t)


def _as_host_value(t: Tensor):
    x = t._x
    if x.sym is not None:
        raise OpError(
            x.op or "@tfrt.function",
            "a tensor traced by @tfrt.function is used outside the function's trace",
            user_site(),
        )
    if x.dev is None:
        av = x.av
        if av.state == CONCRETE:
            t._v = av.value
            return av.value
        return av
    dev = x.dev
    if x.dt is not None:
        return _map(dev.copy_to_host(x.dt), _array_of)
    return _chain(x.av, lambda dt: _map(dev.copy_to_host(dt), _array_of))


def _array_of(dht):
    return dht.array


def _device_value_or_av(t: Tensor, dev):
    """A DeviceTensor on ``dev`` (launched) or an AsyncValue of one."""
    x = t._x
    if t._v is not None:
        if x is not None and x.mirror is not None and x.mirror[0] is dev:
            return x.mirror[1]
        dt = dev.copy_to_device(t._v)
        if x is None:
            x = t._x = _Ext()
        x.mirror = (dev, dt)
        return dt
    if x.dev is dev:
        return x.dt if x.dt is not None else x.av
    if x.dev is None:
        return _map(x.av, dev.copy_to_device)
    host = _as_host_value(t)
    if type(host) is np.ndarray:
        return dev.copy_to_device(host)
    return _map(host, dev.copy_to_device)


def _map(av: AsyncValue, fn) -> AsyncValue:
    """An AsyncValue of ``fn(av's value)``; errors pass through."""
    if av.state == CONCRETE:
        try:
            return AsyncValue(CONCRETE, fn(av.value))
        except Exception as exc:
            return AsyncValue.make_error(f"{type(exc).__name__}: {exc}")
    out = AsyncValue()

    def done():
        if av.state == ERROR:
            out.set_error(av.value)
            return
        try:
            out.set_value(fn(av.value))
        except Exception as exc:
            out.set_error(f"{type(exc).__name__}: {exc}")

    av.and_then(done)
    return out


def _chain(av: AsyncValue, fn) -> AsyncValue:
    """An AsyncValue following ``fn(av's value)`` (which returns an AsyncValue)."""
    out = AsyncValue()

    def done():
        if av.state == ERROR:
            out.set_error(av.value)
            return
        inner = fn(av.value)
        inner.and_then(lambda: out.set_from(inner))

    av.and_then(done)
    return out


def _dispatch_pending(op: OpDef, ins, outs, norm, kernel, site) -> tuple:
    """Host op with an input not yet available: queue it behind its inputs."""
    name = op.name
    values = [_host_value_or_av(t) for t in ins]
    pending = [v for v in values if type(v) is AsyncValue]
    result_avs = [AsyncValue() for _ in outs]
    results = tuple(
        _ext_tensor(m, _Ext(None, None, av, None, site, name)) for m, av in zip(outs, result_avs)
    )
    exts = [r._x for r in results]

    def fail(info):
        rec = _record_of(info, name, site)
        err = info if getattr(info, "record", None) is rec else _EagerError(rec)
        for x in exts:
            x.err = rec
        for av in result_avs:
            av.set_error(err)

    def compute():
        args = []
        for v in values:
            if type(v) is AsyncValue:
                if v.state == ERROR:
                    fail(v.value)
                    return
                v = v.value
            args.append(v)
        try:
            res = kernel(*args)
        except Exception as exc:
            msg = str(exc) if isinstance(exc, DeviceError) else f"{type(exc).__name__}: {exc}"
            fail(_EagerError(ErrorRecord(name, msg, site)))
            return
        if len(result_avs) == 1:
            result_avs[0].set_value(res)
        else:
            for av, r in zip(result_avs, res):
                av.set_value(r)

    host = eager_host()
    run_when_ready(pending, lambda: host.enqueue_task(compute))
    return results


def _dispatch_device(op: OpDef, ins, outs, norm, dev, site) -> tuple:
    """Launch the op on ``dev`` (an asynchronous device or a plug-in)."""
    name = op.name
    values = [_device_value_or_av(t, dev) for t in ins]
    pending = [v for v in values if type(v) is AsyncValue]
    mds = [m.md for m in outs]
    if not pending:
        return _launch(op, dev, values, outs, mds, norm, site)
    result_avs = [AsyncValue() for _ in outs]
    results = tuple(
        _ext_tensor(m, _Ext(dev, None, av, None, site, name)) for m, av in zip(outs, result_avs)
    )
    exts = [r._x for r in results]

    def compute():
        args = []
        for v in values:
            if type(v) is AsyncValue:
                if v.state == ERROR:
                    rec = _record_of(v.value, name, site)
                    for x, av in zip(exts, result_avs):
                        x.err = rec
                        av.set_error(_EagerError(rec))
                    return
                v = v.value
            args.append(v)
        launched = _launch(op, dev, args, outs, mds, norm, site)
        for x, av, t in zip(exts, result_avs, launched):
            x.dt = t._x.dt
            x.err = t._x.err
            av.set_value(t._x.dt)

    host = eager_host()
    run_when_ready(pending, lambda: host.enqueue_task(compute))
    return results


def _launch(op: OpDef, dev, dts, outs, mds, norm, site) -> tuple:
    name = op.name
    for dt in dts:
        ev = dt.ready
        if ev is not None and ev.done and ev.error is not None:
            rec = _record_of(ev.error, name, site)
            return tuple(_error_tensor(m, dev, rec, site, name) for m in outs)
    try:
        res = dev.execute(op.spec, list(dts), mds, norm)
    except DeviceError as exc:
        raise OpError(name, str(exc), site) from None
    results = tuple(_ext_tensor(m, _Ext(dev, r, None, None, site, name)) for m, r in zip(outs, res))
    ev = res[0].ready if res else None
    if ev is not None:
        exts = [r._x for r in results]

        def check(error):
            if error is not None:
                rec = _record_of(error, name, site)
                for x in exts:
                    x.err = rec

        ev.add_callback(check)
    return results


def _error_tensor(m: Meta, dev, rec: ErrorRecord, site, name) -> Tensor:
    av = AsyncValue.make_error(_EagerError(rec))
    x = _Ext(dev, None, av, None, site, name)
    x.err = rec
    return _ext_tensor(m, x)


# --------------------------------------------------------------------------
# the per-op functions


def _binary_fast(op: OpDef):
    fast = op.fast
    call = op.call
    get = fast.get
    name = op.name

    def fn(a, b):
        if type(a) is Tensor and type(b) is Tensor and not _SCOPED:
            va = a._v
            vb = b._v
            if va is not None and vb is not None:
                e = get((a._m, b._m))
                if e is not None:
                    t = _new(Tensor)
                    t._v = e[1](va, vb)
                    t._m = e[0]
                    t._x = None
                    if _TAPES:
                        _record(name, (a, b), (t,), {})
                    return t
        return call((a, b), {})

    return fn


def _unary_fast(op: OpDef):
    fast = op.fast
    call = op.call
    get = fast.get
    name = op.name

    def fn(a):
        if type(a) is Tensor and not _SCOPED:
            va = a._v
            if va is not None:
                e = get(a._m)
                if e is not None:
                    t = _new(Tensor)
                    t._v = e[1](va)
                    t._m = e[0]
                    t._x = None
                    if _TAPES:
                        _record(name, (a,), (t,), {})
                    return t
        return call((a,), {})

    return fn


def _general(op: OpDef):
    call = op.call
    spec = op.spec

    if spec.num_inputs is None:

        def fn(*inputs, **attrs):
            if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
                inputs = tuple(inputs[0])
            return call(inputs, attrs)

    else:

        def fn(*inputs, **attrs):
            return call(inputs, attrs)

    return fn


OPDEFS: dict[str, OpDef] = {name: OpDef(name) for name in _ops.OPS}


def _make_function(op: OpDef) -> Callable:
    spec = op.spec
    if not spec.attrs and spec.num_inputs == 2:
        fn = _binary_fast(op)
    elif not spec.attrs and spec.num_inputs == 1:
        fn = _unary_fast(op)
    else:
        fn = _general(op)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = _doc(spec)
    fn.__module__ = "tfrt.ops"
    return fn


def _doc(spec) -> str:
    attrs = ", ".join(f"{k}" if v is _ops.REQUIRED else f"{k}={v!r}" for k, v in spec.attrs.items())
    n = spec.num_inputs
    ins = (
        "*inputs"
        if n is None
        else ", ".join(f"x{i}" for i in range(n))
        if n > 2
        else ("a, b" if n == 2 else "x")
    )
    sig = f"{spec.name}({ins}{', ' if attrs else ''}{attrs})"
    return f"{sig}\n\n{spec.doc}\n\nReturns a tfrt Tensor at once (see tfrt.devices.ops for the specification)."


FUNCTIONS: dict[str, Callable] = {name: _make_function(op) for name, op in OPDEFS.items()}
