"""The `corert` dialect: executeop syntax, types, shape attribute, verifiers."""

from __future__ import annotations

import pytest
from dialect_testing import first_error, parse, round_trip
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
    i32,
)
from xdsl.utils.exceptions import ParseError

from tfrt.dialects import corert as C

DTYPE_LINES = "\n".join(
    f"  %d{i} = corert.create_dense_tensor.{dtype} {{shape = [1], value = [1 : i32]}}"
    for i, dtype in enumerate(C.DENSE_TENSOR_DTYPES)
)

SAMPLE = f"""
func.func @basic(%arg: !corert.tensorhandle, %dev: !tfrt.device, %tt: !tfrt.tensor_type)
    -> !corert.tensorhandle {{
  %ch = tfrt.new.chain
  %cpu = corert.get_op_handler %ch "cpu"
  %res0 = corert.executeop(%cpu) "some.op"(%arg) {{shape = [1, 65536], values = [1.0 : f32]}} : 1
  corert.executeop(%cpu) "some.op"(%arg)
  %res2 = corert.executeop(%cpu) "some.op"() : 1
  %op_ch3, %res3 = corert.executeop.seq(%cpu, %ch) "some.op"() : 1
  %op_ch4 = corert.executeop.seq(%cpu, %ch) "some.op"() : 0
  %reg = corert.register_op_handler %cpu "cpu"
  %s = corert.const_string_tensor {{shape = [1, 2], value = ["const", "string"]}}
  %c = corert.const_dense_tensor dense<[0, 1, 2]> : tensor<3xi32>
{DTYPE_LINES}
  %i = corert.tensorhandle_to_int32 %arg
  %ty = corert.get_dst_tensor_type %arg, %dev
  %t1 = corert.transfer %arg, %dev, %tt
  %t2 = corert.transfer_inferred_tensortype %arg, %dev
  %ch1, %r = corert.cond %arg @pick @pick (%ch, %arg) : (!corert.tensorhandle) -> (!corert.tensorhandle)
  %ch2, %r2 = corert.while @pick @pick (%ch, %arg) : (!corert.tensorhandle) -> (!corert.tensorhandle)
  "corert.test"() {{shape = #corert.shape<1x?x3>, any = #corert.shape<*>, type = !corert.string}} : () -> ()
  tfrt.return %res2 : !corert.tensorhandle
}}
func.func @pick(%ch: !tfrt.chain, %x: !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle) {{
  tfrt.return %ch, %x : !tfrt.chain, !corert.tensorhandle
}}
"""


def test_sample_round_trips_and_covers_every_op():
    printed = round_trip(SAMPLE, allow_unregistered=True)
    used = {op.name for op in parse(printed, allow_unregistered=True).walk()}
    assert not {op.name for op in C.CORERT_OPS} - used
    for expected in (
        '%cpu = corert.get_op_handler %ch "cpu"',
        '%res2 = corert.executeop(%cpu) "some.op"() : 1',
        'corert.executeop(%cpu) "some.op"(%arg)\n',
        '%op_ch3, %res3 = corert.executeop.seq(%cpu, %ch) "some.op"() : 1',
        '%op_ch4 = corert.executeop.seq(%cpu, %ch) "some.op"()\n',
        "%c = corert.const_dense_tensor dense<[0, 1, 2]> : tensor<3xi32>",
        "#corert.shape<1x?x3>",
        "#corert.shape<*>",
        "!corert.string",
        "%ch1, %r = corert.cond %arg @pick @pick(%ch, %arg) : (!corert.tensorhandle) -> "
        "(!corert.tensorhandle)",
    ):
        assert expected in printed, expected


def test_executeop_attributes_are_key_value_pairs():
    module = parse(SAMPLE, allow_unregistered=True)
    op = next(op for op in module.walk() if isinstance(op, C.ExecuteOp))
    assert op.op_name == StringAttr("some.op")
    assert [entry.data[0] for entry in op.op_attrs.data] == [StringAttr("shape"), StringAttr("values")]
    assert C.op_attr_items(op.op_attrs)[0][0] == "shape"
    assert op.op_func_attrs == ArrayAttr([])


def test_executeop_verifier():
    module = parse(
        "func.func @f() {\n  %ch = tfrt.new.chain\n  %cpu = corert.get_op_handler %ch \"cpu\"\n"
        '  %r = "corert.executeop"(%cpu) {op_name = "some.op", op_attrs = [1 : i32], '
        "op_func_attrs = []} : (!corert.ophandler) -> !corert.tensorhandle\n  tfrt.return\n}"
    )
    assert first_error(module) == (
        "'corert.executeop' op each op_attr should be a key-value pair, where the key is a string"
    )


def test_executeop_operand_types_are_fixed():
    with pytest.raises(ParseError):
        parse(
            "func.func @f(%arg: i32) {\n  %ch = tfrt.new.chain\n"
            '  %cpu = corert.get_op_handler %ch "cpu"\n'
            '  %r = corert.executeop(%cpu) "some.op"(%arg) : 1\n  tfrt.return\n}'
        )


@pytest.mark.parametrize(
    "op, message",
    [
        ("corert.cond %arg @nope @pick", "'nope' does not reference a valid function"),
        ("corert.cond %arg @bad_in @pick", "'bad_in' has mismatching operand types"),
        ("corert.cond %arg @bad_out @pick", "'bad_out' has mismatching result types"),
        ("corert.while @pick @bad_in", "'bad_in' has mismatching operand types"),
    ],
)
def test_cond_and_while_verifiers(op, message):
    module = parse(
        f"""
func.func @pick(%ch: !tfrt.chain, %x: !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle) {{
  tfrt.return %ch, %x : !tfrt.chain, !corert.tensorhandle
}}
func.func @bad_in(%ch: !tfrt.chain) -> (!tfrt.chain, !corert.tensorhandle) {{
  %x = corert.const_dense_tensor dense<1> : tensor<i32>
  tfrt.return %ch, %x : !tfrt.chain, !corert.tensorhandle
}}
func.func @bad_out(%ch: !tfrt.chain, %x: !corert.tensorhandle) -> !tfrt.chain {{
  tfrt.return %ch : !tfrt.chain
}}
func.func @f(%arg: !corert.tensorhandle) {{
  %ch = tfrt.new.chain
  %c, %r = {op} (%ch, %arg) : (!corert.tensorhandle) -> (!corert.tensorhandle)
  tfrt.return
}}
"""
    )
    assert first_error(module) == f"'{op.split()[0]}' op {message}"


def test_shape_attr():
    assert C.ShapeAttr.get([2, -1, 3]).shape == (2, -1, 3)
    assert C.ShapeAttr.get(None).shape is None
    assert str(C.ShapeAttr.get([2, -1, 3])) == "#corert.shape<2x?x3>"
    assert str(C.ShapeAttr.get(None)) == "#corert.shape<*>"
    assert str(C.ShapeAttr.get([])) == "#corert.shape<>"
    module = parse('"corert.test"() {s = #corert.shape<>, t = #corert.shape<4x?>} : () -> ()',
                   allow_unregistered=True)
    op = next(iter(module.body.block.ops))
    assert op.attributes["s"].shape == ()
    assert op.attributes["t"].shape == (4, -1)


def test_const_dense_tensor_folds_and_materializes():
    value = DenseIntOrFPElementsAttr.from_list(TensorType(i32, [1]), [7])
    op = C.ConstDenseTensorOp.create(properties={"value": value}, result_types=[C.TensorHandleType()])
    assert op.fold() == (value,)
    made = C.CoreRtConstantMaterialization().materialize_constant(value, C.TensorHandleType())
    assert isinstance(made, C.ConstDenseTensorOp) and made.value == value
    assert C.CoreRtConstantMaterialization().materialize_constant(value, i32) is None


def test_executeop_folds_tf_const():
    module = parse(
        "func.func @f() {\n  %ch = tfrt.new.chain\n  %cpu = corert.get_op_handler %ch \"cpu\"\n"
        '  %r = corert.executeop(%cpu) "tf.Const"() {value = dense<1> : tensor<i32>} : 1\n'
        '  %s = corert.executeop(%cpu) "tf.Other"() {value = dense<1> : tensor<i32>} : 1\n'
        "  tfrt.return\n}"
    )
    ops = [op for op in module.walk() if isinstance(op, C.ExecuteOp)]
    assert ops[0].fold()[0] == DenseIntOrFPElementsAttr.from_list(TensorType(i32, []), [1])
    assert ops[1].fold() is None


def test_typed_attribute_trait_marks_the_core_runtime_ops():
    from tfrt.dialects.base import TypedAttributeTrait

    marked = {op.name for op in C.CORERT_OPS if op.has_trait(TypedAttributeTrait)}
    assert marked == {
        "corert.executeop",
        "corert.executeop.seq",
        "corert.const_dense_tensor",
        "corert.const_string_tensor",
    }
