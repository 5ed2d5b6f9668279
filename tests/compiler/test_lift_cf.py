"""lift-cf-to-scf: CFG loops and if/else diamonds become scf.while/scf.if and run."""

from __future__ import annotations

import numpy as np
import pytest

import tfrt.api
from tfrt.diagnostics import DiagnosticError

LOOP = """
func.func @main(%start: tensor<i32>, %bound: tensor<i32>) -> tensor<i32> {
  cf.br ^bb1(%start : tensor<i32>)
^bb1(%i: tensor<i32>):
  %lt = arith.cmpi slt, %i, %bound : tensor<i32>
  %c = tensor.extract %lt[] : tensor<i1>
  cf.cond_br %c, ^bb2(%i : tensor<i32>), ^bb3(%i : tensor<i32>)
^bb2(%j: tensor<i32>):
  %n = arith.addi %j, %j : tensor<i32>
  cf.br ^bb1(%n : tensor<i32>)
^bb3(%r: tensor<i32>):
  return %r : tensor<i32>
}
"""

DIAMOND = """
func.func @main(%x: tensor<4xf32>, %p: i1) -> tensor<4xf32> {
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  %a = arith.addf %x, %x : tensor<4xf32>
  cf.br ^bb3(%a : tensor<4xf32>)
^bb2:
  %b = arith.mulf %x, %x : tensor<4xf32>
  cf.br ^bb3(%b : tensor<4xf32>)
^bb3(%r: tensor<4xf32>):
  return %r : tensor<4xf32>
}
"""


def _lifted(text: str) -> str:
    from tfrt.dialects.printer import print_module
    from tfrt.dialects.syntax import parse_module
    from tfrt.passes.lift_cf import LiftCfToScfPass

    module = parse_module(text)
    LiftCfToScfPass().apply(None, module)  # type: ignore[arg-type]
    return print_module(module)


def test_a_cfg_loop_becomes_scf_while_and_runs():
    ir = _lifted(LOOP)
    assert "scf.while" in ir and "cf.br" not in ir and "cf.cond_br" not in ir
    program = tfrt.api.load(LOOP)
    assert int(program.call("main", np.int32(1), np.int32(3))) == 4
    assert int(program.call("main", np.int32(5), np.int32(3))) == 5  # no trip
    assert int(program.call("main", np.int32(3), np.int32(100))) == 192


def test_a_diamond_becomes_scf_if_and_runs():
    ir = _lifted(DIAMOND)
    assert "scf.if" in ir and "cf.br" not in ir and "cf.cond_br" not in ir
    x = np.array([1, 2, 3, 4], np.float32)
    program = tfrt.api.load(DIAMOND)
    np.testing.assert_array_equal(program.call("main", x, True), x + x)
    np.testing.assert_array_equal(program.call("main", x, False), x * x)


def test_what_stays_unstructured_is_a_located_error():
    # Two exits from the loop: not a shape the pass lifts.
    text = """
func.func @main(%x: i32, %c: i1) -> i32 {
  cf.br ^bb1(%x : i32)
^bb1(%i: i32):
  cf.cond_br %c, ^bb2(%i : i32), ^bb3(%i : i32)
^bb2(%j: i32):
  cf.cond_br %c, ^bb1(%j : i32), ^bb3(%j : i32)
^bb3(%r: i32):
  return %r : i32
}
"""
    with pytest.raises(DiagnosticError) as info:
        tfrt.api.load(text)
    rendered = info.value.render()
    assert "error:" in rendered and "cf." in rendered
