"""Train small networks from Python with tfrt's eager ops and GradientTape.

    python samples/eager_training/train.py xor               # eager, op by op
    python samples/eager_training/train.py xor --function    # each step a compiled @tfrt.function
    python samples/eager_training/train.py mnist [--function] [--epochs 3]

``xor`` fits a 2-8-1 perceptron to the XOR table.  ``mnist`` trains a
784-256-10 perceptron on MNIST-shaped synthetic data (28x28 "images" drawn
around ten class prototypes, so nothing is downloaded) with mini-batch SGD
and momentum, then reports the accuracy on held-out examples.

The model, the loss and the update are plain eager code; ``--function``
wraps the training step in ``@tfrt.function``, which traces it (gradients
included) to MLIR, compiles it to BEF once and runs the compiled step.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import tfrt


class MLP:
    """Dense layers: ``act(x @ w + b)``, the last one linear."""

    def __init__(self, sizes, rng, activation=tfrt.ops.relu):
        self.activation = activation
        self.params = []
        for k, n in zip(sizes, sizes[1:]):
            w = rng.standard_normal((k, n)).astype(np.float32) * np.float32(np.sqrt(2.0 / k))
            self.params += [tfrt.Variable(w, name=f"w{len(self.params) // 2}"),
                            tfrt.Variable(np.zeros(n, np.float32), name=f"b{len(self.params) // 2}")]  # fmt: skip

    def __call__(self, x):
        n = len(self.params) // 2
        for i in range(n):
            w, b = self.params[2 * i], self.params[2 * i + 1]
            x = x @ w + b
            if i < n - 1:
                x = self.activation(x)
        return x


def sgd_step(model, loss_fn, lr, momentum=0.0, velocity=None):
    """One training step: the loss's gradients, then ``p -= lr * v`` (with momentum)."""

    def step(x, y):
        with tfrt.GradientTape() as tape:
            loss = loss_fn(model(x), y)
        grads = tape.gradient(loss, model.params)
        for i, (p, g) in enumerate(zip(model.params, grads)):
            if velocity is None:
                p.assign_sub(lr * g)
            else:
                v = velocity[i]
                v.assign(momentum * v + g)
                p.assign_sub(lr * v)
        return loss

    return step


# -- XOR ------------------------------------------------------------------------


def train_xor(
    steps: int = 2000, compiled: bool = False, seed: int = 0, log=print
) -> tuple[float, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = tfrt.constant(np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32))
    y = tfrt.constant(np.array([[0], [1], [1], [0]], np.float32))
    model = MLP((2, 8, 1), rng, activation=tfrt.ops.tanh)

    def loss_fn(logits, target):
        return ((tfrt.ops.sigmoid(logits) - target) ** 2).mean()

    step = sgd_step(model, loss_fn, lr=np.float32(2.0))
    if compiled:
        step = tfrt.function(step, name="xor_step")
    t0 = time.perf_counter()
    for i in range(steps):
        loss = step(x, y)
        if log and (i % (steps // 5) == 0 or i == steps - 1):
            log(f"step {i:5d}  loss {float(loss):.5f}")
    predictions = tfrt.ops.sigmoid(model(x)).numpy()
    if log:
        shown = ", ".join(f"{p:.3f}" for p in predictions.ravel())
        log(f"{steps} steps in {time.perf_counter() - t0:.2f} s; predictions [{shown}]")
    return float(loss), predictions


# -- MNIST-sized -----------------------------------------------------------------


def synthetic_mnist(n: int, rng, classes: int = 10, noise: float = 1.0):
    """``n`` 784-pixel examples around ``classes`` fixed, faint prototypes (the
    noise is much stronger than any pixel's signal), and one-hot labels."""
    prototypes = 0.15 * np.random.default_rng(1234).standard_normal((classes, 784)).astype(
        np.float32
    )
    labels = rng.integers(0, classes, n)
    images = prototypes[labels] + noise * rng.standard_normal((n, 784)).astype(np.float32)
    return images.astype(np.float32), np.eye(classes, dtype=np.float32)[labels], labels


def train_mnist(epochs: int = 3, compiled: bool = False, batch: int = 64, train_size: int = 4096,
                seed: int = 0, log=print) -> float:  # fmt: skip
    rng = np.random.default_rng(seed)
    images, onehot, _ = synthetic_mnist(train_size, rng)
    test_images, _, test_labels = synthetic_mnist(1024, rng)
    model = MLP((784, 256, 10), rng)
    velocity = [tfrt.Variable(np.zeros(p.shape, np.float32), trainable=False) for p in model.params]
    step = sgd_step(model, tfrt.ops.softmax_cross_entropy, lr=np.float32(0.05), momentum=np.float32(0.9),
                    velocity=velocity)  # fmt: skip
    if compiled:
        step = tfrt.function(step, name="mnist_step")
    t0 = time.perf_counter()
    for epoch in range(epochs):
        order = rng.permutation(train_size)
        total = 0.0
        for i in range(0, train_size - batch + 1, batch):
            idx = order[i : i + batch]
            loss = step(tfrt.constant(images[idx]), tfrt.constant(onehot[idx]))
            total += float(loss)
        if log:
            log(f"epoch {epoch}  mean loss {total / (train_size // batch):.4f}")
    predicted = model(tfrt.constant(test_images)).argmax(axis=1).numpy()
    accuracy = float((predicted == test_labels).mean())
    if log:
        log(f"{epochs} epochs in {time.perf_counter() - t0:.2f} s; test accuracy {accuracy:.3f}")
    return accuracy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("task", choices=("xor", "mnist"))
    parser.add_argument(
        "--function", action="store_true", help="compile each step with @tfrt.function"
    )
    parser.add_argument("--steps", type=int, default=2000, help="xor: training steps")
    parser.add_argument("--epochs", type=int, default=3, help="mnist: epochs")
    args = parser.parse_args(argv)
    if args.task == "xor":
        loss, predictions = train_xor(args.steps, args.function)
        ok = loss < 0.02 and np.array_equal(predictions.ravel().round(), [0, 1, 1, 0])
    else:
        ok = train_mnist(args.epochs, args.function) > 0.9
    print("trained" if ok else "did not converge")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
