"""The sample lowering pass (samples/lowering_pass), used as docs/writing_passes.md
says: loaded from its file with --load-pass-plugin, and installed as a package
whose ``tfrt.passes`` entry point tfrt_compile finds by name."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "lowering_pass"
BIN = Path(sys.executable).parent

X = np.array([[-2, -1, 0, 1], [2, 3, 4, 5]], np.float32)
W = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


def _reference(x, w):
    m = (x @ w).astype(np.float64)
    s = np.log1p(np.exp(m))
    erf = np.vectorize(math.erf)
    return 0.5 * s * (1 + erf(s / math.sqrt(2)))


def _run(args, env=None, cwd=None):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def _check_result(bef: Path, tmp: Path, env=None):
    np.save(tmp / "x.npy", X)
    np.save(tmp / "w.npy", W)
    out = _run([BIN / "bef_executor", bef, "--function=layer", f"--input=@{tmp / 'x.npy'}",
                f"--input=@{tmp / 'w.npy'}", f"--output=@{tmp / 'y.npy'}"], env=env)
    assert out.returncode == 0, out.stderr
    np.testing.assert_allclose(np.load(tmp / "y.npy"), _reference(X, W), rtol=2e-6, atol=2e-6)


def test_plugin_file(tmp_path):
    bef = tmp_path / "model.bef"
    out = _run([BIN / "tfrt_compile", SAMPLE / "model.mlir", "--load-pass-plugin", SAMPLE / "mylib_passes.py",
                "--preprocess=lower-mylib", "-o", bef])
    assert out.returncode == 0, out.stderr
    _check_result(bef, tmp_path)


def test_plugin_errors_point_at_the_op(tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text(
        'func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n'
        '  %y = "mylib.swish"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n'
        '  return %y : tensor<4xf32>\n'
        '}\n'
    )
    out = _run([BIN / "tfrt_compile", src, "--load-pass-plugin", SAMPLE / "mylib_passes.py",
                "--preprocess=lower-mylib", "-o", tmp_path / "bad.bef"])
    assert out.returncode == 1
    assert f"{src}:2:3: error: 'mylib.swish' op is not part of mylib" in out.stderr
    assert "Traceback" not in out.stderr
    # Without the pass, the pipeline names the op it cannot lower.
    out = _run([BIN / "tfrt_compile", src, "-o", tmp_path / "bad.bef"])
    assert out.returncode == 1
    assert f"{src}:2:3: error: 'mylib.swish' op cannot be lowered" in out.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The sample pip-installed (offline, no deps) into a private directory."""
    pytest.importorskip("setuptools", reason="the sample builds with setuptools")
    work = tmp_path_factory.mktemp("sample")
    src = work / "lowering_pass"
    shutil.copytree(SAMPLE, src)  # setuptools writes build files next to the sources
    target = work / "site"
    env = dict(os.environ, PIP_NO_INPUT="1")
    out = _run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation",
                "--disable-pip-version-check", "--target", target, src], env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    return target


def test_installed_package_is_found_by_name(installed, tmp_path):
    assert (installed / "mylib_passes.py").is_file()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(installed), os.environ.get("PYTHONPATH", "")]))
    out = _run([BIN / "tfrt_opt", "--help"], env=env)
    assert "lower-mylib" in out.stdout
    bef = tmp_path / "model.bef"
    out = _run([BIN / "tfrt_compile", SAMPLE / "model.mlir", "--preprocess=lower-mylib", "-o", bef], env=env)
    assert out.returncode == 0, out.stderr
    _check_result(bef, tmp_path, env=env)
    # Not installed: the name is unknown, and the error says so.
    out = _run([BIN / "tfrt_compile", SAMPLE / "model.mlir", "--preprocess=lower-mylib", "-o", bef])
    assert out.returncode == 1
    assert "lower-mylib" in out.stderr and "Traceback" not in out.stderr


def test_pass_option_and_bad_option(tmp_path):
    bef = tmp_path / "model.bef"
    out = _run([BIN / "tfrt_compile", SAMPLE / "model.mlir", "--load-pass-plugin", SAMPLE / "mylib_passes.py",
                "--preprocess=lower-mylib{gelu=tanh}", "-o", bef])
    assert out.returncode == 0, out.stderr
    out = _run([BIN / "bef_executor", bef, "--function=layer", "--input=2x4xf32=-2,-1,0,1,2,3,4,5",
                "--input=4x3xf32=0.5", f"--output=@{tmp_path / 'y.npy'}"])
    assert out.returncode == 0, out.stderr
    s = np.log1p(np.exp(np.full((2, 3), 0.5) * X.sum(axis=1, keepdims=True)))
    want = 0.5 * s * (1 + np.tanh(math.sqrt(2 / math.pi) * (s + 0.044715 * s**3)))
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), want, rtol=2e-6)
    out = _run([BIN / "tfrt_compile", SAMPLE / "model.mlir", "--load-pass-plugin", SAMPLE / "mylib_passes.py",
                "--preprocess=lower-mylib{gelu=exact}", "-o", bef])
    assert out.returncode == 1
    assert "gelu=exact: expected erf or tanh" in out.stderr
