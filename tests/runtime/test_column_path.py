"""A function's first calls run straight from its BEF columns (the column
path, tfrt.executor._ColumnPlan) when every kernel is synchronous.  It must
be indistinguishable from the dataflow interpreter: the same results, the
same errors reported in the same order, kernels called in the same order,
and every value released at the same point (a value dies after its last
use, a result nobody uses right after its kernel), which the tests observe
through objects that log their own deletion.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runtime_helpers import LOG, Obj
from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module

from tfrt.async_value import AsyncValue
from tfrt.executor import BEFProgram, _Execution
from tfrt.host_context import HostContext
from tfrt.kernels.registry import BUILTIN_KERNEL_MODULES, KernelError, KernelRegistry, kernel


@kernel("col_test.make", attrs=("i32",))
def make(value):
    return Obj(f"m{value}")


@kernel("col_test.one")
def one(a):
    return Obj(f"one({a.tag})")


@kernel("col_test.two")
def two(a, b):
    return Obj(f"two({a.tag},{b.tag})")


@kernel("col_test.pair")
def pair(a):
    return Obj(f"p0({a.tag})"), Obj(f"p1({a.tag})")


@kernel("col_test.three", attrs=("i32",))
def three(tag, a, b, c):
    return Obj(f"three{tag}({a.tag},{b.tag},{c.tag})")


@kernel("col_test.sink")
def sink(a, b):
    LOG.append(f"sink({a.tag},{b.tag})")
    return ()


@kernel("col_test.fail")
def fail(a):
    LOG.append(f"fail({a.tag})")
    raise KernelError(f"failed on {a.tag}")


@kernel("col_test.wrong_arity")
def wrong_arity(a):
    return (Obj("w"),)  # declared with two results


# op name -> (operands, results, attribute)
OPS = {
    "col_test.one": (1, 1, False),
    "col_test.two": (2, 1, False),
    "col_test.pair": (1, 2, False),
    "col_test.three": (3, 1, True),
    "col_test.sink": (2, 0, False),
    "col_test.fail": (1, 1, False),
}


def registry() -> KernelRegistry:
    reg = KernelRegistry()
    for name in BUILTIN_KERNEL_MODULES:
        reg.add_module(name)
    return reg.add_module(sys.modules[__name__])


def load(text: str):
    errors: list = []
    host = HostContext(registry=registry(), diag_handler=errors.append)
    bef = read_bef(write_bef(parse_module(text, "col.mlir", allow_unregistered=True)), lazy=True)
    return BEFProgram.load(bef, host, jit_threshold=1 << 30), host, errors


def describe(results: list[AsyncValue]) -> list[str]:
    out = []
    for r in results:
        out.append(f"error: {r.error.message}" if r.error is not None else r.value.tag)
    return out


def run_both(text: str, name: str = "f"):
    """(log, results, errors) of the column path and of the interpreter."""
    outcomes = []
    for interpreter in (False, True):
        program, host, errors = load(text)
        fn = program.function(name)
        # One stream for every kernel (stream analysis gives a value nobody
        # uses its own): both paths then follow the same dataflow order.
        cols = fn.bef_function.columns
        cols.stream = np.zeros(len(cols), np.uint8)
        cols.root_stream = 0
        assert fn._column_plan() is not None, "the function should qualify for the column path"
        LOG.clear()
        ctx = host.new_execution_context()
        if interpreter:
            ex = _Execution(fn, ctx)
            results = ex.prebind_results()
            ex.run([])
            del ex
        else:
            results = fn.execute(ctx, [])
        host.await_values(results)
        seen = describe(results)
        del results
        outcomes.append((list(LOG), seen, [e.message for e in errors]))
        host.shutdown()
    return outcomes


@st.composite
def programs(draw):
    """Straight-line programs of col_test kernels over a few constants."""
    lines = ["func.func @f() -> ({results}) {"]
    values = []
    for i in range(draw(st.integers(1, 3))):
        lines.append(f'  %c{i} = "col_test.make"() {{value = {i} : i32}} : () -> !t.obj')
        values.append(f"%c{i}")
    for i in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(sorted(OPS)))
        nargs, nres, attr = OPS[op]
        args = [draw(st.sampled_from(values)) for _ in range(nargs)]
        names = [f"%v{i}_{j}" for j in range(nres)]
        attrs = f" {{value = {i} : i32}}" if attr else ""
        lhs = f"{', '.join(names)} = " if names else ""
        types = ", ".join(["!t.obj"] * nargs)
        rtypes = ", ".join(["!t.obj"] * nres)
        lines.append(f'  {lhs}"{op}"({", ".join(args)}){attrs} : ({types}) -> ({rtypes})')
        values.extend(names)
    returned = draw(st.lists(st.sampled_from(values), max_size=3))
    lines.append(f'  "tfrt.return"({", ".join(returned)}) : ({", ".join(["!t.obj"] * len(returned))}) -> ()')
    lines.append("}")
    return "\n".join(lines).replace("{results}", ", ".join(["!t.obj"] * len(returned))) + "\n"


@pytest.mark.slow  # a fuzz run: pytest -m slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_column_path_matches_the_interpreter(text):
    column, interpreter = run_both(text)
    assert column == interpreter, text


def test_values_die_after_their_last_use_and_unused_results_at_once():
    text = """
    func.func @f() -> !t.obj {
      %a = "col_test.make"() {value = 1 : i32} : () -> !t.obj
      %b = "col_test.one"(%a) : (!t.obj) -> !t.obj
      %unused = "col_test.one"(%b) : (!t.obj) -> !t.obj
      %c = "col_test.two"(%b, %b) : (!t.obj, !t.obj) -> !t.obj
      "tfrt.return"(%c) : (!t.obj) -> ()
    }
    """
    (log, results, errors), interpreted = run_both(text)
    assert (log, results, errors) == interpreted
    assert results == ["two(one(m1),one(m1))"]
    assert log == [
        "new m1", "new one(m1)", "del m1",  # %a's last use was %b
        "new one(one(m1))", "del one(one(m1))",  # nobody uses %unused
        "new two(one(m1),one(m1))", "del one(m1)",
        "del two(one(m1),one(m1))",  # the caller drops the result
    ]  # fmt: skip


def test_a_failing_kernel_hands_the_rest_to_the_interpreter():
    text = """
    func.func @f() -> (!t.obj, !t.obj) {
      %a = "col_test.make"() {value = 1 : i32} : () -> !t.obj
      %e = "col_test.fail"(%a) : (!t.obj) -> !t.obj
      %x = "col_test.one"(%e) : (!t.obj) -> !t.obj
      %y = "col_test.one"(%a) : (!t.obj) -> !t.obj
      "tfrt.return"(%x, %y) : (!t.obj, !t.obj) -> ()
    }
    """
    column, interpreter = run_both(text)
    assert column == interpreter
    log, results, errors = column
    assert results == ["error: failed on m1", "one(m1)"]
    assert errors == ["failed on m1"]
    assert "fail(m1)" in log and log.count("new one(m1)") == 1


def test_a_wrong_result_count_is_an_error_value():
    text = """
    func.func @f() -> !t.obj {
      %a = "col_test.make"() {value = 1 : i32} : () -> !t.obj
      %p, %q = "col_test.wrong_arity"(%a) : (!t.obj) -> (!t.obj, !t.obj)
      "tfrt.return"(%q) : (!t.obj) -> ()
    }
    """
    column, interpreter = run_both(text)
    assert column == interpreter
    assert column[1] == ["error: kernel 'col_test.wrong_arity' returned 1 results, expected 2"]


def test_functions_with_async_kernels_or_several_streams_use_the_interpreter():
    text = """
    func.func @f(%x: i32) -> i32 {
      %y = "tfrt_test.async_add.i32"(%x, %x) : (i32, i32) -> i32
      "tfrt.return"(%y) : (i32) -> ()
    }
    func.func @g() -> i32 {
      %ch = tfrt.new.chain
      %one = tfrt.constant.i32 1
      %ch1 = tfrt.print.i32 %one, %ch
      "tfrt.return"(%one) : (i32) -> ()
    }
    """
    program, host, _ = load(text)
    assert program.function("f")._column_plan() is None
    assert program.function("g")._column_plan() is None  # the print feeds nothing: its own stream
    host.shutdown()


def test_column_path_then_fast_path_agree():
    text = """
    func.func @f(%a: i32, %b: i32) -> (i32, i32) {
      %s = tfrt.add.i32 %a, %b
      %q, %r = tfrt.div.i32 %s, %b
      "tfrt.return"(%q, %r) : (i32, i32) -> ()
    }
    """
    errors: list = []
    host = HostContext(diag_handler=errors.append)
    bef = read_bef(write_bef(parse_module(text, "col.mlir")), lazy=True)
    program = BEFProgram.load(bef, host, jit_threshold=3)
    fn = program.function("f")
    ctx = host.new_execution_context()
    outs = [fn.call_values(ctx, (7, 2)) for _ in range(5)]
    assert outs == [(4, 1)] * 5
    assert fn._fast is not None  # compiled after the column path's calls
    failed = fn.call_values(ctx, (7, 0))
    assert [r.error is not None for r in failed] == [True, True]
    host.shutdown()
