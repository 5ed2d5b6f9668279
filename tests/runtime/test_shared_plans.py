"""Functions whose bodies differ only in their locations (the branches of an
unrolled loop, say) share one column plan; each still reports its own
source location when a kernel fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module
from tfrt.executor import BEFProgram
from tfrt.host_context import HostContext

BIN = Path(sys.executable).parent


def blocks(divisors: list[int]) -> str:
    """@main: one tfrt.if per divisor; its else branch divides by it."""
    lines = ["func.func @main() -> i32 {", "  %one = tfrt.constant.i32 1", "  %f = tfrt.constant.i1 0",
             "  %a0 = tfrt.constant.i32 60"]  # fmt: skip
    for i, d in enumerate(divisors, 1):
        lines += [
            f"  %a{i} = tfrt.if %f, %a{i - 1} : (i32) -> i32 {{",
            f"    tfrt.return %a{i - 1} : i32",
            "  } else {",
            f"    %d = tfrt.constant.i32 {d}",
            f"    %q, %r = tfrt.div.i32 %a{i - 1}, %d",
            "    tfrt.return %q : i32",
            "  }",
        ]
    lines += [f"  tfrt.return %a{len(divisors)} : i32", "}"]
    return "\n".join(lines) + "\n"


def load(text: str) -> BEFProgram:
    data = write_bef(parse_module(text, "b.mlir"))
    return BEFProgram.load(read_bef(data, lazy=True), HostContext())


def call(program: BEFProgram):
    host = program.host
    fn = program.function("main")
    results = fn.execute(host.new_execution_context(), [])
    host.await_values(results)
    return results[0]


def test_identical_bodies_share_one_plan_and_different_ones_do_not():
    program = load(blocks([2, 2, 5, 2]))  # the third else branch divides by 5
    assert call(program).value == 60 // 2 // 2 // 5 // 2
    # Regions run: four else branches, of two distinct bodies.
    plans = [p for p in program._column_plans.values() if p is not None]
    assert len(plans) == 2
    # The first region of each body was made and planned; the other two
    # ran on those plans without a function object, each call counted.
    made = [f for f in program.functions.made() if not f.name]
    assert len(made) == 2
    assert {id(f._columns) for f in made} == {id(p) for p in plans}
    assert sorted(program._unmade_calls.values()) == [1, 1]
    ran = [f for f in program.functions if not f.name and f._columns is not False]
    assert len(ran) == 2  # (making the others now hands them their count)
    assert not program._unmade_calls
    assert sorted(f._calls for f in program.functions if not f.name and f._calls) == [1, 1, 1, 1]


def test_each_shared_body_still_names_its_own_line(tmp_path):
    text = blocks([3, 0, 0])  # the second and third branches divide by zero
    src = tmp_path / "b.mlir"
    src.write_text(text)
    bef = tmp_path / "b.bef"
    bef.write_bytes(write_bef(parse_module(text, str(src))))
    proc = subprocess.run([str(BIN / "bef_executor"), str(bef)], capture_output=True, cwd=tmp_path)
    err = proc.stderr.decode()
    # The first failing division is in the second block (line 16); its error
    # flows into the third block's if, which does not run its branch.
    assert "b.mlir:16:5: error: unexpected error: runtime error: Divide by zero" in err
    assert "b.mlir:23:" not in err
    assert "'main' returned <<error: Divide by zero>>" in proc.stdout.decode()


def test_later_calls_share_compiled_code_of_identical_bodies():
    program = load(blocks([2, 2, 5, 2]))
    for _ in range(3):  # the second call compiles (jit_threshold 2), the third runs it
        assert call(program).value == 60 // 2 // 2 // 5 // 2
    ran = [f for f in program.functions if not f.name and f._fast is not None]
    assert len(ran) == 4  # the four else branches
    assert len({id(f._fast) for f in ran}) == 2  # two distinct bodies, compiled once each
    assert len([c for c in program._fast_codes.values() if c is not None]) == 2


def test_a_shared_compiled_body_reports_the_failing_function_s_own_line():
    lines = ["func.func @main() -> i32 {", "  %f = tfrt.constant.i1 0", "  %x0 = tfrt.constant.i32 2",
             "  %zero = tfrt.constant.i32 0"]  # fmt: skip
    for i, x in enumerate(["%x0", "%zero"], 1):  # the same body, 60 / 2 and 60 / 0
        lines += [
            f"  %a{i} = tfrt.if %f, {x} : (i32) -> i32 {{",
            f"    tfrt.return {x} : i32",
            "  } else {",
            "    %k = tfrt.constant.i32 60",
            f"    %q, %r = tfrt.div.i32 %k, {x}",
            "    tfrt.return %q : i32",
            "  }",
        ]
    lines += ["  %s = tfrt.add.i32 %a1, %a2", "  tfrt.return %s : i32", "}"]
    diags = []
    data = write_bef(parse_module("\n".join(lines) + "\n", "b.mlir"))
    program = BEFProgram.load(read_bef(data, lazy=True), HostContext(diag_handler=diags.append))
    for _ in range(3):  # column path, then compiled, then compiled again
        assert call(program).error is not None
    assert [d.location.line for d in diags] == [16, 16, 16]  # the second block's division (line 16)
    fast = [f._fast for f in program.functions if not f.name and f._fast is not None]
    assert len(fast) == 2 and fast[0] is fast[1]


def test_a_body_with_an_async_kernel_is_compiled_for_itself():
    text = """
    func.func @main() -> i32 {
      %one = tfrt.constant.i32 1
      %f = tfrt.constant.i1 0
      %a = tfrt.if %f, %one : (i32) -> i32 {
        tfrt.return %one : i32
      } else {
        %x = tfrt.call @g(%one) : (i32) -> i32
        tfrt.return %x : i32
      }
      %b = tfrt.if %f, %a : (i32) -> i32 {
        tfrt.return %a : i32
      } else {
        %x = tfrt.call @g(%a) : (i32) -> i32
        tfrt.return %x : i32
      }
      tfrt.return %b : i32
    }
    func.func @g(%x: i32) -> i32 {
      %y = tfrt.add.i32 %x, %x
      tfrt.return %y : i32
    }
    """
    program = load(text)
    for _ in range(3):
        assert call(program).value == 4
    fast = [f._fast for f in program.functions if not f.name and f._fast is not None]
    assert len(fast) == 2 and fast[0] is not fast[1]


def test_a_region_run_on_a_shared_plan_reports_its_own_failure(tmp_path):
    # Two else branches with one body (10 / operand), the second after the
    # first; the second divides by zero.  It runs on the first one's plan before any object is made for
    # it, and its error still names its own line and its own function.
    text = "\n".join([
        "func.func @main() -> (i32, i32) {",
        "  %f = tfrt.constant.i1 0",
        "  %a = tfrt.constant.i32 2",
        "  %m = tfrt.constant.i32 -5",
        "  %r1 = tfrt.if %f, %a : (i32) -> i32 {",
        "    tfrt.return %a : i32",
        "  } else {",
        "    %d = tfrt.constant.i32 10",
        "    %q, %r = tfrt.div.i32 %d, %a",
        "    tfrt.return %q : i32",
        "  }",
        "  %z = tfrt.add.i32 %r1, %m",  # 0, once the first branch has run
        "  %r2 = tfrt.if %f, %z : (i32) -> i32 {",
        "    tfrt.return %z : i32",
        "  } else {",
        "    %d = tfrt.constant.i32 10",
        "    %q, %r = tfrt.div.i32 %d, %z",
        "    tfrt.return %q : i32",
        "  }",
        "  tfrt.return %r1, %r2 : i32, i32",
        "}",
    ]) + "\n"  # fmt: skip
    src = tmp_path / "b.mlir"
    src.write_text(text)
    data = write_bef(parse_module(text, str(src)))
    program = BEFProgram.load(read_bef(data, lazy=True), HostContext())
    host = program.host
    results = program.function("main").execute(host.new_execution_context(), [])
    host.await_values(results)
    assert results[0].value == 5
    assert "Divide by zero" in results[1].error.message
    assert len([f for f in program.functions.made() if not f.name]) == 2  # (the second made to report)
    bef = tmp_path / "b.bef"
    bef.write_bytes(data)
    proc = subprocess.run([str(BIN / "bef_executor"), str(bef)], capture_output=True, cwd=tmp_path)
    err = proc.stderr.decode()
    assert "b.mlir:17:5: error: unexpected error: runtime error: Divide by zero" in err
    assert "b.mlir:9:" not in err
    assert "'main' returned 5,<<error: Divide by zero>>" in proc.stdout.decode()
