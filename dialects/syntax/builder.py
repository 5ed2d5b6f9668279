"""The IR builder: lark callbacks that turn grammar matches into xDSL IR.

It runs *inside* the LALR parse: the driver (:mod:`.driver`) calls a rule's
callback when the rule is reduced, so IR is built in text order without an
intermediate parse tree.  Rules are arranged so that the side effects happen
at the right time (see ``mlir.lark``):

* ``*_head`` rules reduce before an op's first region opens; they push an
  :class:`OpFrame` saying whether the op is ``IsolatedFromAbove`` and which
  entry-block arguments its regions get implicitly (function arguments,
  ``implicit_region_operands``, ``scf.for`` induction variables);
* ``region_open`` pushes a :class:`Scope` (SSA names and block labels are
  per region, as in MLIR), ``region`` pops it;
* ``operation`` binds the result names and appends the op to the current
  block.

Forward references become ``ForwardDeclaredValue`` placeholders that the
definition replaces; unresolved ones move to the enclosing scope when a
non-isolated region closes and are errors when an isolated one closes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lark import Token
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    CallSiteLoc,
    ComplexType,
    DictionaryAttr,
    FileLineColLoc,
    FunctionType,
    FusedLoc,
    IntAttr,
    MemRefType,
    ModuleOp,
    NameLoc,
    NoneAttr,
    NoneType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    UnitAttr,
    UnknownLoc,
    UnrankedMemRefType,
    UnrankedTensorType,
    VectorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser as XParser
from xdsl.parser.core import ForwardDeclaredValue  # noqa: TID251
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import ParseError, VerifyException

from tfrt.diagnostics import Diagnostic, DiagnosticError, SourceLoc

from ..fastir import append_op, create_op, new_block
from . import attributes as A
from .driver import Tok

UNKNOWN_LOC = UnknownLoc()
# Ops whose regions may name ops of a dialect without its prefix.
DEFAULT_DIALECTS = {"func.func": "func"}
_RESULT_ITEM = re.compile(r"(%[A-Za-z0-9_$.\-]+)(?::([0-9]+))?")


class OpFrame:
    """An op whose regions are being parsed."""

    __slots__ = ("name", "isolated", "region_args", "next_region", "tok", "data")

    def __init__(self, name: str, isolated: bool, tok: Token, region_args=None, data=None):
        self.name = name
        self.isolated = isolated
        # Per region index: [(name token | None, type), ...] for its entry block.
        self.region_args: list[list[tuple[Token | None, Attribute]]] | None = region_args
        self.next_region = 0
        self.tok = tok
        self.data = data


class Scope:
    """SSA names and block labels of one region."""

    __slots__ = (
        "region",
        "isolated",
        "values",
        "def_toks",
        "fwd",
        "blocks",
        "block_fwd",
        "block",
        "parent",
        "implicit",
        "saw_label",
    )

    def __init__(self, parent: Scope | None, isolated: bool):
        self.region = _new_region()  # Region(): an empty region
        self.isolated = isolated
        self.values: dict[str, SSAValue] = {}
        self.def_toks: dict[str, Token] = {}
        # name -> first use token, for values used before their definition.
        self.fwd: dict[str, Token] = {}
        self.blocks: dict[str, Block] = {}
        self.block_fwd: dict[str, tuple[Block, Token]] = {}
        self.block: Block | None = None
        self.parent = parent
        self.implicit = False
        self.saw_label = False


class OpInfo:
    """What the builder needs to know about an op name (cached per parse)."""

    __slots__ = ("cls", "isolated", "prop_names")

    def __init__(self, cls: type[Operation]):
        self.cls = cls
        self.isolated = cls.has_trait(IsolatedFromAbove, value_if_unregistered=False)
        self.prop_names: tuple[str, ...] = ()
        if issubclass(cls, IRDLOperation):
            self.prop_names = tuple(cls.get_irdl_definition().properties)


def _line_col(tok: Token) -> tuple[int, int]:
    if isinstance(tok, Tok):
        return tok.index.line_col(tok.start_pos)
    return tok.line, tok.column


_set = object.__setattr__


def _new_region() -> Region:
    """``Region()``: an empty region (its fields are the class defaults)."""
    return object.__new__(Region)


def _int_attr(value: int) -> IntAttr:
    """``IntAttr(value)`` for a line or column number (an int by construction)."""
    attr = object.__new__(IntAttr)
    _set(attr, "data", value)
    return attr


def _file_loc(filename: StringAttr, line: IntAttr, column: IntAttr) -> FileLineColLoc:
    """``FileLineColLoc(filename, line, column)`` without its verifier: the
    parameters are built here with the right classes, and every op of a
    file gets one (the checks cost as much as the rest of the location)."""
    loc = object.__new__(FileLineColLoc)
    _set(loc, "filename", filename)
    _set(loc, "line", line)
    _set(loc, "column", column)
    return loc


def type_str(t: Attribute) -> str:
    return str(t)


class IRBuilder:
    """lark callbacks (one method per rule or alias of ``mlir.lark``).

    One instance serves one compiled grammar; :meth:`reset` prepares it for
    a new input.  Generated op rules get their callbacks from
    :mod:`tfrt.dialects.syntax.formats` (set as instance attributes).
    """

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._type_cache: dict[Any, Attribute] = {}
        self.reset("-", "")

    # ------------------------------------------------------------ state

    def reset(
        self,
        filename: str,
        text: str,
        allow_unregistered: bool = False,
        alias_sources: dict[str, tuple[int, int, int]] | None = None,
        parse_alias: Callable[[int, int], Any] | None = None,
        resources: dict[str, Any] | None = None,
    ) -> None:
        self.filename = filename
        self.text = text
        # key -> Blob of the file's `dialect_resources: {builtin: ...}` section.
        self.resources = resources or {}
        self.resource_cache: dict[tuple[str, Any], Attribute] = {}
        self.allow_unregistered = allow_unregistered
        if len(self._type_cache) > 4096:
            self._type_cache.clear()
        self.file_attr = StringAttr(filename)
        self.ints: dict[int, IntAttr] = {}
        self.locs: dict[tuple[int, int], FileLineColLoc] = {}
        self.frames: list[OpFrame] = []
        self.top = Scope(None, False)
        self.root = self.top
        self.ops: dict[str, OpInfo] = {}
        self.aliases: dict[str, Any] = {}
        # Where each alias seen so far is defined (text offset of its name).
        self.alias_def_pos: dict[str, int] = {}
        self.alias_sources = alias_sources or {}
        self.parse_alias = parse_alias
        self.aliases_in_progress: set[str] = set()
        self.loc_fixups: list[tuple[Operation | BlockArgument, Token]] = []
        # Function-argument locations by token identity, until the region opens.
        self.arg_locs: dict[int, tuple[Token, Any]] = {}
        self.dialect_cache: dict[tuple[str, bool], Attribute] = {}
        self.attr_cache: dict[Any, Attribute] = {}

    # ------------------------------------------------------------ diagnostics

    def loc_of(self, tok: Token | None) -> SourceLoc | None:
        if tok is None or getattr(tok, "line", None) is None:
            return None
        line, col = _line_col(tok)
        return SourceLoc(self.filename, line, col)

    def error(self, msg: str, tok: Token | None, notes=()) -> DiagnosticError:
        d = Diagnostic("error", msg, self.loc_of(tok))
        for note_msg, note_tok in notes:
            d.note(note_msg, self.loc_of(note_tok))
        return DiagnosticError(d)

    def file_loc(self, tok: Token) -> FileLineColLoc:
        key = tok.index.line_col(tok.start_pos) if tok.__class__ is Tok else _line_col(tok)
        loc = self.locs.get(key)
        if loc is None:
            ints = self.ints
            line = ints.get(key[0])
            if line is None:
                line = ints[key[0]] = _int_attr(key[0])
            col = ints.get(key[1])
            if col is None:
                col = ints[key[1]] = _int_attr(key[1])
            loc = self.locs[key] = _file_loc(self.file_attr, line, col)
        return loc

    # ------------------------------------------------------------ ops

    def op_info(self, name: str, tok: Token) -> OpInfo:
        info = self.ops.get(name)
        if info is not None:
            return info
        cls = self.ctx._get_known_op(name)  # noqa: SLF001 (no unregistered fallback)
        if cls is None:
            if not self.allow_unregistered and not self._dialect_allows(
                name, "allow_unknown_operations"
            ):
                dialect = name.split(".", 1)[0]
                raise self.error(
                    f"unregistered operation '{name}' found in dialect ('{dialect}') "
                    "that does not allow unknown operations",
                    tok,
                )
            from xdsl.dialects.builtin import UnregisteredOp

            cls = UnregisteredOp.with_name(name)
        info = self.ops[name] = OpInfo(cls)
        return info

    def _dialect_allows(self, name: str, flag: str) -> bool:
        """Does the dialect of ``name`` accept names it does not define (TFRT's
        allowUnknownOperations / allowUnknownTypes, see RuntimeDialect)?"""
        prefix = name.split(".", 1)[0]
        if prefix not in self.ctx.registered_dialect_names and prefix not in {
            d.name for d in self.ctx.loaded_dialects
        }:
            return False
        try:
            dialect = self.ctx.get_optional_dialect(prefix)
        except ImportError:
            return False
        return bool(getattr(dialect, flag, False))

    def append_op(self, op: Operation) -> None:
        scope = self.top
        block = scope.block
        if block is None:
            block = scope.block = Block()
            scope.region.add_block(block)
        append_op(block, op)

    def operation(self, c):
        res_tok, body, loc = c
        op, tok = body
        if res_tok is None:
            if loc is None:
                op.location = self.file_loc(tok)
            self._set_loc(op, loc)
            self.append_op(op)
            return None
        # Results: `%x =`, `%x:2 =`, `%a, %b =`.
        text = res_tok.value
        results = op.results
        if "," not in text and ":" not in text:
            if len(results) != 1:
                raise self.error(
                    f"operation defines {len(results)} results but was provided 1 to bind",
                    res_tok,
                )
            self.define(text[:-1].rstrip(), results[0], res_tok)
        else:
            items = _RESULT_ITEM.findall(text)
            total = sum(int(n) if n else 1 for _, n in items)
            if total != len(results):
                raise self.error(
                    f"operation defines {len(results)} results but was provided {total} to bind",
                    res_tok,
                )
            i = 0
            for name, n in items:
                k = int(n) if n else 1
                if n:
                    for j in range(k):
                        self.define(f"{name}#{j}", results[i + j], res_tok)
                self.define(name, results[i], res_tok)
                i += k
        if loc is None:
            op.location = self.file_loc(res_tok)
        else:
            self._set_loc(op, loc)
        self.append_op(op)
        return None

    def _set_loc(self, op: Operation, loc) -> None:
        if loc is None:
            return
        if isinstance(loc, Token):  # a location alias not defined yet
            self.loc_fixups.append((op, loc))
            op.location = UNKNOWN_LOC
        else:
            op.location = loc

    def default_dialect(self) -> str | None:
        """The dialect whose ops may drop their prefix here (MLIR's
        OpAsmOpInterface::getDefaultDialect: `return` inside `func.func`)."""
        for frame in reversed(self.frames):
            d = DEFAULT_DIALECTS.get(frame.name)
            if d is not None:
                return d
        return None

    def unknown_op(self, c):
        tok = c[0]
        name = tok.value
        tried = ""
        if "." not in name:
            prefix = self.default_dialect()
            if prefix is not None:
                tried = f" (tried '{prefix}.{name}' as well)"
                qualified = f"{prefix}.{name}"
                if self.ctx._get_known_op(qualified) is not None:  # noqa: SLF001
                    name = qualified
        if self.ctx._get_known_op(name) is not None:  # noqa: SLF001
            raise self.error(
                f"custom op '{name}' has no custom assembly format; write it in the "
                f'generic form "{name}"(...) : (...) -> (...)',
                tok,
            )
        raise self.error(f"custom op '{tok.value}' is unknown{tried}", tok)

    # ------------------------------------------------------------ SSA values

    def lookup(self, name: str) -> SSAValue | None:
        scope = self.top
        while True:
            v = scope.values.get(name)
            if v is not None:
                return v
            if scope.isolated or scope.parent is None:
                return None
            scope = scope.parent

    def use(self, tok: Token, typ: Attribute) -> SSAValue:
        """The value named by ``tok``, which the op expects to have type ``typ``."""
        name = tok.value
        scope = self.top
        while True:
            v = scope.values.get(name)
            if v is not None:
                break
            if scope.isolated or scope.parent is None:
                return self._forward(tok, typ)
            scope = scope.parent
        if v.type is typ or v.type == typ:
            return v
        prior = scope.fwd.get(name) if isinstance(v, ForwardDeclaredValue) else None
        if prior is None:
            prior = scope.def_toks.get(name)
        raise self.error(
            f"use of value '{name}' expects different type than prior uses: "
            f"'{type_str(typ)}' vs '{type_str(v.type)}'",
            tok,
            [("prior use here", prior)],
        )

    def _forward(self, tok: Token, typ: Attribute) -> SSAValue:
        name = tok.value
        if "#" in name:
            base, _, idx = name.partition("#")
            v = self.lookup(base)
            if v is not None and not isinstance(v, ForwardDeclaredValue):
                if idx == "0":
                    return self.use(Token("SSA_USE", base, line=tok.line, column=tok.column), typ)
                raise self.error(f"reference to invalid result number in '{name}'", tok)
        v = ForwardDeclaredValue(typ)
        scope = self.top
        scope.values[name] = v
        scope.fwd[name] = tok
        return v

    def define(self, name: str, value: SSAValue, tok: Token) -> None:
        """Bind ``name`` in the current region (resolving forward uses of it)."""
        scope = self.top
        cur = scope.values.get(name)
        if cur is not None:
            if not isinstance(cur, ForwardDeclaredValue):
                raise self.error(
                    f"redefinition of SSA value '{name}'",
                    tok,
                    [("previously defined here", scope.def_toks.get(name))],
                )
            use_tok = scope.fwd.pop(name)
            if cur.type != value.type:
                raise self.error(
                    f"definition of SSA value '{name}' has type '{type_str(value.type)}'",
                    tok,
                    [(f"previously used here with type '{type_str(cur.type)}'", use_tok)],
                )
            cur.replace_all_uses_with(value)
        elif not scope.isolated:
            p = scope.parent
            while p is not None:
                old = p.values.get(name)
                if old is not None and not isinstance(old, ForwardDeclaredValue):
                    raise self.error(
                        f"redefinition of SSA value '{name}'",
                        tok,
                        [("previously defined here", p.def_toks.get(name))],
                    )
                if p.isolated:
                    break
                p = p.parent
        scope.values[name] = value
        scope.def_toks[name] = tok

    # ------------------------------------------------------------ regions

    def region_open(self, c):
        frame = self.frames[-1] if self.frames else None
        scope = Scope(self.top, frame.isolated if frame is not None else False)
        self.top = scope
        if frame is None:
            return None
        index = frame.next_region
        frame.next_region += 1
        args = (
            frame.region_args[index]
            if frame.region_args and index < len(frame.region_args)
            else None
        )
        if args is None:
            return None
        block = Block(arg_types=[t for _, t in args])
        scope.region.add_block(block)
        scope.block = block
        scope.implicit = True
        for (tok, _), arg in zip(args, block.args, strict=True):
            if tok is not None:
                scope.values[tok.value] = arg
                scope.def_toks[tok.value] = tok
                located = self.arg_locs.pop(id(tok), None)
                if located is not None:
                    loc = located[1]
                    if isinstance(loc, Token):
                        self.loc_fixups.append((arg, loc))
                    else:
                        arg.location = loc
        return None

    def region(self, c):
        scope = self.top
        if scope.block_fwd:
            label, (_, tok) = next(iter(scope.block_fwd.items()))
            raise self.error(f"reference to an undefined block '{label}'", tok)
        if scope.fwd:
            if scope.isolated or scope.parent is None:
                name, tok = next(iter(scope.fwd.items()))
                raise self.error(f"use of undeclared SSA value name '{name}'", tok)
            parent = scope.parent
            for name, tok in scope.fwd.items():
                v = scope.values[name]
                old = parent.values.get(name)
                if old is None:
                    parent.values[name] = v
                    parent.fwd[name] = tok
                elif isinstance(old, ForwardDeclaredValue):
                    if old.type != v.type:
                        raise self.error(
                            f"use of value '{name}' expects different type than prior uses: "
                            f"'{type_str(v.type)}' vs '{type_str(old.type)}'",
                            tok,
                            [("prior use here", parent.fwd.get(name))],
                        )
                    v.replace_all_uses_with(old)
                else:  # pragma: no cover - lookup would have found it
                    v.replace_all_uses_with(old)
        self.top = scope.parent
        return scope.region

    def block_label(self, c):
        tok = c[0]
        args = c[1:] if len(c) > 1 else []
        args = [a for a in args if a is not None]
        scope = self.top
        label = tok.value
        if label in scope.blocks:
            raise self.error(f"redefinition of block '{label}'", tok)
        if (
            scope.implicit
            and not scope.saw_label
            and scope.block is not None
            and scope.block.first_op is None
        ):
            # An explicit entry label in a region whose arguments are implicit:
            # accept it when it restates the same argument types.
            block = scope.block
            scope.saw_label = True
            scope.blocks[label] = block
            if args:
                types = [t for _, t in args]
                if types != [a.type for a in block.args]:
                    raise self.error(
                        "entry block arguments do not match the op's implicit region arguments: "
                        f"({', '.join(map(type_str, types))}) vs "
                        f"({', '.join(type_str(a.type) for a in block.args)})",
                        tok,
                    )
                for (name_tok, _), arg in zip(args, block.args, strict=True):
                    scope.values[name_tok.value] = arg
                    scope.def_toks[name_tok.value] = name_tok
            return None
        scope.saw_label = True
        fwd = scope.block_fwd.pop(label, None)
        if fwd is None:
            block = new_block([typ for _, typ in args])
            new_args = block.args
        else:  # a block branched to before: its arguments come now
            block = fwd[0]
            new_args = [block.insert_arg(typ, len(block.args)) for _, typ in args]
        scope.blocks[label] = block
        scope.region.add_block(block)
        scope.block = block
        for (name_tok, _), arg in zip(args, new_args, strict=True):
            self.define(name_tok.value, arg, name_tok)
        return None

    def block_arg(self, c):
        tok, typ, _loc = c
        if "#" in tok.value:
            raise self.error(f"invalid block argument name '{tok.value}'", tok)
        return (tok, typ)

    def block(self, c):
        return None

    def successor_block(self, tok: Token) -> Block:
        scope = self.top
        label = tok.value
        block = scope.blocks.get(label)
        if block is not None:
            return block
        fwd = scope.block_fwd.get(label)
        if fwd is not None:
            return fwd[0]
        block = Block()
        scope.block_fwd[label] = (block, tok)
        return block

    # ------------------------------------------------------------ generic form

    def string_value(self, tok: Token, text: str | None = None) -> str:
        """The contents of a string literal (``text``, or ``tok``'s); a bad
        escape is an error at ``tok``."""
        try:
            return A.decode_string(tok.value if text is None else text)
        except A.AttrError as e:
            raise self.error(str(e), tok) from None

    def generic_head(self, c):
        name_tok, uses, succs, props = c
        name = self.string_value(name_tok)
        info = self.op_info(name, name_tok)
        self.frames.append(OpFrame(name, info.isolated, name_tok, None, (info, uses, succs, props)))
        return None

    def generic_op(self, c):
        _, regions, attrs, ftype = c
        frame = self.frames.pop()
        info, uses, succs, props = frame.data
        tok = frame.tok
        ins = ftype.inputs.data
        uses = uses or ()
        succ_blocks: list[Block] = []
        succ_operands: list[SSAValue] = []
        if succs:
            for stok, sargs in succs:
                succ_blocks.append(self.successor_block(stok))
                if sargs is not None:
                    s_uses, s_types = sargs
                    if len(s_uses) != len(s_types):
                        raise self.error(
                            f"expected {len(s_uses)} types to match the successor operands, "
                            f"got {len(s_types)}",
                            stok,
                        )
                    succ_operands.extend(
                        self.use(u, t) for u, t in zip(s_uses, s_types, strict=True)
                    )
        if len(uses) != len(ins):
            raise self.error(
                f"expected {len(uses)} operand type{'s' if len(uses) != 1 else ''} "
                f"but had {len(ins)}",
                tok,
            )
        operands = [self.use(u, t) for u, t in zip(uses, ins, strict=True)]
        operands += succ_operands
        props = dict(props) if props else {}
        attrs = dict(attrs) if attrs else {}
        for pname in info.prop_names:
            if pname in attrs and pname not in props:
                props[pname] = attrs.pop(pname)
        try:
            op = create_op(
                info.cls, operands, ftype.outputs.data, props, attrs, regions or (), succ_blocks
            )
        except (VerifyException, ValueError, TypeError) as e:
            raise self.error(f"'{frame.name}' op {e}", tok) from None
        return (op, tok)

    def ssa_uses(self, c):
        return c

    def successor_list(self, c):
        return c

    def successor(self, c):
        tok, uses, types = c
        if uses is None:
            return (tok, None)
        return (tok, (uses, types))

    def properties(self, c):
        return c[0]

    def generic_regions(self, c):
        return c

    # ------------------------------------------------------------ func.func

    def func_head(self, c):
        kw, vis, sym, args, results, attrs = c
        args = args or []
        named = [a for a in args if a[0] is not None]
        if named and len(named) != len(args):
            raise self.error(
                "expected all arguments to be named or all arguments to be unnamed", sym
            )
        region_args = [[(a[0], a[1]) for a in args]] if named else None
        for a in named:
            if "#" in a[0].value:
                raise self.error(f"invalid argument name '{a[0].value}'", a[0])
        data = (vis, sym, args, results or [], attrs)
        self.frames.append(OpFrame("func.func", True, kw, region_args, data))
        return None

    def func_op(self, c):
        from xdsl.dialects.func import FuncOp

        _, region = c
        frame = self.frames.pop()
        vis, sym, args, results, attrs = frame.data
        name = self.symbol_name(sym)
        ins = [a[1] for a in args]
        outs = [r[0] for r in results]
        arg_attrs = None
        if any(a[2] for a in args):
            arg_attrs = ArrayAttr([DictionaryAttr(a[2] or {}) for a in args])
        res_attrs = None
        if any(r[1] for r in results):
            res_attrs = ArrayAttr([DictionaryAttr(r[1] or {}) for r in results])
        if region is not None and not frame.region_args and ins:
            raise self.error("function with a body needs named arguments (%name: type)", sym)
        func = FuncOp(
            name=name,
            function_type=(ins, outs),
            region=region if region is not None else Region(),
            visibility=vis.value if vis is not None else None,
            arg_attrs=arg_attrs,
            res_attrs=res_attrs,
        )
        if attrs:
            for reserved in ("sym_name", "function_type", "sym_visibility"):
                if reserved in attrs:
                    raise self.error(
                        f"attribute '{reserved}' is set by the function syntax itself", sym
                    )
            func.attributes |= attrs
        return (func, frame.tok)

    def named_arg(self, c):
        tok, typ, attrs, loc = c
        # An argument's location: its explicit loc(...) (an alias is resolved
        # once the whole file is read), else where its name stands, as MLIR's
        # parser records it.
        self.arg_locs[id(tok)] = (tok, loc if loc is not None else self.file_loc(tok))
        return (tok, typ, attrs)

    def unnamed_arg(self, c):
        typ, attrs = c
        return (None, typ, attrs)

    def func_args(self, c):
        return c

    def func_result(self, c):
        return (c[0], c[1])

    def single_result(self, c):
        return [(c[0], None)]

    def result_list(self, c):
        return [r for r in c if r is not None]

    # ------------------------------------------------------------ module

    def module_head(self, c):
        kw, sym, attrs = c
        self.frames.append(OpFrame("builtin.module", True, kw, None, (sym, attrs)))
        return None

    def module_op(self, c):
        _, region = c
        frame = self.frames.pop()
        sym, attrs = frame.data
        if not region.blocks:
            region.add_block(Block())
        props = {}
        if sym is not None:
            props["sym_name"] = StringAttr(self.symbol_name(sym))
        op = ModuleOp.create(regions=[region], properties=props, attributes=attrs or {})
        return (op, frame.tok)

    # ------------------------------------------------------------ top level

    def start(self, c):
        scope = self.root
        if scope.fwd:
            name, tok = next(iter(scope.fwd.items()))
            raise self.error(f"use of undeclared SSA value name '{name}'", tok)
        for op, tok in self.loc_fixups:
            op.location = self.resolve_loc_alias(tok)
        block = scope.block
        if block is not None:
            first = block.first_op
            if first is not None and first is block.last_op and isinstance(first, ModuleOp):
                first.detach()
                return first
        region = scope.region
        if block is None:
            region.add_block(Block())
        mod = ModuleOp.create(regions=[region])
        mod.location = FileLineColLoc(self.file_attr, IntAttr(0), IntAttr(0))
        return mod

    # ------------------------------------------------------------ aliases

    def alias_def(self, c):
        tok, value = c
        name = tok.value[:-1].rstrip()
        if "<" in name or "." in name[1:]:
            raise self.error(
                f"invalid alias name '{name}': alias names cannot contain '.' or '<'", tok
            )
        prev = self.alias_def_pos.get(name)
        if prev is not None and prev != tok.start_pos:
            kind = "type" if name[0] == "!" else "attribute"
            raise self.error(f"redefinition of {kind} alias id '{name[1:]}'", tok)
        if name[0] == "!" and not _is_type(value):
            raise self.error(f"type alias '{name}' must be defined as a type", tok)
        self.aliases[name] = value
        self.alias_def_pos[name] = tok.start_pos
        return None

    def alias_rhs(self, c):
        return c[0]

    def alias(self, tok: Token):
        name = tok.value
        v = self.aliases.get(name)
        if v is not None:
            return v
        src = self.alias_sources.get(name)
        if src is None or self.parse_alias is None:
            return None
        if name in self.aliases_in_progress:
            raise self.error(f"alias '{name}' is defined in terms of itself", tok)
        self.aliases_in_progress.add(name)
        try:
            def_pos, begin, end = src
            value = self.parse_alias(begin, end)
        finally:
            self.aliases_in_progress.discard(name)
        self.aliases[name] = value
        # When the parse reaches this definition, it is not a redefinition.
        self.alias_def_pos[name] = def_pos
        return value

    def resolve_loc_alias(self, tok: Token):
        v = self.alias(tok)
        if v is None:
            raise self.error(f"undefined symbol alias id '{tok.value[1:]}'", tok)
        if not isinstance(v, UnknownLoc | FileLineColLoc | NameLoc | FusedLoc | CallSiteLoc):
            raise self.error(f"expected location, but '{tok.value}' is not a location alias", tok)
        return v

    # ------------------------------------------------------------ locations

    def location(self, c):
        return c[0]

    def loc_unknown(self, c):
        return UNKNOWN_LOC

    def loc_flc(self, c):
        f, line, col = c[:3]
        return FileLineColLoc(
            StringAttr(self.string_value(f)), IntAttr(int(line.value)), IntAttr(int(col.value))
        )

    def loc_name(self, c):
        name, child = c
        return NameLoc(
            StringAttr(self.string_value(name)), child if child is not None else NoneAttr()
        )

    def loc_fused(self, c):
        meta = c[0]
        locs = [x for x in c[1:] if x is not None]
        locs = [self.resolve_loc_alias(x) if isinstance(x, Token) else x for x in locs]
        return FusedLoc(tuple(locs), meta if meta is not None else NoneAttr())

    def loc_callsite(self, c):
        callee, caller = (self.resolve_loc_alias(x) if isinstance(x, Token) else x for x in c)
        return CallSiteLoc(callee, caller)

    def loc_alias(self, c):
        tok = c[0]
        v = self.aliases.get(tok.value)
        if v is not None or tok.value in self.alias_sources:
            return self.resolve_loc_alias(tok)
        # Defined later in the file (a trailing `#loc0 = loc(...)`): fix up at the end.
        return tok

    # ------------------------------------------------------------ types

    def type_list(self, c):
        return c

    def any_types(self, c):
        return c

    def int_type(self, c):
        return A.int_type(c[0].value)

    def float_type(self, c):
        try:
            return A.float_type(c[0].value)
        except A.AttrError as e:
            raise self.error(str(e), c[0]) from None

    def index_type(self, c):
        return A.INDEX

    def none_type(self, c):
        return _NONE_TYPE

    def simple_tensor_type(self, c):
        text = c[0].value
        t = self._type_cache.get(text)
        if t is None:
            elt = text[7:-1]
            dims = []
            while elt[0].isdigit():  # `4x4xf32`: `<digits>x` each
                j = elt.index("x")
                dims.append(elt[:j])
                elt = elt[j + 1 :]
            if elt == "index":
                et = A.INDEX
            elif elt[0] in "isu":
                et = A.int_type(elt)
            else:
                et = A.float_type(elt)
            t = self._type_cache[text] = TensorType(et, [int(d) for d in dims], NoneAttr())
        return t

    def tensor_type(self, c):
        dims, elt, enc = c
        key = ("tensor", dims.value if dims is not None else None, elt, enc)
        t = self._type_cache.get(key)
        if t is not None:
            return t
        shape = self._dims(dims)
        try:
            if shape is None:
                if enc is not None:
                    raise self.error("unranked tensors cannot have an encoding", dims)
                t = UnrankedTensorType(elt)
            else:
                t = TensorType(elt, shape, enc if enc is not None else NoneAttr())
        except VerifyException as e:
            raise self.error(f"invalid tensor type: {e}", dims) from None
        self._type_cache[key] = t
        return t

    def memref_type(self, c):
        dims, elt, *rest = c
        rest = [r for r in rest if r is not None]
        shape = self._dims(dims)
        try:
            if shape is None:
                if len(rest) > 1:
                    raise self.error("unranked memref takes only a memory space", dims)
                return UnrankedMemRefType.from_type(elt, rest[0] if rest else NoneAttr())
            layout = NoneAttr()
            space = NoneAttr()
            if len(rest) == 2:
                layout, space = rest
            elif len(rest) == 1:
                from xdsl.dialects.builtin import MemRefLayoutAttr

                if isinstance(rest[0], MemRefLayoutAttr):
                    layout = rest[0]
                else:
                    space = rest[0]
            elif len(rest) > 2:
                raise self.error("memref takes at most a layout and a memory space", dims)
            return MemRefType(elt, shape, layout, space)
        except (VerifyException, TypeError, ValueError) as e:
            raise self.error(f"invalid memref type: {e}", dims) from None

    def _dims(self, dims):
        try:
            return A.parse_dims(dims.value if dims is not None else None)
        except A.AttrError as e:
            raise self.error(str(e), dims) from None

    def vector_type(self, c):
        dims, elt = c
        try:
            shape, scalable = A.parse_vector_dims(dims.value if dims is not None else None)
        except A.AttrError as e:
            raise self.error(str(e), dims) from None
        try:
            if any(scalable):
                flags = ArrayAttr([BoolAttr.from_bool(f) for f in scalable])
                return VectorType(elt, shape, flags)
            return VectorType(elt, shape)
        except VerifyException as e:
            raise self.error(f"invalid vector type: {e}", dims) from None

    def complex_type(self, c):
        try:
            return ComplexType(c[0])
        except VerifyException as e:
            raise self.error(f"invalid complex type: {e}", None) from None

    def tuple_type(self, c):
        return TupleType(ArrayAttr(c[0] or []))

    def dialect_type(self, c):
        tok = c[0]
        text = tok.value
        if "." not in text and "<" not in text:
            v = self.alias(tok)
            if v is None:
                raise self.error(f"undefined symbol alias id '{text[1:]}'", tok)
            return v
        return self.xdsl_parse(tok, True)

    def xdsl_parse(self, tok: Token, is_type: bool, text: str | None = None) -> Attribute:
        """Parse a dialect type/attribute with xDSL, so its syntax stays in its class."""
        text = tok.value if text is None else text
        key = (text, is_type)
        v = self.dialect_cache.get(key)
        if v is not None:
            return v
        ctx = self.ctx
        saved = ctx.allow_unregistered
        allow = self.allow_unregistered
        if not allow and is_type and text.startswith("!") and "." in text:
            allow = self._dialect_allows(text[1:], "allow_unknown_types")
        ctx.allow_unregistered = allow
        try:
            p = XParser(ctx, text, self.filename)
            v = p.parse_type() if is_type else p.parse_attribute()
            if p._current_token.kind.name != "EOF":  # noqa: SLF001
                raise ParseError(p._current_token.span, "unexpected trailing text")  # noqa: SLF001
        except ParseError as e:
            raise self._xdsl_error(e, tok, text) from None
        except (VerifyException, ValueError, TypeError, KeyError, AssertionError) as e:
            raise self.error(
                f"invalid {'type' if is_type else 'attribute'} '{text}': {e}", tok
            ) from None
        except NotImplementedError as e:  # e.g. semi-affine maps
            raise self.error(
                f"unsupported {'type' if is_type else 'attribute'} '{text}': {e}", tok
            ) from None
        finally:
            ctx.allow_unregistered = saved
        self.dialect_cache[key] = v
        return v

    def _xdsl_error(self, e: ParseError, tok: Token, text: str) -> DiagnosticError:
        msg = e.msg
        line, col = tok.line, tok.column
        if "is not registered" in msg or "unregistered" in msg.lower():
            kind = "type" if text.startswith("!") else "attribute"
            dialect = text[1:].split(".", 1)[0].split("<", 1)[0]
            msg = (
                f"dialect '{dialect}' is not registered; unknown {kind} '{text}' "
                "(allow unregistered dialects to accept it)"
            )
        else:
            off = e.span.start if e.span is not None else 0
            if "\n" not in text[:off]:
                col += off
        return DiagnosticError(Diagnostic("error", msg, SourceLoc(self.filename, line, col)))

    def function_type(self, c):
        ins, outs = c
        key = ("fn", tuple(ins) if ins else (), tuple(outs))
        t = self._type_cache.get(key)
        if t is None:
            t = self._type_cache[key] = FunctionType.from_lists(ins or [], outs)
        return t

    def one_type(self, c):
        return [c[0]]

    def paren_types(self, c):
        return c[0] or []

    # ------------------------------------------------------------ attributes

    def attr_dict(self, c):
        d = {}
        for entry in c:
            if entry is None:
                continue
            k, v, tok = entry
            if k in d:
                raise self.error(f"duplicate key '{k}' in dictionary attribute", tok)
            d[k] = v
        return d

    def attr_entry(self, c):
        k, v = c
        key = self.string_value(k) if k.type == "STRING" else k.value
        return (key, _UNIT if v is None else v, k)

    def int_attr(self, c):
        tok, typ = c
        key = (tok.value, typ)
        a = self.attr_cache.get(key)
        if a is not None:
            return a
        try:
            a = A.int_attr(tok.value, typ)
        except A.AttrError as e:
            raise self.error(str(e), tok) from None
        self.attr_cache[key] = a
        return a

    def float_attr(self, c):
        tok, typ = c
        try:
            return A.float_attr(tok.value, typ)
        except A.AttrError as e:
            raise self.error(str(e), tok) from None

    def str_attr(self, c):
        tok = c[0]
        attr = self.attr_cache.get(tok.value)  # attributes are immutable: shared
        if attr is None:
            try:
                attr = StringAttr(A.decode_string(tok.value))
            except A.AttrError as e:
                raise self.error(str(e), tok) from None
            if len(self.attr_cache) < 4096:
                self.attr_cache[tok.value] = attr
        return attr

    def true_attr(self, c):
        return _TRUE

    def false_attr(self, c):
        return _FALSE

    def unit_attr(self, c):
        return _UNIT

    def array_attr(self, c):
        return ArrayAttr([x for x in c if x is not None])

    def dict_attr(self, c):
        return DictionaryAttr(c[0])

    def dense_attr(self, c):
        tok, typ = c
        try:
            return A.dense_from_text(tok.value, typ)
        except A.AttrError as e:
            raise self.error(str(e), tok) from None
        except (VerifyException, ValueError, OverflowError) as e:
            raise self.error(f"invalid dense literal: {e}", tok) from None

    def dense_resource_attr(self, c):
        """``dense_resource<key> : type``: the blob of the file's resource
        section, as a dense attribute (one copy per key and type).  A key
        without a blob (``__elided__``) stays a DenseResourceAttr, as in MLIR."""
        tok, typ = c
        body = tok.value[len("dense_resource<") : -1]
        key = self.string_value(tok, body) if body.startswith('"') else body
        hit = self.resource_cache.get((key, typ))
        if hit is not None:
            return hit
        blob = self.resources.get(key)
        if blob is None:
            from xdsl.dialects.builtin import DenseResourceAttr

            attr = DenseResourceAttr.from_params(key, typ)
        else:
            from .resources import blob_bytes

            try:
                _, raw = blob_bytes(self.text, blob)
                attr = A.dense_from_blob(raw, typ)
            except (A.AttrError, ValueError) as e:
                raise self.error(f"resource '{key}': {e}", tok) from None
        self.resource_cache[(key, typ)] = attr
        return attr

    def dense_array_attr(self, c):
        typ, elems = c
        values = [(t.type, t.value) for t in (elems or [])]
        try:
            return A.dense_array(typ, values)
        except A.AttrError as e:
            raise self.error(str(e), elems[0] if elems else None) from None

    def array_elements(self, c):
        return c

    def symbol_ref(self, c):
        root = self.symbol_name(c[0])
        if len(c) == 1:
            return SymbolRefAttr(root)
        return SymbolRefAttr(root, [self.symbol_name(t) for t in c[1:]])

    def symbol_name(self, tok: Token) -> str:
        text = tok.value
        if text[1] == '"':
            try:
                return A.decode_string(text[1:])
            except A.AttrError as e:
                raise self.error(str(e), tok) from None
        return text[1:]

    def type_attr(self, c):
        return c[0]

    def dialect_attr(self, c):
        tok = c[0]
        text = tok.value
        if "." not in text and "<" not in text:
            v = self.alias(tok)
            if v is None:
                raise self.error(f"undefined symbol alias id '{text[1:]}'", tok)
            return v
        return self.xdsl_parse(tok, False)

    def opaque_attr(self, c):
        return self.xdsl_parse(c[0], False)

    def bare_literal(self, c):
        return c[0]

    def bracket_elements(self, c):
        return c[0] or []

    def regions_list(self, c):
        return c

    def caret_list(self, c):
        return c


def _is_type(value) -> bool:
    from xdsl.ir import TypeAttribute

    return isinstance(value, TypeAttribute)


_NONE_TYPE = NoneType()
_UNIT = UnitAttr()
_TRUE = A.IntegerAttr(1, A.i1)
_FALSE = A.IntegerAttr(0, A.i1)
