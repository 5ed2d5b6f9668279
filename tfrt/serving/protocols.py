"""Request and response bodies of the two protocols ``bef_serve`` speaks.

* TensorFlow Serving's REST predict API: ``{"instances": [...]}`` (row form:
  one entry per example; a dict per example when the model has several
  inputs) or ``{"inputs": ...}`` (columnar form: the whole batch per input),
  answered with ``{"predictions": [...]}`` or ``{"outputs": ...}``; errors are
  ``{"error": "..."}``.
* The KServe / Triton v2 inference protocol: ``{"inputs": [{"name", "shape",
  "datatype", "data"}], "outputs": [...]}`` with the binary tensor extension
  (``Inference-Header-Content-Length``; an input's bytes follow the JSON when
  its ``parameters.binary_data_size`` is set; outputs come back as bytes when
  ``parameters.binary_data`` asks for it); errors are ``{"error": "..."}``.

Everything here is plain data in, plain data out; the HTTP side is in
``tfrt.serving.app``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tfrt.serving.repository import ModelVersion, TensorSpec


class ProtocolError(Exception):
    """A request the server rejects: HTTP ``status`` with ``message``."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


# v2 datatype <-> numpy
V2_TYPES = {
    "BOOL": np.dtype(np.bool_),
    "UINT8": np.dtype(np.uint8), "UINT16": np.dtype(np.uint16),
    "UINT32": np.dtype(np.uint32), "UINT64": np.dtype(np.uint64),
    "INT8": np.dtype(np.int8), "INT16": np.dtype(np.int16),
    "INT32": np.dtype(np.int32), "INT64": np.dtype(np.int64),
    "FP16": np.dtype(np.float16), "FP32": np.dtype(np.float32), "FP64": np.dtype(np.float64),
}  # fmt: skip
_V2_NAMES = {dt: name for name, dt in V2_TYPES.items()}


def v2_datatype(dtype: np.dtype) -> str:
    return _V2_NAMES.get(np.dtype(dtype), "BYTES")


def _shape_text(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def to_array(value: Any, spec: TensorSpec, where: str) -> np.ndarray:
    """A JSON value as an array of ``spec``'s dtype (no lossy conversion)."""
    try:
        a = np.asarray(value)
    except ValueError:
        raise ProtocolError(400, f"{where}: ragged nested lists") from None
    if a.dtype == object or a.dtype.kind in "USV":
        raise ProtocolError(400, f"{where}: expected numbers, got {type(value).__name__} values of kind {a.dtype}")
    dt = spec.dtype
    if dt.kind in "iu" and a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or not np.all(a == np.round(a)):
            raise ProtocolError(400, f"{where}: expected integers for {spec.element}, got fractional values")
    if dt.kind == "b" and a.dtype.kind != "b":
        if a.size and not np.all((a == 0) | (a == 1)):
            raise ProtocolError(400, f"{where}: expected booleans for {spec.element}")
    if dt.kind in "iu" and a.dtype.kind in "iu" and a.size:
        info = np.iinfo(dt)
        if a.min() < info.min or a.max() > info.max:
            raise ProtocolError(400, f"{where}: values do not fit in {spec.element}")
    return np.ascontiguousarray(a.astype(dt, copy=False))


def check_inputs(mv: ModelVersion, arrays: list[np.ndarray]) -> int:
    """Check shapes against the model; the number of rows (1 when not batched)."""
    specs = mv.signature.inputs
    if not mv.batched:
        for spec, a in zip(specs, arrays):
            if tuple(a.shape) != spec.shape:
                raise ProtocolError(
                    400, f"input '{spec.name}': expected shape {_shape_text(spec.shape)}, got {_shape_text(a.shape)}"
                )
        return 1
    rows = None
    for spec, a in zip(specs, arrays):
        if a.ndim != len(spec.shape) or tuple(a.shape[1:]) != spec.shape[1:]:
            raise ProtocolError(
                400,
                f"input '{spec.name}': expected shape {_shape_text(['-1', *spec.shape[1:]])} "
                f"(rows of {_shape_text(spec.shape[1:])}), got {_shape_text(a.shape)}",
            )
        if rows is None:
            rows = a.shape[0]
        elif a.shape[0] != rows:
            raise ProtocolError(400, f"inputs have different numbers of rows ({rows} and {a.shape[0]})")
    if not rows:
        raise ProtocolError(400, "the request holds no rows")
    return rows


# ---------------------------------------------------------------------------
# TensorFlow Serving REST


try:  # about 8x faster on the number arrays of predict bodies (the serve extra)
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover - plain json then
    _fast_loads = None


def parse_json(body: bytes) -> Any:
    if _fast_loads is not None:
        try:
            return _fast_loads(body)
        except ValueError:
            pass  # what orjson refuses (NaN, Infinity, huge integers) json may accept
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(400, f"malformed JSON: {exc}") from None


def tfs_parse(mv: ModelVersion, payload: Any) -> tuple[list[np.ndarray], str]:
    """(input arrays in signature order, 'row' or 'columnar')."""
    if not isinstance(payload, dict):
        raise ProtocolError(400, "the request body must be a JSON object with 'instances' or 'inputs'")
    has_rows, has_cols = "instances" in payload, "inputs" in payload
    if has_rows == has_cols:
        raise ProtocolError(400, "the request must have exactly one of 'instances' (row form) or 'inputs' (columnar form)")
    specs = mv.signature.inputs
    row_specs = mv.row_inputs
    names = [s.name for s in specs]
    if has_rows:
        instances = payload["instances"]
        if not isinstance(instances, list) or not instances:
            raise ProtocolError(400, "'instances' must be a non-empty list")
        if len(specs) == 1:
            values = [[inst.get(names[0]) if isinstance(inst, dict) else inst for inst in instances]]
            if any(isinstance(inst, dict) and names[0] not in inst for inst in instances):
                raise ProtocolError(400, f"an instance lacks input '{names[0]}'")
        else:
            values = []
            for name in names:
                col = []
                for k, inst in enumerate(instances):
                    if not isinstance(inst, dict) or name not in inst:
                        raise ProtocolError(400, f"instance {k}: expected an object with inputs {names}")
                    col.append(inst[name])
                values.append(col)
        if not mv.batched:
            if len(instances) != 1:
                raise ProtocolError(400, f"model '{mv.name}' is not batched: send one instance per request")
            values = [v[0] for v in values]
            return [to_array(v, s, f"input '{s.name}'") for v, s in zip(values, specs)], "row"
        arrays = [to_array(v, s, f"input '{s.name}'") for v, s in zip(values, row_specs)]
        return arrays, "row"
    inputs = payload["inputs"]
    if isinstance(inputs, dict):
        unknown = [k for k in inputs if k not in names]
        if unknown:
            raise ProtocolError(400, f"unknown input '{unknown[0]}' (the model has {names})")
        missing = [n for n in names if n not in inputs]
        if missing:
            raise ProtocolError(400, f"missing input '{missing[0]}'")
        values = [inputs[n] for n in names]
    elif len(specs) == 1:
        values = [inputs]
    else:
        raise ProtocolError(400, f"'inputs' must be an object with {names}")
    return [to_array(v, s, f"input '{s.name}'") for v, s in zip(values, specs)], "columnar"


def tfs_response(mv: ModelVersion, outputs: list[np.ndarray], form: str) -> dict[str, Any]:
    names = [s.name for s in mv.signature.outputs]
    if form == "row":
        if not mv.batched:
            outputs = [o[None] for o in outputs]
        if len(names) == 1:
            return {"predictions": outputs[0].tolist()}
        rows = outputs[0].shape[0]
        return {"predictions": [{n: o[i].tolist() for n, o in zip(names, outputs)} for i in range(rows)]}
    if len(names) == 1:
        return {"outputs": outputs[0].tolist()}
    return {"outputs": {n: o.tolist() for n, o in zip(names, outputs)}}


def tfs_status(versions: list[ModelVersion]) -> dict[str, Any]:
    return {
        "model_version_status": [
            {
                "version": str(v.version),
                "state": v.state,
                "status": {
                    "error_code": "OK" if v.state == "AVAILABLE" else "UNKNOWN",
                    "error_message": v.error,
                },
            }
            for v in sorted(versions, key=lambda v: -v.version)
        ]
    }


def tfs_metadata(mv: ModelVersion) -> dict[str, Any]:
    def tensors(specs, batched):
        return {
            s.name: {
                "dtype": s.element,
                "tensor_shape": {"dim": [{"size": str(-1 if (batched and i == 0) else d)} for i, d in enumerate(s.shape)]},
            }
            for s in specs
        }

    sig = mv.signature
    return {
        "model_spec": {"name": mv.name, "version": str(mv.version)},
        "metadata": {
            "signature_def": {
                "serving_default": {
                    "inputs": tensors(sig.inputs, mv.batched),
                    "outputs": tensors(sig.outputs, mv.batched),
                    "method_name": "tensorflow/serving/predict",
                    "function": sig.function,
                }
            }
        },
    }


# ---------------------------------------------------------------------------
# KServe / Triton v2


def v2_split(body: bytes, header_length: str | None) -> tuple[Any, bytes]:
    """(JSON part, binary part) of a v2 request."""
    if header_length is None:
        return parse_json(body), b""
    try:
        n = int(header_length)
    except ValueError:
        raise ProtocolError(400, f"Inference-Header-Content-Length is not a number: {header_length!r}") from None
    if not 0 <= n <= len(body):
        raise ProtocolError(400, f"Inference-Header-Content-Length {n} is outside the body ({len(body)} bytes)")
    return parse_json(body[:n]), body[n:]


def v2_parse(mv: ModelVersion, payload: Any, binary: bytes) -> tuple[list[np.ndarray], list[dict[str, Any]]]:
    """(input arrays in signature order, requested outputs)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("inputs"), list):
        raise ProtocolError(400, "the request body must be a JSON object with an 'inputs' list")
    specs = {s.name: s for s in mv.signature.inputs}
    got: dict[str, np.ndarray] = {}
    offset = 0
    for k, item in enumerate(payload["inputs"]):
        if not isinstance(item, dict):
            raise ProtocolError(400, f"inputs[{k}] must be an object")
        name = item.get("name")
        if name not in specs:
            raise ProtocolError(400, f"unknown input '{name}' (the model has {list(specs)})")
        if name in got:
            raise ProtocolError(400, f"input '{name}' is given twice")
        spec = specs[name]
        shape = item.get("shape")
        if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise ProtocolError(400, f"input '{name}': 'shape' must be a list of non-negative integers")
        datatype = item.get("datatype")
        dt = V2_TYPES.get(datatype)
        if dt is None:
            raise ProtocolError(400, f"input '{name}': unsupported datatype {datatype!r}")
        if dt != spec.dtype:
            raise ProtocolError(
                400, f"input '{name}': datatype {datatype} does not match the model's {v2_datatype(spec.dtype)}"
            )
        count = int(np.prod(shape)) if shape else 1
        params = item.get("parameters") or {}
        size = params.get("binary_data_size") if isinstance(params, dict) else None
        if size is not None:
            if not isinstance(size, int) or size < 0 or offset + size > len(binary):
                raise ProtocolError(400, f"input '{name}': binary_data_size {size!r} runs past the request's binary data")
            if size != count * dt.itemsize:
                raise ProtocolError(
                    400, f"input '{name}': {size} bytes of binary data for {count} {datatype} values"
                )
            a = np.frombuffer(binary, dtype=dt.newbyteorder("<"), count=count, offset=offset).astype(dt)
            offset += size
        else:
            if "data" not in item:
                raise ProtocolError(400, f"input '{name}' has neither 'data' nor binary data")
            a = to_array(item["data"], spec, f"input '{name}'").reshape(-1)
            if a.size != count:
                raise ProtocolError(400, f"input '{name}': {a.size} values for shape {_shape_text(shape)}")
        got[name] = a.reshape(shape)
    missing = [n for n in specs if n not in got]
    if missing:
        raise ProtocolError(400, f"missing input '{missing[0]}'")
    if offset != len(binary):
        raise ProtocolError(400, f"{len(binary) - offset} bytes of binary data are not claimed by any input")
    wanted = payload.get("outputs")
    if wanted is None:
        wanted = []
    if not isinstance(wanted, list):
        raise ProtocolError(400, "'outputs' must be a list")
    names = [s.name for s in mv.signature.outputs]
    for k, w in enumerate(wanted):
        if not isinstance(w, dict) or w.get("name") not in names:
            raise ProtocolError(400, f"outputs[{k}]: unknown output {w.get('name') if isinstance(w, dict) else w!r} (the model has {names})")
    return [got[s.name] for s in mv.signature.inputs], wanted


def v2_response(
    mv: ModelVersion, outputs: list[np.ndarray], wanted: list[dict[str, Any]], payload: dict[str, Any]
) -> tuple[bytes, dict[str, str]]:
    """(body, extra headers): JSON, or JSON then binary output data."""
    names = [s.name for s in mv.signature.outputs]
    params = payload.get("parameters") or {}
    binary_all = bool(params.get("binary_data_output")) if isinstance(params, dict) else False
    selected = [(w["name"], bool((w.get("parameters") or {}).get("binary_data", binary_all))) for w in wanted] or [
        (n, binary_all) for n in names
    ]
    chunks: list[bytes] = []
    out_items = []
    for name, as_binary in selected:
        a = outputs[names.index(name)]
        item: dict[str, Any] = {"name": name, "datatype": v2_datatype(a.dtype), "shape": list(a.shape)}
        if as_binary:
            data = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
            item["parameters"] = {"binary_data_size": len(data)}
            chunks.append(data)
        else:
            item["data"] = a.reshape(-1).tolist()
        out_items.append(item)
    body: dict[str, Any] = {"model_name": mv.name, "model_version": str(mv.version), "outputs": out_items}
    if "id" in payload:
        body["id"] = payload["id"]
    text = json.dumps(body).encode()
    if not chunks:
        return text, {"content-type": "application/json"}
    return text + b"".join(chunks), {
        "content-type": "application/octet-stream",
        "inference-header-content-length": str(len(text)),
    }


def v2_metadata(mv: ModelVersion, versions: list[int]) -> dict[str, Any]:
    def tensors(specs):
        return [
            {
                "name": s.name,
                "datatype": v2_datatype(s.dtype),
                "shape": [-1 if (mv.batched and i == 0) else d for i, d in enumerate(s.shape)],
            }
            for s in specs
        ]

    return {
        "name": mv.name,
        "versions": [str(v) for v in sorted(versions)],
        "platform": "tfrt_bef",
        "inputs": tensors(mv.signature.inputs),
        "outputs": tensors(mv.signature.outputs),
    }
