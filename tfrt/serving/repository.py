"""A model repository: ``MODEL_DIR/<name>/<version>/model.{bef,mlir,onnx}``.

Each model directory may hold a ``config.json``::

    {
      "function": "mlp",              # the function to serve (default: the only one)
      "inputs": ["x"],                # argument names (default: input_0, input_1, ...)
      "outputs": ["logits"],          # result names (default: output_0, ...)
      "max_batch_size": 32,           # rows per call; 0: no batching (default: the
                                      # leading dimension shared by every input and output)
      "batch_variants": {"1": "mlp_b1", "8": "mlp_b8"},   # more functions, by batch size
      "max_wait_ms": 2,               # how long a batch waits to fill (default 2)
      "work_queue": "s",              # the runtime's work queue per loaded copy
      "workers": 1,                   # loaded copies serving calls at the same time
      "batch_sizes": [1, 8]           # .onnx: import one function per batch size
    }

Versions are the numeric subdirectories; the highest loaded version is the
default.  A version that fails to load (a corrupt file, a bad config) is
recorded with its error and the others keep serving.  ``poll()`` loads new
versions and drops removed ones; requests already holding a version finish on
it.  A version that failed to load is tried again once its directory or the
model's ``config.json`` changes (a model still being copied in when a poll
first saw it loads when the copy is done); a loaded version is never reloaded.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tfrt.values import TensorType, parse_type

log = logging.getLogger("tfrt.serving")

MODEL_FILES = ("model.bef", "model.mlir", "model.onnx")


class ModelError(Exception):
    """A model or version that cannot be served (a 404 or a load failure)."""


@dataclass(frozen=True)
class TensorSpec:
    name: str
    shape: tuple[int, ...]
    element: str  # MLIR element type (f32, i64, ...)

    @property
    def dtype(self) -> np.dtype:
        return TensorType(self.shape, self.element).dtype


@dataclass
class Variant:
    """One function of the program, taking ``batch`` rows (None: not batched)."""

    function: str
    batch: int | None
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]


@dataclass
class ModelVersion:
    name: str
    version: int
    path: Path
    state: str = "LOADING"  # LOADING, AVAILABLE, UNAVAILABLE (load failed), END
    error: str = ""
    programs: list[Any] = field(default_factory=list)  # one per worker
    variants: list[Variant] = field(default_factory=list)  # by batch size, ascending
    config: dict[str, Any] = field(default_factory=dict)
    batcher: Any = None
    stamp: tuple = ()  # the files it was loaded from (see _stamp)

    def metadata(self) -> "ModelVersion":
        """A copy without the loaded programs (picklable; for other processes)."""
        return ModelVersion(self.name, self.version, self.path, self.state, self.error, [],
                            list(self.variants), dict(self.config))  # fmt: skip

    @property
    def signature(self) -> Variant:
        return self.variants[-1]

    @property
    def batched(self) -> bool:
        return self.variants[-1].batch is not None

    @property
    def max_batch_size(self) -> int:
        return self.variants[-1].batch or 0

    @property
    def row_inputs(self) -> tuple[TensorSpec, ...]:
        """Input specs without the batch dimension (what one instance holds)."""
        sig = self.signature
        if not self.batched:
            return sig.inputs
        return tuple(TensorSpec(s.name, s.shape[1:], s.element) for s in sig.inputs)

    @property
    def row_outputs(self) -> tuple[TensorSpec, ...]:
        sig = self.signature
        if not self.batched:
            return sig.outputs
        return tuple(TensorSpec(s.name, s.shape[1:], s.element) for s in sig.outputs)


def _load_program(path: Path, work_queue: str, config: dict[str, Any]) -> Any:
    import tfrt.api

    if path.suffix == ".onnx":
        from tfrt.tools.import_onnx import ImportError_, import_onnx_batches, load_model

        try:
            model = load_model(str(path))
            # One function per batch size, each with the batch dimension
            # fixed, sharing the weights.
            text = import_onnx_batches(model, {f"main_b{b}": b for b in _onnx_batch_sizes(config)})
        except ImportError_ as exc:
            raise ModelError(str(exc)) from None
        return tfrt.api.load(text, work_queue=work_queue)
    return tfrt.api.load(path, work_queue=work_queue)


def _onnx_batch_sizes(config: dict[str, Any]) -> list[int]:
    sizes = sorted({int(b) for b in config.get("batch_sizes", [1])})
    if not sizes or sizes[0] < 1:
        raise ModelError("config 'batch_sizes' must list positive batch sizes")
    return sizes


def _onnx_config(config: dict[str, Any]) -> dict[str, Any]:
    """An ONNX model's functions are ``@main_b<B>`` for its ``batch_sizes``."""
    sizes = _onnx_batch_sizes(config)
    out = dict(config)
    out.setdefault("function", f"main_b{sizes[0]}")
    if len(sizes) > 1:
        out.setdefault("batch_variants", {str(b): f"main_b{b}" for b in sizes[1:]})
    return out


def _specs(types: tuple[str, ...], names: list[str] | None, kind: str, fn: str) -> tuple[TensorSpec, ...]:
    if names is not None and len(names) != len(types):
        raise ModelError(f"config names {len(names)} {kind}s but '{fn}' has {len(types)}")
    specs = []
    for i, t in enumerate(types):
        parsed = parse_type(t)
        if not isinstance(parsed, TensorType):
            raise ModelError(f"'{fn}' {kind} {i} has type {t}; only tensors of fixed shape can be served")
        specs.append(TensorSpec(names[i] if names else f"{kind}_{i}", parsed.shape, parsed.element))
    return tuple(specs)


def _variant(program: Any, fn: str, config: dict[str, Any], batching: bool) -> Variant:
    if fn not in program.functions:
        raise ModelError(f"no function named '{fn}' (have: {', '.join(program.functions)})")
    arg_types, result_types = program.signature(fn)
    inputs = _specs(arg_types, config.get("inputs"), "input", fn)
    outputs = _specs(result_types, config.get("outputs"), "output", fn)
    batch = None
    if batching:
        leading = {s.shape[0] if s.shape else None for s in (*inputs, *outputs)}
        if len(leading) == 1 and None not in leading:
            batch = leading.pop()
    return Variant(fn, batch, inputs, outputs)


def _stamp(path: Path) -> tuple:
    """What a failed load is retried on: the names, sizes and modification
    times of the version's files and of the model's config.json."""
    stamp = []
    try:
        files = sorted(path.iterdir())
    except OSError:
        files = []
    for f in (path.parent / "config.json", *files):
        try:
            st = f.stat()
        except OSError:
            continue
        stamp.append((f.name, st.st_size, st.st_mtime_ns))
    return tuple(stamp)


def load_version(name: str, version: int, path: Path, config: dict[str, Any]) -> ModelVersion:
    """Load one version directory; the result records a failure instead of raising."""
    mv = ModelVersion(name, version, path, config=config, stamp=_stamp(path))
    try:
        files = [path / f for f in MODEL_FILES if (path / f).is_file()]
        if not files:
            raise ModelError(f"no model file ({', '.join(MODEL_FILES)}) in {path}")
        workers = int(config.get("workers", 1))
        if workers < 1:
            raise ModelError("config 'workers' must be at least 1")
        work_queue = str(config.get("work_queue", "s"))
        if files[0].suffix == ".onnx":
            config = _onnx_config(config)
            mv.config = config
        programs = [_load_program(files[0], work_queue, config) for _ in range(workers)]
        program = programs[0]
        fn = config.get("function")
        if fn is None:
            if len(program.functions) != 1:
                raise ModelError(
                    f"config.json must name the 'function' to serve (have: {', '.join(program.functions)})"
                )
            fn = program.functions[0]
        max_batch = config.get("max_batch_size")
        batching = max_batch != 0
        variants = [_variant(program, fn, config, batching)]
        for size, vfn in (config.get("batch_variants") or {}).items():
            v = _variant(program, vfn, {**config, "inputs": [s.name for s in variants[0].inputs],
                                        "outputs": [s.name for s in variants[0].outputs]}, True)
            if v.batch != int(size):
                raise ModelError(f"batch variant '{vfn}' takes {v.batch} rows, not {size}")
            variants.append(v)
        if batching and any(v.batch is None for v in variants):
            if config.get("max_batch_size") or config.get("batch_variants"):
                raise ModelError(
                    f"'{fn}' cannot be batched: its inputs and outputs do not share a leading dimension"
                )
            variants = variants[:1]  # serve as is
        variants.sort(key=lambda v: v.batch or 0)
        base = variants[-1]
        for v in variants:
            if v.batch is not None and (
                [s.shape[1:] for s in v.inputs] != [s.shape[1:] for s in base.inputs]
                or [s.element for s in v.inputs] != [s.element for s in base.inputs]
                or [s.shape[1:] for s in v.outputs] != [s.shape[1:] for s in base.outputs]
            ):
                raise ModelError(f"batch variant '{v.function}' differs from '{base.function}' beyond the batch size")
        if max_batch and base.batch is not None and int(max_batch) != base.batch:
            # Fewer rows per call than the largest function takes: keep the variants that fit.
            variants = [v for v in variants if (v.batch or 0) <= int(max_batch)]
            if not variants:
                raise ModelError(f"no function takes at most max_batch_size={max_batch} rows")
        mv.programs = programs
        mv.variants = variants
        mv.state = "AVAILABLE"
    except Exception as exc:  # noqa: BLE001 - a bad model is reported, the others serve
        mv.state = "UNAVAILABLE"
        mv.error = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        log.error("model '%s' version %d failed to load: %s", name, version, mv.error)
    return mv


class ModelRepository:
    """The models of a directory, their versions, and reloading."""

    def __init__(self, root: str | Path, only: set[str] | None = None):
        self.root = Path(root)
        self.only = only  # serve these models of the directory (None: all)
        if not self.root.is_dir():
            raise ModelError(f"model directory '{root}' does not exist")
        self._lock = threading.Lock()
        self.models: dict[str, dict[int, ModelVersion]] = {}

    # -- lookup -------------------------------------------------------------
    def get(self, name: str, version: int | str | None = None) -> ModelVersion:
        versions = self.models.get(name)
        if not versions:
            raise ModelError(f"model '{name}' not found")
        if version is None:
            ready = [v for v in versions.values() if v.state == "AVAILABLE"]
            if not ready:
                errors = "; ".join(f"version {v.version}: {v.error}" for v in versions.values() if v.error)
                raise ModelError(f"model '{name}' has no available version" + (f" ({errors})" if errors else ""))
            return max(ready, key=lambda v: v.version)
        try:
            number = int(version)
        except ValueError:
            raise ModelError(f"model '{name}' has no version '{version}'") from None
        mv = versions.get(number)
        if mv is None:
            raise ModelError(f"model '{name}' has no version {number}")
        if mv.state != "AVAILABLE":
            raise ModelError(f"model '{name}' version {number} is not available: {mv.error or mv.state}")
        return mv

    def ready(self) -> bool:
        return bool(self.models) and all(
            any(v.state == "AVAILABLE" for v in vs.values()) for vs in self.models.values()
        )

    # -- loading ------------------------------------------------------------
    def poll(self) -> tuple[list[ModelVersion], list[ModelVersion]]:
        """Load versions that appeared, drop versions that went away:
        (the versions loaded or failed now, the versions dropped)."""
        found: dict[str, dict[int, Path]] = {}
        for model_dir in sorted(p for p in self.root.iterdir() if p.is_dir() and not p.name.startswith(".")):
            versions = {
                int(v.name): v for v in model_dir.iterdir() if v.is_dir() and v.name.isdigit()
            }
            if versions and (self.only is None or model_dir.name in self.only):
                found[model_dir.name] = versions
        loaded = []
        for name, versions in found.items():
            known = self.models.get(name, {})
            config, config_error = self._config(self.root / name)
            for number, path in sorted(versions.items()):
                old = known.get(number)
                if old is not None and (old.state != "UNAVAILABLE" or old.stamp == _stamp(path)):
                    continue
                if config_error:
                    mv = ModelVersion(name, number, path, state="UNAVAILABLE", error=config_error, stamp=_stamp(path))
                    log.error("model '%s' version %d failed to load: %s", name, number, config_error)
                else:
                    mv = load_version(name, number, path, config)
                with self._lock:
                    self.models.setdefault(name, {})[number] = mv
                loaded.append(mv)
        removed = []
        for name, versions in list(self.models.items()):
            for number in list(versions):
                if number not in found.get(name, {}):
                    with self._lock:
                        mv = versions.pop(number)
                    mv.state = "END"
                    removed.append(mv)
            if not versions:
                with self._lock:
                    self.models.pop(name, None)
        return loaded, removed

    @staticmethod
    def _config(model_dir: Path) -> tuple[dict[str, Any], str]:
        path = model_dir / "config.json"
        if not path.is_file():
            return {}, ""
        try:
            config = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            return {}, f"{path}: {exc}"
        if not isinstance(config, dict):
            return {}, f"{path}: expected a JSON object"
        return config, ""

    def names(self) -> list[str]:
        """The models of the directory (whether or not a version loaded)."""
        return sorted(
            p.name for p in self.root.iterdir()
            if p.is_dir() and not p.name.startswith(".") and any(v.is_dir() and v.name.isdigit() for v in p.iterdir())
        )  # fmt: skip

    def close(self) -> None:
        for versions in self.models.values():
            for mv in versions.values():
                for p in mv.programs:
                    try:
                        p.close()
                    except Exception:  # noqa: BLE001 - best effort at shutdown
                        pass
