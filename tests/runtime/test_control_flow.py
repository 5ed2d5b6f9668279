"""Control-flow kernels and native functions on hand-built programs, on both queues."""

from __future__ import annotations

from runtime_helpers import Runner

from tfrt.kernels.registry import CHAIN


def const(f, v, kind="i32"):
    return f.op(f"tfrt.constant.{kind}", attrs=[(kind, v)])


def select_program(builder):
    """controlflow_if from control_flow.mlir: cond ? v1 : v2."""
    then = builder.function("", args=("i32", "i32"), results=("i32",))
    then.ret(then.args[0])
    other = builder.function("", args=("i32", "i32"), results=("i32",))
    other.ret(other.args[1])
    sel = builder.function("select", args=("i1", "i32", "i32"), results=("i32",))
    c, a, b = sel.args
    sel.ret(sel.op("tfrt.if", c, a, b, funcs=(then.index, other.index)))
    return sel


def test_if_and_call(builder, work_queue):
    sel = select_program(builder)
    f = builder.function("main", results=("i32", "i32"))
    a, b = const(f, 45), const(f, 129)
    t, fl = const(f, 1, "i1"), const(f, 0, "i1")
    x = f.op("tfrt.call", t, a, b, funcs=(sel.index,))
    y = f.op("tfrt.call", fl, a, b, funcs=(sel.index,))
    f.ret(x, y)
    r = Runner(builder, work_queue)
    try:
        assert r.values("main") == [45, 129]
        assert r.values("select", True, 1, 2) == [1]
    finally:
        r.close()


def test_if_with_error_condition_propagates(builder):
    sel = select_program(builder)
    f = builder.function("main", results=("i32",))
    bad = f.op("tfrt_test.fail")
    # The executor skips tfrt.if itself: its condition operand is an error.
    f.ret(f.op("tfrt.call", bad, const(f, 1), const(f, 2), funcs=(sel.index,)))
    r = Runner(builder)
    assert r.values("main") == [("error", "something bad happened")]


def test_case_picks_branch_and_clamps(builder):
    branches = []
    for k in (2, 3):
        g = builder.function(f"branch{k}", args=("i32",), results=("i32",))
        g.ret(g.op("tfrt.add.i32", g.args[0], const(g, k)))
        branches.append(g.index)
    f = builder.function("main", results=("i32", "i32", "i32"))
    arg = const(f, 40)
    outs = [f.op("tfrt.case", const(f, i), arg, funcs=tuple(branches)) for i in (0, 1, 7)]
    f.ret(*outs)
    assert Runner(builder).values("main") == [42, 43, 43]


def while_body(builder, cancel=False):
    body = builder.function("body", args=("!tfrt.chain", "i32", "i32"), results=("!tfrt.chain", "i32", "i32", "i1"))
    ch, it, arg = body.args
    one, five = const(body, 1), const(body, 5)
    nit = body.op("tfrt.add.i32", it, one)
    narg = body.op("tfrt.add.i32", arg, five)
    if cancel:
        x, ch = body.op("tfrt_test.cancel", ch, results=2)
        cond = body.op("tfrt.lessequal.i32", x, five)
    else:
        cond = body.op("tfrt.lessequal.i32", nit, five)
    body.ret(ch, nit, narg, cond)
    return body


def test_while_inline_and_parallel(builder, work_queue):
    body = while_body(builder)
    for p in (1, 4):
        f = builder.function(f"w{p}", results=("!tfrt.chain", "i32", "i32"))
        outs = f.op(
            "tfrt.while", const(f, 1, "i1"), f.op("tfrt.new.chain"), const(f, 0), const(f, 0),
            attrs=[("i64", p)], funcs=(body.index,), results=3,
        )
        f.ret(*outs)
    r = Runner(builder, work_queue)
    try:
        assert r.values("w1") == [CHAIN, 6, 30]
        assert r.values("w4") == [CHAIN, 6, 30]
    finally:
        r.close()


def test_while_cancelled_condition_becomes_every_result(builder):
    body = while_body(builder, cancel=True)
    for p in (1, 4):
        f = builder.function(f"w{p}", results=("!tfrt.chain", "i32", "i32"))
        outs = f.op(
            "tfrt.while", const(f, 1, "i1"), f.op("tfrt.new.chain"), const(f, 0), const(f, 0),
            attrs=[("i64", p)], funcs=(body.index,), results=3,
        )
        f.ret(*outs)
    r = Runner(builder)
    assert r.values("w1") == [("error", "Cancelled")] * 3
    assert r.values("w4") == [("error", "Cancelled")] * 3


def test_repeat_threads_loop_values(builder, capsys):
    body = builder.function("", args=("!tfrt.chain", "i32"), results=("!tfrt.chain", "i32"))
    ch, v = body.args
    body.ret(body.op("tfrt.print.i32", v, ch), body.op("tfrt.add.i32", v, v))
    f = builder.function("main", results=("!tfrt.chain", "i32"))
    outs = f.op("tfrt.repeat.i32", const(f, 4), f.op("tfrt.new.chain"), const(f, 1),
                funcs=(body.index,), results=2)
    f.ret(*outs)
    assert Runner(builder).values("main") == [CHAIN, 16]
    assert capsys.readouterr().out == "int32 = 1\nint32 = 2\nint32 = 4\nint32 = 8\n"


def test_repeat_zero_and_no_loop_values(builder, capsys):
    body = builder.function("", results=())
    body.op("tfrt_test.print_hello")
    f = builder.function("main", results=("i32",))
    f.op("tfrt.repeat.i32", const(f, 3), funcs=(body.index,), results=0)
    body2 = builder.function("", args=("i32",), results=("i32",))
    body2.ret(body2.args[0])
    f.ret(f.op("tfrt.repeat.i32", const(f, 0), const(f, 9), funcs=(body2.index,)))
    assert Runner(builder).values("main") == [9]
    assert capsys.readouterr().out == "hello host executor!\n" * 3


def test_repeat_many_async_iterations(builder, work_queue):
    # controlflow_repeat_large: 1000 iterations of an async add.
    body = builder.function("", args=("i32",), results=("i32",))
    body.ret(body.op("tfrt_test.async_add.i32", body.args[0], const(body, 1)))
    f = builder.function("main", results=("i32",))
    f.ret(f.op("tfrt.repeat.i32", const(f, 1000), const(f, 42), funcs=(body.index,)))
    r = Runner(builder, work_queue)
    try:
        assert r.values("main") == [1042]
    finally:
        r.close()


def test_once_runs_once_per_request(builder, capsys):
    g = builder.function("once_fn", args=("i32",), results=("i32",))
    g.op("tfrt_test.print_hello")
    g.ret(g.op("tfrt.add.i32", g.args[0], const(g, 1)))
    f = builder.function("main", results=("i32", "i32"))
    a = f.op("tfrt.once", const(f, 0), funcs=(g.index,))
    b = f.op("tfrt.once", a, funcs=(g.index,))
    f.ret(a, b)
    r = Runner(builder)
    assert r.values("main") == [1, 1]
    assert r.values("main") == [1, 1]  # a new request runs it again
    assert capsys.readouterr().out == "hello host executor!\n" * 2


def parallel_program(builder, call):
    body = builder.function("body", args=("i32", "i32", "!test.atomic", "!test.atomic"), results=("!tfrt.chain",))
    s, e, c0, c1 = body.args
    ch = body.op("tfrt.new.chain")
    ch = body.op("tfrt_test.atomic.add.i32", c0, s, ch)
    body.ret(body.op("tfrt_test.atomic.add.i32", c1, e, ch))
    f = builder.function("main", results=("i32", "i32"))
    c0, c1 = f.op("tfrt_test.atomic.create.i32"), f.op("tfrt_test.atomic.create.i32")
    name = "tfrt.parallel_call.i32" if call else "tfrt.parallel_for.i32"
    done = f.op(name, const(f, 0), const(f, 10), const(f, 1), c0, c1, funcs=(body.index,))
    v0, ch0 = f.op("tfrt_test.atomic.get.i32", c0, done, results=2)
    v1, ch1 = f.op("tfrt_test.atomic.get.i32", c1, ch0, results=2)
    f.ret(v0, v1)


def test_parallel_for_and_call(builder, work_queue):
    parallel_program(builder, call=False)
    r = Runner(builder, work_queue)
    try:
        assert r.values("main") == [45, 55]
    finally:
        r.close()


def test_parallel_for_with_sync_body_and_blocks(builder):
    body = builder.function("", args=("i32", "i32", "!test.atomic"), results=())
    s, e, c = body.args
    body.op("tfrt_test.atomic.add.i32", c, body.op("tfrt.add.i32", s, e))
    f = builder.function("main", results=("i32",))
    c = f.op("tfrt_test.atomic.create.i32")
    done = f.op("tfrt.parallel_for.i32", const(f, 3), const(f, 10), const(f, 3), c, funcs=(body.index,))
    v, _ = f.op("tfrt_test.atomic.get.i32", c, done, results=2)
    f.ret(v)
    # blocks [3,6) [6,9) [9,10): sum of start+end = 9 + 15 + 19
    assert Runner(builder).values("main") == [43]


def test_native_functions(builder):
    add = builder.native("native_add", args=("i32", "i32"), results=("i32",))
    aadd = builder.native("native_async_add", args=("i32", "i32"), results=("i32",))
    err = builder.native("native_error", results=("i32",))
    builder.native("native_async_sink", results=("!tfrt.chain",))
    f = builder.function("main", results=("i32", "i32", "i32"))
    a, b = const(f, 1), const(f, 2)
    f.ret(f.op("tfrt.call", a, b, funcs=(add,)), f.op("tfrt.call", a, b, funcs=(aadd,)),
          f.op("tfrt.call", funcs=(err,)))
    r = Runner(builder)
    assert r.values("main") == [3, 3, ("error", "something bad happened")]
    assert r.values("native_error") == [("error", "something bad happened")]
    assert r.values("native_async_sink") == [CHAIN]


def test_benchmark_kernel_reports(builder, capsys):
    body = builder.function("", args=("i32",), results=("i32",))
    body.ret(body.op("tfrt.add.i32", body.args[0], body.args[0]))
    f = builder.function("main", results=("!tfrt.chain",))
    f.ret(f.op("tfrt_test.benchmark", const(f, 1),
               attrs=[("i32", 100), ("i32", 5), ("str", "add.i32"), ("i32", 2)], funcs=(body.index,)))
    assert Runner(builder).values("main") == [CHAIN]
    out = capsys.readouterr().out
    assert "BM:add.i32:Count: 5\n" in out
    for key in ("Duration(ns)", "Time Min(ns)", "Time 99%(ns)", "CPU 50%(ns)", "CPU utilization(percent)"):
        assert f"BM:add.i32:{key}: " in out
