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


def drive(bef, jit: int, capsys, work_queue: str = "s", name: str = "main") -> tuple[list[str], list[str]]:
    """Run ``name`` as bef_executor does; returns (stdout lines, runtime error messages)."""
    diags = []
    host = HostContext(work_queue=work_queue, diag_handler=lambda d: diags.append(d.message))
    try:
        program = BEFProgram.load(bef, host, jit_threshold=jit)
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
        lines.append(f"  %x{i}, %y{i} = tfrt.call @h{h}({rng.choice(values)}) : (i32) -> (i32, i32)")
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
