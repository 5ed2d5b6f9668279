"""Build ``tfrt.bef.program`` structures by hand, the way the BEF writer lays them out.

The executor's unit tests use this to run functions without the compiler:

    b = ProgramBuilder()
    f = b.function("main", results=("i32",))
    x = f.op("tfrt.constant.i32", attrs=[("i32", 1)])
    y = f.op("tfrt.add.i32", x, x)
    f.ret(y)
    bef = b.build()

Registers are numbered as the writer numbers them (arguments first, then op
results in order); used-by lists are in MLIR use-list order (reverse textual
order, one entry per use); the pseudo kernel's first user list holds the
zero-operand ops in textual order.
"""

from __future__ import annotations

from typing import Any

from tfrt.bef import program as bp
from tfrt.kernels.registry import attr_type_code


class FunctionBuilder:
    def __init__(self, builder: "ProgramBuilder", index: int, name: str, args, results, kind):
        self.b = builder
        self.index = index
        self.name = name
        self.arg_types = tuple(args)
        self.result_types = tuple(results)
        self.kind = kind
        self.num_registers = len(self.arg_types)
        self.ops: list[dict[str, Any]] = []
        self.returned: tuple[int, ...] = ()
        self.root_stream = 0  # the pseudo kernel's stream

    @property
    def args(self) -> list[int]:
        return list(range(len(self.arg_types)))

    def op(self, name, *operands, results=1, attrs=(), funcs=(), loc=None, stream=0):
        """Add an op; ``attrs`` are (kind, value) pairs; returns the result register(s)."""
        regs = list(range(self.num_registers, self.num_registers + results))
        self.num_registers += results
        offsets = tuple(self.b.attribute(kind, value) for kind, value in attrs)
        self.ops.append(
            dict(name=name, args=tuple(operands), attrs=offsets, funcs=tuple(funcs),
                 results=tuple(regs), loc=self.b.location(loc), stream=stream)
        )
        if results == 1:
            return regs[0]
        return regs

    def ret(self, *regs):
        self.returned = tuple(regs)

    def build(self) -> bp.Function:
        nregs = self.num_registers
        uses = [0] * nregs
        users: list[list[int]] = [[] for _ in range(nregs)]
        for kid, op in enumerate(self.ops, start=1):
            for r in op["args"]:
                uses[r] += 1
                users[r].append(kid)
        for r in self.returned:
            uses[r] += 1
        # MLIR prepends uses: the use list is in reverse textual order.
        users = [list(reversed(u)) for u in users]
        kernels = []
        for op in self.ops:
            kernels.append(
                bp.Kernel(
                    name=op["name"], location=op["loc"], args=op["args"], attrs=op["attrs"],
                    funcs=op["funcs"], results=op["results"],
                    used_by=tuple(tuple(users[r]) for r in op["results"]),
                    num_operands=len(op["args"]), stream_id=op["stream"],
                )
            )
        start = tuple(kid for kid, op in enumerate(self.ops, start=1) if not op["args"])
        pseudo = (start,) + tuple(tuple(users[r]) for r in range(len(self.arg_types)))
        return bp.Function(
            index=self.index, name=self.name, kind=self.kind, arg_types=self.arg_types,
            result_types=self.result_types, location=0, num_registers=nregs,
            register_uses=tuple(uses), kernels=kernels, pseudo_used_by=pseudo,
            result_registers=self.returned, root_stream=self.root_stream,
        )


class ProgramBuilder:
    def __init__(self, *, record_attribute_types: bool = True):
        self.functions: list[FunctionBuilder | bp.Function] = []
        self._attrs: dict[int, tuple[int | None, Any]] = {}
        self._locs: list[bp.Location] = []
        self.record_attribute_types = record_attribute_types

    def function(self, name, args=(), results=(), kind=bp.ASYNC_FUNCTION) -> FunctionBuilder:
        f = FunctionBuilder(self, len(self.functions), name, args, results, kind)
        self.functions.append(f)
        return f

    def native(self, name, args=(), results=()) -> int:
        index = len(self.functions)
        self.functions.append(
            bp.Function(index=index, name=name, kind=bp.NATIVE_FUNCTION,
                        arg_types=tuple(args), result_types=tuple(results))
        )
        return index

    def attribute(self, kind: str, value: Any) -> int:
        off = len(self._attrs) * 8
        self._attrs[off] = (attr_type_code(kind), value)
        return off

    def location(self, loc) -> int:
        if loc is None:
            return 1 << 30  # past the end of the section: unknown
        if isinstance(loc, tuple):
            loc = bp.FileLineColLocation(*loc)
        self._locs.append(loc)
        return len(self._locs) - 1

    def build(self) -> bp.BefFile:
        functions = [f.build() if isinstance(f, FunctionBuilder) else f for f in self.functions]
        names: list[str] = []
        for f in functions:
            for k in f.kernels:
                if k.name not in names:
                    names.append(k.name)
        attrs = self._attrs
        locs = self._locs

        def decode_attr(off: int, code: int) -> Any:
            return attrs[off][1]

        def decode_loc(off: int) -> bp.Location:
            return locs[off] if off < len(locs) else bp.UnknownLocation()

        return bp.BefFile(
            version=0, kernel_names=names, types=[], functions=functions,
            attribute_types={o: c for o, (c, _) in attrs.items()} if self.record_attribute_types else None,
            _attribute_decoder=decode_attr, _location_decoder=decode_loc,
        )
