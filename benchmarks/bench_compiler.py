"""Compiler benchmarks: compile speed, and an MLP written in linalg.

    python benchmarks/bench_compiler.py [--ops 1000] [--repeat 200]

1. Compile speed: a chain of N high-level ops (linalg.generic, linalg.matmul,
   arith on scalars) from text to BEF bytes through the default pipeline
   (parse, verify, lower, fold, fuse, place, chains, buffer reuse, write BEF),
   in high-level ops per second.
2. An MLP 784-512-512-10 written in func/linalg/arith (weights as function
   arguments), compiled with the default pipeline and called through
   ``tfrt.api`` at batch 1 and 64, against the same model as numpy called
   directly, torch eager and onnxruntime (each when installed).  Median of
   ``--repeat`` calls after warm-up, the engines taking turns in 20 rounds.
3. What a user feels end to end: a fresh ``bef_executor`` process that loads
   the compiled BEF, reads the input and weights from .npy files and runs one
   call, against a fresh Python process doing the same with numpy.

It prints numbers and ratios and asserts nothing.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

LAYERS = (784, 512, 512, 10)


# ---------------------------------------------------------------------------
# Programs


def mlp_program(batch: int, layers=LAYERS) -> str:
    """``@mlp(x, w1, b1, w2, b2, w3, b3)``: relu layers, a linear last layer."""
    args = [f"%x: tensor<{batch}x{layers[0]}xf32>"]
    for i, (k, n) in enumerate(zip(layers, layers[1:]), 1):
        args += [f"%w{i}: tensor<{k}x{n}xf32>", f"%b{i}: tensor<{n}xf32>"]
    out_t = f"tensor<{batch}x{layers[-1]}xf32>"
    lines = [
        "#id = affine_map<(d0, d1) -> (d0, d1)>",
        "#row = affine_map<(d0, d1) -> (d1)>",
        f"func.func @mlp({', '.join(args)}) -> {out_t} {{",
        "  %zero = arith.constant 0.0 : f32",
    ]
    h = "%x"
    last = len(layers) - 1
    for i, (k, n) in enumerate(zip(layers, layers[1:]), 1):
        t = f"tensor<{batch}x{n}xf32>"
        body = (
            "      %s = arith.addf %p, %b : f32\n"
            + ("      %r = arith.maximumf %s, %zero : f32\n      linalg.yield %r : f32" if i < last
               else "      linalg.yield %s : f32")
        )
        lines += [
            f"  %e{i} = tensor.empty() : {t}",
            f"  %f{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {t}) -> {t}",
            f"  %m{i} = linalg.matmul ins({h}, %w{i} : tensor<{batch}x{k}xf32>, tensor<{k}x{n}xf32>)"
            f" outs(%f{i} : {t}) -> {t}",
            f"  %h{i} = linalg.generic {{indexing_maps = [#id, #row, #id], "
            f'iterator_types = ["parallel", "parallel"]}} '
            f"ins(%m{i}, %b{i} : {t}, tensor<{n}xf32>) outs(%e{i} : {t}) {{",
            "    ^bb0(%p: f32, %b: f32, %o: f32):",
            body,
            f"  }} -> {t}",
        ]
        h = f"%h{i}"
    lines += [f"  return {h} : {out_t}", "}"]
    return "\n".join(lines) + "\n"


def chain_program(n_ops: int) -> str:
    """A function of ``n_ops`` high-level ops: generics, matmuls and scalar arith."""
    t = "tensor<4x4xf32>"
    lines = [
        "#id = affine_map<(d0, d1) -> (d0, d1)>",
        f"func.func @chain(%x: {t}, %s: f32) -> ({t}, f32) {{",
        f"  %e = tensor.empty() : {t}",
    ]
    count = 1
    v, s = "%x", "%s"
    i = 0
    while count < n_ops:
        kind = i % 3
        if kind == 0:
            lines += [
                f"  %g{i} = linalg.generic {{indexing_maps = [#id, #id], "
                f'iterator_types = ["parallel", "parallel"]}} ins({v} : {t}) outs(%e : {t}) {{',
                "    ^bb0(%a: f32, %o: f32):",
                "      %q = arith.mulf %a, %a : f32",
                "      %w = arith.addf %q, %a : f32",
                "      linalg.yield %w : f32",
                f"  }} -> {t}",
            ]
            v = f"%g{i}"
            count += 1
        elif kind == 1:
            lines.append(
                f"  %m{i} = linalg.matmul ins({v}, {v} : {t}, {t}) outs(%e : {t}) -> {t}"
            )
            v = f"%m{i}"
            count += 1
        else:
            lines.append(f"  %s{i} = arith.mulf {s}, {s} : f32")
            lines.append(f"  %t{i} = arith.addf %s{i}, {s} : f32")
            s = f"%t{i}"
            count += 2
        i += 1
    lines += [f"  return {v}, {s} : {t}, f32", "}"]
    return "\n".join(lines) + "\n", count


# ---------------------------------------------------------------------------
# Helpers


def _median_us(fn, repeat: int, warmup: int = 10) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def _interleaved_us(fns: dict, repeat: int, rounds: int = 20, warmup: int = 10) -> dict:
    """Median microseconds per call of each function, measured in turns.

    Each round times ``repeat // rounds`` calls of every function in turn, so
    that a slow spell of the machine (frequency, a neighbour) falls on all of
    them alike instead of on whichever ran during it."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    per_round = max(1, repeat // rounds)
    times: dict = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            for _ in range(per_round):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) * 1e6 for name, ts in times.items()}


def _weights(seed: int = 0):
    rng = np.random.default_rng(seed)
    ws = []
    for k, n in zip(LAYERS, LAYERS[1:]):
        ws.append((rng.standard_normal((k, n), dtype=np.float32) / np.sqrt(k)).astype(np.float32))
        ws.append(rng.standard_normal(n, dtype=np.float32) * 0.1)
    return ws


def numpy_mlp(x, w1, b1, w2, b2, w3, b3):
    h = np.maximum(x @ w1 + b1, 0)
    h = np.maximum(h @ w2 + b2, 0)
    return h @ w3 + b3


def compile_bef(text: str) -> bytes:
    from tfrt.passes.compiler import compile_text_to_bef

    return compile_text_to_bef(text, "bench.mlir")


# ---------------------------------------------------------------------------
# 1. Compile speed


def bench_compile(n_ops: int) -> None:
    from tfrt.dialects.syntax import parse_module

    text, count = chain_program(n_ops)
    # Every op as MLIR counts them (`-mlir-print-op-stats`): the ops in
    # linalg bodies, the yields and the hidden bodies of named ops included.
    every = sum(1 for _ in parse_module(text, "bench.mlir", allow_unregistered=True).walk()) - 1
    compile_bef(text)  # warm the imports and caches
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        data = compile_bef(text)
        times.append(time.perf_counter() - t0)
    dt = statistics.median(times)
    print(f"compile: {count} high-level ops ({every} ops counting region bodies), text -> BEF "
          f"in {dt * 1e3:.0f} ms (median of 3) = {count / dt:,.0f} high-level ops/s "
          f"(target >= 5,000), {every / dt:,.0f} ops/s counting bodies; BEF {len(data):,} bytes")


# ---------------------------------------------------------------------------
# 2. MLP steady state


def bench_mlp(batch: int, repeat: int) -> None:
    import tfrt.api

    ws = _weights()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, LAYERS[0]), dtype=np.float32)
    prog = tfrt.api.load(compile_bef(mlp_program(batch)))
    got = prog.call("mlp", x, *ws)
    want = numpy_mlp(x, *ws)
    err = float(np.max(np.abs(got - want)))

    engines = {
        "tfrt (compiled linalg)": lambda: prog.call("mlp", x, *ws),
        "numpy direct": lambda: numpy_mlp(x, *ws),
    }
    try:
        import torch

        torch.set_num_threads(1)
        tx = torch.from_numpy(x)
        tw = [torch.from_numpy(w) for w in ws]

        def torch_mlp():
            with torch.no_grad():
                h = torch.relu(tx @ tw[0] + tw[1])
                h = torch.relu(h @ tw[2] + tw[3])
                return h @ tw[4] + tw[5]

        engines["torch eager"] = torch_mlp
    except ImportError:
        engines["torch eager"] = None
    engines["onnxruntime"] = _ort_mlp(x, ws)
    measured = _interleaved_us({k: f for k, f in engines.items() if f is not None}, repeat)
    rows = [(name, measured.get(name)) for name in engines]
    base = rows[0][1]
    print(f"MLP {'-'.join(map(str, LAYERS))} batch {batch} (max |error| vs numpy {err:.1e}):")
    for name, us in rows:
        if us is None:
            print(f"  {name:24s}  not installed")
        else:
            print(f"  {name:24s} {us:9.1f} us   tfrt/this = {base / us:5.2f}x")
    prog.close()


def _ort_mlp(x, ws):
    """A function that runs the MLP on onnxruntime (None when it is not installed)."""
    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    inits = [numpy_helper.from_array(w, f"p{i}") for i, w in enumerate(ws)]
    nodes = []
    h = "x"
    for layer in range(3):
        w, b = f"p{2 * layer}", f"p{2 * layer + 1}"
        nodes.append(helper.make_node("MatMul", [h, w], [f"m{layer}"]))
        nodes.append(helper.make_node("Add", [f"m{layer}", b], [f"a{layer}"]))
        if layer < 2:
            nodes.append(helper.make_node("Relu", [f"a{layer}"], [f"h{layer}"]))
            h = f"h{layer}"
        else:
            h = f"a{layer}"
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info(h, TensorProto.FLOAT, [x.shape[0], LAYERS[-1]])],
        inits,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    feed = {"x": x}
    return lambda: sess.run(None, feed)


# ---------------------------------------------------------------------------
# 3. End to end: a fresh process per run


def bench_end_to_end(runs: int = 5) -> None:
    ws = _weights()
    x = np.random.default_rng(1).standard_normal((1, LAYERS[0]), dtype=np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "mlp.bef").write_bytes(compile_bef(mlp_program(1)))
        np.save(d / "x.npy", x)
        for i, w in enumerate(ws):
            np.save(d / f"p{i}.npy", w)
        exe = Path(sys.executable).parent / "bef_executor"
        cmd = [str(exe), str(d / "mlp.bef"), "--function=mlp", f"--input=@{d / 'x.npy'}"]
        cmd += [f"--input=@{d / f'p{i}.npy'}" for i in range(len(ws))]
        cmd += [f"--output=@{d / 'y.npy'}"]
        script = (
            "import numpy as np\n"
            f"d = {str(d)!r}\n"
            "x = np.load(d + '/x.npy'); p = [np.load(f'{d}/p{i}.npy') for i in range(6)]\n"
            "h = np.maximum(x @ p[0] + p[1], 0); h = np.maximum(h @ p[2] + p[3], 0)\n"
            "np.save(d + '/y_np.npy', h @ p[4] + p[5])\n"
        )
        # As installed from a wheel: modules compiled to bytecode once (the
        # first, untimed run writes it when the environment forbids it).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        ours, theirs = [], []
        for i in range(runs + 1):
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if i:
                ours.append(time.perf_counter() - t0)
            if proc.returncode:
                print("end to end: bef_executor failed:", proc.stderr.strip()[:300])
                return
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", script], check=True, env=env)
            if i:
                theirs.append(time.perf_counter() - t0)
        same = np.allclose(np.load(d / "y.npy"), np.load(d / "y_np.npy"), rtol=1e-4, atol=1e-5)
        a, b = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
        print(f"end to end (fresh process: start, load BEF + 7 .npy inputs, one call, save): "
              f"bef_executor {a:.0f} ms, python+numpy {b:.0f} ms, ratio {a / b:.2f}x; "
              f"results agree: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    bench_compile(args.ops)
    for batch in (1, 64):
        bench_mlp(batch, args.repeat)
    bench_end_to_end()


if __name__ == "__main__":
    main()
