"""A minimal PEP 517 build backend (standard library only) for this sample.

It reads ``[project]`` and ``[tool.sample_backend] packages`` from
pyproject.toml and writes a pure-Python wheel: the packages' ``.py`` files,
METADATA, WHEEL, entry_points.txt and RECORD.  Just enough for
``pip install`` of this directory without network access.
"""

from __future__ import annotations

import base64
import hashlib
import os
import tomllib
import zipfile

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _project():
    with open(os.path.join(_ROOT, "pyproject.toml"), "rb") as f:
        data = tomllib.load(f)
    return data["project"], data.get("tool", {}).get("sample_backend", {})


def _dist_name(name: str) -> str:
    return name.replace("-", "_")


def _metadata(project) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _entry_points(project) -> str:
    out = []
    for group, entries in project.get("entry-points", {}).items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in entries.items()]
        out.append("")
    return "\n".join(out)


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project, tool = _project()
    name, version = _dist_name(project["name"]), project["version"]
    info = f"{name}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for package in tool.get("packages", []):
        pkg_dir = os.path.join(_ROOT, *package.split("."))
        for fname in sorted(os.listdir(pkg_dir)):
            if fname.endswith(".py"):
                with open(os.path.join(pkg_dir, fname), "rb") as f:
                    files[f"{package.replace('.', '/')}/{fname}"] = f.read()
    files[f"{info}/METADATA"] = _metadata(project).encode()
    files[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: sample_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode()
    files[f"{info}/entry_points.txt"] = _entry_points(project).encode()
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel_name = f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files.items():
            zf.writestr(path, data)
    return wheel_name
