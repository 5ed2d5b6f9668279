"""Side effects against the driver's "returned" line, in TFRT's order.

A call runs inline every kernel that becomes ready on the stream it is
processing, starting on the pseudo kernel's (root) stream and switching
streams only when the current one has nothing ready; kernels of another
stream that become ready meanwhile are enqueued.  The driver (``s`` queue)
runs queued tasks one at a time until the results are available, prints
them, then runs the rest.  The compiled fast path and its hand-over to the
interpreter (a kernel that fails, an async result that is not ready) must
produce the same output, line for line, as the interpreter.
"""

from __future__ import annotations

import random

import pytest
from bef_builder import ProgramBuilder

from tfrt.bef.reader import read_bef
from tfrt.executor import BEFProgram
from tfrt.host_context import HostContext
from tfrt.passes.compiler import compile_text_to_bef
from tfrt.tools.bef_executor import format_result

INTERPRETER = 1 << 30  # jit threshold never reached


def drive(bef, jit: int, capsys, work_queue: str = "s", loaded: list | None = None) -> tuple:
    """Run ``main`` as bef_executor does; returns (stdout lines, runtime error messages).
    The program is appended to ``loaded`` when given."""
    name = "main"
    diags = []
    host = HostContext(work_queue=work_queue, diag_handler=lambda d: diags.append(d.message))
    try:
        program = BEFProgram.load(bef, host, jit_threshold=jit)
        if loaded is not None:
            loaded.append(program)
        fn = program.function(name)
        results = fn.execute(host.new_execution_context(), [])
        host.await_values(results)
        line = ",".join(format_result(t, r, False) for t, r in zip(fn.result_types, results))
        print(f"'{name}' returned {line}")
        host.quiesce()
    finally:
        host.shutdown()
    return capsys.readouterr().out.splitlines(), diags


# -- the root stream ------------------------------------------------------------


@pytest.mark.parametrize("root, expected", [
    # Stream 0: the constant runs inline and is the result; the new chain
    # (stream 1) is enqueued, and the print waits for it.
    (0, ["'main' returned 1", "int32 = 1"]),
    # Stream 1: the new chain runs inline; the constant is enqueued, and the
    # task that computes the result runs the print it readies on its stream.
    (1, ["int32 = 1", "'main' returned 1"]),
])  # fmt: skip
def test_a_call_starts_on_the_root_stream(root, expected, capsys):
    b = ProgramBuilder()
    f = b.function("main", results=("i32",))
    ch = f.op("tfrt.new.chain", stream=1)
    x = f.op("tfrt.constant.i32", attrs=[("i32", 1)], stream=0)
    f.op("tfrt.print.i32", x, ch, stream=0)
    f.ret(x)
    f.root_stream = root
    assert drive(b.build(), INTERPRETER, capsys)[0] == expected


def test_the_root_stream_comes_from_the_bef_file(capsys):
    text = """
    func.func @main() -> i32 {
      %c0 = tfrt.new.chain
      %v1 = tfrt.constant.i32 1
      %v2 = tfrt.add.i32 %v1, %v1
      %v3 = tfrt.add.i32 %v1, %v2
      %c4 = tfrt.print.i32 %v1, %c0
      %v5 = tfrt.add.i32 %v1, %v3
      tfrt.return %v1 : i32
    }
    """
    bef = read_bef(compile_text_to_bef(text))
    assert bef.functions[0].root_stream == 2  # the stream analysis's root, not 0
    assert drive(bef, INTERPRETER, capsys)[0] == ["'main' returned 1", "int32 = 1"]


# -- the fast path and its hand-over ------------------------------------------------


def pending_program() -> ProgramBuilder:
    """``g`` (one stream) calls an async function twice and prints both
    results on a chain it does not return; ``main`` calls ``g`` twice."""
    b = ProgramBuilder()
    later = b.function("later", args=("i32",), results=("i32",))
    hundred = later.op("tfrt.constant.i32", attrs=[("i32", 100)])
    later.ret(later.op("tfrt_test.async_add.i32", later.args[0], hundred))
    g = b.function("g", args=("i32",), results=("i32",))
    ch = g.op("tfrt.new.chain")
    x = g.op("tfrt.call", g.args[0], funcs=(later.index,))
    two_a = g.op("tfrt.add.i32", g.args[0], g.args[0])
    y = g.op("tfrt.call", two_a, funcs=(later.index,))
    g.op("tfrt.print.i32", y, ch)
    g.op("tfrt.print.i32", x, ch)
    g.ret(x)
    m = b.function("main", results=("i32",))
    one = m.op("tfrt.constant.i32", attrs=[("i32", 1)])
    two = m.op("tfrt.constant.i32", attrs=[("i32", 2)])
    m.ret(m.op("tfrt.call", one, funcs=(g.index,)))
    m.op("tfrt.call", two, funcs=(g.index,))
    return b


@pytest.mark.parametrize("jit", [INTERPRETER, 1, 2])
def test_a_result_that_resolves_runs_its_users_before_the_next_task(jit, capsys):
    # Zero-operand kernels start in reverse order, so g(2) runs first (with
    # jit 2, g(1) is the compiled call).  Each g queues the async add of x,
    # then that of y.  Each add, as it resolves, runs the print waiting for
    # it in the same task; the result, x of g(1), is ready after the third
    # task, and its print comes before the line, the last print after it.
    loaded = []
    out, _ = drive(pending_program().build(), jit, capsys, loaded=loaded)
    assert (loaded[0].function("g")._fast is not None) == (jit != INTERPRETER)
    assert out == [
        "int32 = 102", "int32 = 104", "int32 = 101", "'main' returned 101", "int32 = 102",
    ]  # fmt: skip


def failing_program() -> ProgramBuilder:
    """``h`` (one stream) prints on a chain it does not return after a kernel
    that fails for a zero argument; the error flows into its first result
    only."""
    b = ProgramBuilder()
    h = b.function("h", args=("i32",), results=("i32", "i32"))
    ch = h.op("tfrt.new.chain")
    q, _ = h.op("tfrt.div.i32", h.args[0], h.args[0], results=2, loc=("h.mlir", 3, 1))
    s = h.op("tfrt.add.i32", h.args[0], h.args[0])
    h.op("tfrt.print.i32", s, ch)
    h.ret(q, s)
    m = b.function("main", results=("i32", "i32", "i32", "i32"))
    zero = m.op("tfrt.constant.i32", attrs=[("i32", 0)])
    one = m.op("tfrt.constant.i32", attrs=[("i32", 1)])
    q1, s1 = m.op("tfrt.call", one, funcs=(h.index,), results=2)
    q2, s2 = m.op("tfrt.call", s1, funcs=(h.index,), results=2)
    q3, s3 = m.op("tfrt.call", zero, funcs=(h.index,), results=2)
    m.ret(q2, s2, q3, s3)
    return b


@pytest.mark.parametrize("jit", [INTERPRETER, 1, 2])
def test_kernels_after_a_failure_run_before_the_call_returns(jit, capsys):
    loaded = []
    out, diags = drive(failing_program().build(), jit, capsys, loaded=loaded)
    assert (loaded[0].function("h")._fast is not None) == (jit != INTERPRETER)
    assert out == [
        "int32 = 2",
        "int32 = 4",
        "int32 = 0",
        "'main' returned 1,4,<<error: Divide by zero>>,0",
    ]
    assert diags == ["Divide by zero"]


# -- random programs through the stream analysis ---------------------------------------


def random_module(seed: int) -> str:
    """Helpers with independent chains, prints, failing kernels and calls of
    an async function, called several times by ``main`` (so they compile)."""
    rng = random.Random(seed)
    lines = []
    helpers = rng.randint(1, 3)
    for h in range(helpers):
        lines.append(f"func.func @h{h}(%a: i32) -> (i32, i32) {{")
        ints, chains = ["%a"], []
        for n in range(1, rng.randint(3, 10)):
            r = rng.random()
            if r < 0.15:
                lines.append(f"  %c{n} = tfrt.new.chain")
                chains.append(f"%c{n}")
            elif r < 0.3:
                lines.append(f"  %v{n} = tfrt.constant.i32 {n}")
                ints.append(f"%v{n}")
            elif r < 0.5:
                lines.append(f"  %v{n} = tfrt.add.i32 {rng.choice(ints)}, {rng.choice(ints)}")
                ints.append(f"%v{n}")
            elif r < 0.58:
                lines.append(f'  %v{n} = "tfrt_test.fail"() : () -> i32')
                ints.append(f"%v{n}")
            elif r < 0.64:
                lines.append(f"  %v{n} = tfrt.call @later({rng.choice(ints)}) : (i32) -> i32")
                ints.append(f"%v{n}")
            else:
                if not chains:
                    lines.append(f"  %c{n}n = tfrt.new.chain")
                    chains.append(f"%c{n}n")
                lines.append(f"  %c{n} = tfrt.print.i32 {rng.choice(ints)}, {rng.choice(chains)}")
                chains.append(f"%c{n}")
        lines.append(f"  tfrt.return {rng.choice(ints)}, {rng.choice(ints)} : i32, i32")
        lines.append("}")
    lines += [
        "func.func @later(%a: i32) -> i32 {",
        "  %t = tfrt.constant.i32 100",
        '  %r = "tfrt_test.async_add.i32"(%a, %t) : (i32, i32) -> i32',
        "  tfrt.return %r : i32",
        "}",
        "func.func @main() -> (i32, i32) {",
        "  %ch = tfrt.new.chain",
        "  %one = tfrt.constant.i32 1",
    ]
    values = ["%one"]
    for i in range(rng.randint(3, 6)):
        h = rng.randrange(helpers)
        call = f"tfrt.call @h{h}({rng.choice(values)}) : (i32) -> (i32, i32)"
        lines.append(f"  %x{i}, %y{i} = {call}")
        values += [f"%x{i}", f"%y{i}"]
        if rng.random() < 0.5:
            lines.append(f"  %p{i} = tfrt.print.i32 {rng.choice(values)}, %ch")
    lines.append(f"  tfrt.return {rng.choice(values)}, {rng.choice(values)} : i32, i32")
    lines.append("}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(30))
def test_compiled_calls_print_what_the_interpreter_prints(seed, capsys):
    bef = read_bef(compile_text_to_bef(random_module(seed)))
    expected = drive(bef, INTERPRETER, capsys)
    assert drive(bef, 1, capsys) == expected
    assert drive(bef, 2, capsys) == expected
    # Threads run queued work in any order; the same lines and errors come out.
    threaded = drive(bef, 1, capsys, work_queue="mstd:2")
    assert sorted(threaded[0]) == sorted(expected[0])
    assert sorted(threaded[1]) == sorted(expected[1])
