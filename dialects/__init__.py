"""Dialects (xDSL) and the MLIR text frontend.

``make_context()`` builds an xDSL ``Context`` with every dialect the project
knows registered lazily: our runtime dialects (one module each, in this
package), the standard ``func/arith/scf/cf/tensor/linalg/memref`` dialects from
xDSL, and out-of-tree dialects that come in through the ``tfrt.dialects``
entry-point group.
"""

from __future__ import annotations

import importlib
import sys
import threading
from importlib.metadata import entry_points
from typing import Callable

from xdsl.context import Context
from xdsl.ir import Dialect

# name -> "module:attribute" of the Dialect object.  Explicit and lazy: a
# dialect's module is imported only when a context first needs it.
RUNTIME_DIALECTS: dict[str, str] = {
    "tfrt": "tfrt.dialects.tfrt:TFRT",
    "tfrt_test": "tfrt.dialects.tfrt_test:TFRT_TEST",
    "tfrt_dht": "tfrt.dialects.tfrt_dht:TFRT_DHT",
    "tfrt_sht": "tfrt.dialects.tfrt_sht:TFRT_SHT",
    "coo": "tfrt.dialects.coo:COO",
    "ts": "tfrt.dialects.ts:TS",
    "btf": "tfrt.dialects.btf:BTF",
    "corert": "tfrt.dialects.corert:CORERT",
    "tfrt_tensor": "tfrt.dialects.tfrt_tensor:TFRT_TENSOR",
    "ht": "tfrt.dialects.ht:HT",
    "proto": "tfrt.dialects.tfrt_test:PROTO",
    "tfrt_dht_sync": "tfrt.dialects.tfrt_dht_sync:TFRT_DHT_SYNC",
    "ts_sync": "tfrt.dialects.ts_sync:TS_SYNC",
    "corert_sync": "tfrt.dialects.corert_sync:CORERT_SYNC",
    "tfrt_array": "tfrt.dialects.tfrt_array:TFRT_ARRAY",
    "tfrt_scalar": "tfrt.dialects.tfrt_scalar:TFRT_SCALAR",
    "tfrt_check": "tfrt.dialects.tfrt_check:TFRT_CHECK",
}

STANDARD_DIALECTS: dict[str, str] = {
    "builtin": "xdsl.dialects.builtin:Builtin",
    "func": "xdsl.dialects.func:Func",
    # xDSL's, with MLIR's casts on tensors and the scaling casts (dialects/arith.py).
    "arith": "tfrt.dialects.arith:Arith",
    "scf": "xdsl.dialects.scf:Scf",
    "cf": "xdsl.dialects.cf:Cf",
    "tensor": "tfrt.dialects.tensor:Tensor",
    "linalg": "tfrt.dialects.linalg:Linalg",
    "memref": "xdsl.dialects.memref:MemRef",
    "math": "xdsl.dialects.math:Math",
    "printf": "xdsl.dialects.printf:Printf",
    # IREE's test dialects: the input of tfrt_check (docs/tfrt_check.md).
    "check": "tfrt.dialects.iree_test:CHECK",
    "util": "tfrt.dialects.iree_test:UTIL",
    # The uniform quantized type StableHLO programs use.
    "quant": "tfrt.dialects.quant:QUANT",
    # StableHLO, the input JAX and TensorFlow export (docs/stablehlo.md).
    "stablehlo": "tfrt.dialects.stablehlo:Stablehlo",
    "chlo": "tfrt.dialects.chlo:Chlo",
    "sdy": "tfrt.dialects.stablehlo:Sdy",
}

ENTRY_POINT_GROUP = "tfrt.dialects"


def _load(spec: str) -> Callable[[], Dialect]:
    def factory() -> Dialect:
        module, attr = spec.split(":")
        return getattr(importlib.import_module(module), attr)

    return factory


_PLUGINS: dict[tuple, list] = {}


def _plugin_entry_points() -> list:
    """The ``tfrt.dialects`` entry points, scanned once per ``sys.path`` (a
    scan reads every installed distribution's metadata: milliseconds)."""
    key = tuple(sys.path)
    found = _PLUGINS.get(key)
    if found is None:
        if len(_PLUGINS) > 8:
            _PLUGINS.clear()
        found = _PLUGINS[key] = list(entry_points(group=ENTRY_POINT_GROUP))
    return found


def all_dialect_factories() -> dict[str, Callable[[], Dialect]]:
    """Every known dialect, by name, as a zero-argument factory."""
    factories = {n: _load(s) for n, s in {**STANDARD_DIALECTS, **RUNTIME_DIALECTS}.items()}
    for ep in _plugin_entry_points():
        factories.setdefault(ep.name, ep.load)
    return factories


_SHARED: dict[tuple, Context] = {}
_SHARED_LOCK = threading.Lock()


def shared_context(allow_unregistered: bool = False) -> Context:
    """A context like :func:`make_context`'s, built once per process (and per
    ``sys.path``, which decides the entry points) for callers that do not
    hand one in.  Scanning the entry points and loading dialects costs a few
    milliseconds, as much as parsing a few hundred lines.  Dialects are
    loaded into it as inputs use them; callers that load their own
    dialects or need a context of their own use :func:`make_context`."""
    key = (allow_unregistered, tuple(sys.path))
    ctx = _SHARED.get(key)
    if ctx is None:
        with _SHARED_LOCK:
            ctx = _SHARED.get(key)
            if ctx is None:
                if len(_SHARED) > 8:
                    _SHARED.clear()
                ctx = _SHARED[key] = make_context(allow_unregistered)
    return ctx


def make_context(allow_unregistered: bool = False) -> Context:
    """A fresh Context with every dialect registered (loaded on first use)."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in all_dialect_factories().items():
        if name == "builtin":
            ctx.load_dialect(factory())
        elif name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx
