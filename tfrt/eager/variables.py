"""``tfrt.Variable``: a tensor whose value can be replaced.

A variable is a :class:`Tensor` (it goes wherever a tensor goes); ops read
its current value.  ``assign``, ``assign_add`` and ``assign_sub`` replace the
value with a new tensor of the same shape and dtype -- never in place, so
work already dispatched keeps the value it read.  Trainable variables are
watched by every active :class:`~tfrt.eager.tape.GradientTape` when read.
Inside ``@tfrt.function`` a read is an argument of the compiled function and
an assignment one of its results, applied when the call returns.

Layer 2 of ``tfrt.eager`` (``core < methods < variables < tape < tracing <
__init__``): may import ``core`` and ``methods``; imports ``core`` (its
``assign_add`` uses the operators that ``methods`` installs).  A read
reaches the tapes and the trace through ``core``'s hooks
(``core._read_variable``, ``core.current_trace``), not by importing them.
"""

from __future__ import annotations

import numpy as np

from tfrt.eager import core
from tfrt.eager.core import OpError, Tensor, constant, user_site


class Variable(Tensor):
    """``tfrt.Variable(np.zeros((3, 4), np.float32), name="w")``."""

    __slots__ = ("name", "trainable")

    def __init__(self, value, dtype=None, *, trainable: bool = True, name: str | None = None):
        t = constant(value, dtype)
        self._v, self._m, self._x = t._v, t._m, t._x
        self.trainable = trainable
        self.name = name

    def _snapshot(self) -> Tensor:
        t = object.__new__(Tensor)
        t._v, t._m, t._x = self._v, self._m, self._x
        return t

    def _read(self) -> Tensor:
        """The value ops use (a symbol while tracing); recorded on active tapes."""
        if core._TRACING:
            trace = core.current_trace()
            if trace is not None:
                value = trace.read_variable(self)
                if core._TAPES:
                    # Each read is a tensor of its own, as in eager mode (the
                    # same symbol): a tape links every read to the variable
                    # once, so reads after an assign, or two reads of one
                    # value, do not add the same gradient twice.
                    value = trace.alias(value)
                    core._read_variable(self, value)
                return value
        value = self._snapshot()
        if core._TAPES:
            core._read_variable(self, value)
        return value

    def value(self) -> Tensor:
        """The current value as an ordinary tensor."""
        return self._read()

    def numpy(self) -> np.ndarray:
        if core._TRACING:
            return self._read().numpy()
        return Tensor.numpy(self)

    def assign(self, value) -> Variable:
        """Replace the value (same shape and dtype)."""
        new = value._read() if isinstance(value, Variable) else value
        if not isinstance(new, Tensor):
            new = core.to_tensor(new, self._m)
        if new._m is not self._m:
            raise OpError(
                "assign",
                f"value has dtype {new._m.md.dtype.short_name} and shape {list(new.shape)}, "
                f"the variable {self._m.md.dtype.short_name} and {list(self.shape)}",
                user_site(),
            )
        if core._TRACING:
            trace = core.current_trace()
            if trace is not None:
                trace.assign_variable(self, new)
                return self
        here = None if self._x is None else self._x.dev
        there = None if new._x is None else new._x.dev
        if here is not there:
            new = core.transfer(new, here)
        self._v, self._x = new._v, new._x
        return self

    def assign_add(self, delta) -> Variable:
        return self.assign(self._read() + delta)

    def assign_sub(self, delta) -> Variable:
        return self.assign(self._read() - delta)

    def __repr__(self) -> str:
        name = f" {self.name!r}" if self.name else ""
        return f"tfrt.Variable{name}({Tensor.__repr__(self)[12:-1]})"
