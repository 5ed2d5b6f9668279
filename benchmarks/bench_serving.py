"""Serving benchmark: bef_serve under load, beside onnxruntime behind the same stack.

    python benchmarks/bench_serving.py [--requests 10000] [--clients 1,8,64]

A server process (``tfrt.serving.create_app`` under uvicorn on 127.0.0.1)
serves three versions of one MLP 784-512-512-10 (weights in the program):

* ``mlp``: batched, with functions for 1, 8 and 32 rows (dynamic batching);
* ``mlp_b1``: the one-row function only (every request is its own call);
* ``mlp_ort``: the same model as onnxruntime sessions (any batch size) behind
  the same Starlette app and batcher (when onnx and onnxruntime are installed).

An aiohttp client (one keep-alive connection per simulated client) sends TF Serving REST predicts, one random row each, at
each concurrency level, checks every response against numpy (a response for
another request's row counts as swapped), and prints throughput and p50/p99
latency; then the server's p50 overhead over an in-process ``tfrt.api`` call
at one client, and the throughput gain of batching at the most clients.
With ``--resnet N``, ResNet-50 (random weights, ``model.onnx`` imported by
the server at batch 1 and 4) is served too, beside onnxruntime behind the
same server, and N KServe v2 requests with binary tensors are sent at 1 and
4 clients.  Bounded in requests and time; it prints numbers and asserts
nothing.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

LAYERS = (784, 512, 512, 10)
BATCHES = (1, 8, 32)


def weights(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for k, n in zip(LAYERS, LAYERS[1:]):
        out.append((rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32))
        out.append((rng.standard_normal(n) * 0.1).astype(np.float32))
    return out


def reference(x: np.ndarray, ws: list[np.ndarray]) -> np.ndarray:
    h = np.maximum(x @ ws[0] + ws[1], 0)
    h = np.maximum(h @ ws[2] + ws[3], 0)
    return h @ ws[4] + ws[5]


def _hex(a: np.ndarray) -> str:
    return f'dense<"0x{a.tobytes().hex().upper()}">'


def mlp_mlir(batches, ws) -> str:
    """One function ``@mlp_b<B>`` per batch size, weights as constants."""
    parts = ["#id = affine_map<(d0, d1) -> (d0, d1)>", "#row = affine_map<(d0, d1) -> (d1)>"]
    for b in batches:
        lines = [f"func.func @mlp_b{b}(%x: tensor<{b}x{LAYERS[0]}xf32>) -> tensor<{b}x{LAYERS[-1]}xf32> {{",
                 "  %zero = arith.constant 0.0 : f32"]
        h = "%x"
        for i, (k, n) in enumerate(zip(LAYERS, LAYERS[1:]), 1):
            t = f"tensor<{b}x{n}xf32>"
            lines += [
                f"  %w{i} = arith.constant {_hex(ws[2 * i - 2])} : tensor<{k}x{n}xf32>",
                f"  %b{i} = arith.constant {_hex(ws[2 * i - 1])} : tensor<{n}xf32>",
                f"  %e{i} = tensor.empty() : {t}",
                f"  %f{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {t}) -> {t}",
                f"  %m{i} = linalg.matmul ins({h}, %w{i} : tensor<{b}x{k}xf32>, tensor<{k}x{n}xf32>) "
                f"outs(%f{i} : {t}) -> {t}",
                f"  %h{i} = linalg.generic {{indexing_maps = [#id, #row, #id], iterator_types = [\"parallel\", "
                f"\"parallel\"]}} ins(%m{i}, %b{i} : {t}, tensor<{n}xf32>) outs(%e{i} : {t}) {{",
                "    ^bb0(%p: f32, %q: f32, %o: f32):",
                "      %s = arith.addf %p, %q : f32",
            ]
            if i < len(LAYERS) - 1:
                lines += ["      %r = arith.maximumf %s, %zero : f32", "      linalg.yield %r : f32"]
            else:
                lines += ["      linalg.yield %s : f32"]
            lines += [f"  }} -> {t}"]
            h = f"%h{i}"
        lines += [f"  return {h} : tensor<{b}x{LAYERS[-1]}xf32>", "}"]
        parts.append("\n".join(lines))
    return "\n".join(parts) + "\n"


def resnet_model():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "onnx"))
    import onnx_models

    return onnx_models.resnet50(batch="N")  # a dynamic batch dimension, as exporters write it


def write_resnet(root: Path) -> None:
    """ResNet-50 (random weights) as model.onnx, imported by the server at batch 1 and 4."""
    import onnx

    d = root / "resnet50" / "1"
    d.mkdir(parents=True)
    onnx.save(resnet_model(), d / "model.onnx")
    config = {"batch_sizes": [1, 4], "inputs": ["input"], "outputs": ["logits"]}
    (root / "resnet50" / "config.json").write_text(json.dumps(config))


def write_models(root: Path, ws) -> None:
    from tfrt.passes.compiler import compile_text_to_bef

    bef = compile_text_to_bef(mlp_mlir(BATCHES, ws), "mlp.mlir")
    for name, config in (
        ("mlp", {"function": "mlp_b1", "batch_variants": {str(b): f"mlp_b{b}" for b in BATCHES[1:]},
                 "inputs": ["x"], "outputs": ["y"]}),
        ("mlp_b1", {"function": "mlp_b1", "inputs": ["x"], "outputs": ["y"]}),
    ):  # fmt: skip
        d = root / name / "1"
        d.mkdir(parents=True)
        (d / "model.bef").write_bytes(bef)
        (root / name / "config.json").write_text(json.dumps(config))


# ---------------------------------------------------------------------------
# The server process


class OrtSession:
    """An onnxruntime session for any model, as the server sees a program."""

    def __init__(self, model, input_name: str, threads: int = 1):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        self.session = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        self.input_name = input_name

    def call(self, fn, x):
        return self.session.run(None, {self.input_name: x})[0]

    def close(self):
        pass


def mlp_onnx(ws):
    """The MLP as an ONNX model with a dynamic batch dimension."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    h = "x"
    for i in range(3):
        w, b = f"w{i}", f"b{i}"
        inits += [numpy_helper.from_array(ws[2 * i], w), numpy_helper.from_array(ws[2 * i + 1], b)]
        nodes += [helper.make_node("MatMul", [h, w], [f"m{i}"]), helper.make_node("Add", [f"m{i}", b], [f"a{i}"])]
        h = f"a{i}"
        if i < 2:
            nodes.append(helper.make_node("Relu", [h], [f"r{i}"]))
            h = f"r{i}"
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", LAYERS[0]])],
        [helper.make_tensor_value_info(h, TensorProto.FLOAT, ["N", LAYERS[-1]])], inits,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    return model


def serve(root: Path, port: int) -> None:
    import uvicorn

    from tfrt.serving import ModelRepository, create_app
    from tfrt.serving.repository import ModelVersion, TensorSpec, Variant

    repo = ModelRepository(root)
    repo.poll()
    try:
        ort_program = OrtSession(mlp_onnx(weights()), "x")
    except ImportError:
        ort_program = None
    if ort_program is not None:
        variants = [
            Variant("mlp", b, (TensorSpec("x", (b, LAYERS[0]), "f32"),), (TensorSpec("y", (b, LAYERS[-1]), "f32"),))
            for b in BATCHES
        ]
        repo.models["mlp_ort"] = {1: ModelVersion("mlp_ort", 1, root, state="AVAILABLE",
                                                  programs=[ort_program], variants=variants)}  # fmt: skip
    if "resnet50" in repo.models and ort_program is not None:
        spec = lambda b: Variant("r", b, (TensorSpec("input", (b, 3, 224, 224), "f32"),),  # noqa: E731
                                 (TensorSpec("logits", (b, 1000), "f32"),))  # fmt: skip
        repo.models["resnet50_ort"] = {1: ModelVersion("resnet50_ort", 1, root, state="AVAILABLE",
                                                       programs=[OrtSession(resnet_model(), "input", 2)],
                                                       variants=[spec(1), spec(4)])}  # fmt: skip
    uvicorn.run(create_app(repo, poll_interval=0), host="127.0.0.1", port=port, log_level="warning")


# ---------------------------------------------------------------------------
# The client


def _summary(latencies: list[float], wall: float, errors: int, swapped: int, requests: int) -> dict:
    """Throughput, p50/p99 latency (ms) and the error counts of one load run."""
    lat = sorted(latencies)
    return {
        "rps": len(lat) / wall,
        "p50": statistics.median(lat) * 1e3 if lat else float("nan"),
        "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e3 if lat else float("nan"),
        "errors": errors,
        "swapped": swapped,
        "n": requests,
    }


async def load(url: str, model: str, clients: int, requests: int, ws) -> dict:
    """``clients`` concurrent keep-alive connections (aiohttp) sending ``requests`` predicts."""
    import aiohttp

    rng = np.random.default_rng(clients * 7919 + requests)
    xs = rng.standard_normal((requests, LAYERS[0])).astype(np.float32)
    want = reference(xs, ws)
    bodies = [json.dumps({"instances": [x.tolist()]}).encode() for x in xs]  # encoded before the clock starts
    latencies: list[float] = []
    errors = swapped = 0
    next_i = 0
    connector = aiohttp.TCPConnector(limit=clients)
    headers = {"content-type": "application/json"}
    async with aiohttp.ClientSession(url, connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as session:

        async def worker():
            nonlocal next_i, errors, swapped
            while next_i < requests:
                i = next_i
                next_i += 1
                t0 = time.perf_counter()
                try:
                    async with session.post(f"/v1/models/{model}:predict", data=bodies[i], headers=headers) as r:
                        status = r.status
                        payload = await r.read()
                except aiohttp.ClientError:
                    errors += 1
                    continue
                latencies.append(time.perf_counter() - t0)
                if status != 200:
                    errors += 1
                    continue
                got = np.asarray(json.loads(payload)["predictions"][0], np.float32)
                if not np.allclose(got, want[i], rtol=1e-4, atol=1e-4):
                    swapped += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        wall = time.perf_counter() - t0
    return _summary(latencies, wall, errors, swapped, requests)


async def load_v2_binary(url: str, model: str, clients: int, requests: int, xs, want) -> dict:
    """v2 infers with binary tensors, cycling over the inputs ``xs`` (answers ``want``)."""
    import aiohttp

    bodies = []
    for x in xs:
        header = json.dumps({
            "inputs": [{"name": "input", "shape": list(x.shape), "datatype": "FP32",
                        "parameters": {"binary_data_size": x.nbytes}}],
            "outputs": [{"name": "logits", "parameters": {"binary_data": True}}],
        }).encode()  # fmt: skip
        bodies.append((header + x.tobytes(), str(len(header))))
    latencies: list[float] = []
    errors = swapped = 0
    next_i = 0
    async with aiohttp.ClientSession(url, connector=aiohttp.TCPConnector(limit=clients),
                                     timeout=aiohttp.ClientTimeout(total=600)) as session:  # fmt: skip

        async def worker():
            nonlocal next_i, errors, swapped
            while next_i < requests:
                i = next_i % len(xs)
                next_i += 1
                body, hlen = bodies[i]
                t0 = time.perf_counter()
                try:
                    async with session.post(f"/v2/models/{model}/infer", data=body,
                                            headers={"Inference-Header-Content-Length": hlen}) as r:  # fmt: skip
                        status, payload = r.status, await r.read()
                        n = int(r.headers.get("inference-header-content-length", "0"))
                except aiohttp.ClientError:
                    errors += 1
                    continue
                latencies.append(time.perf_counter() - t0)
                if status != 200:
                    errors += 1
                    continue
                got = np.frombuffer(payload[n:], np.float32).reshape(want[i].shape)
                scale = float(np.max(np.abs(want[i])))
                if not np.allclose(got, want[i], rtol=1e-4, atol=1e-4 * scale):
                    swapped += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        wall = time.perf_counter() - t0
    return _summary(latencies, wall, errors, swapped, requests)


def bench_resnet(url: str, levels, requests: int) -> None:
    import onnxruntime as ort

    rng = np.random.default_rng(11)
    xs = [rng.standard_normal((1, 3, 224, 224)).astype(np.float32) for _ in range(8)]
    sess = ort.InferenceSession(resnet_model().SerializeToString(), providers=["CPUExecutionProvider"])
    want = [sess.run(None, {"input": x})[0] for x in xs]
    print("ResNet-50 b1 224x224 (random weights, imported from ONNX at batch 1 and 4), KServe v2 binary tensors")
    print(f"{'model':13} {'clients':>7} {'requests':>8} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'errors':>6} {'swapped':>7}")  # fmt: skip
    for clients in levels:
        for model in ("resnet50", "resnet50_ort"):
            asyncio.run(load_v2_binary(url, model, clients, 4, xs, want))  # warm-up
            r = asyncio.run(load_v2_binary(url, model, clients, requests, xs, want))
            print(f"{model:13} {clients:7d} {requests:8d} {r['rps']:8.1f} {r['p50']:7.1f} {r['p99']:7.1f} "
                  f"{r['errors']:6d} {r['swapped']:7d}")  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def inprocess_us(root: Path) -> float:
    import tfrt.api

    prog = tfrt.api.load(root / "mlp" / "1" / "model.bef")
    x = np.random.default_rng(3).standard_normal((1, LAYERS[0])).astype(np.float32)
    for _ in range(50):
        prog.call("mlp_b1", x)
    times = []
    for _ in range(300):
        t0 = time.perf_counter()
        prog.call("mlp_b1", x)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=10000, help="requests at the most clients")
    ap.add_argument("--clients", default="1,8,64")
    ap.add_argument("--resnet", type=int, default=0, metavar="N",
                    help="also serve ResNet-50 (from ONNX) and send N requests per level at 1 and 4 clients")
    ap.add_argument("--serve", nargs=2, metavar=("DIR", "PORT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), int(args.serve[1]))
        return
    import aiohttp  # noqa: F401 - fail early without the serve extra

    levels = [int(c) for c in args.clients.split(",")]
    ws = weights()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_models(root, ws)
        if args.resnet:
            write_resnet(root)
        port = _free_port()
        proc = subprocess.Popen([sys.executable, __file__, "--serve", str(root), str(port)])
        url = f"http://127.0.0.1:{port}"
        try:
            import urllib.request

            deadline = time.monotonic() + 300
            while True:
                try:
                    urllib.request.urlopen(url + "/v2/health/ready", timeout=2)
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        print("the server did not start")
                        return
                    time.sleep(0.2)
            models = ["mlp", "mlp_b1"]
            try:
                urllib.request.urlopen(url + "/v2/models/mlp_ort/ready", timeout=2)
                models.append("mlp_ort")
            except OSError:
                print("(onnxruntime not installed: no baseline)")
            print(f"MLP {'-'.join(map(str, LAYERS))}, one row per request, TF Serving REST, 127.0.0.1")
            print(f"{'model':10} {'clients':>7} {'requests':>8} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
                  f"{'errors':>6} {'swapped':>7}")  # fmt: skip
            results = {}
            for clients in levels:
                n = args.requests if clients == max(levels) else min(args.requests, 200 * clients + 300)
                for model in models:
                    asyncio.run(load(url, model, clients, min(200, n), ws))  # warm-up
                    r = asyncio.run(load(url, model, clients, n, ws))
                    results[(model, clients)] = r
                    print(f"{model:10} {clients:7d} {n:8d} {r['rps']:8.0f} {r['p50']:7.2f} {r['p99']:7.2f} "
                          f"{r['errors']:6d} {r['swapped']:7d}")  # fmt: skip
            if args.resnet:
                bench_resnet(url, [1, 4], args.resnet)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        inproc = inprocess_us(root)
    one, most = min(levels), max(levels)
    p50 = results[("mlp", one)]["p50"]
    print(f"in-process tfrt.api call (batch 1): {inproc:.0f} us; server p50 at {one} client: {p50:.2f} ms; "
          f"overhead {p50 - inproc / 1e3:.2f} ms (target <= 1 ms)")
    gain = results[("mlp", most)]["rps"] / results[("mlp_b1", most)]["rps"]
    print(f"batching at {most} clients: {results[('mlp', most)]['rps']:.0f} vs {results[('mlp_b1', most)]['rps']:.0f} "
          f"req/s unbatched = {gain:.2f}x (target >= 3x)")
    if ("mlp_ort", most) in results:
        ratio = results[("mlp", most)]["rps"] / results[("mlp_ort", most)]["rps"]
        print(f"vs onnxruntime behind the same server at {most} clients: {ratio:.2f}x its throughput; "
              f"p50 {results[('mlp', one)]['p50']:.2f} vs {results[('mlp_ort', one)]['p50']:.2f} ms at {one} client")
    lost = sum(r["errors"] + r["swapped"] for r in results.values())
    print(f"errors + swapped responses over all runs: {lost}")


if __name__ == "__main__":
    main()
