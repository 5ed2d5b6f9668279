"""BEF benchmarks: size against MLIR text, write and load speed, and loading
large tensors against numpy's own files.

    python benchmarks/bench_bef.py [--ops 10000] [--tensor-mb 100] [--repeat 3]
                                   [--chain 20000,100000]

1. Size: a module of N kernels as MLIR text, and as BEF with and without the
   optional (bef -> mlir) sections.
2. Throughput on that module: ``write_bef`` (IR -> bytes) and ``read_bef``
   (bytes -> a fully verified ``BefFile``), in kernels per second.
3. Tensors: a module whose constants hold ``--tensor-mb`` MB of f32 data.
   Loading its BEF file (``read_bef`` on the path: mmap, verification and a
   numpy view per tensor) against ``np.load`` of the same arrays from an
   ``.npz`` and from ``.npy`` files (read, and memory-mapped), each with and
   without touching every byte afterwards (a sum).

4. End to end, what a user feels: fresh ``bef_executor`` processes on a
   chain of N ``tfrt.add.i32`` kernels (the slope between two sizes is the
   cost per kernel of loading, checking, planning and running it), a
   one-kernel program and ``--help`` cold, beside a fresh CPython process
   running the same straight-line program from a ``.py`` file; and loading a
   file whose big function is never called, against a one-kernel file.

It prints figures and asserts nothing.  The IR comes from xDSL's parser (or is
built directly), so the figures are the BEF layer's, not the frontend's.
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    Builtin,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float32Type,
    ModuleOp,
    TensorType,
    UnregisteredOp,
)
from xdsl.dialects.func import Func, FuncOp
from xdsl.ir import Block, Region
from xdsl.parser import Parser

from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def kernel_module_text(n: int) -> str:
    lines = [
        "func.func @chain(%a: i32) -> i32 {",
        '  %v0 = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32 loc("chain.mlir":2:3)',
    ]
    for i in range(1, n):
        lines.append(
            f'  %v{i} = "tfrt.add.i32"(%v{i - 1}, %a) {{step = {i % 7} : i32}}'
            f' : (i32, i32) -> i32 loc("chain.mlir":{i + 2}:3)'
        )
    lines.append(f'  "tfrt.return"(%v{n - 1}) : (i32) -> ()')
    lines.append("}")
    return "\n".join(lines) + "\n"


def parse(text: str) -> ModuleOp:
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    return Parser(ctx, text, "chain.mlir").parse_module()


def tensor_module(arrays: list[np.ndarray]) -> ModuleOp:
    block = Block()
    const = UnregisteredOp.with_name("tfrt_dht.constant.f32")
    for arr in arrays:
        dense = DenseIntOrFPElementsAttr(
            TensorType(Float32Type(), list(arr.shape)), BytesAttr(arr.tobytes())
        )
        block.add_op(const.create(attributes={"value": dense}, result_types=[Float32Type()]))
    block.add_op(UnregisteredOp.with_name("tfrt.return").create())
    return ModuleOp([FuncOp("weights", ([], []), Region(block))])


def bench_kernels(n: int, repeat: int) -> None:
    print(f"== a function of {n} kernels")
    text = kernel_module_text(n)
    start = time.perf_counter()
    module = parse(text)
    print(f"  parse (xDSL, for reference)     {time.perf_counter() - start:8.3f} s")
    full = write_bef(module)
    lean = write_bef(module, optional_sections=False)
    size = len(text.encode())
    print(f"  MLIR text                      {size / 1e3:9.1f} kB")
    print(f"  BEF                            {len(full) / 1e3:9.1f} kB ({len(full) / size:.2f} x text)")
    print(f"  BEF without optional sections  {len(lean) / 1e3:9.1f} kB ({len(lean) / size:.2f} x text)")
    t = best(lambda: write_bef(module), repeat)
    print(f"  write_bef                      {t * 1e3:9.1f} ms  ({n / t / 1e3:.0f} k kernels/s, {len(full) / t / 1e6:.1f} MB/s)")
    t = best(lambda: read_bef(full), repeat)
    print(f"  read_bef (verified)            {t * 1e3:9.1f} ms  ({n / t / 1e3:.0f} k kernels/s, {len(full) / t / 1e6:.1f} MB/s)")
    t = best(lambda: read_bef(lean), repeat)
    print(f"  read_bef, no optional sections {t * 1e3:9.1f} ms  ({n / t / 1e3:.0f} k kernels/s)")
    t = best(lambda: read_bef(full, lazy=True), repeat)
    print(f"  read_bef(lazy=True)            {t * 1e3:9.3f} ms  (the header only)")
    t = best(lambda: read_bef(full, lazy=True).functions[0].columns, repeat)
    print(f"  lazy + one body checked        {t * 1e3:9.1f} ms  ({n / t / 1e3:.0f} k kernels/s)")


def bench_tensors(total_mb: int, repeat: int) -> None:
    count = 25
    elements = total_mb * 1_000_000 // 4 // count
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(elements, dtype=np.float32) for _ in range(count)]
    print(f"== {count} f32 tensors, {count * elements * 4 / 1e6:.0f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        start = time.perf_counter()
        data = write_bef(tensor_module(arrays))
        print(f"  build IR + write_bef           {time.perf_counter() - start:8.3f} s  ({len(data) / 1e6:.1f} MB)")
        bef_path = tmp_path / "weights.bef"
        bef_path.write_bytes(data)
        del data
        npz_path = tmp_path / "weights.npz"
        np.savez(npz_path, *arrays)
        npy_paths = []
        for i, arr in enumerate(arrays):
            npy_paths.append(tmp_path / f"w{i}.npy")
            np.save(npy_paths[-1], arr)

        def bef_tensors():
            bef = read_bef(bef_path)
            fn = bef.functions[0]
            return [bef.attribute(k.attrs[0]) for k in fn.kernels]

        def npz_tensors():
            with np.load(npz_path) as z:
                return [z[name] for name in z.files]

        def npy_tensors():
            return [np.load(p) for p in npy_paths]

        def npy_mmap_tensors():
            return [np.load(p, mmap_mode="r") for p in npy_paths]

        def touched(load):
            return lambda: sum(float(a.sum()) for a in load())

        for name, load in [
            ("read_bef (mmap, verified)", bef_tensors),
            ("np.load .npz", npz_tensors),
            ("np.load .npy", npy_tensors),
            ("np.load .npy, mmap_mode='r'", npy_mmap_tensors),
        ]:
            t_load = best(load, repeat)
            t_touch = best(touched(load), repeat)
            print(f"  {name:30} load {t_load * 1e3:8.2f} ms   load + sum {t_touch * 1e3:8.1f} ms")
        bef = bef_tensors()
        assert all(np.array_equal(a, b) for a, b in zip(bef, arrays))  # same data, or the figures mean nothing
        del bef


def chain_text(n: int) -> str:
    """``@chain``: one constant and n - 1 dependent ``tfrt.add.i32``."""
    lines = ["func.func @chain() -> i32 {", "  %v0 = tfrt.constant.i32 1"]
    lines += [f"  %v{i} = tfrt.add.i32 %v{i - 1}, %v0" for i in range(1, n)]
    lines += [f"  tfrt.return %v{n - 1} : i32", "}"]
    return "\n".join(lines) + "\n"


def chain_python(n: int) -> str:
    """The same program as a Python script."""
    lines = ["def add(a, b):", "    return a + b", "v0 = 1"]
    lines += [f"v{i} = add(v{i - 1}, v0)" for i in range(1, n)]
    lines.append(f"print(v{n - 1})")
    return "\n".join(lines) + "\n"


def process_time(cmd: list[str], repeat: int) -> float:
    """The best wall time of a fresh process running ``cmd``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def bench_end_to_end(sizes: list[int], repeat: int) -> None:
    from tfrt.dialects.syntax import parse_module
    from tfrt.executor import BEFProgram
    from tfrt.host_context import HostContext

    bindir = Path(sys.executable).parent
    bef_executor = str(bindir / "bef_executor")
    print(f"== end to end: fresh processes (best of {repeat})")
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        bef_times, py_times, sizes_bef, sizes_text = {}, {}, {}, {}
        for n in [1, *sizes]:
            text = chain_text(n)
            data = write_bef(parse_module(text, f"chain{n}.mlir"))
            path = tmp_path / f"chain{n}.bef"
            path.write_bytes(data)
            script = tmp_path / f"chain{n}.py"
            script.write_text(chain_python(n))
            sizes_bef[n], sizes_text[n] = len(data), len(text.encode())
            bef_times[n] = process_time([bef_executor, str(path)], repeat)
            py_times[n] = process_time([sys.executable, "-S", str(script)], repeat)
            print(f"  chain of {n:>7}: bef_executor {bef_times[n]:6.3f} s, python {py_times[n]:6.3f} s;"
                  f" BEF {sizes_bef[n] / n:5.1f} bytes/kernel, MLIR text {sizes_text[n] / n:5.1f} bytes/op")
        lo, hi = sizes[0], sizes[-1]
        slope = (bef_times[hi] - bef_times[lo]) / (hi - lo) * 1e6
        py_slope = (py_times[hi] - py_times[lo]) / (hi - lo) * 1e6
        print(f"  per kernel (slope {lo} -> {hi}): bef_executor {slope:.2f} us, CPython from .py {py_slope:.2f} us"
              f" ({slope / py_slope:.2f} x); target <= 1 us")
        print(f"  BEF size / MLIR text size: {sizes_bef[hi] / sizes_text[hi]:.2f} (target <= 1)")
        t_help = process_time([bef_executor, "--help"], repeat)
        print(f"  bef_executor --help {t_help * 1e3:6.0f} ms; one-kernel program {bef_times[1] * 1e3:6.0f} ms"
              f" (target < 150 ms); python -S -c pass"
              f" {process_time([sys.executable, '-S', '-c', 'pass'], repeat) * 1e3:4.0f} ms")

        # Loading costs the header: a big function that is never called.
        def load(path: Path) -> None:
            host = HostContext()
            BEFProgram.load(read_bef(path, lazy=True), host)
            host.shutdown()

        small = best(lambda: load(tmp_path / "chain1.bef"), repeat)
        big = best(lambda: load(tmp_path / f"chain{hi}.bef"), repeat)
        print(f"  load, nothing called: 1 kernel {small * 1e3:.2f} ms, {hi} kernels {big * 1e3:.2f} ms"
              f" ({big / small:.2f} x)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=10_000)
    parser.add_argument("--tensor-mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chain", default="20000,100000", help="two chain sizes for the end-to-end slope")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}")
    bench_kernels(args.ops, args.repeat)
    bench_tensors(args.tensor_mb, args.repeat)
    bench_end_to_end([int(v) for v in args.chain.split(",")], args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
