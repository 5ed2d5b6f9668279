"""`tfrt.sync` functions run kernel after kernel in program order (TFRT's BEFInterpreter)."""

from __future__ import annotations

import pytest

import tfrt.api

ORDER = """
func.func @order() -> i32 attributes {tfrt.sync} {
  %ch = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %c1 = tfrt.print.i32 %three, %ch
  %c2 = tfrt.print.i32 %two, %ch
  %c3 = tfrt.print.i32 %one, %ch
  tfrt.return %one : i32
}

func.func @stops_at_error(%x: i32) -> i32 attributes {tfrt.sync} {
  %ch = tfrt.new.chain
  %zero = tfrt.constant.i32 0
  %q, %r = tfrt.div.i32 %x, %zero
  %c1 = tfrt.print.i32 %x, %ch
  tfrt.return %q : i32
}
"""


@pytest.fixture(scope="module")
def program():
    return tfrt.api.load(ORDER)


def test_independent_kernels_run_in_program_order(program, capsys):
    # Nothing links the three prints but the shared chain: a dataflow
    # executor may run them in any order, a sync function may not.
    assert program.call("order") == 1
    assert capsys.readouterr().out == "int32 = 3\nint32 = 2\nint32 = 1\n"


def test_first_error_ends_the_function(program, capsys):
    with pytest.raises(tfrt.api.ExecutionError, match="Divide by zero"):
        program.call("stops_at_error", 5)
    assert "int32 = 5" not in capsys.readouterr().out
