"""The CPU op handler finds ops whose kernel module no program has imported yet."""

import subprocess
import sys


def test_cpu_op_handler_imports_the_module_that_registers_an_op():
    # A fresh interpreter: nothing has imported tfrt.kernels.tfrt_tensor yet.
    code = (
        "import sys\n"
        "from tfrt.tensor.corert import CpuOpHandler, NullOpHandler\n"
        "assert 'tfrt.kernels.tfrt_tensor' not in sys.modules\n"
        "op = CpuOpHandler(NullOpHandler()).make_op('tfrt_tensor.matmul')\n"
        "assert callable(op)\n"
        "try:\n"
        "    CpuOpHandler(NullOpHandler()).make_op('tfrt_tensor.no_such_op')\n"
        "except Exception as e:\n"
        "    assert 'was not supported by NullOpHandler' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('an unknown op was found')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
