"""Run MLIR text through the whole stack: parse, BEF, load, execute; capture output."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, field

from tfrt.bef.program import file_line_col
from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module
from tfrt.executor import BEFProgram
from tfrt.host_context import HostContext


@dataclass
class Run:
    stdout: str
    diagnostics: list[tuple[str, int | None]]  # (message, line)
    results: dict[str, list] = field(default_factory=dict)

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


def run_mlir(text: str, *, work_queue: str = "s", allocator: str = "malloc",
             functions: list[str] | None = None) -> Run:
    """Execute every named function of ``text`` (or ``functions``) in order."""
    module = parse_module(text, "test.mlir", allow_unregistered=True)
    bef = read_bef(write_bef(module))
    diags: list[tuple[str, int | None]] = []

    def on_diag(d):
        loc = file_line_col(d.location) if d.location is not None else None
        diags.append((d.message, loc.line if loc is not None else None))

    out = io.StringIO()
    results: dict[str, list] = {}
    host = HostContext(work_queue=work_queue, allocator=allocator, diag_handler=on_diag)
    try:
        with contextlib.redirect_stdout(out):
            program = BEFProgram.load(bef, host)
            for f in bef.functions:
                if not f.name or f.arg_types or (functions is not None and f.name not in functions):
                    continue
                values = program.function(f.name).execute(host.new_execution_context(), [])
                host.await_values(values)
                host.quiesce()
                results[f.name] = values
    finally:
        host.shutdown()
    return Run(out.getvalue(), diags, results)
