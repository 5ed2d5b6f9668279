"""Helpers for the runtime tests: run hand-built BEF programs and capture what they do."""

from __future__ import annotations

from bef_builder import ProgramBuilder

from tfrt.async_value import AsyncValue
from tfrt.executor import BEFProgram
from tfrt.host_context import HostContext


class Runner:
    """Loads a ProgramBuilder's program on a fresh host and runs functions, as the driver does."""

    def __init__(self, builder: ProgramBuilder, work_queue: str = "s", jit_threshold: int = 2):
        self.diags = []
        self.host = HostContext(work_queue=work_queue, diag_handler=self.diags.append)
        self.program = BEFProgram.load(builder.build(), self.host, jit_threshold=jit_threshold)

    def run(self, name: str, *args):
        fn = self.program.function(name)
        results = fn.execute(self.host.new_execution_context(), [AsyncValue.make_available(a) for a in args])
        self.host.await_values(results)
        self.host.quiesce()
        return results

    def values(self, name: str, *args):
        """Run and return each result's value, or ("error", message)."""
        out = []
        for r in self.run(name, *args):
            out.append(("error", r.error.message) if r.is_error else r.value)
        return out

    def close(self):
        self.host.shutdown()
