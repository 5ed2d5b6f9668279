"""A synchronous kernel that returns another number of results than its
kernel entry says (a malformed file, or a kernel's bug) is reported the
same way on every path and every call: "kernel 'k' returned 1 results,
expected 2" at the kernel, never a Python error about unpacking."""

from __future__ import annotations

import sys

import pytest
from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module

from tfrt.executor import BEFProgram
from tfrt.host_context import HostContext
from tfrt.kernels.registry import BUILTIN_KERNEL_MODULES, KernelRegistry, kernel


@kernel("result_count_test.one")
def one(x):
    return x + 1


@kernel("result_count_test.one_pure", pure=True)
def one_pure(x):
    return x + 1


@kernel("result_count_test.three")
def three(x):
    return [x, x, x]


def registry() -> KernelRegistry:
    reg = KernelRegistry()
    for name in BUILTIN_KERNEL_MODULES:
        reg.add_module(name)
    return reg.add_module(sys.modules[__name__])


@pytest.mark.parametrize("sync", [False, True])
@pytest.mark.parametrize("name, got", [("one", 1), ("one_pure", 1), ("three", 3)])
def test_every_call_reports_the_count(sync, name, got):
    attr = " attributes {tfrt.sync}" if sync else ""
    text = "\n".join([
        f"func.func @main() -> i32{attr} {{",
        "  %c = tfrt.constant.i32 1",
        f'  %a, %b = "result_count_test.{name}"(%c) : (i32) -> (i32, i32)',
        "  %s = tfrt.add.i32 %a, %b",
        "  tfrt.return %s : i32",
        "}",
    ]) + "\n"  # fmt: skip
    diags: list[str] = []
    host = HostContext(registry=registry(), diag_handler=lambda d: diags.append(f"{d.location.line}: {d.message}"))
    program = BEFProgram.load(read_bef(write_bef(parse_module(text, "r.mlir", allow_unregistered=True)), lazy=True), host)
    fn = program.function("main")
    message = f"kernel 'result_count_test.{name}' returned {got} results, expected 2"
    for _ in range(4):  # (the column or ordered path, then the compiled code)
        results = fn.run(host.new_execution_context(), [])
        host.quiesce()
        assert [r.error.message for r in results] == [message]
    assert diags == [f"3: {message}"] * 4
