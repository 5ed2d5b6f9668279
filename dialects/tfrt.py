"""The `tfrt` dialect: TFRT's basic kernels (host executor ops) and types.

Follows TFRT's ``basic_kernels.td`` / ``tfrt_base.td`` and the C++ parsers,
printers and verifiers in ``lib/basic_kernels/opdefs``.  Every op is
IsolatedFromAbove, as TFRT's `TFRT_Op` base class makes it.  The dialect
accepts unknown ops and types (``"tfrt.async_add.i32"``, ``!tfrt.test.resource``),
like TFRT's.

Besides the ODS ops, the kernels that TFRT registers without an op definition
(`tfrt.minimum.f32`, `tfrt.cast.i64_to_f32`, ...) are ops here too, with no
custom syntax: they print in generic form, as TFRT prints them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, final

from xdsl.dialect_interfaces.constant_materialization import (
    ConstantMaterializationInterface,
)
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    I1,
    I32,
    I64,
    ArrayAttr,
    BFloat16Type,
    ComplexType,
    FlatSymbolRefAttrConstr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.constraints import AnyAttr, RangeOf, RangeVarConstraint
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import (
    ConstantLike,
    HasCanonicalizationPatternsTrait,
    IsTerminator,
    Pure,
    ReturnLike,
)
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import (
    IsolatedOp,
    PlainVerifyException,
    RuntimeDialect,
    define_op,
    lookup_function,
    ops_of_module,
    runtime_op,
    symbol_name,
    verify_implicit_region_args,
)
from tfrt.dialects.directives import OptionalElseRegion, ParenFunctionType

# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------


@final
@irdl_attr_definition
class ChainType(ParametrizedAttribute, TypeAttribute):
    """``!tfrt.chain``: orders side effects; carries no data."""

    name = "tfrt.chain"
    DESCRIPTION: ClassVar[str] = "!tfrt.chain type"


@final
@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """``!tfrt.string``: a host string value."""

    name = "tfrt.string"
    DESCRIPTION: ClassVar[str] = "!tfrt.string type"


@final
@irdl_attr_definition
class TensorTypeType(ParametrizedAttribute, TypeAttribute):
    """``!tfrt.tensor_type``: a runtime tensor type descriptor."""

    name = "tfrt.tensor_type"
    DESCRIPTION: ClassVar[str] = "!tfrt.tensor_type type"


@final
@irdl_attr_definition
class DeviceType(ParametrizedAttribute, TypeAttribute):
    """``!tfrt.device``: a device handle (`tfrt.get_device`)."""

    name = "tfrt.device"
    DESCRIPTION: ClassVar[str] = "!tfrt.device type"


ui32 = IntegerType(32, Signedness.UNSIGNED)
ui64 = IntegerType(64, Signedness.UNSIGNED)
complex64 = ComplexType(f32)
complex128 = ComplexType(f64)

# --------------------------------------------------------------------------
# Base class and helpers
# --------------------------------------------------------------------------


class TfrtOp(IsolatedOp):
    """Base of the `tfrt` ops: IsolatedFromAbove, like TFRT's `TFRT_Op`."""


def _define(class_name: str, doc: str, body: dict[str, object], base: type = TfrtOp) -> type:
    """Create and register one op class of a family (constants, add.*, ...)."""
    return define_op(__name__, class_name, doc, body, base)


def _last_op_is_return(op: IRDLOperation, region_index: int = 0) -> bool:
    block = op.regions[region_index].first_block
    return block is not None and isinstance(block.last_op, ReturnOp)


def _check_callee(op: IRDLOperation, attr_name: str) -> func.FuncOp:
    """TFRT's callee checks: the symbol must name a `func.func` in the module."""
    name = symbol_name(op.properties.get(attr_name))
    if name is None:
        raise VerifyException(f"requires a '{attr_name}' symbol reference attribute")
    function = lookup_function(op, name)
    if function is None:
        raise VerifyException(f"'{name}' does not reference a valid function")
    return function


# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------


class _ConstantBase(TfrtOp, HasFolderInterface):
    """Shared fold for the scalar constants: the value attribute itself."""

    def fold(self) -> Sequence[Attribute]:
        return (self.properties["value"],)


def _constant(class_name: str, mnemonic: str, type_: Attribute, constr, example: str) -> type:
    doc = (
        f"A {type_} constant: the `value` attribute as an SSA value.\n\n"
        f"    %x = tfrt.{mnemonic} {example}\n"
    )
    body = {
        "name": f"tfrt.{mnemonic}",
        "value": prop_def(constr),
        "result": result_def(type_),
        "traits": traits_def(Pure(), ConstantLike()),
        "assembly_format": "$value attr-dict",
    }
    return _define(class_name, doc, body, base=_ConstantBase)


ConstantI1Op = _constant("ConstantI1Op", "constant.i1", i1, IntegerAttr[I1], "false")
ConstantI32Op = _constant("ConstantI32Op", "constant.i32", i32, IntegerAttr[I32], "42")
ConstantI64Op = _constant("ConstantI64Op", "constant.i64", i64, IntegerAttr[I64], "42")
ConstantUI32Op = _constant(
    "ConstantUI32Op", "constant.ui32", ui32, IntegerAttr.constr(type=ui32), "4095"
)
ConstantUI64Op = _constant(
    "ConstantUI64Op", "constant.ui64", ui64, IntegerAttr.constr(type=ui64), "4095"
)
ConstantBF16Op = _constant(
    "ConstantBF16Op", "constant.bf16", bf16, FloatAttr[BFloat16Type], "1.5"
)
ConstantF16Op = _constant("ConstantF16Op", "constant.f16", f16, FloatAttr[Float16Type], "1.5")
ConstantF32Op = _constant("ConstantF32Op", "constant.f32", f32, FloatAttr[Float32Type], "0.1")
ConstantF64Op = _constant("ConstantF64Op", "constant.f64", f64, FloatAttr[Float64Type], "0.1")

SyncConstantI64Op = _constant(
    "SyncConstantI64Op", "constant_s.i64", i64, IntegerAttr[I64], "42"
)
SyncConstantF16Op = _constant(
    "SyncConstantF16Op", "constant_s.f16", f16, FloatAttr[Float16Type], "1.5"
)
SyncConstantF32Op = _constant(
    "SyncConstantF32Op", "constant_s.f32", f32, FloatAttr[Float32Type], "1.5"
)
SyncConstantF64Op = _constant(
    "SyncConstantF64Op", "constant_s.f64", f64, FloatAttr[Float64Type], "1.5"
)


def _complex_constant(class_name: str, suffix: str, element) -> type:
    float_type = f32 if suffix == "64" else f64
    doc = (
        f"A complex<{float_type}> constant built from its real and imaginary parts.\n\n"
        f"    %z = tfrt.constant.complex{suffix} 1.0, -2.0\n"
    )
    body = {
        "name": f"tfrt.constant.complex{suffix}",
        "real": prop_def(element),
        "imaginary": prop_def(element),
        "result": result_def(ComplexType(float_type)),
        "traits": traits_def(Pure(), ConstantLike()),
        "assembly_format": "$real `,` $imaginary attr-dict",
    }
    return _define(class_name, doc, body)


ConstantComplexF32Op = _complex_constant("ConstantComplexF32Op", "64", FloatAttr[Float32Type])
ConstantComplexF64Op = _complex_constant("ConstantComplexF64Op", "128", FloatAttr[Float64Type])

# --------------------------------------------------------------------------
# Chains
# --------------------------------------------------------------------------


@runtime_op
class NewChainOp(TfrtOp):
    """A fresh, ready `!tfrt.chain` for side effects that depend on nothing.

        %ch = tfrt.new.chain
    """

    name = "tfrt.new.chain"
    result = result_def(ChainType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict"


class MergeChainsCanonicalization(HasCanonicalizationPatternsTrait):
    """Canonicalization patterns of `tfrt.merge.chains` (resolved lazily)."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (RemoveUnnecessaryMergeChains(),)


@runtime_op
class MergeChainsOp(TfrtOp):
    """A chain that becomes ready once every input is available.

        %merged = tfrt.merge.chains %ch0, %x : !tfrt.chain, i32
    """

    name = "tfrt.merge.chains"
    inputs = var_operand_def()
    result = result_def(ChainType)
    traits = traits_def(Pure(), MergeChainsCanonicalization())
    assembly_format = "$inputs attr-dict `:` type($inputs)"


class RemoveUnnecessaryMergeChains(RewritePattern):
    """Drop the merge inputs that are used elsewhere, as TFRT's canonicalizer does.

    An input with other uses is ready no later than those uses need it, so only
    the single-use inputs must be merged.  With no single-use input left the
    merge is replaced by its first input; when every input is single-use the
    merge stays as it is.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MergeChainsOp, rewriter: PatternRewriter) -> None:
        if not op.inputs:
            return
        one_use = [value for value in op.inputs if value.has_one_use()]
        if len(one_use) == len(op.inputs):
            return
        if not one_use:
            first = op.inputs[0]
            if first.type != op.result.type:
                # Replacing a chain with a non-chain value would break its users.
                return
            rewriter.replace(op, [], [first])
            return
        merged = MergeChainsOp.create(operands=one_use, result_types=[ChainType()])
        merged.attributes.update(op.attributes)
        merged.location = op.location
        rewriter.replace(op, merged)


# --------------------------------------------------------------------------
# Control flow
# --------------------------------------------------------------------------


@runtime_op
class CallOp(TfrtOp):
    """A direct call of the function named by `callee`.

        %r = tfrt.call @my_add(%a, %b) : (i32, i32) -> i32
    """

    name = "tfrt.call"
    callee = prop_def(FlatSymbolRefAttrConstr)
    arguments = var_operand_def()
    outputs = var_result_def()
    assembly_format = (
        "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $outputs)"
    )

    def verify_(self) -> None:
        function = _check_callee(self, "callee")
        fn_type = function.function_type
        if len(fn_type.inputs.data) != len(self.operands):
            raise VerifyException("incorrect number of operands for callee")
        for operand, expected in zip(self.operands, fn_type.inputs.data):
            if operand.type != expected:
                raise VerifyException("operand type mismatch")
        if len(fn_type.outputs.data) != len(self.results):
            raise VerifyException("incorrect number of results for callee")
        for result, expected in zip(self.results, fn_type.outputs.data):
            if result.type != expected:
                raise VerifyException("result type mismatch")


def _verify_return_present(op: IRDLOperation, region_index: int = 0) -> None:
    if not _last_op_is_return(op, region_index):
        raise VerifyException("expected tfrt.return in body")


@runtime_op
class IfOp(TfrtOp):
    """Runs the `then` or the `else` region on an i1 condition.

    The regions take the operands after the condition as their arguments (by
    the operands' names) and return the op's results with `tfrt.return`.  The
    `else` region may be left out when there are no results.

        %r = tfrt.if %cond, %x : (i32) -> (i32) {
          tfrt.return %x : i32
        } else {
          %y = tfrt.add.i32 %x, %x
          tfrt.return %y : i32
        }
    """

    name = "tfrt.if"
    cond = operand_def(i1)
    args = var_operand_def()
    outputs = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    custom_directives = (ParenFunctionType, OptionalElseRegion)
    assembly_format = (
        "$cond (`,` $args^)? attr-dict-with-keyword `:` "
        "custom<ParenFunctionType>(type($args), type($outputs)) "
        "$then_region custom<OptionalElseRegion>($else_region, ref(type($args)))"
    )

    @classmethod
    def implicit_region_operands(cls, num_operands: int, region_index: int) -> list[int]:
        """Both regions take every operand but the condition."""
        return list(range(1, num_operands))

    def expected_return_types(self, return_op: Operation) -> Sequence[Attribute] | None:
        return self.result_types

    def verify_(self) -> None:
        indices = self.implicit_region_operands(len(self.operands), 0)
        verify_implicit_region_args(self, self.then_region, indices, "'then' block")
        verify_implicit_region_args(self, self.else_region, indices, "'else' block")
        _verify_return_present(self, 0)
        _verify_return_present(self, 1)


@runtime_op
class CondOp(TfrtOp):
    """Calls `a_true_fn` or `b_false_fn` on an i1 condition.

    (The `a_`/`b_` prefixes keep the attributes in this order in BEF, which
    sorts attributes by name.)

        %r = tfrt.cond %c @then_fn @else_fn (%x) : (i32) -> (i32)
    """

    name = "tfrt.cond"
    cond = operand_def(i1)
    a_true_fn = prop_def(FlatSymbolRefAttrConstr)
    b_false_fn = prop_def(FlatSymbolRefAttrConstr)
    fn_operands = var_operand_def()
    outputs = var_result_def()
    assembly_format = (
        "$cond $a_true_fn $b_false_fn `(` $fn_operands `)` attr-dict `:` "
        "`(` type($fn_operands) `)` `->` `(` type($outputs) `)`"
    )

    def verify_(self) -> None:
        true_fn = _check_callee(self, "a_true_fn").function_type
        false_fn = _check_callee(self, "b_false_fn").function_type
        args = list(self.fn_operands)
        if len(true_fn.inputs.data) != len(args):
            raise VerifyException("incorrect number of operands for true function")
        if len(false_fn.inputs.data) != len(args):
            raise VerifyException("incorrect number of operands for false function")
        for arg, t_in, f_in in zip(args, true_fn.inputs.data, false_fn.inputs.data):
            if arg.type != t_in:
                raise VerifyException("operand type mismatch for true function")
            if arg.type != f_in:
                raise VerifyException("operand type mismatch for false function")
        if len(true_fn.outputs.data) != len(self.results):
            raise VerifyException("incorrect number of results for true function")
        if len(false_fn.outputs.data) != len(self.results):
            raise VerifyException("incorrect number of results for false function")
        for result, t_out, f_out in zip(self.results, true_fn.outputs.data, false_fn.outputs.data):
            if result.type != t_out:
                raise VerifyException("result type mismatch for true function")
            if result.type != f_out:
                raise VerifyException("result type mismatch for false function")


@runtime_op
class CaseOp(TfrtOp):
    """Calls one of `branches` by index; an out-of-range index picks the last.

        %r = tfrt.case %i [@b0, @b1] (%x) : (i32) -> (i32)
    """

    name = "tfrt.case"
    branch_index = operand_def(i32)
    branches = prop_def(ArrayAttr)
    branch_operands = var_operand_def()
    branch_outputs = var_result_def()
    assembly_format = (
        "$branch_index $branches `(` $branch_operands `)` attr-dict `:` "
        "`(` type($branch_operands) `)` `->` `(` type($branch_outputs) `)`"
    )


@runtime_op
class WhileOp(TfrtOp):
    """Calls `body_fn` while the condition holds; the body's last result is the
    next condition, the others the next arguments.

        %a, %b = tfrt.while %c @body(%x, %y) parallel_iterations(1) : (i32, i32) -> (i32, i32)
    """

    name = "tfrt.while"
    cond = operand_def(i1)
    arguments = var_operand_def()
    body_fn = prop_def(FlatSymbolRefAttrConstr)
    parallel_iterations = prop_def(IntegerAttr[I64])
    outputs = var_result_def()
    assembly_format = (
        "$cond $body_fn `(` $arguments `)` attr-dict `parallel_iterations` "
        "`(` $parallel_iterations `)` `:` `(` type($arguments) `)` `->` `(` type($outputs) `)`"
    )


@runtime_op
class OnceOp(TfrtOp):
    """Calls `function` once per resource context and caches its results.

        %r = tfrt.once @init(%x) : (i32) -> (i32)
    """

    name = "tfrt.once"
    arguments = var_operand_def()
    function = prop_def(FlatSymbolRefAttrConstr)
    outputs = var_result_def()
    assembly_format = (
        "$function `(` $arguments `)` attr-dict `:` "
        "`(` type($arguments) `)` `->` `(` type($outputs) `)`"
    )


_LOOP_TYPES = RangeVarConstraint("LOOP", RangeOf(AnyAttr()))


@runtime_op
class RepeatI32Op(TfrtOp):
    """Runs its body `trip_count` times, threading the loop values through.

    The body takes the operands after the trip count as its arguments (by the
    operands' names) and returns the next values with `tfrt.return`; the op
    returns the values of the last iteration.

        %r:2 = tfrt.repeat.i32 %n, %a, %b : i32, f32 {
          tfrt.return %a, %b : i32, f32
        }
    """

    name = "tfrt.repeat.i32"
    trip_count = operand_def(i32)
    args = var_operand_def(_LOOP_TYPES)
    outputs = var_result_def(_LOOP_TYPES)
    region = region_def("single_block")
    assembly_format = (
        "$trip_count (`,` $args^)? attr-dict-with-keyword (`:` type($args)^)? $region"
    )

    @classmethod
    def implicit_region_operands(cls, num_operands: int, region_index: int) -> list[int]:
        """The body takes every operand but the trip count."""
        return list(range(1, num_operands))

    def expected_return_types(self, return_op: Operation) -> Sequence[Attribute] | None:
        return self.result_types

    def verify_(self) -> None:
        if len(self.results) != len(self.operands) - 1:
            raise VerifyException("incorrect number of operands")
        for arg, result in zip(self.args, self.results):
            if arg.type != result.type:
                raise VerifyException("operand/result type mismatch")
        indices = self.implicit_region_operands(len(self.operands), 0)
        verify_implicit_region_args(self, self.region, indices, "the body block")
        _verify_return_present(self)


@runtime_op
class ParallelForI32Op(TfrtOp):
    """Runs its body over the blocks of `[start, end)` in parallel.

    The body takes `%start`, `%end` (bound to one block's bounds) and the
    operands after the block size; it returns a chain when it completes
    asynchronously and nothing otherwise.  The op's chain is ready when every
    block is done.

        %done = tfrt.parallel_for.i32 %start to %end fixed %bs, %v : i32 {
          tfrt.return
        }
    """

    name = "tfrt.parallel_for.i32"
    start = operand_def(i32)
    end = operand_def(i32)
    block_size = operand_def(i32)
    args = var_operand_def()
    done = result_def(ChainType)
    region = region_def("single_block")
    assembly_format = (
        "$start `to` $end `fixed` $block_size (`,` $args^ `:` type($args))? "
        "attr-dict-with-keyword $region"
    )

    @classmethod
    def implicit_region_operands(cls, num_operands: int, region_index: int) -> list[int]:
        """The body takes start, end and the operands after the block size."""
        return [0, 1, *range(3, num_operands)]

    def expected_return_types(self, return_op: Operation) -> Sequence[Attribute] | None:
        if not return_op.operands:
            return None
        return self.result_types

    def verify_(self) -> None:
        indices = self.implicit_region_operands(len(self.operands), 0)
        verify_implicit_region_args(self, self.region, indices, "the body block")
        _verify_return_present(self)


@runtime_op
class ParallelCallI32Op(TfrtOp):
    """`tfrt.parallel_for.i32` with the body as a function `(start, end, args...)`.

        %done = tfrt.parallel_call.i32 %start to %end fixed %bs @compute(%v) : i32
    """

    name = "tfrt.parallel_call.i32"
    callee = prop_def(FlatSymbolRefAttrConstr)
    start = operand_def(i32)
    end = operand_def(i32)
    block_size = operand_def(i32)
    args = var_operand_def()
    done = result_def(ChainType)
    assembly_format = (
        "$start `to` $end `fixed` $block_size $callee `(` $args `)` attr-dict "
        "(`:` type($args)^)?"
    )

    def verify_(self) -> None:
        fn_type = _check_callee(self, "callee").function_type
        inputs = fn_type.inputs.data
        if len(inputs) != len(self.operands) - 1:
            raise VerifyException("incorrect number of callee operands")
        if any(t != i32 for t in inputs[:2]):
            raise VerifyException("callee must take stard and end indices first")
        for operand, expected in zip(self.operands[3:], inputs[2:]):
            if operand.type != expected:
                raise VerifyException("operand type mismatch")
        outputs = fn_type.outputs.data
        if len(outputs) > 1:
            raise VerifyException("invalid callee result type")
        if len(outputs) == 1 and outputs[0] != ChainType():
            raise VerifyException("async callee must return a chain")


@runtime_op
class ReturnOp(TfrtOp):
    """Returns values from a function or from a `tfrt` region.

        tfrt.return %a, %b : i32, f32
    """

    name = "tfrt.return"
    arguments = var_operand_def()
    traits = traits_def(IsTerminator(), ReturnLike())
    BEF_KERNEL: ClassVar[bool] = False  # the BEF writer turns it into results
    assembly_format = "($arguments^ `:` type($arguments))? attr-dict"

    def verify_(self) -> None:
        parent = self.parent_op()
        if isinstance(parent, func.FuncOp):
            results = parent.function_type.outputs.data
            if len(self.operands) != len(results):
                raise VerifyException(
                    f"has {len(self.operands)} operands, but enclosing function "
                    f"returns {len(results)}"
                )
            for i, (operand, expected) in enumerate(zip(self.operands, results)):
                if operand.type != expected:
                    raise PlainVerifyException(
                        f"type of return operand {i} ('{operand.type}') doesn't match "
                        f"function result type ('{expected}')"
                    )
            return
        expected_types = getattr(parent, "expected_return_types", None)
        if expected_types is None:
            return
        expected = expected_types(self)
        if expected is not None and tuple(self.operand_types) != tuple(expected):
            raise VerifyException(f"operand types don't match '{parent.name}' result")


# --------------------------------------------------------------------------
# Arithmetic, comparisons, printing
# --------------------------------------------------------------------------

_TYPES: dict[str, Attribute] = {
    "i1": i1,
    "i32": i32,
    "i64": i64,
    "f16": f16,
    "f32": f32,
    "f64": f64,
    "complex64": complex64,
    "complex128": complex128,
}


def _binary(
    class_name: str,
    mnemonic: str,
    type_name: str,
    summary: str,
    *,
    results: Sequence[Attribute] | None = None,
) -> type:
    type_ = _TYPES[type_name]
    results = [type_] if results is None else list(results)
    names = ["result"] if len(results) == 1 else ["quotient", "remainder"]
    lhs = "%q, %r" if len(results) == 2 else "%r"
    doc = f"{summary}\n\n    {lhs} = tfrt.{mnemonic}.{type_name} %a, %b\n"
    body: dict[str, object] = {
        "name": f"tfrt.{mnemonic}.{type_name}",
        "lhs": operand_def(type_),
        "rhs": operand_def(type_),
        "traits": traits_def(Pure()),
        "assembly_format": "operands attr-dict",
    }
    for name, result_type in zip(names, results):
        body[name] = result_def(result_type)
    return _define(class_name, doc, body)


AddI32Op = _binary("AddI32Op", "add", "i32", "The sum of two i32 values (wrapping).")
AddI64Op = _binary("AddI64Op", "add", "i64", "The sum of two i64 values (wrapping).")
AddF32Op = _binary("AddF32Op", "add", "f32", "The sum of two f32 values.")
AddF64Op = _binary("AddF64Op", "add", "f64", "The sum of two f64 values.")
AndI1Op = _binary("AndI1Op", "and", "i1", "The conjunction of two i1 values.")
EqualI32Op = _binary(
    "EqualI32Op", "equal", "i32", "Whether two i32 values are equal.", results=[i1]
)
EqualI64Op = _binary(
    "EqualI64Op", "equal", "i64", "Whether two i64 values are equal.", results=[i1]
)
DivI32Op = _binary(
    "DivI32Op",
    "div",
    "i32",
    "Quotient and remainder of two i32 values (truncating); fails on a zero divisor.",
    results=[i32, i32],
)
DivI64Op = _binary(
    "DivI64Op",
    "div",
    "i64",
    "Quotient and remainder of two i64 values (truncating); fails on a zero divisor.",
    results=[i64, i64],
)
MulI32Op = _binary("MulI32Op", "mul", "i32", "The product of two i32 values (wrapping).")
MulI64Op = _binary("MulI64Op", "mul", "i64", "The product of two i64 values (wrapping).")
SyncMulI32Op = _binary(
    "SyncMulI32Op", "mul_s", "i32", "The product of two i32 values (sync kernel)."
)
SyncMulI64Op = _binary(
    "SyncMulI64Op", "mul_s", "i64", "The product of two i64 values (sync kernel)."
)

# Kernels TFRT registers without an op definition.  TFRT's dialect accepts
# them as unknown ops and checks nothing about them (its own tests call
# `tfrt.lessequal.i32` with an extra chain operand), so they are defined by
# name only: any operands and results, generic syntax, no effect traits.


def _kernel(class_name: str, mnemonic: str, summary: str, signature: str) -> type:
    arity = signature.split(")")[0].count(",") + 1
    operands = ", ".join(["%a", "%b"][:arity])
    doc = f'{summary}\n\n    %r = "tfrt.{mnemonic}"({operands}) : {signature}\n'
    body = {
        "name": f"tfrt.{mnemonic}",
        "args": var_operand_def(),
        "outputs": var_result_def(),
    }
    return _define(class_name, doc, body)


MinusI32Op = _kernel("MinusI32Op", "minus.i32", "The difference a - b.", "(i32, i32) -> i32")
MinusI64Op = _kernel("MinusI64Op", "minus.i64", "The difference a - b.", "(i64, i64) -> i64")
LessEqualI32Op = _kernel(
    "LessEqualI32Op", "lessequal.i32", "Whether a <= b.", "(i32, i32) -> i1"
)
LessEqualI64Op = _kernel(
    "LessEqualI64Op", "lessequal.i64", "Whether a <= b.", "(i64, i64) -> i1"
)
DivF32Op = _kernel(
    "DivF32Op", "div.f32", "The quotient a / b; fails on a zero divisor.", "(f32, f32) -> f32"
)
DivF64Op = _kernel(
    "DivF64Op", "div.f64", "The quotient a / b; fails on a zero divisor.", "(f64, f64) -> f64"
)
MinimumF32Op = _kernel("MinimumF32Op", "minimum.f32", "The smaller value.", "(f32, f32) -> f32")
MinimumF64Op = _kernel("MinimumF64Op", "minimum.f64", "The smaller value.", "(f64, f64) -> f64")
MultiplyF32Op = _kernel("MultiplyF32Op", "multiply.f32", "The product.", "(f32, f32) -> f32")
MultiplyF64Op = _kernel("MultiplyF64Op", "multiply.f64", "The product.", "(f64, f64) -> f64")
_CAST = "Converts as C++'s static_cast does (toward zero for float to int)."
CastI64ToF32Op = _kernel("CastI64ToF32Op", "cast.i64_to_f32", _CAST, "(i64) -> f32")
CastF32ToI64Op = _kernel("CastF32ToI64Op", "cast.f32_to_i64", _CAST, "(f32) -> i64")
CastI64ToF64Op = _kernel("CastI64ToF64Op", "cast.i64_to_f64", _CAST, "(i64) -> f64")
CastF64ToI64Op = _kernel("CastF64ToI64Op", "cast.f64_to_i64", _CAST, "(f64) -> i64")
_PRINT = "Prints the value to stdout once the chain is ready; returns a chain."
PrintF16Op = _kernel(
    "PrintF16Op", "print.f16", _PRINT, "(f16, !tfrt.chain) -> !tfrt.chain"
)
PrintComplex64Op = _kernel(
    "PrintComplex64Op", "print.complex64", _PRINT, "(complex<f32>, !tfrt.chain) -> !tfrt.chain"
)
PrintComplex128Op = _kernel(
    "PrintComplex128Op", "print.complex128", _PRINT, "(complex<f64>, !tfrt.chain) -> !tfrt.chain"
)


def _print(class_name: str, type_name: str) -> type:
    type_ = _TYPES[type_name]
    doc = (
        f"Prints a {type_name} value to stdout once the chain is ready; returns a chain.\n\n"
        f"    %ch1 = tfrt.print.{type_name} %x, %ch0\n"
    )
    body: dict[str, object] = {
        "name": f"tfrt.print.{type_name}",
        "value": operand_def(type_),
        "in_chain": operand_def(ChainType),
        "out_chain": result_def(ChainType),
        "assembly_format": "operands attr-dict",
    }
    return _define(class_name, doc, body)


PrintI1Op = _print("PrintI1Op", "i1")
PrintI32Op = _print("PrintI32Op", "i32")
PrintI64Op = _print("PrintI64Op", "i64")
PrintF32Op = _print("PrintF32Op", "f32")
PrintF64Op = _print("PrintF64Op", "f64")


@runtime_op
class GetDeviceOp(TfrtOp):
    """The device object named by `device_name`.

        %dev = tfrt.get_device %ch {device_name = "GPU:0"}
    """

    name = "tfrt.get_device"
    chain_in = operand_def(ChainType)
    device_name = prop_def(StringAttr)
    result = result_def(DeviceType)
    assembly_format = "operands attr-dict"


# --------------------------------------------------------------------------
# Dialect
# --------------------------------------------------------------------------

_CONSTANT_BY_TYPE: dict[Attribute, type[IRDLOperation]] = {
    i1: ConstantI1Op,
    i32: ConstantI32Op,
    i64: ConstantI64Op,
    ui32: ConstantUI32Op,
    ui64: ConstantUI64Op,
    bf16: ConstantBF16Op,
    f16: ConstantF16Op,
    f32: ConstantF32Op,
    f64: ConstantF64Op,
}


class TfrtConstantMaterialization(ConstantMaterializationInterface):
    """Folded scalars become `tfrt.constant.<type>` ops."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        op_class = _CONSTANT_BY_TYPE.get(type)
        if op_class is None or not isinstance(value, IntegerAttr | FloatAttr):
            return None
        if value.type != type:
            return None
        return op_class.create(properties={"value": value}, result_types=[type])


TFRT_OPS: list[type[IRDLOperation]] = ops_of_module(globals(), __name__)

TFRT = RuntimeDialect(
    "tfrt",
    TFRT_OPS,
    [ChainType, StringType, TensorTypeType, DeviceType],
    [TfrtConstantMaterialization()],
    allow_unknown_operations=True,
    allow_unknown_types=True,
)
