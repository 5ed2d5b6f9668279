"""The stablehlo and chlo dialects: JAX's exported programs read, verify and
print back; the attributes' Python views; bad input is a located error.

The fixtures in ``jax_exports/`` are ``jax.jit(f).lower(*args).as_text()`` of the
programs in ``jax_exports/generate.py`` (JAX itself is not needed here).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module

HERE = Path(__file__).parent
FIXTURES = sorted((HERE / "jax_exports").glob("*.mlir"))


def _roundtrip(text: str, name: str = "-") -> str:
    first = print_module(parse_module(text, name))
    second = print_module(parse_module(first, name))
    assert first == second, f"{name}: printing is not a fixed point"
    return first


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_jax_fixture_round_trips(path: Path) -> None:
    text = path.read_text()
    printed = _roundtrip(text, str(path))
    if "loc(" not in text:
        # JAX's text is already MLIR's printed form: ours is the same, byte for byte.
        assert printed == text


def test_fixtures_cover_the_programs() -> None:
    names = {p.stem for p in FIXTURES}
    assert {"mlp", "cnn", "train_step", "while_loop", "cond_switch", "gather_scatter", "sort",
            "reduce_window", "fft", "linalg", "random", "special", "polymorphic"} <= names  # fmt: skip


def test_locations_and_jax_attributes_are_kept() -> None:
    text = (HERE / "jax_exports" / "polymorphic.mlir").read_text()
    module = parse_module(text)
    assert module.attributes["jax.uses_shape_polymorphism"].value.data != 0
    assert "mhlo.num_partitions" in module.attributes
    with_locs = print_module(module, debuginfo=True)
    # `#loc1 = loc("dimension_size")` on get_dimension_size; `to :35` ranges read.
    assert 'stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32> loc("dimension_size")' in with_locs
    assert '{jax.result_info = "result"}' in with_locs
    assert print_module(parse_module(with_locs)) == print_module(module)


def test_attribute_views() -> None:
    from tfrt.dialects import stablehlo as shlo

    module = parse_module(
        """
        func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>) {
          %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]
                 : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
          %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
                 window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
                 : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x8x8x4xf32>
          %2 = stablehlo.compare GT, %a, %a, FLOAT : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xi1>
          return
        }
        """
    )
    ops = {op.name: op for op in module.walk()}
    dot = ops["stablehlo.dot_general"].dot_dimension_numbers
    assert (dot.lhs_batching_dimensions, dot.rhs_batching_dimensions) == ((0,), (0,))
    assert (dot.lhs_contracting_dimensions, dot.rhs_contracting_dimensions) == ((2,), (1,))
    conv = ops["stablehlo.convolution"]
    dn = conv.dimension_numbers
    assert (dn.input_batch_dimension, dn.input_feature_dimension, dn.input_spatial_dimensions) == (0, 3, (1, 2))
    assert (dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension) == (2, 3)
    assert dn.kernel_spatial_dimensions == (0, 1)
    window = conv.window()
    assert window["padding"] == ((1, 1), (1, 1))
    assert window["window_strides"] == (1, 1) and window["window_reversal"] == (False, False)
    cmp = ops["stablehlo.compare"]
    assert shlo.enum_value(cmp.comparison_direction) == "GT" and cmp.enum_prop("compare_type") == "FLOAT"


def test_generic_forms_move_inherent_attributes_into_properties() -> None:
    # IREE's tests write the old generic form: inherent attributes in the
    # dictionary, struct attributes over several lines with a trailing comma.
    text = """
    func.func @f(%x: tensor<1x10xi32>, %c: tensor<i32>, %a: tensor<1x1x2xf32>, %b: tensor<2x3xf32>) {
      %r = "stablehlo.reduce"(%x, %c) ( {
      ^bb0(%p: tensor<i32>, %q: tensor<i32>):
        %s = "stablehlo.add"(%p, %q) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%s) : (tensor<i32>) -> ()
      }) {dimensions = array<i64: 1>} : (tensor<1x10xi32>, tensor<i32>) -> tensor<1xi32>
      %d = "stablehlo.dot_general"(%a, %b) {
        dot_dimension_numbers = #stablehlo.dot<
          lhs_batching_dimensions = [],
          lhs_contracting_dimensions = [2],
          rhs_batching_dimensions = [],
          rhs_contracting_dimensions = [0],
        >,
        precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]
      } : (tensor<1x1x2xf32>, tensor<2x3xf32>) -> tensor<1x1x3xf32>
      return
    }
    """
    module = parse_module(text)
    reduce = next(op for op in module.walk() if op.name == "stablehlo.reduce")
    assert "dimensions" in reduce.properties and reduce.dims("dimensions") == (1,)
    printed = _roundtrip(text)
    assert "stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1]" in printed
    assert "contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT]" in printed
    generic = print_module(module, generic=True)
    assert '"stablehlo.reduce"(%arg0, %arg1) <{dimensions = array<i64: 1>}>' in generic
    assert print_module(parse_module(generic)) == printed


def test_verifier_errors_are_located() -> None:
    text = "func.func @f(%a: tensor<2x3xf32>) {\n  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>\n  return\n}\n"
    with pytest.raises(DiagnosticError) as e:
        parse_module(text, "bad.mlir")
    assert e.value.render().startswith("bad.mlir:2:3: error: 'stablehlo.transpose' op permutation [0, 0]")


BAD_LINES = [
    # An unknown struct field, a dimension out of range, a bad enum case, a zero
    # stride, a bad float format.
    '%0 = "stablehlo.dot_general"(%a, %a) {dot_dimension_numbers = #stablehlo.dot<lhs_batch = [0]>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>',
    "%0 = stablehlo.dot_general %a, %a, contracting_dims = [5] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
    "%0 = stablehlo.fft %a, type = FOO, length = [2] : (tensor<2x2xf32>) -> tensor<2x2xf32>",
    "%0 = stablehlo.slice %a [0:1:0, 0:2] : (tensor<2x2xf32>) -> tensor<1x2xf32>",
    "%0 = stablehlo.reduce_precision %a, format = e5x10 : tensor<2x2xf32>",
]


def test_tfrt_opt_reports_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    chunks = [f"func.func @f(%a: tensor<2x2xf32>) {{\n  {line}\n  return\n}}\n" for line in BAD_LINES]
    path.write_text("// -----\n".join(chunks))
    r = subprocess.run(
        [sys.executable, "-m", "tfrt.tools.tfrt_opt", "--split-input-file", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    located = [line for line in r.stderr.splitlines() if line.startswith(f"{path}:") and ": error: " in line]
    # One error per chunk, each on the op's line (2, 7, 12, ... of the file).
    assert [int(line.split(":")[1]) for line in located] == [2 + 5 * i for i in range(len(BAD_LINES))], r.stderr
