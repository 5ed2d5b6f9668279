"""Shared by the StableHLO conversion tests: run a program, and compare a JAX
function compiled here with ``jax.jit``'s own result (when JAX is installed)."""

from __future__ import annotations

import numpy as np
import pytest

import tfrt.api


def run(text: str, *args, fn: str = "main"):
    return tfrt.api.load(text).call(fn, *args)


def jax_or_skip():
    return pytest.importorskip("jax")


def check_jax(f, *args, rtol: float = 1e-5, atol: float = 1e-5):
    """``f`` exported by ``jax.jit(f).lower(...)``, compiled here and run on
    ``args``: every result equals ``jax.jit(f)(*args)`` (floats within the
    tolerances, everything else exactly, compared by bits)."""
    jax = jax_or_skip()
    jitted = jax.jit(f, keep_unused=True)
    text = jitted.lower(*args).as_text()
    got = tfrt.api.load(text).call("main", *[np.asarray(a) for a in args])
    want = jax.tree_util.tree_leaves(jitted(*args))
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        if g.dtype != w.dtype and g.dtype.itemsize == w.dtype.itemsize and w.dtype.kind in "iub":
            g = g.view(w.dtype)  # unsigned results come back as the signless integers
        if w.dtype.kind == "f" or w.dtype.name in ("bfloat16", "float16"):
            np.testing.assert_allclose(
                g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol
            )
        else:
            np.testing.assert_array_equal(g, w)
    return got
