"""The kernel registry: BEF kernel names -> Python implementations.

BEF stores each kernel by its op name (``tfrt.add.i32``); the executor looks the
name up here once, when a program loads, and an unknown name is reported at the
op's location (``unknown kernel name 'X'``).

Writing a kernel
================
Kernels are plain functions registered with :func:`kernel` in the module that
defines them::

    from tfrt.kernels import kernel, KernelError

    @kernel("tfrt.add.i32")
    def add_i32(a, b):                      # a sync kernel: values in, values out
        return (a + b + 0x80000000) % 0x100000000 - 0x80000000

    @kernel("tfrt.constant.i32", attrs=("i32",))
    def constant_i32(value):                # attributes come first, then operands
        return value

    @kernel("tfrt.div.i32")
    def div_i32(a, b):
        if b == 0:
            raise KernelError("Divide by zero")   # reported at the kernel's location
        ...
        return q, r                          # several results: a tuple

    @kernel("tfrt_test.cancel", context=True)
    def cancel(ctx):                         # ctx: KernelContext (exec ctx, host, location)
        ctx.exec_ctx.request.cancel()
        return 0, CHAIN

    @kernel("tfrt_test.async_add.i32", kind="async")
    def async_add(frame):                    # an async kernel: gets the AsyncKernelFrame
        a, b = frame.arg(0), frame.arg(1)
        frame.set_result(0, frame.host.enqueue_work(lambda: a + b))

Kinds
-----
``kind="sync"`` (default)
    Called as ``fn([ctx,] *attrs, *operand_values)``.  The executor is strict:
    every operand is available and none is an error when the kernel runs (a
    kernel with an error operand is skipped and its results take the error).
    Results: return the value for one result, a tuple/list of exactly N
    values for N != 1 results, anything (ignored) for zero results.  Raise
    :class:`KernelError` to fail: the message is emitted to the diagnostic
    handler at the kernel's location and every result becomes that error.
    Any other exception escaping a kernel is treated the same way (message
    ``"<ExceptionType>: <text>"``) so that a kernel bug shows a location, not a
    traceback.  Sync kernels are what the executor's straight-line fast path
    compiles, so prefer them.

``kind="async"``
    Called as ``fn(frame)`` with an :class:`AsyncKernelFrame`.  Use it for
    kernels that return unavailable values (work queue tasks), call functions
    (``frame.funcs``), or produce per-result errors.  Fill every result with
    ``frame.set_result(i, async_value)`` / ``frame.set_value(i, v)`` /
    ``frame.report_error(msg)`` and return None, or return the results: a
    list or tuple of N results (each an ``AsyncValue`` or a plain value), or
    for one result a single ``AsyncValue`` or a plain value that is not a
    list or tuple.

``context=True`` (sync kernels only) passes a :class:`KernelContext` first.

``bind=True`` (sync kernels only) makes the function a factory: the executor
calls it once per kernel in a program, with the decoded attributes, when it
plans the function, and calls what it returns with the operands (after the
context, if any) on every run.  Work that depends only on attributes
(parsing an expression, turning a shape into ints, choosing a code path) is
then paid once, not per call::

    @kernel("my.scale", attrs=("f32",), bind=True)
    def scale(factor):
        factor = float(factor)
        return lambda x: x * factor

A ``KernelError`` the factory raises fails the kernel when it runs.
:meth:`KernelDef.bind` applies attributes the same way to any kernel.

Attributes
----------
``attrs`` lists the kinds of the attributes the kernel reads, positionally, in
the order BEF stores them (MLIR sorts an op's attributes by name, so the i-th
attribute is the i-th name alphabetically).  They are decoded once, at load
time.  Kinds: ``i1 i8 i16 i32 i64 ui8 ui16 ui32 ui64 f16 bf16 f32 f64
complex64 complex128 str type shape dense aggregate``, an array of a
fixed-width scalar kind as ``"i32[]"`` (arrays of strings or of arrays are
aggregates), and ``"any"`` (decode with the type the BEF file's optional
AttributeTypes section records).  If a kernel record carries more attributes
than the kernel declares, the extra ones are decoded as ``"any"``.
``attrs=None`` means "all any".  Decoded values are what ``tfrt.bef``
produces (see ``tfrt/bef/program.py``): ``bool``/``int``/``float``/``str``,
read-only numpy arrays for arrays and dense tensors, tuples for aggregates.
Function attributes (symbol references) are not attributes: they arrive in
``frame.funcs``.

Values
------
Register values are plain Python objects: ``i1`` -> ``bool``; ``i8..i64``/
``ui*`` -> ``int``; ``f32`` -> ``numpy.float32``; ``f64`` -> ``float``;
``!tfrt.chain`` -> :data:`CHAIN`; strings -> ``str``; anything else is
whatever object the producing kernel returns.  Kernels that print use
:func:`print_line` (it flushes: TFRT's tests interleave stdout and stderr).

Runtime services
----------------
``ctx.host`` / ``frame.host`` is the ``tfrt.host_context.HostContext``:
``enqueue_work(fn) -> AsyncValue`` (fn's result, or its KernelError as an
error value), ``enqueue_task(fn)``, ``enqueue_blocking_work(fn) -> bool``,
``allocate(size, alignment) -> Allocation`` / ``deallocate(a)`` (the host
allocator the leak checker and ``--host_allocator_type`` see),
``shared_context(cls)`` (one ``cls(host)`` per host), ``devices``,
``emit_error(msg, location)``.  ``ctx.exec_ctx.request`` has ``cancel()``,
``cancel_value`` and ``resource_context`` (``get``/``set``/``get_or_create``).

Registries
==========
:func:`kernel` only records the definition (in :data:`DEFINITIONS`, keyed by
the defining module) and returns the function unchanged, so modules can call
each other's kernels directly.  A :class:`KernelRegistry` is built from
modules: ``KernelRegistry().add_module("tfrt.kernels.basic")`` holds only the
kernels that module defines (what a test needs).  :func:`default_registry`
loads the built-in modules, one per dialect in this package
(:data:`BUILTIN_KERNEL_MODULES`; adding a dialect's kernels is a module here
plus its name there), the device-dispatched ``tfrt_tensor`` kernels, and the
``tfrt.kernels`` entry-point group (an entry point names a module, or a
callable taking the registry).  Native functions (``func.func`` with
``{tfrt.native}``) have their own namespace: :func:`native_function`.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import sys
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterable

from tfrt.async_value import (
    CONCRETE,
    ERROR,
    UNAVAILABLE,
    AsyncValue,
    ErrorCode,
    ErrorInfo,
)

__all__ = [
    "ATTR_KINDS",
    "CHAIN",
    "Chain",
    "DEFINITIONS",
    "AsyncKernelFrame",
    "KernelContext",
    "KernelDef",
    "KernelError",
    "KernelRegistry",
    "NativeFunctionDef",
    "attr_type_code",
    "default_registry",
    "kernel",
    "native_function",
    "print_line",
]


class Chain:
    """TFRT's ``!tfrt.chain``: an empty value that only orders side effects."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Chain"


CHAIN = Chain()


def print_line(text: str) -> None:
    """Write one line to stdout and flush: TFRT's tests interleave stdout with stderr."""
    out = sys.stdout
    out.write(text + "\n")
    out.flush()


def write_text(text: str) -> None:
    """Write ``text`` as it is (a program's own newlines) to stdout and flush."""
    out = sys.stdout
    out.write(text)
    out.flush()


class KernelError(Exception):
    """Raised by a kernel to fail; the executor turns it into an error value.

    ``code`` is an :class:`tfrt.async_value.ErrorCode` name (INTERNAL unless given).
    """

    def __init__(self, message: str, code: str = ErrorCode.INTERNAL) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


# BEFAttributeType codes (TFRT include/tfrt/bef/bef_encoding.h): DType values
# for scalars, then the composite kinds; an array is 0x80 | element code.
ATTR_KINDS: dict[str, int] = {
    "ui8": 1, "ui16": 2, "ui32": 3, "ui64": 4,
    "i1": 5, "i8": 6, "i16": 7, "i32": 8, "i64": 9,
    "f32": 10, "f64": 11, "complex64": 12, "complex128": 13,
    "f16": 14, "bf16": 15, "str": 16,
    "type": 25, "func": 26, "shape": 27, "dense": 28, "symbol": 29, "aggregate": 30,
    # MLIR's small floats and sub-byte integers (tfrt.tensor.dtype, past TFRT's enum).
    "f8E4M3FN": 32, "f8E5M2": 33, "f8E4M3FNUZ": 34, "f8E5M2FNUZ": 35, "f8E4M3B11FNUZ": 36,
    "f8E4M3": 37, "f8E3M4": 38, "f8E8M0FNU": 39, "f4E2M1FN": 40, "f6E2M3FN": 41, "f6E3M2FN": 42,
    "i2": 43, "i4": 44, "ui2": 45, "ui4": 46,
}  # fmt: skip
ARRAY_FLAG = 0x80
_ANY = "any"


def attr_type_code(kind: str) -> int | None:
    """The BEFAttributeType code of an attribute kind (None for ``"any"``)."""
    if kind == _ANY:
        return None
    if kind.endswith("[]"):
        elem = kind[:-2]
        code = ATTR_KINDS.get(elem)
        if code is None or code > ATTR_KINDS["str"] or elem == "str":
            raise ValueError(f"attribute kind {kind!r}: arrays hold fixed-width scalars only")
        return ARRAY_FLAG | code
    code = ATTR_KINDS.get(kind)
    if code is None:
        raise ValueError(f"unknown attribute kind {kind!r}")
    return code


@dataclass(frozen=True)
class KernelDef:
    """One registered kernel."""

    name: str
    fn: Callable[..., Any]
    kind: str = "sync"  # "sync" | "async"
    attrs: tuple[str, ...] | None = ()  # None: decode every attribute as "any"
    attr_codes: tuple[int | None, ...] | None = ()
    context: bool = False
    module: str = ""
    binds: bool = False  # fn(*attrs) returns the kernel for those attributes
    # The kernel looks at its operands' AsyncValue objects themselves
    # (identity, references: TFRT's IsUnique), not only at their values:
    # a function holding it runs on the general interpreter, where every
    # register is its AsyncValue.
    observes_async_values: bool = False
    # No effect but its results: nothing printed, emitted, written or
    # mutated (an async kernel's enqueued work included), the same results
    # or the same error for the same operands, and no look at its
    # operands' AsyncValue objects.  A call whose kernels are all pure may
    # run them in another order than TFRT's, since no order is observable
    # (``tfrt.executor.ordered``).
    pure: bool = False

    @property
    def is_sync(self) -> bool:
        return self.kind == "sync"

    def bind(self, attrs: tuple[Any, ...]) -> Callable[..., Any]:
        """The kernel with its attributes applied: ``f([ctx,] *operand_values)``.

        A binding kernel's factory runs here, once; a :class:`KernelError` it
        raises is raised again by every call of the result, so that bad
        attributes fail the kernel at run time, at its location, as they
        would if the kernel read them on each call."""
        fn = self.fn
        if not self.binds:
            if not attrs:
                return fn
            if self.context:
                return lambda ctx, *operands: fn(ctx, *attrs, *operands)
            return functools.partial(fn, *attrs)
        try:
            return fn(*attrs)
        except KernelError as exc:
            error = exc

            def failed(*_operands: Any) -> Any:
                raise KernelError(error.message, error.code)

            return failed


@dataclass(frozen=True)
class NativeFunctionDef:
    """A native function: ``fn(args: list[AsyncValue], num_results, host) -> list``.

    The arguments are available; it returns ``num_results`` results, each an
    AsyncValue or a plain value (raise KernelError for an error result).
    """

    name: str
    fn: Callable[..., Any]
    module: str = ""


# module name -> definitions made there, in definition order.
DEFINITIONS: dict[str, list[KernelDef]] = {}
NATIVE_DEFINITIONS: dict[str, list[NativeFunctionDef]] = {}


def kernel(
    name: str,
    *,
    attrs: Iterable[str] | None = (),
    kind: str = "sync",
    context: bool = False,
    bind: bool = False,
    observes_async_values: bool = False,
    pure: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: define the kernel ``name`` (see the module docstring;
    ``observes_async_values`` and ``pure``: see :class:`KernelDef`)."""
    if bind and kind != "sync":
        raise ValueError(f"kernel {name!r}: bind=True is for sync kernels")
    if kind not in ("sync", "async"):
        raise ValueError(f"kernel {name!r}: kind must be 'sync' or 'async', not {kind!r}")
    if context and kind != "sync":
        raise ValueError(f"kernel {name!r}: context=True is for sync kernels (async ones get a frame)")
    attr_kinds = None if attrs is None else tuple(attrs)
    codes = None if attr_kinds is None else tuple(attr_type_code(k) for k in attr_kinds)

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        module = getattr(fn, "__module__", "") or ""
        kdef = KernelDef(name, fn, kind, attr_kinds, codes, context, module, bind, observes_async_values,
                         pure and not context and not observes_async_values)  # fmt: skip
        DEFINITIONS.setdefault(module, []).append(kdef)
        return fn

    return register


def native_function(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: define the native function ``name`` (see NativeFunctionDef)."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        module = getattr(fn, "__module__", "") or ""
        NATIVE_DEFINITIONS.setdefault(module, []).append(NativeFunctionDef(name, fn, module))
        return fn

    return register


class KernelRegistry:
    """Name -> :class:`KernelDef` (and name -> :class:`NativeFunctionDef`)."""

    def __init__(self) -> None:
        self._kernels: dict[str, KernelDef] = {}
        self._natives: dict[str, NativeFunctionDef] = {}
        self._modules: set[str] = set()
        # Plug-ins (entry points) are read the first time a name is missing
        # or the whole registry is listed: scanning the installed packages'
        # metadata costs more than a small program's run.
        self._plugins_pending = False
        # Built-in modules not imported yet, by the dialect of their kernels
        # (see defer_modules): a program imports the kernels it names.
        self._deferred: dict[str, list[tuple[str, bool]]] = {}
        self._deferred_natives: list[tuple[str, bool]] = []

    # -- building -----------------------------------------------------------
    def add(self, kdef: KernelDef) -> None:
        """Register one kernel; a second kernel of the same name is an error."""
        old = self._kernels.get(kdef.name)
        if old is not None and old.fn is not kdef.fn:
            raise ValueError(
                f"kernel {kdef.name!r} is defined twice ({old.module} and {kdef.module})"
            )
        self._kernels[kdef.name] = kdef

    def add_native(self, ndef: NativeFunctionDef) -> None:
        old = self._natives.get(ndef.name)
        if old is not None and old.fn is not ndef.fn:
            raise ValueError(f"native function {ndef.name!r} is defined twice")
        self._natives[ndef.name] = ndef

    def add_module(self, module: str | ModuleType) -> "KernelRegistry":
        """Import ``module`` and register every kernel and native function it defines."""
        mod = importlib.import_module(module) if isinstance(module, str) else module
        name = mod.__name__
        if name in self._modules:
            return self
        self._modules.add(name)
        for kdef in DEFINITIONS.get(name, ()):
            self.add(kdef)
        for ndef in NATIVE_DEFINITIONS.get(name, ()):
            self.add_native(ndef)
        return self

    def add_package(self, package: str) -> bool:
        """Import ``package`` and register the kernels of every module under it.

        Returns False (and registers nothing) when the package does not exist.
        """
        try:
            importlib.import_module(package)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (package == exc.name or package.startswith(exc.name + ".")):
                return False
            raise
        # By convention a package's kernel modules are named ``kernels*``;
        # import them so that an empty ``__init__`` still registers them.
        pkg = sys.modules[package]
        for info in pkgutil.iter_modules(getattr(pkg, "__path__", [])):
            if info.name.startswith("kernels"):
                importlib.import_module(f"{package}.{info.name}")
        prefix = package + "."
        for mod_name in list(DEFINITIONS) + list(NATIVE_DEFINITIONS):
            if mod_name == package or mod_name.startswith(prefix):
                self.add_module(sys.modules[mod_name])
        return True

    def defer_plugins(self) -> None:
        """Load the ``tfrt.kernels`` entry points when first needed (see __init__)."""
        self._plugins_pending = True

    def defer_modules(self, by_dialect: dict[str, tuple[str, ...]], natives: tuple[str, ...] = (),
                      optional: tuple[str, ...] = ()) -> None:  # fmt: skip
        """Register modules without importing them: the modules of dialect
        ``d`` are imported when a kernel named ``d.*`` is first looked up (the
        native-function modules when a native function is), and all of them
        when the registry is listed.  A module in ``optional`` that fails to
        import is reported on stderr and skipped."""
        for dialect, modules in by_dialect.items():
            entry = self._deferred.setdefault(dialect, [])
            entry.extend((m, m in optional) for m in modules)
        self._deferred_natives.extend((m, m in optional) for m in natives)

    def _import_deferred(self, modules: list[tuple[str, bool]]) -> None:
        for module, optional in modules:
            if module in self._modules:
                continue
            if not optional:
                self.add_module(module)
                continue
            try:
                self.add_module(module)
            except Exception as exc:  # keep the other kernels usable
                self._modules.add(module)
                sys.stderr.write(f"tfrt: warning: kernels of {module} not loaded: "
                                 f"{type(exc).__name__}: {exc}\n")

    def _load_dialect(self, name: str) -> bool:
        """Import the deferred modules of ``name``'s dialect; True if any."""
        if not self._deferred:
            return False
        with _load_lock:
            modules = self._deferred.pop(name.split(".", 1)[0], None)
            if modules is None:
                return False
            self._import_deferred(modules)
        return True

    def _load_all_deferred(self) -> None:
        if not self._deferred and not self._deferred_natives:
            return
        with _load_lock:
            pending = [m for modules in self._deferred.values() for m in modules]
            pending += self._deferred_natives
            self._deferred = {}
            self._deferred_natives = []
            self._import_deferred(pending)

    def _load_plugins(self) -> bool:
        """Load deferred plug-ins; True if this call loaded them."""
        if not self._plugins_pending:
            return False
        with _default_lock:
            if not self._plugins_pending:
                return False
            self._plugins_pending = False
            _load_entry_points(self)
        return True

    # -- lookup -------------------------------------------------------------
    def get(self, name: str) -> KernelDef | None:
        found = self._kernels.get(name)
        if found is None:
            if self._load_dialect(name):
                found = self._kernels.get(name)
            if found is None and self._load_plugins():
                found = self._kernels.get(name)
        return found

    def get_native(self, name: str) -> NativeFunctionDef | None:
        found = self._natives.get(name)
        if found is None and self._deferred_natives:
            with _load_lock:
                natives, self._deferred_natives = self._deferred_natives, []
                self._import_deferred(natives)
            found = self._natives.get(name)
        if found is None and self._load_plugins():
            found = self._natives.get(name)
        return found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __len__(self) -> int:
        self._load_all_deferred()
        self._load_plugins()
        return len(self._kernels)

    def names(self) -> list[str]:
        self._load_all_deferred()
        self._load_plugins()
        return sorted(self._kernels)

    def native_names(self) -> list[str]:
        self._load_all_deferred()
        self._load_plugins()
        return sorted(self._natives)

    @property
    def modules(self) -> set[str]:
        """Every module registered, imported or deferred."""
        deferred = {m for modules in self._deferred.values() for m, _ in modules}
        return self._modules | deferred | {m for m, _ in self._deferred_natives}


# One module per dialect (a dialect's sync twin, ``ts_sync``, has its own),
# by the dialect prefix of the kernel names each defines: the default
# registry imports a dialect's modules when one of its kernels is first
# looked up.  (A test checks that every kernel's prefix leads to its module.)
_K = "tfrt.kernels."
KERNEL_MODULES_BY_DIALECT: dict[str, tuple[str, ...]] = {
    "tfrt": (_K + "basic", _K + "control_flow"),
    "tfrt_test": (_K + "test_kernels", _K + "corert", _K + "tfrt_test_tensor", _K + "tfrt_test_image"),
    "tfrt_tutorial": (_K + "test_kernels",),
    "vt": (_K + "test_kernels",),
    "tfrt_array": (_K + "tfrt_array", _K + "tfrt_array_gpu", _K + "array_generic", _K + "array_indexing"),
    "tfrt_scalar": (_K + "tfrt_scalar",),
    "tfrt_check": (_K + "tfrt_check",),
    "tfrt_dht": (_K + "tfrt_dht",),
    "tfrt_sht": (_K + "tfrt_dht",),
    "tfrt_dht_sync": (_K + "tfrt_dht_sync",),
    "ts": (_K + "ts",),
    "ts_sync": (_K + "ts_sync",),
    "coo": (_K + "coo",),
    "btf": (_K + "btf",),
    "corert": (_K + "corert",),
    "corert_sync": (_K + "corert_sync",),
    "tfrt_tensor": (_K + "tfrt_tensor",),
    "tfrt_onnx": (_K + "dynamic_shape", _K + "strings"),
}
NATIVE_FUNCTION_MODULES = (_K + "native",)
# Kernels over the device plug-ins (tfrt.devices): a failure to load them
# leaves the other kernels usable.
OPTIONAL_KERNEL_MODULES = (_K + "tfrt_tensor",)
BUILTIN_KERNEL_MODULES = tuple(
    dict.fromkeys(
        m for modules in KERNEL_MODULES_BY_DIALECT.values() for m in modules if m not in OPTIONAL_KERNEL_MODULES
    )
) + NATIVE_FUNCTION_MODULES
ENTRY_POINT_GROUP = "tfrt.kernels"

_default: KernelRegistry | None = None
_default_lock = threading.Lock()
# Held while deferred modules import (re-entrant: a module's import may look
# kernels up).
_load_lock = threading.RLock()


def default_registry() -> KernelRegistry:
    """The process-wide registry with every built-in and plug-in kernel (built on first use)."""
    global _default
    if _default is not None:
        return _default
    with _default_lock:
        if _default is None:
            reg = KernelRegistry()
            reg.defer_modules(KERNEL_MODULES_BY_DIALECT, NATIVE_FUNCTION_MODULES, OPTIONAL_KERNEL_MODULES)
            reg.defer_plugins()
            _default = reg
    return _default


def _load_entry_points(reg: KernelRegistry) -> None:
    """Register each ``tfrt.kernels`` entry point (a module, or a callable
    given the registry); a broken plug-in is reported, the others load."""
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
            if isinstance(obj, ModuleType):
                reg.add_module(obj)
            elif callable(obj):
                obj(reg)
        except Exception as exc:  # noqa: BLE001 - keep the other kernels usable
            sys.stderr.write(f"tfrt: warning: kernel plug-in '{ep.name}' ({ep.value}) not loaded: "
                             f"{type(exc).__name__}: {exc}\n")


# ---------------------------------------------------------------------------
# What kernels see of the executor.


class KernelContext:
    """What a ``context=True`` sync kernel receives first.

    ``exec_ctx`` (``tfrt.host_context.ExecutionContext``: ``.host``,
    ``.request`` with ``cancel()`` and ``resource_context``), ``host``,
    ``kernel_name``, ``location`` (the decoded ``tfrt.bef.program`` Location),
    ``debug_info`` (TFRT's kernel debug name), ``emit_error(msg)``.
    """

    __slots__ = ("exec_ctx", "_site")

    def __init__(self, exec_ctx: Any, site: Any) -> None:
        self.exec_ctx = exec_ctx
        # site: the executor's per-kernel record (KernelSite) with name,
        # location offset and the program (for decoding locations lazily).
        self._site = site

    @property
    def host(self) -> Any:
        return self.exec_ctx.host

    @property
    def kernel_name(self) -> str:
        return self._site.name

    @property
    def location_offset(self) -> int:
        return self._site.location

    @property
    def location(self) -> Any:
        return self._site.decoded_location()

    @property
    def debug_info(self) -> str | None:
        return self._site.debug_info()

    def emit_error(self, message: str, code: str = ErrorCode.INTERNAL) -> AsyncValue:
        """Report ``message`` at this kernel's location now; return an error AsyncValue.

        TFRT's ``EmitErrorAsync``: for errors found later, on another thread.
        """
        info = ErrorInfo(message, code)
        self.exec_ctx.host.emit_error(info, self._site.decoded_location())
        return AsyncValue(ERROR, info)


class AsyncKernelFrame(KernelContext):
    """What an async kernel receives (TFRT's AsyncKernelFrame).

    ``args`` (AsyncValues, all available and concrete), ``arg(i)`` (a payload),
    ``attrs`` (decoded attribute values), ``funcs`` (callables: see
    ``tfrt.executor.BEFFunction``: ``name``, ``num_arguments``,
    ``num_results``, ``execute(exec_ctx, args) -> list[AsyncValue]``),
    ``results`` (slots, None until set), ``num_results``.
    """

    __slots__ = ("args", "attrs", "funcs", "results")

    def __init__(
        self,
        exec_ctx: Any,
        site: Any,
        args: list[AsyncValue],
        attrs: tuple[Any, ...],
        funcs: tuple[Any, ...],
        num_results: int,
    ) -> None:
        KernelContext.__init__(self, exec_ctx, site)
        self.args = args
        self.attrs = attrs
        self.funcs = funcs
        self.results: list[AsyncValue | None] = [None] * num_results

    @property
    def num_results(self) -> int:
        return len(self.results)

    def arg(self, index: int) -> Any:
        return self.args[index].value

    def set_result(self, index: int, value: AsyncValue) -> None:
        if self.results[index] is not None:
            raise RuntimeError(f"{self.kernel_name}: result {index} is set twice")
        self.results[index] = value

    def set_value(self, index: int, value: Any) -> None:
        self.set_result(index, AsyncValue(CONCRETE, value))

    def allocate_result(self, index: int) -> AsyncValue:
        """An unavailable result to resolve later."""
        av = AsyncValue()
        self.set_result(index, av)
        return av

    def report_error(self, message: str, code: str = ErrorCode.INTERNAL) -> AsyncValue:
        """Emit ``message`` at the kernel's location; every unset or unavailable result
        becomes that error (TFRT's ``ReportError``)."""
        err = self.emit_error(message, code)
        for i, r in enumerate(self.results):
            if r is None:
                self.results[i] = err
            elif r.state == UNAVAILABLE:
                r.set_error(err.value)
        return err
