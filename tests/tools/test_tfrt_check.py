"""tfrt_check: IREE's check/util ops, their lowering and kernels, and the test runner.

Semantics checked here (IREE's ``CheckOps.td`` and its runtime module):
``expect_eq`` compares bits; ``expect_almost_eq`` accepts ``lhs == rhs``, two
NaNs, or a finite ``rhs`` with ``|lhs - rhs| <= atol + rtol * |rhs|``, with
``atol`` 1e-4 and ``rtol`` 0 by default; a failed expectation does not stop
its test.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tfrt.diagnostics import DiagnosticError
from tfrt.tools.tfrt_check import main, top_level_ops

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_PLUGIN = ROOT / "samples" / "lowering_pass" / "mylib_passes.py"
TFRT_CHECK = Path(sys.executable).parent / "tfrt_check"


@pytest.fixture
def write(tmp_path):
    def _write(text: str, name: str = "t.mlir") -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return str(path)

    return _write


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_test(body: str) -> str:
    """A module with one test function ``@t`` whose body is ``body``."""
    body = textwrap.dedent(body).strip("\n")
    return "func.func @t() {\n" + textwrap.indent(body + "\n" if body else "", "  ") + "  return\n}\n"


# ---------------------------------------------------------------------------
# Passing and failing expectations of each kind

PASSING = {
    "expect_true": """
        %c = util.unfoldable_constant 7 : i32
        check.expect_true(%c) : i32
    """,
    "expect_false": """
        %c = util.unfoldable_constant 0 : i8
        check.expect_false(%c) : i8
    """,
    "expect_all_true": """
        %c = util.unfoldable_constant dense<[[1, -1], [5, 2]]> : tensor<2x2xi32>
        check.expect_all_true(%c) : tensor<2x2xi32>
    """,
    "expect_eq": """
        %a = util.unfoldable_constant dense<[1, 2, 3]> : tensor<3xi64>
        %b = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
        check.expect_eq(%a, %b) : tensor<3xi64>
    """,
    "expect_eq_const": """
        %a = util.unfoldable_constant dense<[1.5, -2.0]> : tensor<2xf32>
        check.expect_eq_const(%a, dense<[1.5, -2.0]> : tensor<2xf32>) : tensor<2xf32>
    """,
    "expect_almost_eq": """
        %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf64>
        %b = arith.constant dense<[1.00001, 2.0]> : tensor<2xf64>
        check.expect_almost_eq(%a, %b) : tensor<2xf64>
    """,
    "expect_almost_eq_const": """
        %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf16>
        check.expect_almost_eq_const(%a, dense<[1.0, 2.0]> : tensor<2xf16>, atol 1.0e-2) : tensor<2xf16>
    """,
}

# (body, what the failure message says)
FAILING = {
    "expect_true": (
        """
        %c = util.unfoldable_constant 0 : i32
        check.expect_true(%c) : i32
        """,
        "check.expect_true failed: the value is 0; expected non-zero",
    ),
    "expect_false": (
        """
        %c = util.unfoldable_constant 3 : i32
        check.expect_false(%c) : i32
        """,
        "check.expect_false failed: the value is 3; expected zero",
    ),
    "expect_all_true": (
        """
        %c = util.unfoldable_constant dense<[[1, 1], [0, 2]]> : tensor<2x2xi32>
        check.expect_all_true(%c) : tensor<2x2xi32>
        """,
        "check.expect_all_true failed: 1 of 4 elements are zero; the first at index [1, 0]",
    ),
    "expect_eq": (
        """
        %a = util.unfoldable_constant dense<[1, 2, 3]> : tensor<3xi32>
        %b = arith.constant dense<[1, 5, 6]> : tensor<3xi32>
        check.expect_eq(%a, %b) : tensor<3xi32>
        """,
        "check.expect_eq failed: 2 of 3 elements differ; the first at index [1]: computed 2, expected 5",
    ),
    "expect_eq_const": (
        """
        %a = util.unfoldable_constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>
        check.expect_eq_const(%a, dense<[[1, 2], [7, 4]]> : tensor<2x2xi16>) : tensor<2x2xi16>
        """,
        "check.expect_eq failed: 1 of 4 elements differ; the first at index [1, 0]: computed 3, expected 7",
    ),
    "expect_almost_eq": (
        """
        %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
        %b = arith.constant dense<[1.0, 2.5]> : tensor<2xf32>
        check.expect_almost_eq(%a, %b, atol 0.25) : tensor<2xf32>
        """,
        ("check.expect_almost_eq failed: 1 of 2 elements differ by more than atol + rtol * |expected| "
         "(atol 0.25, rtol 0); the first at index [1]: computed 2.0, expected 2.5 (|difference| 0.5 > 0.25)"),
    ),
    "expect_almost_eq_const": (
        """
        %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
        check.expect_almost_eq_const(%a, dense<[1.0, 2.0, 3.1]> : tensor<3xf32>) : tensor<3xf32>
        """,
        ("check.expect_almost_eq failed: 1 of 3 elements differ by more than atol + rtol * |expected| "
         "(atol 0.0001, rtol 0); the first at index [2]: computed 3.0, expected 3.1"),
    ),
}


@pytest.mark.parametrize("kind", sorted(PASSING))
def test_passing_expectation(capsys, write, kind):
    code, out, err = run(capsys, write(one_test(PASSING[kind])))
    assert (code, err) == (0, "")
    assert "[       OK ] t (" in out
    assert "[  PASSED  ] 1 test.\n" in out
    assert "FAILED" not in out


@pytest.mark.parametrize("kind", sorted(FAILING))
def test_failing_expectation(capsys, write, kind):
    body, message = FAILING[kind]
    path = write(one_test(body))
    code, out, err = run(capsys, path)
    assert code == 1
    assert err == ""
    assert f"{path}:" in out and f": error: {message}" in out
    assert "[  FAILED  ] t (" in out
    assert out.endswith("[  FAILED  ] 1 test, listed below:\n[  FAILED  ] t\n")


def test_failure_shows_both_values_and_their_types(capsys, write):
    body, _ = FAILING["expect_eq_const"]
    code, out, _ = run(capsys, write(one_test(body)))
    assert code == 1
    assert "  computed: tensor<2x2xi16> [[1, 2], [3, 4]]\n" in out
    assert "  expected: tensor<2x2xi16> [[1, 2], [7, 4]]\n" in out


def test_a_failed_expectation_does_not_stop_the_test(capsys, write):
    # gtest's EXPECT: both failures are reported, in program order, and the
    # expectations between them still run.
    path = write(one_test("""
        %z = util.unfoldable_constant 0 : i32
        %one = util.unfoldable_constant 1 : i32
        check.expect_true(%z) : i32
        check.expect_true(%one) : i32
        check.expect_false(%one) : i32
    """))
    code, out, _ = run(capsys, path, "-v")
    assert code == 1
    first = out.index(f"{path}:4:3: error: check.expect_true failed")
    second = out.index(f"{path}:6:3: error: check.expect_false failed")
    assert first < second
    assert out.count("error:") == 2


def test_identical_failing_expectations_are_not_merged(capsys, write):
    # CSE would merge two identical ops without effects; expectations have one.
    path = write(one_test("""
        %z = util.unfoldable_constant 0 : i32
        check.expect_true(%z) : i32
        check.expect_true(%z) : i32
    """))
    code, out, _ = run(capsys, path)
    assert code == 1
    assert out.count("check.expect_true failed") == 2


def test_verbose_counts_expectations_and_shows_source(capsys, write):
    path = write(one_test("""
        %z = util.unfoldable_constant 0 : i32
        check.expect_false(%z) : i32
        check.expect_true(%z) : i32
    """) + one_test("").replace("@t", "@u"))
    code, out, _ = run(capsys, path, "-v")
    assert code == 1
    assert "  check.expect_true(%z) : i32\n  ^\n" in out
    assert "  0 expectations checked\n[       OK ] u" in out


# ---------------------------------------------------------------------------
# Tolerances: IREE's defaults and its comparison


def almost(computed: str, expected: str, tolerances: str = "", t: str = "tensor<1xf32>") -> str:
    return one_test(f"""
        %a = util.unfoldable_constant dense<{computed}> : {t}
        check.expect_almost_eq_const(%a, dense<{expected}> : {t}{tolerances}) : {t}
    """)


@pytest.mark.parametrize(
    "computed, expected, tolerances, passes",
    [
        ("1.0", "1.00009", "", True),  # default atol 1e-4
        ("1.0", "1.0002", "", False),
        ("1000.0", "1000.01", "", False),  # default rtol 0: large values compare exactly-ish
        ("1000.0", "1000.01", ", rtol 1.0e-4", True),
        ("1000.0", "1000.01", ", atol 0.0, rtol 1.0e-6", False),
        ("1.0", "1.4", ", atol 0.5", True),
        ("1.0", "1.4", ", atol 0.25, rtol 0.125", True),  # 0.4 <= 0.25 + 0.125 * 1.4
        ("1.0", "1.5", ", atol 0.25, rtol 0.125", False),
        ("-0.0", "0.0", "", True),
    ],
)
def test_almost_eq_tolerance(capsys, write, computed, expected, tolerances, passes):
    code, out, _ = run(capsys, write(almost(computed, expected, tolerances)))
    assert code == (0 if passes else 1), out


def special(x: str) -> str:
    """A computed NaN or infinity (``x / 0.0`` for x = 0.0, 1.0), or a number."""
    if x in ("nan", "inf"):
        return f"""
        %{{0}}_num = util.unfoldable_constant dense<{'0.0' if x == 'nan' else '1.0'}> : tensor<1xf32>
        %{{0}}_zero = util.unfoldable_constant dense<0.0> : tensor<1xf32>
        %{{0}} = arith.divf %{{0}}_num, %{{0}}_zero : tensor<1xf32>
        """
    return f"%{{0}} = util.unfoldable_constant dense<{x}> : tensor<1xf32>"


@pytest.mark.parametrize(
    "computed, expected, tolerances, passes",
    [
        ("nan", "nan", "", True),  # two NaNs are close
        ("nan", "1.0", ", atol 1.0e+30", False),
        ("1.0", "nan", ", atol 1.0e+30", False),
        ("inf", "inf", "", True),
        ("1.0e+38", "inf", ", atol 1.0e+38", False),  # an infinite expectation takes no tolerance
    ],
)
def test_almost_eq_special_values(capsys, write, computed, expected, tolerances, passes):
    body = (special(computed).format("a") + "\n" + special(expected).format("b") + "\n"
            + f"check.expect_almost_eq(%a, %b{tolerances}) : tensor<1xf32>")  # fmt: skip
    with np.errstate(all="ignore"):
        code, out, _ = run(capsys, write(one_test(textwrap.dedent(body))))
    assert code == (0 if passes else 1), out


def test_special_value_messages():
    from tfrt.kernels.tfrt_check import compare_almost_eq

    inf = np.array([np.inf], np.float32)
    message, _ = compare_almost_eq(np.array([1.0], np.float32), inf, 1.0, 0.0)
    assert message.endswith("computed 1.0, expected inf (a value that is not finite is met only by itself)")
    message, _ = compare_almost_eq(np.array([np.nan], np.float32), np.array([1.0], np.float32), 1.0, 0.0)
    assert message.endswith("computed nan, expected 1.0 (NaN computed)")


def test_eq_of_computed_nans(capsys, write):
    # The same NaN bits on both sides: equal, as IREE compares bytes.
    body = special("nan").format("a") + "\n" + "check.expect_eq(%a, %a) : tensor<1xf32>"
    with np.errstate(all="ignore"):
        assert run(capsys, write(one_test(textwrap.dedent(body))))[0] == 0


def test_rtol_scales_the_expected_value(capsys, write):
    # |lhs - rhs| <= atol + rtol * |rhs|: rhs is the value expected.
    lhs_big = one_test("""
        %a = util.unfoldable_constant dense<[2.0]> : tensor<1xf32>
        %b = arith.constant dense<[1.0]> : tensor<1xf32>
        check.expect_almost_eq(%a, %b, atol 0.0, rtol 0.6) : tensor<1xf32>
    """)
    assert run(capsys, write(lhs_big))[0] == 1  # 1.0 > 0.6 * 1.0
    rhs_big = lhs_big.replace("[2.0]", "[9.0]").replace("[1.0]", "[2.0]").replace("[9.0]", "[1.0]")
    assert run(capsys, write(rhs_big, "u.mlir"))[0] == 0  # 1.0 <= 0.6 * 2.0


def test_default_tolerances_are_irees():
    from tfrt.dialects.iree_test import DEFAULT_ATOL, DEFAULT_RTOL, tolerances
    from tfrt.dialects.syntax import parse_module

    module = parse_module(one_test("""
        %a = util.unfoldable_constant dense<[1.0]> : tensor<1xf32>
        check.expect_almost_eq_const(%a, dense<[1.0]> : tensor<1xf32>) : tensor<1xf32>
        check.expect_almost_eq_const(%a, dense<[1.0]> : tensor<1xf32>, rtol 5.0e-01) : tensor<1xf32>
    """))
    ops = [op for op in module.walk() if op.name == "check.expect_almost_eq_const"]
    assert (DEFAULT_ATOL, DEFAULT_RTOL) == (1.0e-4, 0.0)
    assert tolerances(ops[0]) == (1.0e-4, 0.0)
    assert tolerances(ops[1]) == (1.0e-4, 0.5)


def test_eq_compares_bits():
    from tfrt.kernels.tfrt_check import compare_eq

    nan = np.array([np.nan], np.float32)
    assert compare_eq(nan, nan.copy()) is None  # the same NaN
    assert compare_eq(np.array([-0.0], np.float32), np.array([0.0], np.float32)) is not None
    assert compare_eq(np.array([1, 2], np.int8), np.array([1, 2], np.int8)) is None


def test_mismatched_shapes_and_types_are_named():
    from tfrt.kernels.tfrt_check import compare_almost_eq, compare_eq

    message, details = compare_eq(np.zeros((2, 3), np.int32), np.zeros((3, 2), np.int32))
    assert message == "the shapes differ (2x3 computed, 3x2 expected)"
    assert details == ("computed: tensor<2x3xi32> [[0, 0, 0], [0, 0, 0]]",
                       "expected: tensor<3x2xi32> [[0, 0], [0, 0], [0, 0]]")  # fmt: skip
    message, _ = compare_almost_eq(np.zeros(2, np.float32), np.zeros(2, np.float64), 1e-4, 0.0)
    assert message == "the element types differ (f32 computed, f64 expected)"
    message, _ = compare_eq(np.zeros(2, np.int32), np.zeros((1, 2), np.int64))
    assert "the shapes differ" in message and "the element types differ (i32 computed, i64 expected)" in message


def test_large_tensors_are_summarized():
    from tfrt.kernels.tfrt_check import compare_eq

    a = np.arange(1000, dtype=np.int32)
    b = a.copy()
    b[500] = -1
    message, details = compare_eq(a, b)
    assert "the first at index [500]: computed 500, expected -1" in message
    assert "..." in details[0] and len(details[0]) < 200


# ---------------------------------------------------------------------------
# The runner: output, isolation, inputs


def test_gtest_output(capsys, write):
    path = write("""\
        func.func @adds() {
          %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
          %b = arith.addi %a, %a : tensor<2xi32>
          check.expect_eq_const(%b, dense<[2, 4]> : tensor<2xi32>) : tensor<2xi32>
          return
        }

        func.func @subtracts() {
          %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
          %b = arith.subi %a, %a : tensor<2xi32>
          check.expect_eq_const(%b, dense<[0, 1]> : tensor<2xi32>) : tensor<2xi32>
          return
        }
    """)
    code, out, err = run(capsys, path)
    assert (code, err) == (1, "")
    lines = [line if "ms)" not in line else line[: line.rindex("(")] + "(N ms)" for line in out.splitlines()]
    assert lines == [
        f"[==========] Running 2 tests from {path}",
        "[ RUN      ] adds",
        "[       OK ] adds (N ms)",
        "[ RUN      ] subtracts",
        (f"{path}:11:3: error: check.expect_eq failed: 1 of 2 elements differ; the first at index [1]: "
         "computed 0, expected 1"),
        "  computed: tensor<2xi32> [0, 0]",
        "  expected: tensor<2xi32> [0, 1]",
        "[  FAILED  ] subtracts (N ms)",
        "[==========] 2 tests ran.",
        "[  PASSED  ] 1 test.",
        "[  FAILED  ] 1 test, listed below:",
        "[  FAILED  ] subtracts",
    ]


def test_only_public_functions_without_arguments_are_tests(capsys, write):
    path = write("""\
        func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
          %y = arith.addf %x, %x : tensor<2xf32>
          return %y : tensor<2xf32>
        }
        func.func @with_argument(%x: i32) {
          return
        }
        func.func @uses_helper() {
          %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
          %b = func.call @helper(%a) : (tensor<2xf32>) -> tensor<2xf32>
          check.expect_almost_eq_const(%b, dense<[2.0, 4.0]> : tensor<2xf32>) : tensor<2xf32>
          return
        }
    """)
    code, out, _ = run(capsys, path)
    assert code == 0
    assert "Running 1 test from" in out and "[       OK ] uses_helper" in out
    code, out, _ = run(capsys, path, "-v")
    assert "note: with_argument: not a test (it takes arguments)" in out


def test_filter(capsys, write):
    path = write(one_test("") + one_test("").replace("@t", "@u") + one_test("").replace("@t", "@other"))
    code, out, _ = run(capsys, path, "--filter=u:oth*")
    assert code == 0
    assert "Running 2 tests" in out and "[ RUN      ] u" in out and "[ RUN      ] other" in out
    assert "[ RUN      ] t" not in out
    code, out, _ = run(capsys, path, "--filter=nothing")
    assert code == 0 and "Running 0 tests" in out


ISOLATION = """\
func.func @good() {
  %a = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  return
}

func.func @not_lowered() {
  %a = "mylib.make"() : () -> tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  return
}

func.func @not_parsed() {
  %a = mylib.make 3 : tensor<2xi32>
  check.expect_eq_const(%a, dense<[1, 2]> : tensor<2xi32>) : tensor<2xi32>
  return
}

func.func @also_good() {
  %a = util.unfoldable_constant 1 : i32
  check.expect_true(%a) : i32
  return
}
"""


def test_a_compile_error_fails_only_its_test(capsys, write):
    path = write(ISOLATION)
    code, out, err = run(capsys, path)
    assert code == 1 and err == ""
    assert "[       OK ] good" in out and "[       OK ] also_good" in out
    # Each error at its op, with the source line, inside its test's block.
    block = out[out.index("[ RUN      ] not_lowered"): out.index("[  FAILED  ] not_lowered")]
    assert f"{path}:8:3: error: 'mylib.make' op cannot be lowered" in block
    assert '  %a = "mylib.make"() : () -> tensor<2xi32>\n  ^' in block
    block = out[out.index("[ RUN      ] not_parsed"): out.index("[  FAILED  ] not_parsed")]
    assert f"{path}:14:8: error: custom op 'mylib.make' is unknown" in block
    assert out.endswith("[  FAILED  ] 2 tests, listed below:\n[  FAILED  ] not_lowered\n[  FAILED  ] not_parsed\n")
    # Tests run in file order.
    assert out.index("RUN      ] good") < out.index("RUN      ] not_lowered") < out.index(
        "RUN      ] not_parsed") < out.index("RUN      ] also_good")  # fmt: skip


def test_a_helper_that_does_not_parse_fails_its_callers(capsys, write):
    path = write("""\
        func.func private @helper() -> i32 {
          %a = mylib.make : i32
          return %a : i32
        }
        func.func @caller() {
          %a = func.call @helper() : () -> i32
          check.expect_true(%a) : i32
          return
        }
        func.func @independent() {
          return
        }
    """)
    code, out, _ = run(capsys, path)
    assert code == 1
    assert "[       OK ] independent" in out
    block = out[out.index("[ RUN      ] caller"): out.index("[  FAILED  ] caller")]
    assert "error: custom op 'mylib.make' is unknown" in block
    assert "note: 'caller' uses '@helper', which is not valid" in block


def test_a_runtime_error_fails_its_test(capsys, write):
    path = write("""\
        func.func @out_of_bounds() {
          %t = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
          %i = util.unfoldable_constant 5 : index
          %e = tensor.extract %t[%i] : tensor<2xi32>
          check.expect_true(%e) : i32
          return
        }
        func.func @fine() {
          return
        }
    """)
    code, out, _ = run(capsys, path)
    assert code == 1
    block = out[out.index("[ RUN      ] out_of_bounds"): out.index("[  FAILED  ] out_of_bounds")]
    assert f"{path}:4:" in block and "error: runtime error:" in block
    assert "[       OK ] fine" in out


def test_bef_input(capsys, write, tmp_path):
    from tfrt.passes.compiler import compile_text_to_bef

    source = ISOLATION.split("func.func @not_lowered")[0] + textwrap.dedent(FAILING["expect_eq"][0]).join(
        ["func.func @fails() {\n", "  return\n}\n"])  # fmt: skip
    path = write(source)
    bef = tmp_path / "t.bef"
    bef.write_bytes(compile_text_to_bef(source, path))
    code, out, _ = run(capsys, str(bef))
    assert code == 1
    assert f"Running 2 tests from {bef}" in out
    assert "[       OK ] good" in out and "[  FAILED  ] fails" in out
    # The locations are the source file's, which BEF carries.
    assert f"{path}:" in out and "check.expect_eq failed" in out


def test_exit_status_of_a_passing_file_is_zero(capsys, write):
    assert run(capsys, write(ISOLATION.split("func.func @not_lowered")[0]))[0] == 0


# -- bad input: an error message and status 1, never a traceback -------------


def test_missing_file(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nope.mlir"))
    assert code == 1 and out == ""
    assert err.startswith("error: cannot open input file") and "Traceback" not in err


def test_malformed_mlir(capsys, write):
    path = write("this is not MLIR\n")
    code, out, err = run(capsys, path)
    assert code == 1 and out == ""
    assert err.startswith(f"{path}:1:1: error:") and "Traceback" not in err


def test_malformed_bef(capsys, tmp_path):
    path = tmp_path / "bad.bef"
    path.write_bytes(b"\x0b\xef\x00\x01garbage")
    code, out, err = run(capsys, str(path))
    assert code == 1 and out == ""
    assert err.startswith(f"error: {path}: invalid BEF file:") and "Traceback" not in err


def test_binary_that_is_not_bef(capsys, tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"\xff\xfe\x00")
    code, _, err = run(capsys, str(path))
    assert code == 1 and "neither BEF nor UTF-8 MLIR text" in err


def test_unknown_device(capsys, write):
    code, _, err = run(capsys, write(one_test("")), "--device=tpu")
    assert code == 1 and "unknown device 'tpu'" in err


def test_console_script_reports_without_traceback(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text("#map = affine_map<(d0) -> (d0)\n")
    proc = subprocess.run([str(TFRT_CHECK), str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{path}:") and "error:" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_a_function_that_does_not_parse_fails_alone(capsys, write):
    path = write("""\
        func.func @broken() {
          %a = arith.addi %b : i32
          return
        }
        func.func @fine() {
          return
        }
        func.func @broken_with_args(%x: i32) {
          %a = oops
        }
    """)
    code, out, err = run(capsys, path)
    assert code == 1 and err == ""
    assert "Running 2 tests" in out and "[       OK ] fine" in out
    block = out[out.index("[ RUN      ] broken"): out.index("[  FAILED  ] broken")]
    assert f"{path}:2:" in block and "error:" in block and "Traceback" not in out


def test_a_function_that_does_not_verify_fails_alone(capsys, write):
    path = write("""\
        func.func @mismatch() {
          %a = util.unfoldable_constant dense<1.0> : tensor<2xf32>
          %b = util.unfoldable_constant dense<1.0> : tensor<3xf32>
          "check.expect_eq"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> ()
          return
        }
        func.func @fine() {
          return
        }
    """)
    code, out, _ = run(capsys, path)
    assert code == 1 and "[       OK ] fine" in out
    assert f"{path}:4:3: error: 'check.expect_eq' op failed to verify that all of {{lhs, rhs}} have same type" in out


# ---------------------------------------------------------------------------
# User passes: docs/tfrt_check.md's example, with the sample pass of
# docs/writing_passes.md


def doc_example(tmp_path) -> str:
    text = (ROOT / "docs" / "tfrt_check.md").read_text()
    marker = "<!-- mylib_test.mlir: tests/tools/test_tfrt_check.py runs this block -->"
    block = text.split(marker, 1)[1].split("```mlir\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "mylib_test.mlir"
    path.write_text(block)
    return str(path)


def test_user_lowering_pass_end_to_end(capsys, tmp_path):
    path = doc_example(tmp_path)
    plugin = ("--load-pass-plugin", str(SAMPLE_PLUGIN))
    code, out, _ = run(capsys, path, *plugin, "--preprocess=lower-mylib")
    assert code == 0, out
    assert "[  PASSED  ] 2 tests." in out
    # -O0 and a pipeline of one's own, as the page suggests.
    assert run(capsys, path, *plugin, "--preprocess=lower-mylib", "-O0")[0] == 0
    pipeline = "lower-mylib,lower-check,lower-linalg,lower-arith,lower-math,lower-func,insert-chains"
    assert run(capsys, path, *plugin, f"--pass-pipeline={pipeline}")[0] == 0
    # The tanh approximation of GELU misses the erf values; softplus still passes.
    code, out, _ = run(capsys, path, *plugin, "--preprocess=lower-mylib{gelu=tanh}")
    assert code == 1
    assert "[       OK ] softplus" in out and "[  FAILED  ] gelu" in out
    assert "the first at index [0]: computed -0.158808, expected -0.1586553" in out
    # Without the pass each test fails at its op.
    code, out, _ = run(capsys, path)
    assert code == 1
    assert "'mylib.softplus' op cannot be lowered" in out and "'mylib.gelu' op cannot be lowered" in out


def test_missing_plugin(capsys, tmp_path):
    code, _, err = run(capsys, doc_example(tmp_path), "--load-pass-plugin", str(tmp_path / "none.py"))
    assert code == 1 and "cannot load pass plugin" in err


def test_pass_pipeline_without_lower_check_fails_the_tests(capsys, write):
    path = write(one_test(PASSING["expect_true"]))
    code, out, _ = run(capsys, path, "--pass-pipeline=lower-arith,lower-func")
    assert code == 1 and "cannot be lowered" in out
    code, out, _ = run(capsys, path, "--pass-pipeline=lower-check,lower-arith,lower-func,insert-chains")
    assert code == 0, out


# ---------------------------------------------------------------------------
# The ops: verifier, the compiler keeps them, the kernels outside tfrt_check


def test_expect_eq_of_two_types_is_a_located_error():
    from tfrt.dialects.syntax import parse_module

    text = """func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  "check.expect_eq"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> ()
  return
}
"""
    with pytest.raises(DiagnosticError) as e:
        parse_module(text, "x.mlir")
    (diag,) = e.value.diagnostics
    assert (diag.loc.line, diag.loc.col) == (2, 3)
    assert diag.message == ("'check.expect_eq' op failed to verify that all of {lhs, rhs} have same type "
                            "('tensor<2xf32>' vs 'tensor<3xf32>')")  # fmt: skip


def test_unfoldable_constant_is_not_folded():
    from tfrt.dialects.printer import print_module
    from tfrt.dialects.syntax import parse_module
    from tfrt.passes.compiler import compile_module

    module = parse_module(one_test("""
        %a = util.unfoldable_constant 2 : i32
        %b = arith.constant 3 : i32
        %c = arith.muli %a, %b : i32
        %d = util.optimization_barrier %b : i32
        %e = arith.addi %d, %b : i32
        check.expect_true(%c) : i32
        check.expect_true(%e) : i32
    """))
    text = print_module(compile_module(module))
    # Both products are computed at run time, behind barriers.
    assert text.count("tfrt_check.barrier") == 2
    assert text.count("tfrt_scalar.eval") == 2
    assert text.count("tfrt_check.expect_true") == 2


def test_failures_outside_tfrt_check_go_to_stderr(write):
    # bef_executor has no collector of its own: the host's writes each failure.
    body, message = FAILING["expect_true"]
    path = write(one_test(body))
    bef_executor = Path(sys.executable).parent / "bef_executor"
    proc = subprocess.run([str(bef_executor), path], capture_output=True, text=True, check=False)
    assert f"{path}:3:3: error: {message}" in proc.stderr


def test_request_collector_isolates_calls():
    from tfrt.api import load
    from tfrt.host_context import ExecutionContext, RequestContext
    from tfrt.kernels.tfrt_check import CheckFailures

    prog = load(one_test(FAILING["expect_false"][0]))
    mine = CheckFailures(echo=False)
    fn = prog.bef_program.functions[0]
    request = RequestContext(prog.host, data={CheckFailures: mine})
    fn.call_values(ExecutionContext(prog.host, request), [])
    prog.host.quiesce()
    assert [f.message for f in mine.take()] == ["check.expect_false failed: the value is 3; expected zero"]
    assert mine.checked == 1


def test_top_level_ops_split():
    text = textwrap.dedent("""\
        // a comment { not a bracket
        #map = affine_map<(d0) -> (d0)>
        func.func @a(
            %x: i32) {
          %s = "x.y"() {s = "}"} : () -> i32
          return
        }
        func.func private @"b.c"() -> i32
    """)
    chunks = [(c.first, c.last, c.symbol, c.is_function, c.private) for c in top_level_ops(text)]
    assert chunks == [(2, 2, None, False, False), (3, 7, "a", True, False), (8, 9, "b.c", True, True)]


def test_isolation_inside_an_explicit_module(capsys, write):
    path = write("""\
        module {
          func.func @good() {
            %a = util.unfoldable_constant 1 : i32
            check.expect_true(%a) : i32
            return
          }
          func.func @bad() {
            %a = mylib.make : i32
            return
          }
        }
    """)
    code, out, _ = run(capsys, path)
    assert code == 1
    assert "[       OK ] good" in out
    assert f"{path}:8:10: error: custom op 'mylib.make' is unknown" in out and "[  FAILED  ] bad" in out
    chunks = [(c.first, c.last, c.symbol) for c in top_level_ops(open(path).read())]
    assert chunks == [(2, 6, "good"), (7, 10, "bad")]
