"""The runtime never imports the compiler: run BEF with xdsl and lark blocked."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).parent

BLOCKER = textwrap.dedent(
    """
    import sys

    class _Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("xdsl", "lark"):
                raise ImportError(f"blocked import of {name}")
            return None

    sys.meta_path.insert(0, _Block())
    """
)

PROGRAM = """
func.func @main() -> i32 {
  %ch0 = tfrt.new.chain
  %x = tfrt.constant.i32 40
  %y = tfrt.constant.i32 2
  %z = tfrt.add.i32 %x, %y
  %ch1 = tfrt.print.i32 %z, %ch0
  tfrt.return %z : i32
}
"""


def _run(code: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + textwrap.dedent(code)],
        input=stdin, capture_output=True, timeout=120, cwd=HERE,
    )


def test_blocker_blocks():
    proc = _run("import xdsl\n")
    assert proc.returncode != 0 and b"blocked import of xdsl" in proc.stderr


def test_executor_runs_hand_built_program_without_compiler():
    proc = _run(
        """
        from bef_builder import ProgramBuilder
        from tfrt.api import Program
        from tfrt.executor import BEFProgram
        from tfrt.host_context import HostContext
        import tfrt.tools.bef_executor, tfrt.tracing

        b = ProgramBuilder()
        f = b.function("main", args=("i32",), results=("i32",))
        f.ret(f.op("tfrt.add.i32", f.args[0], f.op("tfrt.constant.i32", attrs=[("i32", 1)])))
        host = HostContext()
        prog = Program(BEFProgram.load(b.build(), host), host, [])
        print(prog.call("main", 41))
        assert not any(m.split(".")[0] in ("xdsl", "lark") for m in sys.modules)
        """
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == b"42\n"


def test_bef_executor_runs_bef_from_stdin_without_compiler():
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    bef = write_bef(parse_module(PROGRAM, "prog.mlir", allow_unregistered=True))
    proc = _run(
        """
        from tfrt.tools.bef_executor import main
        rc = main(["-"])
        assert not any(m.split(".")[0] in ("xdsl", "lark") for m in sys.modules)
        sys.exit(rc)
        """,
        stdin=bef,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    # The print feeds nothing, so stream analysis gives it its own stream: it
    # is enqueued and, as in TFRT, runs after the driver prints the result.
    assert proc.stdout.decode().splitlines()[-2:] == ["'main' returned 42", "int32 = 42"]


def test_a_program_imports_the_kernels_of_its_dialects_only():
    """bef_executor on a program of tfrt.* kernels imports the tfrt dialect's
    kernel modules, not the tensor dialects' (start-up time)."""
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    bef = write_bef(parse_module(PROGRAM, "prog.mlir", allow_unregistered=True))
    proc = _run(
        """
        from tfrt.tools.bef_executor import main
        rc = main(["-"])
        loaded = sorted(m for m in sys.modules if m.startswith("tfrt.kernels."))
        print(" ".join(loaded))
        sys.exit(rc)
        """,
        stdin=bef,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    loaded = proc.stdout.decode().splitlines()[-1].split()
    assert "tfrt.kernels.basic" in loaded
    assert "tfrt.kernels.tfrt_dht" not in loaded and "tfrt.kernels.tfrt_tensor" not in loaded
