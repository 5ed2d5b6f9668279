"""GPU timings: the compiled ``--device=gpu`` path, with and without CUDA graphs, beside torch.

    python benchmarks/bench_gpu.py [--json OUT.json] [--budget 200]
    python benchmarks/bench_gpu.py --smoke [--standin]     # tiny sizes, no GPU needed

On one GPU, in one run (the GPU is named in the output):

* launch overhead: a chain of N dependent element-wise adds on
  ``tensor<1024xf32>`` compiled at -O0 (so ``fuse-elementwise`` leaves one
  kernel per op), and a chain of N 16x16 matmuls at -O2, for N = 100 and
  400; per kernel = (t400 - t100) / 300.  torch eager runs the same chains.
* an MLP 784-512-512-10 at batch 1 (weights as constants, imported from
  ONNX): tfrt without and with CUDA graphs, torch eager, numpy on the CPU.
* ResNet-50 (tests/onnx/onnx_models.py, random weights) at batch 1 and 32,
  224x224, f32 and f16: tfrt without and with CUDA graphs, against
  torchvision's resnet50 (random weights, eval, NCHW) in eager mode and
  replayed as a ``torch.cuda.CUDAGraph``.
* each BEF's compile time (ONNX import separately), its first call (element-
  wise kernels compiled by NVRTC, constants uploaded, cuBLAS/cuDNN set up)
  and second call (where a CUDA graph is captured) against the steady state.

tfrt is timed end to end: a host numpy array in, a host numpy array out
(``prog.call``).  torch is timed both ways: device only (input already on the
GPU, ``torch.cuda.synchronize()`` after the call) and end to end (host input
copied in, ``.cpu()`` of the result).  Each figure is the median of N calls
after at least 3 warm-up calls.  Checks: ResNet-50 b1 f32 on the GPU against
the CPU (rtol 1e-3), and with CUDA graphs against without (equal).

``--smoke`` runs everything at tiny sizes with whatever is installed: without
a GPU, tfrt runs on the CPU (or, with ``--standin``, its GPU path runs on the
CuPy stand-in of tests/compiler/cupy_standin.py) and torch on the CPU; what
needs CUDA (graphs in torch) is skipped with the reason.  Without ``--smoke``
and without a GPU it says so and measures nothing.

Results go to ``--json`` after each section (a run cut short keeps what it
measured); the table is printed at the end.  It asserts nothing: failures
are recorded beside the numbers.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import platform
import statistics
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
START = time.perf_counter()

RESULT: dict = {"env": {}, "launch": {}, "mlp": {}, "resnet50": {}, "summary": {}, "errors": []}
ARGS: argparse.Namespace


# ---------------------------------------------------------------------------
# Bookkeeping


def log(msg: str = "") -> None:
    print(msg, flush=True)


def save() -> None:
    if ARGS.json:
        tmp = ARGS.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump(RESULT, f, indent=1, default=str)
        os.replace(tmp, ARGS.json)


def time_left() -> float:
    return ARGS.budget - (time.perf_counter() - START)


def error(where: str, exc: BaseException) -> str:
    msg = f"{type(exc).__name__}: {exc}".strip()
    if len(msg) > 400:
        msg = msg[:400] + "..."
    RESULT["errors"].append({"where": where, "error": msg, "trace": traceback.format_exc()[-2000:]})
    log(f"  [{where}] failed: {msg}")
    return msg


def steady(fn, runs: int, warmup: int = 3, sync=None) -> dict:
    """Median (and min) milliseconds of ``runs`` calls after ``warmup`` calls;
    fewer runs when a call is slow and the budget is short."""
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    times: list[float] = []
    deadline = time.perf_counter() + max(2.0, min(20.0, time_left() / 8))
    for i in range(runs):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t0)
        if i >= 2 and time.perf_counter() > deadline:
            break
    return {
        "median_ms": statistics.median(times) * 1e3,
        "min_ms": min(times) * 1e3,
        "runs": len(times),
    }


def timed_once(fn, sync=None):
    t0 = time.perf_counter()
    out = fn()
    if sync:
        sync()
    return out, (time.perf_counter() - t0) * 1e3


# ---------------------------------------------------------------------------
# What is here


class Env:
    tfrt_device = "cpu"  # where tfrt's tensor kernels run: "gpu" or "cpu"
    tfrt_real_gpu = False  # a real CUDA device under cupy (not the stand-in)
    torch = None  # the module, when installed
    torch_device = None  # "cuda", "cpu" (smoke only) or None
    torchvision = None
    cupy = None


def detect() -> dict:
    env = RESULT["env"]
    env.update(python=platform.python_version(), numpy=np.__version__, machine=platform.machine(),
               cpus=os.cpu_count(), smoke=bool(ARGS.smoke))  # fmt: skip
    if ARGS.standin:
        sys.path.insert(0, str(ROOT / "tests" / "compiler"))
        import cupy_standin

        if not cupy_standin.HAVE_CXX:
            log("(--standin needs g++; not used)")
        else:
            sys.modules["cupy"] = cupy_standin.make_module()
            env["cupy"] = "stand-in (tests/compiler/cupy_standin.py: CUDA C run as host C++)"
            env["gpu"] = "none: the CuPy stand-in on the CPU"
            Env.tfrt_device = "gpu"
    if "cupy" not in sys.modules:
        try:
            import cupy

            env["cupy"] = cupy.__version__
            Env.cupy = cupy
            n = cupy.cuda.runtime.getDeviceCount()
            if n > 0:
                props = cupy.cuda.runtime.getDeviceProperties(0)
                name = props["name"]
                env["gpu"] = name.decode() if isinstance(name, bytes) else str(name)
                env["gpu_memory_gib"] = round(props.get("totalGlobalMem", 0) / 2**30, 1)
                env["compute_capability"] = f"{props.get('major')}.{props.get('minor')}"
                env["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
                env["cuda_driver"] = cupy.cuda.runtime.driverGetVersion()
                env["gpu_count"] = n
                Env.tfrt_device = "gpu"
                Env.tfrt_real_gpu = True
                cupy.zeros(1).sum()  # the CUDA context, before any timing
        except Exception as exc:  # noqa: BLE001 - ImportError, or no driver/device
            env.setdefault("cupy", f"not usable: {type(exc).__name__}: {str(exc)[:200]}")
    try:
        import torch

        Env.torch = torch
        env["torch"] = torch.__version__
        env["torch_cuda"] = torch.version.cuda
        if torch.cuda.is_available():
            Env.torch_device = "cuda"
            env["torch_gpu"] = torch.cuda.get_device_name(0)
            env["cudnn"] = torch.backends.cudnn.version()
            env.setdefault("gpu", env["torch_gpu"])
            torch.zeros(1, device="cuda").sum().item()
        elif ARGS.smoke:
            Env.torch_device = "cpu"
            torch.set_num_threads(min(4, os.cpu_count() or 1))
    except ImportError:
        env["torch"] = "not installed"
    try:
        import torchvision

        env["torchvision"] = torchvision.__version__
        Env.torchvision = torchvision
    except Exception as exc:  # noqa: BLE001 - ImportError, or a build that does not match torch
        env["torchvision"] = f"not usable: {type(exc).__name__}: {str(exc)[:200]}"
    env.setdefault("gpu", "none")
    env["tfrt_device"] = Env.tfrt_device
    env["torch_device"] = Env.torch_device
    cache = Path(os.environ.get("CUPY_CACHE_DIR", Path.home() / ".cupy" / "kernel_cache"))
    env["cupy_kernel_cache_at_start"] = (
        f"{cache}: {'present' if cache.is_dir() else 'absent (cold)'}"
    )
    env["cuda_graph_compile_option"] = _have_cuda_graph_option()
    log("environment: " + ", ".join(f"{k}={v}" for k, v in env.items()))
    return env


def _have_cuda_graph_option() -> bool:
    import inspect

    from tfrt.passes.compiler import compile_module

    return "cuda_graph" in inspect.signature(compile_module).parameters


def torch_sync():
    if Env.torch_device == "cuda":
        Env.torch.cuda.synchronize()


# ---------------------------------------------------------------------------
# tfrt: compile, load, first calls, steady state


def compile_bef(text: str, *, device: str, cuda_graph: bool = False, **kw) -> bytes:
    from tfrt.passes.compiler import compile_text_to_bef

    if cuda_graph:
        kw["cuda_graph"] = True
    return compile_text_to_bef(text, "bench.mlir", device=device, **kw)


def count_kernels(text: str, **kw) -> int:
    """Tensor kernels left in the compiled function (transfers and constants not counted)."""
    from tfrt.dialects.syntax import parse_module
    from tfrt.passes.compiler import compile_module

    module = parse_module(text, "bench.mlir", allow_unregistered=True)
    compile_module(module, **kw)
    skip = (
        "tfrt_array.to_device",
        "tfrt_array.to_host",
        "tfrt_array.device_constant",
        "tfrt_array.constant",
    )
    return sum(
        1 for op in module.walk() if op.name.startswith("tfrt_array.") and op.name not in skip
    )


def tfrt_case(
    text: str, fn: str, args: list, *, device: str, cuda_graph: bool, runs: int, **kw
) -> dict:
    """Compile, load and time one program; ``rec["out"]`` holds the first result
    (dropped before the JSON is written)."""
    import tfrt.api

    rec: dict = {"device": device, "cuda_graph": cuda_graph}
    if cuda_graph and device != "gpu":
        rec["skipped"] = "CUDA graphs need the gpu device"
        return rec
    t0 = time.perf_counter()
    try:
        bef = compile_bef(text, device=device, cuda_graph=cuda_graph, **kw)
    except TypeError as exc:
        if cuda_graph and "cuda_graph" in str(exc):
            rec["error"] = "CUDA graphs: not available (compile_text_to_bef has no cuda_graph)"
            return rec
        raise
    rec["compile_s"] = time.perf_counter() - t0
    rec["bef_mb"] = len(bef) / 1e6
    t0 = time.perf_counter()
    prog = tfrt.api.load(bef)
    rec["load_ms"] = (time.perf_counter() - t0) * 1e3
    try:
        out, rec["first_call_ms"] = timed_once(lambda: prog.call(fn, *args))
        _, rec["second_call_ms"] = timed_once(lambda: prog.call(fn, *args))
        rec.update(steady(lambda: prog.call(fn, *args), runs))
        rec["out"] = out
        if cuda_graph:
            from tfrt.kernels.tfrt_array_gpu import graph_status

            graph_fn = prog.bef_program.function(f"{fn}.cuda_graph")
            rec["graph"] = graph_status(graph_fn) if graph_fn is not None else "not outlined"
    finally:
        prog.close()
    return rec


def public(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k != "out"}


def first(out):
    return np.asarray(out[0] if isinstance(out, (tuple, list)) else out)


def compare(a, b, rtol: float, atol_scale: float = 1e-3) -> dict:
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    scale = float(np.max(np.abs(b))) or 1.0
    err = float(np.max(np.abs(a - b)))
    ok = bool(np.allclose(a, b, rtol=rtol, atol=atol_scale * scale))
    return {
        "max_abs_err": err,
        "max_abs_ref": scale,
        "allclose": ok,
        "equal": bool(np.array_equal(a, b, equal_nan=True)),
        # Not finite (f16 overflow on a random-weight model, say), in each.
        "nonfinite": [int(np.sum(~np.isfinite(a))), int(np.sum(~np.isfinite(b)))],
    }


# ---------------------------------------------------------------------------
# 1. Launch overhead: chains of dependent small kernels


def add_chain(n: int) -> str:
    t = "tensor<1024xf32>"
    lines = [f"func.func @chain(%x: {t}) -> {t} {{", f"  %c = arith.constant dense<1.0> : {t}"]
    v = "%x"
    for i in range(n):
        lines.append(f"  %y{i} = arith.addf {v}, %c : {t}")
        v = f"%y{i}"
    lines += [f"  return {v} : {t}", "}"]
    return "\n".join(lines) + "\n"


def matmul_chain(n: int, k: int = 16) -> str:
    t = f"tensor<{k}x{k}xf32>"
    lines = [
        f"func.func @chain(%x: {t}) -> {t} {{",
        f"  %w = arith.constant dense<{1.0 / k}> : {t}",
        "  %zero = arith.constant 0.0 : f32",
        f"  %e = tensor.empty() : {t}",
        f"  %f = linalg.fill ins(%zero : f32) outs(%e : {t}) -> {t}",
    ]
    v = "%x"
    for i in range(n):
        lines.append(f"  %m{i} = linalg.matmul ins({v}, %w : {t}, {t}) outs(%f : {t}) -> {t}")
        v = f"%m{i}"
    lines += [f"  return {v} : {t}", "}"]
    return "\n".join(lines) + "\n"


def _per_kernel(times: dict, ns) -> dict:
    """Microseconds per kernel: the slope of the median call time from N1 to N2 kernels."""
    per = (times[ns[1]]["median_ms"] - times[ns[0]]["median_ms"]) / (ns[1] - ns[0]) * 1e3
    return {"per_kernel_us": per, "calls": {str(n): t for n, t in times.items()}}


def bench_launch() -> None:
    torch = Env.torch
    ns = (10, 40) if ARGS.smoke else (100, 400)
    out = RESULT["launch"]
    out["n"] = list(ns)
    kinds = {
        "add1024_O0": (add_chain, {"opt_level": 0}, lambda: np.ones(1024, np.float32)),
        "matmul16_O2": (matmul_chain, {}, lambda: np.ones((16, 16), np.float32)),
    }
    for kind, (make, kw, arg) in kinds.items():
        rec = out.setdefault(kind, {})
        x = arg()
        for graph in (False, True):
            label = f"tfrt {Env.tfrt_device}" + (" +graph" if graph else "")
            times = {}
            try:
                for n in ns:
                    text = make(n)
                    if n == ns[0] and not graph:
                        rec["kernels_per_chain"] = {
                            str(n): count_kernels(text, device=Env.tfrt_device, **kw)
                        }
                    r = tfrt_case(
                        text, "chain", [x], device=Env.tfrt_device, cuda_graph=graph, runs=20, **kw
                    )
                    if "error" in r or "skipped" in r:
                        rec[label] = {k: r[k] for k in ("error", "skipped") if k in r}
                        break
                    times[n] = public(r)
                else:
                    rec[label] = _per_kernel(times, ns)
                    per = rec[label]["per_kernel_us"]
                    log(
                        f"  launch {kind:12} {label:22} {per:8.1f} us/kernel  "
                        f"(N={ns[0]}: {times[ns[0]]['median_ms']:.2f} ms, N={ns[1]}: {times[ns[1]]['median_ms']:.2f} ms)"
                    )
            except Exception as exc:  # noqa: BLE001
                rec[label] = {"error": error(f"launch {kind} {label}", exc)}
        if torch is not None and Env.torch_device:
            for graph in (False, True):
                label = f"torch {Env.torch_device}" + (" +graph" if graph else "")
                try:
                    if graph and Env.torch_device != "cuda":
                        rec[label] = {"skipped": "CUDA graphs need a GPU"}
                        continue
                    times = {}
                    add = kind.startswith("add")
                    for n in ns:
                        xd = torch.from_numpy(x).to(Env.torch_device)
                        w = torch.full((16, 16), 1.0 / 16, device=Env.torch_device)

                        def chain(n=n, xd=xd, w=w, add=add):
                            y = xd
                            for _ in range(n):
                                y = y + 1.0 if add else y @ w
                            return y

                        fn = torch_graph(chain, xd)[0] if graph else chain
                        times[n] = steady(fn, 20, sync=torch_sync)
                    rec[label] = _per_kernel(times, ns)
                    log(f"  launch {kind:12} {label:22} {rec[label]['per_kernel_us']:8.1f} us/kernel")
                except Exception as exc:  # noqa: BLE001
                    rec[label] = {"error": error(f"launch {kind} {label}", exc)}
        save()


# ---------------------------------------------------------------------------
# torch helpers


def torch_graph(fn, static_x):
    """``fn(static_x)`` captured as a CUDA graph: (replay-and-sync callable, static output)."""
    torch = Env.torch
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_y = fn()
    torch.cuda.synchronize()
    return g.replay, static_y


def torch_rows(model, x_np: np.ndarray, runs: int, graph_ok: bool = True) -> dict:
    """Eager and CUDA-graph timings of ``model`` on ``x_np``: device only and end to end."""
    torch = Env.torch
    dev = Env.torch_device
    rows: dict = {}
    with torch.no_grad():
        xd = torch.from_numpy(x_np).to(dev)
        _, rows["first_call_ms"] = timed_once(lambda: model(xd), sync=torch_sync)
        rows["eager device-only"] = steady(lambda: model(xd), runs, sync=torch_sync)
        rows["eager end-to-end"] = steady(
            lambda: model(torch.from_numpy(x_np).to(dev)).cpu().numpy(), runs
        )
        if dev != "cuda":
            rows["graph"] = {"skipped": "CUDA graphs need a GPU"}
            return rows
        if not graph_ok:
            return rows
        try:
            static_x = xd.clone()
            replay, static_y = torch_graph(lambda: model(static_x), static_x)
            rows["graph device-only"] = steady(replay, runs, sync=torch_sync)
            host_x = torch.from_numpy(x_np)

            def e2e():
                static_x.copy_(host_x)
                replay()
                return static_y.cpu().numpy()

            rows["graph end-to-end"] = steady(e2e, runs)
        except Exception as exc:  # noqa: BLE001
            rows["graph"] = {"error": error("torch CUDA graph", exc)}
    return rows


# ---------------------------------------------------------------------------
# 2. MLP 784-512-512-10, batch 1


LAYERS = (784, 512, 512, 10)


def mlp_weights(layers):
    rng = np.random.default_rng(0)
    ws = []
    for k, n in itertools.pairwise(layers):
        ws.append((rng.standard_normal((k, n), dtype=np.float32) / np.sqrt(k)).astype(np.float32))
        ws.append((rng.standard_normal(n, dtype=np.float32) * 0.1).astype(np.float32))
    return ws


def mlp_onnx(batch: int, ws, layers):
    import onnx_models
    from onnx import TensorProto, helper

    nodes, h = [], "x"
    for i in range(3):
        nodes.append(helper.make_node("MatMul", [h, f"p{2 * i}"], [f"m{i}"]))
        nodes.append(
            helper.make_node("Add", [f"m{i}", f"p{2 * i + 1}"], [f"a{i}" if i < 2 else "y"])
        )
        if i < 2:
            nodes.append(helper.make_node("Relu", [f"a{i}"], [f"h{i}"]))
            h = f"h{i}"
    f32 = TensorProto.FLOAT
    return onnx_models.model(nodes, [("x", f32, [batch, layers[0]])], [("y", f32, [batch, layers[-1]])],
                             [(f"p{i}", w) for i, w in enumerate(ws)])  # fmt: skip


def bench_mlp() -> None:
    from tfrt.tools.import_onnx import import_onnx

    layers = (64, 32, 32, 10) if ARGS.smoke else LAYERS
    ws = mlp_weights(layers)
    x = np.random.default_rng(1).standard_normal((1, layers[0]), dtype=np.float32)
    rec = RESULT["mlp"]
    rec["layers"] = "-".join(map(str, layers))
    t0 = time.perf_counter()
    text = import_onnx(mlp_onnx(1, ws, layers))
    rec["import_s"] = time.perf_counter() - t0

    def numpy_mlp():
        h = np.maximum(x @ ws[0] + ws[1], 0)
        h = np.maximum(h @ ws[2] + ws[3], 0)
        return h @ ws[4] + ws[5]

    want = numpy_mlp()
    rec["numpy cpu"] = steady(numpy_mlp, 200)
    for graph in (False, True):
        label = f"tfrt {Env.tfrt_device}" + (" +graph" if graph else "")
        try:
            r = tfrt_case(text, "main", [x], device=Env.tfrt_device, cuda_graph=graph, runs=200)
            if "out" in r:
                r["check_vs_numpy"] = compare(first(r["out"]), want, rtol=1e-3)
            rec[label] = public(r)
        except Exception as exc:  # noqa: BLE001
            rec[label] = {"error": error(f"mlp {label}", exc)}
    torch = Env.torch
    if torch is not None and Env.torch_device:
        try:
            dev = Env.torch_device
            tw = [torch.from_numpy(w).to(dev) for w in ws]

            def model(t):
                h = torch.relu(t @ tw[0] + tw[1])
                h = torch.relu(h @ tw[2] + tw[3])
                return h @ tw[4] + tw[5]

            rows = torch_rows(model, x, 200)
            for k, v in rows.items():
                rec[f"torch {dev} {k}"] = v
        except Exception as exc:  # noqa: BLE001
            rec["torch"] = {"error": error("mlp torch", exc)}
    for k, v in rec.items():
        if isinstance(v, dict) and "median_ms" in v:
            log(f"  mlp {k:36} {v['median_ms'] * 1e3:9.1f} us")
    save()


# ---------------------------------------------------------------------------
# 3. ResNet-50


def resnet_onnx(batch: int):
    import onnx_models

    if ARGS.smoke:
        return onnx_models.resnet50(
            batch=batch, size=32, classes=10, widths=(8, 16, 32, 64), blocks=(1, 1, 1, 1)
        )
    return onnx_models.resnet50(batch=batch, size=224)


_TORCH_RESNETS: dict = {}
_OUTPUTS: dict = {}


def torch_resnet(dtype: str):
    """torchvision's resnet50 (random weights, eval) on the torch device, in ``dtype``."""
    cache = _TORCH_RESNETS
    if dtype in cache:
        return cache[dtype]
    torchvision = Env.torchvision
    torch = Env.torch
    torch.manual_seed(0)
    if "f32" not in cache:
        if ARGS.smoke:
            m = torchvision.models.resnet18(num_classes=10)
        else:
            m = torchvision.models.resnet50()
        cache["f32"] = m.eval().to(Env.torch_device)
    if dtype == "f16":
        cache["f16"] = copy.deepcopy(cache["f32"]).half()
    return cache[dtype]


def bench_resnet50() -> None:
    from tfrt.tools.import_onnx import import_onnx

    size = 32 if ARGS.smoke else 224
    cases = [(1, "f16"), (1, "f32"), (32, "f16"), (32, "f32")]
    models = {}
    for batch, dtype in cases:
        key = f"b{batch}_{dtype}"
        rec = RESULT["resnet50"].setdefault(key, {})
        if time_left() < (30 if batch == 1 else 45) and not ARGS.smoke:
            rec["skipped"] = f"out of time ({time_left():.0f} s left of --budget)"
            log(f"  resnet50 {key}: {rec['skipped']}")
            save()
            continue
        b = 2 if (ARGS.smoke and batch > 1) else batch
        rec["batch"], rec["size"], rec["dtype"] = b, size, dtype
        runs = 20 if batch == 1 else 10
        try:
            if b not in models:
                t0 = time.perf_counter()
                models[b] = resnet_onnx(b)
                rec["build_onnx_s"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            text = import_onnx(models[b], float16=(dtype == "f16"))
            rec["import_s"] = time.perf_counter() - t0
        except Exception as exc:  # noqa: BLE001
            rec["error"] = error(f"resnet50 {key} import", exc)
            save()
            continue
        npdt = np.float16 if dtype == "f16" else np.float32
        x = np.random.default_rng(1).standard_normal((b, 3, size, size)).astype(npdt)
        outs = {}
        # tfrt, then torch, then tfrt with CUDA graphs: the newest path last,
        # so that the rest is measured even where it fails badly.
        for step in ("tfrt", "torch", "tfrt+graph"):
            if step == "torch":
                resnet_torch(key, rec, x, batch, dtype, runs)
                save()
                continue
            graph = step == "tfrt+graph"
            label = f"tfrt {Env.tfrt_device}" + (" +graph" if graph else "")
            try:
                r = tfrt_case(
                    text, "main", [x], device=Env.tfrt_device, cuda_graph=graph, runs=runs
                )
                if "out" in r:
                    outs[graph] = first(r["out"])
                rec[label] = public(r)
                if "median_ms" in r:
                    log(
                        f"  resnet50 {key} {label:22} {r['median_ms']:8.2f} ms  (compile {r['compile_s']:.1f} s, "
                        f"first call {r['first_call_ms']:.0f} ms, second {r['second_call_ms']:.0f} ms)"
                    )
                else:
                    log(f"  resnet50 {key} {label:22} {r.get('error') or r.get('skipped')}")
            except Exception as exc:  # noqa: BLE001
                rec[label] = {"error": error(f"resnet50 {key} {label}", exc)}
            save()
        if False in outs and True in outs:
            rec["check_graph_vs_no_graph"] = compare(outs[True], outs[False], rtol=1e-3)
            log(f"  resnet50 {key} graph vs no graph: {rec['check_graph_vs_no_graph']}")
        if key == "b1_f32" and False in outs and Env.tfrt_device == "gpu":
            try:
                r = tfrt_case(text, "main", [x], device="cpu", cuda_graph=False, runs=3)
                rec["tfrt cpu"] = public(r)
                rec["check_gpu_vs_cpu"] = compare(outs[False], first(r["out"]), rtol=1e-3)
                log(f"  resnet50 {key} GPU vs CPU: {rec['check_gpu_vs_cpu']}")
            except Exception as exc:  # noqa: BLE001
                rec["check_gpu_vs_cpu"] = {"error": error("resnet50 b1_f32 cpu check", exc)}
        if key == "b1_f16" and False in outs:
            _OUTPUTS["b1_f16"] = outs[False]
        if key == "b1_f32" and False in outs and "b1_f16" in _OUTPUTS:
            rec["check_f16_vs_f32"] = compare(
                _OUTPUTS["b1_f16"], outs[False], rtol=5e-2, atol_scale=5e-2
            )
        save()


def resnet_torch(key: str, rec: dict, x: np.ndarray, batch: int, dtype: str, runs: int) -> None:
    """torchvision's ResNet-50 on the same input: eager and CUDA graph, device only and end to end."""
    if Env.torch is None or not Env.torch_device:
        return
    if Env.torchvision is None:
        rec["torch"] = {"skipped": f"torchvision {RESULT['env'].get('torchvision')}"}
        return
    try:
        model = torch_resnet(dtype)
        rows = torch_rows(model, x, runs)
        for k, v in rows.items():
            rec[f"torch {Env.torch_device} {k}"] = v
            if isinstance(v, dict) and "median_ms" in v:
                log(f"  resnet50 {key} torch {k:22} {v['median_ms']:8.2f} ms")
        if batch == 1 and Env.torch_device == "cuda":
            torch = Env.torch
            torch.backends.cudnn.benchmark = True
            try:
                with torch.no_grad():
                    xd = torch.from_numpy(x).cuda()
                    r = steady(lambda: model(xd), runs, warmup=5, sync=torch_sync)
                rec["torch cuda eager device-only (cudnn.benchmark)"] = r
                log(
                    f"  resnet50 {key} torch eager device-only (cudnn.benchmark) {r['median_ms']:8.2f} ms"
                )
            finally:
                torch.backends.cudnn.benchmark = False
    except Exception as exc:  # noqa: BLE001
        rec["torch"] = {"error": error(f"resnet50 {key} torch", exc)}


# ---------------------------------------------------------------------------
# Summary


def _ms(rec: dict, key: str):
    v = rec.get(key)
    return v.get("median_ms") if isinstance(v, dict) else None


def summarize() -> None:
    s = RESULT["summary"]
    dev = RESULT["env"].get("tfrt_device", Env.tfrt_device)
    tdev = RESULT["env"].get("torch_device", Env.torch_device)
    lines = [f"GPU: {RESULT['env'].get('gpu')}  (tfrt on {dev}, torch on {tdev})", ""]
    lines.append(
        "milliseconds per call, median; tfrt and 'e2e' from a host array to a host array, "
        "'dev' with the input on the device (torch.cuda.synchronize() after each call)"
    )
    lines.append(f"| {'model':18} | {'tfrt':>9} | {'tfrt+graph':>10} | {'torch eager e2e':>15} | "
                 f"{'torch eager dev':>15} | {'torch graph e2e':>15} | {'torch graph dev':>15} |")  # fmt: skip
    lines.append(
        "|" + "|".join(["-" * 20, "-" * 11, "-" * 12, "-" * 17, "-" * 17, "-" * 17, "-" * 17]) + "|"
    )

    def fmt(v, scale=1.0):
        return f"{v * scale:.3f}" if v is not None else "-"

    rows = [("MLP b1", RESULT["mlp"], 1.0)]
    rows += [(f"ResNet-50 {k}", v, 1.0) for k, v in RESULT["resnet50"].items()]
    for name, rec, scale in rows:
        lines.append(
            f"| {name:18} | {fmt(_ms(rec, f'tfrt {dev}')):>9} | {fmt(_ms(rec, f'tfrt {dev} +graph')):>10} | "
            f"{fmt(_ms(rec, f'torch {tdev} eager end-to-end')):>15} | {fmt(_ms(rec, f'torch {tdev} eager device-only')):>15} | "
            f"{fmt(_ms(rec, f'torch {tdev} graph end-to-end')):>15} | {fmt(_ms(rec, f'torch {tdev} graph device-only')):>15} |"
        )  # fmt: skip
    np_ms = _ms(RESULT["mlp"], "numpy cpu")
    if np_ms is not None:
        lines.append(f"(MLP b1 numpy on the CPU: {np_ms:.3f} ms)")
    lines.append("")
    lines.append("launch overhead, us per kernel ((t(N2) - t(N1)) / (N2 - N1)):")
    for kind, rec in RESULT["launch"].items():
        if not isinstance(rec, dict):
            continue
        cells = []
        for label, v in rec.items():
            if isinstance(v, dict) and "per_kernel_us" in v:
                cells.append(f"{label}: {v['per_kernel_us']:.1f}")
            elif isinstance(v, dict) and ("error" in v or "skipped" in v):
                cells.append(f"{label}: {v.get('error') or v.get('skipped')}")
        kpc = rec.get("kernels_per_chain")
        lines.append(
            f"  {kind}: " + "; ".join(cells) + (f"  (kernels per chain: {kpc})" if kpc else "")
        )
    lines.append("")
    lines.append("compile (s) / first call (ms) / second call (ms) / steady (ms):")
    for key, rec in RESULT["resnet50"].items():
        for label in (f"tfrt {dev}", f"tfrt {dev} +graph"):
            r = rec.get(label)
            if isinstance(r, dict) and "median_ms" in r:
                lines.append(f"  ResNet-50 {key} {label:18} import {rec.get('import_s', 0):5.1f} s, compile "
                             f"{r['compile_s']:5.1f} s, first {r['first_call_ms']:8.1f}, second "
                             f"{r['second_call_ms']:8.1f}, steady {r['median_ms']:8.2f}")  # fmt: skip
    # The issue's target: ResNet-50 b1 f16 at least 28% faster than torch eager.
    rec = RESULT["resnet50"].get("b1_f16", {})
    torch_e2e = _ms(rec, f"torch {tdev} eager end-to-end")
    torch_dev = _ms(rec, f"torch {tdev} eager device-only")
    lines.append("")
    for label in (f"tfrt {dev}", f"tfrt {dev} +graph"):
        ours = _ms(rec, label)
        if ours is None or torch_e2e is None:
            continue
        speedup = torch_e2e / ours
        s[f"b1_f16 {label} vs torch eager end-to-end"] = speedup
        verdict = "MET" if speedup >= 1.28 else "NOT met"
        lines.append(f"TARGET ResNet-50 b1 f16, {label}: {ours:.3f} ms vs torch eager end-to-end {torch_e2e:.3f} ms "
                     f"= {speedup:.2f}x ({(1 - ours / torch_e2e) * 100:+.0f}% time saved); >= 1.28x: {verdict}")  # fmt: skip
        if torch_dev is not None:
            s[f"b1_f16 {label} vs torch eager device-only"] = torch_dev / ours
            lines.append(
                f"    (vs torch eager device-only {torch_dev:.3f} ms: {torch_dev / ours:.2f}x)"
            )
    if not any(k.startswith("b1_f16") for k in s):
        lines.append("TARGET ResNet-50 b1 f16 vs torch eager: not measured")
    for key, rec in RESULT["resnet50"].items():
        for check in ("check_gpu_vs_cpu", "check_graph_vs_no_graph", "check_f16_vs_f32"):
            if check in rec:
                lines.append(f"{key} {check}: {rec[check]}")
    for check in ("tfrt gpu", "tfrt gpu +graph"):
        c = (
            RESULT["mlp"].get(check, {}).get("check_vs_numpy")
            if isinstance(RESULT["mlp"].get(check), dict)
            else None
        )
        if c:
            lines.append(f"MLP {check} vs numpy: {c}")
    lines.append("")
    lines.append("CUDA graphs (calls before capture, graphs captured, why not):")

    def graphs(path: str, node) -> None:
        if isinstance(node, dict):
            if "graph" in node:
                lines.append(f"  {path}: {node['graph']}")
            for k, v in node.items():
                if k != "graph":
                    graphs(f"{path}/{k}" if path else str(k), v)

    graphs("", {k: RESULT.get(k) for k in ("mlp", "resnet50", "launch")})
    if RESULT["errors"]:
        lines.append("")
        lines.append(f"{len(RESULT['errors'])} error(s):")
        lines += [f"  {e['where']}: {e['error']}" for e in RESULT["errors"]]
    s["table"] = "\n".join(lines)
    log("")
    log(s["table"])
    save()


def main() -> int:
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny sizes; runs without a GPU")
    ap.add_argument(
        "--standin", action="store_true", help="with --smoke: the CuPy stand-in as cupy"
    )
    ap.add_argument("--json", default=None, help="write the results here (after each section)")
    ap.add_argument(
        "--merge",
        action="store_true",
        help="keep the other sections' results already in --json (one process per section)",
    )
    ap.add_argument(
        "--summary", action="store_true", help="only print the table of the results in --json"
    )
    ap.add_argument(
        "--budget",
        type=float,
        default=200.0,
        help="seconds; later ResNet cases are skipped past it",
    )
    ap.add_argument(
        "--only", default="resnet50,launch,mlp", help="sections to run, in order (comma-separated)"
    )
    ARGS = ap.parse_args()
    if ARGS.standin and not ARGS.smoke:
        ap.error("--standin is for --smoke runs")
    sections = {"launch": bench_launch, "mlp": bench_mlp, "resnet50": bench_resnet50}
    only = [name for name in ARGS.only.split(",") if name]
    if any(name not in sections for name in only):
        ap.error(f"--only: sections are {', '.join(sections)}")
    if (ARGS.merge or ARGS.summary) and ARGS.json and os.path.exists(ARGS.json):
        with open(ARGS.json) as f:
            previous = json.load(f)
        for key, value in previous.items():
            RESULT[key] = value
    if ARGS.summary:
        if not (ARGS.json and os.path.exists(ARGS.json)):
            log("no results (no --json file)")
            return 1
        summarize()
        return 0
    for name in only:
        RESULT[name] = {}
    sys.path.insert(0, str(ROOT / "tests" / "onnx"))
    detect()
    save()
    if Env.tfrt_device != "gpu" and not ARGS.smoke:
        log("no usable GPU (cupy with a CUDA device): nothing measured")
        RESULT["summary"]["table"] = "no usable GPU: nothing measured"
        save()
        return 0
    for name in only:
        log(f"== {name} ({time.perf_counter() - START:.0f} s)")
        try:
            sections[name]()
        except Exception as exc:  # noqa: BLE001
            error(name, exc)
        save()
    summarize()
    log(f"bench_gpu: done in {time.perf_counter() - START:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
