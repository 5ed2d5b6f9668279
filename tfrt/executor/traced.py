"""The traced interpreter: the interpreter with a per-kernel trace hook.

Runs every call of a program that has a tracer (``bef_executor --trace``,
``--enable_tracing``; ``program.tracer`` is set by ``tfrt.tracing``): the
compiled and column paths are then never used, so every kernel goes
through :meth:`_TracedExecution._run_kernel` and is traced.  Chosen per
call by ``program.py``, so a program without a tracer pays nothing for it.
"""

from __future__ import annotations

from tfrt.executor.interpreter import _Execution
from tfrt.executor.plan import _ReadyQueue


class _TracedExecution(_Execution):
    """The interpreter with a per-kernel trace hook: chosen per call, so tracing off costs nothing."""

    __slots__ = ()

    def _run_kernel(self, kid: int, q: _ReadyQueue) -> None:
        tracer = self.fn.program.tracer
        kp = self.plan.kernels[kid]
        token = tracer.begin(kp.site)
        try:
            _Execution._run_kernel(self, kid, q)
        finally:
            tracer.end(kp.site, token)
