"""tfrt_check --device=gpu: expectations compare device tensors (copied back
to the host), on the CuPy stand-in and on CuPy itself (the ``gpu`` fixture)."""

from __future__ import annotations

import textwrap

from gpu_fixture import gpu  # noqa: F401 - the fixture
from tfrt.tools.tfrt_check import main

TESTS = """\
func.func @passes() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = math.exp %a : tensor<4xf32>
  %c = math.log %b : tensor<4xf32>
  check.expect_almost_eq_const(%c, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>, atol 1.0e-5) : tensor<4xf32>
  %i = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %j = arith.addi %i, %i : tensor<2x2xi32>
  check.expect_eq_const(%j, dense<[[2, 4], [6, 8]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  check.expect_all_true(%j) : tensor<2x2xi32>
  return
}

func.func @fails() {
  %i = util.unfoldable_constant dense<[1, 2, 3]> : tensor<3xi32>
  %j = arith.muli %i, %i : tensor<3xi32>
  check.expect_eq_const(%j, dense<[1, 4, 10]> : tensor<3xi32>) : tensor<3xi32>
  return
}
"""


def test_expectations_on_the_gpu(gpu, tmp_path, capsys):  # noqa: F811 - the fixture
    path = tmp_path / "t.mlir"
    path.write_text(textwrap.dedent(TESTS))
    code = main([str(path), "--device=gpu"])
    out = capsys.readouterr().out
    assert code == 1
    assert "[       OK ] passes" in out
    assert f"{path}:16:3: error: check.expect_eq failed: 1 of 3 elements differ; the first at index [2]: computed 9, expected 10" in out
    assert "[  FAILED  ] fails" in out
