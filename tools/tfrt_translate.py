"""tfrt_translate: MLIR <-> BEF, as TFRT's ``tfrt_translate`` does.

::

    tfrt_translate -mlir-to-bef input.mlir > out.bef
    tfrt_translate -mlir-to-bef --disable-optional-sections=true input.mlir -o out.bef
    tfrt_translate -bef-to-mlir out.bef [--mlir-print-op-generic]
    tfrt_translate -verify out.bef
    tfrt_translate -mlir-to-bef -split-input-file -verify-diagnostics err.mlir

The input is a file, or stdin (``-`` or nothing).  BEF goes to stdout as
bytes.  Options are spelled with one dash or two, as LLVM's command line
accepts them.  Any error prints an MLIR-style diagnostic on stderr and exits
with status 1; ``-verify-diagnostics`` instead matches the diagnostics
against the input's ``expected-*`` annotations.  ``-verify`` checks a whole
BEF file (every function body, location, attribute and optional section,
which the executor otherwise checks as it first uses them) and prints a
one-line summary.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tfrt.diagnostics import (
    Diagnostic,
    DiagnosticError,
    DiagnosticVerifier,
    SourceManager,
    split_input_file,
)

PROG = "tfrt_translate"
STDIN_NAME = "<stdin>"


class UsageError(Exception):
    """A bad command line: ``tfrt_translate: error: ...``, exit 1."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit 2 with its own text
        raise UsageError(message)


def _flag(parser: argparse.ArgumentParser, name: str, **kwargs: Any) -> None:
    parser.add_argument(f"-{name}", f"--{name}", **kwargs)


def _bool_value(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"'{text}' is not a boolean (true or false)")


def _build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog=PROG, description="Translate between MLIR and BEF.", allow_abbrev=False
    )
    parser.add_argument("input", nargs="?", default="-", help="input file, or - for stdin")
    parser.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file")
    mode = parser.add_mutually_exclusive_group()
    _flag(mode, "mlir-to-bef", dest="mode", action="store_const", const="mlir-to-bef",
          help="translate MLIR to BEF")  # fmt: skip
    _flag(mode, "bef-to-mlir", dest="mode", action="store_const", const="bef-to-mlir",
          help="translate BEF to MLIR")  # fmt: skip
    _flag(mode, "verify", dest="mode", action="store_const", const="verify",
          help="check a whole BEF file and summarize it")  # fmt: skip
    _flag(parser, "disable-optional-sections", nargs="?", const=True, default=False,
          type=_bool_value, metavar="BOOL",
          help="leave out the AttributeTypes, AttributeNames and RegisterTypes sections")  # fmt: skip
    _flag(parser, "mlir-print-op-generic", action="store_true",
          help="print every operation in the generic form")  # fmt: skip
    _flag(parser, "mlir-print-debuginfo", action="store_true", help="print locations")
    _flag(parser, "split-input-file", action="store_true",
          help="split the input on '// -----' lines and translate each chunk")  # fmt: skip
    _flag(parser, "verify-diagnostics", action="store_true",
          help="check diagnostics against expected-* annotations")  # fmt: skip
    _flag(parser, "allow-unregistered-dialect", action="store_true",
          help="accepted for compatibility: unregistered ops are always allowed")  # fmt: skip
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tfrt_translate`` console script; returns the exit
    status (and exits with it when run as a script)."""
    if argv is None:
        from tfrt.tools import default_sigpipe

        default_sigpipe()
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        status = _run(args_list)
    except UsageError as e:
        sys.stderr.write(f"{PROG}: error: {e}\n")
        status = 1
    except BrokenPipeError:
        status = 1
    if argv is None:
        sys.exit(status)
    return status


def _run(argv: list[str]) -> int:
    parser = _build_parser()
    args = parser.parse_args(_fix_optional_value(argv))
    if args.mode is None:
        raise UsageError("one of -mlir-to-bef, -bef-to-mlir or -verify is required")
    try:
        if args.mode == "mlir-to-bef":
            return _mlir_to_bef(args)
        if args.mode == "verify":
            return _verify_bef(args)
        return _bef_to_mlir(args)
    except OSError as e:
        sys.stderr.write(f"error: {e.strerror or e}: '{e.filename or args.input}'\n")
        return 1


def _fix_optional_value(argv: list[str]) -> list[str]:
    """A bare ``-disable-optional-sections`` means ``=true``; spelling it out
    keeps argparse from taking the input file as the flag's value."""
    bare = ("-disable-optional-sections", "--disable-optional-sections")
    return [a + "=true" if a in bare else a for a in argv]


def _read_input(path: str, binary: bool) -> tuple[Any, str]:
    if path == "-":
        data = sys.stdin.buffer.read()
        return (data if binary else data.decode("utf-8", "replace")), STDIN_NAME
    if binary:
        return path, path  # read_bef maps the file
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read(), path


def _write_output(path: str, data: bytes) -> None:
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    with open(path, "wb") as f:
        f.write(data)


def _mlir_to_bef(args: argparse.Namespace) -> int:
    text, filename = _read_input(args.input, binary=False)
    sources = SourceManager()
    sources.add(filename, text)
    chunks = split_input_file(text) if args.split_input_file else [(text, 0)]
    verifier = DiagnosticVerifier(filename, text) if args.verify_diagnostics else None
    out = bytearray()
    failed = False
    for chunk, _ in chunks:
        try:
            out += _translate_chunk(chunk, filename, not args.disable_optional_sections)
        except DiagnosticError as e:
            failed = True
            if verifier is None:
                sys.stderr.write(e.render(sources))
            else:
                for diag in e.diagnostics:
                    verifier.consume(diag)
    if verifier is not None:
        errors = verifier.finish()
        for diag in errors:
            sys.stderr.write(diag.render(sources))
        if not errors:
            _write_output(args.output, bytes(out))
        return 1 if errors else 0
    if failed:
        return 1
    _write_output(args.output, bytes(out))
    return 0


def _translate_chunk(chunk: str, filename: str, optional_sections: bool) -> bytes:
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    try:
        if _is_blank(chunk):  # MLIR reads an empty file as an empty module
            from xdsl.dialects.builtin import ModuleOp

            module = ModuleOp([])
        else:
            module = parse_module(chunk, filename, allow_unregistered=True)
        return write_bef(module, optional_sections=optional_sections)
    except DiagnosticError:
        raise
    except Exception as e:  # a bug or a broken dialect: still no traceback
        raise DiagnosticError(
            Diagnostic("error", f"internal error: {type(e).__name__}: {e}")
        ) from e


def _is_blank(text: str) -> bool:
    """Whether ``text`` holds nothing but whitespace and ``//`` comments."""
    return all(not line.split("//", 1)[0].strip() for line in text.splitlines())


def _verify_bef(args: argparse.Namespace) -> int:
    from tfrt.bef.reader import BEFFormatError, read_bef

    data, filename = _read_input(args.input, binary=True)
    try:
        bef = read_bef(data)  # checks everything
    except BEFFormatError as e:
        sys.stderr.write(f"{filename}: error: {e}\n")
        return 1
    bodies = [f.columns for f in bef.functions]
    kernels = sum(len(c) for c in bodies if c is not None)
    size = len(memoryview(bef.source))
    _write_output(
        args.output,
        f"{filename}: valid BEF version {bef.version}: {len(bef.functions)} functions, "
        f"{kernels} kernels, {size} bytes\n".encode(),
    )
    return 0


def _bef_to_mlir(args: argparse.Namespace) -> int:
    from tfrt.bef.reader import BEFFormatError, read_bef

    data, filename = _read_input(args.input, binary=True)
    try:
        bef = read_bef(data)
    except BEFFormatError as e:
        sys.stderr.write(f"{filename}: error: {e}\n")
        return 1
    try:
        from tfrt.bef.disassembler import bef_to_module
        from tfrt.dialects.printer import print_module

        def warn(message: str) -> None:
            sys.stderr.write(Diagnostic("warning", message).render())

        module = bef_to_module(bef, warn=warn)
        text = print_module(
            module, generic=args.mlir_print_op_generic, debuginfo=args.mlir_print_debuginfo
        )
    except DiagnosticError as e:
        sys.stderr.write(e.render())
        return 1
    except UnicodeEncodeError as e:  # the printer writes names and strings as UTF-8
        text = e.object if isinstance(e.object, str) else str(e.object)
        shown = text.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
        sys.stderr.write(f"{filename}: error: the file holds a name or string that is not UTF-8, "
                         f"which MLIR text cannot hold: '{shown}'\n")  # fmt: skip
        return 1
    except Exception as e:  # a bug or a broken dialect: still no traceback
        sys.stderr.write(f"{filename}: error: internal error: {type(e).__name__}: {e}\n")
        return 1
    # Names and strings the file holds that are not UTF-8 were read with
    # surrogateescape: they go back out as the same bytes.
    _write_output(args.output, text.encode("utf-8", "surrogateescape"))
    return 0


if __name__ == "__main__":
    main()
