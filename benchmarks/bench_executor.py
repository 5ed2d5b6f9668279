"""Executor benchmarks: per-kernel overhead, per-call cost, N-Queens tasks, memory.

    python benchmarks/bench_executor.py [--quick]

Prints each figure beside its reference points; asserts nothing.

1. One function of 100,000 dependent ``tfrt.add.i32``: µs per kernel on the
   interpreter (TFRT's algorithm, first call) and on the compiled straight-line
   path (later calls), beside the floor (a plain Python loop calling the same
   kernel function) and numpy's ``y = y + c`` loop on a 4-float array.
2. Calling a one-kernel function from Python (``Program.call``).
3. N-Queens, one async task per placement (``execute_async`` of a BEF
   function per child), on ``s`` and ``mstd:2``, beside a recursive Python
   solver and a ``concurrent.futures`` thread-pool solver, in tasks/s.
4. RSS before and after running a function 100,000 times.
5. End to end (``--end-to-end``, or alone with ``--only-end-to-end``): fresh
   ``bef_executor`` processes on two BEF files, a chain of N dependent
   ``tfrt.add.i32`` and a program of N kernels with branches (``tfrt.if``),
   three streams and async kernels (``tfrt_test.async_add.i32``); µs per
   kernel is the slope between two sizes (loading, checking, planning and
   running, whole process), beside the floor: a Python loop calling the
   same add function, and a fresh CPython running the chain as a
   straight-line ``.py`` file.

Programs are built directly as ``tfrt.bef.program`` structures, so the
numbers measure the runtime, not the compiler.
"""

from __future__ import annotations

import argparse
import gc
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from tfrt.api import Program
from tfrt.async_value import CONCRETE, AsyncValue, run_when_ready
from tfrt.bef import program as bp
from tfrt.executor import BEFProgram, set_recursion_limit
from tfrt.executor.flat import _FlatExecution
from tfrt.host_context import HostContext
from tfrt.kernels import basic
from tfrt.kernels.registry import KernelRegistry, default_registry, kernel

# ---------------------------------------------------------------------------
# Building BEF structures without the compiler.


class _Fn:
    """A minimal function builder: registers and used-by lists as the BEF writer lays them out."""

    def __init__(self, index: int, name: str, args: tuple[str, ...], results: tuple[str, ...]):
        self.index, self.name, self.args, self.results = index, name, args, results
        self.nregs = len(args)
        self.ops: list[tuple[str, tuple[int, ...], tuple[int, ...], tuple[int, ...], int]] = []
        self.ret: tuple[int, ...] = ()

    def op(self, name: str, *args: int, attrs: tuple[int, ...] = (), funcs: tuple[int, ...] = ()) -> int:
        r = self.nregs
        self.nregs += 1
        self.ops.append((name, args, attrs, funcs, r))
        return r

    def build(self) -> bp.Function:
        uses = [0] * self.nregs
        users: list[list[int]] = [[] for _ in range(self.nregs)]
        for kid, (_, args, _, _, _) in enumerate(self.ops, 1):
            for a in args:
                uses[a] += 1
                users[a].append(kid)
        for r in self.ret:
            uses[r] += 1
        kernels = [
            bp.Kernel(name, 1 << 30, args, attrs, funcs, (res,), (tuple(reversed(users[res])),), len(args))
            for name, args, attrs, funcs, res in self.ops
        ]
        start = tuple(k for k, op in enumerate(self.ops, 1) if not op[1])
        pseudo = (start,) + tuple(tuple(reversed(users[i])) for i in range(len(self.args)))
        return bp.Function(self.index, self.name, bp.ASYNC_FUNCTION, self.args, self.results, 0,
                           self.nregs, tuple(uses), kernels, pseudo, self.ret)


def _bef(functions: list[_Fn], attrs: dict[int, object]) -> bp.BefFile:
    fns = [f.build() for f in functions]
    names = sorted({k.name for f in fns for k in f.kernels})
    return bp.BefFile(0, names, [], fns, {o: 8 for o in attrs},
                      _attribute_decoder=lambda off, code: attrs[off],
                      _location_decoder=lambda off: bp.UnknownLocation())


def add_chain(n: int) -> bp.BefFile:
    f = _Fn(0, "chain", ("i32",), ("i32",))
    one = f.op("tfrt.constant.i32", attrs=(0,))
    v = 0
    for _ in range(n):
        v = f.op("tfrt.add.i32", v, one)
    f.ret = (v,)
    return _bef([f], {0: 1})


def one_add() -> bp.BefFile:
    f = _Fn(0, "add", ("i32", "i32"), ("i32",))
    f.ret = (f.op("tfrt.add.i32", 0, 1),)
    return _bef([f], {})


# ---------------------------------------------------------------------------
# N-Queens: a kernel that starts one BEF function call per placement.

_QUEENS_MODULE = __name__


@kernel("bench.queens.expand", kind="async")
def queens_expand(frame):
    n, row, cols, d1, d2 = (a.value for a in frame.args)
    if row == n:
        return 1
    mask = (1 << n) - 1
    avail = ~(cols | d1 | d2) & mask
    solve = frame.funcs[0]
    children: list[AsyncValue] = []
    while avail:
        bit = avail & -avail
        avail ^= bit
        args = [AsyncValue(CONCRETE, v) for v in
                (n, row + 1, cols | bit, ((d1 | bit) << 1) & mask, (d2 | bit) >> 1)]
        children.extend(solve.execute_async(frame.exec_ctx, args))
    if not children:
        return 0
    total = AsyncValue()
    run_when_ready(children, lambda: total.set_value(sum(c.value for c in children)))
    return total


def queens_program() -> bp.BefFile:
    f = _Fn(0, "solve", ("i32",) * 5, ("i32",))
    f.ret = (f.op("bench.queens.expand", 0, 1, 2, 3, 4, funcs=(0,)),)
    return _bef([f], {})


def queens_nodes(n: int) -> tuple[int, int]:
    """Solutions and placements (tasks) of the n-queens search."""
    mask = (1 << n) - 1
    nodes = 0

    def go(row: int, cols: int, d1: int, d2: int) -> int:
        nonlocal nodes
        if row == n:
            return 1
        count = 0
        avail = ~(cols | d1 | d2) & mask
        while avail:
            bit = avail & -avail
            avail ^= bit
            nodes += 1
            count += go(row + 1, cols | bit, ((d1 | bit) << 1) & mask, (d2 | bit) >> 1)
        return count

    return go(0, 0, 0, 0), nodes


def queens_thread_pool(n: int, workers: int = 2) -> int:
    mask = (1 << n) - 1
    lock = threading.Lock()
    state = {"solutions": 0, "pending": 1}
    done = threading.Event()
    pool = ThreadPoolExecutor(workers)

    def task(row: int, cols: int, d1: int, d2: int) -> None:
        children = 0
        found = 0
        if row == n:
            found = 1
        else:
            avail = ~(cols | d1 | d2) & mask
            while avail:
                bit = avail & -avail
                avail ^= bit
                with lock:
                    state["pending"] += 1
                children += 1
                pool.submit(task, row + 1, cols | bit, ((d1 | bit) << 1) & mask, (d2 | bit) >> 1)
        with lock:
            state["solutions"] += found
            state["pending"] -= 1
            if state["pending"] == 0:
                done.set()

    pool.submit(task, 0, 0, 0, 0)
    done.wait()
    pool.shutdown()
    return state["solutions"]


# ---------------------------------------------------------------------------


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def timeit(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_chain(n: int) -> None:
    print(f"== {n:,} dependent tfrt.add.i32 (µs per kernel)")
    t0 = time.perf_counter()
    bef = add_chain(n)
    host = HostContext()
    program = BEFProgram.load(bef, host, jit_threshold=1 << 30)
    load = time.perf_counter() - t0
    fn = program.function("chain")
    arg = [AsyncValue(CONCRETE, 0)]
    interp = timeit(lambda: fn.execute(host.new_execution_context(), arg))
    t0 = time.perf_counter()
    fn.compile()
    compile_s = time.perf_counter() - t0
    fast = timeit(lambda: fn.execute(host.new_execution_context(), arg), 5)
    add = basic.add_i32

    def floor() -> None:
        y = 0
        for _ in range(n):
            y = add(y, 1)

    floor_s = timeit(floor)
    c = np.ones(4, dtype=np.float32)

    def numpy_loop() -> None:
        y = np.zeros(4, dtype=np.float32)
        for _ in range(n):
            y = y + c

    np_s = timeit(numpy_loop)
    first, column, flat = bench_chain_from_file(n)
    per = lambda s: f"{s / n * 1e6:7.3f}"  # noqa: E731
    print(f"  compiled straight-line path  {per(fast)}   (target <= 0.5)")
    print(f"  interpreter (TFRT algorithm) {per(interp)}")
    print(f"  flat interpreter (same)      {per(flat)}   (from BEF bytes, plan built)")
    print(f"  column path (first calls)    {per(column)}   ({interp / column:.1f} x faster than the interpreter)")
    print(f"  from BEF bytes: load, check, plan and run once {per(first)}")
    print(f"  floor: Python loop of add    {per(floor_s)}")
    print(f"  numpy y = y + c (4 x f32)    {per(np_s)}")
    print(f"  load {load:.2f} s, compile {compile_s:.2f} s (once per function)")


def bench_chain_from_file(n: int) -> tuple[float, float, float]:
    """The chain as a BEF file: (load + check + plan + first call, a later
    call on the column path, a call on the flat interpreter), in seconds."""
    from tfrt.bef.reader import read_bef
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    # One stream: the constant starts the chain (a function argument next
    # to a constant would give the constant a stream of its own, and the
    # interpreter would run the function).
    lines = ["func.func @chain() -> i32 {", "  %v0 = tfrt.constant.i32 1"]
    lines += [f"  %v{i} = tfrt.add.i32 %v{i - 1}, %v0" for i in range(1, n + 1)]
    lines += [f"  tfrt.return %v{n} : i32", "}"]
    data = write_bef(parse_module("\n".join(lines) + "\n", "chain.mlir"))
    host = HostContext()

    def first_call() -> None:
        program = BEFProgram.load(read_bef(data, lazy=True), host, jit_threshold=1 << 30)
        program.function("chain").execute(host.new_execution_context(), [])

    first = timeit(first_call)
    fn = BEFProgram.load(read_bef(data, lazy=True), host, jit_threshold=1 << 30).function("chain")
    assert fn._column_plan() is not None
    column = timeit(lambda: fn.execute(host.new_execution_context(), []))

    def flat_call() -> None:  # the interpreter's algorithm on the flat plan, this same body
        ex = _FlatExecution(fn, host.new_execution_context())
        results = ex.prebind_results()
        ex.run([])
        host.await_values(results)

    flat = timeit(flat_call)
    return first, column, flat


def bench_call(calls: int) -> None:
    print("== calling a one-kernel function from Python (µs per call)")
    host = HostContext()
    prog = Program(BEFProgram.load(one_add(), host), host, [])
    prog.call("add", 1, 2)
    prog.call("add", 1, 2)  # compiled from the second call on
    t = timeit(lambda: [prog.call("add", 1, 2) for _ in range(calls)])
    ta = timeit(lambda: [prog.call_async("add", 1, 2) for _ in range(calls)])
    add = basic.add_i32
    tp = timeit(lambda: [add(1, 2) for _ in range(calls)])
    print(f"  Program.call                 {t / calls * 1e6:7.2f}   (target < 5)")
    print(f"  Program.call_async           {ta / calls * 1e6:7.2f}")
    print(f"  the kernel function alone    {tp / calls * 1e6:7.2f}")


def bench_queens(sizes: list[int]) -> None:
    print("== N-Queens, one task per placement (thousand tasks/s)")
    registry = KernelRegistry()
    for name in ("tfrt.kernels.basic", "tfrt.kernels.control_flow"):
        registry.add_module(name)
    registry.add_module(_QUEENS_MODULE if _QUEENS_MODULE != "__main__" else __import__(__name__))
    set_recursion_limit()
    print(f"  {'N':>3} {'tasks':>8} {'bef s':>9} {'bef mstd:2':>11} {'recursive':>10} {'threadpool':>11}")
    for n in sizes:
        solutions, nodes = queens_nodes(n)
        row = []
        for wq in ("s", "mstd:2"):
            host = HostContext(work_queue=wq, registry=registry)
            prog = Program(BEFProgram.load(queens_program(), host), host, [])
            t0 = time.perf_counter()
            got = prog.call("solve", n, 0, 0, 0, 0)
            dt = time.perf_counter() - t0
            host.shutdown()
            assert_same = "" if got == solutions else "!"
            row.append(f"{nodes / dt / 1e3:10.1f}{assert_same}")
        t_rec = timeit(lambda: queens_nodes(n), 1)
        t_pool = timeit(lambda: queens_thread_pool(n), 1)
        print(f"  {n:>3} {nodes:>8} {row[0]:>9} {row[1]:>11} {nodes / t_rec / 1e3:10.1f} {nodes / t_pool / 1e3:11.1f}")


def bench_memory(calls: int) -> None:
    print(f"== RSS while running a function {calls:,} times")
    host = HostContext()
    prog = Program(BEFProgram.load(one_add(), host), host, [])
    fn = prog.bef_program.function("add")
    for _ in range(1000):
        prog.call("add", 1, 2)
    gc.collect()
    before = rss_mib()
    for i in range(calls):
        prog.call("add", i, 2)
    mid = rss_mib()
    args = [AsyncValue(CONCRETE, 1), AsyncValue(CONCRETE, 2)]
    for _ in range(calls):
        fn.execute(host.new_execution_context(), args)
    gc.collect()
    after = rss_mib()
    print(f"  RSS before {before:.1f} MiB, after {calls:,} calls {mid:.1f} MiB, "
          f"after {calls:,} more executes {after:.1f} MiB")


def chain_text(n: int) -> str:
    """``@chain``: one constant and n dependent ``tfrt.add.i32``."""
    lines = ["func.func @chain() -> i32 {", "  %v0 = tfrt.constant.i32 1"]
    lines += [f"  %v{i} = tfrt.add.i32 %v{i - 1}, %v0" for i in range(1, n + 1)]
    lines += [f"  tfrt.return %v{n} : i32", "}"]
    return "\n".join(lines) + "\n"


def mixed_text(n: int) -> str:
    """``@main``: about n kernels in blocks of 10: two chains of adds, a
    comparison, a ``tfrt.if`` (one branch returns its operand, the other
    adds), an async add (a work-queue task), and adds after it.  The stream
    analysis puts them on three streams.  Every kernel is pure, so a call
    from the host takes the ordered path; with ``BEFProgram.ordered``
    off, the flat interpreter runs them in TFRT's order (kernels of other
    streams are enqueued)."""
    lines = ["func.func @main() -> (i32, i32) {", "  %one = tfrt.constant.i32 1",
             "  %a0 = tfrt.constant.i32 0", "  %b0 = tfrt.constant.i32 0"]  # fmt: skip
    for i in range(1, n // 10 + 1):
        p = i - 1
        lines += [
            f"  %x{i} = tfrt.add.i32 %a{p}, %one",
            f"  %y{i} = tfrt.add.i32 %b{p}, %one",
            f"  %z{i} = tfrt.add.i32 %y{i}, %one",
            f'  %c{i} = "tfrt.lessequal.i32"(%x{i}, %z{i}) : (i32, i32) -> i1',
            f"  %d{i} = tfrt.if %c{i}, %x{i} : (i32) -> i32 {{",
            f"    tfrt.return %x{i} : i32",
            "  } else {",
            "    %k = tfrt.constant.i32 2",
            f"    %m = tfrt.add.i32 %x{i}, %k",
            "    tfrt.return %m : i32",
            "  }",
            f'  %e{i} = "tfrt_test.async_add.i32"(%d{i}, %one) : (i32, i32) -> i32',
            f"  %f{i} = tfrt.add.i32 %e{i}, %one",
            f"  %g{i} = tfrt.add.i32 %f{i}, %one",
            f"  %a{i} = tfrt.add.i32 %g{i}, %one",
            f"  %b{i} = tfrt.add.i32 %z{i}, %one",
        ]
    lines += [f"  tfrt.return %a{n // 10}, %b{n // 10} : i32, i32", "}"]
    return "\n".join(lines) + "\n"


def chain_python(n: int) -> str:
    lines = ["def add(a, b):", "    return a + b", "v0 = 1"]
    lines += [f"v{i} = add(v{i - 1}, v0)" for i in range(1, n + 1)]
    lines.append(f"print(v{n})")
    return "\n".join(lines) + "\n"


def bench_end_to_end(sizes: tuple[int, int], repeat: int, baseline: str | None = None) -> None:
    """Fresh bef_executor processes: µs per kernel, the slope between two sizes."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    import resource

    def process(cmd: list[str]) -> tuple[float, float]:
        """Best wall time and best CPU time (user + system) of the child.

        It runs in the files' folder: a baseline given as ``python -c ...``
        with its build on PYTHONPATH would import this checkout's ``tfrt/``
        from the current folder (``-c`` puts it first on sys.path)."""
        wall = cpu = float("inf")
        for _ in range(repeat):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=tmp)
            wall = min(wall, time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = min(cpu, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        return wall, cpu

    bef_executor = str(Path(sys.executable).parent / "bef_executor")
    lo, hi = sizes
    print(f"== end to end: fresh bef_executor processes, {lo:,} and {hi:,} kernels (best of {repeat}; µs per kernel)")
    add = basic.add_i32

    def floor() -> None:
        y = 0
        for _ in range(hi):
            y = add(y, 1)

    floor_us = timeit(floor) / hi * 1e6
    with tempfile.TemporaryDirectory() as tmp:
        times: dict = {}
        for name, text in (("chain", chain_text), ("mixed", mixed_text), ("python", chain_python)):
            for n in sizes:
                if name == "python":
                    path = Path(tmp) / f"chain{n}.py"
                    path.write_text(text(n))
                    times[name, n] = process([sys.executable, "-S", str(path)])
                    continue
                path = Path(tmp) / f"{name}{n}.bef"
                path.write_bytes(write_bef(parse_module(text(n), f"{name}{n}.mlir")))
                times[name, n] = process([bef_executor, str(path)])
                if baseline:  # the same file through another build, alternating
                    times[name + " (baseline)", n] = process([baseline, str(path)])
    def slope(name: str, i: int) -> float:
        return (times[name, hi][i] - times[name, lo][i]) / (hi - lo) * 1e6

    print(f"  {'':40} {'wall':>7} {'cpu':>7}")
    print(f"  {'chain of tfrt.add.i32':40} {slope('chain', 0):7.3f} {slope('chain', 1):7.3f}   (target <= 1)")
    print(f"  {'branches, 3 streams, async kernels':40} {slope('mixed', 0):7.3f} {slope('mixed', 1):7.3f}   (target <= 1)")
    if baseline:
        for name in ("chain", "mixed"):
            key = name + " (baseline)"
            print(f"  {key:40} {slope(key, 0):7.3f} {slope(key, 1):7.3f}   ({baseline})")
    print(f"  {'floor: CPython running the chain as .py':40} {slope('python', 0):7.3f} {slope('python', 1):7.3f}")
    print(f"  {'floor: Python loop of add (in process)':40} {floor_us:7.3f}")


# One process: read, load, prepare, run (execute and await) and release a
# file's main, each phase timed, with bef_executor's heap settings;
# argv: file, "ordered" or "tfrt-order".
PHASES_DRIVER = """
import sys, time
from tfrt.bef.reader import read_bef
from tfrt.executor import BEFProgram
from tfrt.heap import prepare_heap, reserve_for_input
from tfrt.host_context import HostContext
path, how = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
prepare_heap(reserve_for_input(len(data)))  # (as bef_executor does)
host = HostContext(work_queue="s")
t = [time.perf_counter()]
bef = read_bef(data, lazy=True)
t.append(time.perf_counter())
program = BEFProgram.load(bef, host)
program.ordered = how == "ordered"
t.append(time.perf_counter())
fn = program.function("main")
fn.prepare()
t.append(time.perf_counter())
results = fn.run(host.new_execution_context(), [])
t.append(time.perf_counter())
del results
host.quiesce()
program.release()
t.append(time.perf_counter())
print(" ".join(f"{b - a:.6f}" for a, b in zip(t, t[1:])))
"""


def bench_phases(sizes: tuple[int, int], repeat: int) -> None:
    """The mixed program's phases in fresh processes (best of ``repeat``,
    slope between the two sizes), on the ordered path and in TFRT's order."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    lo, hi = sizes
    names = ("read", "load", "prepare", "run", "release")
    print(f"== phases of the mixed program in fresh processes (µs per kernel, best of {repeat}, slope {lo:,} -> {hi:,})")
    with tempfile.TemporaryDirectory() as tmp:
        best: dict = {}
        for n in sizes:
            path = Path(tmp) / f"mixed{n}.bef"
            path.write_bytes(write_bef(parse_module(mixed_text(n), f"mixed{n}.mlir")))
            for _ in range(repeat):
                for how in ("ordered", "tfrt-order"):
                    out = subprocess.run([sys.executable, "-c", PHASES_DRIVER, str(path), how],
                                         check=True, capture_output=True, text=True, cwd=tmp).stdout  # fmt: skip
                    for name, v in zip(names, map(float, out.split())):
                        best[how, n, name] = min(best.get((how, n, name), float("inf")), v)
    print(f"  {'':22}" + "".join(f"{name:>9}" for name in (*names, "total")))
    for how, label in (("ordered", "ordered path"), ("tfrt-order", "TFRT's order (flat)")):
        per = [(best[how, hi, name] - best[how, lo, name]) / (hi - lo) * 1e6 for name in names]
        print(f"  {label:22}" + "".join(f"{v:9.3f}" for v in (*per, sum(per))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--end-to-end", action="store_true", help="also time fresh bef_executor processes")
    parser.add_argument("--only-end-to-end", action="store_true", help="only the end-to-end figures")
    parser.add_argument("--sizes", default="20000,100000", help="the two program sizes of the end-to-end slope")
    parser.add_argument("--baseline", metavar="EXE", help="another bef_executor to time beside (an older build)")
    parser.add_argument("--repeat", type=int, default=3, help="end-to-end processes per size (the best counts)")
    opts = parser.parse_args()
    default_registry()  # import the kernel modules before timing anything
    if not opts.only_end_to_end:
        bench_chain(10_000 if opts.quick else 100_000)
        bench_call(20_000 if opts.quick else 100_000)
        bench_queens([6, 7] if opts.quick else [8, 9, 10])
        bench_memory(10_000 if opts.quick else 100_000)
    if opts.end_to_end or opts.only_end_to_end:
        lo, hi = (int(v) for v in opts.sizes.split(","))
        bench_end_to_end((lo, hi), opts.repeat, opts.baseline)
        bench_phases((lo, hi), opts.repeat)


if __name__ == "__main__":
    main()
