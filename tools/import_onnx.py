"""``tfrt_import_onnx``: an ONNX model as high-level MLIR the compiler lowers.

    tfrt_import_onnx model.onnx -o model.mlir
    tfrt_import_onnx model.onnx --input-shape input=1,3,224,224 -o model.mlir
    tfrt_import_onnx model.onnx --float16 -o model16.mlir   # f16 throughout
    tfrt_compile model.onnx -o model.bef          # imports first

The graph becomes one function (``@main`` unless ``--function`` says
otherwise) of ``func``/``linalg``/``tensor``/``arith``/``math`` ops on static
shapes; convolution chains run NHWC inside.  Weights are
``dense_resource<name>`` constants whose bytes are in the
``{-# dialect_resources #-}`` section at the end of the text (MLIR's
resource blobs), which BEF stores as tensors that load without a copy.  At
import time, with numpy:

* shape computations (``Shape`` and whatever only depends on constants) are
  folded to constants;
* a ``BatchNormalization`` after a ``Conv`` (its only user) is folded into
  the convolution's weights and bias;
* weights are laid out for the kernels (depthwise filters, ``Gemm``
  transposes).

Operators: Add, AveragePool, BatchNormalization, Cast, Clip, Concat,
Constant, Conv, Div, Dropout, Erf, Exp, Flatten, Gather, Gelu, Gemm,
GlobalAveragePool, Identity, LayerNormalization, MatMul, MaxPool, Mul,
Neg, Pow, ReduceMean, Relu, Reshape, Shape, Sigmoid, Slice, Softmax, Sqrt,
Squeeze, Sub, Tanh, Transpose, Unsqueeze; other ops whose inputs are all
constants are evaluated.  Anything else is an error naming the node and its
operator.  Needs the ``onnx`` package (the ``onnx`` extra).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

PROG = "tfrt_import_onnx"


class ImportError_(Exception):  # noqa: N801 - not the builtin
    """A model the importer cannot translate (the message names the node)."""


# ---------------------------------------------------------------------------
# Types


_ELEMENT = {
    np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.float16): "f16",
    np.dtype(np.int64): "i64", np.dtype(np.int32): "i32", np.dtype(np.int8): "i8",
    np.dtype(np.bool_): "i1", np.dtype(np.uint8): "ui8",
}  # fmt: skip


def _float(v: float) -> str:
    """``v`` as an MLIR float literal: a digit before the exponent needs a
    point (``1.0e-05``; Python writes ``1e-05``, which MLIR reads as 1 then e)."""
    text = repr(float(v))
    mantissa, e, exponent = text.partition("e")
    if e and "." not in mantissa:
        text = f"{mantissa}.0e{exponent}"
    return text


def _elem(dtype) -> str:
    try:
        return _ELEMENT[np.dtype(dtype)]
    except KeyError:
        raise ImportError_(f"unsupported element type {np.dtype(dtype)}") from None


def _ttype(shape, dtype) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + _elem(dtype) + ">"


@dataclass
class Value:
    name: str  # SSA name
    shape: tuple[int, ...]  # of the tensor as stored
    dtype: np.dtype
    # "nhwc": a 4-D tensor ONNX sees as NCHW, stored transposed to NHWC (what
    # the convolution and pooling kernels take); converted back only where an
    # op needs the NCHW order.
    layout: str = "nchw"

    @property
    def type(self) -> str:
        return _ttype(self.shape, self.dtype)


# Characters a resource key may not hold (it is lexed as a bare word).
_RESOURCE_KEY = re.compile(r"[^A-Za-z0-9_.]+")


def _float_literal(v: float, dtype) -> str:
    if math.isinf(v):
        bits = {"f32": "0xFF800000", "f64": "0xFFF0000000000000", "f16": "0xFC00"}[_elem(dtype)]
        if v > 0:
            bits = {"f32": "0x7F800000", "f64": "0x7FF0000000000000", "f16": "0x7C00"}[_elem(dtype)]
        return bits
    return _float(float(np.asarray(v, dtype)))


# ---------------------------------------------------------------------------
# The emitter


class Emitter:
    """Writes the function body, one op at a time; each value once."""

    def __init__(self, resources: dict[str, np.ndarray] | None = None) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.const_cache: dict[tuple, Value] = {}
        self.maps: dict[str, str] = {}
        # resource key -> array, printed in the file's resource section
        # (shared by the functions of one module)
        self.resources: dict[str, np.ndarray] = {} if resources is None else resources
        self._keep: list[np.ndarray] = []

    def fresh(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append("  " + line)

    # -- constants ------------------------------------------------------------
    def constant(self, a: np.ndarray, key: str | None = None) -> Value:
        """``a`` as an ``arith.constant``: a literal when it is small or a splat,
        else ``dense_resource<key>`` with its bytes in the resource section
        (``key`` names it after the weight it came from)."""
        a = np.ascontiguousarray(a)
        ckey = (a.dtype.str, a.shape, a.tobytes()) if a.size <= 64 else (a.dtype.str, a.shape, id(a))
        hit = self.const_cache.get(ckey)
        if hit is not None:
            return hit
        name = self.fresh()
        if a.dtype == np.bool_:
            data = self._nested(a, lambda b: "true" if b else "false")
        elif a.size == 1 or (a.size > 1 and a.dtype.kind == "f" and np.all(a == a.ravel()[0])):
            v = a.ravel()[0]
            data = f"dense<{_float_literal(float(v), a.dtype) if a.dtype.kind == 'f' else int(v)}>"
        elif a.size <= 16 and (a.dtype.kind != "f" or np.all(np.isfinite(a))):
            data = self._nested(a, (lambda x: repr(float(x))) if a.dtype.kind == "f" else (lambda x: str(int(x))))
        else:
            data = f"dense_resource<{self.resource(a, key)}>"
        t = _ttype(a.shape, a.dtype)
        self.emit(f"{name} = arith.constant {data} : {t}")
        v = Value(name, tuple(a.shape), a.dtype)
        self.const_cache[ckey] = v
        if a.size > 64:
            self._keep.append(a)  # id() keys stay unique while the array lives
        return v

    def resource(self, a: np.ndarray, key: str | None) -> str:
        """A fresh resource key for ``a``'s bytes (MLIR's blob: a 4-byte
        alignment, then the little-endian elements)."""
        base = _RESOURCE_KEY.sub("_", key).strip("_") if key else ""
        base = base or "cst"
        if base[0].isdigit():
            base = "w" + base
        a = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<")))
        k, n = base, 0
        while k in self.resources:
            # Another function of the module may already hold these bytes.
            have = self.resources[k]
            if have.dtype == a.dtype and have.shape == a.shape and np.array_equal(have, a, equal_nan=a.dtype.kind in "fc"):
                return k
            n += 1
            k = f"{base}_{n}"
        self.resources[k] = a
        return k

    def resource_section(self) -> str:
        """The ``{-# dialect_resources #-}`` section of the resources used."""
        if not self.resources:
            return ""
        lines = ["", "{-#", "  dialect_resources: {", "    builtin: {"]
        items = list(self.resources.items())
        for i, (k, a) in enumerate(items):
            head = a.dtype.alignment.to_bytes(4, "little").hex().upper()
            sep = "," if i + 1 < len(items) else ""
            lines.append(f'      {k}: "0x{head}{a.tobytes().hex().upper()}"{sep}')
        lines += ["    }", "  }", "#-}", ""]
        return "\n".join(lines)

    @staticmethod
    def _nested(a: np.ndarray, fmt) -> str:
        def rec(x):
            if x.ndim == 0:
                return fmt(x.item())
            return "[" + ", ".join(rec(y) for y in x) + "]"

        return "dense<" + rec(a) + ">"

    def scalar(self, v: float, dtype) -> str:
        name = self.fresh()
        lit = _float_literal(v, dtype) if np.dtype(dtype).kind == "f" else str(int(v))
        self.emit(f"{name} = arith.constant {lit} : {_elem(dtype)}")
        return name

    # -- building blocks ------------------------------------------------------
    def empty(self, shape, dtype) -> str:
        name = self.fresh()
        self.emit(f"{name} = tensor.empty() : {_ttype(shape, dtype)}")
        return name

    def filled(self, shape, dtype, value: float) -> str:
        e = self.empty(shape, dtype)
        s = self.scalar(value, dtype)
        name = self.fresh()
        t = _ttype(shape, dtype)
        self.emit(f"{name} = linalg.fill ins({s} : {_elem(dtype)}) outs({e} : {t}) -> {t}")
        return name

    def collapse(self, v: Value, keep: list[int]) -> Value:
        """``v`` without its unit dimensions other than those in ``keep``."""
        shape = v.shape
        kept = [i for i in range(len(shape)) if i in keep]
        if len(kept) == len(shape):
            return v
        groups: list[list[int]] = []
        pending: list[int] = []
        for i in range(len(shape)):
            if i in keep:
                groups.append(pending + [i])
                pending = []
            else:
                pending.append(i)
        if pending:
            if groups:
                groups[-1].extend(pending)
        new_shape = tuple(shape[i] for i in kept)
        name = self.fresh()
        reassoc = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
        out = Value(name, new_shape, v.dtype)
        self.emit(f"{name} = tensor.collapse_shape {v.name} {reassoc} : {v.type} into {out.type}")
        return out

    def reshape(self, v: Value, shape: tuple[int, ...]) -> Value:
        shape = tuple(int(d) for d in shape)
        if shape == v.shape:
            return v
        s = self.constant(np.array(shape, np.int64))
        name = self.fresh()
        out = Value(name, shape, v.dtype)
        self.emit(f"{name} = tensor.reshape {v.name}({s.name}) : ({v.type}, {s.type}) -> {out.type}")
        return out

    def transpose(self, v: Value, perm) -> Value:
        perm = [int(p) for p in perm]
        if perm == list(range(len(perm))):
            return v
        shape = tuple(v.shape[p] for p in perm)
        e = self.empty(shape, v.dtype)
        name = self.fresh()
        out = Value(name, shape, v.dtype)
        self.emit(f"{name} = linalg.transpose ins({v.name} : {v.type}) outs({e} : {out.type}) "
                  f"permutation = [{', '.join(map(str, perm))}]")  # fmt: skip
        return out

    def elementwise(self, inputs: list[Value], out_shape, out_dtype, body: Callable[[list[str], str], list[str]]) -> Value:
        """A linalg.generic over ``out_shape``; inputs broadcast numpy-style.
        ``body(args, out_elem)`` returns the body's lines, the last value named ``%r``."""
        rank = len(out_shape)
        dims = [f"d{i}" for i in range(rank)]
        maps, operands = [], []
        for v in inputs:
            offset = rank - len(v.shape)
            keep = [i for i, d in enumerate(v.shape) if d == out_shape[offset + i]]
            if any(v.shape[i] != 1 and i not in keep for i in range(len(v.shape))):
                raise ImportError_(f"shapes {v.shape} and {tuple(out_shape)} do not broadcast")
            v = self.collapse(v, keep)
            maps.append(f"affine_map<({', '.join(dims)}) -> ({', '.join(dims[offset + i] for i in keep)})>")
            operands.append(v)
        maps.append(f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>")
        e = self.empty(out_shape, out_dtype)
        name = self.fresh()
        out = Value(name, tuple(out_shape), np.dtype(out_dtype))
        iters = ", ".join(['"parallel"'] * rank)
        ins = ", ".join(v.name for v in operands)
        ins_t = ", ".join(v.type for v in operands)
        args = [f"%a{i}" for i in range(len(operands))]
        block_args = ", ".join(f"{a}: {_elem(v.dtype)}" for a, v in zip(args, operands))
        self.emit(f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iters}]}} "
                  f"ins({ins} : {ins_t}) outs({e} : {out.type}) {{")  # fmt: skip
        self.emit(f"^bb0({block_args}{', ' if block_args else ''}%o: {_elem(out_dtype)}):")
        for line in body(args, _elem(out_dtype)):
            self.emit("  " + line)
        self.emit(f"  linalg.yield %r : {_elem(out_dtype)}")
        self.emit(f"}} -> {out.type}")
        return out

    def reduce(self, v: Value, axes, kind: str) -> Value:
        """Sum/max over ``axes`` (the reduced dimensions dropped)."""
        axes = sorted(int(a) % len(v.shape) for a in axes)
        shape = tuple(d for i, d in enumerate(v.shape) if i not in axes)
        init = {"sum": 0.0, "max": -math.inf}[kind]
        acc = self.filled(shape, v.dtype, init)
        name = self.fresh()
        out = Value(name, shape, v.dtype)
        op = {"sum": "arith.addf", "max": "arith.maximumf"}[kind]
        el = _elem(v.dtype)
        self.emit(f"{name} = linalg.reduce ins({v.name} : {v.type}) outs({acc} : {out.type}) "
                  f"dimensions = [{', '.join(map(str, axes))}]")  # fmt: skip
        self.emit(f"  (%in: {el}, %init: {el}) {{")
        self.emit(f"    %s = {op} %in, %init : {el}")
        self.emit(f"    linalg.yield %s : {el}")
        self.emit("  }")
        return out

    def expand(self, v: Value, axes, rank: int) -> Value:
        """``v`` with unit dimensions inserted at ``axes`` (of the result's ``rank``)."""
        shape = list(v.shape)
        for a in sorted(int(a) % rank for a in axes):
            shape.insert(a, 1)
        return self.reshape(v, tuple(shape))


# ---------------------------------------------------------------------------
# The importer


def _attrs(node) -> dict[str, Any]:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _bcast(*shapes) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError as exc:
        raise ImportError_(str(exc)) from None


class Importer:
    def __init__(
        self,
        model,
        function: str = "main",
        input_shapes: dict[str, tuple[int, ...]] | None = None,
        batch: int | None = None,
        resources: dict[str, np.ndarray] | None = None,
        float16: bool = False,
    ):
        import onnx
        from onnx import numpy_helper, shape_inference

        self.onnx = onnx
        self.float16 = float16
        graph = model.graph
        init_names = {t.name for t in graph.initializer}
        self.consts: dict[str, np.ndarray] = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        # Work on copies of the nodes and inputs: folding rewrites them, and the
        # caller's model stays as it was.
        self.nodes = []
        for node in graph.node:
            copy = onnx.NodeProto()
            copy.CopyFrom(node)
            self.nodes.append(copy)
        self.inputs = []
        for i in graph.input:
            if i.name not in init_names:
                copy = onnx.ValueInfoProto()
                copy.CopyFrom(i)
                self.inputs.append(copy)
        for inp in self.inputs:
            given = (input_shapes or {}).get(inp.name)
            dims = inp.type.tensor_type.shape.dim
            if batch is not None and given is None and dims and not (dims[0].HasField("dim_value") and dims[0].dim_value > 0):
                dims[0].ClearField("dim_param")
                dims[0].dim_value = int(batch)  # a dynamic leading dimension is the batch
            if given is not None:
                if len(given) != len(dims):
                    raise ImportError_(f"--input-shape {inp.name}: rank {len(given)}, the model's input has rank {len(dims)}")
                for d, g in zip(dims, given):
                    d.ClearField("dim_param")
                    d.dim_value = int(g)
        self.function = function
        self.model = model
        self.graph = graph
        self.em = Emitter(resources)
        self.values: dict[str, Value] = {}
        self.uses: dict[str, int] = {}
        for node in self.nodes:
            for name in node.input:
                self.uses[name] = self.uses.get(name, 0) + 1
        for out in graph.output:
            self.uses[out.name] = self.uses.get(out.name, 0) + 1
        del shape_inference  # shapes come from evaluation here, not from inference

    # -- values ---------------------------------------------------------------
    def value(self, name: str, node=None) -> Value:
        """The value in ONNX's own layout."""
        v = self.value_any(name, node)
        if v.layout == "nhwc":
            key = (name, "nchw")
            conv = self.values.get(key)
            if conv is None:
                conv = self.em.transpose(v, [0, 3, 1, 2])
                conv = Value(conv.name, conv.shape, conv.dtype)
                self.values[key] = conv
            return conv
        return v

    def value_nhwc(self, name: str, node=None) -> Value:
        """A 4-D value stored NHWC (transposed once if it is not)."""
        v = self.value_any(name, node)
        if v.layout == "nhwc" or len(v.shape) != 4:
            return v
        key = (name, "nhwc")
        conv = self.values.get(key)
        if conv is None:
            c = self.consts.get(name)
            if c is not None:
                t = self.em.constant(np.ascontiguousarray(c.transpose(0, 2, 3, 1)), name)
            else:
                t = self.em.transpose(v, [0, 2, 3, 1])
            conv = self.values[key] = Value(t.name, t.shape, t.dtype, "nhwc")
        return conv

    def value_any(self, name: str, node=None) -> Value:
        """The value as it is stored (NCHW or NHWC)."""
        v = self.values.get(name)
        if v is not None:
            return v
        c = self.consts.get(name)
        if c is not None:
            v = self.em.constant(c, name)
            self.values[name] = v
            return v
        where = f"node '{node.name}' ({node.op_type}): " if node is not None else ""
        raise ImportError_(f"{where}input '{name}' is not produced by any node")

    def const(self, name: str) -> np.ndarray | None:
        if not name:
            return None
        return self.consts.get(name)

    # -- driver ---------------------------------------------------------------
    def run(self) -> str:
        """The module: a comment, the function, the resource section."""
        return self.header() + self.run_function() + self.em.resource_section()

    def header(self) -> str:
        producer = self.model.producer_name or "onnx"
        opset = max((o.version for o in self.model.opset_import if o.domain in ("", "ai.onnx")), default=0)
        return f"// Imported from ONNX ({producer}, opset {opset}).\n"

    def run_function(self) -> str:
        """The ``func.func`` (its resources are added to the emitter's)."""
        onnx = self.onnx
        args = []
        for i, inp in enumerate(self.inputs):
            tt = inp.type.tensor_type
            dims = []
            for d in tt.shape.dim:
                if d.HasField("dim_value") and d.dim_value > 0:
                    dims.append(d.dim_value)
                else:
                    label = d.dim_param or "?"
                    raise ImportError_(
                        f"input '{inp.name}' has a dynamic dimension '{label}': give a static shape "
                        f"with --input-shape {inp.name}=D0,D1,..."
                    )
            dtype = self.dtype(onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type))
            v = Value(f"%arg{i}", tuple(dims), dtype)
            self.values[inp.name] = v
            args.append(v)
        self._fold_batch_norms()
        if self.float16:
            # Batch norms are folded in f32 first; then every f32 weight is f16.
            self.consts = {k: self.cast(v) for k, v in self.consts.items()}
        for node in self.nodes:
            self.node(node)
        results = []
        for out in self.graph.output:
            if out.name in self.values:
                results.append(self.value(out.name))
            elif out.name in self.consts:
                results.append(self.value(out.name))
            else:
                raise ImportError_(f"graph output '{out.name}' is not produced by any node")
        sig = ", ".join(f"{a.name}: {a.type}" for a in args)
        res_t = ", ".join(r.type for r in results)
        head = f"func.func @{self.function}({sig}) -> ({res_t}) {{"
        ret = f"  return {', '.join(r.name for r in results)} : {res_t}"
        return head + "\n" + "\n".join(self.em.lines) + "\n" + ret + "\n}\n"

    def _fold_batch_norms(self) -> None:
        """Conv -> BatchNormalization (the conv's only user) becomes one Conv."""
        producers = {}
        for node in self.nodes:
            for o in node.output:
                producers[o] = node
        for node in self.nodes:
            if node.op_type != "BatchNormalization" or len(node.input) < 5:
                continue
            conv = producers.get(node.input[0])
            if conv is None or conv.op_type != "Conv" or self.uses.get(node.input[0], 0) != 1:
                continue
            w = self.const(conv.input[1])
            params = [self.const(n) for n in node.input[1:5]]
            if w is None or any(p is None for p in params):
                continue
            scale, bias, mean, var = (p.astype(np.float64) for p in params)
            eps = _attrs(node).get("epsilon", 1e-5)
            s = scale / np.sqrt(var + eps)
            b = self.const(conv.input[2]) if len(conv.input) > 2 and conv.input[2] else np.zeros(w.shape[0])
            new_w = (w.astype(np.float64) * s[:, None, None, None]).astype(w.dtype)
            new_b = ((b.astype(np.float64) - mean) * s + bias).astype(w.dtype)
            wname, bname = f"{conv.input[1]}__bn_folded", f"{node.name or node.output[0]}__bn_bias"
            self.consts[wname], self.consts[bname] = new_w, new_b
            inputs = [conv.input[0], wname, bname]
            del conv.input[:]
            conv.input.extend(inputs)
            conv.output[0] = node.output[0]
            node.op_type = "Identity__folded"

    # -- nodes ----------------------------------------------------------------
    def node(self, node) -> None:
        op = node.op_type
        if op == "Identity__folded":
            return
        if op == "Constant":
            self.consts[node.output[0]] = self._constant_attr(node)
            return
        # Anything computed from constants only is computed now.
        ins = [n for n in node.input if n]
        if op in _FOLDABLE and all(n in self.consts for n in ins):
            try:
                outs = _FOLDABLE[op](node, [self.consts[n] for n in node.input if n], _attrs(node), self)
            except ImportError_:
                raise
            except Exception as exc:  # noqa: BLE001 - report at the node
                raise ImportError_(f"node '{node.name}' ({op}): cannot evaluate: {exc}") from None
            for name, val in zip(node.output, outs):
                self.consts[name] = np.asarray(val)
            return
        if op == "Shape":
            v = self.value(node.input[0], node)
            a = _attrs(node)
            shape = np.array(v.shape, np.int64)[a.get("start", 0): a.get("end", None)]
            self.consts[node.output[0]] = shape
            return
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            raise ImportError_(f"node '{node.name}' ({op}): unsupported operator")
        try:
            outs = handler(node, _attrs(node))
        except ImportError_ as exc:
            msg = str(exc)
            if not msg.startswith("node '"):
                msg = f"node '{node.name}' ({op}): {msg}"
            raise ImportError_(msg) from None
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            # A node the handler's assumptions do not hold for (a missing
            # attribute or input): reported at the node, not as a traceback.
            raise ImportError_(f"node '{node.name}' ({op}): cannot import: {type(exc).__name__}: {exc}") from None
        if isinstance(outs, Value):
            outs = [outs]
        for name, v in zip(node.output, outs):
            if name:
                self.values[name] = v

    def dtype(self, dtype) -> np.dtype:
        """``dtype`` as the model computes it: f32 is f16 with ``float16``."""
        dtype = np.dtype(dtype)
        return np.dtype(np.float16) if self.float16 and dtype == np.float32 else dtype

    def cast(self, a: np.ndarray) -> np.ndarray:
        """A constant as the model computes it (see :meth:`dtype`)."""
        dtype = self.dtype(a.dtype)
        return a if dtype == a.dtype else a.astype(dtype)

    def _constant_attr(self, node) -> np.ndarray:
        return self.cast(self._constant_value(node))

    def _constant_value(self, node) -> np.ndarray:
        from onnx import numpy_helper

        a = {x.name: x for x in node.attribute}
        if "value" in a:
            return numpy_helper.to_array(a["value"].t)
        for key, dt in (("value_float", np.float32), ("value_int", np.int64)):
            if key in a:
                return np.array(_attrs(node)[key], dt)
        for key, dt in (("value_floats", np.float32), ("value_ints", np.int64)):
            if key in a:
                return np.array(_attrs(node)[key], dt)
        raise ImportError_(f"node '{node.name}' (Constant): unsupported value attribute")

    # -- elementwise --------------------------------------------------------
    def _operands_in_one_layout(self, node) -> tuple[Value, Value, str]:
        """The two operands of a broadcasting op, both NHWC when that is cheap."""
        na, nb = node.input[0], node.input[1]
        a, b = self.value_any(na, node), self.value_any(nb, node)
        if a.layout == b.layout:
            return a, b, a.layout
        nhwc_name, other_name = (na, nb) if a.layout == "nhwc" else (nb, na)
        other = self.value_any(other_name, node)
        c = self.consts.get(other_name)
        if c is not None and c.ndim <= 4:
            c4 = c.reshape((1,) * (4 - c.ndim) + c.shape).transpose(0, 2, 3, 1)
            conv = Value(self.em.constant(np.ascontiguousarray(c4), other_name).name, c4.shape, c.dtype, "nhwc")
        elif len(other.shape) == 4:
            conv = self.value_nhwc(other_name, node)
        else:
            return self.value(na, node), self.value(nb, node), "nchw"
        nh = self.value_any(nhwc_name, node)
        return (nh, conv, "nhwc") if a.layout == "nhwc" else (conv, nh, "nhwc")

    def _binary(self, node, fop: str, iop: str | None = None):
        a, b, layout = self._operands_in_one_layout(node)
        if a.dtype != b.dtype:
            raise ImportError_(f"operand types {a.dtype} and {b.dtype} differ")
        shape = _bcast(a.shape, b.shape)
        kind = a.dtype.kind
        opname = fop if kind == "f" else iop
        if opname is None:
            raise ImportError_(f"unsupported element type {a.dtype}")
        out = self.em.elementwise([a, b], shape, a.dtype,
                                  lambda args, el: [f"%r = {opname} {args[0]}, {args[1]} : {el}"])  # fmt: skip
        out.layout = layout
        return out

    def op_Add(self, node, a):  # noqa: N802
        return self._binary(node, "arith.addf", "arith.addi")

    def op_Sub(self, node, a):  # noqa: N802
        return self._binary(node, "arith.subf", "arith.subi")

    def op_Mul(self, node, a):  # noqa: N802
        return self._binary(node, "arith.mulf", "arith.muli")

    def op_Div(self, node, a):  # noqa: N802
        return self._binary(node, "arith.divf", "arith.divsi")

    def op_Pow(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        e = self.const(node.input[1])
        if e is not None and e.size == 1 and float(e.ravel()[0]) == 2.0:
            return self.em.elementwise([x], x.shape, x.dtype, lambda args, el: [f"%r = arith.mulf {args[0]}, {args[0]} : {el}"])
        return self._binary(node, "math.powf")

    def _unary(self, node, lines):
        x = self.value_any(node.input[0], node)
        if x.dtype.kind != "f":
            raise ImportError_(f"expected a floating-point input, got {x.dtype}")
        out = self.em.elementwise([x], x.shape, x.dtype, lambda args, el: lines(args[0], el))
        out.layout = x.layout
        return out

    def op_Relu(self, node, a):  # noqa: N802
        return self._unary(node, lambda x, el: [f"%z = arith.constant 0.0 : {el}", f"%r = arith.maximumf {x}, %z : {el}"])

    def op_Sigmoid(self, node, a):  # noqa: N802
        return self._unary(node, lambda x, el: [
            f"%one = arith.constant 1.0 : {el}", f"%n = arith.negf {x} : {el}", f"%e = math.exp %n : {el}",
            f"%d = arith.addf %one, %e : {el}", f"%r = arith.divf %one, %d : {el}"])  # fmt: skip

    def op_Tanh(self, node, a):  # noqa: N802
        return self._unary(node, lambda x, el: [f"%r = math.tanh {x} : {el}"])

    def op_Exp(self, node, a):  # noqa: N802
        return self._unary(node, lambda x, el: [f"%r = math.exp {x} : {el}"])

    def op_Sqrt(self, node, a):  # noqa: N802
        return self._unary(node, lambda x, el: [f"%r = math.sqrt {x} : {el}"])

    def op_Erf(self, node, a):  # noqa: N802
        return self._unary(node, lambda x, el: [f"%r = math.erf {x} : {el}"])

    def op_Neg(self, node, a):  # noqa: N802
        return self._unary(node, lambda x, el: [f"%r = arith.negf {x} : {el}"])

    def op_Gelu(self, node, a):  # noqa: N802
        if a.get("approximate", b"none") not in (b"none", "none"):
            return self._unary(node, lambda x, el: [
                f"%c = arith.constant 0.7978845608028654 : {el}", f"%k = arith.constant 0.044715 : {el}",
                f"%h = arith.constant 0.5 : {el}", f"%one = arith.constant 1.0 : {el}",
                f"%x3 = arith.mulf {x}, {x} : {el}", f"%x3b = arith.mulf %x3, {x} : {el}",
                f"%t = arith.mulf %x3b, %k : {el}", f"%u = arith.addf {x}, %t : {el}",
                f"%v = arith.mulf %u, %c : {el}", f"%th = math.tanh %v : {el}",
                f"%p = arith.addf %one, %th : {el}", f"%q = arith.mulf {x}, %p : {el}",
                f"%r = arith.mulf %q, %h : {el}"])  # fmt: skip
        return self._unary(node, lambda x, el: [
            f"%s = arith.constant 0.7071067811865476 : {el}", f"%h = arith.constant 0.5 : {el}",
            f"%one = arith.constant 1.0 : {el}", f"%y = arith.mulf {x}, %s : {el}", f"%e = math.erf %y : {el}",
            f"%p = arith.addf %one, %e : {el}", f"%q = arith.mulf {x}, %p : {el}", f"%r = arith.mulf %q, %h : {el}"])  # fmt: skip

    def op_Clip(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        lo = self.const(node.input[1]) if len(node.input) > 1 else a.get("min")
        hi = self.const(node.input[2]) if len(node.input) > 2 else a.get("max")
        if (len(node.input) > 1 and node.input[1] and lo is None) or (len(node.input) > 2 and node.input[2] and hi is None):
            raise ImportError_("min and max must be constants")
        lines_lo = [] if lo is None else [f"%lo = arith.constant {_float_literal(float(np.asarray(lo)), x.dtype)} : {{el}}",
                                          "%m = arith.maximumf {x}, %lo : {el}"]  # fmt: skip
        lines_hi = [] if hi is None else [f"%hi = arith.constant {_float_literal(float(np.asarray(hi)), x.dtype)} : {{el}}"]

        def body(xn, el):
            out = [s.format(x=xn, el=el) for s in lines_lo]
            cur = "%m" if lo is not None else xn
            out += [s.format(el=el) for s in lines_hi]
            if hi is not None:
                out.append(f"%r = arith.minimumf {cur}, %hi : {el}")
            elif lo is not None:
                out.append(f"%r = arith.addf %m, %zero : {el}")
                out.insert(0, f"%zero = arith.constant 0.0 : {el}")
            else:
                out.append(f"%r = arith.addf {xn}, %zero : {el}")
                out.insert(0, f"%zero = arith.constant 0.0 : {el}")
            return out

        return self._unary(node, body)

    def op_Identity(self, node, a):  # noqa: N802
        return self.value(node.input[0], node)

    def op_Dropout(self, node, a):  # noqa: N802
        return self.value(node.input[0], node)

    def op_Cast(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        to = self.dtype(self.onnx.helper.tensor_dtype_to_np_dtype(a["to"]))
        if to == x.dtype:
            return x
        src, dst = x.dtype.kind, to.kind
        if src == "f" and dst == "f":
            op = "arith.extf" if to.itemsize > x.dtype.itemsize else "arith.truncf"
        elif src in "iu" and dst == "f":
            op = "arith.sitofp"
        elif src == "f" and dst in "iu":
            op = "arith.fptosi"
        elif src in "iu" and dst in "iu":
            op = "arith.extsi" if to.itemsize > x.dtype.itemsize else "arith.trunci"
        else:
            raise ImportError_(f"cast from {x.dtype} to {to}")
        return self.em.elementwise([x], x.shape, to,
                                   lambda args, el: [f"%r = {op} {args[0]} : {_elem(x.dtype)} to {el}"])  # fmt: skip

    # -- shapes ---------------------------------------------------------------
    def op_Reshape(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        shape = self.const(node.input[1])
        if shape is None:
            raise ImportError_("the shape must be a constant (or computed from shapes)")
        shape = [int(s) for s in shape]
        for i, s in enumerate(shape):
            if s == 0 and not a.get("allowzero", 0):
                shape[i] = x.shape[i]
        if -1 in shape:
            known = int(np.prod([s for s in shape if s != -1]))
            shape[shape.index(-1)] = int(np.prod(x.shape)) // max(known, 1)
        return self.em.reshape(x, tuple(shape))

    def op_Flatten(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axis = a.get("axis", 1) % (len(x.shape) or 1)
        return self.em.reshape(x, (int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))))

    def op_Squeeze(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axes = self.const(node.input[1]) if len(node.input) > 1 else a.get("axes")
        axes = [int(i) % len(x.shape) for i in (axes if axes is not None else [i for i, d in enumerate(x.shape) if d == 1])]
        return self.em.reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))

    def op_Unsqueeze(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axes = self.const(node.input[1]) if len(node.input) > 1 else a.get("axes")
        return self.em.expand(x, list(axes), len(x.shape) + len(axes))

    def op_Transpose(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        perm = a.get("perm", list(reversed(range(len(x.shape)))))
        return self.em.transpose(x, perm)

    def op_Concat(self, node, a):  # noqa: N802
        vals = [self.value(n, node) for n in node.input if n]
        axis = a["axis"] % len(vals[0].shape)
        shape = list(vals[0].shape)
        shape[axis] = sum(v.shape[axis] for v in vals)
        name = self.em.fresh()
        out = Value(name, tuple(shape), vals[0].dtype)
        self.em.emit(f"{name} = tensor.concat dim({axis}) {', '.join(v.name for v in vals)} : "
                     f"({', '.join(v.type for v in vals)}) -> {out.type}")  # fmt: skip
        return out

    def op_Slice(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        starts, ends = self.const(node.input[1]), self.const(node.input[2])
        axes = self.const(node.input[3]) if len(node.input) > 3 and node.input[3] else np.arange(len(starts))
        steps = self.const(node.input[4]) if len(node.input) > 4 and node.input[4] else np.ones(len(starts), np.int64)
        if starts is None or ends is None or axes is None or steps is None:
            raise ImportError_("starts, ends, axes and steps must be constants")
        offs, sizes, strides = [0] * len(x.shape), list(x.shape), [1] * len(x.shape)
        for s, e, ax, st in zip(starts, ends, axes, steps):
            ax = int(ax) % len(x.shape)
            rng = range(*slice(int(s), int(e), int(st)).indices(x.shape[ax]))
            if int(st) <= 0:
                raise ImportError_("only positive steps are supported")
            offs[ax], sizes[ax], strides[ax] = rng.start, len(rng), int(st)
        name = self.em.fresh()
        out = Value(name, tuple(sizes), x.dtype)
        self.em.emit(f"{name} = tensor.extract_slice {x.name}[{', '.join(map(str, offs))}] "
                     f"[{', '.join(map(str, sizes))}] [{', '.join(map(str, strides))}] : {x.type} to {out.type}")  # fmt: skip
        return out

    def op_Gather(self, node, a):  # noqa: N802
        data = self.value(node.input[0], node)
        idx = self.const(node.input[1])
        axis = a.get("axis", 0) % len(data.shape)
        if idx is not None:
            idx = np.where(idx < 0, idx + data.shape[axis], idx)
            # constant indices: a slice per index, concatenated (rare outside embeddings)
            if idx.ndim == 0:
                name = self.em.fresh()
                offs = [0] * len(data.shape)
                offs[axis] = int(idx)
                sizes = list(data.shape)
                sizes[axis] = 1
                sl = Value(name, tuple(sizes), data.dtype)
                self.em.emit(f"{name} = tensor.extract_slice {data.name}[{', '.join(map(str, offs))}] "
                             f"[{', '.join(map(str, sizes))}] [{', '.join(['1'] * len(sizes))}] : {data.type} to {sl.type}")
                return self.em.reshape(sl, tuple(d for i, d in enumerate(data.shape) if i != axis))
            idx_v = self.em.constant(idx.astype(np.int64))
        else:
            idx_v = self.value(node.input[1], node)
        if axis != 0:
            raise ImportError_("Gather with data-dependent indices is supported on axis 0")
        # out[i..., j...] = data[idx[i...], j...]: a generic whose body reads the table.
        out_shape = idx_v.shape + data.shape[1:]
        r, k = len(out_shape), len(idx_v.shape)
        dims = [f"d{i}" for i in range(r)]
        e = self.em.empty(out_shape, data.dtype)
        name = self.em.fresh()
        out = Value(name, out_shape, data.dtype)
        el = _elem(data.dtype)
        iel = _elem(idx_v.dtype)
        iters = ", ".join(['"parallel"'] * r)
        self.em.emit(f"{name} = linalg.generic {{indexing_maps = [affine_map<({', '.join(dims)}) -> ({', '.join(dims[:k])})>, "
                     f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>], iterator_types = [{iters}]}} "
                     f"ins({idx_v.name} : {idx_v.type}) outs({e} : {out.type}) {{")  # fmt: skip
        self.em.emit(f"^bb0(%i: {iel}, %o: {el}):")
        self.em.emit(f"  %ix = arith.index_cast %i : {iel} to index")
        rest = []
        for j in range(k, r):
            self.em.emit(f"  %j{j} = linalg.index {j} : index")
            rest.append(f"%j{j}")
        self.em.emit(f"  %r = tensor.extract {data.name}[{', '.join(['%ix', *rest])}] : {data.type}")
        self.em.emit(f"  linalg.yield %r : {el}")
        self.em.emit(f"}} -> {out.type}")
        return out

    # -- linear algebra -------------------------------------------------------
    def _matmul2d(self, x: Value, w: Value) -> Value:
        shape = (x.shape[0], w.shape[1])
        acc = self.em.filled(shape, x.dtype, 0.0)
        name = self.em.fresh()
        out = Value(name, shape, x.dtype)
        self.em.emit(f"{name} = linalg.matmul ins({x.name}, {w.name} : {x.type}, {w.type}) outs({acc} : {out.type}) -> {out.type}")
        return out

    def op_MatMul(self, node, a):  # noqa: N802
        x, w = self.value(node.input[0], node), self.value(node.input[1], node)
        if len(x.shape) < 2 or len(w.shape) < 1:
            raise ImportError_("vector operands are not supported")
        if len(w.shape) == 2:
            lead = x.shape[:-1]
            x2 = self.em.reshape(x, (int(np.prod(lead)), x.shape[-1]))
            return self.em.reshape(self._matmul2d(x2, w), (*lead, w.shape[1]))
        batch = _bcast(x.shape[:-2], w.shape[:-2])
        if x.shape[:-2] != batch or w.shape[:-2] != batch:
            raise ImportError_("broadcast batch dimensions are not supported")
        b = int(np.prod(batch))
        x3 = self.em.reshape(x, (b, *x.shape[-2:]))
        w3 = self.em.reshape(w, (b, *w.shape[-2:]))
        shape = (b, x.shape[-2], w.shape[-1])
        acc = self.em.filled(shape, x.dtype, 0.0)
        name = self.em.fresh()
        out = Value(name, shape, x.dtype)
        self.em.emit(f"{name} = linalg.batch_matmul ins({x3.name}, {w3.name} : {x3.type}, {w3.type}) "
                     f"outs({acc} : {out.type}) -> {out.type}")  # fmt: skip
        return self.em.reshape(out, (*batch, x.shape[-2], w.shape[-1]))

    def op_Gemm(self, node, a):  # noqa: N802
        alpha, beta = float(a.get("alpha", 1.0)), float(a.get("beta", 1.0))
        wa, wb = self.const(node.input[0]), self.const(node.input[1])
        if a.get("transA", 0):
            x = self.em.constant(wa.T, node.input[0]) if wa is not None else self.em.transpose(self.value(node.input[0], node), [1, 0])
        else:
            x = self.value(node.input[0], node)
        if wb is not None:
            bw = wb.T if a.get("transB", 0) else wb
            if alpha != 1.0:
                bw, alpha = (bw * alpha).astype(bw.dtype), 1.0
            w = self.em.constant(np.ascontiguousarray(bw), node.input[1])
        else:
            w = self.value(node.input[1], node)
            if a.get("transB", 0):
                w = self.em.transpose(w, [1, 0])
        y = self._matmul2d(x, w)
        if alpha != 1.0:
            y = self.em.elementwise([y], y.shape, y.dtype, lambda args, el: [
                f"%s = arith.constant {_float(alpha)} : {el}", f"%r = arith.mulf {args[0]}, %s : {el}"])  # fmt: skip
        if len(node.input) > 2 and node.input[2]:
            c = self.const(node.input[2])
            cv = self.em.constant((c * beta).astype(c.dtype), node.input[2]) if c is not None else self.value(node.input[2], node)
            y = self.em.elementwise([y, cv], y.shape, y.dtype, lambda args, el: [f"%r = arith.addf {args[0]}, {args[1]} : {el}"])
        return y

    def _pad(self, x: Value, pads_hw: tuple[int, int, int, int], value: float, nhwc: bool = False) -> Value:
        top, left, bottom, right = pads_hw
        if not (top or left or bottom or right):
            return x
        lo = [0, 0, top, left] if not nhwc else [0, top, left, 0]
        hi = [0, 0, bottom, right] if not nhwc else [0, bottom, right, 0]
        shape = tuple(d + l + h for d, l, h in zip(x.shape, lo, hi))
        name = self.em.fresh()
        out = Value(name, shape, x.dtype)
        el = _elem(x.dtype)
        self.em.emit(f"{name} = tensor.pad {x.name} low[{', '.join(map(str, lo))}] high[{', '.join(map(str, hi))}] {{")
        self.em.emit("^bb0(" + ", ".join(f"%p{i}: index" for i in range(4)) + "):")
        self.em.emit(f"  %pv = arith.constant {_float_literal(value, x.dtype)} : {el}")
        self.em.emit(f"  tensor.yield %pv : {el}")
        self.em.emit(f"}} : {x.type} to {out.type}")
        return out

    @staticmethod
    def _window(a, x_hw, k_hw, dil=(1, 1)):
        strides = tuple(a.get("strides", [1, 1]))
        pads = list(a.get("pads", [0, 0, 0, 0]))
        auto = a.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            pads = [0, 0, 0, 0]
            for i in range(2):
                out = -(-x_hw[i] // strides[i])
                total = max(0, (out - 1) * strides[i] + (k_hw[i] - 1) * dil[i] + 1 - x_hw[i])
                small, big = total // 2, total - total // 2
                pads[i], pads[i + 2] = (small, big) if auto == "SAME_UPPER" else (big, small)
        elif auto == "VALID":
            pads = [0, 0, 0, 0]
        return strides, (pads[0], pads[1], pads[2], pads[3])

    def _logical(self, name: str, node) -> Value:
        """The value as stored, with the shape ONNX sees (NCHW)."""
        v = self.value_any(name, node)
        if v.layout == "nhwc":
            n, h, w, c = v.shape
            return Value(v.name, (n, c, h, w), v.dtype, "nhwc")
        return v

    def op_Conv(self, node, a):  # noqa: N802
        x = self._logical(node.input[0], node)
        w = self.const(node.input[1])
        if w is None:
            raise ImportError_("the weights must be constants")
        if len(x.shape) != 4:
            raise ImportError_(f"only 2-D convolutions are supported (input of rank {len(x.shape)})")
        group = a.get("group", 1)
        dil = tuple(a.get("dilations", [1, 1]))
        strides, (pt, pl, pb, pr) = self._window(a, x.shape[2:], w.shape[2:], dil)
        f, cg, kh, kw = w.shape
        n, c, h, wd = x.shape
        oh = (h + pt + pb - dil[0] * (kh - 1) - 1) // strides[0] + 1
        ow = (wd + pl + pr - dil[1] * (kw - 1) - 1) // strides[1] + 1
        attrs = (f"{{dilations = dense<[{dil[0]}, {dil[1]}]> : tensor<2xi64>, "
                 f"strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}}")  # fmt: skip
        # Convolutions run NHWC x HWCF: the input is transposed once (or not at
        # all when it comes from another convolution), the filter at import.
        xh = self.value_nhwc(node.input[0], node)
        xp = self._pad(xh, (pt, pl, pb, pr), 0.0, nhwc=True)
        shape = (n, oh, ow, f)
        acc = self.em.filled(shape, x.dtype, 0.0)
        name = self.em.fresh()
        y = Value(name, shape, x.dtype, "nhwc")
        if group == 1:
            wv = self.em.constant(np.ascontiguousarray(w.transpose(2, 3, 1, 0)), node.input[1])  # (kh, kw, c, f)
            self.em.emit(f"{name} = linalg.conv_2d_nhwc_hwcf {attrs} ins({xp.name}, {wv.name} : {xp.type}, {wv.type}) "
                         f"outs({acc} : {y.type}) -> {y.type}")  # fmt: skip
        elif group == c and cg == 1 and f == c:
            wv = self.em.constant(np.ascontiguousarray(w[:, 0].transpose(1, 2, 0)), node.input[1])  # (kh, kw, c)
            self.em.emit(f"{name} = linalg.depthwise_conv_2d_nhwc_hwc {attrs} ins({xp.name}, {wv.name} : {xp.type}, {wv.type}) "
                         f"outs({acc} : {y.type}) -> {y.type}")  # fmt: skip
        else:
            raise ImportError_(f"grouped convolution with group={group} (only 1 and depthwise are supported)")
        if len(node.input) > 2 and node.input[2]:
            b = self.const(node.input[2])
            bv = self.em.constant(b, node.input[2]) if b is not None else self.value(node.input[2], node)
            y = self.em.elementwise([y, bv], y.shape, y.dtype, lambda args, el: [f"%r = arith.addf {args[0]}, {args[1]} : {el}"])
            y.layout = "nhwc"
        return y

    def op_BatchNormalization(self, node, a):  # noqa: N802
        x = self.value_any(node.input[0], node)
        params = [self.const(n) for n in node.input[1:5]]
        if any(p is None for p in params):
            raise ImportError_("scale, bias, mean and variance must be constants")
        scale, bias, mean, var = (p.astype(np.float64) for p in params)
        s = scale / np.sqrt(var + a.get("epsilon", 1e-5))
        shift = bias - mean * s
        extra = () if x.layout == "nhwc" else (1,) * (len(x.shape) - 2)
        sv = self.em.constant(s.astype(x.dtype).reshape(-1, *extra), node.input[1])
        bv = self.em.constant(shift.astype(x.dtype).reshape(-1, *extra), node.input[2])
        out = self.em.elementwise([x, sv, bv], x.shape, x.dtype, lambda args, el: [
            f"%m = arith.mulf {args[0]}, {args[1]} : {el}", f"%r = arith.addf %m, {args[2]} : {el}"])  # fmt: skip
        out.layout = x.layout
        return out

    def _pool(self, node, a, kind: str):
        x = self._logical(node.input[0], node)
        k = tuple(a["kernel_shape"])
        if a.get("ceil_mode", 0):
            raise ImportError_("ceil_mode=1 is not supported")
        dil = tuple(a.get("dilations", [1, 1]))
        strides, (pt, pl, pb, pr) = self._window(a, x.shape[2:], k, dil)
        n, c, h, w = x.shape
        oh = (h + pt + pb - dil[0] * (k[0] - 1) - 1) // strides[0] + 1
        ow = (w + pl + pr - dil[1] * (k[1] - 1) - 1) // strides[1] + 1
        attrs = (f"{{dilations = dense<[{dil[0]}, {dil[1]}]> : tensor<2xi64>, "
                 f"strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}}")  # fmt: skip
        window = self.em.empty(k, x.dtype)
        xh = self.value_nhwc(node.input[0], node)
        pad_value = -math.inf if kind == "max" else 0.0
        xp = self._pad(xh, (pt, pl, pb, pr), pad_value, nhwc=True)
        shape = (n, oh, ow, c)
        acc = self.em.filled(shape, x.dtype, pad_value)
        name = self.em.fresh()
        yh = Value(name, shape, x.dtype)
        wt = _ttype(k, x.dtype)
        self.em.emit(f"{name} = linalg.pooling_nhwc_{kind} {attrs} ins({xp.name}, {window} : {xp.type}, {wt}) "
                     f"outs({acc} : {yh.type}) -> {yh.type}")  # fmt: skip
        if kind == "sum":
            if a.get("count_include_pad", 0) or not (pt or pl or pb or pr):
                count = np.full((oh, ow, 1), k[0] * k[1], np.float64)
            else:
                ones = np.pad(np.ones((h, w)), ((pt, pb), (pl, pr)))
                win = np.lib.stride_tricks.sliding_window_view(ones, (dil[0] * (k[0] - 1) + 1, dil[1] * (k[1] - 1) + 1))
                win = win[:: strides[0], :: strides[1], :: dil[0], :: dil[1]][:oh, :ow]
                count = win.sum(axis=(2, 3))[:, :, None]
            inv = self.em.constant((1.0 / count).astype(x.dtype))
            yh = self.em.elementwise([yh, inv], yh.shape, yh.dtype, lambda args, el: [f"%r = arith.mulf {args[0]}, {args[1]} : {el}"])
        yh.layout = "nhwc"
        return yh

    def op_MaxPool(self, node, a):  # noqa: N802
        if len(node.output) > 1 and node.output[1]:
            raise ImportError_("the Indices output is not supported")
        return self._pool(node, a, "max")

    def op_AveragePool(self, node, a):  # noqa: N802
        return self._pool(node, a, "sum")

    def _widened(self, x: Value) -> Value:
        """``x`` in f32 where it is f16 (sums and variances are taken in f32,
        as onnxruntime takes them); ``x`` itself otherwise."""
        if x.dtype != np.float16:
            return x
        return self.em.elementwise([x], x.shape, np.dtype(np.float32),
                                   lambda args, el: [f"%r = arith.extf {args[0]} : f16 to f32"])  # fmt: skip

    def _mean(self, x: Value, axes) -> Value:
        """The mean over ``axes`` (dropped), in ``x``'s type.  f16 sums in f32
        and rounds once: a sum of f16 values overflows (to inf, then NaN) long
        before their mean does."""
        count = float(np.prod([x.shape[i] for i in axes]))
        s = self.em.reduce(self._widened(x), axes, "sum")
        w = _elem(s.dtype)

        def body(args, el):
            lines = [f"%c = arith.constant {_float(1.0 / count)} : {w}", f"%r = arith.mulf {args[0]}, %c : {w}"]
            if w != el:
                lines[-1] = lines[-1].replace("%r =", "%m =", 1)
                lines.append(f"%r = arith.truncf %m : {w} to {el}")
            return lines

        return self.em.elementwise([s], s.shape, x.dtype, body)

    def op_GlobalAveragePool(self, node, a):  # noqa: N802
        x = self.value_any(node.input[0], node)
        if x.layout == "nhwc":
            m = self._mean(x, [1, 2])
            out = self.em.reshape(m, (x.shape[0], 1, 1, x.shape[3]))
            return Value(out.name, out.shape, out.dtype, "nhwc")
        axes = list(range(2, len(x.shape)))
        return self.em.expand(self._mean(x, axes), axes, len(x.shape))

    def op_ReduceMean(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axes = self.const(node.input[1]) if len(node.input) > 1 and node.input[1] else a.get("axes")
        axes = [int(i) % len(x.shape) for i in (axes if axes is not None else range(len(x.shape)))]
        m = self._mean(x, axes)
        return self.em.expand(m, axes, len(x.shape)) if a.get("keepdims", 1) else m

    def op_Softmax(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        axis = a.get("axis", -1) % len(x.shape)
        mx = self.em.expand(self.em.reduce(x, [axis], "max"), [axis], len(x.shape))
        ex = self.em.elementwise([x, mx], x.shape, x.dtype, lambda args, el: [
            f"%d = arith.subf {args[0]}, {args[1]} : {el}", f"%r = math.exp %d : {el}"])  # fmt: skip
        sm = self.em.expand(self.em.reduce(ex, [axis], "sum"), [axis], len(x.shape))
        return self.em.elementwise([ex, sm], x.shape, x.dtype, lambda args, el: [f"%r = arith.divf {args[0]}, {args[1]} : {el}"])

    def op_LayerNormalization(self, node, a):  # noqa: N802
        """f16 normalizes in f32 and rounds once, before scale and bias, as
        onnxruntime does: in f16 a square (x - mean)^2 past 65,504 makes the
        variance infinite, and a small epsilon (BERT's 1e-12) rounds to 0."""
        x = self.value(node.input[0], node)
        axis = a.get("axis", -1) % len(x.shape)
        eps = float(a.get("epsilon", 1e-5))
        axes = list(range(axis, len(x.shape)))
        xw = self._widened(x)
        wide, w = xw.dtype, _elem(xw.dtype)
        mean = self.em.expand(self._mean(xw, axes), axes, len(x.shape))
        cen = self.em.elementwise([xw, mean], x.shape, wide, lambda args, el: [
            f"%r = arith.subf {args[0]}, {args[1]} : {el}"])  # fmt: skip
        sq = self.em.elementwise([cen], x.shape, wide, lambda args, el: [f"%r = arith.mulf {args[0]}, {args[0]} : {el}"])
        var = self.em.expand(self._mean(sq, axes), axes, len(x.shape))
        ins = [cen, var]
        scale = self.value(node.input[1], node) if len(node.input) > 1 and node.input[1] else None
        bias = self.value(node.input[2], node) if len(node.input) > 2 and node.input[2] else None
        ins += [v for v in (scale, bias) if v is not None]

        def body(args, el):
            lines = [f"%e = arith.constant {_float(eps)} : {w}", f"%ve = arith.addf {args[1]}, %e : {w}",
                     f"%s = math.rsqrt %ve : {w}", f"%n = arith.mulf {args[0]}, %s : {w}"]  # fmt: skip
            cur = "%n"
            if w != el:
                lines.append(f"%nt = arith.truncf %n : {w} to {el}")
                cur = "%nt"
            if scale is not None:
                lines.append(f"%g = arith.mulf {cur}, {args[2]} : {el}")
                cur = "%g"
            if bias is not None:
                lines.append(f"%r = arith.addf {cur}, {args[3 if scale is not None else 2]} : {el}")
            else:
                lines.append(f"%r = arith.addf {cur}, %z : {el}")
                lines.insert(0, f"%z = arith.constant 0.0 : {el}")
            return lines

        return self.em.elementwise(ins, x.shape, x.dtype, body)


# Ops evaluated with numpy when all their inputs are constants.
def _np_reshape(node, ins, a, imp):
    shape = [int(s) for s in ins[1]]
    for i, s in enumerate(shape):
        if s == 0 and not a.get("allowzero", 0):
            shape[i] = ins[0].shape[i]
    return [ins[0].reshape(shape)]


def _np_gather(node, ins, a, imp):
    return [np.take(ins[0], ins[1], axis=a.get("axis", 0))]


def _np_unsqueeze(node, ins, a, imp):
    axes = ins[1] if len(ins) > 1 else a["axes"]
    out = ins[0]
    for ax in sorted(int(x) % (out.ndim + len(axes)) for x in axes):
        out = np.expand_dims(out, ax)
    return [out]


def _np_squeeze(node, ins, a, imp):
    axes = ins[1] if len(ins) > 1 else a.get("axes")
    return [np.squeeze(ins[0], axis=None if axes is None else tuple(int(x) for x in axes))]


def _np_slice(node, ins, a, imp):
    data, starts, ends = ins[0], ins[1], ins[2]
    axes = ins[3] if len(ins) > 3 else range(len(starts))
    steps = ins[4] if len(ins) > 4 else [1] * len(starts)
    sl = [slice(None)] * data.ndim
    for s, e, ax, st in zip(starts, ends, axes, steps):
        sl[int(ax)] = slice(int(s), int(e), int(st))
    return [data[tuple(sl)]]


def _np_cast(node, ins, a, imp):
    return [ins[0].astype(imp.dtype(imp.onnx.helper.tensor_dtype_to_np_dtype(a["to"])))]


def _np_cos(node, ins, a, imp):
    value = a.get("value")
    if value is None:
        return [np.zeros([int(d) for d in ins[0]], imp.dtype(np.float32))]
    from onnx import numpy_helper

    v = imp.cast(numpy_helper.to_array(value))
    return [np.full([int(d) for d in ins[0]], v.ravel()[0], v.dtype)]


_FOLDABLE: dict[str, Callable] = {
    "Reshape": _np_reshape,
    "Gather": _np_gather,
    "Unsqueeze": _np_unsqueeze,
    "Squeeze": _np_squeeze,
    "Slice": _np_slice,
    "Cast": _np_cast,
    "ConstantOfShape": _np_cos,
    "Concat": lambda n, ins, a, imp: [np.concatenate(ins, axis=a["axis"])],
    "Add": lambda n, ins, a, imp: [ins[0] + ins[1]],
    "Sub": lambda n, ins, a, imp: [ins[0] - ins[1]],
    "Mul": lambda n, ins, a, imp: [ins[0] * ins[1]],
    "Div": lambda n, ins, a, imp: [ins[0] // ins[1] if ins[0].dtype.kind in "iu" else ins[0] / ins[1]],
    "Sqrt": lambda n, ins, a, imp: [np.sqrt(ins[0])],
    "Neg": lambda n, ins, a, imp: [-ins[0]],
    "Transpose": lambda n, ins, a, imp: [np.transpose(ins[0], a.get("perm"))],
    "Identity": lambda n, ins, a, imp: [ins[0]],
    "Range": lambda n, ins, a, imp: [np.arange(ins[0], ins[1], ins[2]).astype(ins[0].dtype)],
    "Equal": lambda n, ins, a, imp: [ins[0] == ins[1]],
    "Where": lambda n, ins, a, imp: [np.where(ins[0], ins[1], ins[2])],
    "Expand": lambda n, ins, a, imp: [ins[0] * np.ones([int(d) for d in ins[1]], ins[0].dtype)],
    "Mod": lambda n, ins, a, imp: [np.fmod(ins[0], ins[1]) if a.get("fmod", 0) else np.mod(ins[0], ins[1])],
    "Min": lambda n, ins, a, imp: [np.minimum.reduce(np.broadcast_arrays(*ins))],
    "Max": lambda n, ins, a, imp: [np.maximum.reduce(np.broadcast_arrays(*ins))],
    "Abs": lambda n, ins, a, imp: [np.abs(ins[0])],
    "Floor": lambda n, ins, a, imp: [np.floor(ins[0])],
    "Ceil": lambda n, ins, a, imp: [np.ceil(ins[0])],
    "Pow": lambda n, ins, a, imp: [np.power(ins[0], ins[1]).astype(ins[0].dtype)],
    "Less": lambda n, ins, a, imp: [ins[0] < ins[1]],
    "Greater": lambda n, ins, a, imp: [ins[0] > ins[1]],
    "LessOrEqual": lambda n, ins, a, imp: [ins[0] <= ins[1]],
    "GreaterOrEqual": lambda n, ins, a, imp: [ins[0] >= ins[1]],
    "Not": lambda n, ins, a, imp: [np.logical_not(ins[0])],
    "And": lambda n, ins, a, imp: [np.logical_and(ins[0], ins[1])],
    "Or": lambda n, ins, a, imp: [np.logical_or(ins[0], ins[1])],
    "Tile": lambda n, ins, a, imp: [np.tile(ins[0], [int(r) for r in ins[1]])],
    "ReduceProd": lambda n, ins, a, imp: [_np_reduce(np.prod, ins, a)],
    "ReduceSum": lambda n, ins, a, imp: [_np_reduce(np.sum, ins, a)],
}


def _np_reduce(fn, ins, a):
    axes = ins[1] if len(ins) > 1 else a.get("axes")
    if axes is None or len(axes) == 0:
        if a.get("noop_with_empty_axes", 0) and axes is not None:
            return ins[0]
        axes = range(ins[0].ndim)
    return fn(ins[0], axis=tuple(int(x) for x in axes), keepdims=bool(a.get("keepdims", 1))).astype(ins[0].dtype)


# ---------------------------------------------------------------------------
# Entry points


def import_onnx(
    model,
    *,
    function: str = "main",
    input_shapes: dict[str, tuple[int, ...]] | None = None,
    batch: int | None = None,
    float16: bool = False,
) -> str:
    """MLIR text for an ``onnx.ModelProto``.  ``input_shapes`` gives static
    shapes to inputs by name; ``batch`` fixes every input's dynamic leading
    dimension; ``float16`` computes in f16 what the model computes in f32
    (inputs, outputs, weights and every op between; batch norms are folded
    into convolutions in f32 first)."""
    return Importer(model, function, input_shapes, batch, float16=float16).run()


def import_onnx_batches(model, batches: dict[str, int], *, input_shapes: dict[str, tuple[int, ...]] | None = None) -> str:
    """One module with a function per batch size (``{"main_b1": 1, ...}``),
    each with the dynamic leading dimension fixed; the weights are shared,
    one resource each."""
    if not batches:
        raise ValueError("import_onnx_batches: no batch sizes")
    resources: dict[str, np.ndarray] = {}
    parts = []
    for i, (function, batch) in enumerate(batches.items()):
        imp = Importer(model, function, input_shapes, batch, resources)
        if i == 0:
            parts.append(imp.header())
        parts.append(imp.run_function())
        emitter = imp.em
    parts.append(emitter.resource_section())
    return "".join(parts)


def load_model(path: str):
    """An ONNX model from a file, with a clear error when it is not one."""
    try:
        import onnx
    except ImportError:
        raise ImportError_("reading .onnx files needs the onnx package (pip install 'tfrt-py[onnx]')") from None
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ImportError_(f"cannot read '{path}': {exc.strerror or exc}") from None
    try:
        model = onnx.load_from_string(data)
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise ImportError_(f"'{path}' is not an ONNX model: {str(exc).strip() or type(exc).__name__}") from None
    if not model.graph.node and not model.graph.output:
        raise ImportError_(f"'{path}' is not an ONNX model: it has no graph")
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer):
        # Weights saved beside the model (save_as_external_data): read them
        # from the model's folder, as onnx.load does.
        from onnx.external_data_helper import load_external_data_for_model

        try:
            load_external_data_for_model(model, str(Path(path).resolve().parent))
        except Exception as exc:  # noqa: BLE001 - missing or short data files
            raise ImportError_(f"'{path}': cannot read its external weights: {exc}") from None
    return model


def import_onnx_file(path: str, **kwargs) -> str:
    return import_onnx(load_model(path), **kwargs)


def _input_shapes(specs: list[str]) -> dict[str, tuple[int, ...]]:
    out = {}
    for spec in specs:
        name, _, dims = spec.rpartition("=")
        try:
            out[name] = tuple(int(d) for d in dims.split(","))
        except ValueError:
            raise ImportError_(f"--input-shape {spec!r}: expected NAME=D0,D1,...") from None
        if not name:
            raise ImportError_(f"--input-shape {spec!r}: expected NAME=D0,D1,...")
    return out


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        from tfrt.tools import default_sigpipe

        default_sigpipe()
    p = argparse.ArgumentParser(prog=PROG, description="Import an ONNX model as high-level MLIR.")
    p.add_argument("input", help="the .onnx file")
    p.add_argument("-o", dest="output", default="-", help="output .mlir file (default: stdout)")
    p.add_argument("--function", default="main", help="name of the function (default: main)")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=D0,D1,...",
                   help="a static shape for an input with dynamic dimensions (repeatable)")  # fmt: skip
    p.add_argument("--float16", action="store_true",
                   help="compute in f16 what the model computes in f32 (inputs, outputs and weights too)")  # fmt: skip
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        text = import_onnx_file(args.input, function=args.function, input_shapes=_input_shapes(args.input_shape),
                                float16=args.float16)  # fmt: skip
    except ImportError_ as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        status = 1
    else:
        if args.output == "-":
            sys.stdout.write(text)
        else:
            try:
                Path(args.output).write_text(text)
            except OSError as exc:
                sys.stderr.write(f"{PROG}: error: cannot write '{args.output}': {exc.strerror or exc}\n")
                return _exit(1, argv)
        status = 0
    return _exit(status, argv)


def _exit(status: int, argv) -> int:
    if argv is None:
        sys.exit(status)
    return status


if __name__ == "__main__":
    main()
