#!/usr/bin/env bash
# Fill .whl/ (git-ignored) with the pure-Python wheels benchmarks/gpu_check.sh
# installs on a GPU machine that has no network: the project's dependencies
# such a machine lacks (its image has torch, cupy, numpy, onnx, onnxruntime,
# pytest), for its Python (3.12 by default: GPU_PYTHON=3.11 for another).
# Run on a machine with PyPI, in the repository root, before copying the
# tree over; `git rev-parse --short HEAD > .commit` names the commit in the
# report where .git does not travel.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${GPU_PYTHON:-3.12}
mkdir -p .whl/build
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
get() { python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$py" --implementation cp \
          --platform any --platform manylinux2014_x86_64 -d "$1" "${@:2}"; }
get .whl "xdsl>=0.74,<0.75" "lark>=1.2,<2" "lit>=18,<24" "filecheck>=1.0,<2" "interegular>=0.3,<0.4" \
    immutabledict ordered-set "typing_extensions>=4.13"
get .whl/build "setuptools>=70.1"
ls .whl .whl/build
