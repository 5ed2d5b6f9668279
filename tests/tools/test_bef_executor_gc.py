"""bef_executor runs a function with the program frozen out of the cyclic
GC's way, and leaves the process's own frozen objects as they were."""

from __future__ import annotations

import contextlib
import gc
import io

from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module
from tfrt.tools.bef_executor import main

PROGRAM = """\
func.func @f() -> i32 {
  %one = tfrt.constant.i32 1
  %two = tfrt.add.i32 %one, %one
  tfrt.return %two : i32
}
"""


def run(path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([str(path)]) == 0
    return out.getvalue()


def test_the_freeze_count_is_what_it_was(tmp_path):
    path = tmp_path / "p.bef"
    path.write_bytes(write_bef(parse_module(PROGRAM, "p.mlir")))
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    assert "'f' returned 2" in run(path)
    assert gc.get_freeze_count() == 0  # thawed after the run
    gc.freeze()  # a caller that froze its own heap (the BEF fuzz does)
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        assert "'f' returned 2" in run(path)
        assert gc.get_freeze_count() >= frozen  # not thawed by the tool
    finally:
        gc.unfreeze()
