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
