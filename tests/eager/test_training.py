"""samples/eager_training: XOR and an MNIST-sized perceptron train, eager and compiled."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SAMPLE = Path(__file__).parents[2] / "samples" / "eager_training" / "train.py"


@pytest.fixture(scope="module")
def train():
    spec = importlib.util.spec_from_file_location("eager_training_sample", SAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("compiled", [False, True])
def test_xor_trains(train, compiled):
    loss, predictions = train.train_xor(steps=600, compiled=compiled, log=None)
    assert loss < 0.02
    assert predictions.ravel().round().tolist() == [0, 1, 1, 0]


def test_eager_and_compiled_training_agree(train):
    eager, _ = train.train_xor(steps=50, compiled=False, log=None)
    compiled, _ = train.train_xor(steps=50, compiled=True, log=None)
    np.testing.assert_allclose(compiled, eager, rtol=1e-4)


@pytest.mark.parametrize("compiled", [False, True])
def test_mnist_sized_mlp_trains(train, compiled):
    accuracy = train.train_mnist(epochs=1, compiled=compiled, train_size=2048, log=None)
    assert accuracy > 0.8
