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

import tfrt.executor as ex


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
    monkeypatch.setattr(ex, "FAST_CHUNK", 3)
    assert run_once(b, 1, capsys) == expected


def test_long_functions_compile_in_chunks(monkeypatch):
    monkeypatch.setattr(ex, "FAST_CHUNK", 4)
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
