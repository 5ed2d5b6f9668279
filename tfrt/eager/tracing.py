"""``@tfrt.function``: trace eager ops into MLIR, compile to BEF, run.

Calling a decorated function with tensors of a shape and dtype it has not
seen runs the Python function once with *symbolic* tensors: every op it
calls is written as high-level MLIR (``tfrt.devices.ops_mlir``: linalg,
tensor, arith, math) with the result metadata from the op's metadata
function, so shape and dtype errors are reported exactly as in eager mode,
at the user's line.  The MLIR is compiled by ``tfrt_compile``'s pipeline
(lowering, fusion, buffer reuse) to BEF, loaded, and cached under the
inputs' shapes and dtypes; later calls with the same signature go straight
to the executor's compiled fast path.

* Tensor and numpy-array arguments become function arguments; other
  arguments (Python numbers, strings, flags) are static: part of the cache
  key and constants in the trace.
* Tensors the function captures from outside become constants; variables
  become extra arguments, read at each call, and ``assign`` to a variable
  becomes an extra result, applied when the call returns.
* ``GradientTape`` works inside: gradients are ops, traced like any other.

``f.get_concrete_function(*args)`` returns the :class:`ConcreteFunction`
for a signature: ``.mlir`` (the traced high-level MLIR), ``.bef`` (the
compiled bytes), ``.save(prefix)`` (writes ``prefix.mlir`` and
``prefix.bef``, which ``bef_executor prefix.bef --function=NAME
--input=@x.npy`` runs).

Layer 4 of ``tfrt.eager`` (``core < methods < variables < tape < tracing <
__init__``): may import every layer below; imports only ``core``.  A trace
plugs into dispatch with ``core._push_trace``: while it is the thread's
innermost, ``OpDef.call`` hands it every op with a traced input
(:meth:`Trace.add_op`) and variables their reads and assignments.  It never
imports the tape: traced ops reach recording tapes through ``core._record``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from tfrt.async_value import CONCRETE, ERROR, AsyncValue
from tfrt.devices.base import DeviceError
from tfrt.devices.ops_mlir import MlirBuilder, Value, element_type, emit, tensor_type
from tfrt.eager import core
from tfrt.eager.core import (
    Meta,
    OpError,
    Tensor,
    _Ext,
    _ext_tensor,
    _host_tensor,
    current_trace,
    meta_of,
    user_site,
)
from tfrt.host_context import ExecutionContext, RequestContext

# --------------------------------------------------------------------------
# tracing


class Trace:
    """The MLIR function being written while the Python function runs."""

    def __init__(self, name: str):
        self.name = name
        self.b = MlirBuilder()
        self.params: list[tuple[Value, Any]] = []  # (value, ("arg", i) | Variable)
        self.var_reads: dict[int, Tensor] = {}
        self.var_writes: dict[int, tuple[Any, Tensor]] = {}
        self.constants: dict[int, tuple[Tensor, Value]] = {}

    # -- values --------------------------------------------------------------
    def symbol(self, v: Value, meta: Meta, op: str | None = None) -> Tensor:
        return _ext_tensor(meta, _Ext(sym=(self, v), op=op))

    def parameter(self, meta: Meta, source) -> Tensor:
        v = Value(f"%arg{len(self.params)}", meta.shape, meta.md.dtype)
        element_type(v.dtype, "@tfrt.function argument")
        self.params.append((v, source))
        return self.symbol(v, meta)

    def value_of(self, t: Tensor, op: str) -> Value:
        x = t._x
        if x is not None and x.sym is not None:
            trace, v = x.sym
            if trace is not self:
                raise OpError(op, "uses a tensor of another traced function", user_site())
            return v
        hit = self.constants.get(id(t))
        if hit is not None:
            return hit[1]
        v = self.b.constant(t.numpy(), t._m.md.dtype)
        self.constants[id(t)] = (t, v)  # the tensor stays alive: ids stay unique
        return v

    # -- ops -------------------------------------------------------------------
    def add_op(self, opdef, ins: list[Tensor], attrs: dict):
        name = opdef.name
        outs, norm, _ = opdef.prepare(tuple(t._m for t in ins), attrs)
        try:
            vals = [self.value_of(t, name) for t in ins]
            results = emit(self.b, name, vals, [m.md for m in outs], norm)
        except DeviceError as exc:
            if isinstance(exc, OpError) and exc.site is not None:
                raise
            raise OpError(name, str(exc), user_site()) from None
        for r, m in zip(results, outs):
            if r.shape != m.shape or r.dtype != m.md.dtype:  # pragma: no cover - an emitter bug
                raise OpError(
                    name,
                    f"compiled form gives {r.type}, expected {tensor_type(m.shape, m.md.dtype)}",
                )
        tensors = tuple(self.symbol(r, m, name) for r, m in zip(results, outs))
        if core._TAPES:
            core._record(name, ins, tensors, norm)
        return tensors[0] if len(tensors) == 1 else tensors

    # -- variables --------------------------------------------------------------
    def read_variable(self, var) -> Tensor:
        key = id(var)
        w = self.var_writes.get(key)
        if w is not None:
            return w[1]
        t = self.var_reads.get(key)
        if t is None:
            t = self.parameter(var._m, var)
            self.var_reads[key] = t
        return t

    def alias(self, t: Tensor) -> Tensor:
        """A new tensor object for the same traced value."""
        return self.symbol(self.value_of(t, "read"), t._m)

    def assign_variable(self, var, value: Tensor) -> None:
        self.var_writes[id(var)] = (var, value)

    # -- the text ---------------------------------------------------------------
    def finish(self, outputs: list[Tensor]) -> tuple[str, list[Value]]:
        results = [self.value_of(t, "return") for t in outputs]
        args = ", ".join(f"{v.name}: {v.type}" for v, _ in self.params)
        types = ", ".join(v.type for v in results)
        head = f"func.func @{self.name}({args}) -> ({types}) {{"
        body = ["  " + line for line in self.b.lines]
        ret = f"  return {', '.join(v.name for v in results)} : {types}" if results else "  return"
        return "\n".join([head, *body, ret, "}", ""]), results


def _flatten(obj, leaves: list) -> Any:
    """Replace the tensors in a nest of tuples/lists/dicts by their leaf index."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return _Leaf(len(leaves) - 1)
    if isinstance(obj, np.ndarray):
        leaves.append(core.constant(obj))
        return _Leaf(len(leaves) - 1)
    if isinstance(obj, tuple):
        items = [_flatten(o, leaves) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if isinstance(obj, list):
        return [_flatten(o, leaves) for o in obj]
    if isinstance(obj, dict):
        return {k: _flatten(v, leaves) for k, v in obj.items()}
    return obj


class _Leaf:
    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def _rebuild(structure, values: list) -> Any:
    if isinstance(structure, _Leaf):
        return values[structure.index]
    if isinstance(structure, tuple):
        items = [_rebuild(o, values) for o in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if isinstance(structure, list):
        return [_rebuild(o, values) for o in structure]
    if isinstance(structure, dict):
        return {k: _rebuild(v, values) for k, v in structure.items()}
    return structure


# --------------------------------------------------------------------------
# compiled functions


class ConcreteFunction:
    """One traced and compiled signature of a :class:`Function`."""

    def __init__(self, name: str, mlir: str, arg_sources: list, out_metas: list[Meta],
                 variables_written: list, structure, device: str, opt_level: int):  # fmt: skip
        self.name = name
        self.mlir = mlir
        self._arg_sources = arg_sources  # ("arg", i) or a Variable, per BEF argument
        self._out_metas = out_metas
        self._writes = variables_written  # the Variables assigned, results after the outputs
        self._structure = structure
        self._n_out = len(out_metas) - len(variables_written)
        self.device = device
        self.opt_level = opt_level
        self._bef: bytes | None = None
        self._fn = None
        self._program = None
        self._host = None
        self._arg_positions = tuple(s[1] if type(s) is tuple else -1 for s in arg_sources)
        self._vars = [s for s in arg_sources if type(s) is not tuple]
        self._simple = all(type(s) is tuple for s in arg_sources) and not variables_written

    @property
    def bef(self) -> bytes:
        """The compiled BEF bytes (compiling imports the compiler once)."""
        if self._bef is None:
            from tfrt.passes.compiler import compile_text_to_bef

            self._bef = compile_text_to_bef(
                self.mlir,
                f"<tfrt.function {self.name}>",
                device=self.device,
                opt_level=self.opt_level,
            )
        return self._bef

    def save(self, prefix: str) -> tuple[str, str]:
        """Write ``prefix.mlir`` and ``prefix.bef``; returns their paths."""
        paths = (f"{prefix}.mlir", f"{prefix}.bef")
        with open(paths[0], "w") as f:
            f.write(self.mlir)
        with open(paths[1], "wb") as f:
            f.write(self.bef)
        return paths

    def _load(self) -> None:
        from tfrt.api import load

        program = load(self.bef, host=core.eager_host())
        fn = program.bef_program.function(self.name)
        fn.compile()  # the straight-line fast path from the first call
        self._program = program
        self._host = program.host
        self._fn = fn

    def __call__(self, args: tuple):
        fn = self._fn
        if fn is None:
            self._load()
            fn = self._fn
        if self._simple:
            # Only tensor arguments: the common case, kept short.
            values = []
            for pos in self._arg_positions:
                a = args[pos]
                v = a._v if type(a) is Tensor else None
                if v is None:
                    return self._call_general(args)
                values.append(v)
            host = self._host
            out = fn.call_values(ExecutionContext(host, RequestContext(host)), values)
            if type(out) is tuple:
                structure = self._structure
                if type(structure) is _Leaf:
                    m = self._out_metas[0]
                    v = out[0]
                    return _host_tensor(v if type(v) is np.ndarray else np.asarray(v, m.dtype), m)
                return self._results(out)
            host.await_values(out)
            return self._async_results(out, user_site())
        return self._call_general(args)

    def _call_general(self, args: tuple):
        fn = self._fn
        values = []
        for k, pos in enumerate(self._arg_positions):
            src = self._arg_sources[k]
            values.append(_value_of_arg(args[pos] if pos >= 0 else src))
        host = self._host
        if not any(type(v) is AsyncValue for v in values):
            out = fn.call_values(ExecutionContext(host, RequestContext(host)), values)
            if type(out) is tuple:
                return self._results(out)
            host.await_values(out)
            return self._async_results(out, user_site())
        avs = [v if type(v) is AsyncValue else AsyncValue(CONCRETE, v) for v in values]
        out = fn.execute(ExecutionContext(host, RequestContext(host)), avs)
        return self._async_results(out, user_site())

    def _results(self, out: tuple):
        metas = self._out_metas
        tensors = [_host_tensor(v if type(v) is np.ndarray else np.asarray(v, m.dtype), m)
                   for v, m in zip(out, metas)]  # fmt: skip
        return self._finish(tensors)

    def _async_results(self, out: list, site):
        tensors = []
        for av, m in zip(out, self._out_metas):
            if av.state == CONCRETE:
                v = av.value
                tensors.append(
                    _host_tensor(v if type(v) is np.ndarray else np.asarray(v, m.dtype), m)
                )
                continue
            if av.state == ERROR:
                rec = core.ErrorRecord(f"@tfrt.function {self.name}", av.value.message, site)
                x = _Ext(
                    None, None, AsyncValue.make_error(core._EagerError(rec)), None, site, self.name
                )
                x.err = rec
                tensors.append(_ext_tensor(m, x))
                continue
            tensors.append(
                _ext_tensor(m, _Ext(None, None, core._map(av, _as_array), None, site, self.name))
            )
        return self._finish(tensors)

    def _finish(self, tensors: list):
        n = self._n_out
        for var, t in zip(self._writes, tensors[n:]):
            var._v, var._x = t._v, t._x
        return _rebuild(self._structure, tensors[:n])


def _as_array(v):
    return v if type(v) is np.ndarray else np.asarray(v)


def _value_of_arg(a):
    """A function argument as an ndarray (or an AsyncValue of one)."""
    if isinstance(a, Tensor):
        if type(a) is not Tensor:  # a Variable: its current value
            a = a._snapshot()
        if a._v is not None:
            return a._v
        v = core._as_host_value(a)
        return v
    return np.asarray(a)


class Function:
    """A Python function of eager ops, traced and compiled per input signature.

    ``opt_level`` is the compiler's (0: lower only); ``device`` compiles for
    ``"cpu"`` or ``"gpu"`` (default: the ``tfrt.device`` scope at the call).
    """

    def __init__(self, fn: Callable, *, name: str | None = None, opt_level: int = 2,
                 device: str | None = None):  # fmt: skip
        self.python_function = fn
        self.name = _mlir_name(name or getattr(fn, "__name__", "function"))
        self.opt_level = opt_level
        self.device = device
        self._cache: dict = {}
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    def _device(self) -> str:
        if self.device is not None:
            return self.device
        dev = core.current_device()
        return "gpu" if dev is not None and dev.kind == "gpu" else "cpu"

    def _key(self, args: tuple, kwargs: dict):
        key = []
        for a in args:
            if type(a) is Tensor:
                key.append(a._m)
            elif isinstance(a, Tensor):
                key.append(("var", id(a), a._m))
            elif isinstance(a, np.ndarray):
                key.append(meta_of(a.dtype, a.shape))
            else:
                key.append(("static", type(a), _static_key(a)))
        for k in sorted(kwargs):
            v = kwargs[k]
            if isinstance(v, (Tensor, np.ndarray)):
                raise TypeError(
                    f"@tfrt.function {self.name}: pass tensors positionally (got '{k}=')"
                )
            key.append((k, type(v), _static_key(v)))
        if core._SCOPES:
            key.append(self._device())
        return tuple(key)

    def __call__(self, *args, **kwargs):
        if kwargs or core._TRACING or core._TAPES or core._SCOPES:
            return self._call_slow(args, kwargs)
        key = []
        for a in args:
            if type(a) is Tensor:
                key.append(a._m)
            else:
                return self._call_slow(args, kwargs)
        cf = self._cache.get(tuple(key))
        if cf is None:
            return self._call_slow(args, kwargs)
        return cf(args)

    def _call_slow(self, args, kwargs):
        if core._TRACING and current_trace() is not None:
            # Called from another traced function: inline it.
            return self.python_function(*args, **kwargs)
        if core._TAPES:
            # A tape is recording: run eagerly so every op is recorded.
            return self.python_function(*args, **kwargs)
        try:
            key = self._key(args, kwargs)
            hash(key)
        except TypeError as exc:
            raise TypeError(
                f"@tfrt.function {self.name}: static arguments must be hashable ({exc})"
            ) from None
        cf = self._cache.get(key)
        if cf is None:
            cf = self.get_concrete_function(*args, **kwargs)
        return cf(tuple(args))

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The traced and compiled function for these arguments' signature."""
        key = self._key(args, kwargs)
        with self._lock:
            cf = self._cache.get(key)
            if cf is None:
                cf = self._trace(args, kwargs)
                self._cache[key] = cf
        return cf

    @property
    def concrete_functions(self) -> list[ConcreteFunction]:
        return list(self._cache.values())

    def _trace(self, args, kwargs) -> ConcreteFunction:
        trace = Trace(self.name)
        sym_args = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and type(a) is Tensor:
                sym_args.append(trace.parameter(a._m, ("arg", i)))
            elif isinstance(a, np.ndarray):
                sym_args.append(trace.parameter(meta_of(a.dtype, a.shape), ("arg", i)))
            else:
                sym_args.append(a)  # static, or a Variable (read when used)
        core._push_trace(trace)
        try:
            result = self.python_function(*sym_args, **kwargs)
        finally:
            core._pop_trace()
        leaves: list[Tensor] = []
        structure = _flatten(result, leaves)
        writes = list(trace.var_writes.values())
        outputs = leaves + [t for _, t in writes]
        mlir, _ = trace.finish(outputs)
        metas = [t._m for t in outputs]
        sources = [src for _, src in trace.params]
        cf = ConcreteFunction(self.name, mlir, sources, metas, [v for v, _ in writes], structure,
                              self._device(), self.opt_level)  # fmt: skip
        _ = cf.bef  # compile now: errors belong to the first call
        return cf

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def __repr__(self) -> str:
        return f"<tfrt.function {self.name} ({len(self._cache)} traced)>"


def _static_key(a):
    """A static argument as the cache key holds it: a float by its repr, so
    -0.0 is not 0.0 (they compare and hash equal) and a NaN finds its trace."""
    if type(a) in (float, complex, np.float64, np.float32, np.float16):
        return repr(a)
    return a


def _mlir_name(name: str) -> str:
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return out if out and not out[0].isdigit() else f"f_{out}"


def function(fn: Callable | None = None, *, name: str | None = None, opt_level: int = 2,
             device: str | None = None):  # fmt: skip
    """Decorator: ``@tfrt.function`` or ``@tfrt.function(opt_level=0)``."""
    if fn is None:
        return lambda f: Function(f, name=name, opt_level=opt_level, device=device)
    return Function(fn, name=name, opt_level=opt_level, device=device)
