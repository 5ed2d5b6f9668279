"""Shared helpers for the pass tests: parse, run a pipeline, print."""

from __future__ import annotations

import textwrap

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.parser import Parser

from tfrt.dialects import make_context
from tfrt.dialects.printer import print_module
from tfrt.passes.pipeline import parse_pass_pipeline


def context(*dialects: Dialect, allow_unregistered: bool = True) -> Context:
    ctx = make_context(allow_unregistered)
    for dialect in dialects:
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str, ctx: Context | None = None) -> ModuleOp:
    """Parse with xDSL's own MLIR parser, so that the pass tests do not
    depend on the state of the project's frontend (its own tests cover it)."""
    ctx = ctx or context()
    return Parser(ctx, textwrap.dedent(text), "in.mlir").parse_module()


def run(text: str, pipeline: str, ctx: Context | None = None, **print_flags) -> str:
    ctx = ctx or context()
    module = parse(text, ctx)
    for p in parse_pass_pipeline(pipeline):
        p.apply(ctx, module)
        module.verify()
    return print_module(module, **print_flags)


def body(text: str) -> list[str]:
    """The stripped lines of printed IR, without the module braces."""
    return [line.strip() for line in text.splitlines()[1:-1]]
