"""``tfrt_compile``: high-level MLIR (func/arith/math/scf/tensor/linalg) -> optimized BEF.

    tfrt_compile model.mlir -o model.bef                 # the default pipeline, -O2, CPU
    tfrt_compile model.onnx -o model.bef                 # an ONNX model, imported first
    tfrt_compile model.mlir -O0 --emit=mlir              # lowered kernel IR, not optimized
    tfrt_compile model.mlir --device=gpu -o model.bef    # kernels placed on the GPU
    tfrt_compile model.onnx --float16 --device=gpu -o model.bef   # the model in f16
    tfrt_compile model.mlir --device=gpu --cuda-graph -o model.bef   # replayed as a CUDA graph
    tfrt_compile in.mlir --load-pass-plugin my.py --preprocess=lower-mylib -o out.bef
    tfrt_compile in.mlir --pass-pipeline='lower-linalg,lower-arith,lower-func' --emit=mlir
    tfrt_compile model.mlir --mlir-timing -o model.bef   # time per phase and pass (stderr)

``--preprocess`` runs passes (built-in, from ``--load-pass-plugin`` files, or
from packages' ``tfrt.passes`` entry points) before the pipeline;
``--pass-pipeline`` replaces the default pipeline
(``tfrt.passes.compiler.default_pipeline``).  Errors are reported as
``file:line:col: error: ...`` with exit status 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tfrt.diagnostics import Diagnostic, DiagnosticError

PROG = "tfrt_compile"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Compile high-level MLIR to BEF.")
    p.add_argument("input", help="input .mlir file (or .onnx model, imported first), or - for stdin")
    p.add_argument("-o", dest="output", default=None, help="output file (default: stdout for --emit=mlir, IN.bef otherwise)")
    p.add_argument("--emit", choices=("bef", "mlir"), default="bef", help="write BEF (default) or the compiled MLIR")
    p.add_argument("--device", default="cpu", help="where tensor kernels run: cpu (default) or gpu")
    p.add_argument("--cuda-graph", action="store_true", dest="cuda_graph",
                   help="with --device=gpu: run each entry function's device kernels as a CUDA graph, "
                        "captured by the second call and replayed after")
    p.add_argument("--float16", action="store_true",
                   help="an .onnx input computes in f16 what it computes in f32 (tfrt_import_onnx --float16)")  # fmt: skip
    for level in (0, 1, 2):
        p.add_argument(f"-O{level}", dest="opt_level", action="store_const", const=level,
                       help=f"optimization level {level}" + (" (default)" if level == 2 else ""))  # fmt: skip
    p.set_defaults(opt_level=2)
    p.add_argument("--pass-pipeline", default=None, help="run this pass pipeline instead of the default")
    p.add_argument("--preprocess", default=None, help="passes to run before the pipeline")
    p.add_argument("--load-pass-plugin", action="append", default=[], dest="plugins", metavar="FILE.py",
                   help="load the ModulePass classes of a Python file (repeatable)")  # fmt: skip
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after each pass (stderr)")
    p.add_argument("--verify-each", action="store_true",
                   help="verify the IR after every pass (default: once, at the end)")
    p.add_argument("--print-pipeline", action="store_true", help="print the pipeline that would run and exit")
    p.add_argument("--mlir-timing", action="store_true",
                   help="print the wall time of the import or parse, each pass and the BEF writer (stderr)")
    return p


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        from tfrt.tools import default_sigpipe

        default_sigpipe()
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        status = _run(args_list)
    except BrokenPipeError:
        status = 1
    if argv is None:
        sys.exit(status)
    return status


def _run(argv: list[str]) -> int:
    from tfrt.diagnostics import SourceManager

    args = _parser().parse_args(argv)
    sources = SourceManager()
    try:
        return _compile(args, sources)
    except DiagnosticError as e:
        sys.stderr.write(e.render(sources))
        return 1


def _compile(args: argparse.Namespace, sources: Any) -> int:
    from tfrt.passes import all_passes
    from tfrt.passes.compiler import DEVICES, compile_module, default_pipeline, gc_paused, is_high_level

    if args.device.split(":")[0] not in DEVICES:
        raise DiagnosticError(Diagnostic("error", f"unknown device '{args.device}' (expected one of: {', '.join(DEVICES)})"))
    if args.cuda_graph and not args.device.startswith("gpu"):
        raise DiagnosticError(Diagnostic("error", f"--cuda-graph needs --device=gpu (the device is '{args.device}')"))
    pipeline = args.pass_pipeline
    if args.print_pipeline:
        default = default_pipeline(args.device, args.opt_level, args.cuda_graph)
        print(",".join(x for x in (args.preprocess, pipeline or default) if x))
        return 0
    available = dict(all_passes())
    if args.plugins:
        from tfrt.tools.tfrt_opt import load_pass_plugin

        for path in args.plugins:
            available.update(load_pass_plugin(path))
    import time

    from tfrt.tools.tfrt_opt import Timing, display_name

    timing = Timing() if args.mlir_timing else None
    mark = [time.perf_counter()]

    def lap(name: str) -> None:
        now = time.perf_counter()
        if timing is not None:
            timing.add(name, now - mark[0])
        mark[0] = now

    if args.input.endswith(".onnx"):
        filename, text = _import_onnx(args.input, args.float16)
        lap("ONNX import")
    elif args.float16:
        raise DiagnosticError(Diagnostic("error", f"--float16 converts ONNX models; '{args.input}' is not a .onnx file"))
    else:
        filename, text = _read(args.input)
        lap("Read input")
    sources.add(filename, text)
    from tfrt.dialects.printer import print_module
    from tfrt.dialects.syntax import parse_module

    lap("Imports (xDSL, lark)")
    module = parse_module(text, filename, allow_unregistered=True)
    lap("Parser")

    def dump(p: Any, m: Any) -> None:
        lap(display_name(p))
        if args.mlir_print_ir_after_all:
            sys.stderr.write(f"// -----// IR Dump After {type(p).__name__} ({p.name}) //----- //\n")
            sys.stderr.write(print_module(m) + "\n")
            mark[0] = time.perf_counter()

    if is_high_level(module) or pipeline is not None or args.preprocess:
        compile_module(
            module,
            device=args.device,
            opt_level=args.opt_level,
            pipeline=pipeline,
            preprocess=args.preprocess,
            available=available,
            after_pass=dump if (args.mlir_print_ir_after_all or timing is not None) else None,
            verify_each=args.verify_each,
            cuda_graph=args.cuda_graph,
        )
        lap("Verifier")
    if args.emit == "mlir":
        text_out = print_module(module)
        lap("Printer")
        _write(args.output or "-", text_out.encode())
        _report(timing)
        return 0
    from tfrt.bef.writer import write_bef

    with gc_paused():
        data = write_bef(module)
    lap("BEF writer")
    out = args.output
    if out is None:
        out = (filename[: -len(".mlir")] if filename.endswith(".mlir") else filename) + ".bef"
        if args.input == "-":
            out = "-"
    _write(out, data)
    _report(timing)
    return 0


def _report(timing: Any) -> None:
    if timing is not None:
        sys.stderr.write(timing.report())


def _import_onnx(path: str, float16: bool = False) -> tuple[str, str]:
    """An ONNX model as MLIR text (``tfrt_import_onnx``'s translation)."""
    from tfrt.tools.import_onnx import ImportError_, import_onnx_file

    try:
        return path, import_onnx_file(path, float16=float16)
    except ImportError_ as e:
        raise DiagnosticError(Diagnostic("error", f"{path}: {e}")) from None


def _read(path: str) -> tuple[str, str]:
    if path == "-":
        return "<stdin>", sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except OSError as e:
        raise DiagnosticError(Diagnostic("error", f"cannot open input file '{path}': {e.strerror or e}")) from None
    except UnicodeDecodeError as e:
        raise DiagnosticError(Diagnostic("error", f"input file '{path}' is not UTF-8 text: {e.reason}")) from None


def _write(path: str, data: bytes) -> None:
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise DiagnosticError(Diagnostic("error", f"cannot open output file '{path}': {e.strerror or e}")) from None


if __name__ == "__main__":
    main()
