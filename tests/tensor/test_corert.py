"""The core runtime: OpAttrs, tensor handles, op handlers, and the corert kernels."""

from __future__ import annotations

import io

import numpy as np
import pytest

from tfrt.async_value import AsyncValue
from tfrt.host_context import HostContext
from tfrt.tensor.corert import (
    CoreRuntimeError,
    CpuOpHandler,
    LoggingOpHandler,
    NullOpHandler,
    OpAttrs,
    OpAttrType,
    OpInvocation,
    TensorHandle,
    attr_from_bef,
    op_attrs_from_bef,
    predicate_value,
)
from tfrt.tensor.dtype import DType
from tfrt.tensor.host_tensor import DenseHostTensor, ScalarHostTensor, StringHostTensor

from .pipeline import run_mlir

REGISTER = """
func.func @register() {
  %null = "corert.create_null_op_handler"() : () -> !corert.ophandler
  %cpu = "corert.create_cpu_op_handler"(%null) : (!corert.ophandler) -> !corert.ophandler
  corert.register_op_handler %cpu "cpu"
  tfrt.return
}
"""


def test_op_attrs_print_form():
    attrs = OpAttrs()
    assert attrs.print_text() == "OpAttrs is empty\n"
    attrs.set_array("h", range(1, 9), OpAttrType.I32)
    attrs.set("b", False, OpAttrType.BOOL)
    attrs.set("f", 0.5, OpAttrType.F32)
    attrs.set_dtype("t", DType.STRING)
    attrs.set_string("s", "f16")
    assert attrs.print_text() == (
        "OpAttrs contains 5 entries:\n"
        "  'b' type=BOOL value=0\n"
        "  'f' type=F32 value=5.000000e-01\n"
        "  'h' type=I32 value=[1, 2, 3, 4, 5...]\n"
        "  's' type=CHAR value=[f, 1, 6]\n"
        "  't' type=DTYPE value=CHAR\n\n"
    )
    assert attrs.get("s") == "f16" and attrs.get_array("h")[-1] == 8
    frozen = attrs.freeze()
    attrs.set("z", 1, OpAttrType.I32)
    assert len(frozen) == 5 and len(attrs) == 6
    with pytest.raises(CoreRuntimeError, match="frozen"):
        frozen.set("y", 1, OpAttrType.I32)


def test_attrs_from_decoded_bef_values():
    from tfrt.bef.program import ShapeValue

    assert attr_from_bef(True).type == OpAttrType.BOOL
    assert attr_from_bef(7).type == OpAttrType.I32
    assert attr_from_bef(2**40).type == OpAttrType.I64
    assert attr_from_bef(np.array([1, 2], np.int64)).type == OpAttrType.I64
    assert attr_from_bef(ShapeValue((1, -1))).value.dims == (1, -1)
    attrs = op_attrs_from_bef((("axis", 1), ("values", np.array([1.0], np.float32))))
    assert attrs.get("axis") == 1 and attrs.get_entry("values").type == OpAttrType.F32
    with pytest.raises(CoreRuntimeError, match="key-value pair"):
        op_attrs_from_bef(((1, 2),))


def test_tensor_handle_print_forms():
    t = DenseHostTensor.from_array(np.array([1, 2], np.int32))
    assert TensorHandle.from_tensor(t).print_text() == str(t)
    err = AsyncValue.make_error("boom")
    assert TensorHandle("CPU:0", t.metadata, err).print_text() == "Error TensorHandle: 'boom'"
    pending = TensorHandle("CPU:0", t.metadata, AsyncValue())
    assert pending.print_text() == "future TensorHandle with metadata i32 [2]"


def test_predicates():
    assert predicate_value(DenseHostTensor.from_array(np.array([3], np.int32)))
    assert not predicate_value(DenseHostTensor.from_array(np.array([0], np.int8)))
    assert predicate_value(StringHostTensor([1], ["x"]))
    assert not predicate_value(StringHostTensor([1], [""]))
    assert predicate_value(ScalarHostTensor.make(DType.I32, [], 1))
    with pytest.raises(CoreRuntimeError, match="one element"):
        predicate_value(DenseHostTensor.from_array(np.array([1, 2], np.int32)))


def _invoke(handler, name, args, attrs=None, n=1):
    host = HostContext()
    inv = OpInvocation(host.new_execution_context(), args, attrs or OpAttrs(), n, None, lambda m: None)
    return handler.make_op(name)(inv)


def test_handler_fallback_chain_and_logging():
    null = NullOpHandler()
    with pytest.raises(CoreRuntimeError, match=r"^tf.invalidop was not supported by NullOpHandler\.$"):
        CpuOpHandler(null).make_op("tf.invalidop")
    out = io.StringIO()
    log = LoggingOpHandler(CpuOpHandler(null), sync_log_results=True, stream=out)
    attrs = OpAttrs()
    attrs.set_array("shape", [2], OpAttrType.I64)
    attrs.set_array("values", [7], OpAttrType.I32)
    results, chain = _invoke(log, "tfrt_test.create_dense_tensor", [], attrs)
    assert results[0].tensor.value.array.tolist() == [7, 7]
    text = out.getvalue()
    assert text.startswith("[0] dispatch 'tfrt_test.create_dense_tensor' 0 arguments, 1 result, OpAttrs contains 2 entries:\n")
    assert "  Output for [0] tensor 0: DenseHostTensor dtype = i32, shape = [2], values = [7, 7]" in text


def test_metadata_function_errors():
    a = TensorHandle.from_tensor(DenseHostTensor.from_array(np.zeros((2,), np.int32)))
    b = TensorHandle.from_tensor(DenseHostTensor.from_array(np.zeros((3,), np.int32)))
    reports = []
    host = HostContext()
    inv = OpInvocation(host.new_execution_context(), [a, b], OpAttrs(), 1, None, reports.append)
    results, _ = CpuOpHandler(NullOpHandler()).make_op("tfrt_test.add")(inv)
    assert reports == ["arguments of test.add must have same shape"]
    assert results[0].tensor.is_error


def test_corert_program():
    run = run_mlir(REGISTER + """
func.func @main() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %cpu = corert.get_op_handler %ch0 "cpu"
  %a = "corert.executeop"(%cpu) {op_attrs = [["shape", [2, 2]], ["values", [1 : i32, 2 : i32, 3 : i32, 4 : i32]]], op_func_attrs = [], op_name = "tfrt_test.create_dense_tensor"} : (!corert.ophandler) -> !corert.tensorhandle
  %b = "corert.executeop"(%cpu, %a, %a) {op_attrs = [], op_func_attrs = [], op_name = "tfrt_test.add"} : (!corert.ophandler, !corert.tensorhandle, !corert.tensorhandle) -> !corert.tensorhandle
  %c = "corert.executeop"(%cpu, %b) {op_attrs = [], op_func_attrs = [], op_name = "tfrt_test.async.noop"} : (!corert.ophandler, !corert.tensorhandle) -> !corert.tensorhandle
  %ch1 = "corert.print_tensorhandle"(%c, %ch0) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain
  %s = "corert.tensorhandle_to_shape"(%c, %ch1) : (!corert.tensorhandle, !tfrt.chain) -> !ts.shape
  %ch2 = "ts.print_shape"(%s, %ch1) : (!ts.shape, !tfrt.chain) -> !tfrt.chain
  %ch3 = "corert.executeop.seq"(%cpu, %ch2, %c) {op_attrs = [], op_func_attrs = [], op_name = "tfrt_test.print"} : (!corert.ophandler, !tfrt.chain, !corert.tensorhandle) -> !tfrt.chain
  %bad = "corert.executeop.seq"(%cpu, %ch3) {op_attrs = [], op_func_attrs = [], op_name = "tf.nothing"} : (!corert.ophandler, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch3 : !tfrt.chain
}
""")
    assert run.lines == [
        "DenseHostTensor dtype = i32, shape = [2, 2], values = [2, 4, 6, 8]",
        "shape = [2, 2]",
        "DenseHostTensor dtype = i32, shape = [2, 2], values = [2, 4, 6, 8]",
    ]
    assert run.diagnostics == [("tf.nothing was not supported by NullOpHandler.", 19)]


def test_op_errors_are_reported_once_and_propagate():
    run = run_mlir(REGISTER + """
func.func @main() -> !corert.tensorhandle {
  %ch0 = tfrt.new.chain
  %cpu = corert.get_op_handler %ch0 "cpu"
  %a = "corert.executeop"(%cpu) {op_attrs = [["shape", [1]], ["value", 1 : i32]], op_func_attrs = [], op_name = "tfrt_test.create_from_scalar"} : (!corert.ophandler) -> !corert.tensorhandle
  %b = "corert.executeop"(%cpu, %a) {op_attrs = [], op_func_attrs = [], op_name = "tfrt_test.error.tensor"} : (!corert.ophandler, !corert.tensorhandle) -> !corert.tensorhandle
  %c = "corert.executeop"(%cpu, %b, %b) {op_attrs = [], op_func_attrs = [], op_name = "tfrt_test.add"} : (!corert.ophandler, !corert.tensorhandle, !corert.tensorhandle) -> !corert.tensorhandle
  %missing = corert.get_op_handler %ch0 "gpu"
  tfrt.return %c : !corert.tensorhandle
}
""")
    assert sorted(run.diagnostics) == [
        ("error from test.error.tensor implementation", 13),
        ("op_handler not found: gpu", 15),
    ]
    assert run.results["main"][0].error.message == "error from test.error.tensor implementation"


def test_cond_and_while():
    run = run_mlir(REGISTER + """
func.func @pick_a(%ch: !tfrt.chain, %x: !corert.tensorhandle, %y: !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle) {
  tfrt.return %ch, %x : !tfrt.chain, !corert.tensorhandle
}
func.func @pick_b(%ch: !tfrt.chain, %x: !corert.tensorhandle, %y: !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle) {
  tfrt.return %ch, %y : !tfrt.chain, !corert.tensorhandle
}
func.func @not_zero(%ch: !tfrt.chain, %x: !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle) {
  tfrt.return %ch, %x : !tfrt.chain, !corert.tensorhandle
}
func.func @decrement(%ch: !tfrt.chain, %x: !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle) {
  %cpu = corert.get_op_handler %ch "cpu"
  %m1 = "corert.executeop"(%cpu) {op_attrs = [["shape", [1]], ["values", [-1 : i32]]], op_func_attrs = [], op_name = "tfrt_test.create_dense_tensor"} : (!corert.ophandler) -> !corert.tensorhandle
  %r = "corert.executeop"(%cpu, %x, %m1) {op_attrs = [], op_func_attrs = [], op_name = "tfrt_test.add"} : (!corert.ophandler, !corert.tensorhandle, !corert.tensorhandle) -> !corert.tensorhandle
  %ch1 = "corert.print_tensorhandle"(%r, %ch) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch1, %r : !tfrt.chain, !corert.tensorhandle
}
func.func @main() {
  %ch0 = tfrt.new.chain
  %cpu = corert.get_op_handler %ch0 "cpu"
  %a = corert.const_string_tensor {shape = [1], value = ["a"]}
  %b = corert.const_string_tensor {shape = [1], value = ["b"]}
  %three = "corert.executeop"(%cpu) {op_attrs = [["shape", [1]], ["values", [3 : i32]]], op_func_attrs = [], op_name = "tfrt_test.create_dense_tensor"} : (!corert.ophandler) -> !corert.tensorhandle
  %ch1, %r = "corert.cond"(%three, %ch0, %a, %b) {a_true_fn = @pick_a, b_false_fn = @pick_b} : (!corert.tensorhandle, !tfrt.chain, !corert.tensorhandle, !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle)
  %ch2 = "corert.print_tensorhandle"(%r, %ch1) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain
  %ch3, %z = "corert.while"(%ch2, %three) {a_cond_fn = @not_zero, b_body_fn = @decrement} : (!tfrt.chain, !corert.tensorhandle) -> (!tfrt.chain, !corert.tensorhandle)
  %i = corert.tensorhandle_to_int32 %z
  %ch4 = tfrt.print.i32 %i, %ch3
  tfrt.return
}
""")
    assert run.diagnostics == []
    assert run.lines == [
        'StringHostTensor shape = [1], values = ["a"]',
        "DenseHostTensor dtype = i32, shape = [1], values = [2]",
        "DenseHostTensor dtype = i32, shape = [1], values = [1]",
        "DenseHostTensor dtype = i32, shape = [1], values = [0]",
        "int32 = 0",
    ]


def test_op_attr_kernels_and_const_tensors():
    run = run_mlir("""
func.func @main() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %attrs = "corert.create_op_attrs"() : () -> !corert.opattrs
  %ch1 = "corert.op_attrs_set.i32"(%attrs, %ch0) {key = "n", value = 3 : i32} : (!corert.opattrs, !tfrt.chain) -> !tfrt.chain
  %ch2 = "corert.op_attrs_set.shape"(%attrs, %ch1) {key = "s", value = #corert.shape<2x?x3>} : (!corert.opattrs, !tfrt.chain) -> !tfrt.chain
  %ch3 = "corert.op_attrs_set.dtype"(%attrs, %ch2) {key = "d", value = bf16} : (!corert.opattrs, !tfrt.chain) -> !tfrt.chain
  %ch4 = "tfrt_test.corert.op_attrs_print"(%attrs, %ch3) : (!corert.opattrs, !tfrt.chain) -> !tfrt.chain
  %t = corert.const_dense_tensor dense<[[1.5, 2.5]]> : tensor<1x2xf32>
  %ch5 = "corert.print_tensorhandle"(%t, %ch4) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain
  %u = corert.create_dense_tensor.i64 {shape = [2], value = [9 : i64]}
  %ch6 = "corert.print_tensorhandle"(%u, %ch5) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain
  %e = "tfrt_test.error_tensorhandle"() : () -> !corert.tensorhandle
  tfrt.return %ch6 : !tfrt.chain
}
""")
    assert run.lines == [
        "OpAttrs contains 3 entries:",
        "  'd' type=DTYPE value=BF16",
        "  'n' type=I32 value=3",
        "  's' type=SHAPE value=<2x-1x3>",
        "",
        "DenseHostTensor dtype = f32, shape = [1, 2], values = [1.500000e+00, 2.500000e+00]",
        "DenseHostTensor dtype = i64, shape = [2], values = [9, 9]",
    ]
    assert run.diagnostics == [("invalid tensorhandle", 13)]
