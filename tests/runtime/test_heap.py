"""tfrt.heap: the heap settings bef_executor makes for a large input."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tfrt import heap


def test_small_inputs_are_left_alone():
    assert heap.reserve_for_input(0) == 0
    assert heap.reserve_for_input(heap.MIN_INPUT - 1) == 0
    assert heap.reserve_for_input(heap.MIN_INPUT) == heap.MIN_INPUT * heap.HEAP_PER_INPUT_BYTE
    assert heap.reserve_for_input(1 << 40) == heap.MAX_RESERVE
    assert heap.prepare_heap(0) is False


def run(code: str, **env: str) -> str:
    """``code`` in a fresh process (the settings last for the process)."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env={**os.environ, **env}, check=True)  # fmt: skip
    return out.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_a_prepared_heap_keeps_freed_blocks():
    # A 32 MiB block freed and asked for again comes from the same heap
    # (the default hands it back to the system at once).
    code = """
        import ctypes, sys
        from tfrt.heap import prepare_heap
        libc = ctypes.CDLL(None)
        libc.malloc.restype = ctypes.c_void_p
        libc.malloc.argtypes = [ctypes.c_size_t]
        libc.free.argtypes = [ctypes.c_void_p]
        libc.sbrk.restype = ctypes.c_void_p
        libc.sbrk.argtypes = [ctypes.c_long]
        done = prepare_heap(64 << 20)
        top = libc.sbrk(0)
        p = libc.malloc(32 << 20)
        inside = p < top
        libc.free(p)
        print(done, inside, libc.sbrk(0) == top)
    """
    try:
        import ctypes

        ctypes.CDLL(None).gnu_get_libc_version  # noqa: B018
    except (OSError, AttributeError):
        pytest.skip("not glibc")
    assert run(code) == "True True True"
    assert run(code, TFRT_HEAP="system").startswith("False False")


def test_bef_executor_runs_a_large_input_the_same(tmp_path):
    # An input over MIN_INPUT (a long chain): the same output, with and
    # without the settings.
    n = 60_000
    lines = ["func.func @chain() -> i32 {", "  %v0 = tfrt.constant.i32 1"]
    lines += [f"  %v{i} = tfrt.add.i32 %v{i - 1}, %v0" for i in range(1, n + 1)]
    lines += [f"  tfrt.return %v{n} : i32", "}"]
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    data = write_bef(parse_module("\n".join(lines) + "\n", "chain.mlir"))
    assert heap.reserve_for_input(len(data)) > 0
    path = tmp_path / "chain.bef"
    path.write_bytes(data)
    exe = [sys.executable, "-c", "import sys; from tfrt.tools.bef_executor import main; sys.exit(main())", str(path)]
    outs = [subprocess.run(exe, check=False, capture_output=True, text=True, env={**os.environ, **env})
            for env in ({}, {"TFRT_HEAP": "system"})]  # fmt: skip
    for out in outs:
        assert out.returncode == 0, out.stderr
        assert f"'chain' returned {n + 1}" in out.stdout
    assert outs[0].stdout == outs[1].stdout
