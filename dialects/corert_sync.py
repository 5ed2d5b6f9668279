"""The `corert_sync` dialect, after TFRT's ``core_runtime/opdefs/sync/core_runtime.td``.

Core Runtime op-by-op execution inside sync functions (``attributes
{tfrt.sync}``): the `corert` ops without chains.  The types are `corert`'s
(``!corert.tensorhandle``, ``!corert.ophandler``)::

    func.func @f() attributes {tfrt.sync} {
      %cpu = corert_sync.get_op_handler "cpu"
      %a = corert_sync.const_dense_tensor dense<[1, 2]> : tensor<2xi32>
      %b = corert_sync.executeop(%cpu) "tfrt_test.add"(%a, %a) : 1
      tfrt.return
    }

Every op is IsolatedFromAbove, like TFRT's `CoreRTSync_Op`; unknown ops and
types of the dialect are accepted, as TFRT's dialect constructor allows them.

`corert_sync.executeop` reuses `corert.executeop`'s syntax directives, so it
also stores an `op_func_attrs` array; TFRT's sync op has no function
attributes (its parser takes one dictionary), so the verifier requires that
array to be empty.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute
from xdsl.irdl import (
    base,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from tfrt.dialects.base import (
    IsolatedOp,
    RuntimeDialect,
    TypedAttributeTrait,
    define_op,
    ops_of_module,
    runtime_op,
)
from tfrt.dialects.corert import DENSE_TENSOR_DTYPES, OpHandlerType, TensorHandleType
from tfrt.dialects.corert import ExecuteOp as CoreRtExecuteOp
from tfrt.dialects.directives import OpAttrDicts, ResultCount


class CoreRtSyncOp(IsolatedOp):
    """Base of the `corert_sync` ops: IsolatedFromAbove, like TFRT's `CoreRTSync_Op`."""


def _create_dense_tensor(dtype: str) -> type:
    camel = dtype.upper() if dtype[0] in "iuf" else dtype.capitalize()
    if dtype.startswith("bf"):
        camel = "BF16"
    return define_op(
        __name__,
        f"SyncCreateDenseTensor{camel}Op",
        f"A constant {dtype} dense host tensor handle of `shape` from the `value` list "
        f"(one value is splatted).\n\n"
        f"    %t = corert_sync.create_dense_tensor.{dtype} {{shape = [1, 2], value = [...]}}\n",
        {
            "name": f"corert_sync.create_dense_tensor.{dtype}",
            "shape": prop_def(ArrayAttr[IntegerAttr[I64]]),
            "value": prop_def(ArrayAttr),
            "result": result_def(TensorHandleType),
            "traits": traits_def(Pure()),
            "assembly_format": "attr-dict",
        },
        base=CoreRtSyncOp,
    )


CREATE_DENSE_TENSOR_OPS = {dtype: _create_dense_tensor(dtype) for dtype in DENSE_TENSOR_DTYPES}
globals().update({cls.__name__: cls for cls in CREATE_DENSE_TENSOR_OPS.values()})


@runtime_op
class SyncConstDenseTensorOp(CoreRtSyncOp, HasFolderInterface):
    """A constant dense host tensor handle from an elements attribute.

        %t = corert_sync.const_dense_tensor dense<[0, 1, 2]> : tensor<3xi32>
    """

    name = "corert_sync.const_dense_tensor"
    value = prop_def(base(DenseIntOrFPElementsAttr) | base(DenseResourceAttr))
    result = result_def(TensorHandleType)
    traits = traits_def(ConstantLike(), Pure(), TypedAttributeTrait())
    assembly_format = "$value attr-dict"

    def fold(self) -> Sequence[Attribute]:
        return (self.value,)


@runtime_op
class SyncExecuteOp(CoreRtSyncOp, HasFolderInterface):
    """Runs the op `op_name` on an op handler with `op_attrs`; the trailing
    number is the result count.

        %r = corert_sync.executeop(%cpu) "tfrt_test.add"(%a, %b) {T = i32} : 1
    """

    name = "corert_sync.executeop"
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
        CoreRtExecuteOp.verify_(self)  # type: ignore[arg-type]  # same fields
        if self.op_func_attrs.data:
            raise VerifyException("function attributes are not supported in corert_sync")

    def fold(self) -> Sequence[Attribute] | None:
        return CoreRtExecuteOp.fold(self)  # type: ignore[arg-type]  # same fields


@runtime_op
class SyncGetOpHandlerOp(CoreRtSyncOp):
    """The op handler registered under `device_name`.

        %cpu = corert_sync.get_op_handler "cpu"
    """

    name = "corert_sync.get_op_handler"
    device_name = prop_def(StringAttr)
    op_handler = result_def(OpHandlerType)
    traits = traits_def(Pure())
    assembly_format = "$device_name attr-dict"


CORERT_SYNC_OPS = ops_of_module(globals(), __name__)

CORERT_SYNC = RuntimeDialect(
    "corert_sync",
    CORERT_SYNC_OPS,
    [],
    allow_unknown_operations=True,
    allow_unknown_types=True,
)
