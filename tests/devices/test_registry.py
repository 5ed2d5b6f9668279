"""The device registry, the ``tfrt.devices`` entry points and the third-party sample."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tfrt.devices import DeviceError, DeviceRegistry, parse_device_name
from tfrt.devices.cpu import CpuDevice
from tfrt.devices.null import NullDevice

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "third_party_device"


def test_parse_device_name():
    assert parse_device_name("cpu") == ("cpu", 0)
    assert parse_device_name("gpu:3") == ("gpu", 3)
    for bad in ("", ":1", "gpu:x", "gpu:-1"):
        with pytest.raises(DeviceError, match="invalid device name"):
            parse_device_name(bad)


def test_builtin_kinds_and_lazy_creation():
    reg = DeviceRegistry(entry_points=False)
    assert {"cpu", "cpu_async", "gpu", "null"} <= set(reg.kinds())
    assert reg.devices() == []
    cpu = reg.get("cpu")
    assert reg.get("cpu:0") is cpu and cpu.name == "cpu:0"
    assert reg.get("cpu:1") is not cpu
    assert [d.name for d in reg.devices()] == ["cpu:0", "cpu:1"]


def test_unknown_kind():
    reg = DeviceRegistry(entry_points=False)
    with pytest.raises(DeviceError, match="unknown device kind 'tpu'"):
        reg.get("tpu")
    assert not reg.is_available("tpu")


def test_register_a_factory_and_replace():
    reg = DeviceRegistry(builtins=False, entry_points=False)
    reg.register("mine", NullDevice)
    assert isinstance(reg.get("mine"), NullDevice)
    with pytest.raises(DeviceError, match="already registered"):
        reg.register("mine", CpuDevice)
    reg.register("mine", CpuDevice, replace=True)
    assert isinstance(reg.get("mine"), CpuDevice)


def test_bad_factories_are_reported():
    reg = DeviceRegistry(builtins=False, entry_points=False)
    reg.register("missing", "no_such_module_xyz:Device")
    with pytest.raises(DeviceError, match="cannot load device kind 'missing'"):
        reg.get("missing")
    reg.register("notadevice", lambda index: object())
    with pytest.raises(DeviceError, match="returned object"):
        reg.get("notadevice")


def test_gpu_is_unavailable_without_cupy_or_cuda():
    from tfrt.devices.gpu import GpuDevice

    reg = DeviceRegistry(entry_points=False)
    available = reg.is_available("gpu")
    assert available == GpuDevice.is_available()
    if not available:
        with pytest.raises(DeviceError, match="cupy|CUDA"):
            reg.get("gpu")


def test_the_host_runtime_does_not_import_cupy():
    code = (
        "import sys, tfrt.devices, tfrt.tensor, tfrt.devices.gpu;"
        "from tfrt.devices import get_device; get_device('cpu');"
        "print('cupy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_null_device_records_calls():
    dev = NullDevice(5)
    t = dev.copy_to_device(np.zeros((2, 3), np.int32))
    out = dev.ops.matmul(t, t, transpose_b=True)
    assert out.shape.dims == (2, 2) and out.array is None
    assert ("copy_to_device", "i32 [2, 3]") in dev.calls
    assert ("op", "matmul", ["[2, 3]", "[2, 3]"], {"transpose_a": False, "transpose_b": True}) in dev.calls
    assert ("alloc", 16) in dev.calls
    host = dev.copy_to_host(out).get()
    assert host.array.tolist() == [[0, 0], [0, 0]]
    del t, out
    assert ("free", 24) in dev.calls
    dev.clear()
    assert dev.calls == []


@pytest.fixture(scope="module")
def installed_sample(tmp_path_factory):
    """The sample package, pip-installed (offline, no deps) into a private directory."""
    target = tmp_path_factory.mktemp("site")
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
           "--disable-pip-version-check", "--target", str(target), str(SAMPLE)]
    env = dict(os.environ, PIP_NO_INPUT="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


def _run_with(site: Path, code: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=env, cwd=str(site))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_third_party_device_is_found_through_entry_points(installed_sample):
    assert (installed_sample / "tfrt_sample_device" / "__init__.py").is_file()
    code = (
        "import json, numpy as np\n"
        "from tfrt.devices import device_kinds, get_device, available_device_kinds\n"
        "from tfrt.devices import dispatch\n"
        "dev = get_device('counting')\n"
        "a = dev.copy_to_device(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32))\n"
        "b = dev.ops.relu(dev.ops.matmul(a, a))\n"
        "c = dispatch('add', b, b)\n"
        "print(json.dumps({'kinds': device_kinds(), 'avail': available_device_kinds(),\n"
        "   'name': dev.name, 'type': type(dev).__module__, 'values': c.array.tolist(),\n"
        "   'counts': dict(dev.op_counts)}))\n"
    )
    result = json.loads(_run_with(installed_sample, code))
    assert "counting" in result["kinds"] and "counting" in result["avail"]
    assert result["name"] == "counting:0"
    assert result["type"] == "tfrt_sample_device"
    assert result["values"] == [[0.0, 0.0], [30.0, 20.0]]
    # dispatch() ran on the cpu device (host tensors belong to cpu), the rest on counting.
    assert result["counts"] == {"matmul": 1, "relu": 1}


def test_a_plugin_cannot_replace_a_builtin_kind(installed_sample, tmp_path):
    # A second distribution that claims the kind "cpu" must not win over the built-in.
    dist = tmp_path / "evil-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evil\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[tfrt.devices]\ncpu = tfrt_sample_device:CountingDevice\n")
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "from tfrt.devices import get_device\n"
        "print(type(get_device('cpu')).__name__)\n" % str(tmp_path)
    )
    assert _run_with(installed_sample, code).strip() == "CpuDevice"


def test_tensor_and_device_packages_need_no_compiler():
    # The runtime half must import (and run an op) with xdsl and lark unavailable.
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('xdsl', 'lark', 'cupy'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import numpy as np, tfrt.tensor, tfrt.devices\n"
        "from tfrt.devices import get_device\n"
        "from tfrt.kernels.registry import default_registry\n"
        "assert 'tfrt_tensor.matmul' in default_registry()\n"
        "cpu = get_device('cpu')\n"
        "print(cpu.ops.relu(cpu.copy_to_device(np.array([-1.0, 2.0]))).array.tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0.0, 2.0]"


def test_device_modules_import_in_layers_without_a_circle():
    """errors <- ops <- base <- registry: each imports only modules below it,
    at module level, and none imports another inside a function."""
    import ast
    from pathlib import Path

    import tfrt.devices as pkg

    layers = ["errors", "ops", "base", "registry"]
    folder = Path(pkg.__file__).parent
    for i, name in enumerate(layers):
        tree = ast.parse((folder / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tfrt.devices."):
                dep = node.module.rsplit(".", 1)[1]
                if dep in layers:
                    assert layers.index(dep) < i, f"{name} imports {dep}"
                    assert node in tree.body, f"{name} imports {dep} inside a function"
