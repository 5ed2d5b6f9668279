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


class StaticInputNeeded(ImportError_):
    """A value that fixes a shape (axes, a shape, pads, repeats, sizes, k)
    depends on graph inputs: the program can only be compiled for given
    values of ``inputs`` (what ``tfrt.onnx.backend`` does at run time)."""

    def __init__(self, message: str, inputs: tuple[str, ...]):
        super().__init__(message)
        self.inputs = inputs


# ---------------------------------------------------------------------------
# Types


def _element_table() -> dict:
    import ml_dtypes as md

    table = {
        np.float32: "f32", np.float64: "f64", np.float16: "f16", np.int64: "i64", np.int32: "i32",
        np.int16: "i16", np.int8: "i8", np.bool_: "i1", np.uint8: "ui8", np.uint16: "ui16",
        np.uint32: "ui32", np.uint64: "ui64", md.bfloat16: "bf16", md.float8_e4m3fn: "f8E4M3FN",
        md.float8_e4m3fnuz: "f8E4M3FNUZ", md.float8_e5m2: "f8E5M2", md.float8_e5m2fnuz: "f8E5M2FNUZ",
        md.float8_e8m0fnu: "f8E8M0FNU", md.float4_e2m1fn: "f4E2M1FN", md.int4: "i4", md.uint4: "ui4",
        md.int2: "i2", md.uint2: "ui2",
    }  # fmt: skip
    for name, mlir in (("float6_e2m3fn", "f6E2M3FN"), ("float6_e3m2fn", "f6E3M2FN")):
        if hasattr(md, name):
            table[getattr(md, name)] = mlir
    return {np.dtype(k): v for k, v in table.items()}


_ELEMENT = _element_table()
# Element types numpy itself does not define (ml_dtypes' small floats and
# integers): constants of them are written in a wider type and converted.
_SMALL = {k for k, v in _ELEMENT.items() if k.kind == "V" or v[0] in "bf" and v not in ("f16", "f32", "f64")}


def is_float(dtype) -> bool:
    """Whether ``dtype`` is a floating-point type (numpy's or ml_dtypes')."""
    return _ELEMENT.get(np.dtype(dtype), "")[:1] in ("f", "b")


def bits(dtype) -> int:
    """The width of an element type in bits."""
    el = _ELEMENT[np.dtype(dtype)]
    if el == "i1":
        return 1
    if el.startswith("bf"):
        return 16
    m = re.match(r"u?i(\d+)|f(\d+)", el)
    return int(m.group(1) or m.group(2))


def signless_dtype(dtype) -> np.dtype:
    """The signed integer type of ``dtype``'s width (unsigned types compute
    as signless integers with the unsigned ops)."""
    import ml_dtypes as md

    return np.dtype({8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64, 4: md.int4, 2: md.int2}[bits(dtype)]) \
        if kind(dtype) == "u" else np.dtype(dtype)


def kind(dtype) -> str:
    """'f' (any float), 'b' (bool), 'u' (unsigned) or 'i' (signed integer)."""
    el = _ELEMENT.get(np.dtype(dtype))
    if el is None:
        raise ImportError_(f"unsupported element type {np.dtype(dtype)}")
    if el == "i1":
        return "b"
    if el[0] in "fb":
        return "f"
    return "u" if el.startswith("ui") else "i"


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
    if math.isnan(v):
        return {"f32": "0x7FC00000", "f64": "0x7FF8000000000000", "f16": "0x7E00", "bf16": "0x7FC0"}[_elem(dtype)]
    if math.isinf(v):
        neg = {"f32": "0xFF800000", "f64": "0xFFF0000000000000", "f16": "0xFC00", "bf16": "0xFF80", "f8E5M2": "0xFC"}
        pos = {"f32": "0x7F800000", "f64": "0x7FF0000000000000", "f16": "0x7C00", "bf16": "0x7F80", "f8E5M2": "0x7C"}
        table = pos if v > 0 else neg
        if _elem(dtype) not in table:
            raise ImportError_(f"{_elem(dtype)} has no infinity")
        return table[_elem(dtype)]
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
        a = np.asarray(a)
        a = np.ascontiguousarray(a).reshape(a.shape)  # (ascontiguousarray makes a 0-d array 1-d)
        if a.dtype in _SMALL:
            # Written in f32 (or i8/ui8) and converted: exact, these values
            # are all representable there.
            wide = np.dtype(np.float32) if is_float(a.dtype) else np.dtype(np.int8 if kind(a.dtype) == "i" else np.uint8)
            w = self.constant(a.astype(wide), key)
            op = "arith.truncf" if is_float(a.dtype) else "arith.trunci"
            return self.elementwise([w], w.shape, a.dtype, lambda args, el: [f"%r = {op} {args[0]} : {_elem(wide)} to {el}"])
        ckey = (a.dtype.str, a.shape, a.tobytes()) if a.size <= 64 else (a.dtype.str, a.shape, id(a))
        hit = self.const_cache.get(ckey)
        if hit is not None:
            return hit
        name = self.fresh()
        if a.dtype == np.bool_:
            data = self._nested(a, lambda b: "true" if b else "false")
        elif a.size == 0:
            data = "dense<>"
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
        lit = _float_literal(v, dtype) if is_float(dtype) else str(int(v))
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
        if not shape or not v.shape:
            # To or from rank 0: a collapse or an expand of unit dimensions.
            name = self.fresh()
            out = Value(name, shape, v.dtype)
            if not shape:
                self.emit(f"{name} = tensor.collapse_shape {v.name} [] : {v.type} into {out.type}")
            else:
                self.emit(f"{name} = tensor.expand_shape {v.name} [] output_shape [{', '.join(map(str, shape))}] : {v.type} into {out.type}")
            return out
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
        if kind(out_dtype) == "u":
            out = self.elementwise([self.signless(v) for v in inputs], out_shape, signless_dtype(out_dtype), body)
            return self.bitcast(out, out_dtype)
        inputs = [self.signless(v) for v in inputs]
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

    def generic(self, ins, outs, iters, body) -> list[Value]:
        """A general ``linalg.generic``.  ``ins``: ``(value, [affine exprs])``
        pairs; ``outs``: ``(shape, dtype, init or None, [affine exprs])``
        (an init is the SSA name of the starting tensor, else an empty one);
        ``iters``: 'p' / 'r' per loop; ``body(in_args, out_args)`` returns
        ``(lines, yielded names)``."""
        if any(kind(o[1]) == "u" for o in outs):
            outs2 = [(sh, signless_dtype(dt), None if init is None else self.bitcast(Value(init, tuple(sh), np.dtype(dt)), signless_dtype(dt)).name, e)
                     for sh, dt, init, e in outs]  # fmt: skip
            res = self.generic(ins, outs2, iters, body)
            return [self.bitcast(r, o[1]) for r, o in zip(res, outs)]
        ins = [(self.signless(v), e) for v, e in ins]
        dims = ", ".join(f"d{i}" for i in range(len(iters)))
        maps = [f"affine_map<({dims}) -> ({', '.join(e)})>" for _, e in ins]
        maps += [f"affine_map<({dims}) -> ({', '.join(o[3])})>" for o in outs]
        results, inits = [], []
        for shape, dtype, init, _ in outs:
            inits.append(init if init is not None else self.empty(shape, dtype))
            results.append(Value("", tuple(shape), np.dtype(dtype)))
        names = [self.fresh() for _ in outs]
        head = names[0] if len(outs) == 1 else f"{names[0]}:{len(outs)}"
        if len(outs) > 1:
            for i, r in enumerate(results):
                r.name = f"{names[0]}#{i}"
        else:
            results[0].name = names[0]
        it = ", ".join('"parallel"' if c == "p" else '"reduction"' for c in iters)
        ins_part = ""
        if ins:
            ins_part = f"ins({', '.join(v.name for v, _ in ins)} : {', '.join(v.type for v, _ in ins)}) "
        out_t = ", ".join(r.type for r in results)
        self.emit(f"{head} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{it}]}} "
                  f"{ins_part}outs({', '.join(inits)} : {out_t}) {{")  # fmt: skip
        in_args = [f"%a{i}" for i in range(len(ins))]
        out_args = [f"%o{i}" for i in range(len(outs))]
        decl = [f"{a}: {_elem(v.dtype)}" for a, (v, _) in zip(in_args, ins)]
        decl += [f"{a}: {_elem(r.dtype)}" for a, r in zip(out_args, results)]
        self.emit(f"^bb0({', '.join(decl)}):")
        lines, ys = body(in_args, out_args)
        for line in lines:
            self.emit("  " + line)
        self.emit(f"  linalg.yield {', '.join(ys)} : {', '.join(_elem(r.dtype) for r in results)}")
        self.emit(f"}} -> {out_t if len(outs) == 1 else '(' + out_t + ')'}")
        return results

    def bitcast(self, v: Value, dtype) -> Value:
        """``v``'s bits as another element type of the same width (``tensor.bitcast``)."""
        dtype = np.dtype(dtype)
        if dtype == v.dtype:
            return v
        name = self.fresh()
        out = Value(name, v.shape, dtype, v.layout)
        self.emit(f"{name} = tensor.bitcast {v.name} : {v.type} to {out.type}")
        return out

    def signless(self, v: Value) -> Value:
        """An unsigned tensor as the signless integers ``arith`` computes on."""
        return self.bitcast(v, signless_dtype(v.dtype)) if kind(v.dtype) == "u" else v

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


from tfrt.tools.onnx_ops import OnnxOps  # noqa: E402 - the operators; they use the helpers above
from tfrt.tools.onnx_ops_nn import OnnxOpsNN  # noqa: E402
from tfrt.tools.onnx_ops_control import OnnxOpsControl, free_names, rename_free  # noqa: E402
from tfrt.tools.onnx_ops_extra import OnnxOpsExtra  # noqa: E402
from tfrt.tools.onnx_ops_dynamic import OnnxOpsDynamic  # noqa: E402
from tfrt.tools.onnx_ops_vision import OnnxOpsVision  # noqa: E402
from tfrt.tools.onnx_ops_more import OnnxOpsMore  # noqa: E402
from tfrt.tools.onnx_ops_ml import OnnxOpsMl  # noqa: E402
from tfrt.tools.onnx_ops_seq import SEQUENCE_OPS, NotATensor, OnnxOpsSeq  # noqa: E402


class Importer(OnnxOps, OnnxOpsNN, OnnxOpsControl, OnnxOpsExtra, OnnxOpsDynamic, OnnxOpsVision, OnnxOpsMore, OnnxOpsMl,
               OnnxOpsSeq):
    def __init__(
        self,
        model,
        function: str = "main",
        input_shapes: dict[str, tuple[int, ...]] | None = None,
        batch: int | None = None,
        resources: dict[str, np.ndarray] | None = None,
        float16: bool = False,
        static_inputs: dict[str, np.ndarray] | None = None,
    ):
        import onnx
        from onnx import numpy_helper, shape_inference

        self.onnx = onnx
        self.float16 = float16
        graph = model.graph
        init_names = {t.name for t in graph.initializer}
        self.consts: dict[str, np.ndarray] = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        # Graph inputs whose values are given at import (shape-fixing inputs
        # that tfrt.onnx.backend specializes the program on).
        for k, v in (static_inputs or {}).items():
            self.consts[k] = np.asarray(v)
        init_names |= set(static_inputs or ())
        self.opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=1)
        self.producer: dict[str, Any] = {}
        # Work on copies of the nodes and inputs: folding rewrites them, and the
        # caller's model stays as it was.
        self.nodes = []
        for node in graph.node:
            copy = onnx.NodeProto()
            copy.CopyFrom(node)
            self.nodes.append(copy)
            for o in copy.output:
                self.producer[o] = copy
        self.inputs = []
        for i in graph.input:
            if i.name not in init_names:
                copy = onnx.ValueInfoProto()
                copy.CopyFrom(i)
                self.inputs.append(copy)
        self.input_shapes = dict(input_shapes or {})  # (a sequence's or optional's spec: onnx_ops_seq)
        for inp in self.inputs:
            if not inp.type.HasField("tensor_type"):
                continue  # sequences and optionals: seq_graph_input
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
            if not inp.type.HasField("tensor_type"):
                self.seq_graph_input(inp, args)  # its elements become arguments (or an error)
                continue
            tt = inp.type.tensor_type
            if not tt.HasField("shape"):
                raise ImportError_(f"input '{inp.name}' has no shape: give a static shape with --input-shape {inp.name}=D0,D1,...")
            dims = []
            for d in tt.shape.dim:
                if d.HasField("dim_value") and d.dim_value >= 0 and not d.dim_param:
                    dims.append(d.dim_value)
                else:
                    label = d.dim_param or "?"
                    raise ImportError_(
                        f"input '{inp.name}' has a dynamic dimension '{label}': give a static shape "
                        f"with --input-shape {inp.name}=D0,D1,..."
                    )
            dtype = self.dtype(self.np_type(tt.elem_type, f"input '{inp.name}'"))
            _elem(dtype)
            v = Value(f"%arg{len(args)}", tuple(dims), dtype)
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
            if self.seq_graph_output(out, results):
                continue  # a sequence or an optional, flattened
            what = out.type.WhichOneof("value")
            if what not in (None, "tensor_type"):
                raise ImportError_(f"graph output '{out.name}' is of {what.replace('_type', '')} type: only tensors are supported")
            if out.name in self.values:
                results.append(self.value(out.name))
            elif out.name in self.consts:
                results.append(self.value(out.name))
            else:
                raise ImportError_(f"graph output '{out.name}' is not produced by any node")
            # What the model declares is checked: a result of another type or
            # shape is an error here, never a wrong answer.
            got = results[-1]
            tt = out.type.tensor_type if out.type.HasField("tensor_type") else None
            if tt is not None and tt.elem_type:
                want = self.dtype(self.np_type(tt.elem_type, f"graph output '{out.name}'"))
                if want != got.dtype:
                    raise ImportError_(f"graph output '{out.name}' is computed as {got.dtype}, the model declares {want}")
            if tt is not None and tt.HasField("shape"):
                dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
                if len(dims) != len(got.shape) or any(d is not None and d != g for d, g in zip(dims, got.shape)):
                    shown = tuple(d if d is not None else "?" for d in dims)
                    raise ImportError_(f"graph output '{out.name}' is computed with shape {got.shape}, the model declares {shown}")
        sig = ", ".join(f"{a.name}: {a.type}" for a in args)
        res_t = ", ".join(r.type for r in results)
        head = f"func.func @{self.function}({sig}) -> ({res_t}) {{"
        ret = f"  return {', '.join(r.name for r in results)} : {res_t}" if results else "  return"
        return head + "\n" + "\n".join(self.em.lines) + "\n" + ret + "\n}\n"

    def _fold_batch_norms(self) -> None:
        """Conv -> BatchNormalization (the conv's only user) becomes one Conv."""
        producers = {}
        for node in self.nodes:
            for o in node.output:
                producers[o] = node
        for node in self.nodes:
            if node.op_type != "BatchNormalization" or len(node.input) < 5 or _attrs(node).get("training_mode", 0):
                continue
            if len([o for o in node.output if o]) > 1:
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
        where = f"node '{node.name}' ({op})"
        if node.domain not in ("", "ai.onnx") and not self.ml_handles(node):
            # An operator of another domain (ai.onnx.preview...) is imported
            # through its ONNX function body where it has one.
            if self._expand_function(node):
                return
            raise ImportError_(f"{where}: operators of domain '{node.domain}' are not supported")
        if op == "Constant":
            self.consts[node.output[0]] = self._constant_attr(node)
            return
        # Anything computed from constants only is computed now, by ONNX's
        # reference implementation (the operator's own definition).
        ins = [n for n in node.input if n]
        if ins and all(n in self.consts for n in ins) and op not in _NOT_FOLDED:
            outs = self._fold(node)
            for name, val in zip(node.output, outs):
                if name:
                    self.consts[name] = self.cast(np.asarray(val))
            return
        if op == "Shape":
            v = self.value_any(node.input[0], node)
            v = self._logical(node.input[0], node)
            a = _attrs(node)
            shape = np.array(v.shape, np.int64)[a.get("start", 0): a.get("end", None)]
            self.consts[node.output[0]] = shape.astype(np.int64)
            return
        if op == "Size":
            v = self._logical(node.input[0], node)
            self.consts[node.output[0]] = np.array(int(np.prod(v.shape, dtype=np.int64)), np.int64)
            return
        handler = getattr(self, f"op_{op}", None)
        if handler is None:
            if self._expand_function(node):
                return
            raise ImportError_(f"node '{node.name}' ({op}): unsupported operator")
        try:
            outs = handler(node, _attrs(node))
        except StaticInputNeeded as exc:
            msg = str(exc)
            if not msg.startswith("node '"):
                msg = f"{where}: {msg}"
            raise StaticInputNeeded(msg, exc.inputs) from None
        except ImportError_ as exc:
            msg = str(exc)
            if not msg.startswith("node '"):
                msg = f"{where}: {msg}"
            # A case the handler does not take may still be computed from the
            # operator's ONNX function body (its definition in other operators).
            try:
                if self._expand_function(node):
                    return
            except StaticInputNeeded:
                raise
            except ImportError_:
                pass
            raise ImportError_(msg) from None
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            # A node the handler's assumptions do not hold for (a missing
            # attribute or input): reported at the node, not as a traceback.
            raise ImportError_(f"node '{node.name}' ({op}): cannot import: {type(exc).__name__}: {exc}") from None
        if isinstance(outs, (Value, np.ndarray, NotATensor)):  # (NotATensor: a sequence or an optional)
            outs = [outs]
        for i, name in enumerate(node.output):
            if not name:
                continue
            if i >= len(outs) or outs[i] is None:
                raise ImportError_(f"{where}: output {i} ('{name}') is not supported")
            if isinstance(outs[i], np.ndarray):
                self.consts[name] = outs[i]
            else:
                self.values[name] = outs[i]

    def _function_body(self, node):
        """The ONNX function that defines ``node``'s operator at this opset
        (``onnx.defs``: a plain function or one built for the node's
        attributes and input types), or None."""
        import onnx
        from onnx import defs, helper

        domain = "" if node.domain in ("", "ai.onnx") else node.domain
        opset = self.opset if not domain else next((o.version for o in self.model.opset_import if o.domain == domain), 1)
        try:
            schema = defs.get_schema(node.op_type, opset, domain)
        except Exception:  # noqa: BLE001 - no schema: no function
            return None, None
        plain = [v for v in schema.function_opset_versions if v <= opset]
        ctx = [v for v in schema.context_dependent_function_opset_versions if v <= opset]
        if not plain and not ctx:
            return None, schema
        fn = onnx.FunctionProto()
        if ctx and (not plain or max(ctx) >= max(plain)):
            types = []
            for name in node.input:
                if not name:
                    types.append(onnx.TypeProto())
                    continue
                c = self.consts.get(name)
                if c is not None:
                    shape, dt = c.shape, c.dtype
                else:
                    v = self._logical(name, node)
                    shape, dt = v.shape, v.dtype
                types.append(helper.make_tensor_type_proto(helper.np_dtype_to_tensor_dtype(np.dtype(dt)), shape))
            full = onnx.NodeProto()
            full.CopyFrom(node)
            have = {x.name for x in node.attribute}
            for k, at in schema.attributes.items():
                if k not in have and at.default_value and at.default_value.type:
                    full.attribute.append(at.default_value)
            try:
                data = schema.get_context_dependent_function_with_opset_version(
                    max(ctx), full.SerializeToString(), [t.SerializeToString() for t in types])
            except Exception as exc:  # noqa: BLE001
                raise ImportError_(f"its function body cannot be built: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}") from None
        else:
            data = schema.get_function_with_opset_version(max(plain))
        fn.ParseFromString(data)
        return fn, schema

    def _expand_function(self, node) -> bool:
        """Imports ``node`` as the nodes of its ONNX function body (False
        where its operator has none).  An error inside names the node."""
        import onnx

        where = f"node '{node.name}' ({node.op_type})"
        try:
            fn, schema = self._function_body(node)
        except ImportError_ as exc:
            raise ImportError_(f"{where}: {exc}") from None
        if fn is None or not fn.node:
            return False
        self._expansions = getattr(self, "_expansions", 0) + 1
        prefix = f"__{node.op_type}{self._expansions}__"
        rename = {"": ""}
        for i, formal in enumerate(fn.input):
            rename[formal] = node.input[i] if i < len(node.input) else ""
        for i, formal in enumerate(fn.output):
            rename[formal] = node.output[i] if i < len(node.output) and node.output[i] else prefix + formal
        attrs = {x.name: x for x in node.attribute}
        defaults = {k: at.default_value for k, at in schema.attributes.items() if at.default_value and at.default_value.type}
        body = []
        for inner in fn.node:
            n = onnx.NodeProto()
            n.CopyFrom(inner)
            for x in n.attribute:
                # A subgraph's references to the function's names are renamed
                # as the function's own nodes are.
                subs = [x.g] if x.type == onnx.AttributeProto.GRAPH else list(x.graphs) if x.type == onnx.AttributeProto.GRAPHS else []
                for g in subs:
                    rename_free(g, lambda v: rename.setdefault(v, prefix + v))
            new_attrs = []
            for x in n.attribute:
                if x.ref_attr_name:
                    src = attrs.get(x.ref_attr_name) or defaults.get(x.ref_attr_name)
                    if src is None:
                        continue
                    y = onnx.AttributeProto()
                    y.CopyFrom(src)
                    y.name = x.name
                    new_attrs.append(y)
                else:
                    new_attrs.append(x)
            del n.attribute[:]
            n.attribute.extend(new_attrs)
            for lst in (n.input, n.output):
                names = [rename.setdefault(v, prefix + v) for v in lst]
                del lst[:]
                lst.extend(names)
            n.name = f"{node.name or node.op_type}/{inner.name or inner.op_type}"
            for o in n.output:
                if o:
                    self.producer[o] = n
            body.append(n)
        opset = next((o.version for o in fn.opset_import if o.domain in ("", "ai.onnx")), self.opset)
        saved = self.opset
        self.opset = opset
        try:
            for n in body:
                self.node(n)
        except StaticInputNeeded as exc:
            raise StaticInputNeeded(f"{where}: in its function body: {exc}", exc.inputs) from None
        except ImportError_ as exc:
            raise ImportError_(f"{where}: in its function body: {exc}") from None
        finally:
            self.opset = saved
        return True

    def _fold(self, node) -> list:
        """The node's outputs for its constant inputs (onnx.reference)."""
        import onnx
        from onnx import helper
        from onnx.reference import ReferenceEvaluator

        where = f"node '{node.name}' ({node.op_type})"
        names = [f"i{k}" if n else "" for k, n in enumerate(node.input)]
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        del copy.input[:]
        copy.input.extend(names)
        del copy.output[:]
        copy.output.extend([f"o{k}" for k in range(len(node.output))])
        feeds, vis = {}, []
        for n, orig in zip(names, node.input):
            if n:
                arr = self.consts[orig]
                feeds[n] = arr
                vis.append(helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(arr.dtype), arr.shape))
        outs = [helper.make_tensor_value_info(o, 0, None) for o in copy.output]
        graph = helper.make_graph([copy], "fold", vis, outs)
        opsets = [o for o in self.model.opset_import if o.domain not in ("", "ai.onnx")] + [helper.make_opsetid("", self.opset)]
        model = helper.make_model(graph, opset_imports=opsets)
        try:
            got = ReferenceEvaluator(model).run(None, feeds)
        except Exception as exc:  # noqa: BLE001 - report at the node
            msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ImportError_(f"{where}: cannot evaluate its constant inputs: {msg}") from None
        return got

    def np_type(self, elem_type: int, what: str) -> np.dtype:
        """The numpy type of an ONNX element type (an error naming ``what``
        for those the compiler has none of: strings, complex numbers)."""
        from onnx import TensorProto, helper

        try:
            dt = np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))
        except Exception:  # noqa: BLE001
            dt = None
        if dt is None or dt not in _ELEMENT:
            tname = TensorProto.DataType.Name(elem_type) if elem_type in TensorProto.DataType.values() else str(elem_type)
            raise ImportError_(f"{what}: element type {tname} is not supported")
        return dt

    def depends_on(self, name: str) -> tuple[str, ...]:
        """The graph inputs a value is computed from (not through Shape or Size:
        shapes are known at import)."""
        args = {i.name for i in self.inputs}
        seen, out, stack = set(), [], [name]
        while stack:
            n = stack.pop()
            if n in seen or not n or n in self.consts:
                continue
            seen.add(n)
            if n in args:
                out.append(n)
                continue
            p = self.producer.get(n)
            if p is None or p.op_type in ("Shape", "Size"):
                continue
            stack.extend(p.input)
            for at in p.attribute:
                # What a subgraph (a loop's body, a branch) uses from outside.
                subs = [at.g] if at.type == at.GRAPH else list(at.graphs) if at.type == at.GRAPHS else []
                for g in subs:
                    stack.extend(free_names(g))
        return tuple(sorted(out))

    def static(self, node, i: int, what: str) -> np.ndarray | None:
        """Input ``i`` of ``node`` as a constant (None where it is absent).
        ``what`` names it in the error when it is computed at run time."""
        if len(node.input) <= i or not node.input[i]:
            return None
        name = node.input[i]
        c = self.consts.get(name)
        if c is not None:
            return c
        deps = self.depends_on(name)
        if deps:
            listed = ", ".join(f"'{d}'" for d in deps)
            raise StaticInputNeeded(
                f"{what} ('{name}') must be known when the program is compiled; it comes from graph input {listed} "
                f"(tfrt.onnx.backend compiles the model for each value it is given)", deps)
        raise ImportError_(f"{what} ('{name}') must be known when the program is compiled; it is computed at run time")

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

    # -- shapes ---------------------------------------------------------------
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

    # -- linear algebra -------------------------------------------------------
    def _matmul2d(self, x: Value, w: Value) -> Value:
        shape = (x.shape[0], w.shape[1])
        acc = self.em.filled(shape, x.dtype, 0.0)
        name = self.em.fresh()
        out = Value(name, shape, x.dtype)
        self.em.emit(f"{name} = linalg.matmul ins({x.name}, {w.name} : {x.type}, {w.type}) outs({acc} : {out.type}) -> {out.type}")
        return out

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
        # Weights given at run time are laid out by the program itself.
        wrt = self.value(node.input[1], node) if w is None else None
        if wrt is not None:
            w = np.empty(wrt.shape, wrt.dtype)  # (only its shape is read below)
            if wrt.dtype != x.dtype:
                raise ImportError_(f"input and weight types {x.dtype} and {wrt.dtype} differ")
        if len(x.shape) == 3 and len(w.shape) == 3:
            return self._conv1d(node, a, x, w, wrt)
        if len(x.shape) == 5:
            return self._conv3d(node, a, x, w, wrt)
        if len(x.shape) != 4:
            raise ImportError_(f"only 1-D, 2-D and 3-D convolutions are supported (input of rank {len(x.shape)})")
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
            if wrt is not None:
                wv = self.em.transpose(wrt, [2, 3, 1, 0])
            else:
                wv = self.em.constant(np.ascontiguousarray(w.transpose(2, 3, 1, 0)), node.input[1])  # (kh, kw, c, f)
            self.em.emit(f"{name} = linalg.conv_2d_nhwc_hwcf {attrs} ins({xp.name}, {wv.name} : {xp.type}, {wv.type}) "
                         f"outs({acc} : {y.type}) -> {y.type}")  # fmt: skip
        elif group == c and cg == 1 and f == c:
            if wrt is not None:
                wv = self.em.transpose(self.em.reshape(wrt, (f, kh, kw)), [1, 2, 0])
            else:
                wv = self.em.constant(np.ascontiguousarray(w[:, 0].transpose(1, 2, 0)), node.input[1])  # (kh, kw, c)
            self.em.emit(f"{name} = linalg.depthwise_conv_2d_nhwc_hwc {attrs} ins({xp.name}, {wv.name} : {xp.type}, {wv.type}) "
                         f"outs({acc} : {y.type}) -> {y.type}")  # fmt: skip
        elif c % group == 0 and f % group == 0 and cg == c // group:
            # One convolution per group, on its slice of the channels, concatenated.
            fg = f // group
            parts = []
            for g in range(group):
                xs = self.slice_(xp, [0, 0, 0, g * cg], [xp.shape[0], xp.shape[1], xp.shape[2], cg])
                if wrt is not None:
                    wg = self.slice_(wrt, [g * fg, 0, 0, 0], [fg, cg, kh, kw])
                    wv = self.em.transpose(wg, [2, 3, 1, 0])
                else:
                    wv = self.em.constant(np.ascontiguousarray(w[g * fg:(g + 1) * fg].transpose(2, 3, 1, 0)), node.input[1])
                gshape = (n, oh, ow, fg)
                gacc = self.em.filled(gshape, x.dtype, 0.0)
                gname = self.em.fresh()
                gy = Value(gname, gshape, x.dtype)
                self.em.emit(f"{gname} = linalg.conv_2d_nhwc_hwcf {attrs} ins({xs.name}, {wv.name} : {xs.type}, {wv.type}) "
                             f"outs({gacc} : {gy.type}) -> {gy.type}")  # fmt: skip
                parts.append(gy)
            cat = self.concat(parts, 3)
            y = Value(cat.name, cat.shape, cat.dtype, "nhwc")
        else:
            raise ImportError_(f"grouped convolution with group={group}, {c} input channels and weights of shape {w.shape}")
        if len(node.input) > 2 and node.input[2]:
            b = self.const(node.input[2])
            bv = self.em.constant(b, node.input[2]) if b is not None else self.value(node.input[2], node)
            y = self.em.elementwise([y, bv], y.shape, y.dtype, lambda args, el: [f"%r = arith.addf {args[0]}, {args[1]} : {el}"])
            y.layout = "nhwc"
        return y

    def _conv1d(self, node, a, x, w, wrt):
        """A 1-D convolution as a 2-D one of height 1."""
        import onnx

        n, c, width = x.shape
        key = f"{node.output[0]}__conv1d"
        self.values[key + "_x"] = self.em.reshape(self.value(node.input[0], node), (n, c, 1, width))
        if wrt is None:
            self.consts[key + "_w"] = w.reshape(w.shape[0], w.shape[1], 1, w.shape[2])
        else:
            self.values[key + "_w"] = self.em.reshape(wrt, (wrt.shape[0], wrt.shape[1], 1, wrt.shape[2]))
        two = onnx.NodeProto()
        two.CopyFrom(node)
        del two.input[:2]
        two.input[:0] = [key + "_x", key + "_w"]
        b = dict(a)
        b["kernel_shape"] = [1, w.shape[2]]
        b["strides"] = [1] + list(a.get("strides", [1]))
        b["dilations"] = [1] + list(a.get("dilations", [1]))
        pads = list(a.get("pads", [0, 0]))
        b["pads"] = [0, pads[0], 0, pads[1]]
        y = self.op_Conv(two, b)
        self.values[key + "_y"] = y
        y = self.value(key + "_y", node)
        return self.em.reshape(y, (y.shape[0], y.shape[1], y.shape[3]))

    def op_BatchNormalization(self, node, a):  # noqa: N802
        params = [self.const(n) for n in node.input[1:5]]
        if any(p is None for p in params) or a.get("training_mode", 0) or len([o for o in node.output if o]) > 1:
            # Statistics given at run time or computed from the batch.
            return self._batchnorm_composite(node, a)
        x = self.value_any(node.input[0], node)
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
        if a.get("ceil_mode", 0) or len(x.shape) != 4 or not is_float(x.dtype):
            # Other ranks, ceil_mode and integer types: one generic over the
            # output and the window (onnx_ops_nn).
            return self._pool_nd(node, a, "avg" if kind == "sum" else kind)
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
            return self._maxpool_indices(node, a)
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

# Operators never evaluated at import even with constant inputs (their
# results are random), and those with subgraphs (unrolled by their handlers,
# which fold what is constant node by node), and those whose handlers compute
# constant inputs with the runtime's kernels (onnx.reference's Unique keeps a
# sorted order where it is asked not to).
_NOT_FOLDED = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial",
                         "Scan", "Loop", "If", "NonZero", "NonMaxSuppression", "Compress", "Unique"}) | SEQUENCE_OPS


# ---------------------------------------------------------------------------
# Entry points


def import_onnx(
    model,
    *,
    function: str = "main",
    input_shapes: dict[str, tuple[int, ...]] | None = None,
    batch: int | None = None,
    float16: bool = False,
    static_inputs: dict[str, np.ndarray] | None = None,
) -> str:
    """MLIR text for an ``onnx.ModelProto``.  ``input_shapes`` gives static
    shapes to inputs by name; ``batch`` fixes every input's dynamic leading
    dimension; ``float16`` computes in f16 what the model computes in f32
    (inputs, outputs, weights and every op between; batch norms are folded
    into convolutions in f32 first); ``static_inputs`` gives graph inputs
    their values (they become constants and leave the signature: what
    ``StaticInputNeeded`` asks for)."""
    return Importer(model, function, input_shapes, batch, float16=float16, static_inputs=static_inputs).run()


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
