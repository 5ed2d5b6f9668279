"""Kernels defined with ``bind=True``: the factory runs once per kernel when
the function is planned, and the kernel it returns takes only operands, on
every execution path (column path, interpreter, compiled fast path)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tfrt.async_value import CONCRETE, AsyncValue
from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module
from tfrt.executor import BEFProgram, _Execution
from tfrt.host_context import HostContext
from tfrt.kernels.registry import BUILTIN_KERNEL_MODULES, KernelError, KernelRegistry, kernel

FACTORY_CALLS: list[int] = []


@kernel("bind_test.scale", attrs=("i32",), bind=True)
def scale(factor):
    FACTORY_CALLS.append(factor)
    return lambda x: x * factor


@kernel("bind_test.offset", attrs=("i32",), bind=True)
def offset(value):
    FACTORY_CALLS.append(value)
    return lambda: value


@kernel("bind_test.bad", attrs=("i32",), bind=True)
def bad(value):
    raise KernelError(f"bad attribute {value}")


@kernel("bind_test.sum3", attrs=("i32",), bind=True)
def sum3(weight):
    return lambda a, b, c: (a + b + c) * weight


@kernel("bind_test.plain", attrs=("i32",))
def plain(value, x):
    return x + value


TEXT = """
func.func @f(%x: i32) -> (i32, i32) {
  %a = "bind_test.scale"(%x) {factor = 3 : i32} : (i32) -> i32
  %b = "bind_test.scale"(%a) {factor = 5 : i32} : (i32) -> i32
  %c = "bind_test.offset"() {value = 7 : i32} : () -> i32
  %d = "bind_test.plain"(%c) {value = 100 : i32} : (i32) -> i32
  "tfrt.return"(%b, %d) : (i32, i32) -> ()
}
func.func @g(%x: i32) -> i32 {
  %a = "bind_test.bad"(%x) {value = 9 : i32} : (i32) -> i32
  "tfrt.return"(%a) : (i32) -> ()
}
func.func @h(%x: i32, %y: i32) -> i32 {
  %a = "bind_test.sum3"(%x, %y, %x) {weight = 10 : i32} : (i32, i32, i32) -> i32
  "tfrt.return"(%a) : (i32) -> ()
}
"""


def load(jit_threshold: int):
    reg = KernelRegistry()
    for name in BUILTIN_KERNEL_MODULES:
        reg.add_module(name)
    reg.add_module(sys.modules[__name__])
    errors: list = []
    host = HostContext(registry=reg, diag_handler=errors.append)
    bef = read_bef(write_bef(parse_module(TEXT, "bind.mlir", allow_unregistered=True)), lazy=True)
    return BEFProgram.load(bef, host, jit_threshold=jit_threshold), host, errors


def call(program, host, name, *args):
    ctx = host.new_execution_context()
    results = program.function(name).execute(ctx, [AsyncValue(CONCRETE, a) for a in args])
    host.await_values(results)
    return [r.error.message if r.error is not None else r.value for r in results]


@pytest.mark.parametrize("path", ["columns", "interpreter", "compiled"])
def test_bound_kernels_run_on_every_path(path):
    program, host, _ = load(jit_threshold=1 if path == "compiled" else 1 << 30)
    fn = program.function("f")
    # One stream for every kernel (stream analysis gives the operand-less
    # kernel its own), so that the function qualifies for the column path.
    cols = fn.bef_function.columns
    cols.stream = np.zeros(len(cols), np.uint8)
    cols.root_stream = 0
    FACTORY_CALLS.clear()
    for x in (2, 4, 6):
        if path == "interpreter":
            ctx = host.new_execution_context()
            ex = _Execution(fn, ctx)
            results = ex.prebind_results()
            ex.run([AsyncValue(CONCRETE, x)])
            host.await_values(results)
            got = [r.value for r in results]
        else:
            got = call(program, host, "f", x)
        assert got == [x * 15, 107]
    if path == "columns":
        assert fn._column_plan() is not None
    # Bound once per kernel per plan, never per call.
    assert sorted(FACTORY_CALLS) in ([3, 5, 7], [3, 3, 5, 5, 7, 7])
    host.shutdown()


def test_a_bound_kernel_with_three_operands_on_the_column_path():
    # More than two operands: the column path's general step, which must
    # not pass the attributes again.
    program, host, _ = load(jit_threshold=1 << 30)
    assert program.function("h")._column_plan() is not None
    assert call(program, host, "h", 1, 2) == [40]
    host.shutdown()


def test_an_error_from_the_factory_fails_the_kernel_at_its_location():
    program, host, errors = load(jit_threshold=1 << 30)
    assert call(program, host, "g", 1) == ["bad attribute 9"]
    assert [e.message for e in errors] == ["bad attribute 9"]
    assert (errors[0].location.file, errors[0].location.line) == ("bind.mlir", 10)
    host.shutdown()


def test_kerneldef_bind_applies_attributes_to_any_kernel():
    reg = KernelRegistry().add_module(sys.modules[__name__])
    assert reg.get("bind_test.plain").bind((5,))(1) == 6
    assert reg.get("bind_test.scale").bind((4,))(np.int32(2)) == 8
    with pytest.raises(KernelError, match="bad attribute 2"):
        reg.get("bind_test.bad").bind((2,))(1)


def test_bind_is_for_sync_kernels():
    with pytest.raises(ValueError, match="bind=True is for sync kernels"):
        kernel("bind_test.async", kind="async", bind=True)
