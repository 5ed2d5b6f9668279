"""The `tfrt_array` dialect: the compiler's kernels on ranked, statically shaped tensors.

The lowering passes (``passes/lower_*.py``, docs/compiler.md) turn
``linalg``/``tensor``/``arith``/``math`` on tensors into these ops.  Operands
and results keep MLIR's ranked tensor types; at run time a value is a numpy
array (a cupy array on a GPU) and a scalar operand a numpy scalar.  Every op
is Pure (inputs are never written, except where ``reuse-buffers`` set an
``inplace`` operand whose last use the op is), and every attribute the kernel
reads is written out, because BEF passes an op's attributes to its kernel by
position in name order::

    %y = tfrt_array.matmul %x, %w, %b {epilogue = "maximum(a0 + a1, 0.0)",
           shape = [1, 512], transpose_a = false, transpose_b = false,
           types = "f32,f32"} : (tensor<1x784xf32>, tensor<784x512xf32>, tensor<512xf32>) -> tensor<1x512xf32>

``OP_SPECS`` lists each op's operands and attribute kinds; the kernels are in
``tfrt/kernels/tfrt_array.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    I1,
    FlatSymbolRefAttrConstr,
    I64,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    ParamAttrConstraint,
    VarConstraint,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.constraints import AnyAttr
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import RuntimeDialect, RuntimeOp, define_op, ops_of_module, runtime_op

_ATTR_CONSTRAINTS: dict[str, Any] = {
    "i1": IntegerAttr[I1],
    "i64": IntegerAttr[I64],
    "i64[]": ArrayAttr[IntegerAttr[I64]],
    "str": StringAttr,
}

# MLIR element type text -> the name the expression language uses: the
# signless integers and the floats (these have scalar constants), then the
# signed and unsigned spellings, which only tensors carry.
SCALAR_TYPES = (
    "i1", "i2", "i4", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "bf16",
    "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E4M3", "f8E3M4",
    "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN",
)  # fmt: skip
ELEMENT_TYPES = SCALAR_TYPES + tuple(f"{s}i{w}" for s in "su" for w in (2, 4, 8, 16, 32, 64)) + (
    "complex<f32>", "complex<f64>",
)


def element_type_name(t: Attribute) -> str:
    """``f32`` for ``f32`` and ``tensor<2xf32>``; raises VerifyException otherwise."""
    elem = t.element_type if isinstance(t, TensorType) else t
    text = str(elem)
    if text not in ELEMENT_TYPES:
        raise VerifyException(f"unsupported element type {elem}")
    return text


def shape_of(t: Attribute) -> tuple[int, ...] | None:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else None


@dataclass(frozen=True)
class ArraySpec:
    """One op: operand names (a trailing ``*`` marks the variadic group),
    attribute kinds, summary and example."""

    mnemonic: str
    operands: tuple[str, ...]
    attrs: dict[str, str]
    summary: str
    example: str


class ArrayOp(RuntimeOp):
    """Base of the `tfrt_array` ops: one result, Pure, attributes by kind."""

    ATTR_KINDS: ClassVar[dict[str, str]] = {}

    def attr_value(self, name: str) -> Any:
        attr = self.properties[name]
        kind = self.ATTR_KINDS[name]
        if kind in ("i1", "i64"):
            return attr.value.data  # type: ignore[attr-defined]
        if kind == "i64[]":
            return [a.value.data for a in attr.data]  # type: ignore[attr-defined]
        return attr.data  # type: ignore[attr-defined]

    def verify_(self) -> None:
        for name in self.ATTR_KINDS:
            if name not in self.properties:
                raise VerifyException(f"requires attribute '{name}'")
        result = self.results[0].type
        if isinstance(result, TensorType) and any(d < 0 for d in result.get_shape()):
            raise VerifyException(f"result type {result} has a dynamic shape; the kernels need static shapes")
        if "shape" in self.ATTR_KINDS and isinstance(result, TensorType) and self.name != "tfrt_array.reshape":
            if tuple(self.attr_value("shape")) != shape_of(result):
                raise VerifyException(
                    f"attribute 'shape' {self.attr_value('shape')} does not match the result type {result}"
                )
        if self.name == "tfrt_array.reshape" and isinstance(result, TensorType):
            if tuple(self.attr_value("shape")) != shape_of(result):
                raise VerifyException(f"attribute 'shape' does not match the result type {result}")
        if "types" in self.ATTR_KINDS:
            self._verify_expr()

    def _verify_expr(self) -> None:
        from tfrt.kernels import expr as ex

        types = tuple(t for t in self.attr_value("types").split(",") if t)
        field = "epilogue" if "epilogue" in self.ATTR_KINDS else "expr"
        text = self.attr_value(field)
        first = 2 if field == "epilogue" else 0
        if field == "epilogue":
            if not text:
                if types:
                    raise VerifyException("'types' must be empty when there is no epilogue")
                if len(self.operands) != 2:
                    raise VerifyException("extra operands need an epilogue")
                return
            actual = [element_type_name(self.results[0].type)]
        else:
            actual = []
        actual += [element_type_name(v.type) for v in self.operands[first:]]
        if list(types) != actual:
            raise VerifyException(
                f"attribute 'types' is \"{','.join(types)}\" but the operands are \"{','.join(actual)}\""
            )
        try:
            out = ex.check(text, types)
        except ex.ExprError as exc:
            raise VerifyException(str(exc)) from None
        want = element_type_name(self.results[0].type)
        if out != want:
            raise VerifyException(f"the expression computes {out} but the result type is {self.results[0].type}")


_SHAPE = {"shape": "i64[]"}
_CONV = {
    "dilations": "i64[]", "epilogue": "str", "groups": "i64", "padding": "i64[]",
    "shape": "i64[]", "strides": "i64[]", "types": "str",
}  # fmt: skip

SPECS: tuple[ArraySpec, ...] = (
    ArraySpec(
        "elementwise", ("inputs*",), {"expr": "str", "inplace": "i64", "shape": "i64[]", "types": "str"},
        "Evaluates `expr` (docs/compiler.md) elementwise over tensors and scalars that\n"
        "broadcast to `shape`; `types` lists the operands' element types and\n"
        "`inplace` (-1, or an operand number) the operand whose buffer the result takes.",
        '%y = tfrt_array.elementwise %x, %b {expr = "maximum(a0 + a1, 0.0)", inplace = -1,\n'
        '        shape = [2, 4], types = "f32,f32"} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>',
    ),
    ArraySpec(
        "matmul", ("a", "b", "extras*"),
        {"epilogue": "str", "shape": "i64[]", "transpose_a": "i1", "transpose_b": "i1", "types": "str"},
        "The matrix product of the last two dimensions (leading dimensions are\n"
        "batch dimensions; a rank-1 `b` is a vector), then the `epilogue` expression\n"
        "with `a0` the product and `a1...` the extra operands (`\"\"`: none).",
        "%y = tfrt_array.matmul %a, %b {epilogue = \"\", shape = [2, 3], transpose_a = false,\n"
        "        transpose_b = false, types = \"\"} : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>",
    ),
    ArraySpec(
        "conv2d", ("input", "filter", "extras*"), _CONV,
        "2-D convolution of an NHWC input with an HWCF filter (`groups` > 1: grouped,\n"
        "`groups` = C: depthwise with an HW1F filter); explicit `padding`\n"
        "`[top, bottom, left, right]`; then the `epilogue` as for matmul.",
        "%y = tfrt_array.conv2d %x, %w {dilations = [1, 1], epilogue = \"\", groups = 1,\n"
        "        padding = [1, 1, 1, 1], shape = [1, 8, 8, 16], strides = [1, 1], types = \"\"}\n"
        "        : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>",
    ),
    ArraySpec(
        "pool2d", ("input",),
        {"dilations": "i64[]", "kind": "str", "padding": "i64[]", "shape": "i64[]",
         "strides": "i64[]", "window": "i64[]"},
        "Pooling of an NHWC input over `window`: `kind` is max, sum or avg (avg\n"
        "divides by the window size, padding included).",
        "%y = tfrt_array.pool2d %x {dilations = [1, 1], kind = \"max\", padding = [0, 0, 0, 0],\n"
        "        shape = [1, 4, 4, 8], strides = [2, 2], window = [2, 2]} : (tensor<1x8x8x8xf32>) -> tensor<1x4x4x8xf32>",
    ),
    ArraySpec(
        "reduce", ("input",), {"axes": "i64[]", "keepdims": "i1", "kind": "str"},
        "Reduces over `axes` with `kind`: sum, prod, max, min (NaN-propagating),\n"
        "maxnum, minnum, and, or, xor.",
        "%s = tfrt_array.reduce %x {axes = [1], keepdims = false, kind = \"sum\"} : (tensor<2x3xf32>) -> tensor<2xf32>",
    ),
    ArraySpec(
        "einsum", ("inputs*",), {"shape": "i64[]", "spec": "str"},
        "numpy's einsum (`spec` such as `ij,jk->ik`).",
        "%y = tfrt_array.einsum %a, %b {shape = [2, 3], spec = \"ik,kj->ij\"}\n"
        "        : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>",
    ),
    ArraySpec(
        "transpose", ("input",), {"perm": "i64[]"},
        "Permutes the dimensions: `out.shape[i] = in.shape[perm[i]]`.",
        "%y = tfrt_array.transpose %x {perm = [1, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>",
    ),
    ArraySpec(
        "reshape", ("input",), _SHAPE,
        "The same elements in row-major order, in `shape`.",
        "%y = tfrt_array.reshape %x {shape = [6]} : (tensor<2x3xf32>) -> tensor<6xf32>",
    ),
    ArraySpec(
        "broadcast", ("input",), {"shape": "i64[]", "source_shape": "i64[]"},
        "Reshapes the input to `source_shape` (size-1 dimensions inserted) and\n"
        "broadcasts it to `shape`.",
        "%y = tfrt_array.broadcast %x {shape = [4, 3], source_shape = [1, 3]}\n"
        "        : (tensor<3xf32>) -> tensor<4x3xf32>",
    ),
    ArraySpec(
        "iota", (), {"dim": "i64", "shape": "i64[]"},
        "An i64 tensor of `shape` whose elements are their index along `dim`.",
        "%i = tfrt_array.iota {dim = 1, shape = [2, 3]} : tensor<2x3xi64>",
    ),
    ArraySpec(
        "extract_slice", ("input",),
        {"offsets": "i64[]", "shape": "i64[]", "sizes": "i64[]", "strides": "i64[]"},
        "`sizes[i]` elements from `offsets[i]` every `strides[i]`, reshaped to `shape`\n"
        "(which may drop unit dimensions).",
        "%y = tfrt_array.extract_slice %x {offsets = [0, 1], shape = [2], sizes = [2, 1],\n"
        "        strides = [1, 1]} : (tensor<2x3xf32>) -> tensor<2xf32>",
    ),
    ArraySpec(
        "insert_slice", ("source", "dest"),
        {"inplace": "i64", "offsets": "i64[]", "sizes": "i64[]", "strides": "i64[]"},
        "A copy of `dest` with `source` written at `offsets` / `sizes` / `strides`\n"
        "(`inplace` = 1: written into `dest`'s own buffer).",
        "%y = tfrt_array.insert_slice %s, %d {inplace = -1, offsets = [0, 0], sizes = [1, 3],\n"
        "        strides = [1, 1]} : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>",
    ),
    ArraySpec(
        "pad", ("input", "value"), {"high": "i64[]", "low": "i64[]"},
        "The input surrounded by `low[i]` / `high[i]` elements of `value`.",
        "%y = tfrt_array.pad %x, %zero {high = [1, 1], low = [1, 1]} : (tensor<2x2xf32>, f32) -> tensor<4x4xf32>",
    ),
    ArraySpec(
        "concat", ("inputs*",), {"axis": "i64"},
        "Joins the inputs along `axis`.",
        "%y = tfrt_array.concat %a, %b {axis = 0} : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>",
    ),
    ArraySpec(
        "extract", ("input", "indices*"), {},
        "The element at `indices` (i64 scalars), as a scalar.",
        "%v = tfrt_array.extract %x, %i, %j : (tensor<2x3xf32>, i64, i64) -> f32",
    ),
    ArraySpec(
        "insert", ("value", "dest", "indices*"), {},
        "A copy of `dest` with the element at `indices` set to `value`.",
        "%y = tfrt_array.insert %v, %x, %i : (f32, tensor<4xf32>, i64) -> tensor<4xf32>",
    ),
    ArraySpec(
        "from_elements", ("elements*",), {"dtype": "str", "shape": "i64[]"},
        "A tensor of `shape` holding the scalar operands in row-major order.",
        "%y = tfrt_array.from_elements %a, %b {dtype = \"f32\", shape = [2]} : (f32, f32) -> tensor<2xf32>",
    ),
    ArraySpec(
        "gather", ("input", "indices"), {"axis": "i64"},
        "numpy's `take(input, indices, axis)` (i32/i64 indices; negative ones count from the end).",
        "%y = tfrt_array.gather %x, %i {axis = 0} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>",
    ),
    # tensor.gather/scatter, slices at run-time positions and tensor.reshape by
    # a shape tensor (tfrt/kernels/array_indexing.py): every index is checked.
    ArraySpec(
        "gather_slices", ("input", "indices"), {"dims": "i64[]", "shape": "i64[]", "unique": "i1"},
        "`tensor.gather`: for each coordinate tuple (the last dimension of `indices`),\n"
        "the input slice at those positions of `dims`, reshaped to `shape`; a coordinate\n"
        "out of bounds (or, with `unique`, repeated) is an error.",
        "%y = tfrt_array.gather_slices %x, %i {dims = [0], shape = [2, 3], unique = false}\n"
        "        : (tensor<5x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>",
    ),
    ArraySpec(
        "scatter_slices", ("source", "dest", "indices"), {"dims": "i64[]", "unique": "i1"},
        "`tensor.scatter`: a copy of `dest` with each slice of `source` written at its\n"
        "coordinates along `dims`; a coordinate out of bounds or repeated is an error.",
        "%y = tfrt_array.scatter_slices %s, %x, %i {dims = [0], unique = true}\n"
        "        : (tensor<2x3xf32>, tensor<5x3xf32>, tensor<2x1xi64>) -> tensor<5x3xf32>",
    ),
    ArraySpec(
        "dynamic_extract_slice", ("input", "positions*"),
        {"offsets": "i64[]", "shape": "i64[]", "sizes": "i64[]", "strides": "i64[]"},
        "`extract_slice` whose offsets or strides marked -2^63 are the `positions`\n"
        "operands (offsets first); a slice out of bounds is an error.",
        "%y = tfrt_array.dynamic_extract_slice %x, %o {offsets = [-9223372036854775808, 0],\n"
        "        shape = [2], sizes = [1, 2], strides = [1, 1]} : (tensor<4x3xf32>, i64) -> tensor<2xf32>",
    ),
    ArraySpec(
        "dynamic_insert_slice", ("source", "dest", "positions*"),
        {"offsets": "i64[]", "sizes": "i64[]", "strides": "i64[]"},
        "`insert_slice` whose offsets or strides marked -2^63 are the `positions`\n"
        "operands (offsets first); a slice out of bounds is an error.",
        "%y = tfrt_array.dynamic_insert_slice %s, %x, %o {offsets = [-9223372036854775808, 0],\n"
        "        sizes = [1, 3], strides = [1, 1]} : (tensor<3xf32>, tensor<4x3xf32>, i64) -> tensor<4x3xf32>",
    ),
    ArraySpec(
        "reshape_checked", ("input", "shape_values"), _SHAPE,
        "`reshape` to `shape`, which the 1-D tensor `shape_values` must hold at run time.",
        "%y = tfrt_array.reshape_checked %x, %s {shape = [6]} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>",
    ),
    ArraySpec(
        "to_device", ("input",), {"device": "str"},
        "The tensor on `device` (`gpu:0`: a cupy array; `cpu`: numpy); set by `place-devices`.",
        "%g = tfrt_array.to_device %x {device = \"gpu:0\"} : (tensor<4xf32>) -> tensor<4xf32>",
    ),
    ArraySpec(
        "device_constant", ("input",), {"device": "str"},
        "The constant `input` on `device`, copied there by the first call and kept for the\n"
        "program's life: later calls return that copy (weights cross to a GPU once).\n"
        "`place-devices` makes it for the `tfrt_array.constant`s of a GPU function.",
        "%w = tfrt_array.device_constant %c {device = \"gpu:0\"} : (tensor<4xf32>) -> tensor<4xf32>",
    ),
    ArraySpec(
        "to_host", ("input",), {},
        "The tensor as a numpy array (waits for the device).",
        "%h = tfrt_array.to_host %g : (tensor<4xf32>) -> tensor<4xf32>",
    ),
)  # fmt: skip


def _class_name(mnemonic: str) -> str:
    return "".join(p.capitalize() for p in mnemonic.split("_")) + "Op"


def _define(spec: ArraySpec) -> type[IRDLOperation]:
    body: dict[str, object] = {
        "name": f"tfrt_array.{spec.mnemonic}",
        "ATTR_KINDS": dict(spec.attrs),
        "__annotations__": {"ATTR_KINDS": ClassVar[dict[str, str]]},
        "result": result_def(AnyAttr()),
        "traits": traits_def(Pure()),
        "assembly_format": (
            "operands attr-dict `:` functional-type(operands, results)"
            if spec.operands
            else "attr-dict `:` type($result)"
        ),
    }
    for operand in spec.operands:
        if operand.endswith("*"):
            body[operand[:-1]] = var_operand_def(AnyAttr())
        else:
            body[operand] = operand_def(AnyAttr())
    for attr, kind in spec.attrs.items():
        body[attr] = prop_def(_ATTR_CONSTRAINTS[kind])
    doc = f"{spec.summary}\n\n    {spec.example}\n"
    return define_op(__name__, _class_name(spec.mnemonic), doc, body, base=ArrayOp)


OP_SPECS: dict[str, ArraySpec] = {s.mnemonic: s for s in SPECS}
ARRAY_OPS: dict[str, type[IRDLOperation]] = {name: _define(s) for name, s in OP_SPECS.items()}
globals().update({cls.__name__: cls for cls in ARRAY_OPS.values()})


class _ConstantBase(RuntimeOp):
    def verify_(self) -> None:
        value = self.properties["value"]
        if any(d < 0 for d in value.get_shape()):
            raise VerifyException("requires a statically shaped value")
        element_type_name(value.type)


_T: Any = VarConstraint("T", AnyAttr())

ConstantOp = define_op(
    __name__,
    "ConstantOp",
    "A tensor constant; the kernel returns a read-only array over the BEF file's\n"
    "bytes (no copy).\n\n    %w = tfrt_array.constant dense<[1.0, 2.0]> : tensor<2xf32>\n",
    {
        "name": "tfrt_array.constant",
        "_T": _T,
        "__annotations__": {"_T": ClassVar},
        "value": prop_def(ParamAttrConstraint(DenseIntOrFPElementsAttr, (_T, AnyAttr()))),
        "result": result_def(_T),
        "traits": traits_def(Pure()),
        "assembly_format": "$value attr-dict",
    },
    _ConstantBase,
)



@runtime_op
class GraphCallOp(RuntimeOp):
    """Calls `callee`, a function of device kernels, as a CUDA graph: the first
    call runs it as it is (kernels compile, constants reach the device), the
    second captures its launches once into a graph (for each distinct set of
    scalar operands), and every call from then on copies the operands into the
    graph's inputs, replays the graph and returns copies of its outputs.  A
    body that cannot be captured (it reads device values on the host, say)
    keeps running uncaptured.  `outline-cuda-graphs` makes it.

        %r = tfrt_array.graph_call @f.graph(%x) : (tensor<1x10xf32>) -> tensor<1x10xf32>
    """

    name = "tfrt_array.graph_call"
    callee = prop_def(FlatSymbolRefAttrConstr)
    arguments = var_operand_def()
    outputs = var_result_def()
    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $outputs)"

    def verify_(self) -> None:
        from tfrt.dialects.tfrt import _check_callee

        fn_type = _check_callee(self, "callee").function_type
        if list(fn_type.inputs.data) != [v.type for v in self.operands]:
            raise VerifyException("operand types do not match the callee's")
        if list(fn_type.outputs.data) != [r.type for r in self.results]:
            raise VerifyException("result types do not match the callee's")


@runtime_op
class GenericOp(RuntimeOp):
    """Runs a ``linalg.generic`` that no faster kernel matches, exactly as linalg
    defines it: operands gathered through their indexing maps, the body
    vectorized over the parallel loops and, unless every result is an
    associative combination (``kinds``), stepped through the reduction loops in
    order.  ``lower-linalg`` makes it; the attributes are described in
    ``tfrt/kernels/array_generic.py``.

        %m, %i = tfrt_array.generic %x, %m0, %i0 {body = "t0 = gt(a0, a1) : in0, acc0\n...",
               iterators = "r", kinds = ",", maps = "d0;;", n_inputs = 1, ranges = [8],
               types = "f32,f32,i64", yields = "t2,t3"} : (tensor<8xf32>, tensor<f32>, tensor<i64>) -> (tensor<f32>, tensor<i64>)
    """

    name = "tfrt_array.generic"
    inputs = var_operand_def()
    outputs = var_result_def()
    body = prop_def(StringAttr)
    iterators = prop_def(StringAttr)
    kinds = prop_def(StringAttr)
    maps = prop_def(StringAttr)
    n_inputs = prop_def(IntegerAttr[I64])
    ranges = prop_def(ArrayAttr[IntegerAttr[I64]])
    types = prop_def(StringAttr)
    yields = prop_def(StringAttr)
    traits = traits_def(Pure())
    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $outputs)"

    def verify_(self) -> None:
        n_in = self.n_inputs.value.data
        yields = [y for y in self.yields.data.split(",") if y] if self.yields.data else []
        if len(yields) != len(self.results):
            raise VerifyException(f"yields {len(yields)} value(s) but has {len(self.results)} result(s)")
        if n_in < 0 or n_in + len(self.results) > len(self.operands):
            raise VerifyException("n_inputs and the results leave too few operands for the outputs")
        for j, r in enumerate(self.results):
            if self.operands[n_in + j].type != r.type:
                raise VerifyException(f"result {j} has type {r.type} but its output operand {self.operands[n_in + j].type}")
        if len(self.iterators.data) != len(self.ranges.data):
            raise VerifyException("one iterator per loop range is required")


TFRT_ARRAY_OPS = ops_of_module(globals(), __name__)
TFRT_ARRAY = RuntimeDialect("tfrt_array", TFRT_ARRAY_OPS, [])
