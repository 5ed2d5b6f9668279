"""Loop, recursion and call-start benchmarks: µs per iteration, per level, per call; memory.

    python benchmarks/bench_loops.py [--quick] [--queues s,mstd:2] [--repeat R]

1. ``tfrt.repeat.i32`` over a one-kernel body (``tfrt.add.i32``): µs per
   iteration, and the peak RSS over the run.
2. ``tfrt.while`` (``parallel_iterations(1)``) over a two-kernel body (the
   add and the ``tfrt.lessequal.i32`` that decides the next iteration).
3. ``tfrt.repeat.i32`` over an async body (``tfrt_test.async_add.i32``, one
   work-queue task per iteration).
4. Recursion: ``f(n) = n == 0 ? 0 : f(n - 1) + 1`` through ``tfrt.if`` and
   ``tfrt.call``: µs per level, 200 levels deep (all inline) and 5,000
   deep (past ``call_hop()`` nested executions, where calls start from the
   work queue).
5. Starting calls: ``Program.call`` and ``Program.submit(...).result()`` of
   a one-kernel function, µs per call.

The programs are those of ``tests/runtime/never_hangs_programs.py``, built
as BEF structures (the numbers measure the runtime, not the compiler).
Each figure is the best of R rounds.  Prints; asserts only the results.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "runtime"))

import never_hangs_programs as programs

from tfrt.api import Program
from tfrt.executor import BEFProgram, set_recursion_limit
from tfrt.host_context import HostContext

TIMEOUT = 120  # seconds for one figure


def max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def per_unit(prog: Program, name: str, n: int, expected: int, repeat: int) -> str:
    out: list[str] = []

    def measure() -> None:
        try:
            got = prog.call(name, n)
            if got != expected:
                out.append(f"wrong result {got!r}")
                return
            dt = best(repeat, lambda: prog.call(name, n))
        except Exception as exc:  # noqa: BLE001 - an older runtime fails some of these: say how
            out.append(f"failed: {type(exc).__name__}: {str(exc)[:60]}")
            return
        out.append(f"{dt / n * 1e6:8.3f}")

    # In a thread with a bound: an older runtime never returns from some.
    t = threading.Thread(target=measure, daemon=True)
    t.start()
    t.join(TIMEOUT)
    return out[0] if out else f"no result within {TIMEOUT} s"


def load(builder, queue: str) -> Program:
    host = HostContext(work_queue=queue)
    return Program(BEFProgram.load(builder.build(), host), host, [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--queues", default="s,mstd:2")
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    set_recursion_limit()  # as tfrt.api.load does
    loop_n = 20_000 if opts.quick else 200_000
    calls = 2_000 if opts.quick else 20_000
    for q in opts.queues.split(","):
        loops = load(programs.loops(ticking=False), q)
        rec = load(programs.recursion(), q)
        try:
            print(f"== work queue {q}")
            before = max_rss_mib()
            print(f"  repeat, 1-kernel body        {per_unit(loops, 'repeat', loop_n, loop_n, opts.repeat)} µs/iteration"
                  f"   (peak RSS {before:.1f} -> {max_rss_mib():.1f} MiB)")
            print(f"  while, 2-kernel body         {per_unit(loops, 'while', loop_n, loop_n + 1, opts.repeat)} µs/iteration")
            n_async = loop_n // 10
            print(f"  repeat, async body           {per_unit(loops, 'async_repeat', n_async, n_async, opts.repeat)} µs/iteration")
            print(f"  recursion, 200 levels        {per_unit(rec, 'f', 200, 200, opts.repeat)} µs/level")
            print(f"  recursion, 5000 levels       {per_unit(rec, 'f', 5000, 5000, 1)} µs/level")
            loops.call("add", 1, 2)
            loops.call("add", 1, 2)
            call = loops.call
            dt = best(opts.repeat, lambda call=call: [call("add", i, 2) for i in range(calls)])
            print(f"  Program.call                 {dt / calls * 1e6:8.3f} µs/call")
            submit = loops.submit
            dt = best(opts.repeat, lambda submit=submit: [submit("add", i, 2).result() for i in range(calls)])
            print(f"  submit().result()            {dt / calls * 1e6:8.3f} µs/call")
        finally:
            loops.close()
            rec.close()


if __name__ == "__main__":
    main()
