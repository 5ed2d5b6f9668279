"""Every op, eager and compiled, on random inputs: the results agree.

Eager mode runs an op's array kernel (``tfrt.devices.array_ops``);
``@tfrt.function`` traces it to high-level MLIR (``tfrt.devices.ops_mlir``)
that the compiler lowers to its own kernels.  Both take the result metadata
from the op's one metadata function.  One traced function per op holds all
of that op's cases.
"""

from __future__ import annotations

import numpy as np
import pytest

import tfrt
from tfrt.devices.ops import OPS

RNG = np.random.default_rng(2024)
F32, F64, I32, I64, B = np.float32, np.float64, np.int32, np.int64, np.bool_


def r(*shape, dtype=F32, low=None):
    if np.dtype(dtype).kind == "f":
        a = RNG.standard_normal(shape)
        if low is not None:
            a = np.abs(a) + low
        return a.astype(dtype)
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) > 0.5
    a = RNG.integers(-9, 10, shape)
    if low is not None:
        a = np.abs(a) + low
    return a.astype(dtype)


def binary_cases(positive_rhs=False):
    low = 0.5 if positive_rhs else None
    return [
        ([r(3, 4), r(3, 4, low=low)], {}),
        ([r(2, 3, 4), r(4, low=low)], {}),          # broadcasting
        ([r(3, 1), r(1, 5, low=low)], {}),
        ([r(4, dtype=F64), r(4, dtype=F64, low=low)], {}),
        ([r(3), r(low=low)], {}),                   # a 0-d operand
    ]  # fmt: skip


INT_BINARY = [([r(3, 4, dtype=I32), r(3, 4, dtype=I32, low=1)], {})]

CASES = {
    **{op: binary_cases() + INT_BINARY for op in ("add", "sub", "mul", "maximum", "minimum")},
    "div": binary_cases(positive_rhs=True) + INT_BINARY
           + [([np.array([7, -7, 7, -7, 5], I32), np.array([2, 2, -2, -2, 0], I32)], {})],
    "pow": [([r(3, 4, low=0.1), r(3, 4)], {}), ([r(2, 3, low=0.5, dtype=F64), r(3, dtype=F64)], {})],
    **{op: binary_cases() + INT_BINARY + [([r(4, dtype=B), r(4, dtype=B)], {})]
       for op in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal")},
    "where": [([r(3, 4, dtype=B), r(3, 4), r(3, 4)], {}), ([r(4, dtype=B), r(2, 4), r()], {}),
              ([r(3, 1, dtype=B), r(1, 2, dtype=I32), r(3, 2, dtype=I32)], {})],
    **{op: [([r(3, 4)], {}), ([r(2, 3, 4, dtype=F64)], {}), ([r()], {})]
       for op in ("sigmoid", "tanh", "exp")},
    **{op: [([r(3, 4, low=0.1)], {}), ([r(5, dtype=F64, low=0.1)], {})] for op in ("log", "sqrt", "rsqrt")},
    **{op: [([r(3, 4)], {}), ([r(2, 5, dtype=I32)], {}), ([r(3, dtype=F64)], {})] for op in ("relu", "neg", "abs")},
    "bias_add": [([r(2, 3), r(3)], {}), ([r(2, 2, 3, dtype=F64), r(3, dtype=F64)], {})],
    "matmul": [
        ([r(3, 4), r(4, 5)], {}),
        ([r(4, 3), r(4, 5)], {"transpose_a": True}),
        ([r(3, 4), r(5, 4)], {"transpose_b": True}),
        ([r(2, 3, 4), r(2, 4, 5)], {}),
        ([r(2, 1, 3, 4), r(3, 5, 4)], {"transpose_b": True}),   # broadcast batch
        ([r(3, 4, dtype=F64), r(4, 2, dtype=F64)], {}),
        ([r(3, 4, dtype=I32), r(4, 2, dtype=I32)], {}),
    ],
    "conv2d": [
        ([r(1, 5, 5, 2), r(3, 3, 2, 4)], {}),
        ([r(2, 6, 7, 3), r(3, 2, 3, 2)], {"padding": "SAME", "strides": [2, 2]}),
        ([r(1, 7, 7, 1), r(2, 2, 1, 3)], {"dilations": [2, 2], "padding": "SAME"}),
        ([r(1, 8, 8, 2), r(3, 3, 2, 2)], {"strides": [1, 3, 2, 1]}),
    ],
    "max_pool": [([r(1, 4, 4, 2)], {"ksize": [2, 2], "strides": [2, 2]}),
                 ([r(2, 5, 6, 1)], {"ksize": [3, 3], "strides": [2, 2], "padding": "SAME"})],
    "avg_pool": [([r(1, 4, 4, 2)], {"ksize": [2, 2], "strides": [2, 2]}),
                 ([r(2, 5, 6, 1)], {"ksize": [3, 2], "strides": [2, 1], "padding": "SAME"})],
    "batch_norm": [([r(2, 3), r(3), r(3), r(3), r(3, low=0.1)], {"epsilon": 0.01}),
                   ([r(2, 2, 4), r(4), r(4), r(4), r(4, low=0.1)], {})],
    "softmax": [([r(3, 5)], {}), ([r(4, 3, 2)], {"axis": 1}), ([r(6, dtype=F64)], {"axis": 0})],
    **{op: [([r(3, 4)], {"axes": [1]}), ([r(2, 3, 4)], {"axes": [0, 2], "keepdims": True}),
            ([r(3, 4)], {}), ([r(2, 5, dtype=I32)], {"axes": [-1]}), ([r(4, dtype=F64)], {"axes": [0]})]
       for op in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min")},
    "argmax": [([r(3, 4)], {"axis": 1}), ([r(2, 3, 4)], {"axis": 0}), ([r(5, dtype=I32)], {})],
    "reshape": [([r(2, 6)], {"shape": [3, 4]}), ([r(2, 3, 4)], {"shape": [-1]}),
                ([r(1, 1)], {"shape": []}), ([r()], {"shape": [1, 1]})],
    "transpose": [([r(2, 3)], {"perm": [1, 0]}), ([r(2, 3, 4, dtype=I32)], {"perm": [2, 0, 1]})],
    "broadcast_to": [([r(3)], {"shape": [2, 3]}), ([r(2, 1)], {"shape": [4, 2, 3]})],
    "concat": [([r(2, 3), r(1, 3)], {"axis": 0}), ([r(2, 3), r(2, 1), r(2, 2)], {"axis": -1}),
               ([r(2)], {})],
    "slice": [([r(4, 5)], {"begin": [1, 0], "size": [2, -1]}), ([r(3, 4, 5)], {"begin": [0, 1, 2], "size": [3, 2, 2]})],
    "strided_slice": [([r(6, 5)], {"begin": [1, 0], "end": [6, 5], "strides": [2, 2]}),
                      ([r(4, 4)], {"begin": [0, 3], "end": [4, 4], "strides": [3, 1]})],
    "pad": [([r(2, 3)], {"paddings": [1, 0, 2, 1]}), ([r(3, dtype=I32)], {"paddings": [0, 2]})],
    "cast": [
        ([r(3, 4)], {"dtype": np.int32}), ([r(3, 4)], {"dtype": np.float64}),
        ([r(3, dtype=I32)], {"dtype": np.float32}), ([r(4, dtype=B)], {"dtype": np.float32}),
        ([r(5, dtype=I32)], {"dtype": np.bool_}), ([r(5)], {"dtype": np.bool_}),
        ([r(5, dtype=I64)], {"dtype": np.int32}), ([r(5, dtype=I32)], {"dtype": np.int64}),
        ([r(3, dtype=F64)], {"dtype": np.float16}),
    ],
    "copy": [([r(2, 3)], {}), ([r(4, dtype=I32)], {})],
}  # fmt: skip

# Ops with no compiled form, and why.
NOT_COMPILED = {"check_numerics": "the compiler has no runtime assertion"}


def test_every_op_has_cases_or_a_reason():
    assert set(CASES) | set(NOT_COMPILED) == set(OPS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_and_compiled_agree(name):
    cases = CASES[name]
    op = getattr(tfrt.ops, name)

    def run_all(*flat):
        out, i = [], 0
        for inputs, attrs in cases:
            out.append(op(*flat[i : i + len(inputs)], **attrs))
            i += len(inputs)
        return out

    flat = [tfrt.constant(x) for inputs, _ in cases for x in inputs]
    eager = run_all(*flat)
    compiled = tfrt.function(run_all, name=f"agree_{name}")(*flat)
    assert len(eager) == len(compiled) == len(cases)
    for (inputs, attrs), e, c in zip(cases, eager, compiled):
        what = f"{name}({', '.join(f'{x.dtype}{list(x.shape)}' for x in inputs)}, {attrs})"
        assert e.shape == c.shape and e.dtype == c.dtype, what
        ev, cv = e.numpy(), c.numpy()
        if ev.dtype.kind == "f":
            tol = 1e-3 if ev.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(cv, ev, rtol=tol, atol=tol, err_msg=what)
        else:
            np.testing.assert_array_equal(cv, ev, err_msg=what)


def test_ops_without_a_compiled_form_fail_at_the_trace():
    @tfrt.function
    def checked(x):
        return tfrt.ops.check_numerics(x)

    with pytest.raises(tfrt.OpError, match="check_numerics: has no compiled form"):
        checked(tfrt.constant(np.ones(2, np.float32)))


# -- the core runtime's op handler runs the same ops ---------------------------

REGISTER = """
func.func @register() {
  %null = "corert.create_null_op_handler"() : () -> !corert.ophandler
  %cpu = "corert.create_cpu_op_handler"(%null) : (!corert.ophandler) -> !corert.ophandler
  corert.register_op_handler %cpu "cpu"
  tfrt.return
}
"""


def _corert(body: str):
    """Run @register then @main; (printed lines, [(diagnostic, line)])."""
    import contextlib
    import io
    from types import SimpleNamespace

    from tfrt.bef.program import file_line_col
    from tfrt.bef.reader import read_bef
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    from tfrt.executor import BEFProgram
    from tfrt.host_context import HostContext

    text = (REGISTER + "func.func @main() -> !tfrt.chain {\n  %ch0 = tfrt.new.chain\n"
            '  %cpu = corert.get_op_handler %ch0 "cpu"\n' + body + "  tfrt.return %ch1 : !tfrt.chain\n}\n")  # fmt: skip
    bef = read_bef(write_bef(parse_module(text, "test.mlir", allow_unregistered=True)))
    diags = []

    def on_diag(d):
        loc = file_line_col(d.location) if d.location is not None else None
        diags.append((d.message, loc.line if loc is not None else None))

    out = io.StringIO()
    host = HostContext(diag_handler=on_diag)
    try:
        with contextlib.redirect_stdout(out):
            program = BEFProgram.load(bef, host)
            for name in ("register", "main"):
                values = program.function(name).execute(host.new_execution_context(), [])
                host.await_values(values)
                host.quiesce()
    finally:
        host.shutdown()
    return SimpleNamespace(lines=out.getvalue().splitlines(), diagnostics=diags)


def _handle(name: str, values: list, shape: list) -> str:
    v = ", ".join(f"{x} : f32" for x in values)
    return (f'  {name} = "corert.executeop"(%cpu) {{op_attrs = [["shape", {shape}], ["values", [{v}]]], '
            'op_func_attrs = [], op_name = "tfrt_test.create_dense_tensor"} : (!corert.ophandler) -> '
            "!corert.tensorhandle\n")  # fmt: skip


def test_corert_cpu_op_handler_runs_the_ops():
    a = np.array([[1.0, -2.0, 0.5], [3.0, 4.0, -1.5]], F32)
    run = _corert(
        _handle("%a", a.ravel().tolist(), [2, 3])
        + '  %m = corert.executeop(%cpu) "tfrt_tensor.matmul"(%a, %a) {transpose_b = true} : 1\n'
        + '  %r = corert.executeop(%cpu) "tfrt_tensor.relu"(%m) : 1\n'
        + '  %s = corert.executeop(%cpu) "tfrt_tensor.reduce_sum"(%r) {axes = [1], keepdims = true} : 1\n'
        + '  %ch1 = "corert.print_tensorhandle"(%s, %ch0) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain\n'
    )
    assert run.diagnostics == []
    x = tfrt.constant(a)
    expected = tfrt.ops.reduce_sum(
        tfrt.ops.relu(tfrt.ops.matmul(x, x, transpose_b=True)), axes=[1], keepdims=True
    )
    from tfrt.tensor.host_tensor import DenseHostTensor

    assert run.lines == [DenseHostTensor.from_array(expected.numpy()).print_text()]


def test_corert_reports_the_metadata_functions_errors():
    run = _corert(
        _handle("%a", [1.0, 2.0, 3.0], [3])
        + '  %m = corert.executeop(%cpu) "tfrt_tensor.matmul"(%a, %a) : 1\n'
        + '  %ch1 = "corert.print_tensorhandle"(%m, %ch0) : (!corert.tensorhandle, !tfrt.chain) -> !tfrt.chain\n'
    )
    with pytest.raises(tfrt.OpError) as info:
        tfrt.ops.matmul(tfrt.constant(np.ones(3, F32)), tfrt.constant(np.ones(3, F32)))
    assert [m for m, _ in run.diagnostics] == [info.value.message]


def test_one_definition_per_op_serves_every_path():
    """Each op of tfrt.devices.ops (its one metadata function) has an array
    kernel, a compiled form, a BEF kernel, a corert op, an eager function and
    a gradient; none of these keeps an op list of its own."""
    from tfrt.devices.array_ops import IMPLS
    from tfrt.devices.ops_mlir import EMITTERS
    from tfrt.eager.tape import GRADIENTS, NOT_DIFFERENTIABLE
    from tfrt.kernels.registry import default_registry
    from tfrt.tensor.corert import CPU_OPS

    registry = default_registry()
    for name in OPS:
        assert name in IMPLS and name in EMITTERS, name
        assert registry.get(f"tfrt_tensor.{name}") is not None, name
        assert f"tfrt_tensor.{name}" in CPU_OPS, name
        assert callable(getattr(tfrt.ops, name)), name
        assert name in GRADIENTS or name in NOT_DIFFERENTIABLE, name
    assert set(EMITTERS) == set(OPS)
