"""ResNet-50 at batch 1 on the CPU: this runtime beside numpy, torch and onnxruntime.

    python benchmarks/bench_resnet50.py [--threads 2] [--runs 20] [--size 224]

The model is ResNet-50 (torchvision's layout) with random weights, built with
``onnx.helper`` (tests/onnx/onnx_models.py).  Each engine runs the same
weights, ``--threads`` threads, the median of ``--runs`` calls after warm-up:

* tfrt: ``tfrt_import_onnx`` + the default compiler pipeline + ``tfrt.api``;
* numpy-im2col: the same graph evaluated op by op with numpy (convolutions
  as one im2col GEMM each, batch norm folded like the importer does);
* torch eager, and ``torch.jit.trace`` of it (when torch is installed);
* onnxruntime (when installed).

Also printed: import, compile and load times, BEF size, the largest error
against onnxruntime, and memory: each of tfrt, numpy-im2col and onnxruntime
loads the model from a file in a fresh process and runs it, and the resident
set (Linux's VmRSS/VmHWM, the peak reset after imports) is read after
loading and at its peak over the first call and ``--runs`` more.  It prints
numbers and ratios and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

_ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
_ap.add_argument("--threads", type=int, default=2)
_ap.add_argument("--runs", type=int, default=20)
_ap.add_argument("--size", type=int, default=224)
_ap.add_argument("--memory-child", nargs=2, metavar=("ENGINE", "FILE"), help=argparse.SUPPRESS)
ARGS = _ap.parse_args()
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(ARGS.threads)

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "onnx"))


def median_ms(fn, runs: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


# ---------------------------------------------------------------------------
# The graph, evaluated op by op (numpy, torch)


def _attrs(node):
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def folded_graph(model):
    """(nodes, weights): Conv+BatchNormalization pairs folded, as the importer does."""
    from onnx import numpy_helper

    w = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    nodes = list(model.graph.node)
    out, skip = [], set()
    producers = {o: n for n in nodes for o in n.output}
    for n in nodes:
        if n.op_type == "BatchNormalization":
            conv = producers[n.input[0]]
            s = w[n.input[1]] / np.sqrt(w[n.input[4]] + _attrs(n).get("epsilon", 1e-5))
            k = f"{conv.name}_w"
            w[k] = (w[conv.input[1]] * s[:, None, None, None]).astype(np.float32)
            w[k + "b"] = (w[n.input[2]] - w[n.input[3]] * s).astype(np.float32)
            out[out.index(conv)] = ("Conv", [conv.input[0], k, k + "b"], n.output[0], _attrs(conv))
            skip.add(id(n))
            continue
        out.append(n)
    return [(n.op_type, list(n.input), n.output[0], _attrs(n)) if not isinstance(n, tuple) else n for n in out], w


def im2col_conv(x, w, b, stride, pad):
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    if pad:
        x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (x.shape[2] - kh) // stride + 1
    ow = (x.shape[3] - kw) // stride + 1
    sn, sc, sh, sw = x.strides
    cols = np.lib.stride_tricks.as_strided(x, (n, oh, ow, c, kh, kw), (sn, sh * stride, sw * stride, sc, sh, sw))
    y = cols.reshape(n * oh * ow, c * kh * kw) @ w.reshape(f, -1).T + b
    return y.reshape(n, oh, ow, f).transpose(0, 3, 1, 2)


def numpy_forward(graph, weights, x):
    env = {"input": x, **weights}
    for op, ins, out, a in graph:
        v = [env[i] for i in ins]
        if op == "Conv":
            y = im2col_conv(v[0], v[1], v[2], a.get("strides", [1, 1])[0], a.get("pads", [0])[0])
        elif op == "Relu":
            y = np.maximum(v[0], 0)
        elif op == "Add":
            y = v[0] + v[1]
        elif op == "MaxPool":
            p = np.pad(v[0], ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
            win = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
            y = win.max(axis=(4, 5))
        elif op == "GlobalAveragePool":
            y = v[0].mean(axis=(2, 3), keepdims=True)
        elif op == "Flatten":
            y = v[0].reshape(v[0].shape[0], -1)
        elif op == "Gemm":
            y = v[0] @ v[1].T + v[2]
        else:
            raise NotImplementedError(op)
        env[out] = y
    return env[graph[-1][2]]


def torch_module(graph, weights):
    import torch
    import torch.nn.functional as F  # noqa: N812

    tw = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in weights.items()}

    class Net(torch.nn.Module):
        def forward(self, x):
            env = {"input": x}
            for op, ins, out, a in graph:
                v = [env[i] if i in env else tw[i] for i in ins]
                if op == "Conv":
                    y = F.conv2d(v[0], v[1], v[2], stride=a.get("strides", [1, 1])[0], padding=a.get("pads", [0])[0])
                elif op == "Relu":
                    y = F.relu(v[0])
                elif op == "Add":
                    y = v[0] + v[1]
                elif op == "MaxPool":
                    y = F.max_pool2d(v[0], 3, 2, 1)
                elif op == "GlobalAveragePool":
                    y = v[0].mean(dim=(2, 3), keepdim=True)
                elif op == "Flatten":
                    y = torch.flatten(v[0], 1)
                else:  # Gemm
                    y = F.linear(v[0], v[1], v[2])
                env[out] = y
            return env[graph[-1][2]]

    return Net().eval()


# ---------------------------------------------------------------------------
# The engines' sessions, as the timing and the memory runs both make them


def work_queue() -> str:
    return f"mstd:{ARGS.threads}" if ARGS.threads > 1 else "s"


def ort_session(model_bytes_or_path):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = ARGS.threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(model_bytes_or_path, opts, providers=["CPUExecutionProvider"])


# ---------------------------------------------------------------------------
# Memory: each engine in a fresh process


def _proc_status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def memory_child(engine: str, path: str) -> None:
    """Load ``path`` with ``engine``, run it, print resident-set numbers (MiB)."""
    import json

    x = np.random.default_rng(1).standard_normal((1, 3, ARGS.size, ARGS.size)).astype(np.float32)
    if engine == "tfrt":
        import tfrt.api
        from tfrt.kernels.array_pool import host_pool

        def load():
            prog = tfrt.api.load(path, work_queue=work_queue())
            return lambda: prog.call("main", x)
    elif engine == "numpy":
        import onnx

        def load():
            graph, weights = folded_graph(onnx.load(path))
            return lambda: numpy_forward(graph, weights, x)
    else:

        def load():
            sess = ort_session(path)
            return lambda: sess.run(None, {"input": x})
    base = _proc_status_kb("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak (VmHWM) restarts from here
    run = load()
    loaded = _proc_status_kb("VmRSS")
    for _ in range(ARGS.runs + 1):
        run()
    peak = _proc_status_kb("VmHWM")
    note = ""
    if engine == "tfrt":
        pool = host_pool.held_bytes() / 2**20
        note = f"the BEF is mapped, its weights read in place; the array pool holds {pool:.0f} MiB"
    print(json.dumps({"loaded": (loaded - base) / 1024, "peak": (peak - base) / 1024, "note": note}))


def memory_rows(bef: bytes, model) -> list:
    """(engine, MiB after load, MiB at peak, a note), each measured in its own process."""
    import json
    import subprocess
    import tempfile

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        files = {"tfrt": Path(tmp, "resnet50.bef"), "numpy": Path(tmp, "resnet50.onnx")}
        files["tfrt"].write_bytes(bef)
        files["numpy"].write_bytes(model.SerializeToString())
        files["onnxruntime"] = files["numpy"]
        for engine, path in files.items():
            cmd = [sys.executable, __file__, "--threads", str(ARGS.threads), "--runs", str(ARGS.runs),
                   "--size", str(ARGS.size), "--memory-child", engine, str(path)]  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["?"])[-1]
                print(f"  ({engine}: memory not measured: {last})")
                continue
            got = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append((engine, got["loaded"], got["peak"], got["note"]))
    return rows


def main() -> None:
    if ARGS.memory_child:
        memory_child(*ARGS.memory_child)
        return
    import onnx_models

    from tfrt.passes.compiler import compile_text_to_bef
    from tfrt.tools.import_onnx import import_onnx

    import tfrt.api

    size = ARGS.size
    model = onnx_models.resnet50(size=size)
    x = np.random.default_rng(1).standard_normal((1, 3, size, size)).astype(np.float32)
    rows = []
    t0 = time.perf_counter()
    text = import_onnx(model)
    t1 = time.perf_counter()
    bef = compile_text_to_bef(text, "resnet50.mlir")
    t2 = time.perf_counter()
    prog = tfrt.api.load(bef, work_queue=work_queue())
    t3 = time.perf_counter()
    print(f"ResNet-50 b1 {size}x{size} f32, {ARGS.threads} threads, median of {ARGS.runs}")
    print(f"tfrt: import {t1 - t0:.1f} s, compile {t2 - t1:.1f} s, load {(t3 - t2) * 1e3:.0f} ms, "
          f"BEF {len(bef) / 1e6:.0f} MB")  # fmt: skip
    ours = prog.call("main", x)
    rows.append(("tfrt (compiled from ONNX)", median_ms(lambda: prog.call("main", x), ARGS.runs)))

    graph, weights = folded_graph(model)
    rows.append(("numpy-im2col, op by op", median_ms(lambda: numpy_forward(graph, weights, x), ARGS.runs)))
    try:
        import torch

        torch.set_num_threads(ARGS.threads)
        net = torch_module(graph, weights)
        tx = torch.from_numpy(x)
        with torch.no_grad():
            rows.append(("torch eager", median_ms(lambda: net(tx), ARGS.runs)))
            traced = torch.jit.trace(net, tx)
            rows.append(("torch.jit.trace", median_ms(lambda: traced(tx), ARGS.runs)))
    except ImportError:
        print("(torch not installed)")
    want = None
    try:
        sess = ort_session(model.SerializeToString())
        want = sess.run(None, {"input": x})[0]
        rows.append(("onnxruntime", median_ms(lambda: sess.run(None, {"input": x}), ARGS.runs)))
    except ImportError:
        print("(onnxruntime not installed)")
    base = rows[0][1]
    for name, ms in rows:
        print(f"  {name:28} {ms:8.1f} ms   tfrt/this = {base / ms:5.2f}x")
    if want is not None:
        err = float(np.max(np.abs(ours - want)))
        print(f"max |tfrt - onnxruntime| = {err:.3g} (max |logit| {float(np.max(np.abs(want))):.3g})")
    print("targets: <= 55 ms, and within 1.2x of onnxruntime")
    if sys.platform.startswith("linux"):
        print(f"memory, each engine in a fresh process (resident set above the process after imports; "
              f"the first call and {ARGS.runs} more):")  # fmt: skip
        print(f"  {'':20} {'after load':>10} {'peak':>9}")
        for engine, loaded, peak, note in memory_rows(bef, model):
            print(f"  {engine:20} {loaded:6.0f} MiB {peak:5.0f} MiB  {note}")


if __name__ == "__main__":
    main()
