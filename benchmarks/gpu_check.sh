#!/usr/bin/env bash
# One run on a machine with a GPU, one report: the environment, the GPU tests,
# benchmarks/bench_gpu.py and the whole test suite, in ${OUT:-/tmp/gpu_check}/report.md
# (docs/gpu.md).  Run from anywhere; it works in the repository root.
#
#   bash benchmarks/gpu_check.sh              # python3 is the interpreter with torch/cupy
#   PYTHON=/path/to/python3 GPU_CHECK_BUDGET=270 bash benchmarks/gpu_check.sh
#   GPU_CHECK_INSTALL=overlay|target ...      # try another way of installing (below)
#
# Offline: the project's pure-Python dependencies that such a machine lacks
# (xdsl, lark, lit, filecheck, interegular, ...) come as wheels in .whl/ at the
# repository root (.whl/build/: setuptools, used only where the machine has
# none).  Each stage runs under `timeout`, writes its part of the report when
# it ends, and a stage that fails does not stop the next; the whole run stays
# within GPU_CHECK_BUDGET seconds (default 270).  Without a GPU it installs,
# reports the environment and stops (GPU_CHECK_FORCE=1 runs every stage anyway;
# GPU_CHECK_BENCH_ARGS="--smoke --standin" then gives the benchmark something to run).
#
# Files in $OUT: report.md, setup.log, pytest_gpu.log, bench.log,
# bench_gpu.json, pytest_all.log.

set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
REPORT=$OUT/report.md
PY=${PYTHON:-python3}
BUDGET=${GPU_CHECK_BUDGET:-270}
START=$(date +%s)
# (bytecode is written: xdsl is imported by every test worker)
export PYTHONDONTWRITEBYTECODE= PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# Builds that tests make with `pip install --no-index` (and build isolation) find setuptools here.
export PIP_FIND_LINKS="$ROOT/.whl/build"
# BLAS threads per test worker, where the machine's environment does not say
# (one worker per core; the benchmark keeps the library's default, every core).
TEST_ENV=(OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-2}" OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
    MKL_NUM_THREADS="${MKL_NUM_THREADS:-2}")

elapsed() { echo $(($(date +%s) - START)); }
left() { echo $((BUDGET - $(date +%s) + START)); }
say() { printf '%s\n' "$*" >>"$REPORT"; }
code() { say '```'; cat >>"$REPORT"; say '```'; }
# limit WANTED: WANTED seconds, or what the budget has left less RESERVE (at least 5)
limit() {
    local want=$1 reserve=${2:-0} l
    l=$(($(left) - reserve))
    [ "$l" -lt "$want" ] && want=$l
    [ "$want" -lt 5 ] && want=5
    echo "$want"
}
rm -f "$OUT/.env"
trap 'rm -f "$OUT/.env" "$OUT/.bench.md"' EXIT
stage_end() { say ""; say "_stage took $(($(date +%s) - $1)) s (rc $2; $(elapsed) s since the start)_"; say ""; }

{
    echo "# GPU check"
    echo
    echo "- started: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname 2>/dev/null || echo '?'), $(nproc 2>/dev/null || echo '?') CPUs"
    echo "- tree: $(cat "$ROOT/.commit" 2>/dev/null || git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo 'no git here')"
    echo "- budget: ${BUDGET} s; logs beside this file"
    echo
} >"$REPORT"

# ---------------------------------------------------------------------------
# 0. Install: the carried wheels and the project (editable), offline.
#
# Into python3's own environment when it is writable (a lent machine is fresh
# each time), so that the console scripts sit beside sys.executable as the
# tests expect; else into an overlay venv (/tmp/tfrt-venv) that sees python3's
# packages (torch, cupy, numpy, ...) through a .pth file; else, last, with
# `pip --target` (/tmp/tfrt-site) on PYTHONPATH, where the tests that look for
# the tools beside sys.executable fail.  What the later stages need (the
# interpreter, PATH, PYTHONPATH) goes to $OUT/.env.

t=$(date +%s)
say "## 0. Install"
say ""
PIP_Q=(-q --no-index --no-deps --no-cache-dir)
setup() {
    set -e
    echo "interpreter: $(command -v "$PY") -> $("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
    local purelib bindir mode target="" own=()
    purelib=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    bindir=$("$PY" -c 'import os, sys; print(os.path.dirname(sys.executable))')
    local how=${GPU_CHECK_INSTALL:-auto} # auto, or (to try one) in-place, overlay, target
    if [ "$how" = in-place ] || { [ "$how" = auto ] && [ -w "$purelib" ] && [ -w "$bindir" ]; }; then
        mode="in place ($purelib)"
    elif [ "$how" != target ] && rm -rf /tmp/tfrt-venv && "$PY" -m venv --without-pip /tmp/tfrt-venv; then
        local vpure
        vpure=$(/tmp/tfrt-venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
        "$PY" -c 'import site
for d in site.getsitepackages(): print(f"import site; site.addsitedir({d!r})")' >"$vpure/_base_site_packages.pth"
        PY=/tmp/tfrt-venv/bin/python
        own=(--ignore-installed) # its own copies (and console scripts), whatever python3 has
        mode="overlay venv /tmp/tfrt-venv, seeing $(grep -o "'[^']*'" "$vpure/_base_site_packages.pth" | tr '\n' ' ')"
    else
        target=/tmp/tfrt-site
        rm -rf "$target"
        mode="pip --target $target on PYTHONPATH (tests that look beside sys.executable will fail)"
    fi
    echo "install mode: $mode"
    # typing_extensions stays as it is where it is new enough for xdsl (>= 4.13).
    local wheels=() w
    for w in "$ROOT"/.whl/*.whl; do
        case "$(basename "$w")" in
        typing_extensions-*)
            "$PY" -c 'from importlib.metadata import version as v; import sys
sys.exit(tuple(map(int, v("typing_extensions").split(".")[:2])) < (4, 13))' 2>/dev/null && continue ;;
        esac
        wheels+=("$w")
    done
    echo "wheels: ${wheels[*]##*/}"
    {
        echo "PY=$PY"
        [ -n "$target" ] && echo "export PYTHONPATH=$target\${PYTHONPATH:+:\$PYTHONPATH} PYTHONSAFEPATH=1"
        echo "export PATH=$(dirname "$("$PY" -c 'import sys; print(sys.executable)')")${target:+:$target/bin}:\$PATH"
    } >"$OUT/.env"
    if [ -n "$target" ]; then
        "$PY" -m pip install "${PIP_Q[@]}" --no-compile --no-build-isolation --target "$target" "${wheels[@]}" "$ROOT"
        export PYTHONPATH=$target PYTHONSAFEPATH=1
    else
        "$PY" -m pip install "${PIP_Q[@]}" --no-compile "${own[@]}" "${wheels[@]}"
        if ! "$PY" -c 'import setuptools, sys
sys.exit(tuple(map(int, setuptools.__version__.split(".")[:2])) < (70, 1))' 2>/dev/null; then
            echo "setuptools missing or older than 70.1: installing .whl/build/"
            "$PY" -m pip install "${PIP_Q[@]}" "$ROOT"/.whl/build/setuptools-*.whl
        fi
        if "$PY" -m pip install "${PIP_Q[@]}" --no-build-isolation -e "$ROOT"; then
            echo "project: editable install"
        else
            # A plain install; the checkout's own tfrt/ would shadow it from the cwd.
            echo "project: editable install failed; a plain install, with PYTHONSAFEPATH=1"
            "$PY" -m pip install "${PIP_Q[@]}" --no-build-isolation "$ROOT"
            echo "export PYTHONSAFEPATH=1" >>"$OUT/.env"
            export PYTHONSAFEPATH=1
        fi
    fi
    set +e
    "$PY" -c 'import tfrt, tfrt.dialects, tfrt.passes.compiler, tfrt.api, xdsl, lark
print("imports ok: tfrt from", tfrt.__file__, "; tfrt.dialects from", tfrt.dialects.__file__)'
    local imported=$?
    local bindir2 tool missing=""
    bindir2=$(dirname "$("$PY" -c 'import sys; print(sys.executable)')")
    for tool in tfrt_compile tfrt_opt tfrt_translate bef_executor tfrt_import_onnx filecheck lit; do
        [ -x "$bindir2/$tool" ] || missing="$missing $tool"
    done
    echo "console scripts beside $bindir2/python: ${missing:-all present}"
    [ -n "$target" ] && echo "console scripts in $target/bin: $(ls "$target/bin" | tr '\n' ' ')"
    return $imported
}
(setup) >"$OUT/setup.log" 2>&1
rc=$?
# shellcheck disable=SC1091
[ -s "$OUT/.env" ] && . "$OUT/.env"
code <"$OUT/setup.log"
[ "$rc" -ne 0 ] && say "**install failed (rc $rc)**: the later stages run with what there is."
stage_end "$t" "$rc"

# ---------------------------------------------------------------------------
# 1a. The GPU and the versions.

t=$(date +%s)
say "## 1a. Environment"
say ""
{
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi -L 2>&1 | head -8
        nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm --format=csv 2>&1 | head -4
    else
        echo "nvidia-smi: not found"
    fi
    command -v nvcc >/dev/null && nvcc --version 2>&1 | tail -2 | head -1
    timeout -k 5 "$(limit 60)" "$PY" - <<'EOF' 2>&1
import importlib, platform, sys
print("python", platform.python_version(), sys.executable)
for name in ("numpy", "ml_dtypes", "xdsl", "lark", "onnx", "onnxruntime", "torch", "torchvision", "cupy", "jax"):
    try:
        m = importlib.import_module(name)
        print(f"{name} {getattr(m, '__version__', '?')}")
    except Exception as exc:  # noqa: BLE001
        print(f"{name}: not usable ({type(exc).__name__}: {str(exc)[:120]})")
try:
    import torch
    print("torch CUDA", torch.version.cuda, "available:", torch.cuda.is_available(),
          torch.cuda.get_device_name(0) if torch.cuda.is_available() else "", "cudnn", torch.backends.cudnn.version())
except Exception as exc:  # noqa: BLE001
    print("torch CUDA: -", exc)
try:
    import cupy
    rt = cupy.cuda.runtime
    p = rt.getDeviceProperties(0)
    print("cupy: devices", rt.getDeviceCount(), "runtime", rt.runtimeGetVersion(), "driver", rt.driverGetVersion(),
          "gpu0", p["name"].decode() if isinstance(p["name"], bytes) else p["name"])
    import cupy as cp
    k = cp.ElementwiseKernel("float32 x", "float32 y", "y = x * 2", "gpu_check_probe")
    print("cupy: NVRTC kernel ok:", float(k(cp.arange(4, dtype=cp.float32)).sum()) == 12.0)
except Exception as exc:  # noqa: BLE001
    print(f"cupy: no device ({type(exc).__name__}: {str(exc)[:200]})")
from tfrt.devices.gpu import GpuDevice
print("tfrt GpuDevice.is_available():", GpuDevice.is_available())
EOF
} >"$OUT/env.txt" 2>&1
rc=$?
code <"$OUT/env.txt"
HAVE_GPU=0
grep -q "tfrt GpuDevice.is_available(): True" "$OUT/env.txt" && HAVE_GPU=1
if [ "$HAVE_GPU" = 1 ]; then
    say "GPU: **yes** ($(grep -m1 '^GPU 0:' "$OUT/env.txt" || grep -m1 'gpu0' "$OUT/env.txt"))"
else
    say "GPU: **no usable GPU** (tfrt's GpuDevice is not available: see above)"
fi
cat "$OUT/env.txt" >>"$OUT/setup.log"
rm -f "$OUT/env.txt"
stage_end "$t" "$rc"

if [ "$HAVE_GPU" != 1 ] && [ -z "${GPU_CHECK_FORCE:-}" ]; then
    say "No GPU: the tests and the benchmarks were not run (GPU_CHECK_FORCE=1 runs them anyway)."
    say ""
    say "_total: $(elapsed) s_"
    echo "report: $REPORT"
    exit 0
fi

# pytest options the stages share
PYTEST_OPTS=(-p no:cacheprovider -o addopts= -rfEs)
"$PY" -c 'import pytest_timeout' 2>/dev/null && PYTEST_OPTS+=(--timeout=150)
XDIST=0
"$PY" -c 'import xdist' 2>/dev/null && XDIST=1
NPROC=$(nproc 2>/dev/null || echo 4)

pytest_summary() { # LOG: the counts line, then failures and skip reasons
    local log=$1
    say ""
    say "result: \`$(grep -E '(passed|failed|error|skipped|no tests ran)' "$log" | grep -E ' in [0-9.]+s' | tail -1 | tr -d '=' | sed 's/^ *//')\`"
    grep -q "KeyboardInterrupt" "$log" && say "(**interrupted at the stage's time limit**: the counts are of the tests that finished)"
    if grep -qE '^(FAILED|ERROR) ' "$log"; then
        say ""
        say "failed:"
        grep -E '^(FAILED|ERROR) ' "$log" | head -60 | cut -c1-400 | code
    fi
    if grep -q '^SKIPPED ' "$log"; then
        say ""
        say "skipped (-rs):"
        grep '^SKIPPED ' "$log" | head -80 | cut -c1-300 | code
    fi
}

# ---------------------------------------------------------------------------
# 1c. The GPU tests, verbose.

# The named ones, and whatever other test file says gpu, cuda or cupy in its name.
GPU_TESTS=(tests/devices tests/compiler/test_gpu_standin.py tests/runtime/test_expr_cuda.py)
[ -e tests/compiler/test_cuda_graph.py ] && GPU_TESTS+=(tests/compiler/test_cuda_graph.py)
for f in $(find tests -name 'test_*.py' -not -path 'tests/devices/*' | grep -E 'gpu|cuda|cupy' | sort); do
    case " ${GPU_TESTS[*]} " in *" $f "*) ;; *) GPU_TESTS+=("$f") ;; esac
done
t=$(date +%s)
say "## 1c. GPU tests"
say ""
say "\`pytest -v ${GPU_TESTS[*]}\`$([ -e tests/compiler/test_cuda_graph.py ] || echo ' (tests/compiler/test_cuda_graph.py: not in this tree)')"
N=()
[ "$XDIST" = 1 ] && N=(-n 8)
timeout -s INT -k 15 "$(limit $((BUDGET * 27 / 100)))" env "${TEST_ENV[@]}" "$PY" -m pytest "${PYTEST_OPTS[@]}" -v "${N[@]}" "${GPU_TESTS[@]}" >"$OUT/pytest_gpu.log" 2>&1
rc=$?
pytest_summary "$OUT/pytest_gpu.log"
{
    say ""
    say "per test (the GPU files; of tests/devices, the tests on the real gpu device and the ones named gpu/cuda/cupy):"
    grep -E '^\[gw[0-9]+\] \[ *[0-9]+%\] [A-Z]+ |^tests/[^ ]+::[^ ]+ (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)' "$OUT/pytest_gpu.log" |
        sed -E 's/^\[gw[0-9]+\] \[ *[0-9]+%\] //; s/ +\[ *[0-9]+%\]$//; s/ +$//' |
        grep -E 'gpu|cuda|cupy' | grep -vE '\[(cpu|cpu_async|null|gpu_fake)[]-]' | sort | head -400 | code
}
stage_end "$t" "$rc"

# ---------------------------------------------------------------------------
# 2. Benchmarks.

t=$(date +%s)
say "## 2. Benchmarks (benchmarks/bench_gpu.py)"
say ""
# One process per section, each under its own limit, so that a section that
# hangs (a CUDA call that never returns) costs only its own numbers; the
# results gather in one JSON file.  ResNet-50 first: it holds the target.
BT=$(limit $((BUDGET * 55 / 100)) $((BUDGET * 8 / 100)))
BENCH_END=$(($(date +%s) + BT))
rm -f "$OUT/bench_gpu.json" "$OUT/bench.log"
rc=0
bench() { # SECTION SECONDS: run one section with at most SECONDS (and what the stage has left)
    local section=$1 want=$2 l r
    l=$((BENCH_END - $(date +%s)))
    [ "$l" -lt "$want" ] && want=$l
    if [ "$want" -lt 10 ]; then
        say "- $section: not run (the stage's time was spent)"
        return
    fi
    echo "### $section (limit ${want} s)" >>"$OUT/bench.log"
    timeout -k 10 "$want" "$PY" -u benchmarks/bench_gpu.py --only "$section" --merge --json "$OUT/bench_gpu.json" \
        --budget $((want - 12)) ${GPU_CHECK_BENCH_ARGS:-} >>"$OUT/bench.log" 2>&1
    r=$?
    if [ "$r" -ne 0 ]; then
        rc=$r
        say "- $section: **exit $r**$([ "$r" -eq 124 ] && echo " (stopped at its limit, ${want} s)"); its last lines:"
        sed -n "/^### $section /,\$p" "$OUT/bench.log" | tail -25 | code
    fi
}
bench resnet50 $((BT - 40))
bench launch 25
bench mlp 20
say ""
"$PY" -u benchmarks/bench_gpu.py --summary --json "$OUT/bench_gpu.json" >"$OUT/.bench.md" 2>&1 ||
    echo "(no results: see bench.log)" >>"$OUT/.bench.md"
code <"$OUT/.bench.md"
rm -f "$OUT/.bench.md"
stage_end "$t" "$rc"

# ---------------------------------------------------------------------------
# 3. TFRT's GPU dialect tests.

say "## 3. TFRT's GPU dialect tests"
say ""
"$PY" - <<'EOF' >>"$REPORT" 2>&1
from tfrt.dialects import RUNTIME_DIALECTS
names = sorted(RUNTIME_DIALECTS)
print(f"Runtime dialects here: {', '.join(names)}.")
print()
if "tfrt_gpu" in names:
    print("A tfrt_gpu dialect is registered: its tests would apply.")
else:
    print("None apply: TFRT's GPU tests (backends/gpu/mlir_tests) exercise the `tfrt_gpu` dialect's kernels "
          "(streams, events, allocators, memcpy, cuBLAS/cuDNN/cuFFT wrappers), and this project has no such "
          "dialect: its GPU path is `place-devices{device=gpu}` placing `tfrt_array` kernels that run on "
          "cupy, with `tfrt_array.to_device`/`to_host`/`device_constant` (and `graph_call` for CUDA graphs) "
          "as its only GPU-specific ops.  What those tests check is covered here by tests/devices "
          "(the gpu device: streams, events, allocator), tests/compiler/test_gpu_standin.py (compiled "
          "programs, GPU against CPU) and tests/runtime/test_expr_cuda.py (the generated CUDA C), above.")
EOF
say ""

# ---------------------------------------------------------------------------
# 1b. The whole test suite (less 1c's files), with the time that is left.

t=$(date +%s)
say "## 1b. The whole test suite"
say ""
IGNORE=()
for f in "${GPU_TESTS[@]}"; do IGNORE+=("--ignore=$f"); done
NOT_RUN=$("$PY" - <<'EOF'
import importlib.util


def have(name):
    try:
        return importlib.util.find_spec(name) is not None
    except Exception:  # noqa: BLE001 - a parent package that fails to import
        return False


def lacking(*names):
    return [n for n in names if not have(n)]


rows = []
if lacking("starlette", "prometheus_client"):
    rows.append(("tests/serving", lacking("starlette", "prometheus_client", "uvicorn", "ray", "tritonclient")))
else:
    if lacking("ray"):
        rows.append(("tests/serving/test_ray.py", ["ray[serve]"]))
    if lacking("uvicorn", "tritonclient"):
        rows.append(("tests/serving/test_bef_serve.py", lacking("uvicorn", "tritonclient")))
for path, mods in rows:
    print(f"{path}\t{', '.join(mods)}")
EOF
)
while IFS=$'\t' read -r path mods; do
    [ -z "$path" ] && continue
    IGNORE+=("--ignore=$path")
    say "- not run: \`$path\`: needs $mods"
done <<<"$NOT_RUN"
say "- ran in 1c: ${GPU_TESTS[*]}"
N=()
[ "$XDIST" = 1 ] && N=(-n "$NPROC")
say ""
say "\`pytest -q -m 'not slow' ${N[*]} ${IGNORE[*]}\` with $(left) s left (the README's set: the slow stress runs take minutes each)"
timeout -s INT -k 20 "$(limit 300 12)" env "${TEST_ENV[@]}" "$PY" -m pytest "${PYTEST_OPTS[@]}" -q -m "not slow" "${N[@]}" "${IGNORE[@]}" tests >"$OUT/pytest_all.log" 2>&1
rc=$?
pytest_summary "$OUT/pytest_all.log"
stage_end "$t" "$rc"

say "_total: $(elapsed) s_"
echo "report: $REPORT"
