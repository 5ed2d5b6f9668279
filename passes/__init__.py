"""IR -> IR passes, one ``ModulePass`` per module, and their registry.

``all_passes()`` maps each pass's kebab-case name to a zero-argument factory
returning the pass class (the shape ``xdsl.passes.PassPipeline.parse_spec``
takes).  The registry is explicit and lazy: a pass's module, and with it
xDSL, is imported only when its factory is called, so ``tfrt_opt --help``
stays fast.  Out-of-tree passes come in through the ``tfrt.passes``
entry-point group (``name = "package.module:PassClass"``) or through
``tfrt_opt --load-pass-plugin FILE.py``.

Passes report errors by raising ``DiagnosticError``.  Diagnostics that do
not stop the pass (remarks, warnings: MLIR's ``emitRemark``) go through
``emit_diagnostic(diag)`` to the innermost handler installed with
``with diagnostic_handler(fn):`` (``tfrt_opt`` installs one per input
chunk: it prints them, or feeds ``-verify-diagnostics``); without a handler
they are printed to stderr.

For pass authors (docs/writing_passes.md): ``op_name(op)`` is an op's name as
written, also for ops no dialect defines (which xDSL holds as
``builtin.unregistered``), and ``op_error(op, message)`` makes the
``file:line:col: error: '<op>' op <message>`` diagnostic to raise.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Callable

from tfrt.diagnostics import Diagnostic

if TYPE_CHECKING:
    from xdsl.passes import ModulePass

ENTRY_POINT_GROUP = "tfrt.passes"

# name -> ("module:Class", one-line summary).  The summary lives here so that
# `--help` can list the passes without importing them.
PASSES: dict[str, tuple[str, str]] = {
    "canonicalize": (
        "tfrt.passes.canonicalize:CanonicalizerPass",
        "Fold ops, apply their canonicalization patterns, remove dead code",
    ),
    "cse": (
        "tfrt.passes.cse:CSEPass",
        "Eliminate common subexpressions",
    ),
    "dce": (
        "tfrt.passes.dce:DCEPass",
        "Remove ops whose results are unused and that have no side effects",
    ),
    "inline": (
        "tfrt.passes.inline:InlinerPass",
        "Inline tfrt.call / func.call of single-block functions",
    ),
    "tfrt-print-stream": (
        "tfrt.passes.stream_analysis:PrintStreamPass",
        "Report each op's stream (id, cost, parent, children) as remarks",
    ),
    # The compiler: high-level dialects -> kernel IR (docs/compiler.md).
    "lift-cf-to-scf": (
        "tfrt.passes.lift_cf:LiftCfToScfPass",
        "Rewrite CFG loops and if/else diamonds (cf.br/cond_br) into scf.while/scf.if",
    ),
    "stablehlo-legalize-to-linalg": (
        "tfrt.passes.stablehlo_to_linalg:StablehloLegalizeToLinalgPass",
        "Convert StableHLO and CHLO ops to linalg, tensor, arith, math and scf",
    ),
    "specialize-shapes": (
        "tfrt.passes.specialize_shapes:SpecializeShapesPass",
        "Make dynamic dimensions static where constants, casts and outs operands fix them",
    ),
    "expand-arith": (
        "tfrt.passes.expand_arith:ExpandArithPass",
        "Rewrite arith's extended-precision ops (addui/mului/mulsi_extended) into the others",
    ),
    "lower-check": (
        "tfrt.passes.lower_check:LowerCheckPass",
        "Lower IREE's check expectations and util barriers to tfrt_check kernels",
    ),
    "decompose-linalg": (
        "tfrt.passes.decompose_linalg:DecomposeLinalgPass",
        "Rewrite linalg.pack/unpack/softmax into tensor, linalg, arith and math ops",
    ),
    "lower-linalg": (
        "tfrt.passes.lower_linalg:LowerLinalgPass",
        "Lower linalg named ops and linalg.generic to tfrt_array kernels",
    ),
    "lower-tensor": (
        "tfrt.passes.lower_tensor:LowerTensorPass",
        "Lower tensor dialect ops to tfrt_array kernels",
    ),
    "lower-arith": (
        "tfrt.passes.lower_arith:LowerArithPass",
        "Lower arith ops on scalars to tfrt_scalar and on tensors to tfrt_array kernels",
    ),
    "lower-math": (
        "tfrt.passes.lower_math:LowerMathPass",
        "Lower math ops on scalars to tfrt_scalar and on tensors to tfrt_array kernels",
    ),
    "lower-scf": (
        "tfrt.passes.lower_scf:LowerScfPass",
        "Lower scf.if/for/while to tfrt.if/repeat.i32/while",
    ),
    "lower-printf": (
        "tfrt.passes.lower_printf:LowerPrintfPass",
        "Lower printf.print_format to tfrt_scalar.print on a chain",
    ),
    "lower-func": (
        "tfrt.passes.lower_func:LowerFuncPass",
        "Lower func.call/return to tfrt.call/return; index becomes i64",
    ),
    "fold-constants": (
        "tfrt.passes.fold_constants:FoldConstantsPass",
        "Evaluate kernels whose operands are all constants, with their own kernels",
    ),
    "fuse-elementwise": (
        "tfrt.passes.fuse_elementwise:FuseElementwisePass",
        "Fuse chains of elementwise kernels into one tfrt_array.elementwise",
    ),
    "fuse-linear": (
        "tfrt.passes.fuse_linear:FuseLinearPass",
        "Fuse matmul/conv2d with the elementwise ops that follow (bias, activation)",
    ),
    "place-devices": (
        "tfrt.passes.place_devices:PlaceDevicesPass",
        "Place tensor kernels on a device and insert transfers where placement changes",
    ),
    "outline-cuda-graphs": (
        "tfrt.passes.outline_cuda_graphs:OutlineCudaGraphsPass",
        "Move each GPU entry function's device kernels into a function run as a CUDA graph",
    ),
    "insert-chains": (
        "tfrt.passes.insert_chains:InsertChainsPass",
        "Thread a !tfrt.chain through side-effecting kernels in program order",
    ),
    "reuse-buffers": (
        "tfrt.passes.reuse_buffers:ReuseBuffersPass",
        "Let a kernel write its result into an input whose last use it is",
    ),
}


def _load(spec: str) -> Callable[[], type[ModulePass]]:
    def factory() -> type[ModulePass]:
        module, attr = spec.split(":")
        return getattr(importlib.import_module(module), attr)

    return factory


def pass_summaries() -> dict[str, str]:
    """Name -> one-line summary, without importing any pass."""
    summaries = {name: summary for name, (_, summary) in PASSES.items()}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        summaries.setdefault(ep.name, f"(plugin {ep.value})")
    return summaries


def builtin_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes of this package, by name (no entry-point scan: an entry
    point cannot take a built-in name anyway)."""
    return {name: _load(spec) for name, (spec, _) in PASSES.items()}


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every known pass, by name, as a zero-argument factory of its class."""
    factories = {name: _load(spec) for name, (spec, _) in PASSES.items()}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        factories.setdefault(ep.name, ep.load)
    return factories


# ---------------------------------------------------------------------------
# Non-fatal diagnostics

_handlers: list[Callable[[Diagnostic], None]] = []


@contextmanager
def diagnostic_handler(handler: Callable[[Diagnostic], None]) -> Iterator[None]:
    """Send the diagnostics passes emit inside the ``with`` to ``handler``."""
    _handlers.append(handler)
    try:
        yield
    finally:
        _handlers.pop()


def emit_diagnostic(diag: Diagnostic) -> None:
    """Report a diagnostic that does not stop the pass (a remark, a warning)."""
    if _handlers:
        _handlers[-1](diag)
        return
    sys.stderr.write(diag.render())


# ---------------------------------------------------------------------------
# Helpers for pass authors


def op_name(op) -> str:
    """``op``'s name as written: an unregistered op's own name (``"mylib.gelu"``),
    not xDSL's ``builtin.unregistered``."""
    from tfrt.dialects.syntax.verify import op_name as name_of

    return name_of(op)


def op_error(op, message: str):
    """A ``DiagnosticError`` at ``op``'s source location: raise it from a pass
    to report ``file:line:col: error: '<op>' op <message>`` with the source line."""
    from tfrt.dialects.syntax.verify import op_error as error_at

    return error_at(op, message)
