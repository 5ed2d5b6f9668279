"""bef_executor: run every function of a BEF file, as TFRT's test driver does.

    tfrt_translate -mlir-to-bef x.mlir | bef_executor -
    bef_executor x.mlir.bef --functions=a,b --work_queue_type=mstd:4
    bef_executor x.mlir --trace=trace.json       # a .mlir input is compiled first

Output (stdout): the allocator and work-queue banners, then per function in
FunctionIndex order ``--- Running 'f':`` (or ``--- Not running 'f' because it
has arguments.``), the kernels' output, and ``'f' returned v1,v2`` once the
results resolve; work still queued then runs before the next function.

Runtime errors are MLIR diagnostics at the failing kernel's location
(``file:line:col: error: runtime error: MSG``).  When that source file is
readable its ``expected-error`` annotations are checked as MLIR's verifier
does: matched errors are silent, unmatched or missing ones are reported and
the exit status is 1.

Flags (one or two dashes, ``--flag=value`` or ``--flag value``):
``--functions=a,b``, ``--test_init_function=NAME``,
``--work_queue_type=s|mstd[:N[,M]]``, ``--host_allocator_type=malloc|
test_fixed_size_1k|profiled_allocator|leak_check_allocator``,
``--print_error_code``, ``--enable_tracing``, ``--tracing_level=default|verbose|debug``,
``--trace=FILE.json`` (per-kernel Chrome/Perfetto trace), ``--verify_all``
(check every function body before running; otherwise each is checked when
first called).

Calling one function with arguments (IREE's ``iree-run-module`` conventions):

    bef_executor model.mlir --function=f --input=2x2xf32=1,2,3,4 --input=@x.npy
    bef_executor model.bef --function=f --input=i32=7 --output=@y.npy

prints ``EXEC @f`` and each result as ``result[0]: hal.buffer_view`` then
``2x2xf32=[1 2][3 4]`` (a scalar as ``result[1]: i32=7``).  ``--input``
takes ``SHAPExTYPE=VALUES`` (commas, spaces and brackets separate values; one
value fills the shape), ``SHAPExTYPE`` (zeros), a bare value of the declared
scalar type, ``@file.npy`` (successive uses read successive arrays) or
``SHAPExTYPE=@raw.bin``.  Each ``--output`` handles the result at its
position: ``-`` prints it, ``@file.npy`` writes it, ``+file.npy`` appends
it, an empty value skips it; results past the last ``--output`` print.
``--print_max_element_count=N`` (default 1024) elides longer tensors.

Measuring a function (``--function`` may be left out when the program has
one function):

    bef_executor model.bef --function=main --input=@x.npy --benchmark=100

runs it once and prints its results as above, with that first call's time
(the function's body is checked and planned then), then calls it
``--benchmark_warmup=W`` times (default 10) and ``N`` more times (default
100; ``--benchmark`` alone), timed one by one as ``tfrt.api``'s
``Program.call`` runs them, and prints the minimum, median, p99 (nearest
rank) and mean latency and the throughput in calls per second.

For an input of a megabyte or more, the process keeps freed memory in its
heap and reserves heap in huge pages first (``tfrt.heap``: page faults
were a quarter of a large program's time); ``TFRT_HEAP=system`` leaves
the C library's defaults.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from tfrt import diagnostics as dg

PROG = "bef_executor"

_VALUE_FLAGS = {
    "functions",
    "test_init_function",
    "work_queue_type",
    "host_allocator_type",
    "tracing_level",
    "trace",
    "shared_libs",
    "function",
    "print_max_element_count",
    "benchmark",
    "benchmark_warmup",
}
_LIST_FLAGS = {"input", "output"}
_BOOL_FLAGS = {"print_error_code", "enable_tracing", "help", "verify_all"}


class UsageError(Exception):
    pass


@dataclass
class Options:
    input: str = "-"
    functions: list[str] = field(default_factory=list)
    test_init_function: str = ""
    work_queue_type: str = "s"
    host_allocator_type: str = "leak_check_allocator"
    print_error_code: bool = False
    enable_tracing: bool = False
    tracing_level: str = "default"
    trace: str | None = None
    function: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    print_max_element_count: int = 1024
    verify_all: bool = False
    benchmark: int = 0  # timed calls (0: no benchmark)
    benchmark_warmup: int = 10


def parse_args(argv: Sequence[str]) -> Options:
    opts = Options()
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        name, eq, value = arg.lstrip("-").partition("=")
        name = name.replace("-", "_")  # --verify-all as well as --verify_all
        if name in _BOOL_FLAGS:
            if eq and value not in ("true", "1", "false", "0"):
                raise UsageError(f"option '{name}' takes no value")
            setattr_bool = value not in ("false", "0")
            if name == "help":
                raise UsageError("help")
            setattr(opts, name, setattr_bool)
            continue
        if name not in _VALUE_FLAGS and name not in _LIST_FLAGS:
            raise UsageError(f"unknown option '{arg}'")
        if name == "benchmark" and not eq:
            opts.benchmark = 100  # --benchmark alone: the default count
            continue
        if not eq:
            if i >= len(argv):
                raise UsageError(f"option '{name}' needs a value")
            value = argv[i]
            i += 1
        if name in _LIST_FLAGS:
            (opts.inputs if name == "input" else opts.outputs).append(value)
        elif name == "print_max_element_count":
            try:
                opts.print_max_element_count = int(value)
            except ValueError:
                raise UsageError(f"--print_max_element_count takes an integer, not '{value}'") from None
        elif name in ("benchmark", "benchmark_warmup"):
            try:
                count = int(value)
            except ValueError:
                count = -1
            if count < (1 if name == "benchmark" else 0):
                least = "a positive" if name == "benchmark" else "a non-negative"
                raise UsageError(f"--{name} takes {least} number of calls, not '{value}'")
            setattr(opts, name, count)
        elif name == "functions":
            opts.functions.extend(v for v in value.split(",") if v)
        elif name == "shared_libs":
            raise UsageError("--shared_libs is not supported (kernels load through the "
                             "'tfrt.kernels' entry-point group)")
        else:
            setattr(opts, name, value)
    if len(positional) > 1:
        raise UsageError(f"too many input files: {' '.join(positional)}")
    if positional:
        opts.input = positional[0]
    if (opts.inputs or opts.outputs) and not opts.function and not opts.benchmark:
        raise UsageError("--input and --output need --function=NAME")
    if opts.function and opts.functions:
        raise UsageError("--function and --functions cannot be used together")
    if opts.benchmark and opts.functions:
        raise UsageError("--benchmark measures one function: name it with --function, not --functions")
    return opts


# ---------------------------------------------------------------------------
# Result printing (TFRT's PrintResult / LLVM raw_ostream formats).


def format_float(v: float) -> str:
    """raw_ostream << double: ``%e``, with ``nan`` and ``INF``/``-INF``."""
    v = float(v)
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "-INF" if v < 0 else "INF"
    return "%e" % v


class ResultTypeError(Exception):
    """A result whose value is not of its declared type (a malformed file
    can return the wrong register)."""


def format_value(type_name: str, value: Any) -> str:
    try:
        if type_name == "i1":
            return "1" if value else "0"
        if type_name in ("i32", "i64"):
            return str(int(value))
        if type_name in ("f32", "f64"):
            return format_float(value)
    except (TypeError, ValueError):
        raise ResultTypeError(f"declared {type_name}, the value is a {type(value).__name__}") from None
    return f"{type_name} value"


def format_result(type_name: str, av: Any, print_error_code: bool) -> str:
    err = av.error
    if err is not None:
        if print_error_code:
            return f"<<error: {err.message}, code: {err.code}>>"
        return f"<<error: {err.message}>>"
    return format_value(type_name, av.value)


# ---------------------------------------------------------------------------
# Diagnostics: MLIR's SourceMgrDiagnosticVerifierHandler, lazily per file.


class RuntimeDiagnostics:
    """Receives runtime errors; verifies them against ``expected-*`` annotations.

    As in MLIR, a source file's annotations are read when the first
    diagnostic located in it arrives; a diagnostic with no file location, or
    in a file that cannot be read, is unexpected.
    """

    def __init__(self, check_annotations: bool = True) -> None:
        self.check_annotations = check_annotations
        self.sources = dg.SourceManager()
        self._verifiers: dict[str, dg.DiagnosticVerifier | None] = {}
        self.failed = False
        self.messages: list[str] = []

    def _verifier(self, filename: str) -> dg.DiagnosticVerifier | None:
        if filename in self._verifiers:
            return self._verifiers[filename]
        if not self.check_annotations:
            try:
                with open(filename, encoding="utf-8", errors="replace") as f:
                    self.sources.add(filename, f.read())
            except OSError:
                pass
            self._verifiers[filename] = None
            return None
        try:
            with open(filename, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            verifier = None
        else:
            self.sources.add(filename, text)
            verifier = dg.DiagnosticVerifier(filename, text)
        self._verifiers[filename] = verifier
        return verifier

    def handle(self, diag: Any) -> None:
        from tfrt.bef import program as bp
        from tfrt.executor import location_to_string

        message = f"runtime error: {diag.message}"
        self.messages.append(diag.message)
        loc = diag.location
        flc = bp.file_line_col(loc) if loc is not None else None
        if flc is not None:
            source_loc = dg.SourceLoc(flc.file, flc.line, flc.col)
            verifier = self._verifier(flc.file)
            if verifier is not None:
                before = len(verifier.unexpected)
                verifier.consume(dg.Diagnostic("error", message, source_loc))
                if len(verifier.unexpected) > before:
                    self.failed = True
                    self._emit(verifier.unexpected[before:])
                return
            self.failed = True
            prefix = "unexpected error: " if self.check_annotations else ""
            self._emit([dg.Diagnostic("error", prefix + message, source_loc)])
            return
        self.failed = True
        where = "loc(unknown)"
        if loc is not None and not isinstance(loc, bp.UnknownLocation):
            where = f'loc("{location_to_string(loc)}")'
        sys.stdout.flush()
        sys.stderr.write(f"{where}: error: unexpected error: {message}\n")
        sys.stderr.flush()

    def _emit(self, diags: list[dg.Diagnostic]) -> None:
        sys.stdout.flush()
        dg.emit(diags, self.sources, sys.stderr)

    def verify(self) -> int:
        missing: list[dg.Diagnostic] = []
        for verifier in self._verifiers.values():
            if verifier is None:
                continue
            missing.extend(d for d in verifier.finish() if d not in verifier.unexpected)
        if missing:
            self._emit(missing)
            return 1
        return 1 if self.failed else 0


# ---------------------------------------------------------------------------


def _read_input(path: str) -> Any:
    """The input's bytes; a BEF file is mapped (read in place), not read."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size >= 3:
            import mmap

            try:
                mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):  # not mappable (a pipe, a special file)
                mapped = None
            if mapped is not None:
                if mapped[:2] == b"\x0b\xef":
                    return mapped
                mapped.close()
        return f.read()


def _compile_mlir(data: bytes, path: str) -> bytes:
    """Compile MLIR text to BEF in memory (imports the compiler only on this path)."""
    from tfrt.passes.compiler import compile_text_to_bef

    text = data.decode("utf-8", errors="replace")
    # Like tfrt_translate, accept ops of dialects that are not registered:
    # only the executor decides whether a kernel exists.  High-level MLIR
    # (linalg, arith, scf...) goes through the compiler's default pipeline.
    return compile_text_to_bef(text, path)


def _looks_like_mlir(data: bytes, path: str) -> bool:
    """Not BEF, and named .mlir or plain text: compile it first."""
    if data[:2] == b"\x0b\xef" or not data:
        return False
    if path.endswith(".mlir"):
        return True
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        from tfrt.tools import default_sigpipe

        default_sigpipe()
    try:
        return _main(list(sys.argv[1:] if argv is None else argv), own_process=argv is None)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # a bug, still no traceback: say what and exit 1
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: internal error: {type(exc).__name__}: {exc}\n")
        return 1


def _main(argv: list[str], own_process: bool = False) -> int:
    try:
        opts = parse_args(argv)
    except UsageError as exc:
        if str(exc) == "help":
            sys.stdout.write(__doc__ or "")
            return 0
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 1

    from tfrt.host_context import HostContext, make_host_allocator
    from tfrt.tracing import DebugTracingSink, level_index
    from tfrt.work_queue import WorkQueueError, make_work_queue

    try:
        allocator = make_host_allocator(opts.host_allocator_type)
        level_index(opts.tracing_level)
    except ValueError as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 1

    sink = DebugTracingSink(opts.tracing_level) if opts.enable_tracing else None
    if sink is not None:
        sink.push_scope("Bef Executor")
    out = sys.stdout
    banners = not opts.function and not opts.benchmark
    try:
        if banners:
            out.write(allocator.banner + "\n")
            out.flush()
        try:
            data = _read_input(opts.input)
        except OSError as exc:
            sys.stderr.write(f"{PROG}: could not open input file '{opts.input}': {exc.strerror}\n")
            return 1
        if own_process:  # (the process ends with the program: see tfrt.heap)
            from tfrt.heap import prepare_heap, reserve_for_input

            prepare_heap(reserve_for_input(len(data)))
        if _looks_like_mlir(data, opts.input):
            try:
                data = _compile_mlir(data, opts.input)
            except dg.DiagnosticError as exc:
                sources = dg.SourceManager()
                sys.stderr.write(exc.render(sources))
                return 1
        try:
            work_queue = make_work_queue(opts.work_queue_type)
        except WorkQueueError as exc:
            sys.stderr.write(f"{PROG}: couldn't create work queue type {opts.work_queue_type}: {exc}\n")
            return 1
        if banners:
            out.write(f"Choosing {work_queue.name} work queue.\n")
            out.flush()

        # With --function there are no expected-error annotations to check:
        # runtime errors are reported as they are.
        diags = RuntimeDiagnostics(check_annotations=not opts.function)
        host = HostContext(work_queue=work_queue, allocator=allocator, diag_handler=diags.handle)
        try:
            status = _run(opts, data, host, diags, sink)
        finally:
            host.shutdown()
        gc.collect()
        leak_status = allocator.finish()
        return status or leak_status
    finally:
        if sink is not None:
            sink.pop_scope()
            sink.flush(sys.stdout)


def _run(opts: Options, data: Any, host: Any, diags: RuntimeDiagnostics, sink: Any) -> int:
    from tfrt.bef.reader import BEFFormatError

    # A malformed file is an error naming the section, the offset and (for
    # a function body) the function, wherever it is found: the structure
    # and the tables now, each body when its function is first called (all
    # of them now with --verify_all).
    try:
        return _load_and_run(opts, data, host, diags, sink)
    except BEFFormatError as exc:
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: error: invalid BEF file: {exc}\n")
        return 1


def _load_and_run(opts: Options, data: Any, host: Any, diags: RuntimeDiagnostics, sink: Any) -> int:
    from tfrt.bef.reader import read_bef
    from tfrt.executor import BEFProgram, ProgramLoadError, set_recursion_limit
    from tfrt.tracing import ChromeTracer, Tracer

    bef = read_bef(data, lazy=True)
    if opts.verify_all:
        bef.verify()
    try:
        program = BEFProgram.load(bef, host)
    except ProgramLoadError:
        # TFRT's driver stops here; the exit status is the verifier's verdict
        # (err_unknown_kernel.mlir expects its load error and exits 0).
        return diags.verify()
    chrome = ChromeTracer() if opts.trace else None
    tracer = Tracer(chrome, sink)
    if tracer:
        program.tracer = tracer
    set_recursion_limit()

    if opts.benchmark and not opts.function:
        named = [f.name for f in program.named_functions()]
        if len(named) != 1:
            sys.stderr.write(f"{PROG}: error: --benchmark needs --function=NAME (have: {', '.join(named)})\n")
            return 1
        opts.function = named[0]
    try:
        status = _invoke(opts, program, host, diags) if opts.function else _run_all(opts, program, host, sink)
    except ProgramLoadError:  # reported at the kernel (a bad attribute, checked when first called)
        return diags.verify() or 1
    # Its plans (several objects per kernel, in cycles through the program)
    # are freed now by reference counting, not walked by the leak check's
    # collection.
    host.quiesce()
    program.release()
    if chrome is not None:
        try:
            chrome.write(opts.trace)
        except OSError as exc:
            sys.stderr.write(f"{PROG}: cannot write trace file '{opts.trace}': {exc.strerror}\n")
            return 1
    del program
    return diags.verify() or status


def _run_all(opts: Options, program: Any, host: Any, sink: Any) -> int:
    """TFRT's test driver: run the selected (or every) function without arguments."""
    if opts.functions:
        functions = []
        for name in opts.functions:
            fn = program.function(name)
            if fn is None:
                sys.stderr.write(f"{PROG}: couldn't find function {name}\n")
                return 1
            functions.append(fn)
    else:
        # The file's functions in order, each made only if it runs.
        functions = None

    init = program.function(opts.test_init_function) if opts.test_init_function else None
    status = 0
    if init is not None:
        status |= _run_function(init, host, opts, sink)
    out = sys.stdout
    skipped: list[str] = []  # "Not running" lines, written together before the next run
    if functions is None:  # (index, name, number of arguments), made only to run
        from tfrt.bef import program as bp

        heads = bp.function_heads(program.bef.functions)
    else:
        heads = [(fn.index, fn.name, len(fn.arg_types)) for fn in functions]
    for k, (index, name, nargs) in enumerate(heads):
        if nargs:
            if init is None or index != init.index:
                skipped.append(f"--- Not running '{name}' because it has arguments.\n")
            continue
        if not name:
            continue
        fn = program.functions[index] if functions is None else functions[k]
        if fn is init:
            continue
        if skipped:
            out.write("".join(skipped))
            skipped.clear()
        status |= _run_function(fn, host, opts, sink)
    if skipped:
        out.write("".join(skipped))
    sys.stdout.flush()  # before anything more reaches stderr
    return status


@contextlib.contextmanager
def _frozen_program(fn: Any) -> Iterator[None]:
    """Run ``fn`` with what is alive before it (the program: its plans,
    kernels and attributes, built first) out of the cyclic GC's way.

    A function's plan is an object per kernel that lives as long as the
    program; every full collection during the run would walk all of it
    again (half the time of a 100,000-kernel function).  ``gc.freeze()``
    moves it to the permanent generation for the run and ``gc.unfreeze()``
    hands it back after, so nothing escapes the collector (the leak check
    at exit still sees everything).  A body that does not decode is left
    to ``execute``, which reports it as always.  In a process whose heap
    is frozen already (a caller that runs the tool in process, as the BEF
    fuzz does) nothing is frozen or unfrozen: ``gc.unfreeze()`` would thaw
    the caller's objects too."""
    if gc.get_freeze_count():
        yield
        return
    prepare = getattr(fn, "prepare", None)  # a native function has no body
    try:
        if prepare is not None:
            prepare()
        ready = prepare is not None
    except Exception:  # noqa: BLE001 - execute reports it
        ready = False
    if not ready:
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _run_function(fn: Any, host: Any, opts: Options, sink: Any) -> int:
    """Run one function as TFRT's driver does; 1 when its results cannot be
    printed (0 otherwise: runtime errors go to the diagnostics)."""
    out = sys.stdout
    if fn.arg_types:
        # Not flushed: nothing reaches stderr before the next line that is.
        out.write(f"--- Not running '{fn.name}' because it has arguments.\n")
        return 0
    if not fn.name:
        return 0
    from tfrt.bef import program as bp
    from tfrt.executor import ProgramLoadError

    out.write(f"--- Running '{fn.name}':\n")
    out.flush()
    if sink is not None:
        sink.push_scope(f"Function: {fn.name}")
    status = 0
    try:
        exec_ctx = host.new_execution_context()
        with _frozen_program(fn):
            try:
                results = fn.run(exec_ctx, [])  # (execute and wait)
            except ProgramLoadError:  # reported at the kernel (a bad attribute, checked when first called)
                return 0
        if results:
            if fn.kind == bp.SYNC_FUNCTION and any(r.error is not None for r in results):
                err = next(r.error for r in results if r.error is not None)
                line = f"<<error: {err.message}>>"
            else:
                try:
                    line = ",".join(
                        format_result(t, r, opts.print_error_code)
                        for t, r in zip(fn.result_types, results)
                    )
                except ResultTypeError as exc:
                    out.flush()
                    sys.stderr.write(f"{PROG}: error: '{fn.name}' returned a value of the wrong type: {exc}\n")
                    line, status = None, 1
            if line is not None:
                out.write(f"'{fn.name}' returned {line}\n")
                out.flush()
        del results, exec_ctx
        host.quiesce()
    finally:
        if sink is not None:
            sink.pop_scope()
    return status


def _invoke(opts: Options, program: Any, host: Any, diags: RuntimeDiagnostics) -> int:
    """``--function=f``: parse the inputs, run f once, print or save its results."""
    import numpy as np

    from tfrt.async_value import CONCRETE, AsyncValue
    from tfrt.values import NpyReader, ValueSpecError, format_result, parse_input

    fn = program.function(opts.function)
    if fn is None or not fn.name:
        have = ", ".join(f.name for f in program.named_functions())
        sys.stderr.write(f"{PROG}: error: no function named '{opts.function}' (have: {have})\n")
        return 1
    if len(opts.inputs) != len(fn.arg_types):
        sig = ", ".join(fn.arg_types)
        sys.stderr.write(
            f"{PROG}: error: '{fn.name}' takes {len(fn.arg_types)} arguments ({sig}), "
            f"{len(opts.inputs)} --input given\n"
        )
        return 1
    if len(opts.outputs) > len(fn.result_types):
        sys.stderr.write(
            f"{PROG}: error: '{fn.name}' has {len(fn.result_types)} results, "
            f"{len(opts.outputs)} --output given\n"
        )
        return 1
    # A bad --output found only after a long run would throw the run away.
    for i, spec in enumerate(opts.outputs):
        if spec in ("", "-"):
            continue
        if spec[0] not in "@+":
            what = "expected -, @file.npy or +file.npy"
            sys.stderr.write(f"{PROG}: error: --output #{i} ('{spec}'): {what}\n")
            return 1
        folder = os.path.dirname(spec[1:]) or "."
        if not os.path.isdir(folder):
            sys.stderr.write(f"{PROG}: error: --output #{i} ('{spec}'): no directory '{folder}'\n")
            return 1
    npy = NpyReader()
    args = []
    try:
        for i, (spec, t) in enumerate(zip(opts.inputs, fn.arg_types)):
            try:
                args.append(parse_input(spec, t, npy))
            except ValueSpecError as exc:
                sys.stderr.write(f"{PROG}: error: --input #{i} ('{spec}'): {exc}\n")
                return 1
    finally:
        npy.close()

    out = sys.stdout
    out.write(f"EXEC @{fn.name}\n")
    out.flush()
    started = time.perf_counter()
    exec_ctx = host.new_execution_context()
    results = fn.run(exec_ctx, [AsyncValue(CONCRETE, a) for a in args])
    host.quiesce()
    first_call = time.perf_counter() - started
    status = 0

    def reported(message: str) -> bool:
        return any(message in m for m in diags.messages)

    for i, (t, av) in enumerate(zip(fn.result_types, results)):
        if av.error is not None:
            # A located error was reported by the diagnostics handler.
            if not reported(av.error.message):
                sys.stdout.flush()
                sys.stderr.write(f"{PROG}: error: '{fn.name}' result {i}: {av.error.message}\n")
            status = 1
            continue
        spec = opts.outputs[i] if i < len(opts.outputs) else "-"
        if spec == "":
            continue
        if spec == "-":
            out.write(format_result(i, av.value, t, opts.print_max_element_count) + "\n")
            continue
        value = av.value
        if hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.ndarray):
            value = value.get()
        try:
            with open(spec[1:], "wb" if spec[0] == "@" else "ab") as f:
                np.save(f, np.asarray(value), allow_pickle=False)
        except OSError as exc:
            sys.stderr.write(f"{PROG}: error: cannot write '{spec[1:]}': {exc.strerror}\n")
            status = 1
    out.flush()
    del results, exec_ctx
    if status == 0 and opts.benchmark:
        status = _benchmark(opts, program, host, diags, fn, args, first_call)
    return status


def _benchmark(opts: Options, program: Any, host: Any, diags: Any, fn: Any, args: list, first_call: float) -> int:
    """``--benchmark``: time the calls one by one, print latency and throughput."""
    from tfrt.api import ExecutionError, Program

    caller = Program(program, host, [])  # a located error is reported by the host's handler too
    name = fn.name
    try:
        for _ in range(opts.benchmark_warmup):
            caller.call(name, *args)
        times = []
        clock = time.perf_counter
        began = clock()
        for _ in range(opts.benchmark):
            t0 = clock()
            caller.call(name, *args)
            times.append(clock() - t0)
        wall = clock() - began
    except ExecutionError as exc:
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: error: --benchmark: {exc}\n")
        return 1
    times.sort()
    n = len(times)
    p99 = times[max(0, math.ceil(0.99 * n) - 1)]
    out = sys.stdout
    out.write(f"BENCHMARK @{name}: {n} calls after {opts.benchmark_warmup} warm-up, "
              f"work queue {opts.work_queue_type}\n")  # fmt: skip
    out.write(f"  first call  {_ms(first_call)}\n")
    out.write(f"  latency     min {_ms(times[0])}   median {_ms(statistics.median(times))}   "
              f"p99 {_ms(p99)}   mean {_ms(sum(times) / n)}\n")  # fmt: skip
    out.write(f"  throughput  {n / wall:,.1f} calls/s\n")
    out.flush()
    return 0


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f} ms" if ms < 10 else f"{ms:.2f} ms" if ms < 1000 else f"{ms:,.1f} ms"


if __name__ == "__main__":
    sys.exit(main())
