"""``tfrt_check``: run the test functions of a module and report them as gtest does.

    tfrt_check tests.mlir                          # compile, run every test
    tfrt_check tests.bef --filter='concat_*'       # a compiled module; some tests
    tfrt_check tests.mlir --device=gpu -v          # on the GPU; source lines, counts
    tfrt_check tests.mlir --load-pass-plugin my.py --preprocess=lower-mylib

IREE's ``iree-check-module`` for this runtime: every public function that
takes no arguments is a test; it computes values and states what they should
be with IREE's ``check.expect_*`` ops (``util.unfoldable_constant`` and
``util.optimization_barrier`` keep the compiler from computing the answer
itself).  A failed expectation is reported at its op and the test goes on;
a test fails when an expectation failed, a kernel failed (a runtime error),
or its function did not compile.  Output (stdout)::

    [==========] Running 2 tests from tests.mlir
    [ RUN      ] add
    [       OK ] add (1 ms)
    [ RUN      ] sub
    tests.mlir:9:3: error: check.expect_eq failed: 1 of 2 elements differ; ...
      computed: tensor<2xi32> [1, 2]
      expected: tensor<2xi32> [1, 3]
    [  FAILED  ] sub (0 ms)
    [==========] 2 tests ran.
    [  PASSED  ] 1 test.
    [  FAILED  ] 1 test, listed below:
    [  FAILED  ] sub

The exit status is 1 when a test failed or the input is bad (unreadable,
malformed MLIR outside any test function, malformed BEF), else 0.

Isolation: a function that does not parse (an op this compiler does not
know, say) is cut out of the module and fails alone, with its error; when
the module then does not compile, each test is compiled on its own with the
functions it calls, so a compile error fails only the tests it belongs to.

Options as ``tfrt_compile``'s: ``--device``, ``-O0/-O1/-O2``,
``--pass-pipeline``, ``--preprocess`` and ``--load-pass-plugin FILE.py``
(see docs/tfrt_check.md: testing your own lowering end to end).
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
import time
from dataclasses import dataclass, field
from collections.abc import Callable, Sequence
from typing import Any

from tfrt.diagnostics import Diagnostic, DiagnosticError, SourceLoc, SourceManager

PROG = "tfrt_check"
BEF_MAGIC = b"\x0b\xef"


# ---------------------------------------------------------------------------
# Tests and their outcome


@dataclass
class Test:
    """One test function: where it comes from and, once prepared, how to run it."""

    name: str
    line: int = 0
    #: Diagnostics that fail the test before it runs (parse or compile errors).
    errors: list[str] = field(default_factory=list)
    #: The loaded program that holds the test's function (``tfrt.api.Program``).
    program: Any = None
    #: Expectations the last run evaluated.
    checked: int = 0


@dataclass
class Outcome:
    name: str
    passed: bool
    ms: float
    output: list[str]


def _plural(n: int, word: str = "test") -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# ---------------------------------------------------------------------------
# Reading the input


def _read(path: str) -> tuple[str, bytes]:
    if path == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return path, f.read()
    except OSError as e:
        raise DiagnosticError(Diagnostic("error", f"cannot open input file '{path}': {e.strerror or e}")) from None


# ---------------------------------------------------------------------------
# MLIR: parse, cutting out the functions that do not parse

_SYMBOL_OP = re.compile(
    r"\s*(?:[\w$]+\.)*(?P<op>[\w$]+)\s+(?:(?P<vis>public|private|nested)\s+)?"
    r"@(?P<name>\"[^\"]*\"|[\w$.\-]+)(?P<noargs>\s*\(\s*\))?"
)


_MODULE = re.compile(r"\s*(?:builtin\.)?module\b[^{]*\{\s*$")


@dataclass
class _Chunk:
    """A top-level op of the text: lines ``first..last`` (1-based, inclusive)."""

    first: int
    last: int
    symbol: str | None = None
    is_function: bool = False
    private: bool = False
    takes_arguments: bool = True


def top_level_ops(text: str) -> list[_Chunk]:
    """Split ``text`` into its top-level ops (those of its ``module { ... }``
    when it has one): each starts on a line that begins outside any bracket
    (strings and ``//`` comments skipped)."""
    lines = text.split("\n")
    chunks: list[_Chunk] = []
    depth = 0
    in_string = False
    # Inside an explicit `module {` the ops one level down are the top-level ones.
    top = 0
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if depth == 0 and not chunks and _MODULE.match(line):
            top = 1
        elif top and depth == top and stripped.startswith("}") and chunks:
            chunks[-1].last = min(chunks[-1].last, number - 1)  # the module's own end
        elif depth == top and not in_string and stripped and not stripped.startswith(("//", "}")):
            if chunks:
                chunks[-1].last = number - 1
            chunk = _Chunk(number, len(lines))
            m = _SYMBOL_OP.match(line)
            if m is not None:
                chunk.symbol = m.group("name").strip('"')
                chunk.is_function = m.group("op") == "func"
                chunk.private = m.group("vis") == "private"
                chunk.takes_arguments = m.group("noargs") is None
            chunks.append(chunk)
        i = 0
        while i < len(line):
            c = line[i]
            if in_string:
                if c == "\\":
                    i += 1
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c == "/" and line.startswith("//", i):
                break
            elif c in "({[":
                depth += 1
            elif c in ")}]":
                depth = max(depth - 1, 0)
            i += 1
    return chunks


def _blank(text: str, chunk: _Chunk) -> str:
    """``text`` with the lines of ``chunk`` emptied (line numbers are kept)."""
    lines = text.split("\n")
    for i in range(chunk.first - 1, min(chunk.last, len(lines))):
        lines[i] = ""
    return "\n".join(lines)


def parse_isolating(text: str, filename: str) -> tuple[Any, dict[str, tuple[_Chunk, DiagnosticError]]]:
    """Parse ``text``; a top-level op that does not parse is cut out and its
    error kept, by symbol name, until the rest parses.  Raises the first
    error when it lies outside every top-level op that names a symbol."""
    from tfrt.dialects.syntax import parse_module

    chunks = top_level_ops(text)
    cut: dict[str, tuple[_Chunk, DiagnosticError]] = {}
    while True:
        try:
            # Verified op by op afterwards: a function that does not verify
            # fails alone too.
            return parse_module(text, filename, allow_unregistered=True, verify=False), cut
        except DiagnosticError as e:
            loc = e.diagnostics[0].loc if e.diagnostics else None
            chunk = None
            if loc is not None:
                chunk = next((c for c in chunks if c.first <= loc.line <= c.last), None)
            if chunk is None or chunk.symbol is None or chunk.symbol in cut:
                raise
            cut[chunk.symbol] = (chunk, e)
            text = _blank(text, chunk)


def _symbol_refs(op: Any) -> set[str]:
    """The root names of the symbol references in ``op`` and the ops inside it."""
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, SymbolRefAttr

    from tfrt.dialects.fastir import walk

    found: set[str] = set()

    def visit(attr: Any) -> None:
        if isinstance(attr, SymbolRefAttr):
            found.add(attr.root_reference.data)
        elif isinstance(attr, ArrayAttr):
            for a in attr.data:
                visit(a)
        elif isinstance(attr, DictionaryAttr):
            for a in attr.data.values():
                visit(a)

    for inner in walk(op):
        for attr in (*inner.properties.values(), *inner.attributes.values()):
            visit(attr)
    return found


def _symbols(module: Any) -> dict[str, Any]:
    return {name: op for op in module.body.ops if (name := _symbol_name(op)) is not None}


def reachable(module: Any, roots: Sequence[str]) -> set[str]:
    """The top-level symbols ``roots`` reference, directly or not (roots included)."""
    table = _symbols(module)
    seen: set[str] = set()
    todo = [r for r in roots if r in table]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(r for r in _symbol_refs(table[name]) if r in table and r not in seen)
    return seen


def _keep_only(module: Any, keep: set[str]) -> Any:
    """A copy of ``module`` without the symbols outside ``keep`` (other ops stay)."""
    copy = module.clone()
    for op in list(copy.body.ops):
        name = _symbol_name(op)
        if name is not None and name not in keep:
            copy.body.block.detach_op(op)
            op.erase()
    return copy


# ---------------------------------------------------------------------------
# Preparing the tests


@dataclass
class Options:
    device: str = "cpu"
    opt_level: int = 2
    pipeline: str | None = None
    preprocess: str | None = None
    available: dict | None = None
    filters: tuple[str, ...] = ()
    verbose: bool = False


def _selected(name: str, filters: Sequence[str]) -> bool:
    return not filters or any(fnmatch.fnmatchcase(name, f) for f in filters)


def _compile_to_program(module: Any, opts: Options) -> Any:
    """Compile ``module`` (in place), write BEF and load it."""
    from tfrt.api import load
    from tfrt.bef.writer import write_bef
    from tfrt.passes.compiler import compile_module, gc_paused

    compile_module(module, device=opts.device, opt_level=opts.opt_level, pipeline=opts.pipeline,
                   preprocess=opts.preprocess, available=opts.available)  # fmt: skip
    with gc_paused():
        data = write_bef(module)
    return load(data)


def _error_text(e: BaseException, sources: SourceManager) -> str:
    if isinstance(e, DiagnosticError):
        return e.render(sources).rstrip("\n")
    return f"error: {type(e).__name__}: {e}"


def _symbol_name(op: Any) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return getattr(name, "data", None)


def _verify_isolating(module: Any, sources: SourceManager) -> dict[str, str]:
    """Verify each top-level op; one that fails is erased, and its error kept
    by symbol name.  Raises when the op names no symbol."""
    from tfrt.dialects.syntax import verify_module

    bad: dict[str, str] = {}
    for op in list(module.body.ops):
        try:
            verify_module(op)
        except DiagnosticError as e:
            name = _symbol_name(op)
            if name is None:
                raise
            bad[name] = _error_text(e, sources)
            module.body.block.detach_op(op)
            op.erase(safe_erase=False)
    return bad


def references(module: Any, root: str) -> set[str]:
    """Every symbol name ``root`` references, directly or through the
    functions it references (names the module lacks included)."""
    table = _symbols(module)
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in table:
            todo.extend(_symbol_refs(table[name]) - seen)
    return seen


def tests_from_mlir(filename: str, text: str, opts: Options, sources: SourceManager,
                    note: Callable[[str], None]) -> list[Test]:  # fmt: skip
    """The selected tests of MLIR ``text``, compiled and loaded (or failed)."""
    from xdsl.dialects import func

    module, cut = parse_isolating(text, filename)
    tests: list[Test] = []
    for op in module.body.ops:
        if not isinstance(op, func.FuncOp) or not op.body.blocks:
            continue
        name = op.sym_name.data
        vis = op.sym_visibility
        if vis is not None and vis.data != "public":
            continue
        if op.function_type.inputs.data:
            if opts.verbose:
                note(f"{name}: not a test (it takes arguments)")
            continue
        tests.append(Test(name, _line(op)))
    # What each test uses, before the ops that do not verify are dropped.
    uses = {t.name: references(module, t.name) for t in tests}
    broken = {name: _error_text(error, sources) for name, (_, error) in cut.items()}
    broken.update(_verify_isolating(module, sources))
    # Public functions cut out or not verifying are tests that fail with
    # their error; the others' errors fail the tests that use them.
    for name, (chunk, _) in cut.items():
        if chunk.is_function and not chunk.private and not chunk.takes_arguments:
            tests.append(Test(name, chunk.first, [broken[name]]))
    tests.sort(key=lambda t: t.line)
    tests = [t for t in tests if _selected(t.name, opts.filters)]
    for t in tests:
        if t.errors:
            continue
        # A broken function the test uses (its own errors may only follow from that one).
        for name in sorted(uses.get(t.name, {t.name}) & set(broken) - {t.name}):
            t.errors.append(f"{broken[name]}\nnote: '{t.name}' uses '@{name}', which is not valid")
        if not t.errors and t.name in broken:
            t.errors.append(broken[t.name])
    runnable = [t for t in tests if not t.errors]
    if not runnable:
        return tests
    # The whole module at once (only what the selected tests need); if it
    # does not compile, each test on its own.
    try:
        program = _compile_to_program(_keep_only(module, reachable(module, [t.name for t in runnable])), opts)
    except Exception as e:  # noqa: BLE001 - any compile failure: isolate the tests
        if opts.verbose:
            note(f"the module does not compile as a whole ({_first_line(e)}); compiling each test alone")
        for t in runnable:
            try:
                t.program = _compile_to_program(_keep_only(module, reachable(module, [t.name])), opts)
            except Exception as inner:  # noqa: BLE001 - reported as the test's failure
                t.errors.append(_error_text(inner, sources))
        return tests
    for t in runnable:
        t.program = program
    return tests


def _line(op: Any) -> int:
    line = getattr(op.location, "line", None) if op.location is not None else None
    return int(line.data) if hasattr(line, "data") else 0


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def tests_from_bef(filename: str, data: bytes, opts: Options, note: Callable[[str], None]) -> list[Test]:
    """The selected tests of a BEF file: its named functions that take no
    arguments (BEF does not record which functions were private)."""
    from tfrt.api import load
    from tfrt.bef.reader import BEFFormatError
    from tfrt.executor import ProgramLoadError

    try:
        program = load(data)
    except BEFFormatError as e:
        raise DiagnosticError(Diagnostic("error", f"{filename}: invalid BEF file: {e}")) from None
    except ProgramLoadError as e:
        raise DiagnosticError(Diagnostic("error", f"{filename}: cannot load the program: {e}")) from None
    tests = []
    for name in program.functions:
        args, _ = program.signature(name)
        if args:
            if opts.verbose:
                note(f"{name}: not a test (it takes arguments)")
            continue
        if _selected(name, opts.filters):
            tests.append(Test(name, program=program))
    return tests


# ---------------------------------------------------------------------------
# Running


def _runtime_diagnostic(diag: Any, sources: SourceManager | None) -> str:
    from tfrt.bef.program import file_line_col

    flc = file_line_col(diag.location) if diag.location is not None else None
    loc = SourceLoc(flc.file, flc.line, flc.col) if flc is not None else None
    return Diagnostic("error", f"runtime error: {diag.message}", loc).render(sources).rstrip("\n")


def run_test(test: Test, sources: SourceManager | None) -> Outcome:
    """Run one prepared test: its failures, runtime errors and time."""
    from tfrt.kernels.tfrt_check import CheckFailures

    if test.errors:
        return Outcome(test.name, False, 0.0, list(test.errors))
    program = test.program
    failures = program.host.shared_context(CheckFailures)
    failures.echo = False
    failures.take()
    checked_before = failures.checked
    seen = len(program.diagnostics)
    output: list[str] = []
    start = time.perf_counter()
    try:
        program.call(test.name)
    except Exception as e:  # noqa: BLE001 - a failing test, not a failing tool
        error = e
    else:
        error = None
    ms = (time.perf_counter() - start) * 1000
    for f in failures.take():
        output.append(f.render(sources).rstrip("\n"))
    messages = set()
    for d in program.diagnostics[seen:]:
        messages.add(d.message)
        output.append(_runtime_diagnostic(d, sources))
    if error is not None:
        info = getattr(error, "info", None)
        if info is None or info.message not in messages:
            output.append(f"error: {type(error).__name__}: {error}" if info is None else f"error: {error}")
    passed = not output
    test.checked = failures.checked - checked_before
    return Outcome(test.name, passed, ms, output)


def run_tests(label: str, tests: list[Test], out: Any, sources: SourceManager | None, verbose: bool) -> int:
    """Run ``tests``, printing gtest's lines to ``out``; the number that failed."""

    def say(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    say(f"[==========] Running {_plural(len(tests))} from {label}")
    failed: list[str] = []
    for t in tests:
        say(f"[ RUN      ] {t.name}")
        outcome = run_test(t, sources)
        for line in outcome.output:
            say(line)
        ms = round(outcome.ms)
        if outcome.passed:
            if verbose:
                say(f"  {_plural(t.checked, 'expectation')} checked")
            say(f"[       OK ] {t.name} ({ms} ms)")
        else:
            say(f"[  FAILED  ] {t.name} ({ms} ms)")
            failed.append(t.name)
    say(f"[==========] {_plural(len(tests))} ran.")
    say(f"[  PASSED  ] {_plural(len(tests) - len(failed))}.")
    if failed:
        say(f"[  FAILED  ] {_plural(len(failed))}, listed below:")
        for name in failed:
            say(f"[  FAILED  ] {name}")
    return len(failed)


# ---------------------------------------------------------------------------
# Command line


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Run the test functions of a module (IREE's check ops).")
    p.add_argument("input", help="a .mlir file (compiled first) or a .bef file, or - for stdin")
    p.add_argument("--device", default="cpu", help="where tensor kernels run: cpu (default) or gpu")
    p.add_argument("--filter", action="append", default=[], metavar="GLOB",
                   help="run only the tests whose names match (repeatable; ':' separates globs)")  # fmt: skip
    p.add_argument("-v", "--verbose", action="store_true",
                   help="show source lines under errors, expectation counts and skipped functions")  # fmt: skip
    for level in (0, 1, 2):
        p.add_argument(f"-O{level}", dest="opt_level", action="store_const", const=level,
                       help=f"optimization level {level}" + (" (default)" if level == 2 else ""))  # fmt: skip
    p.set_defaults(opt_level=2)
    p.add_argument("--pass-pipeline", default=None, help="run this pass pipeline instead of the default")
    p.add_argument("--preprocess", default=None, help="passes to run before the pipeline")
    p.add_argument("--load-pass-plugin", action="append", default=[], dest="plugins", metavar="FILE.py",
                   help="load the ModulePass classes of a Python file (repeatable)")  # fmt: skip
    return p


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        from tfrt.tools import default_sigpipe

        default_sigpipe()
    try:
        status = _run(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        status = 1
    if argv is None:
        sys.exit(status)
    return status


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    sources = SourceManager()
    try:
        return _check(args, sources)
    except DiagnosticError as e:
        sys.stdout.flush()
        sys.stderr.write(e.render(sources))
        return 1
    except Exception as e:  # noqa: BLE001 - a bug here: a message, the traceback with -v
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: internal error: {type(e).__name__}: {e}\n")
        if args.verbose:
            import traceback

            traceback.print_exc()
        return 1


def _check(args: argparse.Namespace, sources: SourceManager) -> int:
    from tfrt.passes.compiler import DEVICES

    if args.device.split(":")[0] not in DEVICES:
        raise DiagnosticError(Diagnostic("error", f"unknown device '{args.device}' (expected one of: {', '.join(DEVICES)})"))
    filters = tuple(g for f in args.filter for g in f.split(":") if g)
    opts = Options(device=args.device, opt_level=args.opt_level, pipeline=args.pass_pipeline,
                   preprocess=args.preprocess, filters=filters, verbose=args.verbose)  # fmt: skip
    filename, data = _read(args.input)

    def note(message: str) -> None:
        sys.stdout.write(f"note: {message}\n")

    if data[:2] == BEF_MAGIC:
        tests = tests_from_bef(filename, data, opts, note)
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise DiagnosticError(
                Diagnostic("error", f"'{filename}' is neither BEF nor UTF-8 MLIR text: {e.reason} at byte {e.start}")
            ) from None
        sources.add(filename, text)
        if args.plugins:
            from tfrt.passes import all_passes
            from tfrt.tools.tfrt_opt import load_pass_plugin

            opts.available = dict(all_passes())
            for path in args.plugins:
                opts.available.update(load_pass_plugin(path))
        tests = tests_from_mlir(filename, text, opts, sources, note)
    failed = run_tests(filename, tests, sys.stdout, sources if args.verbose else None, args.verbose)
    return 1 if failed else 0


if __name__ == "__main__":
    main()
