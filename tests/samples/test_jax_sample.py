"""samples/jax: export JAX models, compile and run them, results equal to jax.jit's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "jax"


@pytest.mark.slow
def test_export_then_run_matches_jax(tmp_path):
    out = subprocess.run([sys.executable, str(SAMPLE / "export.py"), str(tmp_path)], capture_output=True,
                         text=True, timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr
    run = subprocess.run([sys.executable, str(SAMPLE / "run.py"), str(tmp_path)], capture_output=True,
                         text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("largest relative difference") == 3


def test_mlp_through_the_tools(tmp_path):
    import jax

    sys.path.insert(0, str(SAMPLE))
    try:
        import export
    finally:
        sys.path.pop(0)
    params = export.init_mlp(jax.random.PRNGKey(1), [16, 8, 4])
    x = np.asarray(jax.random.normal(jax.random.PRNGKey(2), (3, 16)), np.float32)
    mlir = tmp_path / "mlp.mlir"
    mlir.write_text(jax.jit(export.mlp).lower(params, x).as_text())
    args = [np.asarray(a) for a in jax.tree_util.tree_leaves((params, x))]
    inputs = []
    for i, a in enumerate(args):
        np.save(tmp_path / f"a{i}.npy", a)
        inputs.append(f"--input=@{tmp_path / f'a{i}.npy'}")
    bindir = Path(sys.executable).parent
    bef = tmp_path / "mlp.bef"
    subprocess.run([str(bindir / "tfrt_compile"), str(mlir), "-o", str(bef)], check=True, timeout=300)
    res = subprocess.run([str(bindir / "bef_executor"), str(bef), "--function=main", *inputs,
                          f"--output=@{tmp_path / 'y.npy'}"], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert res.returncode == 0, res.stderr
    want = np.asarray(jax.jit(export.mlp)(params, x))
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), want, rtol=1e-5, atol=1e-6)
