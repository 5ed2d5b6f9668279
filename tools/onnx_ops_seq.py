"""ONNX sequences and optionals, resolved when the program is compiled.

A compiled program takes and returns tensors only.  A sequence is therefore
a Python list of the importer's tensor values (:class:`Seq`), its length
known at import, and an optional is empty or holds one value (:class:`Opt`).
The sequence operators (SequenceConstruct, SequenceEmpty, SequenceInsert,
SequenceErase, SequenceAt, SequenceLength, ConcatFromSequence,
SplitToSequence, SequenceMap) and the optional ones (Optional,
OptionalHasElement, OptionalGetElement) rearrange those lists; only the
tensor work they imply (slices, concatenations, a SequenceMap body imported
once per element, as the unrolled loops are) reaches the program.
Positions (SequenceAt's, SequenceInsert's, SequenceErase's) and splits must
be known when compiling: constants, or graph inputs ``tfrt.onnx.backend``
specializes the program on.

A sequence or optional graph input is given to the importer as a spec (see
:func:`feed`): its length and element shapes, or whether it holds a value.
Its elements become ordinary tensor arguments of the function, in order.
A sequence or optional graph output is returned flattened the same way and
:attr:`Importer.output_layout` says how to regroup it (:func:`regroup`);
only importers with ``flatten_sequences`` set (``tfrt.onnx.backend``'s) do
that, elsewhere such an output is refused.

Mixed into ``tools.import_onnx.Importer``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tfrt.tools import import_onnx as core

# Operators whose results are sequences or optionals: never evaluated by
# onnx.reference at import (its lists would become stacked tensors).
SEQUENCE_OPS = frozenset({"SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceErase", "SequenceAt",
                          "SequenceLength", "ConcatFromSequence", "SplitToSequence", "SequenceMap", "Optional",
                          "OptionalHasElement", "OptionalGetElement"})  # fmt: skip


def _err(msg: str):
    return core.ImportError_(msg)


class NotATensor:
    """A sequence or an optional held by the importer.  A tensor operator
    that reads it as a tensor (its shape, type or SSA name) gets an error
    saying so, which the importer reports at the node."""

    what = "a value that is not a tensor"
    layout = "none"  # (never NHWC)

    def _refuse(self):
        raise _err(f"{self.what} is given where a tensor is expected")

    shape = property(lambda self: self._refuse())
    dtype = property(lambda self: self._refuse())
    name = property(lambda self: self._refuse())
    type = property(lambda self: self._refuse())


class Seq(NotATensor):
    """A sequence: its elements (``Value``s or constant arrays, in ONNX's
    layout) and their element type (None where nothing fixes it)."""

    what = "a sequence"

    def __init__(self, items: list, elem: np.dtype | None) -> None:
        self.items = list(items)
        self.elem = None if elem is None else np.dtype(elem)

    def __repr__(self) -> str:
        return f"Seq({len(self.items)} x {self.elem})"


class Opt(NotATensor):
    """An optional: ``item`` is None (empty), a tensor or a :class:`Seq`."""

    what = "an optional"

    def __init__(self, item: Any) -> None:
        self.item = item

    def __repr__(self) -> str:
        return f"Opt({self.item!r})"


# ---------------------------------------------------------------------------
# Graph inputs and outputs (used by tfrt.onnx.backend)


def _declared_elem(tp) -> int:
    """The element type a tensor TypeProto declares (0: none)."""
    return tp.tensor_type.elem_type if tp.HasField("tensor_type") else 0


def _tensor_feed(value: Any, tp, where: str):
    if isinstance(value, (list, tuple)) or value is None:
        raise ValueError(f"{where}: a tensor (array) is expected, got {type(value).__name__}")
    a = np.asarray(value)
    if a.dtype == object:
        raise ValueError(f"{where}: a tensor (array) is expected, got an object array")
    return ("tensor", tuple(a.shape), a.dtype.str), [a]


def _seq_feed(value: Any, tp, where: str):
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{where}: a sequence (a list of arrays) is expected, got {type(value).__name__}")
    items, arrays = [], []
    for k, v in enumerate(value):
        if isinstance(v, (list, tuple)) or v is None:
            raise ValueError(f"{where}: element {k}: an array is expected, got {type(v).__name__}")
        a = np.asarray(v)
        if a.dtype == object:
            raise ValueError(f"{where}: element {k}: an array is expected, got an object array")
        items.append((tuple(a.shape), a.dtype.str))
        arrays.append(a)
    return ("seq", tuple(items)), arrays


def feed(value: Any, tp, where: str) -> tuple[tuple, list[np.ndarray]]:
    """A graph input's value for its declared type ``tp`` (a TypeProto):
    ``(spec, arrays)``, the spec the importer compiles for (hashable: the
    backend keys its programs on it) and the arrays the program takes.  A
    sequence is a list of arrays; an optional is None, an array or a list
    (as its type says)."""
    what = tp.WhichOneof("value")
    if what == "sequence_type":
        return _seq_feed(value, tp.sequence_type.elem_type, where)
    if what == "optional_type":
        inner = tp.optional_type.elem_type
        if value is None:
            return ("opt", None), []
        sub = _seq_feed(value, inner.sequence_type.elem_type, where) if inner.HasField("sequence_type") \
            else _tensor_feed(value, inner, where)
        return ("opt", sub[0]), sub[1]
    return _tensor_feed(value, tp, where)


def regroup(layout: list, flat: list) -> list:
    """The graph's outputs from the program's flat results: arrays, lists
    of arrays (sequences), None (empty optionals)."""
    flat = list(flat)
    pos = 0

    def take(kind):
        nonlocal pos
        if kind == "tensor":
            pos += 1
            return flat[pos - 1]
        if kind[0] == "seq":
            pos += kind[1]
            return list(flat[pos - kind[1]:pos])
        return None if kind[1] is None else take(kind[1])

    out = [take(k) for k in layout]
    if pos != len(flat):
        raise RuntimeError(f"{len(flat)} results for {pos} output tensors")
    return out


# ---------------------------------------------------------------------------
# The operators


class OnnxOpsSeq:
    """Sequence and optional operators (mixed into ``Importer``)."""

    # Set by tfrt.onnx.backend: sequence and optional graph outputs are
    # returned flattened (output_layout says how); elsewhere they are refused.
    flatten_sequences = False

    # -- operands -------------------------------------------------------------
    def _sq_any(self, node, i: int):
        """Input ``i``: an array (constant), a ``Value``, a Seq or an Opt."""
        name = node.input[i]
        c = self.consts.get(name)
        return c if c is not None else self.value(name, node)

    def _sq_tensor_in(self, node, i: int, what: str = ""):
        x = self._sq_any(node, i)
        if isinstance(x, NotATensor):
            raise _err(f"{what or f'input {i}'} ('{node.input[i]}') is {x.what}: a tensor is expected")
        return x

    def _sq_seq_in(self, node, i: int) -> Seq:
        if len(node.input) <= i or not node.input[i]:
            raise _err(f"input {i} (a sequence) is missing")
        x = self._sq_any(node, i)
        if not isinstance(x, Seq):
            what = x.what if isinstance(x, NotATensor) else "a tensor"
            raise _err(f"input {i} ('{node.input[i]}') is {what}: a sequence is expected")
        return x

    @staticmethod
    def _sq_dt(x) -> np.dtype:
        return np.dtype(x.dtype)

    @staticmethod
    def _sq_shape(x) -> tuple[int, ...]:
        return tuple(np.shape(x)) if isinstance(x, np.ndarray) else tuple(x.shape)

    def _sq_position(self, node, i: int, n: int, what: str, upto: int) -> int | None:
        """Input ``i`` as a position in a sequence of ``n`` (None where it
        is absent): from -n to ``upto`` - 1, negative counting from the end."""
        p = self.static(node, i, what)
        if p is None:
            return None
        p = np.asarray(p)
        if p.size != 1 or p.dtype.kind not in "iu":
            raise _err(f"{what} must be one integer, got {p.dtype} of shape {p.shape}")
        k = int(p.reshape(()))
        if not -n <= k < upto:
            raise _err(f"{what} {k} is out of range for a sequence of {n} (from {-n} to {upto - 1})")
        return k + n if k < 0 else k

    def _sq_check_elem(self, seq: Seq, x, what: str) -> np.dtype:
        dt = self._sq_dt(x)
        if seq.elem is not None and dt != seq.elem:
            raise _err(f"{what} is {dt}, the sequence's elements are {seq.elem}")
        return dt

    # -- sequences ------------------------------------------------------------
    def op_SequenceConstruct(self, node, a):  # noqa: N802
        items = [self._sq_tensor_in(node, i) for i in range(len(node.input)) if node.input[i]]
        if not items:
            raise _err("no inputs (an empty sequence is SequenceEmpty)")
        types = {self._sq_dt(x) for x in items}
        if len(types) > 1:
            raise _err(f"its inputs differ in element type ({', '.join(sorted(str(t) for t in types))})")
        return [Seq(items, types.pop())]

    def op_SequenceEmpty(self, node, a):  # noqa: N802
        dt = self.dtype(self.np_type(a.get("dtype", 1), "attribute 'dtype'"))
        return [Seq([], dt)]

    def op_SequenceInsert(self, node, a):  # noqa: N802
        s = self._sq_seq_in(node, 0)
        t = self._sq_tensor_in(node, 1, "the tensor")
        dt = self._sq_check_elem(s, t, "the tensor")
        n = len(s.items)
        k = self._sq_position(node, 2, n, "the position", n + 1)
        items = list(s.items)
        items.insert(n if k is None else k, t)
        return [Seq(items, dt)]

    def op_SequenceErase(self, node, a):  # noqa: N802
        s = self._sq_seq_in(node, 0)
        n = len(s.items)
        if n == 0:
            raise _err("erasing from an empty sequence")
        k = self._sq_position(node, 1, n, "the position", n)
        items = list(s.items)
        del items[n - 1 if k is None else k]
        return [Seq(items, s.elem)]

    def op_SequenceAt(self, node, a):  # noqa: N802
        s = self._sq_seq_in(node, 0)
        n = len(s.items)
        if len(node.input) < 2 or not node.input[1]:
            raise _err("the position is missing")
        k = self._sq_position(node, 1, n, "the position", n)
        return [s.items[k]]

    def op_SequenceLength(self, node, a):  # noqa: N802
        return [np.array(len(self._sq_seq_in(node, 0).items), np.int64)]

    def op_ConcatFromSequence(self, node, a):  # noqa: N802
        s = self._sq_seq_in(node, 0)
        if "axis" not in a:
            raise _err("attribute 'axis' is required")
        new_axis = int(a.get("new_axis", 0))
        if not s.items:
            raise _err("the sequence is empty (the result's shape is unknown)")
        items = s.items
        shapes = [self._sq_shape(x) for x in items]
        rank = len(shapes[0])
        out_rank = rank + (1 if new_axis else 0)
        axis = int(a["axis"])
        if not -out_rank <= axis < out_rank or out_rank == 0:
            raise _err(f"axis {axis} is out of range for elements of rank {rank}" + (" (new_axis=1)" if new_axis else ""))
        axis %= out_rank
        types = {self._sq_dt(x) for x in items}
        if len(types) > 1:
            raise _err(f"its elements differ in element type ({', '.join(sorted(str(t) for t in types))})")
        for k, sh in enumerate(shapes):
            same = sh == shapes[0] if new_axis else (len(sh) == rank and all(d == e for j, (d, e) in enumerate(zip(sh, shapes[0])) if j != axis))
            if not same:
                raise _err(f"element {k} has shape {sh}, element 0 {shapes[0]}: they do not "
                           + ("stack" if new_axis else f"concatenate along axis {axis}"))  # fmt: skip
        if all(isinstance(x, np.ndarray) for x in items):
            return [np.stack(items, axis) if new_axis else np.concatenate(items, axis)]
        vals = [self._v(x) for x in items]
        if new_axis:
            vals = [self.em.reshape(v, tuple(v.shape[:axis]) + (1,) + tuple(v.shape[axis:])) for v in vals]
        return [self.concat(vals, axis)]

    def op_SplitToSequence(self, node, a):  # noqa: N802
        x = self._sq_tensor_in(node, 0, "the input")
        shape = self._sq_shape(x)
        if not shape:
            raise _err("the input is a scalar: there is no axis to split")
        axis = int(a.get("axis", 0))
        if not -len(shape) <= axis < len(shape):
            raise _err(f"axis {axis} is out of range for an input of rank {len(shape)}")
        axis %= len(shape)
        dim = shape[axis]
        split = self.static(node, 1, "split") if len(node.input) > 1 and node.input[1] else None
        squeeze = False
        if split is None:
            lengths = [1] * dim
            squeeze = not int(a.get("keepdims", 1))
        else:
            split = np.asarray(split)
            if split.dtype.kind not in "iu" or split.ndim > 1:
                raise _err(f"split must be an integer scalar or 1-D tensor, got {split.dtype} of shape {split.shape}")
            if split.ndim == 0:
                size = int(split)
                if size <= 0:
                    raise _err(f"split {size} must be positive")
                lengths = [size] * (dim // size) + ([dim % size] if dim % size else [])
            else:
                lengths = [int(v) for v in split]
                if any(v < 0 for v in lengths) or sum(lengths) != dim:
                    raise _err(f"split {lengths} does not add up to {dim}, the length of axis {axis}")
        items, start = [], 0
        for n in lengths:
            offs = [0] * len(shape)
            sizes = list(shape)
            offs[axis], sizes[axis] = start, n
            start += n
            if isinstance(x, np.ndarray):
                piece = x[tuple(slice(o, o + s) for o, s in zip(offs, sizes))]
                piece = np.ascontiguousarray(piece.reshape(piece.shape[:axis] + piece.shape[axis + 1:]) if squeeze else piece)
            else:
                piece = self.slice_(x, offs, sizes)
                if squeeze:
                    piece = self.em.reshape(piece, tuple(d for j, d in enumerate(piece.shape) if j != axis))
            items.append(piece)
        return [Seq(items, self._sq_dt(x))]

    def op_SequenceMap(self, node, a):  # noqa: N802
        body = a["body"]
        first = self._sq_seq_in(node, 0)
        n = len(first.items)
        ins = [first] + [self._sq_any(node, i) for i in range(1, len(node.input))]
        for i, x in enumerate(ins):
            if isinstance(x, Opt):
                raise _err(f"input {i} ('{node.input[i]}') is an optional: sequences and tensors are expected")
            if isinstance(x, Seq) and len(x.items) != n:
                raise _err(f"its input sequences differ in length ({n} and {len(x.items)})")
        if len(ins) != len(body.input):
            raise _err(f"its body takes {len(body.input)} inputs, the node gives {len(ins)}")
        per_out: list[list] = [[] for _ in body.output]
        for k in range(n):
            bound = [x.items[k] if isinstance(x, Seq) else x for x in ins]
            outs = self._run_body(node, body, bound, "seqmap")
            for j, y in enumerate(outs):
                if isinstance(y, NotATensor):
                    raise _err(f"its body's output {j} is {y.what}: only tensors are collected")
                per_out[j].append(y)
        results = []
        for j, o in enumerate(body.output):
            declared = _declared_elem(o.type)
            elem = self._sq_dt(per_out[j][0]) if per_out[j] else \
                (self.dtype(self.np_type(declared, f"its body's output '{o.name}'")) if declared else None)
            types = {self._sq_dt(y) for y in per_out[j]}
            if len(types) > 1:
                raise _err(f"its body's output '{o.name}' changes element type between elements")
            results.append(Seq(per_out[j], elem))
        return results

    # -- optionals ------------------------------------------------------------
    def op_Optional(self, node, a):  # noqa: N802
        if node.input and node.input[0]:
            return [Opt(self._sq_any(node, 0))]
        if "type" not in a:
            raise _err("an empty optional needs attribute 'type'")
        return [Opt(None)]

    def op_OptionalHasElement(self, node, a):  # noqa: N802
        if not node.input or not node.input[0]:
            return [np.array(False)]
        x = self._sq_any(node, 0)
        return [np.array(x.item is not None if isinstance(x, Opt) else True)]

    def op_OptionalGetElement(self, node, a):  # noqa: N802
        if not node.input or not node.input[0]:
            raise _err("its input is missing")
        x = self._sq_any(node, 0)
        if isinstance(x, Opt):
            if x.item is None:
                raise _err(f"the optional '{node.input[0]}' is empty: it has no element to get")
            return [x.item]
        return [x]

    # -- graph inputs and outputs ---------------------------------------------
    def _sq_elem_of(self, tp, spec_dtype: str, where: str) -> np.dtype:
        declared = _declared_elem(tp)
        if declared:
            return self.dtype(self.np_type(declared, where))
        dt = np.dtype(spec_dtype)
        core._elem(dt)
        return self.dtype(dt)

    def _sq_arg(self, tp, shape, spec_dtype: str, where: str, args: list):
        dt = self._sq_elem_of(tp, spec_dtype, where)
        if tp.HasField("tensor_type") and tp.tensor_type.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else None for d in tp.tensor_type.shape.dim]
            if len(dims) != len(shape) or any(d is not None and d != g for d, g in zip(dims, shape)):
                shown = tuple(d if d is not None else "?" for d in dims)
                raise _err(f"{where} has shape {tuple(shape)}, the model declares {shown}")
        v = core.Value(f"%arg{len(args)}", tuple(int(d) for d in shape), dt)
        args.append(v)
        return v

    def _sq_seq_arg(self, tp, spec, where: str, args: list) -> Seq:
        items = [self._sq_arg(tp, sh, dt, f"{where} element {k}", args) for k, (sh, dt) in enumerate(spec[1])]
        declared = _declared_elem(tp)
        elem = items[0].dtype if items else (self.dtype(self.np_type(declared, where)) if declared else None)
        return Seq(items, elem)

    def seq_graph_input(self, inp, args: list) -> None:
        """Binds a sequence or optional graph input to its elements, each a
        new argument of the function (appended to ``args``), as the spec in
        ``input_shapes`` says (see :func:`feed`)."""
        tp = inp.type
        what = tp.WhichOneof("value")
        kind = (what or "untyped").replace("_type", "")
        spec = (getattr(self, "input_shapes", None) or {}).get(inp.name)
        where = f"input '{inp.name}'"
        if what not in ("sequence_type", "optional_type"):
            raise _err(f"{where} is of {kind} type: only tensors, sequences and optionals are supported")
        if not (isinstance(spec, tuple) and spec and spec[0] in ("seq", "opt")):
            raise _err(f"{where} is of {kind} type: its length and element shapes must be known when the program "
                       f"is compiled (tfrt.onnx.backend takes a list for it)")  # fmt: skip
        if what == "sequence_type":
            if spec[0] != "seq":
                raise _err(f"{where} is a sequence: a list is expected")
            self.values[inp.name] = self._sq_seq_arg(tp.sequence_type.elem_type, spec, where, args)
            return
        inner = tp.optional_type.elem_type
        if spec[0] != "opt":
            raise _err(f"{where} is an optional: None, an array or a list is expected")
        sub = spec[1]
        if sub is None:
            self.values[inp.name] = Opt(None)
        elif inner.HasField("sequence_type"):
            if sub[0] != "seq":
                raise _err(f"{where} is an optional sequence: None or a list is expected")
            self.values[inp.name] = Opt(self._sq_seq_arg(inner.sequence_type.elem_type, sub, where, args))
        else:
            if sub[0] != "tensor":
                raise _err(f"{where} is an optional tensor: None or an array is expected")
            self.values[inp.name] = Opt(self._sq_arg(inner, sub[1], sub[2], where, args))

    def _sq_out_tensor(self, x, tp, where: str):
        """A sequence element or optional's tensor as a Value, checked
        against the type the model declares for it."""
        if isinstance(x, NotATensor):
            raise _err(f"{where} is {x.what}, the model declares a tensor")
        v = self._v(x)
        declared = _declared_elem(tp) if tp is not None else 0
        if declared:
            want = self.dtype(self.np_type(declared, where))
            if want != v.dtype:
                raise _err(f"{where} is computed as {v.dtype}, the model declares {want}")
        if tp is not None and tp.HasField("tensor_type") and tp.tensor_type.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else None for d in tp.tensor_type.shape.dim]
            if len(dims) != len(v.shape) or any(d is not None and d != g for d, g in zip(dims, v.shape)):
                shown = tuple(d if d is not None else "?" for d in dims)
                raise _err(f"{where} is computed with shape {v.shape}, the model declares {shown}")
        return self._sq_onnx_layout(v)

    def _sq_onnx_layout(self, v):
        """``v`` in ONNX's layout (a Value stored NHWC is transposed)."""
        if getattr(v, "layout", "nchw") == "nhwc":
            t = self.em.transpose(v, [0, 3, 1, 2])
            return core.Value(t.name, t.shape, t.dtype)
        return v

    def _sq_flat_seq(self, s, tp, where: str, results: list):
        if not isinstance(s, Seq):
            what = s.what if isinstance(s, NotATensor) else "a tensor"
            raise _err(f"{where} is {what}, the model declares a sequence")
        for k, x in enumerate(s.items):
            results.append(self._sq_out_tensor(x, tp, f"{where} element {k}"))
        return ("seq", len(s.items))

    def seq_graph_output(self, out, results: list) -> bool:
        """Handles a sequence or optional graph output (True): its tensors
        are appended to ``results`` and its shape recorded in
        ``output_layout``; a tensor output is left to the caller (False)."""
        if not hasattr(self, "output_layout"):
            self.output_layout = []
        what = out.type.WhichOneof("value")
        got = self.values.get(out.name)
        if what in (None, "tensor_type") and not isinstance(got, NotATensor):
            self.output_layout.append("tensor")
            return False
        where = f"graph output '{out.name}'"
        kind = (what or "untyped").replace("_type", "") if what not in (None, "tensor_type") else \
            got.what.split()[-1]
        if what == "tensor_type":
            raise _err(f"{where} is computed as {got.what}, the model declares a tensor")
        if what not in (None, "sequence_type", "optional_type"):
            raise _err(f"{where} is of {kind} type: only tensors, sequences and optionals are supported")
        if not self.flatten_sequences:
            raise _err(f"{where} is of {kind} type: only tfrt.onnx.backend returns sequences and optionals "
                       f"(as lists and None); a compiled program returns tensors")  # fmt: skip
        if got is None:
            if out.name in self.consts:
                raise _err(f"{where} is a tensor, the model declares a {kind}")
            raise _err(f"{where} is not produced by any node")
        if what == "sequence_type" or (what is None and isinstance(got, Seq)):
            tp = out.type.sequence_type.elem_type if what else None
            self.output_layout.append(self._sq_flat_seq(got, tp, where, results))
            return True
        if not isinstance(got, Opt):
            # An optional output may be given its value directly.
            got = Opt(got)
        inner = out.type.optional_type.elem_type if what else None
        if got.item is None:
            self.output_layout.append(("opt", None))
        elif isinstance(got.item, Seq) or (inner is not None and inner.HasField("sequence_type")):
            tp = inner.sequence_type.elem_type if inner is not None else None
            self.output_layout.append(("opt", self._sq_flat_seq(got.item, tp, where, results)))
        else:
            results.append(self._sq_out_tensor(got.item, inner, where))
            self.output_layout.append(("opt", "tensor"))
        return True
