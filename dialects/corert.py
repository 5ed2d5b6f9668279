"""The `corert` (core runtime) dialect, after TFRT's ``core_runtime.td``.

Ops: `corert.executeop` / `corert.executeop.seq` (dispatch an op by name to
an op handler), op-handler lookup and registration, constant tensors,
`corert.cond` / `corert.while` and the conversions TFRT defines.  Types:
``!corert.tensorhandle``, ``!corert.ophandler``, ``!corert.string`` and the
other dtype types TFRT registers (``!corert.quint8``, ...); attribute
``#corert.shape<2x?x3>`` / ``#corert.shape<*>``.  Every op is
IsolatedFromAbove, like TFRT's `CoreRT_Op`; unknown ops and types of the
dialect are accepted (``"corert.print_tensorhandle"``, ``!corert.opattrs``) as
TFRT's ``allowUnknownOperations()`` / ``allowUnknownTypes()`` do.

`ASM_RESULT_NAMES` on an op class lists the ODS names of its result
definitions.  MLIR's ODS gives an op with more than one named result
definition a generated ``getAsmResultNames``, so the printer names each result
group (``%out_op_chain, %results = corert.executeop.seq(...)``) instead of
printing ``%4:2``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, final

from xdsl.dialect_interfaces.constant_materialization import (
    ConstantMaterializationInterface,
)
from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FlatSymbolRefAttrConstr,
    IntAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    i32,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.irdl import (
    base,
    irdl_attr_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import (
    IsolatedOp,
    RuntimeDialect,
    TypedAttributeTrait,
    define_op,
    define_type,
    lookup_function,
    ops_of_module,
    runtime_op,
    symbol_name,
)
from tfrt.dialects.directives import OpAttrDicts, ResultCount
from tfrt.dialects.tfrt import ChainType, DeviceType, TensorTypeType

# --------------------------------------------------------------------------
# Types and attributes
# --------------------------------------------------------------------------

TensorHandleType = define_type(
    __name__,
    "TensorHandleType",
    "corert.tensorhandle",
    "``!corert.tensorhandle``: a tensor (possibly not yet computed) on some device.",
)
OpHandlerType = define_type(
    __name__,
    "OpHandlerType",
    "corert.ophandler",
    "``!corert.ophandler``: an op handler that `corert.executeop` dispatches to.",
)
StringType = define_type(
    __name__, "StringType", "corert.string", "``!corert.string``: the string dtype."
)
ResourceType = define_type(
    __name__, "ResourceType", "corert.resource", "``!corert.resource``: the resource dtype."
)
VariantType = define_type(
    __name__, "VariantType", "corert.variant", "``!corert.variant``: the variant dtype."
)
Quint8Type = define_type(
    __name__, "Quint8Type", "corert.quint8", "``!corert.quint8``: quantized uint8 dtype."
)
Quint16Type = define_type(
    __name__, "Quint16Type", "corert.quint16", "``!corert.quint16``: quantized uint16 dtype."
)
Qint8Type = define_type(
    __name__, "Qint8Type", "corert.qint8", "``!corert.qint8``: quantized int8 dtype."
)
Qint16Type = define_type(
    __name__, "Qint16Type", "corert.qint16", "``!corert.qint16``: quantized int16 dtype."
)
Qint32Type = define_type(
    __name__, "Qint32Type", "corert.qint32", "``!corert.qint32``: quantized int32 dtype."
)
# TFRT leaves these three as opaque types of the dialect; registering them
# lets the op attribute kernels' signatures verify.
OpAttrsType = define_type(
    __name__, "OpAttrsType", "corert.opattrs", "``!corert.opattrs``: a mutable op attribute set."
)
OpAttrsRefType = define_type(
    __name__,
    "OpAttrsRefType",
    "corert.opattrs_ref",
    "``!corert.opattrs_ref``: a frozen, shared op attribute set.",
)
OpType = define_type(
    __name__, "OpType", "corert.op", "``!corert.op``: a composite op (`corert.make_composite_op`)."
)

DYNAMIC_DIM = -1


@final
@irdl_attr_definition
class ShapeAttr(ParametrizedAttribute):
    """``#corert.shape<2x?x3>`` (``?`` = unknown extent), ``#corert.shape<*>``
    (unknown rank) or ``#corert.shape<>`` (a scalar).

    `dims` holds the extents (-1 for ``?``) or `NoneAttr` for an unranked shape.
    """

    name = "corert.shape"
    dims: ArrayAttr[IntAttr] | NoneAttr

    DESCRIPTION: ClassVar[str] = "corert shape attribute"

    @staticmethod
    def get(shape: Sequence[int] | None) -> ShapeAttr:
        """A ranked shape (extents, -1 unknown) or, for None, an unranked one."""
        if shape is None:
            return ShapeAttr(NoneAttr())
        return ShapeAttr(ArrayAttr(IntAttr(d) for d in shape))

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The extents (-1 for unknown ones), or None for an unranked shape."""
        if isinstance(self.dims, NoneAttr):
            return None
        return tuple(d.data for d in self.dims.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation("*") is not None:
            parser.parse_punctuation(">")
            return (NoneAttr(),)
        if parser.parse_optional_punctuation(">") is not None:
            return (ArrayAttr([]),)
        # xDSL reads `?` as its own DYNAMIC_INDEX; TFRT stores -1.
        dims = [d if d >= 0 else DYNAMIC_DIM for d in parser.parse_dimension_list()]
        parser.parse_punctuation(">")
        return (ArrayAttr(IntAttr(d) for d in dims),)

    def print_parameters(self, printer: Printer) -> None:
        shape = self.shape
        if shape is None:
            printer.print_string("<*>")
            return
        text = "x".join("?" if d < 0 else str(d) for d in shape)
        printer.print_string(f"<{text}>")

    def verify(self) -> None:
        shape = self.shape
        if shape is not None and any(d < DYNAMIC_DIM for d in shape):
            raise VerifyException("corert shape extents must be >= 0 or ? (-1)")


# --------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------


class CoreRtOp(IsolatedOp):
    """Base of the `corert` ops: IsolatedFromAbove, like TFRT's `CoreRT_Op`."""


DENSE_TENSOR_DTYPES = (
    "ui8", "ui16", "ui32", "ui64",
    "i1", "i8", "i16", "i32", "i64",
    "bf16", "f16", "f32", "f64",
    "complex64", "complex128",
)  # fmt: skip


def _create_dense_tensor(dtype: str) -> type:
    camel = dtype.upper() if dtype[0] in "iuf" else dtype.capitalize()
    if dtype.startswith("bf"):
        camel = "BF16"
    return define_op(
        __name__,
        f"CreateDenseTensor{camel}Op",
        f"A constant {dtype} dense host tensor of `shape` from the `value` list "
        f"(one value is splatted).\n\n"
        f"    %t = corert.create_dense_tensor.{dtype} {{shape = [1, 2], value = [...]}}\n",
        {
            "name": f"corert.create_dense_tensor.{dtype}",
            "shape": prop_def(ArrayAttr[IntegerAttr[I64]]),
            "value": prop_def(ArrayAttr),
            "result": result_def(TensorHandleType),
            "traits": traits_def(Pure()),
            "assembly_format": "attr-dict",
        },
        base=CoreRtOp,
    )


CREATE_DENSE_TENSOR_OPS = {dtype: _create_dense_tensor(dtype) for dtype in DENSE_TENSOR_DTYPES}
globals().update({cls.__name__: cls for cls in CREATE_DENSE_TENSOR_OPS.values()})


@runtime_op
class ConstDenseTensorOp(CoreRtOp, HasFolderInterface):
    """A constant dense host tensor from an elements attribute.

        %t = corert.const_dense_tensor dense<[0, 1, 2]> : tensor<3xi32>
    """

    name = "corert.const_dense_tensor"
    value = prop_def(base(DenseIntOrFPElementsAttr) | base(DenseResourceAttr))
    result = result_def(TensorHandleType)
    traits = traits_def(ConstantLike(), Pure(), TypedAttributeTrait())
    assembly_format = "$value attr-dict"

    def fold(self) -> Sequence[Attribute]:
        return (self.value,)


@runtime_op
class ConstStringTensorOp(CoreRtOp):
    """A constant string host tensor; one value stands for all when they repeat.

        %t = corert.const_string_tensor {shape = [1, 2], value = ["const", "string"]}
    """

    name = "corert.const_string_tensor"
    shape = prop_def(ArrayAttr[IntegerAttr[I64]])
    value = prop_def(ArrayAttr[StringAttr])
    result = result_def(TensorHandleType)
    traits = traits_def(Pure(), TypedAttributeTrait())
    assembly_format = "attr-dict"


def _verify_op_attrs(op_attrs: Attribute) -> None:
    """TFRT's VerifyExecuteOpImpl: every entry is a [string, value] pair."""
    entries = op_attrs.data if isinstance(op_attrs, ArrayAttr) else ()
    for entry in entries:
        if (
            not isinstance(entry, ArrayAttr)
            or len(entry.data) != 2
            or not isinstance(entry.data[0], StringAttr)
        ):
            raise VerifyException(
                "each op_attr should be a key-value pair, where the key is a string"
            )


def op_attr_items(op_attrs: ArrayAttr) -> list[tuple[str, Attribute]]:
    """The (name, value) pairs of a verified `op_attrs` / `op_func_attrs` array."""
    return [(entry.data[0].data, entry.data[1]) for entry in op_attrs.data]


@runtime_op
class ExecuteOp(CoreRtOp, HasFolderInterface):
    """Runs the op `op_name` on an op handler, with `op_attrs` (and function
    attributes `op_func_attrs`); the trailing number is the result count.

        %r = corert.executeop(%cpu) "tfrt_test.add"(%a, %b) {T = i32} : 1
    """

    name = "corert.executeop"
    op_handler = operand_def(OpHandlerType)
    arguments = var_operand_def(TensorHandleType)
    op_attrs = prop_def(ArrayAttr)
    op_func_attrs = prop_def(ArrayAttr)
    op_name = prop_def(StringAttr)
    outputs = var_result_def(TensorHandleType)
    traits = traits_def(Pure(), TypedAttributeTrait())
    custom_directives = (OpAttrDicts, ResultCount)
    assembly_format = (
        "`(` $op_handler `)` $op_name `(` $arguments `)` "
        "custom<OpAttrDicts>($op_attrs, $op_func_attrs) custom<ResultCount>(type($outputs)) "
        "attr-dict-with-keyword"
    )

    def verify_(self) -> None:
        _verify_op_attrs(self.op_attrs)

    def fold(self) -> Sequence[Attribute] | None:
        # TFRT folds a `tf.Const` dispatch to its `value` attribute.
        if self.op_name.data != "tf.Const" or len(self.results) != 1:
            return None
        for entry in self.op_attrs.data:
            if (
                isinstance(entry, ArrayAttr)
                and len(entry.data) == 2
                and entry.data[0] == StringAttr("value")
            ):
                return (entry.data[1],)
        return None


@runtime_op
class ExecuteOpSeqOp(CoreRtOp):
    """`corert.executeop` ordered by chains: it runs once `in_op_chain` is ready
    and returns `out_op_chain` first.

        %ch1, %r = corert.executeop.seq(%cpu, %ch0) "tfrt_test.print"(%t) : 1
    """

    name = "corert.executeop.seq"
    op_handler = operand_def(OpHandlerType)
    in_op_chain = operand_def(ChainType)
    arguments = var_operand_def(TensorHandleType)
    op_attrs = prop_def(ArrayAttr)
    op_func_attrs = prop_def(ArrayAttr)
    op_name = prop_def(StringAttr)
    out_op_chain = result_def(ChainType)
    outputs = var_result_def(TensorHandleType)
    traits = traits_def(TypedAttributeTrait())
    ASM_RESULT_NAMES: ClassVar[tuple[str, ...]] = ("out_op_chain", "results")
    custom_directives = (OpAttrDicts, ResultCount)
    assembly_format = (
        "`(` $op_handler `,` $in_op_chain `)` $op_name `(` $arguments `)` "
        "custom<OpAttrDicts>($op_attrs, $op_func_attrs) custom<ResultCount>(type($outputs)) "
        "attr-dict-with-keyword"
    )

    def verify_(self) -> None:
        _verify_op_attrs(self.op_attrs)


@runtime_op
class GetOpHandlerOp(CoreRtOp):
    """The op handler registered under a name; fails if there is none.

        %cpu = corert.get_op_handler %ch "cpu"
    """

    name = "corert.get_op_handler"
    in_op_chain = operand_def(ChainType)
    op_handler_name = prop_def(StringAttr)
    op_handler = result_def(OpHandlerType)
    traits = traits_def(Pure())
    assembly_format = "$in_op_chain $op_handler_name attr-dict"


@runtime_op
class RegisterOpHandlerOp(CoreRtOp):
    """Registers an op handler under a name for `corert.get_op_handler`.

        %ch = corert.register_op_handler %handler "cpu"
    """

    name = "corert.register_op_handler"
    op_handler = operand_def(OpHandlerType)
    op_handler_name = prop_def(StringAttr)
    out_op_chain = result_def(ChainType)
    assembly_format = "$op_handler $op_handler_name attr-dict"


def _verify_function(
    op: Operation, attr_name: str, inputs: Sequence[Attribute], outputs: Sequence[Attribute]
) -> None:
    """TFRT's VerifyFunctionAttribute for corert.cond / corert.while."""
    name = symbol_name(op.properties.get(attr_name))
    if name is None:
        raise VerifyException(f"requires a '{attr_name}' symbol reference attribute")
    function = lookup_function(op, name)
    if function is None:
        raise VerifyException(f"'{name}' does not reference a valid function")
    fn_type = function.function_type
    if tuple(inputs) != tuple(fn_type.inputs.data):
        raise VerifyException(f"'{name}' has mismatching operand types")
    if tuple(outputs) != tuple(fn_type.outputs.data):
        raise VerifyException(f"'{name}' has mismatching result types")


@runtime_op
class CondOp(CoreRtOp):
    """Calls `a_true_fn` or `b_false_fn` depending on a tensor handle's truth.

    The functions take the chain and the operands and return a chain and the
    results.

        %ch1, %r = corert.cond %c @then @else (%ch0, %x)
            : (!corert.tensorhandle) -> (!corert.tensorhandle)
    """

    name = "corert.cond"
    cond = operand_def(TensorHandleType)
    a_true_fn = prop_def(FlatSymbolRefAttrConstr)
    b_false_fn = prop_def(FlatSymbolRefAttrConstr)
    in_op_chain = operand_def(ChainType)
    fn_operands = var_operand_def()
    out_op_chain = result_def(ChainType)
    fn_outputs = var_result_def()
    ASM_RESULT_NAMES: ClassVar[tuple[str, ...]] = ("out_op_chain", "fn_outputs")
    assembly_format = (
        "$cond $a_true_fn $b_false_fn `(` $in_op_chain (`,` $fn_operands^)? `)` attr-dict "
        "`:` `(` type($fn_operands) `)` `->` `(` type($fn_outputs) `)`"
    )

    def verify_(self) -> None:
        inputs = self.operand_types[1:]
        _verify_function(self, "a_true_fn", inputs, self.result_types)
        _verify_function(self, "b_false_fn", inputs, self.result_types)


@runtime_op
class WhileOp(CoreRtOp):
    """Calls `b_body_fn` while `a_cond_fn` returns a true tensor handle.

        %ch1, %r = corert.while @cond @body (%ch0, %x)
            : (!corert.tensorhandle) -> (!corert.tensorhandle)
    """

    name = "corert.while"
    a_cond_fn = prop_def(FlatSymbolRefAttrConstr)
    b_body_fn = prop_def(FlatSymbolRefAttrConstr)
    in_op_chain = operand_def(ChainType)
    fn_operands = var_operand_def()
    out_op_chain = result_def(ChainType)
    fn_outputs = var_result_def()
    ASM_RESULT_NAMES: ClassVar[tuple[str, ...]] = ("out_op_chain", "fn_outputs")
    assembly_format = (
        "$a_cond_fn $b_body_fn `(` $in_op_chain (`,` $fn_operands^)? `)` attr-dict "
        "`:` `(` type($fn_operands) `)` `->` `(` type($fn_outputs) `)`"
    )

    def verify_(self) -> None:
        _verify_function(self, "a_cond_fn", self.operand_types, self.result_types)
        _verify_function(self, "b_body_fn", self.operand_types, self.result_types)


@runtime_op
class GetDstTensorTypeOp(CoreRtOp):
    """The tensor type a tensor handle would have on another device.

        %type = corert.get_dst_tensor_type %th, %device
    """

    name = "corert.get_dst_tensor_type"
    src_tensor_handle = operand_def(TensorHandleType)
    dst_device = operand_def(DeviceType)
    result = result_def(TensorTypeType)
    assembly_format = "operands attr-dict"


@runtime_op
class TransferOp(CoreRtOp):
    """Copies a tensor handle to a device as the given tensor type.

        %dst = corert.transfer %th, %device, %type
    """

    name = "corert.transfer"
    src = operand_def(TensorHandleType)
    device = operand_def(DeviceType)
    dst_tensor_type = operand_def(TensorTypeType)
    result = result_def(TensorHandleType)
    assembly_format = "operands attr-dict"


@runtime_op
class TransferInferredTensorTypeOp(CoreRtOp):
    """Copies a tensor handle to a device, picking the tensor type there.

        %dst = corert.transfer_inferred_tensortype %th, %device
    """

    name = "corert.transfer_inferred_tensortype"
    src = operand_def(TensorHandleType)
    device = operand_def(DeviceType)
    result = result_def(TensorHandleType)
    assembly_format = "operands attr-dict"


@runtime_op
class TensorHandleToIntOp(CoreRtOp):
    """The i32 value of a scalar tensor handle.

        %i = corert.tensorhandle_to_int32 %th
    """

    name = "corert.tensorhandle_to_int32"
    src = operand_def(TensorHandleType)
    result = result_def(i32)
    assembly_format = "operands attr-dict"


# --------------------------------------------------------------------------
# Dialect
# --------------------------------------------------------------------------


class CoreRtConstantMaterialization(ConstantMaterializationInterface):
    """Folded dense elements become `corert.const_dense_tensor` (TFRT's
    CoreRTDialect::materializeConstant)."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        if not isinstance(value, DenseIntOrFPElementsAttr) or type != TensorHandleType():
            return None
        return ConstDenseTensorOp.create(properties={"value": value}, result_types=[type])


CORERT_OPS = ops_of_module(globals(), __name__)

CORERT = RuntimeDialect(
    "corert",
    CORERT_OPS,
    [
        TensorHandleType,
        OpHandlerType,
        StringType,
        ResourceType,
        VariantType,
        Quint8Type,
        Quint16Type,
        Qint8Type,
        Qint16Type,
        Qint32Type,
        OpAttrsType,
        OpAttrsRefType,
        OpType,
        ShapeAttr,
    ],
    [CoreRtConstantMaterialization()],
    allow_unknown_operations=True,
    allow_unknown_types=True,
)
