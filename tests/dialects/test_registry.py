"""Every runtime dialect loads, and its ops follow the project's conventions."""

from __future__ import annotations

import importlib
import re

import pytest
from xdsl.irdl import IRDLOperation

from tfrt.dialects import RUNTIME_DIALECTS, make_context
from tfrt.dialects.base import RuntimeDialect


def _dialect(name: str) -> RuntimeDialect:
    module, attr = RUNTIME_DIALECTS[name].split(":")
    return getattr(importlib.import_module(module), attr)


ALL = sorted(RUNTIME_DIALECTS)
OPS = [op for name in ALL for op in _dialect(name).operations]

# TFRT's dialects and what they accept beyond their definitions
# (allowUnknownOperations / allowUnknownTypes in their C++ constructors).
FLAGS = {
    "tfrt": (True, True),
    "tfrt_test": (True, True),
    "tfrt_dht": (True, True),
    "coo": (True, True),
    "corert": (True, True),
    "ts": (False, True),
    "tfrt_tensor": (False, True),
    "ht": (False, True),
    "proto": (False, True),
    "tfrt_dht_sync": (True, True),
    "ts_sync": (False, False),
    "corert_sync": (True, True),
    # Not MLIR dialects in TFRT at all, so everything was accepted there.
    "tfrt_sht": (True, True),
    "btf": (True, True),
    # The compiler's kernel dialects: closed, every op and type is defined.
    "tfrt_array": (False, False),
    "tfrt_scalar": (False, False),
    "tfrt_check": (False, False),
}


@pytest.mark.parametrize("name", ALL)
def test_dialect_loads_lazily_under_its_name(name):
    ctx = make_context()
    dialect = ctx.get_optional_dialect(name)
    assert isinstance(dialect, RuntimeDialect)
    assert dialect.name == name
    assert (dialect.allow_unknown_operations, dialect.allow_unknown_types) == FLAGS[name]
    for op in dialect.operations:
        assert op.name.startswith(f"{name}.")
        assert ctx.get_optional_op(op.name) is op
    for attr in dialect.attributes:
        assert attr.name.startswith(f"{name}.")


def test_op_names_are_unique():
    names = [op.name for op in OPS]
    assert len(names) == len(set(names))


def test_class_names_end_in_op_and_are_unique_per_module():
    seen = set()
    for op in OPS:
        assert op.__name__.endswith("Op"), op
        key = (op.__module__, op.__name__)
        assert key not in seen, key
        seen.add(key)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_op_has_a_docstring_with_an_example_and_declared_syntax(op: type[IRDLOperation]):
    doc = op.__doc__ or ""
    op_def = op.get_irdl_definition()
    name = re.escape(op.name)
    if op_def.assembly_format is None:
        # No custom syntax: no parser/printer of its own, generic example.
        assert "parse" not in op.__dict__ and "print" not in op.__dict__, op.name
        assert re.search(f'"{name}"\\(', doc), f"{op.name}: no generic-form example"
    else:
        # Custom syntax only through the declarative format.
        assert op.__dict__["parse"].__func__.__name__ == "parse_with_format", op.name
        assert op.__dict__["print"].__name__ == "print_with_format", op.name
        assert re.search(f"(^|[ =]){name}([ (]|$)", doc, re.M), f"{op.name}: no example"


def test_module_level_names_expose_every_op():
    for name in ALL:
        module = importlib.import_module(RUNTIME_DIALECTS[name].split(":")[0])
        for op in _dialect(name).operations:
            assert getattr(module, op.__name__) is op


def test_op_counts():
    counts = {name: len(list(_dialect(name).operations)) for name in ALL}
    assert counts == {
        "btf": 25,
        "coo": 25,
        "corert": 27,
        "corert_sync": 18,
        "ht": 0,
        "proto": 0,
        "tfrt": 63,
        "tfrt_dht": 96,
        "tfrt_dht_sync": 74,
        "tfrt_sht": 1,
        "tfrt_tensor": 48,
        "tfrt_test": 12,
        "ts": 18,
        "ts_sync": 5,
        "tfrt_array": 29,
        "tfrt_scalar": 25,  # eval, print, trip_count, a constant per scalar type (22)
        "tfrt_check": 6,
    }
