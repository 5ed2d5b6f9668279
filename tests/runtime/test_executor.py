"""The executor on hand-built functions: TFRT's order, errors, cancellation, the fast path."""

from __future__ import annotations

import gc

import pytest
from runtime_helpers import Runner

from tfrt.bef import program as bp
from tfrt.executor import ProgramLoadError
from tfrt.kernels.registry import CHAIN, KernelRegistry


def const(f, v, kind="i32"):
    return f.op(f"tfrt.constant.{kind}", attrs=[(kind, v)])


def test_straight_line_and_results(builder, capsys):
    f = builder.function("main", results=("i32", "!tfrt.chain"))
    ch = f.op("tfrt.new.chain")
    x, y = const(f, 40), const(f, 2)
    z = f.op("tfrt.add.i32", x, y)
    c1 = f.op("tfrt.print.i32", z, ch)
    q, r = f.op("tfrt.div.i32", z, y, results=2)
    c2 = f.op("tfrt.print.i32", q, c1)
    f.ret(z, c2)
    runner = Runner(builder)
    for _ in range(3):  # interpreted, then compiled
        assert runner.values("main") == [42, CHAIN]
    assert capsys.readouterr().out == "int32 = 42\nint32 = 21\n" * 3
    assert runner.program.function("main")._fast is not None


def test_zero_operand_kernels_start_in_reverse_order(builder, capsys):
    # The pseudo kernel pushes zero-operand kernels in textual order on a LIFO
    # stack, so independent kernels run last-first, as in TFRT.
    f = builder.function("main")
    for i in range(3):
        f.op("tfrt_test.test_cost", attrs=[("i64", i)])
    Runner(builder).run("main")
    assert capsys.readouterr().out == "id: 2\nid: 1\nid: 0\n"


def test_users_run_in_textual_order(builder, capsys):
    # used_by lists are in reverse textual order; the LIFO stack flips them
    # back, so the users of one chain run in textual order.
    f = builder.function("main")
    ch = f.op("tfrt.new.chain")
    for i in range(4):
        f.op("tfrt.print.i32", const(f, i), ch)
    Runner(builder).run("main")
    assert capsys.readouterr().out == "".join(f"int32 = {i}\n" for i in range(4))


def test_error_propagates_and_is_reported_at_location(builder):
    f = builder.function("main", results=("i32", "i32"))
    zero, x = const(f, 0), const(f, 42)
    q, r = f.op("tfrt.div.i32", x, zero, results=2, loc=("t.mlir", 7, 3))
    y = f.op("tfrt.add.i32", q, x)
    f.ret(y, x)
    runner = Runner(builder)
    for _ in range(3):
        assert runner.values("main") == [("error", "Divide by zero"), 42]
    assert len(runner.diags) == 3  # propagation itself reports nothing more
    d = runner.diags[0]
    assert d.message == "Divide by zero" and d.code == "INTERNAL"
    assert d.location == bp.FileLineColLocation("t.mlir", 7, 3)


def test_fast_path_recovers_midway_with_same_side_effects(builder, capsys):
    f = builder.function("main", results=("!tfrt.chain",))
    ch = f.op("tfrt.new.chain")
    c1 = f.op("tfrt.print.i32", const(f, 1), ch)
    bad = f.op("tfrt_test.fail", results=1)
    c2 = f.op("tfrt.print.i32", bad, c1)  # skipped
    c3 = f.op("tfrt.print.i32", const(f, 3), c1)  # still runs
    m = f.op("tfrt.merge.chains", c2, c3)
    f.ret(m)
    runner = Runner(builder, jit_threshold=1)
    outs = []
    for _ in range(2):
        assert runner.values("main") == [("error", "something bad happened")]
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    assert "int32 = 1" in outs[0] and "int32 = 3" in outs[0]
    runner2 = Runner(builder, jit_threshold=1 << 30)
    runner2.values("main")
    assert capsys.readouterr().out == outs[0]


def test_cancel_skips_everything_after(builder, capsys):
    f = builder.function("main", results=("!tfrt.chain", "i32"))
    ch = f.op("tfrt.new.chain")
    x, c1 = f.op("tfrt_test.cancel", ch, results=2)
    c2 = f.op("tfrt.print.i32", x, c1)
    f.ret(c2, x)
    runner = Runner(builder, jit_threshold=1)
    for _ in range(2):
        assert runner.values("main") == [("error", "Cancelled"), 0]
        assert capsys.readouterr().out == ""
    assert runner.run("main")[0].error.code == "CANCELLED"


def test_async_kernels_resume_from_and_then(builder, capsys):
    # async.mlir's test_async_add: the region runs as a task, after the
    # inline prints, on the single-threaded queue.
    body = builder.function("", args=("i32", "i32"), results=("i32",))
    body.ret(body.op("tfrt.add.i32", *body.args))
    f = builder.function("main", results=("i32",))
    ch0 = f.op("tfrt.new.chain")
    x, c1 = const(f, 42), const(f, 1)
    ch1 = f.op("tfrt.print.i32", x, ch0)
    y = f.op("tfrt_test.do.async", x, c1, funcs=(body.index,))
    ch2 = f.op("tfrt.print.i32", x, ch1)
    f.op("tfrt.print.i32", y, ch2)
    f.ret(y)
    assert Runner(builder).values("main") == [43]
    assert capsys.readouterr().out == "int32 = 42\nint32 = 42\nint32 = 43\n"


def test_results_are_returned_before_they_are_ready(builder):
    f = builder.function("main", results=("i32",))
    f.ret(f.op("tfrt_test.async_add.i32", const(f, 1), const(f, 2)))
    runner = Runner(builder)
    fn = runner.program.function("main")
    (res,) = fn.execute(runner.host.new_execution_context(), [])
    assert not res.available  # the single-threaded queue has not run yet
    runner.host.await_values([res])
    assert res.get() == 3


def test_arguments_and_returned_arguments(builder):
    f = builder.function("f", args=("i32", "i32"), results=("i32", "i32"))
    a, b = f.args
    f.ret(f.op("tfrt.add.i32", a, b), a)
    runner = Runner(builder, jit_threshold=1)
    assert runner.values("f", 2, 3) == [5, 2]
    assert runner.values("f", 2**31 - 1, 1) == [-(2**31), 2**31 - 1]


def test_registers_die_after_last_use(builder, capsys):
    # tfrt_test.allocate_resource's resource is destroyed as soon as the
    # (skipped) deallocate kernel drops it, before the function returns.
    f = builder.function("main", results=("!tfrt.chain",))
    c0 = f.op("tfrt.new.chain")
    res, c1 = f.op("tfrt_test.allocate_resource", c0, results=2)
    x, c2 = f.op("tfrt_test.cancel", c1, results=2)
    c3 = f.op("tfrt_test.deallocate_resource", res, c2)
    f.ret(c3)
    runner = Runner(builder)
    runner.values("main")
    assert capsys.readouterr().out == "Allocated TestResource\nDestroyed TestResource\n"


@pytest.mark.parametrize("jit", [1, 1 << 30])
def test_vt_values_are_destroyed_at_last_use(builder, capsys, jit):
    f = builder.function("main", results=("!tfrt.chain",))
    ch = f.op("tfrt.new.chain")
    a = f.op("vt.constant", attrs=[("i32", 1)])
    b = f.op("vt.constant", attrs=[("i32", 2)])
    s = f.op("vt.add", a, b)
    c1 = f.op("vt.print", s, ch)
    f.ret(c1)
    runner = Runner(builder, jit_threshold=jit)
    runner.values("main")
    out = capsys.readouterr().out.splitlines()
    assert out.index("destroyed vt.value(1)") < out.index("print vt_value(3)")
    assert out.index("destroyed vt.value(2)") < out.index("print vt_value(3)")
    assert out[-1] == "destroyed vt.value(3)"


def test_streams_enqueue_other_streams(builder, capsys):
    # A kernel on another stream is enqueued: on the single-threaded queue it
    # runs only when the driver awaits.
    f = builder.function("main")
    ch = f.op("tfrt.new.chain", stream=1)
    f.op("tfrt.print.i32", const(f, 1, ), ch, stream=1)
    f.op("tfrt.print.i32", const(f, 2), f.op("tfrt.new.chain"))
    runner = Runner(builder)
    fn = runner.program.function("main")
    fn.execute(runner.host.new_execution_context(), [])
    assert capsys.readouterr().out == "int32 = 2\n"
    runner.host.quiesce()
    assert capsys.readouterr().out == "int32 = 1\n"


def test_unknown_kernel_is_reported_at_first_use(builder):
    f = builder.function("main")
    f.op("tfrt.new.chain")
    f.op("unsupported_kernel", loc=("t.mlir", 5, 3))
    diags = []
    from tfrt.host_context import HostContext

    host = HostContext(diag_handler=diags.append)
    with pytest.raises(ProgramLoadError):
        from tfrt.executor import BEFProgram

        BEFProgram.load(builder.build(), host)
    assert diags[0].message == "unknown kernel name 'unsupported_kernel'"
    assert diags[0].location == bp.FileLineColLocation("t.mlir", 5, 3)


def test_registry_built_from_one_module(builder):
    from tfrt.host_context import HostContext
    from tfrt.executor import BEFProgram

    reg = KernelRegistry().add_module("tfrt.kernels.basic")
    assert "tfrt.add.i32" in reg and "tfrt.call" not in reg
    f = builder.function("main")
    f.op("tfrt.new.chain")
    with pytest.raises(ProgramLoadError):
        BEFProgram.load(builder.build(), HostContext(registry=reg, diag_handler=lambda d: None))


def test_attribute_kinds_come_from_the_file_when_not_declared():
    from bef_builder import ProgramBuilder

    from tfrt.executor import BEFProgram
    from tfrt.host_context import HostContext

    b = ProgramBuilder(record_attribute_types=False)
    f = b.function("main", results=("i32",))
    f.ret(f.op("tfrt.constant.i32", attrs=[("i32", 5)]))
    runner_host = HostContext(diag_handler=lambda d: None)
    prog = BEFProgram.load(b.build(), runner_host)  # the kernel declares i32
    (r,) = prog.function("main").execute(runner_host.new_execution_context(), [])
    assert r.get() == 5


def test_many_dependent_kernels_do_not_overflow_the_stack(builder):
    f = builder.function("main", results=("i32",))
    one = const(f, 1)
    v = one
    for _ in range(3000):
        v = f.op("tfrt_test.async_add.i32", v, one)
    f.ret(v)
    assert Runner(builder).values("main") == [3001]


def test_multi_threaded_queue_runs_async_chains(builder):
    f = builder.function("main", results=("i32",))
    one = const(f, 1)
    v = one
    for _ in range(200):
        v = f.op("tfrt_test.async_add.i32", v, one)
    f.ret(v)
    runner = Runner(builder, work_queue="mstd:2")
    try:
        assert runner.values("main") == [201]
    finally:
        runner.close()
    gc.collect()
