"""Model directories for the serving tests (built from MLIR text)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("prometheus_client")

W = np.array([[1.0, 0.5], [-1.0, 2.0], [0.25, 0.0], [1.0, -1.0]], np.float32)


def linear(batch: int, w: np.ndarray = W, name: str | None = None) -> str:
    """``@linear_b<batch>(x: <batch>x4xf32) -> <batch>x2xf32``: x @ w."""
    rows = ", ".join("[" + ", ".join(repr(float(v)) for v in r) + "]" for r in w)
    t_in, t_out = f"tensor<{batch}x4xf32>", f"tensor<{batch}x2xf32>"
    return f"""
func.func @{name or f'linear_b{batch}'}(%x: {t_in}) -> {t_out} {{
  %w = arith.constant dense<[{rows}]> : tensor<4x2xf32>
  %e = tensor.empty() : {t_out}
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : {t_out}) -> {t_out}
  %m = linalg.matmul ins(%x, %w : {t_in}, tensor<4x2xf32>) outs(%f : {t_out}) -> {t_out}
  return %m : {t_out}
}}
"""


def pick(batch: int) -> str:
    """``@pick_b<batch>(x: Bx3xf32, i: Bx1xi64) -> Bx1xf32``: x[r, i[r]] per row;
    an index out of range is a kernel error."""
    lines = [f"func.func @pick_b{batch}(%x: tensor<{batch}x3xf32>, %i: tensor<{batch}x1xi64>) -> tensor<{batch}x1xf32> {{",
             "  %c0 = arith.constant 0 : index"]
    vals = []
    for r in range(batch):
        lines += [f"  %r{r} = arith.constant {r} : index",
                  f"  %iv{r} = tensor.extract %i[%r{r}, %c0] : tensor<{batch}x1xi64>",
                  f"  %ix{r} = arith.index_cast %iv{r} : i64 to index",
                  f"  %v{r} = tensor.extract %x[%r{r}, %ix{r}] : tensor<{batch}x3xf32>"]
        vals.append(f"%v{r}")
    lines += [f"  %out = tensor.from_elements {', '.join(vals)} : tensor<{batch}x1xf32>",
              f"  return %out : tensor<{batch}x1xf32>", "}"]
    return "\n".join(lines) + "\n"


ADD2 = """
func.func @add(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  %e = tensor.empty() : tensor<2x2xi32>
  %s = linalg.add ins(%a, %b : tensor<2x2xi32>, tensor<2x2xi32>) outs(%e : tensor<2x2xi32>) -> tensor<2x2xi32>
  %d = linalg.sub ins(%a, %b : tensor<2x2xi32>, tensor<2x2xi32>) outs(%e : tensor<2x2xi32>) -> tensor<2x2xi32>
  return %s, %d : tensor<2x2xi32>, tensor<2x2xi32>
}
"""


def write_model(root: Path, name: str, version: int, text: str | bytes, config: dict | None = None,
                filename: str = "model.mlir") -> Path:
    d = root / name / str(version)
    d.mkdir(parents=True, exist_ok=True)
    (d / filename).write_bytes(text if isinstance(text, bytes) else text.encode())
    if config is not None:
        (root / name / "config.json").write_text(json.dumps(config))
    return d


@pytest.fixture
def model_dir(tmp_path):
    root = tmp_path / "models"
    write_model(root, "linear", 1, linear(1) + linear(4),
                {"function": "linear_b1", "batch_variants": {"4": "linear_b4"}, "inputs": ["x"], "outputs": ["y"]})
    write_model(root, "pick", 1, pick(1) + pick(2),
                {"function": "pick_b1", "batch_variants": {"2": "pick_b2"}, "inputs": ["x", "i"]})
    write_model(root, "add", 1, ADD2, {"max_batch_size": 0, "inputs": ["a", "b"], "outputs": ["sum", "diff"]})
    write_model(root, "broken", 1, b"\x0b\xef garbage", filename="model.bef")
    return root
