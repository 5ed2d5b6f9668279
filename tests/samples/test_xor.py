"""samples/xor: training in MLIR converges; inference from the saved weights."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np

import tfrt.api

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "xor"
X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
Y = np.array([[0], [1], [1], [0]], np.float32)


def _tool(name, *args, cwd):
    code = f"import sys; from tfrt.tools.{name} import main; sys.argv[0] = {name!r}; main()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _numpy_training():
    """The same float32 steps as @step, for reference."""
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((2, 8)).astype(np.float32)
    w2 = rng.standard_normal((8, 1)).astype(np.float32)
    b1, b2 = np.zeros(8, np.float32), np.zeros(1, np.float32)
    for _ in range(3000):
        h = sig(X @ w1 + b1)
        o = sig(h @ w2 + b2)
        loss = np.mean((o - Y) ** 2)
        d_o = (o - Y) * np.float32(0.5) * o * (1 - o)
        d_h = (d_o @ w2.T) * h * (1 - h)
        w1, b1 = w1 - 2 * (X.T @ d_h), b1 - 2 * d_h.sum(0)
        w2, b2 = w2 - 2 * (h.T @ d_o), b2 - 2 * d_o.sum(0)
    return loss


def test_train_then_infer_with_the_tools(tmp_path):
    r = _tool("tfrt_compile", str(SAMPLE / "train.mlir"), "-o", "train.bef", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = _tool("bef_executor", "train.bef", "--function=train", "--output=@weights.npy",
              "--output=+weights.npy", "--output=+weights.npy", "--output=+weights.npy", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    curve = [(int(s), float(v)) for s, v in re.findall(r"^step (\d+) loss (\S+)$", r.stdout, re.M)]
    assert [s for s, _ in curve] == list(range(0, 3000, 250))
    assert curve[0][1] > 0.2 and all(b < a for (_, a), (_, b) in zip(curve, curve[1:]))
    final = float(re.search(r"^result\[4\]: f32=(\S+)$", r.stdout, re.M).group(1))
    assert final < 0.01
    assert abs(final - _numpy_training()) < 1e-5

    with open(tmp_path / "weights.npy", "rb") as f:
        w1, b1, w2, b2 = (np.load(f) for _ in range(4))
    assert (w1.shape, b1.shape, w2.shape, b2.shape) == ((2, 8), (8,), (8, 1), (1,))

    r = _tool("tfrt_compile", str(SAMPLE / "infer.mlir"), "-o", "infer.bef", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = _tool("bef_executor", "infer.bef", "--function=infer", "--input=4x2xf32=0,0,0,1,1,0,1,1",
              *["--input=@weights.npy"] * 4, "--output=@pred.npy", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    pred = np.load(tmp_path / "pred.npy")
    assert pred.shape == (4, 1)
    assert ((pred > 0.5) == (Y > 0.5)).all(), pred


def test_the_same_through_the_python_api():
    w1, b1, w2, b2, loss = tfrt.api.load(SAMPLE / "train.mlir").call("train")
    assert loss < 0.01
    pred = tfrt.api.load(SAMPLE / "infer.mlir").call("infer", X, w1, b1, w2, b2)
    assert ((pred > 0.5) == (Y > 0.5)).all(), pred
