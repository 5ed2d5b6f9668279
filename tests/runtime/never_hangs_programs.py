"""The programs of ``test_never_hangs.py``, built with ``bef_builder`` (no compiler).

Each function returns a ``ProgramBuilder``; its MLIR equivalent is in the
docstring.  The test scripts run in fresh interpreters that import only the
runtime and this module, so they start fast and do not depend on the
compiler.
"""

from __future__ import annotations

from bef_builder import ProgramBuilder


def const(f, v, kind="i32"):
    return f.op(f"tfrt.constant.{kind}", attrs=[(kind, v)])


def async_errors() -> ProgramBuilder:
    """Errors that async kernels report later, from a task::

        func @alone() -> i32      { tfrt_test.report_error_async }
        func @concrete() -> i32   { tfrt_test.report_error_concrete_async 1 }
        func @indirect() -> i32   { tfrt_test.report_error_indirect_async 1 }
        func @in_call() -> i32    { tfrt.call @indirect() }
        func @in_repeat() -> i32  { tfrt.repeat.i32 3, 1 { report_error_concrete_async } }
    """
    b = ProgramBuilder()
    f = b.function("alone", results=("i32",))
    f.ret(f.op("tfrt_test.report_error_async"))
    f = b.function("concrete", results=("i32",))
    f.ret(f.op("tfrt_test.report_error_concrete_async", const(f, 1)))
    indirect = b.function("indirect", results=("i32",))
    indirect.ret(indirect.op("tfrt_test.report_error_indirect_async", const(indirect, 1)))
    f = b.function("in_call", results=("i32",))
    f.ret(f.op("tfrt.call", funcs=(indirect.index,)))
    body = b.function("", args=("i32",), results=("i32",))
    body.ret(body.op("tfrt_test.report_error_concrete_async", body.args[0]))
    f = b.function("in_repeat", results=("i32",))
    f.ret(f.op("tfrt.repeat.i32", const(f, 3), const(f, 1), funcs=(body.index,)))
    return b


def base_exceptions() -> ProgramBuilder:
    """Kernels (``nh.*``, defined by the test) that raise KeyboardInterrupt or SystemExit::

        func @f(%x, %kind)        { %y = nh.raise %x, %kind; tfrt.add.i32 %y, %y }
        func @in_call(%x, %kind)  { tfrt.call @f(%x, %kind) }
        func @in_loop(%x, %kind)  { tfrt.repeat.i32 1000000, %x { nh.raise %x, 0 } }
        func @async(%x, %kind)    { nh.async_raise %x, %kind }
        func @unused(%x, %kind)   { nh.async_raise %x, %kind; return %x }
        func @blocking(%x)        { nh.blocking_raise %x }
    """
    b = ProgramBuilder()
    f = b.function("f", args=("i32", "i32"), results=("i32",))
    y = f.op("nh.raise", *f.args)
    f.ret(f.op("tfrt.add.i32", y, y))
    g = b.function("in_call", args=("i32", "i32"), results=("i32",))
    g.ret(g.op("tfrt.call", *g.args, funcs=(f.index,)))
    body = b.function("", args=("i32",), results=("i32",))
    body.ret(body.op("nh.raise", body.args[0], const(body, 0)))
    g = b.function("in_loop", args=("i32", "i32"), results=("i32",))
    g.ret(g.op("tfrt.repeat.i32", const(g, 1_000_000), g.args[0], funcs=(body.index,)))
    g = b.function("async", args=("i32", "i32"), results=("i32",))
    g.ret(g.op("nh.async_raise", *g.args))
    g = b.function("unused", args=("i32", "i32"), results=("i32",))
    g.op("nh.async_raise", *g.args)
    g.ret(g.args[0])
    g = b.function("blocking", args=("i32",), results=("i32",))
    g.ret(g.op("nh.blocking_raise", g.args[0]))
    return b


def recursion() -> ProgramBuilder:
    """``f(n) = n == 0 ? 0 : f(n - 1) + 1`` through ``tfrt.if`` and ``tfrt.call``::

        func @f(%n: i32) -> i32 {
          %c = tfrt.equal.i32 %n, 0
          %r = tfrt.if %c, %n { tfrt.return %n }
               else { %x = tfrt.call @f(%n - 1); tfrt.return %x + 1 }
          tfrt.return %r
        }
    """
    b = ProgramBuilder()
    f = b.function("f", args=("i32",), results=("i32",))
    then = b.function("", args=("i32",), results=("i32",))
    then.ret(then.args[0])
    other = b.function("", args=("i32",), results=("i32",))
    one = const(other, 1)
    m = other.op("tfrt.minus.i32", other.args[0], one)
    x = other.op("tfrt.call", m, funcs=(f.index,))
    other.ret(other.op("tfrt.add.i32", x, one))
    c = f.op("tfrt.equal.i32", f.args[0], const(f, 0))
    f.ret(f.op("tfrt.if", c, f.args[0], funcs=(then.index, other.index)))
    return b


def loops(ticking: bool = True) -> ProgramBuilder:
    """Loops of ``n`` iterations::

        func @repeat(%n)        { tfrt.repeat.i32 %n, 0 { %x -> 0 + 1 } }          // 1 kernel
        func @while(%n)         { tfrt.while 1 @body(0, %n) parallel_iterations(1) }
        func @while2(%n)        { tfrt.while 1 @body(0, %n) parallel_iterations(2) }
        func @body(%i, %n)      { %j = %i + 1; return %j, %n, %j <= %n }
        func @async_repeat(%n)  { tfrt.repeat.i32 %n, 0 { tfrt_test.async_add.i32 %x, 1 } }
        func @add(%a, %b)       { tfrt.add.i32 %a, %b }
        func @ticking(%n)       { tfrt.repeat.i32 %n, 0 { nh.tick %x } }  // with ticking
    """
    b = ProgramBuilder()
    body = b.function("", args=("i32",), results=("i32",))
    body.ret(body.op("tfrt.add.i32", body.args[0], const(body, 1)))
    f = b.function("repeat", args=("i32",), results=("i32",))
    f.ret(f.op("tfrt.repeat.i32", f.args[0], const(f, 0), funcs=(body.index,)))
    wbody = b.function("body", args=("i32", "i32"), results=("i32", "i32", "i1"))
    j = wbody.op("tfrt.add.i32", wbody.args[0], const(wbody, 1))
    wbody.ret(j, wbody.args[1], wbody.op("tfrt.lessequal.i32", j, wbody.args[1]))
    for name, parallel in (("while", 1), ("while2", 2)):
        f = b.function(name, args=("i32",), results=("i32",))
        r, _ = f.op("tfrt.while", const(f, 1, "i1"), const(f, 0), f.args[0],
                    attrs=[("i64", parallel)], funcs=(wbody.index,), results=2)
        f.ret(r)
    abody = b.function("", args=("i32",), results=("i32",))
    abody.ret(abody.op("tfrt_test.async_add.i32", abody.args[0], const(abody, 1)))
    f = b.function("async_repeat", args=("i32",), results=("i32",))
    f.ret(f.op("tfrt.repeat.i32", f.args[0], const(f, 0), funcs=(abody.index,)))
    f = b.function("add", args=("i32", "i32"), results=("i32",))
    f.ret(f.op("tfrt.add.i32", *f.args))
    if ticking:  # nh.tick: a kernel the test defines
        tbody = b.function("", args=("i32",), results=("i32",))
        tbody.ret(tbody.op("nh.tick", tbody.args[0]))
        f = b.function("ticking", args=("i32",), results=("i32",))
        f.ret(f.op("tfrt.repeat.i32", f.args[0], const(f, 0), funcs=(tbody.index,)))
    return b


PROGRAMS = {
    "errors": async_errors,
    "base": base_exceptions,
    "rec": recursion,
    "loops": loops,
}
