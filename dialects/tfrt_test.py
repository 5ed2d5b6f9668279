"""The `tfrt_test` dialect, after TFRT's ``test_kernels.td``.

Ops with custom syntax that TFRT's tests use: `tfrt_test.do.async`,
`tfrt_test.benchmark`, `tfrt_test.sync_benchmark`, `tfrt_test.count3.*` and
`tfrt_test.test_cost`, plus the other ODS ops of the file.  Every op is
IsolatedFromAbove, like TFRT's `Test_Op`.  Most test kernels
(``"tfrt_test.print_hello"``, ``"tfrt_test.fail"``, ...) have no op definition
in TFRT and are written in generic form: the dialect accepts unknown ops and
types, as TFRT's does.

The module also defines the tiny `proto` dialect for ``!proto.example``, the
type of the example-parsing ops (an opaque type in TFRT).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I32,
    I64,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    StringAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import (
    AttrCostTrait,
    IsolatedOp,
    TypedAttributeTrait,
    RuntimeDialect,
    define_op,
    define_type,
    lookup_function,
    ops_of_module,
    runtime_op,
    symbol_name,
    verify_implicit_region_args,
)
from tfrt.dialects.directives import KeywordIntAttrs, ParenFunctionType, TypedOperandList
from tfrt.dialects.tfrt import ChainType, StringType
from tfrt.dialects.tfrt_tensor import TensorType

ProtoExampleType = define_type(
    __name__,
    "ProtoExampleType",
    "proto.example",
    "``!proto.example``: a parsed `tensorflow.Example` protocol buffer.",
)

PROTO = RuntimeDialect("proto", [], [ProtoExampleType], allow_unknown_types=True)


class TestOp(IsolatedOp):
    """Base of the `tfrt_test` ops: IsolatedFromAbove, like TFRT's `Test_Op`."""


def _last_op_is_return(op: Operation) -> bool:
    block = op.regions[0].first_block
    return block is not None and block.last_op is not None and block.last_op.name == "tfrt.return"


@runtime_op
class DoAsyncOp(TestOp):
    """Runs its body as a task on the work queue; its results become available
    when the body's `tfrt.return` values do.

    The body takes the operands as its arguments (by the operands' names).

        %r = tfrt_test.do.async %a, %b : (i32, i32) -> (i32) {
          %s = tfrt.add.i32 %a, %b
          tfrt.return %s : i32
        }
    """

    name = "tfrt_test.do.async"
    args = var_operand_def()
    outputs = var_result_def()
    region = region_def("single_block")
    custom_directives = (ParenFunctionType,)
    assembly_format = (
        "$args attr-dict-with-keyword `:` "
        "custom<ParenFunctionType>(type($args), type($outputs)) $region"
    )

    @classmethod
    def implicit_region_operands(cls, num_operands: int, region_index: int) -> list[int]:
        """The body takes every operand."""
        return list(range(num_operands))

    def expected_return_types(self, return_op: Operation) -> Sequence[Attribute] | None:
        return self.result_types

    def verify_(self) -> None:
        indices = self.implicit_region_operands(len(self.operands), 0)
        verify_implicit_region_args(self, self.region, indices, "the body block")
        if not _last_op_is_return(self):
            raise VerifyException("expected tfrt.return in body")


_WARMUP_DEFAULT = IntegerAttr(1, i32)


@runtime_op
class BenchmarkOp(TestOp):
    """Runs its body repeatedly, for `duration_secs` or `max_count` runs after
    `num_warmup_runs` warm-up runs, and prints timing statistics.

    The body takes the operands as its arguments and returns one value.

        tfrt_test.benchmark "add.i32"(%c : i32) duration_secs = 1, max_count = 100 {
          %x = tfrt.add.i32 %c, %c
          tfrt.return %x : i32
        }
    """

    name = "tfrt_test.benchmark"
    args = var_operand_def()
    duration_secs = prop_def(IntegerAttr[I32])
    max_count = prop_def(IntegerAttr[I32])
    bench_name = prop_def(StringAttr, prop_name="name")
    num_warmup_runs = opt_prop_def(IntegerAttr[I32], _WARMUP_DEFAULT)
    done = result_def(ChainType)
    region = region_def("single_block")
    custom_directives = (TypedOperandList, KeywordIntAttrs)
    assembly_format = (
        "$name custom<TypedOperandList>($args, type($args)) "
        "custom<KeywordIntAttrs>($duration_secs, $max_count, $num_warmup_runs) "
        "attr-dict-with-keyword $region"
    )

    @classmethod
    def implicit_region_operands(cls, num_operands: int, region_index: int) -> list[int]:
        """The body takes every operand."""
        return list(range(num_operands))

    def verify_(self) -> None:
        indices = self.implicit_region_operands(len(self.operands), 0)
        verify_implicit_region_args(self, self.region, indices, "the body block")
        if not _last_op_is_return(self):
            raise VerifyException("missing return statement")
        if len(self.region.block.last_op.operands) != 1:
            raise VerifyException(
                "incorrect number of return values. One return value is expected"
            )


@runtime_op
class SyncBenchmarkOp(TestOp):
    """Benchmarks a synchronous function the way `tfrt_test.benchmark` does a region.

        tfrt_test.sync_benchmark @fib(%n : i32) duration_secs = 1, max_count = 100
    """

    name = "tfrt_test.sync_benchmark"
    target_fn = prop_def(FlatSymbolRefAttrConstr)
    args = var_operand_def()
    duration_secs = prop_def(IntegerAttr[I32])
    max_count = prop_def(IntegerAttr[I32])
    num_warmup_runs = opt_prop_def(IntegerAttr[I32], _WARMUP_DEFAULT)
    custom_directives = (TypedOperandList, KeywordIntAttrs)
    assembly_format = (
        "$target_fn custom<TypedOperandList>($args, type($args)) "
        "custom<KeywordIntAttrs>($duration_secs, $max_count, $num_warmup_runs) "
        "attr-dict-with-keyword"
    )

    def verify_(self) -> None:
        name = symbol_name(self.properties.get("target_fn"))
        if name is None:
            raise VerifyException("requires a 'target_fn' symbol reference attribute")
        function = lookup_function(self, name)
        if function is None:
            raise VerifyException(f"'{name}' does not reference a valid function")
        fn_type = function.function_type
        if len(fn_type.inputs.data) != len(self.operands):
            raise VerifyException("incorrect number of operands for callee")
        for operand, expected in zip(self.operands, fn_type.inputs.data):
            if operand.type != expected:
                raise VerifyException("operand type mismatch")
        if fn_type.outputs.data:
            raise VerifyException("Target benchmark function must return zero value.")


def _count3(class_name: str, type_name: str, type_: Attribute) -> type:
    return define_op(
        __name__,
        class_name,
        f"Returns x+1, x+2 and x+3 for a {type_name} x.\n\n"
        f"    %a, %b, %c = tfrt_test.count3.{type_name} %x\n",
        {
            "name": f"tfrt_test.count3.{type_name}",
            "input": operand_def(type_),
            "plus1": result_def(type_),
            "plus2": result_def(type_),
            "plus3": result_def(type_),
            "traits": traits_def(Pure()),
            "assembly_format": "operands attr-dict",
        },
        base=TestOp,
    )


Count3I32Op = _count3("Count3I32Op", "i32", i32)
Count3I64Op = _count3("Count3I64Op", "i64", i64)


def _simple(class_name: str, doc: str, body: dict[str, object]) -> type:
    return define_op(__name__, class_name, doc, body, base=TestOp)


# TFRT's `tfrt_test.decode_jpeg` is left out: its kernel needs a JPEG codec,
# which this runtime does not ship.
ResizeBilinearOp = _simple(
    "ResizeBilinearOp",
    "Resizes a [height, width, channels] image tensor to height x width,\n"
    "bilinearly (`tf.compat.v1.image.resize`); the result is f32.\n\n"
    "    %resized = tfrt_test.resize_bilinear %image, %height, %width\n",
    {
        "name": "tfrt_test.resize_bilinear",
        "image": operand_def(TensorType),
        "height": operand_def(i64),
        "width": operand_def(i64),
        "resized": result_def(TensorType),
        "assembly_format": "operands attr-dict",
    },
)
ParseExampleFromBytesOp = _simple(
    "ParseExampleFromBytesOp",
    "Parses serialized bytes as a `tensorflow.Example` protocol buffer.\n\n"
    "    %example = tfrt_test.parse_example_from_bytes %bytes\n",
    {
        "name": "tfrt_test.parse_example_from_bytes",
        "bytes": operand_def(StringType),
        "example": result_def(ProtoExampleType),
        "assembly_format": "operands attr-dict",
    },
)
GetBytesFieldFromExampleOp = _simple(
    "GetBytesFieldFromExampleOp",
    "The bytes feature `key` of an example.\n\n"
    "    %value = tfrt_test.get_bytes_field_from_example %example, %key\n",
    {
        "name": "tfrt_test.get_bytes_field_from_example",
        "example": operand_def(ProtoExampleType),
        "key": operand_def(StringType),
        "value": result_def(StringType),
        "assembly_format": "operands attr-dict",
    },
)
GetInt64FieldFromExampleOp = _simple(
    "GetInt64FieldFromExampleOp",
    "The int64 feature `key` of an example.\n\n"
    "    %value = tfrt_test.get_int64_field_from_example %example, %key\n",
    {
        "name": "tfrt_test.get_int64_field_from_example",
        "example": operand_def(ProtoExampleType),
        "key": operand_def(StringType),
        "value": result_def(i64),
        "assembly_format": "operands attr-dict",
    },
)
GetStringOp = _simple(
    "GetStringOp",
    "The `value` attribute as a `!tfrt.string`.\n\n"
    '    %s = tfrt_test.get_string {value = "hello world"}\n',
    {
        "name": "tfrt_test.get_string",
        "value": prop_def(StringAttr),
        "result": result_def(StringType),
        "assembly_format": "attr-dict",
    },
)
GetStringSyncOp = _simple(
    "GetStringSyncOp",
    "The `value` attribute as a `!tfrt.string` (sync kernel).\n\n"
    '    %s = tfrt_test.get_string_sync {value = "hello world"}\n',
    {
        "name": "tfrt_test.get_string_sync",
        "value": prop_def(StringAttr),
        "result": result_def(StringType),
        "assembly_format": "attr-dict",
    },
)


@runtime_op
class TestCostOp(TestOp):
    """Prints ``id: <id>`` and returns 0; `_tfrt_cost` is its cost for stream
    analysis (BEF does not store it).

        %r = tfrt_test.test_cost %a, %b {id = 0 : i64, _tfrt_cost = 1 : i64} : i32, i32
    """

    name = "tfrt_test.test_cost"
    args = var_operand_def()
    id = prop_def(IntegerAttr[I64])
    tfrt_cost = prop_def(IntegerAttr[I64], prop_name="_tfrt_cost")
    result = result_def(i32)
    traits = traits_def(AttrCostTrait(), TypedAttributeTrait())
    assembly_format = "$args attr-dict `:` type($args)"

    def verify_(self) -> None:
        cost = self.properties.get("_tfrt_cost")
        if not isinstance(cost, IntegerAttr):
            raise VerifyException("cost attribute not found")
        if cost.value.data <= 0:
            raise VerifyException("cost value must be larger than 0")


TFRT_TEST_OPS = ops_of_module(globals(), __name__)

TFRT_TEST = RuntimeDialect(
    "tfrt_test",
    TFRT_TEST_OPS,
    [],
    allow_unknown_operations=True,
    allow_unknown_types=True,
)
