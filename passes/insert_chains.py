"""``insert-chains``: thread one ``!tfrt.chain`` through side effects in program order.

TFRT runs a kernel as soon as its operands are ready, so only a chain keeps
two prints in the order the program wrote them.  Effectful kernels
(``tfrt_scalar.print``) take a chain and return the next one.  In each
function the first effect takes a chain made by ``tfrt.new.chain`` and each
later one the chain the previous one returned.  Control flow carries the
chain too, so that effects inside a loop or a branch stay between the ones
before and after it:

* ``tfrt.if`` and ``tfrt.repeat.i32`` whose regions have effects take the
  chain as one more operand (their regions as one more argument) and return
  the region's last chain as one more result;
* ``tfrt.while`` whose body function has effects carries the chain as one
  more loop value (the body function takes it last and returns it before
  the condition);
* ``tfrt.call`` of a function with effects calls a variant of it,
  ``@<name>.chained``, that takes the chain as its last argument and returns
  the last chain as its last result.  The function itself keeps its
  signature (callers from outside start their own chain).

::

    %c0 = tfrt.new.chain
    %c1 = tfrt_scalar.print %c0, %a {format = "a {}\\n"} : (!tfrt.chain, f32) -> !tfrt.chain
    %r = tfrt.repeat.i32 %n, %x : f32 {
      %c2 = tfrt.new.chain
      %c3 = tfrt_scalar.print %c2, %x {format = "x {}\\n"} : (!tfrt.chain, f32) -> !tfrt.chain
      tfrt.return %x : f32
    }
    // becomes
    %c0 = tfrt.new.chain
    %c1 = tfrt_scalar.print %c0, %a {format = "a {}\\n"} : (!tfrt.chain, f32) -> !tfrt.chain
    %r:2 = tfrt.repeat.i32 %n, %x, %c1 : f32, !tfrt.chain {
      %c3 = tfrt_scalar.print %c1, %x {format = "x {}\\n"} : (!tfrt.chain, f32) -> !tfrt.chain
      tfrt.return %x, %c3 : f32, !tfrt.chain
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tfrt.dialects.fastir import walk
from tfrt.dialects.tfrt import ChainType
from tfrt.passes.lowering import make_op

#: Kernels that take a chain as operand 0 and return the next chain as result 0.
EFFECTS = frozenset({"tfrt_scalar.print", "tfrt_check.expect_true", "tfrt_check.expect_false",
                     "tfrt_check.expect_all_true", "tfrt_check.expect_eq", "tfrt_check.expect_almost_eq"})
_REGION_OPS = frozenset({"tfrt.if", "tfrt.repeat.i32"})
_TERMINATORS = frozenset({"tfrt.return", "func.return"})


def _callee(op: Operation) -> str | None:
    attr = op.properties.get("callee") if op.name == "tfrt.call" else (
        op.properties.get("body_fn") if op.name == "tfrt.while" else None
    )
    return attr.root_reference.data if isinstance(attr, SymbolRefAttr) else None


class _Threader:
    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        self.funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
        self.effectful = self._effectful_functions()

    def _effectful_functions(self) -> set[str]:
        effectful: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, f in self.funcs.items():
                if name not in effectful and self._has_effects(f.body, effectful):
                    effectful.add(name)
                    changed = True
        return effectful

    def _has_effects(self, region: Region, effectful: set[str] | None = None) -> bool:
        effectful = self.effectful if effectful is None else effectful
        for o in region.walk():
            if o.name in EFFECTS or _callee(o) in effectful:
                return True
        return False

    def op_has_effects(self, o: Operation) -> bool:
        if o.name in EFFECTS or _callee(o) in self.effectful:
            return True
        return o.name in _REGION_OPS and any(self._has_effects(r) for r in o.regions)

    # -- functions ---------------------------------------------------------
    def run(self) -> None:
        ops = walk(self.module)
        called = {_callee(o) for o in ops if o.name == "tfrt.call"}
        while_bodies = {_callee(o) for o in ops if o.name == "tfrt.while"}
        # Clone before anything is threaded: the variants start from the
        # original bodies.
        variants = []
        for name in sorted(n for n in called if n in self.effectful):
            clone = self.funcs[name].clone()
            clone.sym_name = StringAttr(f"{name}.chained")
            clone.properties.pop("sym_visibility", None)
            clone.properties["sym_visibility"] = StringAttr("private")
            self.module.body.block.insert_op_after(clone, self.funcs[name])
            variants.append(clone)
        for name, f in self.funcs.items():
            if name not in self.effectful or not f.body.blocks:
                continue
            if name in while_bodies:
                self._thread_function(f, returned_at=-1)
            else:
                self.thread_block(f.body.blocks[0], None)
        for f in variants:
            self._thread_function(f, returned_at=None)

    def _thread_function(self, f: func.FuncOp, returned_at: int | None) -> None:
        """Give ``f`` a chain argument (last) and return its last chain, at
        ``returned_at`` among the results (None: last)."""
        block = f.body.blocks[0]
        arg = block.insert_arg(ChainType(), len(block.args))
        out = self.thread_block(block, arg)
        term = block.last_op
        assert term is not None and term.name in _TERMINATORS
        results = list(term.operands)
        at = len(results) if returned_at is None else len(results) + returned_at
        results.insert(at, out)
        term.operands = results
        outs = list(f.function_type.outputs.data)
        outs.insert(at, ChainType())
        f.function_type = FunctionType.from_lists([*f.function_type.inputs.data, ChainType()], outs)

    # -- blocks --------------------------------------------------------------
    def thread_block(self, block: Block, chain: SSAValue | None) -> SSAValue | None:
        """Thread ``chain`` (or a new one, made at the first effect) through
        the effects of ``block``; return the last chain."""
        for o in list(block.ops):
            if not self.op_has_effects(o):
                continue
            if chain is None:
                start = make_op("tfrt.new.chain", [], [ChainType()], at=o)
                block.insert_op_before(start, block.first_op)  # type: ignore[arg-type]
                chain = start.results[0]
            if o.name in EFFECTS:
                old = o.operands[0]
                o.operands[0] = chain
                owner = getattr(old, "op", None)
                if owner is not None and owner.name == "tfrt.new.chain" and not old.uses:
                    owner.detach()
                    owner.erase()
                chain = o.results[0]
            else:
                chain = self._thread_op(o, chain)
        return chain

    def _thread_op(self, o: Operation, chain: SSAValue) -> SSAValue:
        attrs = {**o.properties, **o.attributes}
        if o.name == "tfrt.call":
            attrs["callee"] = SymbolRefAttr(f"{_callee(o)}.chained")
        if o.name in _REGION_OPS:
            for r in o.regions:
                if not r.blocks:  # tfrt.if without an else: pass the chain through
                    r.add_block(Block(arg_types=[a.type for a in o.regions[0].blocks[0].args]))
                    r.blocks[0].add_op(make_op("tfrt.return", [], [], at=o))
                b = r.blocks[0]
                arg = b.insert_arg(ChainType(), len(b.args))
                out = self.thread_block(b, arg)
                term = b.last_op
                assert term is not None and term.name in _TERMINATORS
                term.operands = [*term.operands, out]
        regions = [_take(o, i) for i in range(len(o.regions))]
        new = make_op(o.name, [*o.operands, chain], [*(r.type for r in o.results), ChainType()],
                      attrs, at=o, regions=regions)  # fmt: skip
        block = o.parent_block()
        assert block is not None
        block.insert_op_before(new, o)
        for old, repl in zip(o.results, new.results):
            old.replace_all_uses_with(repl)
        o.detach()
        o.erase()
        return new.results[-1]


def _take(op: Operation, index: int) -> Region:
    """Move region ``index`` out of ``op`` into a new region."""
    region = Region()
    op.regions[index].move_blocks(region)
    return region


@dataclass(frozen=True)
class InsertChainsPass(ModulePass):
    """Order side effects by a chain, through control flow and calls (see the module docstring)."""

    name = "insert-chains"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _Threader(op).run()


InsertChainsPass.__doc__ = f"{InsertChainsPass.__doc__}\n\nExample (from the module documentation):\n\n{__doc__}"
