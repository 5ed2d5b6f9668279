"""The `corert_sync` dialect: parse, print and verify every op."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.traits import IsolatedFromAbove, Pure

from tfrt.diagnostics import DiagnosticError
from tfrt.dialects import corert_sync as CS
from tfrt.dialects.printer import print_module
from tfrt.dialects.syntax import parse_module

SAMPLE = """\
func.func @ops() attributes {tfrt.sync} {
  %cpu = corert_sync.get_op_handler "cpu"
  %a = corert_sync.const_dense_tensor dense<[1, 2]> : tensor<2xi32>
  %b = corert_sync.create_dense_tensor.i32 {shape = [2], value = [10 : i32, 20 : i32]}
  %c = corert_sync.executeop(%cpu) "tfrt_test.add"(%a, %b) : 1
  corert_sync.executeop(%cpu) "tfrt_test.print"(%c)
  %d:2 = corert_sync.executeop(%cpu) "tfrt_test.split"(%c) {axis = 0 : i64} : 2
  tfrt.return
}
"""

BODY = """\
    %0 = corert_sync.get_op_handler "cpu"
    %1 = corert_sync.const_dense_tensor dense<[1, 2]> : tensor<2xi32>
    %2 = corert_sync.create_dense_tensor.i32 {shape = [2], value = [10 : i32, 20 : i32]}
    %3 = corert_sync.executeop(%0) "tfrt_test.add"(%1, %2) : 1
    corert_sync.executeop(%0) "tfrt_test.print"(%3)
    %4:2 = corert_sync.executeop(%0) "tfrt_test.split"(%3) {axis = 0 : i64} : 2
    tfrt.return
"""


def test_sample_round_trips_and_prints_as_tfrt_does():
    module = parse_module(SAMPLE, "sample.mlir")
    printed = print_module(module)
    assert BODY in printed
    assert print_module(parse_module(printed)) == printed


def test_every_op_is_defined_and_isolated():
    names = {op.name for op in CS.CORERT_SYNC_OPS}
    assert names == {f"corert_sync.create_dense_tensor.{t}" for t in CS.DENSE_TENSOR_DTYPES} | {
        "corert_sync.const_dense_tensor",
        "corert_sync.executeop",
        "corert_sync.get_op_handler",
    }
    assert all(op.has_trait(IsolatedFromAbove) and op.has_trait(Pure) for op in CS.CORERT_SYNC_OPS)


@pytest.mark.parametrize("dtype", ["bf16", "complex128", "ui16"])
def test_create_dense_tensor_examples(dtype):
    op = CS.CREATE_DENSE_TENSOR_OPS[dtype]
    text = (
        "func.func @f() {\n"
        f'  %t = corert_sync.create_dense_tensor.{dtype} {{shape = [1], value = [0 : i32]}}\n'
        "  tfrt.return\n}\n"
    )
    (parsed,) = [o for o in parse_module(text).walk() if o.name == op.name]
    assert isinstance(parsed, op)


def test_folds():
    module = parse_module(SAMPLE)
    const = next(o for o in module.walk() if isinstance(o, CS.SyncConstDenseTensorOp))
    assert isinstance(const.fold()[0], DenseIntOrFPElementsAttr)
    tf_const = parse_module(
        "func.func @f(%cpu: !corert.ophandler) {\n"
        '  %t = corert_sync.executeop(%cpu) "tf.Const"() {value = dense<1> : tensor<i32>} : 1\n'
        "  tfrt.return\n}\n"
    )
    execute = next(o for o in tf_const.walk() if isinstance(o, CS.SyncExecuteOp))
    assert str(execute.fold()[0]) == "dense<1> : tensor<i32>"
    add = next(o for o in module.walk() if isinstance(o, CS.SyncExecuteOp))
    assert add.fold() is None


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '%t = corert_sync.executeop(%cpu) "tf.Foo"() {} {f = @g} : 1',
            "'corert_sync.executeop' op function attributes are not supported in corert_sync",
        ),
        (
            '%t = "corert_sync.executeop"(%cpu) {op_attrs = [1 : i32], op_func_attrs = [], '
            'op_name = "x"} : (!corert.ophandler) -> !corert.tensorhandle',
            "'corert_sync.executeop' op each op_attr should be a key-value pair, where the key "
            "is a string",
        ),
        (
            '%t = "corert_sync.get_op_handler"() {device_name = "cpu"} : () -> !corert.tensorhandle',
            "'corert_sync.get_op_handler' op result #0 must be !corert.ophandler type, "
            "but got '!corert.tensorhandle'",
        ),
    ],
)
def test_verifier_errors_have_locations(line, message):
    text = f"func.func @f(%cpu: !corert.ophandler) {{\n  {line}\n  tfrt.return\n}}\n"
    with pytest.raises(DiagnosticError) as info:
        parse_module(text, "bad.mlir")
    (diag,) = info.value.diagnostics
    assert diag.message == message
    assert (diag.loc.file, diag.loc.line) == ("bad.mlir", 2)
