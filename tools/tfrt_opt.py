"""tfrt_opt: parse, verify, transform and print MLIR, as ``mlir-opt`` does.

::

    tfrt_opt [options] [input.mlir | -]

    tfrt_opt x.mlir -canonicalize -cse          passes in flag order
    tfrt_opt x.mlir --pass-pipeline='builtin.module(inline,canonicalize)'
    tfrt_opt x.mlir -split-input-file -verify-diagnostics
    tfrt_opt x.mlir --load-pass-plugin my_passes.py -my-pass

Errors print MLIR-style on stderr (``file:line:col: error: message``, the
source line and a caret) and the exit status is 1.  xDSL and the dialects
are imported only once there is IR to process, so ``--help`` is fast.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TextIO

from tfrt.diagnostics import (
    Diagnostic,
    DiagnosticError,
    DiagnosticVerifier,
    SourceLoc,
    SourceManager,
    split_input_file,
)
from tfrt.passes import diagnostic_handler, pass_summaries

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

PROG = "tfrt_opt"
SPLIT_MARKER = "// -----\n"
STDIN_NAME = "<stdin>"


class UsageError(Exception):
    """Bad command line: reported as ``tfrt_opt: error: ...``, exit 1."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit 2 with its own text
        raise UsageError(message)


# ---------------------------------------------------------------------------
# Command line


def _flag(parser: argparse._ActionsContainer, name: str, **kwargs: Any) -> None:
    """An option spelled both ``-name`` and ``--name``, as LLVM's cl does."""
    parser.add_argument(f"-{name}", f"--{name}", **kwargs)


def _build_parser(summaries: dict[str, str]) -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog=PROG,
        description="Parse, verify, transform and print MLIR (TFRT's dialects).",
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", nargs="?", default="-", help="input file, or - for stdin")
    parser.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file")
    _flag(parser, "split-input-file", action="store_true",
          help="split the input on '// -----' lines and process each chunk on its own")
    _flag(parser, "verify-diagnostics", action="store_true",
          help="check emitted diagnostics against expected-* annotations")
    _flag(parser, "allow-unregistered-dialect", action="store_true",
          help="accept operations of unregistered dialects")
    _flag(parser, "mlir-print-op-generic", action="store_true",
          help="print every operation in the generic form")
    _flag(parser, "mlir-print-debuginfo", action="store_true",
          help="print locations, loc(...)")
    _flag(parser, "mlir-print-ir-after-all", action="store_true",
          help="print the IR to stderr after every pass")
    _flag(parser, "mlir-print-ir-before-all", action="store_true",
          help="print the IR to stderr before every pass")
    _flag(parser, "mlir-timing", action="store_true",
          help="print a timing report to stderr")
    parser.add_argument("-p", "-pass-pipeline", "--pass-pipeline", dest="pass_pipeline",
                        metavar="PIPELINE",
                        help="pass pipeline, e.g. 'builtin.module(canonicalize,cse)'")
    parser.add_argument("-load-pass-plugin", "--load-pass-plugin", dest="plugins",
                        action="append", default=[], metavar="FILE.py",
                        help="load the ModulePass classes defined in a Python file")
    group = parser.add_argument_group("passes (run in command-line order; -name=options)")
    for name, summary in sorted(summaries.items()):
        group.add_argument(f"-{name}", f"--{name}", action="store_true",
                           dest=f"pass:{name}", help=summary)
    return parser


_PLUGIN_RE = re.compile(r"^--?load-pass-plugin(?:=(.*))?$")
_PASS_FLAG_RE = re.compile(r"^--?([A-Za-z0-9_.-]+?)(?:=(.*))?$")


def _extract_plugins(argv: list[str]) -> list[str]:
    plugins: list[str] = []
    i = 0
    while i < len(argv):
        m = _PLUGIN_RE.match(argv[i])
        if m:
            if m.group(1) is not None:
                plugins.append(m.group(1))
            elif i + 1 < len(argv):
                plugins.append(argv[i + 1])
                i += 1
        i += 1
    return plugins


def _extract_pass_flags(argv: list[str], names: set[str]) -> tuple[list[str], list[str]]:
    """Pull single-pass flags (``-canonicalize``, ``-inline=opt=v``) out of
    argv, in order, as pipeline elements; return them and the rest."""
    elements: list[str] = []
    rest: list[str] = []
    takes_value = {"-o", "-p", "-pass-pipeline", "--pass-pipeline",
                   "-load-pass-plugin", "--load-pass-plugin"}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        if arg in takes_value:
            rest.extend(argv[i : i + 2])
            i += 2
            continue
        m = _PASS_FLAG_RE.match(arg)
        if m and m.group(1) in names:
            options = m.group(2)
            elements.append(m.group(1) if options is None else f"{m.group(1)}{{{options}}}")
        else:
            rest.append(arg)
        i += 1
    return elements, rest


# ---------------------------------------------------------------------------
# Plugins


def load_pass_plugin(path: str) -> dict[str, Callable[[], type["ModulePass"]]]:
    """Import a Python file and return its ModulePass subclasses by name."""
    from xdsl.passes import ModulePass

    file = Path(path)
    if not file.is_file():
        raise DiagnosticError(Diagnostic("error", f"cannot load pass plugin '{path}': no such file"))
    module_name = f"_tfrt_pass_plugin_{abs(hash(str(file.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise DiagnosticError(Diagnostic("error", f"cannot load pass plugin '{path}'"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # a user's file: report whatever it raised
        sys.modules.pop(module_name, None)
        raise DiagnosticError(
            Diagnostic("error", f"cannot load pass plugin '{path}': {type(e).__name__}: {e}")
        ) from None
    found: dict[str, Callable[[], type[ModulePass]]] = {}
    for obj in vars(module).values():
        if not (isinstance(obj, type) and issubclass(obj, ModulePass) and obj is not ModulePass):
            continue
        if obj.__module__ != module_name or inspect.isabstract(obj):
            continue
        name = getattr(obj, "name", None)
        if isinstance(name, str) and name:
            found[name] = lambda cls=obj: cls
    if not found:
        raise DiagnosticError(
            Diagnostic("error", f"pass plugin '{path}' defines no ModulePass with a name")
        )
    return found


# ---------------------------------------------------------------------------
# Timing


@dataclass
class Timing:
    """Wall-clock time per phase, reported like MLIR's ``--mlir-timing``."""

    start: float = field(default_factory=time.perf_counter)
    entries: dict[str, float] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    def add(self, name: str, seconds: float) -> None:
        if name not in self.entries:
            self.entries[name] = 0.0
            self.order.append(name)
        self.entries[name] += seconds

    def report(self) -> str:
        total = time.perf_counter() - self.start
        rest = max(total - sum(self.entries.values()), 0.0)
        rule = "===" + "-" * 73 + "==="
        title = "... Execution time report ..."
        lines = [rule, " " * ((80 - len(title)) // 2) + title, rule,
                 f"  Total Execution Time: {total:.4f} seconds", "",
                 "  ----Wall Time----  ----Name----"]
        rows = [(name, self.entries[name]) for name in self.order]
        rows += [("Rest", rest), ("Total", total)]
        for name, seconds in rows:
            pct = 100.0 * seconds / total if total > 0 else 0.0
            lines.append(f"  {seconds:8.4f} ({pct:5.1f}%)  {name}")
        return "\n".join(lines) + "\n"


def _timed(timing: Timing | None, name: str, fn: Callable[[], Any]) -> Any:
    if timing is None:
        return fn()
    t0 = time.perf_counter()
    try:
        return fn()
    finally:
        timing.add(name, time.perf_counter() - t0)


# ---------------------------------------------------------------------------
# Processing one buffer


def display_name(p: "ModulePass") -> str:
    """MLIR's pass name for dumps and timing: the class name without 'Pass'."""
    name = type(p).__name__
    return name[: -len("Pass")] if name.endswith("Pass") and len(name) > 4 else name


def _source_loc(loc: Any) -> SourceLoc | None:
    from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc

    while True:
        if isinstance(loc, FileLineColLoc):
            return SourceLoc(loc.filename.data, loc.line.data, loc.column.data)
        if isinstance(loc, CallSiteLoc):
            loc = loc.callee
        elif isinstance(loc, NameLoc):
            loc = loc.location
        elif isinstance(loc, FusedLoc) and loc.locations.data:
            loc = loc.locations.data[0]
        else:
            return None


def _verify_fallback(module: "ModuleOp") -> None:
    """Op-by-op verification with MLIR-style messages, for a frontend that
    has no ``verify_module`` yet."""
    from xdsl.utils.exceptions import VerifyException

    try:
        from tfrt.dialects.base import PlainVerifyException
    except ImportError:  # the dialects package may not define it
        PlainVerifyException = ()  # type: ignore[assignment]  # noqa: N806

    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            message = str(e.args[0]) if e.args else str(e)
            if not isinstance(e, PlainVerifyException):
                message = f"'{op.name}' op {message}"
            raise DiagnosticError(Diagnostic("error", message, _source_loc(op.location))) from None


@dataclass
class Options:
    filename: str
    allow_unregistered: bool
    generic: bool
    debuginfo: bool
    ir_after_all: bool
    ir_before_all: bool
    passes: list["ModulePass"]
    timing: Timing | None
    dump_stream: TextIO


class Processor:
    """Parse, verify, run the passes and print one buffer."""

    def __init__(self, options: Options):
        from tfrt.dialects import make_context, syntax
        from tfrt.dialects.printer import print_module

        self.options = options
        self._make_context = make_context
        self._parse = syntax.parse_module
        self._print = print_module
        self._verify = getattr(syntax, "verify_module", None) or _verify_fallback
        params = inspect.signature(syntax.parse_module).parameters
        # A frontend that verifies while parsing does not need a second pass.
        self._parse_verifies = "verify" in params

    def _print_module(self, module: "ModuleOp") -> str:
        return self._print(module, generic=self.options.generic, debuginfo=self.options.debuginfo)

    def run(self, text: str) -> str:
        opts = self.options
        ctx = self._make_context(opts.allow_unregistered)

        def parse() -> "ModuleOp":
            return self._parse(text, opts.filename, ctx=ctx, allow_unregistered=opts.allow_unregistered)

        module = _timed(opts.timing, "Parser", parse)
        if not self._parse_verifies:
            _timed(opts.timing, "Verifier", lambda: self._verify(module))
        for p in opts.passes:
            header = f"{display_name(p)} ({p.name})"
            if opts.ir_before_all:
                opts.dump_stream.write(f"// -----// IR Dump Before {header} //----- //\n")
                opts.dump_stream.write(self._print_module(module) + "\n")
            _timed(opts.timing, display_name(p), lambda p=p: self._apply(p, ctx, module))
            _timed(opts.timing, "Verifier", lambda: self._verify(module))
            if opts.ir_after_all:
                opts.dump_stream.write(f"// -----// IR Dump After {header} //----- //\n")
                opts.dump_stream.write(self._print_module(module) + "\n")
        return _timed(opts.timing, "Output", lambda: self._print_module(module))

    @staticmethod
    def _apply(p: "ModulePass", ctx: Any, module: "ModuleOp") -> None:
        try:
            p.apply(ctx, module)
        except DiagnosticError:
            raise
        except Exception as e:  # a pass bug or xDSL error: report, no traceback
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise DiagnosticError(
                Diagnostic("error", f"pass '{p.name}' failed: {first}")
            ) from None


# ---------------------------------------------------------------------------
# main

def _read_input(path: str) -> tuple[str, str]:
    if path == "-":
        return STDIN_NAME, sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except OSError as e:
        reason = e.strerror or str(e)
        raise DiagnosticError(
            Diagnostic("error", f"cannot open input file '{path}': {reason}")
        ) from None
    except UnicodeDecodeError as e:
        raise DiagnosticError(
            Diagnostic("error", f"input file '{path}' is not UTF-8 text: {e.reason}")
        ) from None


def _write_output(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise DiagnosticError(
            Diagnostic("error", f"cannot open output file '{path}': {e.strerror or e}")
        ) from None


def _build_pipeline(
    elements: list[str], pipeline: str | None, available: dict[str, Callable[[], Any]]
) -> list["ModulePass"]:
    from tfrt.passes.pipeline import PipelineError, parse_pass_pipeline

    if pipeline is not None and elements:
        raise DiagnosticError(Diagnostic(
            "error", "'--pass-pipeline' option can't be used with individual pass options"))
    text = pipeline if pipeline is not None else ",".join(elements)
    try:
        return parse_pass_pipeline(text, available)
    except PipelineError as e:
        raise DiagnosticError(Diagnostic("error", f"invalid pass pipeline: {e}")) from None


def main(argv: list[str] | None = None) -> int:
    """Run tfrt_opt; returns the exit status (0 ok, 1 error)."""
    if argv is None:
        from tfrt.tools import default_sigpipe

        default_sigpipe()
    argv = list(sys.argv[1:] if argv is None else argv)
    sources = SourceManager()
    try:
        return _main(argv, sources)
    except UsageError as e:
        sys.stderr.write(f"{PROG}: error: {e}\n")
        return 1
    except DiagnosticError as e:
        sys.stderr.write(e.render(sources))
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `tfrt_opt x.mlir | head`: stop quietly, and keep Python from
        # complaining again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _main(argv: list[str], sources: SourceManager) -> int:
    plugin_files = _extract_plugins(argv)
    summaries = pass_summaries()
    plugin_passes: dict[str, Callable[[], Any]] = {}
    for path in plugin_files:
        loaded = load_pass_plugin(path)
        plugin_passes.update(loaded)
        for name in loaded:
            summaries[name] = f"(from {path})"
    elements, rest = _extract_pass_flags(argv, set(summaries))
    parser = _build_parser(summaries)
    try:
        args = parser.parse_args(rest)
    except SystemExit as e:  # --help
        return int(e.code or 0)

    from tfrt.passes import all_passes

    available = {**all_passes(), **plugin_passes}
    passes = _build_pipeline(elements, args.pass_pipeline, available)
    filename, text = _read_input(args.input)
    sources.add(filename, text)

    timing = Timing() if args.mlir_timing else None
    processor = Processor(Options(
        filename=filename,
        allow_unregistered=args.allow_unregistered_dialect,
        generic=args.mlir_print_op_generic,
        debuginfo=args.mlir_print_debuginfo,
        ir_after_all=args.mlir_print_ir_after_all,
        ir_before_all=args.mlir_print_ir_before_all,
        passes=passes,
        timing=timing,
        dump_stream=sys.stderr,
    ))

    chunks = split_input_file(text) if args.split_input_file else [(text, 0)]
    outputs: list[str] = []
    failed = False

    def print_diagnostic(diag: Diagnostic) -> None:
        sys.stderr.write(diag.render(sources))

    for chunk, _ in chunks:
        if args.verify_diagnostics:
            verifier = DiagnosticVerifier(filename, chunk)
            try:
                # Remarks and warnings that passes emit are checked too.
                with diagnostic_handler(verifier.consume):
                    outputs.append(processor.run(chunk))
            except DiagnosticError as e:
                for diag in e.diagnostics:
                    verifier.consume(diag)
            errors = verifier.finish()
            if errors:
                failed = True
                sys.stderr.write("".join(d.render(sources) for d in errors))
            continue
        try:
            with diagnostic_handler(print_diagnostic):
                outputs.append(processor.run(chunk))
        except DiagnosticError as e:
            failed = True
            sys.stderr.write(e.render(sources))

    if not failed or args.output == "-":
        _write_output(args.output, SPLIT_MARKER.join(outputs))
    if timing is not None:
        sys.stderr.write(timing.report())
    sys.stderr.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
