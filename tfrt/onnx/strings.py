"""Which nodes of an ONNX model touch string tensors, and how each runs.

A compiled program holds numeric tensors only.  A node of the main graph
that reads or produces a STRING tensor (and every ``ai.onnx.ml``
LabelEncoder and CategoryMapper, which the importer does not take) runs on
the host as a kernel of ``tfrt.kernels.strings`` between compiled stages:
``tfrt.onnx.staged`` splits the graph there as it does at a node whose
result shape depends on data.

Which values are strings comes from the types the graph declares (inputs,
outputs, ``value_info``, initializers, Constant nodes), then ONNX's shape
inference, then the rules of :func:`_propagate` for what neither gives.

:func:`host_nodes` lists the nodes; one with no kernel here (an operator
this module does not run on strings) is refused with an error naming the
node, its operator and the string value.  :func:`evaluate` runs one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["HOST_OPS", "evaluate", "host_nodes", "is_host_op", "value_types"]

_STRING = 8  # onnx.TensorProto.STRING
_ML = "ai.onnx.ml"

# Operators whose results are strings whatever their inputs.
_STRING_RESULTS = {"StringConcat", "StringNormalizer"}
# Operators that only move elements (their result's type is input 0's).
_MOVERS = frozenset({"Identity", "Reshape", "Gather", "Concat", "Squeeze", "Unsqueeze", "Transpose", "Slice",
                     "Flatten", "Expand"})  # fmt: skip
_ONNX_OPS = frozenset({"StringConcat", "StringSplit", "StringNormalizer", "RegexFullMatch", "Equal", "Cast",
                       "CastLike", "Where", "Shape", "Size", "Compress", "Unique"}) | _MOVERS  # fmt: skip
_ML_OPS = frozenset({"LabelEncoder", "CategoryMapper"})
HOST_OPS = {"": _ONNX_OPS, "ai.onnx": _ONNX_OPS, _ML: _ML_OPS}


def is_host_op(node) -> bool:
    """Whether ``node``'s operator has a kernel here."""
    return node.op_type in HOST_OPS.get(node.domain, ())


def _attrs(node) -> dict[str, Any]:
    from onnx import helper

    def dec(v: Any) -> Any:
        if isinstance(v, bytes):
            return v.decode("utf-8")
        if isinstance(v, list):
            return [dec(i) for i in v]
        return v

    return {a.name: dec(helper.get_attribute_value(a)) for a in node.attribute}


def _propagate(node, types: dict[str, int]) -> None:
    """The element types of ``node``'s outputs where nothing declared or
    inferred them."""
    a = None
    op = node.op_type
    outs = [o for o in node.output if o]
    if not outs or all(o in types for o in outs):
        return
    t0 = types.get(node.input[0]) if node.input else None
    got: list[int | None] = []
    if op in _STRING_RESULTS:
        got = [_STRING]
    elif op == "StringSplit":
        got = [_STRING, 7]
    elif op in ("RegexFullMatch", "Equal"):
        got = [9]
    elif op == "Cast":
        a = _attrs(node)
        got = [a.get("to")]
    elif op == "CastLike" and len(node.input) > 1:
        got = [types.get(node.input[1])]
    elif op in _MOVERS:
        got = [t0]
    elif op == "Where" and len(node.input) > 1:
        got = [types.get(node.input[1])]
    elif op in ("Shape", "Size"):
        got = [7]
    elif op == "CategoryMapper" and t0 is not None:
        got = [7 if t0 == _STRING else _STRING]
    elif op == "LabelEncoder":
        a = _attrs(node)
        if "values_strings" in a:
            got = [_STRING]
        elif "values_int64s" in a:
            got = [7]
        elif "values_floats" in a:
            got = [1]
        elif "values_tensor" in a:
            got = [a["values_tensor"].data_type]
    for o, t in zip(node.output, got):
        if o and t and o not in types:
            types[o] = t


def value_types(model) -> dict[str, int]:
    """The element type (``TensorProto`` code) of each value of the main
    graph that can be known before it runs."""
    import onnx

    graph = model.graph
    types: dict[str, int] = {}

    def take(vis) -> None:
        for vi in vis:
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
                types.setdefault(vi.name, vi.type.tensor_type.elem_type)

    take(graph.input)
    take(graph.output)
    take(graph.value_info)
    for t in graph.initializer:
        types.setdefault(t.name, t.data_type)
    for node in graph.node:
        if node.op_type == "Constant" and node.output:
            for at in node.attribute:
                if at.name == "value" and at.HasField("t"):
                    types.setdefault(node.output[0], at.t.data_type)
                elif at.name in ("value_string", "value_strings"):
                    types.setdefault(node.output[0], _STRING)
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 - inference is a help, not a requirement
        inferred = None
    if inferred is not None:
        take(inferred.graph.value_info)
        take(inferred.graph.output)
    for node in graph.node:
        _propagate(node, types)
    return types


def _touches_strings(node, types: dict[str, int]) -> str | None:
    """The first string value ``node`` reads or produces, or None."""
    for n in list(node.input) + list(node.output):
        if n and types.get(n) == _STRING:
            return n
    return None


def host_nodes(model) -> list:
    """The main graph's nodes that run on the host: those that read or
    produce a string tensor and every LabelEncoder and CategoryMapper.
    A node among them with no kernel here is an ``ImportError_`` naming
    it."""
    graph = model.graph
    if not any(
        n.domain == _ML and n.op_type in _ML_OPS for n in graph.node
    ) and not _may_have_strings(model):
        return []
    types = value_types(model)
    out = []
    for node in graph.node:
        if node.op_type == "Constant":
            continue
        ml = node.domain == _ML and node.op_type in _ML_OPS
        value = _touches_strings(node, types)
        if not ml and value is None:
            continue
        if not is_host_op(node):
            from tfrt.tools.import_onnx import ImportError_

            raise ImportError_(
                f"node '{node.name}' ({node.op_type}): {'reads' if value in node.input else 'produces'} the string "
                f"tensor '{value}': strings run on the host, which has no kernel for {node.op_type}"
            )
        out.append(node)
    return out


def _may_have_strings(model) -> bool:
    """A quick test before shape inference: whether any declared type,
    initializer, Constant or operator of the main graph is about strings."""
    g = model.graph
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type == _STRING:
            return True
    if any(t.data_type == _STRING for t in g.initializer):
        return True
    for node in g.node:
        if node.op_type in _STRING_RESULTS or node.op_type in ("StringSplit", "RegexFullMatch"):
            return True
        if node.op_type == "Cast" and any(
            a.name == "to" and a.i == _STRING for a in node.attribute
        ):
            return True
        if node.op_type == "Constant" and any(
            a.name in ("value_string", "value_strings")
            or (a.name == "value" and a.t.data_type == _STRING)
            for a in node.attribute
        ):
            return True
    return False


# -- running a node ---------------------------------------------------------------
def _np_dtype(code: int) -> str:
    from onnx import helper

    if code == _STRING:
        return "object"
    return np.dtype(helper.tensor_dtype_to_np_dtype(code)).name


def _label_encoder_tables(a: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, Any, str]:
    """LabelEncoder's keys, values, default and result dtype from its
    attributes (the list forms of opset 2, the tensors of 4)."""
    from onnx import numpy_helper

    from tfrt.kernels.registry import KernelError

    def strings(v) -> np.ndarray:
        out = np.empty(len(v), object)
        out[:] = [s.decode("utf-8") if isinstance(s, bytes) else s for s in v]
        return out

    forms = {"strings": lambda v: strings(v), "int64s": lambda v: np.asarray(v, np.int64),
             "floats": lambda v: np.asarray(v, np.float32)}  # fmt: skip
    found = {}
    for side in ("keys", "values"):
        given = [k for k in ("tensor", *forms) if f"{side}_{k}" in a]
        if len(given) != 1:
            raise KernelError(
                f"exactly one of {side}_strings, {side}_int64s, {side}_floats, {side}_tensor must be given"
            )
        k = given[0]
        if k == "tensor":
            t = a[f"{side}_tensor"]
            arr = numpy_helper.to_array(t).reshape(-1)
            found[side] = strings(arr) if t.data_type == _STRING else arr
        else:
            found[side] = forms[k](a[f"{side}_{k}"])
    values = found["values"]
    out_dtype = "object" if values.dtype == object else values.dtype.name
    if "default_tensor" in a:
        d = numpy_helper.to_array(a["default_tensor"]).reshape(-1)
        if d.size != 1:
            raise KernelError(f"default_tensor must hold one value, it has {d.size}")
        default = d[0].decode("utf-8") if isinstance(d[0], bytes) else d[0]
        default = (
            np.asarray(default).astype(values.dtype if values.dtype != object else object).item()
        )
    elif values.dtype == object:
        default = a.get("default_string", "_Unused")
    elif values.dtype.kind == "f":
        default = a.get("default_float", -0.0)
    else:
        default = a.get("default_int64", -1)
    return found["keys"], values, default, out_dtype


def evaluate(node, inputs: Sequence[np.ndarray | None], ml_opset: int | None = None) -> list[np.ndarray]:
    """The outputs of ``node`` for its input arrays (None for an absent
    optional input), as many as it names; ``ml_opset`` is the model's
    ``ai.onnx.ml`` version (LabelEncoder's rules change with it).  A
    kernel's refusal is raised as ``KernelFailed`` (of
    ``tools.onnx_ops_dynamic``)."""
    from tfrt.kernels.registry import KernelError, default_registry
    from tfrt.tools.onnx_ops_dynamic import KernelFailed
    from tfrt.tools.onnx_ops_dynamic import evaluate as dynamic_evaluate

    op = node.op_type
    ins = list(inputs) + [None] * 4
    reg = default_registry()

    def call(name: str, attrs: tuple, *operands: Any) -> list:
        out = reg.get(name).bind(attrs)(*operands)
        return list(out) if isinstance(out, tuple) else [out]

    try:
        a = _attrs(node)
        if op in ("Compress", "Unique"):
            return dynamic_evaluate(node, inputs)
        if op == "StringConcat":
            outs = call("tfrt_onnx.string_concat", (), ins[0], ins[1])
        elif op == "StringSplit":
            outs = call("tfrt_onnx.string_split", (a.get("delimiter"), a.get("maxsplit")), ins[0])
        elif op == "StringNormalizer":
            attrs = (a.get("case_change_action", "NONE"), int(a.get("is_case_sensitive", 0)), a.get("locale", ""),
                     list(a.get("stopwords", [])))  # fmt: skip
            outs = call("tfrt_onnx.string_normalizer", attrs, ins[0])
        elif op == "RegexFullMatch":
            if "pattern" not in a:
                raise KernelError("the pattern attribute is missing")
            outs = call("tfrt_onnx.regex_full_match", (a["pattern"],), ins[0])
        elif op == "Equal":
            outs = call("tfrt_onnx.string_equal", (), ins[0], ins[1])
        elif op in ("Cast", "CastLike"):
            if op == "Cast":
                to = a.get("to")
            else:
                like = np.asarray(ins[1])
                to = _STRING if like.dtype == object else None
                target = "object" if to == _STRING else like.dtype.name
            if op == "Cast":
                if to is None:
                    raise KernelError("the 'to' attribute is missing")
                target = _np_dtype(int(to))
            x = np.asarray(ins[0])
            if x.dtype == object or x.dtype.kind in "US":
                outs = call("tfrt_onnx.cast_from_string", (target,), x)
            elif target == "object":
                outs = call("tfrt_onnx.cast_to_string", (), x)
            else:
                raise KernelError(
                    f"neither the input ({x.dtype}) nor the result ({target}) is a string"
                )
        elif op == "LabelEncoder":
            outs = [_label_encoder(call, a, ins[0], ml_opset)]
        elif op == "CategoryMapper":
            attrs = (list(a.get("cats_strings", [])), list(a.get("cats_int64s", [])), a.get("default_string", "_Unused"),
                     int(a.get("default_int64", -1)))  # fmt: skip
            outs = call("tfrt_onnx.category_mapper", attrs, ins[0])
        elif op in _MOVERS or op in ("Where", "Shape", "Size"):
            outs = call("tfrt_onnx.move", (op, a), *inputs)
        else:
            raise KernelError(f"{op} has no kernel for strings")
    except KernelError as exc:
        raise KernelFailed(exc.message) from None
    return outs[: len(node.output)]


def _last_of_repeated_keys(keys: np.ndarray, values: np.ndarray, ml_opset: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The keys once each, with the value of the last of repeated ones (as
    LabelEncoder-4 says).  Before version 4 ONNX does not say which wins and
    onnxruntime (the first) and ONNX's reference (the last) differ: a key
    repeated with different values is an error there."""
    from tfrt.kernels.registry import KernelError
    from tfrt.kernels.strings import lookup_key

    last: dict[Any, int] = {}
    vals = values.tolist()
    for i, k in enumerate(keys.tolist()):
        key = lookup_key(k)
        j = last.get(key)
        if j is not None and (ml_opset or 0) < 4 and lookup_key(vals[j]) != lookup_key(vals[i]):
            raise KernelError(
                f"key {k!r} is repeated with different values: LabelEncoder before version 4 does not say which "
                "wins (onnxruntime takes the first, ONNX's reference the last)"
            )
        last[key] = i
    if len(last) == len(keys):
        return keys, values
    keep = np.array(sorted(last.values()), np.int64)
    return keys[keep], values[keep]


def _label_encoder(call, a: dict[str, Any], x: Any, ml_opset: int | None = None) -> np.ndarray:
    if "classes_strings" in a:  # LabelEncoder-1: strings <-> their positions
        classes = np.empty(len(a["classes_strings"]), object)
        classes[:] = list(a["classes_strings"])
        idx = np.arange(len(classes), dtype=np.int64)
        arr = np.asarray(x)
        if arr.dtype == object or arr.dtype.kind in "US":
            return call(
                "tfrt_onnx.label_encoder",
                (classes, idx, int(a.get("default_int64", -1)), "int64"),
                x,
            )[0]
        return call(
            "tfrt_onnx.label_encoder",
            (idx, classes, a.get("default_string", "_Unused"), "object"),
            x,
        )[0]
    keys, values, default, out_dtype = _label_encoder_tables(a)
    keys, values = _last_of_repeated_keys(keys, values, ml_opset)
    return call("tfrt_onnx.label_encoder", (keys, values, default, out_dtype), x)[0]
