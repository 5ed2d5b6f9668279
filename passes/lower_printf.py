"""``lower-printf``: ``printf.print_format`` -> ``tfrt_scalar.print`` on a chain.

The format string keeps its ``{}`` placeholders; each is replaced by the next
value at run time (scalars as Python prints them, i1 as ``1``/``0``, tensors
as numpy prints arrays).  The print takes a fresh chain here;
``insert-chains`` then orders every print of the program::

    printf.print_format "x = {}\\n", %x : f32
    // becomes
    %c = tfrt.new.chain
    %c1 = tfrt_scalar.print %c, %x {format = "x = {}\\n"} : (!tfrt.chain, f32) -> !tfrt.chain
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.dialects.tfrt import ChainType
from tfrt.passes.lowering import cannot_lower, check_value_type, make_op


@dataclass(frozen=True)
class LowerPrintfPass(ModulePass):
    """Lower ``printf.print_format`` to ``tfrt_scalar.print`` (see the module docstring)."""

    name = "lower-printf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in walk(op):
            if not o.name.startswith("printf."):
                continue
            if o.name != "printf.print_format":
                raise cannot_lower(o, "only printf.print_format has a kernel")
            fmt = o.attributes["format_str"]
            assert isinstance(fmt, StringAttr)
            holes = fmt.data.count("{}")
            if holes != len(o.operands):
                raise cannot_lower(o, f"the format has {holes} '{{}}' placeholders for {len(o.operands)} values")
            for v in o.operands:
                check_value_type(o, v.type)
            chain = make_op("tfrt.new.chain", [], [ChainType()], at=o)
            new = make_op("tfrt_scalar.print", [chain.results[0], *o.operands], [ChainType()],
                          {"format": fmt}, at=o)  # fmt: skip
            block = o.parent_block()
            assert block is not None
            block.insert_ops_before([chain, new], o)
            o.detach()
            o.erase()


LowerPrintfPass.__doc__ = f"{LowerPrintfPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
