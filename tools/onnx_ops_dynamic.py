"""ONNX operators whose output shapes depend on the values of their inputs:
NonZero, NonMaxSuppression, Compress, Unique.

A program has static shapes, so inside one these are imported only where
the shapes are known when compiling: every input a constant (the result is
computed now, by the runtime's own kernel, and is a constant), or a
Compress whose condition is a constant (a gather of the slices it picks).
Otherwise the node is refused here; in the main graph ``tfrt.onnx.staged``
splits the model at such a node and runs it between compiled programs
(``tfrt.onnx.backend`` and ``tfrt.api.load`` do that), which a Loop, If or
Scan body or a function body cannot be.

:func:`evaluate` maps a node and its input arrays to the kernel of
``tfrt.kernels.dynamic_shape`` (by name, through the kernel registry); the
staged runner uses it too.

Mixed into ``tools.import_onnx.Importer``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from tfrt.tools import import_onnx as core

# Operator -> the kernel that runs it.
KERNELS = {
    "NonZero": "tfrt_onnx.non_zero",
    "NonMaxSuppression": "tfrt_onnx.non_max_suppression",
    "Compress": "tfrt_onnx.compress",
    "Unique": "tfrt_onnx.unique",
}
DATA_DEPENDENT = frozenset(KERNELS)


class KernelFailed(Exception):
    """The kernel refused its operands (the message says why)."""


def _attrs(node) -> dict[str, Any]:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def evaluate(node, inputs: Sequence[np.ndarray | None]) -> list[np.ndarray]:
    """The outputs of ``node`` (one of :data:`DATA_DEPENDENT`) for its input
    arrays (None for an absent optional input), as many as it names."""
    from tfrt.kernels.registry import KernelError, default_registry

    op = node.op_type
    a = _attrs(node)
    ins = list(inputs) + [None] * (5 - len(inputs))
    if op == "NonZero":
        attrs, operands = (), (ins[0],)
    elif op == "Compress":
        attrs, operands = (a.get("axis"),), (ins[0], ins[1])
    elif op == "NonMaxSuppression":
        attrs, operands = (int(a.get("center_point_box", 0)),), tuple(ins[:5])
    elif op == "Unique":
        attrs, operands = (a.get("axis"), int(a.get("sorted", 1))), (ins[0],)
    else:
        raise KernelFailed(f"{op} has no kernel here")
    kdef = default_registry().get(KERNELS[op])
    try:
        out = kdef.bind(attrs)(*operands)
    except KernelError as exc:
        raise KernelFailed(exc.message) from None
    outs = list(out) if isinstance(out, tuple) else [out]
    return outs[: len(node.output)]


def _refusal(node) -> str:
    return (
        "the shape of its output depends on the values of its inputs, which are computed at run time: "
        "tfrt.onnx.backend and tfrt.api.load run such a node between compiled programs when it is a node "
        "of the main graph, not inside a Loop, If or Scan body or a function body"
    )


class OnnxOpsDynamic:
    """NonZero, NonMaxSuppression, Compress, Unique (mixed into ``Importer``)."""

    def _dynamic(self, node):
        """The node's outputs as constants where every input is one; else
        the refusal."""
        arrays = []
        for name in node.input:
            if not name:
                arrays.append(None)
                continue
            c = self.consts.get(name)
            if c is None:
                raise core.ImportError_(_refusal(node))
            arrays.append(np.asarray(c))
        try:
            return evaluate(node, arrays)
        except KernelFailed as exc:
            raise core.ImportError_(str(exc)) from None

    def op_NonZero(self, node, a):
        return self._dynamic(node)

    def op_NonMaxSuppression(self, node, a):
        return self._dynamic(node)

    def op_Unique(self, node, a):
        return self._dynamic(node)

    def op_Compress(self, node, a):
        cond = self.const(node.input[1])
        if cond is None or self.const(node.input[0]) is not None:
            return self._dynamic(node)
        # A constant condition: the slices it picks are known now.
        x = self.value(node.input[0], node)
        cond = np.asarray(cond)
        if cond.ndim != 1:
            raise core.ImportError_(f"the condition must be 1-D, it has shape {cond.shape}")
        if not x.shape:
            raise core.ImportError_("the input is a scalar: Compress takes a tensor of rank 1 or more")
        axis = a.get("axis")
        if axis is None:
            x = self.em.reshape(x, (int(np.prod(x.shape, dtype=np.int64)),))
            axis = 0
        elif not -len(x.shape) <= axis < len(x.shape):
            raise core.ImportError_(f"axis {axis} is out of range for an input of rank {len(x.shape)}")
        axis %= len(x.shape)
        if cond.shape[0] > x.shape[axis]:
            raise core.ImportError_(
                f"the condition has {cond.shape[0]} entries, more than the {x.shape[axis]} of axis {axis} of the input"
            )
        return self.take(x, np.flatnonzero(cond), axis)
