"""samples/mlp.mlir computes what numpy computes from the same constants."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tfrt.dialects.syntax import parse_module

from .pipeline import run_mlir

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "mlp.mlir"


def _constants(text: str) -> list[np.ndarray]:
    module = parse_module(text, str(SAMPLE))
    return [
        np.asarray(op.value.get_values(), np.float32).reshape(op.value.get_shape())
        for op in module.walk()
        if op.name == "tfrt_tensor.constant"
    ]


def _values(line: str) -> np.ndarray:
    m = re.fullmatch(r"DenseHostTensor dtype = \w+, shape = \[([\d, ]*)\], values = \[(.*)\]", line)
    assert m, line
    shape = [int(d) for d in m.group(1).split(", ")] if m.group(1) else []
    return np.array([float(v) for v in m.group(2).split(", ")]).reshape(shape)


def test_sample_matches_numpy():
    text = SAMPLE.read_text()
    x, w1, b1, w2, b2 = _constants(text)
    hidden = np.maximum(x @ w1 + b1, np.float32(0))
    logits = hidden @ w2 + b2
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs = e / e.sum(axis=-1, keepdims=True)

    run = run_mlir(text)
    assert run.diagnostics == []
    printed_probs, printed_class = run.lines
    np.testing.assert_allclose(_values(printed_probs), probs, rtol=1e-6)
    assert _values(printed_class).tolist() == probs.argmax(axis=1).tolist()
    # Both classes occur and the relu zeroes some units: the sample exercises them.
    assert sorted(set(probs.argmax(axis=1).tolist())) == [0, 1]
    assert (hidden == 0).any() and (hidden > 0).any()
