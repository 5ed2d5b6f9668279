"""ONNX's backend interface (``onnx.backend.base.Backend``) over the importer,
the compiler and the runtime.

    import tfrt.onnx.backend as backend
    rep = backend.prepare(model)             # an onnx.ModelProto (or a path)
    outputs = rep.run([x])                   # or {"x": x}; a namedtuple of arrays
    backend.run_model(model, [x])            # both at once
    backend.run_node(node, [x])              # one NodeProto

A program is compiled for the shapes and element types of the inputs it is
given, once per distinct signature, and cached on the ``BackendRep``.  Inputs
that fix shapes (a Reshape's shape, the axes of a reduction, pads, repeats,
Resize sizes, TopK's k...) are found by the importer
(``StaticInputNeeded``): the program is then specialized on their values,
which leave its signature and become constants, and compiled once per
distinct value (as JAX does with static arguments).  Every other input,
weights included, is an ordinary run-time tensor.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

__all__ = ["TfrtBackend", "TfrtBackendRep", "prepare", "run_model", "run_node", "supports_device"]


class TfrtBackendRep(BackendRep):
    """A prepared model: ``run(inputs)`` compiles on first use per signature."""

    # Distinct signatures kept per model (the oldest is dropped past this).
    MAX_PROGRAMS = 64

    def __init__(self, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> None:
        from tfrt.tools.import_onnx import ImportError_

        self.model = model
        self.device = device
        self.kwargs = kwargs
        inits = {t.name for t in model.graph.initializer}
        # The graph inputs a caller gives, in order (initializers that are
        # also listed as inputs keep their stored values unless given).
        self.input_names = [i.name for i in model.graph.input if i.name not in inits]
        self.output_names = [o.name for o in model.graph.output]
        # Sequence and optional inputs (lists, None): their elements are the
        # program's arguments and their lengths part of its signature.
        self.types = {i.name: i.type for i in model.graph.input}
        self.structured = {n for n in self.input_names if self.types[n].WhichOneof("value") in ("sequence_type", "optional_type")}
        self.static: set[str] = set()  # inputs the program is specialized on
        self.programs: OrderedDict[tuple, Any] = OrderedDict()
        self.compiles = 0
        self._error = ImportError_
        # A model with data-dependent shapes (NonZero, NonMaxSuppression,
        # Compress, Unique) runs as staged programs (tfrt.onnx.staged).
        from tfrt.onnx.staged import plan

        self.staged = plan(model)

    def _check_types(self) -> None:
        for i in self.model.graph.input:
            if i.name in self.input_names and i.type.WhichOneof("value") not in ("tensor_type", "sequence_type", "optional_type"):
                what = (i.type.WhichOneof("value") or "untyped").replace("_type", "")
                raise self._error(f"input '{i.name}' is of {what} type: only tensors are supported")

    def _feeds(self, inputs: Any) -> dict[str, np.ndarray]:
        self._check_types()
        if isinstance(inputs, dict):
            unknown = set(inputs) - set(self.input_names)
            if unknown:
                raise ValueError(f"unknown input(s) {sorted(unknown)}; the model's are {self.input_names}")
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise ValueError(f"missing input(s) {missing}")
            return {n: inputs[n] if n in self.structured else np.asarray(inputs[n]) for n in self.input_names}
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        inputs = list(inputs)
        if len(inputs) != len(self.input_names):
            raise ValueError(f"{len(inputs)} inputs given, the model takes {len(self.input_names)} ({self.input_names})")
        return {n: v if n in self.structured else np.asarray(v) for n, v in zip(self.input_names, inputs)}

    def _spec(self, feeds: dict[str, Any], n: str) -> tuple:
        """A sequence or optional input's spec and arrays (onnx_ops_seq.feed)."""
        from tfrt.tools.onnx_ops_seq import feed

        return feed(feeds[n], self.types[n], f"input '{n}'")

    def _key(self, feeds: dict[str, np.ndarray]) -> tuple:
        parts = []
        for n in self.input_names:
            if n in self.structured:
                parts.append((n, self._spec(feeds, n)[0]))
                continue
            a = feeds[n]
            if n in self.static:
                parts.append((n, a.dtype.str, a.shape, a.tobytes()))
            else:
                parts.append((n, a.dtype.str, a.shape))
        return tuple(parts)

    def program_for(self, feeds: dict[str, np.ndarray]):
        """The compiled program for these inputs (from the cache or compiled now)."""
        key = self._key(feeds)
        prog = self.programs.get(key)
        if prog is not None:
            self.programs.move_to_end(key)
            return prog
        prog = self._compile(feeds)
        key = self._key(feeds)  # the static set may have grown
        self.programs[key] = prog
        if len(self.programs) > self.MAX_PROGRAMS:
            self.programs.popitem(last=False)
        return prog

    def _compile(self, feeds: dict[str, np.ndarray]):
        import tfrt.api
        from tfrt.tools.import_onnx import Importer, StaticInputNeeded

        while True:
            shapes = {n: self._spec(feeds, n)[0] if n in self.structured else tuple(a.shape)
                      for n, a in feeds.items() if n not in self.static}  # fmt: skip
            statics = {n: feeds[n] for n in self.static}
            try:
                imp = Importer(self.model, input_shapes=shapes, static_inputs=statics)
                imp.flatten_sequences = True  # sequence and optional outputs come back as lists and None
                text = imp.run()
            except StaticInputNeeded as exc:
                new = set(exc.inputs) - self.static
                if not new:
                    raise
                if new & self.structured:
                    raise self._error(f"{exc} (specializing on the values of a sequence or optional is not supported)") from None
                self.static |= new
                continue
            break
        self.compiles += 1
        prog = tfrt.api.load(text)
        prog.output_layout = imp.output_layout  # how the flat results regroup into the graph's outputs
        return prog

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:  # noqa: ARG002
        feeds = self._feeds(inputs)
        if self.staged is not None:
            if self.structured:
                raise self._error("sequence and optional inputs of a model with data-dependent shapes (staged) are not supported")
            outs = self.staged.run(feeds)
            self.compiles = self.staged.compiles
            return namedtupledict("Outputs", self.output_names)(*outs)
        prog = self.program_for(feeds)
        args = []
        for n in self.input_names:
            if n in self.structured:
                args += self._spec(feeds, n)[1]
            elif n not in self.static:
                args.append(feeds[n])
        res = prog.call("main", *args)
        layout = prog.output_layout
        if not isinstance(res, tuple):
            res = (res,) if len(layout) == 1 and layout[0] == "tensor" else () if res is None else (res,)
        from tfrt.tools.onnx_ops_seq import regroup

        outs = regroup(layout, [np.asarray(r) for r in res])
        return namedtupledict("Outputs", self.output_names)(*outs)


class TfrtBackend(Backend):
    """ONNX models compiled by this project's importer and compiler."""

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:  # noqa: ARG003
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> TfrtBackendRep:
        if isinstance(model, (str, os.PathLike)):
            from tfrt.tools.import_onnx import load_model

            model = load_model(os.fspath(model))
        if not isinstance(model, onnx.ModelProto):
            raise TypeError(f"expected an onnx.ModelProto or a path, got {type(model).__name__}")
        if not cls.supports_device(device):
            raise RuntimeError(f"device '{device}' is not supported (CPU is)")
        super().prepare(model, device, **kwargs)
        return TfrtBackendRep(model, device, **kwargs)

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU", outputs_info: Sequence | None = None,
                 **kwargs: Any) -> tuple[Any, ...]:  # fmt: skip
        """One node, its inputs given as arrays (the model is built around it;
        the output types are found by running ONNX's shape inference)."""
        from onnx import helper

        if isinstance(inputs, dict):
            arrays = [np.asarray(inputs[n]) for n in node.input if n]
        else:
            arrays = [np.asarray(v) for v in inputs]
        names = [n for n in node.input if n]
        vis = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in zip(names, arrays)]
        opset = kwargs.pop("opset_version", onnx.defs.onnx_opset_version())
        graph = helper.make_graph([node], "node", vis, [helper.make_tensor_value_info(o, 0, None) for o in node.output if o])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        inferred = onnx.shape_inference.infer_shapes(model)
        del model.graph.output[:]
        model.graph.output.extend(inferred.graph.output)
        return cls.prepare(model, device, **kwargs).run(arrays)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        try:
            return Device(device).type == DeviceType.CPU
        except Exception:  # noqa: BLE001 - an unknown device string
            return False


prepare = TfrtBackend.prepare
run_model = TfrtBackend.run_model
run_node = TfrtBackend.run_node
supports_device = TfrtBackend.supports_device
is_compatible = TfrtBackend.is_compatible
