"""BEF benchmarks: size against MLIR text, write and load speed, and loading
large tensors against numpy's own files.

    python benchmarks/bench_bef.py [--ops 10000] [--tensor-mb 100] [--repeat 3]

1. Size: a module of N kernels as MLIR text, and as BEF with and without the
   optional (bef -> mlir) sections.
2. Throughput on that module: ``write_bef`` (IR -> bytes) and ``read_bef``
   (bytes -> a fully verified ``BefFile``), in kernels per second.
3. Tensors: a module whose constants hold ``--tensor-mb`` MB of f32 data.
   Loading its BEF file (``read_bef`` on the path: mmap, verification and a
   numpy view per tensor) against ``np.load`` of the same arrays from an
   ``.npz`` and from ``.npy`` files (read, and memory-mapped), each with and
   without touching every byte afterwards (a sum).

It prints figures and asserts nothing.  The IR comes from xDSL's parser (or is
built directly), so the figures are the BEF layer's, not the frontend's.
"""

from __future__ import annotations

import argparse
import gc
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=10_000)
    parser.add_argument("--tensor-mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}")
    bench_kernels(args.ops, args.repeat)
    bench_tensors(args.tensor_mb, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
