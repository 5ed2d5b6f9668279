"""The compiled fast path behaves exactly like the interpreter: random sync programs.

Each random function mixes constants, arithmetic that may divide by zero,
failing kernels, prints, value-tracking objects (whose destruction prints)
and returned values.  The interpreter, the one-function compiled form and
the chunked compiled form must print the same lines, report the same
diagnostics and return the same results.
"""

from __future__ import annotations

import random

import pytest
from bef_builder import ProgramBuilder
from runtime_helpers import Runner

import tfrt.executor.compiled as compiled


def random_program(seed: int) -> ProgramBuilder:
    rng = random.Random(seed)
    b = ProgramBuilder()
    f = b.function("main", args=("i32",), results=("i32", "!tfrt.chain", "i32"))
    ints = [f.args[0]]
    vts = []
    ch = f.op("tfrt.new.chain")
    for _ in range(rng.randint(5, 40)):
        r = rng.random()
        if r < 0.2:
            ints.append(f.op("tfrt.constant.i32", attrs=[("i32", rng.randint(-3, 3))]))
        elif r < 0.4:
            ints.append(f.op("tfrt.add.i32", rng.choice(ints), rng.choice(ints)))
        elif r < 0.5:
            q, rem = f.op("tfrt.div.i32", rng.choice(ints), rng.choice(ints), results=2,
                          loc=("rand.mlir", len(ints), 1))
            ints += [q, rem]
        elif r < 0.55:
            ints.append(f.op("tfrt_test.fail", loc=("rand.mlir", 99, 1)))
        elif r < 0.75:
            ch = f.op("tfrt.print.i32", rng.choice(ints), ch)
        elif r < 0.85:
            vts.append(f.op("vt.constant", attrs=[("i32", rng.randint(0, 9))]))
        elif r < 0.95 and vts:
            ch = f.op("vt.print", rng.choice(vts), ch)
        else:
            ch = f.op("tfrt.merge.chains", ch, rng.choice(ints))
    f.ret(rng.choice(ints), ch, f.args[0])
    return b


def run_once(builder: ProgramBuilder, jit: int, capsys) -> tuple:
    runner = Runner(builder, jit_threshold=jit)
    results = []
    for _ in range(2):
        results.append(runner.values("main", 5))
    out = capsys.readouterr().out
    diags = [(d.message, d.location) for d in runner.diags]
    return results, out, diags


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_matches_interpreter(seed, capsys, monkeypatch):
    b = random_program(seed)
    expected = run_once(b, 1 << 30, capsys)
    assert run_once(b, 1, capsys) == expected
    monkeypatch.setattr(compiled, "FAST_CHUNK", 3)
    assert run_once(b, 1, capsys) == expected


def test_long_functions_compile_in_chunks(monkeypatch):
    monkeypatch.setattr(compiled, "FAST_CHUNK", 4)
    b = ProgramBuilder()
    f = b.function("main", args=("i32",), results=("i32", "i32"))
    one = f.op("tfrt.constant.i32", attrs=[("i32", 1)])
    v = f.args[0]
    for _ in range(10):
        v = f.op("tfrt.add.i32", v, one)
    f.ret(v, f.args[0])
    runner = Runner(b, jit_threshold=1)
    assert runner.values("main", 5) == [15, 5]
    fast = runner.program.function("main")._fast
    assert len(fast.chunks) == 3


# -- control flow in the fast path ---------------------------------------------


def control_flow_program(seed: int, streams: bool) -> ProgramBuilder:
    """Random functions calling helpers through tfrt.call and tfrt.if: a helper
    of sync kernels (its results come back available) and one whose result
    comes from an async kernel (unavailable when the call returns, so the
    fast path hands the rest of the caller to the interpreter).  With
    ``streams``, kernels are spread over several streams."""
    rng = random.Random(seed)
    b = ProgramBuilder()
    f = b.function("main", args=("i32",), results=("i32", "!tfrt.chain", "i32"))
    inc = b.function("inc", args=("i32",), results=("i32",))
    one = inc.op("tfrt.constant.i32", attrs=[("i32", 1)])
    inc.ret(inc.op("tfrt.add.i32", inc.args[0], one))
    later = b.function("later", args=("i32",), results=("i32",))
    ten = later.op("tfrt.constant.i32", attrs=[("i32", 10)])
    later.ret(later.op("tfrt_test.async_add.i32", later.args[0], ten))
    ints = [f.args[0]]
    ch = f.op("tfrt.new.chain")

    def stream() -> int:
        return rng.randint(0, 3) if streams else 0

    for _ in range(rng.randint(5, 30)):
        r = rng.random()
        if r < 0.15:
            ints.append(f.op("tfrt.constant.i32", attrs=[("i32", rng.randint(-3, 3))], stream=stream()))
        elif r < 0.35:
            ints.append(f.op("tfrt.add.i32", rng.choice(ints), rng.choice(ints), stream=stream()))
        elif r < 0.45:
            callee = rng.choice([inc, later])
            ints.append(f.op("tfrt.call", rng.choice(ints), funcs=(callee.index,), stream=stream()))
        elif r < 0.55:
            cond = f.op("tfrt.constant.i1", attrs=[("i1", rng.random() < 0.5)], stream=stream())
            then, other = rng.sample([inc, later], 2)
            ints.append(f.op("tfrt.if", cond, rng.choice(ints), funcs=(then.index, other.index),
                             stream=stream()))  # fmt: skip
        elif r < 0.6:
            ints.append(f.op("tfrt_test.fail", loc=("rand.mlir", 99, 1), stream=stream()))
        else:
            ch = f.op("tfrt.print.i32", rng.choice(ints), ch, stream=stream())
    f.ret(rng.choice(ints), ch, f.args[0])
    return b


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("streams", [False, True])
def test_fast_path_with_control_flow_matches_interpreter(seed, streams, capsys):
    b = control_flow_program(seed, streams)
    results, out, diags = run_once(b, 1 << 30, capsys)
    fast = run_once(b, 1, capsys)
    # The prints follow one chain; errors of kernels on different streams may
    # be reported in another order.
    assert (fast[0], fast[1], sorted(fast[2], key=repr)) == (results, out, sorted(diags, key=repr))


def test_a_caller_of_async_work_compiles_and_finishes_in_the_interpreter():
    b = ProgramBuilder()
    f = b.function("main", args=("i32",), results=("i32", "i32"))
    later = b.function("later", args=("i32",), results=("i32",))
    ten = later.op("tfrt.constant.i32", attrs=[("i32", 10)])
    later.ret(later.op("tfrt_test.async_add.i32", later.args[0], ten))
    x = f.op("tfrt.call", f.args[0], funcs=(later.index,))
    y = f.op("tfrt.add.i32", x, x)
    z = f.op("tfrt.add.i32", f.args[0], f.args[0])
    f.ret(y, z)
    runner = Runner(b, jit_threshold=1)
    for n in (1, 2, 3):
        assert runner.values("main", n) == [2 * (n + 10), 2 * n]
    assert runner.program.function("main")._fast is not None


def test_a_function_compiles_when_it_runs_inline_on_any_queue():
    """Streams decide what TFRT runs inline: a function whose kernels of
    another stream become ready only once the current stream has run dry
    runs in one go (the queue switches streams) and compiles, on either
    queue; one where such a kernel is ready while the current stream still
    has work enqueues it, and stays with the interpreter on either queue."""
    b = ProgramBuilder()
    f = b.function("switches", args=("i32",), results=("i32",))
    one = f.op("tfrt.constant.i32", attrs=[("i32", 1)], stream=1)
    f.ret(f.op("tfrt.add.i32", f.args[0], one))
    g = b.function("splits", args=("i32",), results=("i32",))
    one = g.op("tfrt.constant.i32", attrs=[("i32", 1)], stream=1)
    two = g.op("tfrt.add.i32", g.args[0], g.args[0])
    g.ret(g.op("tfrt.add.i32", two, one))
    for queue in ("s", "mstd:2"):
        runner = Runner(b, work_queue=queue, jit_threshold=1)
        try:
            for _ in range(2):
                assert runner.values("switches", 1) == [2]
                assert runner.values("splits", 1) == [3]
            assert runner.program.function("switches")._fast is not None
            assert runner.program.function("splits").plan.order is None
            assert runner.program.function("splits")._fast is None
        finally:
            runner.close()
