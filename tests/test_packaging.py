"""pyproject.toml lists every package of the source tree, so the wheel has them all."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent


def _setuptools_config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def test_every_package_directory_is_listed():
    config = _setuptools_config()
    listed = set(config["packages"])
    found = set()
    for package, directory in config["package-dir"].items():
        base = ROOT / directory
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            if "__pycache__" in rel.parts or any(p.startswith(".") for p in rel.parts):
                continue
            found.add(".".join([package, *rel.parts]) if rel.parts else package)
    # tfrt/ holds other packages' folders (tfrt/tensor, ...) under their own names.
    missing = sorted(found - listed)
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_every_listed_package_has_a_directory():
    config = _setuptools_config()
    dirs = config["package-dir"]
    for package in config["packages"]:
        directory = dirs.get(package)
        if directory is None:
            parent, _, leaf = package.rpartition(".")
            directory = f"{dirs[parent]}/{leaf}"
        assert (ROOT / directory / "__init__.py").is_file(), package
