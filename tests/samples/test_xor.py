"""samples/xor: training written in MLIR converges, the weights saved with
--output drive the inference program, through the installed tools and through
tfrt.api."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfrt.api

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "xor"
BIN = Path(sys.executable).parent
X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
Y = np.array([[0], [1], [1], [0]], np.float32)
XS = "0,0,0,1,1,0,1,1"  # X for --input
STEPS, EVERY = 3000, 250


def _run(*args, cwd):
    args = [str(a) for a in args]
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def reference():
    """numpy taking the same float32 steps from the same start: the initial
    weights in train.mlir are default_rng(0) normal draws rounded to 6 places."""
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    rng = np.random.default_rng(0)
    w1 = np.round(rng.standard_normal((2, 8)), 6).astype(np.float32)
    w2 = np.round(rng.standard_normal((8, 1)), 6).astype(np.float32)
    b1, b2 = np.zeros(8, np.float32), np.zeros(1, np.float32)
    curve = []
    for i in range(STEPS):
        h = sig(X @ w1 + b1)
        o = sig(h @ w2 + b2)
        loss = np.mean((o - Y) ** 2)
        if i % EVERY == 0:
            curve.append((i, float(loss)))
        d_o = (o - Y) * np.float32(0.5) * o * (1 - o)
        d_h = (d_o @ w2.T) * h * (1 - h)
        w1, b1 = w1 - 2 * (X.T @ d_h), b1 - 2 * d_h.sum(0)
        w2, b2 = w2 - 2 * (h.T @ d_o), b2 - 2 * d_o.sum(0)
    return curve, float(loss), (w1, b1, w2, b2)


def test_train_then_infer_with_the_tools(tmp_path, reference):
    ref_curve, ref_loss, ref_weights = reference
    r = _run(BIN / "tfrt_compile", SAMPLE / "train.mlir", "-o", "train.bef", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = _run(BIN / "bef_executor", "train.bef", "--function=train", "--output=@weights.npy",
             *["--output=+weights.npy"] * 3, cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert r.stdout.startswith("EXEC @train\nstep 0 loss ")

    curve = [(int(s), float(v)) for s, v in re.findall(r"^step (\d+) loss (\S+)$", r.stdout, re.M)]
    assert [s for s, _ in curve] == list(range(0, STEPS, EVERY))
    assert curve[0][1] > 0.2 and all(b < a for (_, a), (_, b) in zip(curve, curve[1:]))
    np.testing.assert_allclose([v for _, v in curve], [v for _, v in ref_curve], rtol=1e-5)
    final = float(re.search(r"^result\[4\]: f32=(\S+)$", r.stdout, re.M).group(1))
    assert final < 0.01
    assert final == pytest.approx(ref_loss, rel=1e-4)

    with open(tmp_path / "weights.npy", "rb") as f:
        weights = [np.load(f) for _ in range(4)]
        assert f.read() == b""
    assert [w.shape for w in weights] == [(2, 8), (8,), (8, 1), (1,)]
    assert all(w.dtype == np.float32 for w in weights)
    for got, want in zip(weights, ref_weights):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    r = _run(BIN / "tfrt_compile", SAMPLE / "infer.mlir", "-o", "infer.bef", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = _run(BIN / "bef_executor", "infer.bef", "--function=infer", f"--input=4x2xf32={XS}",
             *["--input=@weights.npy"] * 4, "--output=@pred.npy", cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    pred = np.load(tmp_path / "pred.npy")
    assert pred.shape == (4, 1)
    assert ((pred > 0.5) == (Y > 0.5)).all(), pred
    assert np.abs(pred - Y).max() < 0.1
    lines = r.stdout.splitlines()
    assert lines[0] == "EXEC @infer"
    line_re = re.compile(r"(\d) xor (\d) -> (\S+) \((\d)\)")
    printed = [line_re.fullmatch(line).groups() for line in lines[1:5]]
    assert [(int(a), int(b)) for a, b, _, _ in printed] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    np.testing.assert_allclose([float(y) for _, _, y, _ in printed], pred[:, 0], rtol=1e-6)
    assert [int(c) for _, _, _, c in printed] == [0, 1, 1, 0]
    assert len(lines) == 5


def test_the_same_through_the_python_api(capfd, reference):
    w1, b1, w2, b2, loss = tfrt.api.load(SAMPLE / "train.mlir").call("train")
    assert loss < 0.01
    assert loss == pytest.approx(reference[1], rel=1e-4)
    assert capfd.readouterr().out.count(" loss ") == STEPS // EVERY
    pred = tfrt.api.load(SAMPLE / "infer.mlir").call("infer", X, w1, b1, w2, b2)
    assert pred.shape == (4, 1)
    assert ((pred > 0.5) == (Y > 0.5)).all(), pred
    assert "1 xor 1 -> " in capfd.readouterr().out


def test_inference_reports_a_short_weights_file(tmp_path):
    # One array where inference needs four: a clear error, not a traceback.
    np.save(tmp_path / "weights.npy", np.zeros((2, 8), np.float32))
    r = _run(BIN / "bef_executor", SAMPLE / "infer.mlir", "--function=infer",
             f"--input=4x2xf32={XS}", *["--input=@weights.npy"] * 4, cwd=tmp_path)  # fmt: skip
    assert r.returncode == 1
    assert "--input #2 ('@weights.npy'): 'weights.npy' has no more arrays" in r.stderr
    assert "Traceback" not in r.stderr
