"""Sample benchmarks: each sample's figures beside its baselines, measured in one run.

    python benchmarks/bench_samples.py [--quick] [--sections xor,nqueens,tasks] [--repeat R]

Sections (each a function; ``SECTIONS`` maps names to them):

``nqueens``
    ``samples/nqueens``: one runtime task per queen placement (an async
    kernel spawning tasks, results joined with ``when_all``), under the
    ``s`` and ``mstd:2`` work queues, beside single-threaded recursive
    Python, ``concurrent.futures.ThreadPoolExecutor`` (2 workers, one
    ``submit`` per placement) and ``asyncio`` (one task per placement,
    joined with ``gather``).  Thousand tasks per second (a task is one
    placement; every row counts the same placements), best of R rounds;
    the rounds interleave the rows, so load on the machine hits every row
    alike, and the ratios are taken within the run.
``xor``
    ``samples/xor``: the training program (3000 SGD steps in an
    ``scf.for``) compiled once, then per step through ``tfrt.api`` beside
    numpy taking the same float32 steps in a Python loop (both reach the
    same loss); and end to end as a user runs it: ``tfrt_compile`` and
    ``bef_executor`` in fresh processes, beside ``python`` running the
    numpy loop in a fresh process.
``tasks``
    Where a task's time goes: nanoseconds per primitive (AsyncValue
    creation, a callback, queue push and pop, a join, the hand-off to a
    worker thread), and the share of the cyclic garbage collector and of
    the GIL in the N-Queens figures.

Prints figures; asserts nothing but the solution counts.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import platform
import shutil
import sys
import sysconfig
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "samples" / "nqueens"))

import nqueens  # noqa: E402

from tfrt.async_value import AsyncValue, when_all  # noqa: E402
from tfrt.host_context import HostContext, Task  # noqa: E402
from tfrt.work_queue import make_work_queue  # noqa: E402

# ---------------------------------------------------------------------------
# Baselines: the same search, one task per placement.


def queens_thread_pool(n: int, workers: int = 2) -> int:
    """One ``submit`` per placement; solutions and outstanding tasks kept under a lock."""
    mask = (1 << n) - 1
    lock = threading.Lock()
    state = [0, 0]  # solutions, tasks not finished
    done = threading.Event()
    pool = ThreadPoolExecutor(workers)

    def task(row: int, cols: int, d1: int, d2: int) -> None:
        found = 0
        if row == n:
            found = 1
        else:
            free = ~(cols | d1 | d2) & mask
            while free:
                bit = free & -free
                free ^= bit
                with lock:
                    state[1] += 1
                pool.submit(task, row + 1, cols | bit, ((d1 | bit) << 1) & mask, (d2 | bit) >> 1)
        with lock:
            state[0] += found
            state[1] -= 1
            last = state[1] == 0
        if last:
            done.set()

    state[1] = 1
    task(0, 0, 0, 0)  # the empty board, as the runtime's kernel does it inline
    done.wait()
    pool.shutdown()
    return state[0]


def queens_asyncio(n: int) -> int:
    """One ``asyncio`` task per placement; a task awaits ``gather`` of its children."""
    mask = (1 << n) - 1

    async def place(row: int, cols: int, d1: int, d2: int) -> int:
        if row == n:
            return 1
        free = ~(cols | d1 | d2) & mask
        if not free:
            return 0
        children = []
        while free:
            bit = free & -free
            free ^= bit
            children.append(
                asyncio.create_task(
                    place(row + 1, cols | bit, ((d1 | bit) << 1) & mask, (d2 | bit) >> 1)
                )
            )
        return sum(await asyncio.gather(*children))

    return asyncio.run(place(0, 0, 0, 0))


# ---------------------------------------------------------------------------
# Section: N-Queens.


def _best(times: list[float]) -> float:
    return min(times)


def nqueens_section(sizes: list[int], repeat: int) -> None:
    """The N-Queens table: runtime under s and mstd:2 beside the three baselines."""
    print(f"== N-Queens, one task per placement (thousand tasks/s, best of {repeat}; "
          "higher is better)")
    programs = {wq: nqueens.load(wq) for wq in ("s", "mstd:2")}
    for p in programs.values():
        p.call("nqueens", 4)  # warm: the first call plans and runs the interpreter once
    rows = {
        "runtime s": lambda n: nqueens.solve(programs["s"], n),
        "runtime mstd:2": lambda n: nqueens.solve(programs["mstd:2"], n),
        "recursive Python": lambda n: nqueens.count_recursive(n)[0],
        "ThreadPoolExecutor(2)": queens_thread_pool,
        "asyncio tasks": queens_asyncio,
    }
    header = f"  {'N':>3} {'tasks':>8} " + " ".join(f"{name:>22}" for name in rows)
    print(header)
    ratios = []
    try:
        for n in sizes:
            solutions, tasks = nqueens.count_recursive(n)
            times: dict[str, list[float]] = {name: [] for name in rows}
            for _ in range(repeat):
                for name, fn in rows.items():
                    gc.collect()
                    t0 = time.perf_counter()
                    got = fn(n)
                    dt = time.perf_counter() - t0
                    if got != solutions:
                        raise SystemExit(
                            f"{name}: N={n} gave {got} solutions, expected {solutions}"
                        )
                    times[name].append(dt)
            rate = {name: tasks / _best(t) / 1e3 for name, t in times.items()}
            print(f"  {n:>3} {tasks:>8} " + " ".join(f"{rate[name]:>22.1f}" for name in rows))
            ratios.append((n, rate))
    finally:
        for p in programs.values():
            p.close()
    print("  ratios (same run):")
    print(f"  {'N':>3} {'s/threadpool':>13} {'s/asyncio':>10} {'mstd:2/s':>9} "
          f"{'mstd:2/threadpool':>18} {'mstd:2/asyncio':>15} {'recursive/s':>12}")
    for n, r in ratios:
        s, m = r["runtime s"], r["runtime mstd:2"]
        tp, aio, rec = r["ThreadPoolExecutor(2)"], r["asyncio tasks"], r["recursive Python"]
        print(f"  {n:>3} {s / tp:>13.2f} {s / aio:>10.2f} {m / s:>9.2f} "
              f"{m / tp:>18.2f} {m / aio:>15.2f} {rec / s:>12.1f}")
    print("  targets at N=10: s >= 200 thousand tasks/s; mstd:2 >= s; both ahead of the "
          "thread pool and asyncio")
    print(f"  interpreter: {_interpreter()}; "
          f"free-threaded CPython on PATH: {_free_threaded_on_path()}")


def _interpreter() -> str:
    gil = "GIL" if not sysconfig.get_config_var("Py_GIL_DISABLED") else "free-threaded"
    return f"{platform.python_implementation()} {platform.python_version()} ({gil})"


def _free_threaded_on_path() -> str:
    found = [name for name in ("python3.13t", "python3.14t", "python3.15t") if shutil.which(name)]
    return ", ".join(found) if found else "none (python3.13t, python3.14t, python3.15t)"


# ---------------------------------------------------------------------------
# Section: where a task's time goes.


def _ns_per(fn, count: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn(count)
        best = min(best, time.perf_counter() - t0)
    return best / count * 1e9


def _noop() -> None:
    pass


def tasks_section(count: int, repeat: int) -> None:
    """Nanoseconds per primitive of a task, and the GC's and the GIL's share."""
    print(f"== where a task's time goes (ns per operation, best of {repeat}; lower is better)")
    s_queue = make_work_queue("s")
    host = HostContext(work_queue=s_queue)

    def loop(n):
        for _ in range(n):
            pass

    def av_create(n):
        for _ in range(n):
            AsyncValue()

    def task_create(n):
        args = ()
        for _ in range(n):
            Task(_noop, args)

    def resolve_no_waiter(n):
        for _ in range(n):
            AsyncValue().set_value(1)

    def callback_and_resolve(n):
        for _ in range(n):
            v = AsyncValue()
            v.and_then(_noop)
            v.set_value(1)

    def push_pop(n):
        add = s_queue.add_task
        for _ in range(n):
            add(_noop)
        s_queue.quiesce()

    # Batches of 1000 live objects, as in a search: a batch of 100,000
    # would time the cyclic GC walking them instead.
    def spawn_run(n):
        spawn = host.spawn
        for _ in range(n // 1000):
            tasks = [spawn(_noop) for _ in range(1000)]
            host.await_values(tasks)

    def join_children(n):
        for _ in range(n // 1000):
            children = [AsyncValue() for _ in range(1000)]
            total = when_all(children, len)
            for c in children:
                c.set_value(1)
            assert total.value == 1000

    def create_and_set(n):
        for _ in range(n // 1000):
            for c in [AsyncValue() for _ in range(1000)]:
                c.set_value(1)

    rows = [
        ("loop overhead (subtract from the rest)", loop),
        ("AsyncValue()", av_create),
        ("Task(fn, args): the task and its result value", task_create),
        ("AsyncValue() + set_value, no waiter", resolve_no_waiter),
        ("AsyncValue() + and_then + set_value", callback_and_resolve),
        ("s queue: add_task + popleft + call", push_pop),
        ("host.spawn + run + resolve (s)", spawn_run),
        ("when_all, per child (create, resolve, join)", join_children),
        ("  of which create + resolve", create_and_set),
    ]
    for name, fn in rows:
        print(f"  {name:52s} {_ns_per(fn, count, repeat):8.0f}")
    for spec in ("mstd:1", "mstd:2"):
        q = make_work_queue(spec)

        def handoff(n, q=q):
            add = q.add_task
            for _ in range(n):
                add(_noop)
            q.quiesce()

        print(f"  {spec + ' queue: add_task (caller) + run on a worker':52s} "
              f"{_ns_per(handoff, count, repeat):8.0f}")
        q.shutdown()

    # The cyclic GC and the GIL, on the N-Queens search itself.
    n = 10
    _, tasks = nqueens.count_recursive(n)
    print(f"  N-Queens N={n}, µs per task:")
    for wq in ("s", "mstd:1", "mstd:2"):
        prog = nqueens.load(wq)
        prog.call("nqueens", 4)
        on, off = [], []
        for _ in range(repeat):
            for bucket, enabled in ((on, True), (off, False)):
                gc.collect()
                if not enabled:
                    gc.disable()
                t0 = time.perf_counter()
                nqueens.solve(prog, n)
                bucket.append(time.perf_counter() - t0)
                gc.enable()
        prog.close()
        with_gc, without = min(on) / tasks * 1e6, min(off) / tasks * 1e6
        print(f"    {wq:7s} {with_gc:6.2f} (cyclic GC off: {without:5.2f}, "
              f"GC share {with_gc - without:5.2f})")
    print("    (s runs tasks in FIFO order, breadth first: more tasks alive for the GC; a worker"
          " runs its newest first;\n     mstd:2 against mstd:1: the cost of a second worker"
          " beside the GIL; differences under ~0.2 are noise)")


def _xor_numpy(steps: int):
    import numpy as np

    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
    y = np.array([[0], [1], [1], [0]], np.float32)
    rng = np.random.default_rng(0)
    w1 = np.round(rng.standard_normal((2, 8)), 6).astype(np.float32)
    w2 = np.round(rng.standard_normal((8, 1)), 6).astype(np.float32)
    b1, b2 = np.zeros(8, np.float32), np.zeros(1, np.float32)
    for _ in range(steps):
        h = sig(x @ w1 + b1)
        o = sig(h @ w2 + b2)
        loss = np.mean((o - y) ** 2)
        d_o = (o - y) * np.float32(0.5) * o * (1 - o)
        d_h = (d_o @ w2.T) * h * (1 - h)
        w1, b1 = w1 - 2 * (x.T @ d_h), b1 - 2 * d_h.sum(0)
        w2, b2 = w2 - 2 * (h.T @ d_o), b2 - 2 * d_o.sum(0)
    return float(loss)


def xor_section(repeat: int) -> None:
    import contextlib
    import io
    import subprocess
    import tempfile

    import tfrt.api
    from tfrt.passes.compiler import compile_text_to_bef

    steps = 3000
    train = ROOT / "samples" / "xor" / "train.mlir"
    t0 = time.perf_counter()
    bef = compile_text_to_bef(train.read_text())
    compile_s = time.perf_counter() - t0
    prog = tfrt.api.load(bef)
    ours, ref = [], []
    for _ in range(repeat):
        with contextlib.redirect_stdout(io.StringIO()):
            t0 = time.perf_counter()
            loss = prog.call("train")[-1]
            ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ref_loss = _xor_numpy(steps)
        ref.append(time.perf_counter() - t0)
    a, b = _best(ours) / steps * 1e6, _best(ref) / steps * 1e6
    print(f"== XOR training, {steps} steps (µs per step, best of {repeat}; lower is better)")
    print(f"  in-process: compiled program {a:7.1f}   numpy loop {b:7.1f}   ratio {a / b:5.2f}x"
          f"   (loss {float(loss):.6g} vs {ref_loss:.6g}; compile {compile_s:.2f} s)")
    # End to end, fresh processes, as the sample's README runs it.
    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        def timed(*cmd) -> float:
            t0 = time.perf_counter()
            subprocess.run([str(c) for c in cmd], cwd=tmp, check=True, capture_output=True)
            return time.perf_counter() - t0

        comp = min(timed(bindir / "tfrt_compile", train, "-o", "train.bef") for _ in range(repeat))
        run = min(timed(bindir / "bef_executor", "train.bef", "--function=train", "--output=@w.npy",
                        *["--output=+w.npy"] * 3) for _ in range(repeat))  # fmt: skip
        import inspect

        script = inspect.getsource(_xor_numpy) + f"\nprint(_xor_numpy({steps}))\n"
        py = min(timed(sys.executable, "-c", script) for _ in range(repeat))
    print(f"  end to end (fresh processes, s): tfrt_compile {comp:.2f} + bef_executor {run:.2f}"
          f" = {comp + run:.2f}   python+numpy {py:.2f}   ratio {(comp + run) / py:.2f}x"
          f" (bef_executor alone {run / py:.2f}x)")


SECTIONS = {
    "xor": lambda opts: xor_section(opts.repeat),
    "nqueens": lambda opts: nqueens_section([8, 9] if opts.quick else [8, 9, 10], opts.repeat),
    "tasks": lambda opts: tasks_section(20_000 if opts.quick else 100_000, opts.repeat),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per figure (best is kept)")
    parser.add_argument(
        "--sections", default=",".join(SECTIONS), help=f"comma-separated: {', '.join(SECTIONS)}"
    )
    opts = parser.parse_args()
    if opts.repeat < 1:
        parser.error("--repeat must be at least 1")
    chosen = [s for s in opts.sections.split(",") if s]
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s): {', '.join(unknown)} (have: {', '.join(SECTIONS)})")
    nqueens.program_bef()  # compile the sample before anything is timed
    for name in chosen:
        SECTIONS[name](opts)


if __name__ == "__main__":
    main()
