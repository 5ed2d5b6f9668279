"""The compiler's default pipeline: high-level MLIR -> optimized kernel IR.

``default_pipeline(device, opt_level)`` is the pass pipeline ``tfrt_compile``
runs when no ``--pass-pipeline`` is given (docs/compiler.md);
``is_high_level(module)`` says whether a module still holds ops of the
high-level dialects, so that ``bef_executor`` and ``tfrt.api.load`` know to
compile a ``.mlir`` input before writing BEF.

    >>> default_pipeline("cpu", 0)
    'lift-cf-to-scf,stablehlo-legalize-to-linalg,specialize-shapes,expand-arith,lower-check,decompose-linalg,lower-linalg,lower-tensor,lower-arith,lower-math,lower-printf,lower-scf,lower-func,place-devices{device=cpu},insert-chains'
"""

from __future__ import annotations

import functools
import gc
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.ir import Operation

# Ops of these dialects must be lowered before BEF can hold them.
HIGH_LEVEL_DIALECTS = frozenset({"arith", "math", "scf", "tensor", "linalg", "printf", "check", "util",
                                 "stablehlo", "chlo", "complex"})  # fmt: skip
# func.func is the container kernel IR keeps; its calls and returns are lowered.
HIGH_LEVEL_FUNC_OPS = frozenset({"func.call", "func.return"})

# Input dialects become linalg/tensor/arith/math/scf first (a no-op without them).
INPUT_CONVERSION = ("lift-cf-to-scf", "stablehlo-legalize-to-linalg")
LOWERING = ("specialize-shapes", "expand-arith", "lower-check", "decompose-linalg", "lower-linalg", "lower-tensor", "lower-arith", "lower-math", "lower-printf", "lower-scf", "lower-func")
DEVICES = ("cpu", "gpu")


def default_pipeline(device: str = "cpu", opt_level: int = 2, cuda_graph: bool = False) -> str:
    """The pass pipeline for ``device`` at ``opt_level`` (0: lower only);
    ``cuda_graph`` (GPU only) runs each entry function's device work as a
    CUDA graph (``outline-cuda-graphs``)."""
    if device.split(":")[0] not in DEVICES:
        raise ValueError(f"unknown device '{device}' (expected one of: {', '.join(DEVICES)})")
    if cuda_graph and not device.startswith("gpu"):
        raise ValueError(f"CUDA graphs need --device=gpu (the device is '{device}')")
    place = [f"place-devices{{device={device}}}", *(["outline-cuda-graphs"] if cuda_graph else []), "insert-chains"]
    if opt_level <= 0:
        return ",".join([*INPUT_CONVERSION, *LOWERING, *place])
    passes = [
        *INPUT_CONVERSION,
        # Calls between functions of the module cost a nested execution each
        # at run time; as MLIR's default pipelines do, inline them first.
        "inline{default-pipeline=\"\"}",
        "canonicalize",
        "cse",
        *LOWERING,
        "fold-constants",
        "fuse-elementwise",
        "fuse-linear",
        "cse",
        "dce",
        *place,
        "reuse-buffers",
    ]
    return ",".join(passes)


def is_high_level(module: Operation) -> bool:
    """True when ``module`` has an op the lowering passes must handle first."""
    for op in module.walk():
        name = op.name
        if name in HIGH_LEVEL_FUNC_OPS or name.split(".", 1)[0] in HIGH_LEVEL_DIALECTS:
            return True
    return False


# Dialects whose ops BEF can hold after compilation.
KERNEL_DIALECTS = frozenset({"builtin", "func", "tfrt", "tfrt_array", "tfrt_scalar", "tfrt_tensor",
                             "tfrt_dht", "tfrt_test", "corert", "ts", "btf", "coo", "tfrt_sht", "ht",
                             "tfrt_check"})  # fmt: skip


@contextmanager
def gc_paused():
    """Hold off the cycle collector (as the parser does while it parses).

    Passes allocate ops by the thousand, and each collection of the oldest
    generation walks every object of the module: about a tenth of a
    compile.  What the passes leave behind is collected afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run_passes(module, passes, ctx=None, after_pass=None, verify_each: bool = True) -> None:
    """Apply ``passes`` to ``module`` in order, verifying after each
    (``verify_each``) or once at the end; a pass that fails with anything but
    a diagnostic is reported as one (no traceback).  ``after_pass(pass,
    module)`` is called after each (for IR dumps)."""
    from tfrt.dialects import make_context

    if ctx is None:
        ctx = make_context(allow_unregistered=True)
    with gc_paused():
        _run_passes(module, passes, ctx, after_pass, verify_each)


def _run_passes(module, passes, ctx, after_pass, verify_each: bool) -> None:
    from tfrt.diagnostics import Diagnostic, DiagnosticError
    from tfrt.dialects.syntax import verify_module

    for p in passes:
        try:
            p.apply(ctx, module)
        except DiagnosticError:
            raise
        except Exception as e:  # a pass bug or an xDSL error: report it, no traceback
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise DiagnosticError(Diagnostic("error", f"pass '{p.name}' failed: {first}")) from None
        # Between the lowering passes the IR mixes index and i64 (index
        # becomes i64 op by op); it is verified once the lowering is done.
        if verify_each and (not p.name.startswith("lower-") or not is_high_level(module)):
            verify_module(module)
        if after_pass is not None:
            after_pass(p, module)
    verify_module(module)


def check_lowered(module) -> None:
    """Raise at the first op BEF cannot hold after compilation."""
    from tfrt.dialects.fastir import walk
    from tfrt.dialects.syntax.verify import op_name
    from tfrt.passes.lowering import cannot_lower

    for op in walk(module):
        name = op_name(op)
        dialect = name.split(".", 1)[0]
        if name in HIGH_LEVEL_FUNC_OPS or dialect not in KERNEL_DIALECTS:
            raise cannot_lower(op, "no pass in the pipeline lowers it")


def compile_module(
    module,
    *,
    device: str = "cpu",
    opt_level: int = 2,
    pipeline: str | None = None,
    preprocess: str | None = None,
    available=None,
    after_pass=None,
    verify_each: bool = False,
    cuda_graph: bool = False,
):
    """Lower and optimize ``module`` in place: ``preprocess`` passes, then
    ``pipeline`` (default: :func:`default_pipeline`); returns the module.

    The result is verified once, at the end (as ``mlir-opt
    --verify-each=false``); ``verify_each=True`` verifies after every pass,
    to find the pass that broke the IR."""
    from tfrt.diagnostics import Diagnostic, DiagnosticError
    from tfrt.passes.pipeline import PipelineError, parse_pass_pipeline

    try:
        passes = parse_pass_pipeline(preprocess, available) if preprocess else []
        if pipeline is None and available is None:
            passes += _default_passes(device, opt_level, cuda_graph)
        else:
            passes += parse_pass_pipeline(
                pipeline if pipeline is not None else default_pipeline(device, opt_level, cuda_graph), available
            )
    except (PipelineError, ValueError) as e:
        raise DiagnosticError(Diagnostic("error", f"invalid pass pipeline: {e}")) from None
    run_passes(module, passes, after_pass=after_pass, verify_each=verify_each)
    check_lowered(module)
    set_cost_threshold(module, gpu=device.startswith("gpu"))
    return module


@functools.lru_cache(maxsize=16)
def _default_passes(device: str, opt_level: int, cuda_graph: bool = False) -> tuple:
    """The passes of the default pipeline (built-in passes only, so no
    entry-point scan; frozen pass objects, so they are shared)."""
    from tfrt.passes import builtin_passes
    from tfrt.passes.pipeline import parse_pass_pipeline

    return tuple(parse_pass_pipeline(default_pipeline(device, opt_level, cuda_graph), builtin_passes()))


# Kernels that do at least about this many element operations (see
# tfrt.passes.stream_analysis.estimated_cost: ~1 ms of numpy) are worth a
# stream of their own, which a threaded work queue runs beside the others;
# cheaper ones stay in their producer's stream and run inline.
COST_THRESHOLD = 1 << 20
GPU_COST_THRESHOLD = (1 << 62) - 1


def set_cost_threshold(module, gpu: bool = False) -> None:
    """Give ``module`` the stream analysis's ``tfrt.cost_threshold`` (unless it
    has one), so that only expensive kernels are split into streams.

    On a GPU (``gpu``) a kernel costs the host only its launch, and the
    launches are ordered on one CUDA stream anyway: every kernel stays on
    its function's root stream and runs inline (a CUDA graph captures the
    whole function in the calling thread)."""
    from xdsl.dialects.builtin import IntegerAttr, IntegerType

    from tfrt.passes.stream_analysis import COST_THRESHOLD_ATTR

    if COST_THRESHOLD_ATTR not in module.attributes:
        threshold = GPU_COST_THRESHOLD if gpu else COST_THRESHOLD
        module.attributes[COST_THRESHOLD_ATTR] = IntegerAttr(threshold, IntegerType(64))


def compile_text_to_bef(text: str, filename: str = "-", **kwargs) -> bytes:
    """MLIR text -> BEF bytes: compiled first when the module is high-level."""
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    module = parse_module(text, filename, allow_unregistered=True)
    if is_high_level(module):
        compile_module(module, **kwargs)
    with gc_paused():
        return write_bef(module)
