"""Helpers for the runtime tests: run hand-built BEF programs and capture what they do."""

from __future__ import annotations

import threading

from bef_builder import ProgramBuilder

from tfrt.async_value import AsyncValue
from tfrt.executor import BEFProgram
from tfrt.host_context import HostContext

LOG: list[str] = []


class Obj:
    """A value that logs its creation and its deletion."""

    __slots__ = ("tag", "__weakref__")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        LOG.append(f"new {tag}")

    def __del__(self) -> None:
        LOG.append(f"del {self.tag}")


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


def run_threads(targets, timeout: float = 120) -> None:
    """Start one thread per target; join each with a bound (a stuck thread
    fails the test instead of hanging it); re-raise the first failure."""
    errors = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as exc:  # reported below, on the test's thread
                errors.append(exc)

        return run

    threads = [threading.Thread(target=wrap(t), daemon=True) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread is stuck (deadlock?)"
    if errors:
        raise errors[0]
