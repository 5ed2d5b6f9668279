"""ONNX models whose shapes depend on data, run as staged programs.

A compiled program has static shapes.  NonZero, NonMaxSuppression, Compress
and Unique give results whose shapes depend on the values of their inputs,
so a model with such a node in its main graph is split there:

    stage 0 (compiled)  ->  kernel  ->  stage 1 (compiled)  ->  kernel  -> ...

Each data-dependent node gets a level: the stage that computes the last of
its inputs.  Every other node is compiled into the stage of its latest
input (the inputs of a data-dependent node at level L become available at
level L + 1).  Stage L is imported and compiled as its own model: its inputs
are the graph inputs and earlier values it uses, its outputs everything a
later stage, a kernel or the graph's outputs need.  After stage L runs, the
data-dependent nodes at level L run as the runtime's kernels
(``tfrt.kernels.dynamic_shape``, looked up by name in the kernel registry)
on the arrays, and stage L + 1 is compiled for the shapes they returned.

Each stage keeps its compiled programs in an LRU cache keyed by the element
types and shapes of its inputs (and the values of the inputs it had to be
specialized on: a Reshape's shape computed from a kernel's result, as
``tfrt.onnx.backend`` does with graph inputs).  A new result shape costs one
import and compile of the stages after it; a count seen before is a cache
hit.  :attr:`StagedModel.compiles`, ``hits`` and ``misses`` count them.

A model with no such node is not staged (:func:`plan` returns None): it
compiles to one program, exactly as before.  A Loop or If whose body (at
any depth) has such a node runs on the host like a kernel: If runs the
branch its condition picks, Loop runs its body once per iteration as ONNX's
Loop says, each body a staged model of its own (the names it reads from
enclosing scopes become its inputs), built once and reused.  A Scan or
function body with such a node cannot be split; the importer refuses it
with an error naming the node unless its inputs are constants.

Used by ``tfrt.onnx.backend`` and by ``tfrt.api.load`` for ``.onnx`` paths.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["StagedModel", "StagedProgram", "plan", "staged_program"]


def _subgraphs(node) -> list:
    import onnx

    out = []
    for at in node.attribute:
        if at.type == onnx.AttributeProto.GRAPH:
            out.append(at.g)
        elif at.type == onnx.AttributeProto.GRAPHS:
            out.extend(at.graphs)
    return out


def _attr_graph(node, name: str):
    return next(a.g for a in node.attribute if a.name == name)


def _uses(node) -> list[str]:
    """Every name ``node`` reads: its inputs and what its subgraphs take
    from the enclosing scope."""
    from tfrt.tools.onnx_ops_control import free_names

    names = [n for n in node.input if n]
    for g in _subgraphs(node):
        names += free_names(g)
    return names


def _is_const(name: str, inits: set[str], constants: dict[str, Any]) -> bool:
    return name in inits or name in constants


def _data_dependent(node, inits: set[str], constants) -> bool:
    """Whether ``node`` gives a result whose shape depends on data and that
    the importer cannot compute (its inputs are not all constants, nor is a
    Compress's condition)."""
    from tfrt.tools.onnx_ops_dynamic import DATA_DEPENDENT

    if node.op_type not in DATA_DEPENDENT or node.domain not in ("", "ai.onnx"):
        return False
    ins = [n for n in node.input if n]
    if ins and all(_is_const(n, inits, constants) for n in ins):
        return False  # computed at import
    # A constant condition: a gather in the program.
    return not (node.op_type == "Compress" and len(node.input) > 1 and _is_const(node.input[1], inits, constants))


def _body_has_data_dependent(graph) -> bool:
    """Whether ``graph`` (a Loop or If body) holds, at any depth, a node
    whose result shape depends on data."""
    inits = {t.name for t in graph.initializer}
    constants = {o for n in graph.node if n.op_type == "Constant" for o in n.output}
    for node in graph.node:
        if _data_dependent(node, inits, constants):
            return True
        if any(_body_has_data_dependent(g) for g in _subgraphs(node)):
            return True
    return False


def _hosted_control(node) -> bool:
    """A Loop or If whose body (at any depth) has a data-dependent node: it
    runs on the host, its body a staged model of its own."""
    return (
        node.op_type in ("Loop", "If")
        and node.domain in ("", "ai.onnx")
        and any(_body_has_data_dependent(g) for g in _subgraphs(node))
    )


def _staged_nodes(model) -> list:
    """The main graph's data-dependent nodes that must run between programs
    (those the importer cannot do inside one: see ``tools/onnx_ops_dynamic``)."""
    from tfrt.onnx.strings import host_nodes

    graph = model.graph
    inits = {t.name for t in graph.initializer}
    constants = {o: n for n in graph.node if n.op_type == "Constant" for o in n.output}
    # Nodes on string tensors (tfrt.onnx.strings) run on the host, constant inputs or not.
    out = host_nodes(model)
    hosted = {id(n) for n in out}
    for node in graph.node:
        if id(node) in hosted:
            continue
        if _data_dependent(node, inits, constants) or _hosted_control(node):
            out.append(node)
    return out


@dataclass
class _Stage:
    level: int
    nodes: list  # in graph order, the Constant nodes it reads first
    inputs: list[str]  # the values it is given, in order
    outputs: list[str]
    initializers: list  # the TensorProtos it reads
    programs: OrderedDict = field(default_factory=OrderedDict)
    static: set = field(default_factory=set)  # inputs it is specialized on


class StagedModel:
    """A model split at its data-dependent nodes; ``run(feeds)`` returns the
    graph's outputs (a list of arrays, in order)."""

    # Programs kept per stage (the least recently used is dropped past this).
    MAX_PROGRAMS = 64

    def __init__(self, model, kernels: Sequence, load_kwargs: dict[str, Any] | None = None) -> None:
        from onnx import numpy_helper

        self.model = model
        self.load_kwargs = dict(load_kwargs or {})
        self.compiles = 0
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._ml_opset = next((o.version for o in model.opset_import if o.domain == "ai.onnx.ml"), None)
        graph = model.graph
        inits = {t.name: t for t in graph.initializer}
        self.input_names = [i.name for i in graph.input if i.name not in inits]
        self.input_info = {i.name: i for i in graph.input if i.name not in inits}
        self.output_names = [o.name for o in graph.output]
        self.output_info = {o.name: o for o in graph.output}
        const_nodes = {o: n for n in graph.node if n.op_type == "Constant" for o in n.output if o}
        self._const_nodes = const_nodes
        self._consts: dict[str, np.ndarray] = {}  # initializers and Constant outputs, read lazily
        self._init_protos = inits
        self._numpy_helper = numpy_helper
        # The staged models of hosted Loop and If bodies, built once each
        # (per element types of their inputs) and reused across iterations.
        self.bodies: dict[tuple, StagedModel] = {}
        self._value_info = {v.name: v for v in list(graph.value_info) + list(graph.output)}
        kernel_ids = {id(n) for n in kernels}
        defined = set(self.input_names) | set(inits) | set(const_nodes)
        # avail[name]: the first stage that can read the value.
        avail: dict[str, int] = {n: 0 for n in defined}
        levels: dict[int, list] = {}
        self.kernels: dict[int, list] = {}
        producer_level: dict[str, int] = {}
        for node in graph.node:
            if node.op_type == "Constant":
                continue
            level = max((avail.get(n, 0) for n in _uses(node)), default=0)
            if id(node) in kernel_ids:
                self.kernels.setdefault(level, []).append(node)
                for o in node.output:
                    if o:
                        avail[o] = level + 1
                        defined.add(o)
            else:
                levels.setdefault(level, []).append(node)
                for o in node.output:
                    if o:
                        avail[o] = level
                        producer_level[o] = level
                        defined.add(o)
        self.depth = max([*levels, *(k + 1 for k in self.kernels)], default=0) + 1
        # What each value is read by: the levels of the nodes, kernels and outputs.
        read_at: dict[str, int] = {}  # the latest level that reads it (kernels: their level)
        for level, nodes in levels.items():
            for node in nodes:
                for n in _uses(node):
                    read_at[n] = max(read_at.get(n, -1), level)
        kernel_reads: dict[str, int] = {}
        for level, ks in self.kernels.items():
            for node in ks:
                for n in _uses(node):
                    if n:
                        kernel_reads[n] = max(kernel_reads.get(n, -1), level)
        graph_outs = set(self.output_names)
        self.stages: list[_Stage] = []
        for level in sorted(levels):
            nodes = levels[level]
            produced = {o for n in nodes for o in n.output if o}
            used, seen = [], set()
            for node in nodes:
                for n in _uses(node):
                    if n not in seen and n not in produced:
                        seen.add(n)
                        used.append(n)
            consts = [n for n in used if n in const_nodes]
            stage_inits = [inits[n] for n in used if n in inits]
            inputs = [n for n in used if n in defined and n not in inits and n not in const_nodes]
            outputs = [
                o for n in nodes for o in n.output
                if o and (o in graph_outs or read_at.get(o, -1) > level or o in kernel_reads)
            ]  # fmt: skip
            if not outputs:
                continue  # nothing it computes is read
            const_protos = [const_nodes[n] for n in dict.fromkeys(consts)]
            self.stages.append(_Stage(level, const_protos + nodes, inputs, list(dict.fromkeys(outputs)), stage_inits))

    # -- values -----------------------------------------------------------------
    def _const(self, name: str) -> np.ndarray | None:
        c = self._consts.get(name)
        if c is not None:
            return c
        t = self._init_protos.get(name)
        if t is not None:
            c = self._numpy_helper.to_array(t)
        elif name in self._const_nodes:
            from onnx import helper
            from onnx.reference import ReferenceEvaluator

            node = self._const_nodes[name]
            g = helper.make_graph([node], "c", [], [helper.make_tensor_value_info(name, 0, None)])
            m = helper.make_model(g, opset_imports=list(self.model.opset_import))
            c = np.asarray(ReferenceEvaluator(m).run(None, {})[0])
        else:
            return None
        self._consts[name] = c
        return c

    def _value(self, env: dict[str, np.ndarray], name: str, node) -> np.ndarray:
        v = env.get(name)
        if v is None:
            v = self._const(name)
        if v is None:
            from tfrt.tools.import_onnx import ImportError_

            raise ImportError_(f"node '{node.name}' ({node.op_type}): input '{name}' is not produced by any node")
        return v

    # -- stages -----------------------------------------------------------------
    def _key(self, stage: _Stage, env: dict[str, np.ndarray]) -> tuple:
        parts = []
        for n in stage.inputs:
            a = env[n]
            if n in stage.static:
                parts.append((n, a.dtype.str, a.shape, a.tobytes()))
            else:
                parts.append((n, a.dtype.str, a.shape))
        return tuple(parts)

    def _program(self, stage: _Stage, env: dict[str, np.ndarray]):
        with self._lock:
            key = self._key(stage, env)
            prog = stage.programs.get(key)
            if prog is not None:
                stage.programs.move_to_end(key)
                self.hits += 1
                return prog
            self.misses += 1
            prog = self._compile(stage, env)
            stage.programs[self._key(stage, env)] = prog  # the static set may have grown
            if len(stage.programs) > self.MAX_PROGRAMS:
                stage.programs.popitem(last=False)
            return prog

    def _stage_model(self, stage: _Stage, env: dict[str, np.ndarray]):
        import onnx
        from onnx import helper

        vis = []
        for n in stage.inputs:
            a = env[n]
            info = self.input_info.get(n)
            if info is not None:
                vi = onnx.ValueInfoProto()
                vi.CopyFrom(info)  # its element type; the shape comes from input_shapes
            else:
                vi = helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            vis.append(vi)
        outs = [self.output_info[o] if o in self.output_info else helper.make_tensor_value_info(o, 0, None)
                for o in stage.outputs]  # fmt: skip
        g = helper.make_graph(stage.nodes, f"{self.model.graph.name or 'main'}_stage{stage.level}", vis, outs,
                              initializer=stage.initializers)  # fmt: skip
        m = helper.make_model(g, opset_imports=list(self.model.opset_import), producer_name=self.model.producer_name)
        m.ir_version = self.model.ir_version
        m.functions.extend(self.model.functions)
        return m

    def _compile(self, stage: _Stage, env: dict[str, np.ndarray]):
        import tfrt.api
        from tfrt.tools.import_onnx import StaticInputNeeded, import_onnx

        model = self._stage_model(stage, env)
        while True:
            shapes = {n: tuple(env[n].shape) for n in stage.inputs if n not in stage.static and n in self.input_info}
            statics = {n: env[n] for n in stage.static}
            try:
                text = import_onnx(model, input_shapes=shapes, static_inputs=statics)
            except StaticInputNeeded as exc:
                new = set(exc.inputs) - stage.static
                if not new:
                    raise
                stage.static |= new
                continue
            break
        self.compiles += 1
        return tfrt.api.load(text, **self.load_kwargs)

    def _run_kernel(self, node, env: dict[str, np.ndarray]) -> None:
        from tfrt.api import ExecutionError
        from tfrt.async_value import ErrorInfo
        from tfrt.onnx.strings import evaluate as host_evaluate
        from tfrt.onnx.strings import is_host_op
        from tfrt.tools.onnx_ops_dynamic import KernelFailed, evaluate

        if node.op_type == "Loop" and _hosted_control(node):
            return self._run_loop(node, env)
        if node.op_type == "If" and _hosted_control(node):
            return self._run_if(node, env)
        arrays = [self._value(env, n, node) if n else None for n in node.input]
        try:
            if is_host_op(node):
                outs = host_evaluate(node, arrays, self._ml_opset)
            else:
                outs = evaluate(node, arrays)
        except KernelFailed as exc:
            raise ExecutionError("main", ErrorInfo(f"node '{node.name}' ({node.op_type}): {exc}")) from None
        for name, v in zip(node.output, outs):
            if name:
                env[name] = v

    # -- Loop and If on the host -------------------------------------------------
    def _body_model(self, node, attr: str, formal: list[str], values: list[np.ndarray]) -> StagedModel:
        """``graph`` as a staged model: its own inputs, then the names it
        reads from enclosing scopes, of the element types and ranks of the
        arrays they have (dimensions symbolic: each stage is compiled for
        the shapes it meets)."""
        import onnx
        from onnx import helper

        from tfrt.tools.onnx_ops_control import free_names

        # ``node`` is one of self.kernels (held: its id stays its own).
        key = (id(node), attr, tuple((v.dtype.str, v.ndim) for v in values))
        sub = self.bodies.get(key)
        if sub is not None:
            return sub
        graph = _attr_graph(node, attr)
        free = [n for n in dict.fromkeys(free_names(graph)) if n not in formal]
        declared = {i.name: i.type.tensor_type.elem_type for i in graph.input if i.type.HasField("tensor_type")}
        vis = [helper.make_tensor_value_info(n, declared.get(n) or helper.np_dtype_to_tensor_dtype(v.dtype),
                                             [f"{n}_d{k}" for k in range(v.ndim)])
               for n, v in zip([*formal, *free], values)]  # fmt: skip
        outs = []
        for o in graph.output:
            v = onnx.ValueInfoProto()
            v.CopyFrom(o)
            if v.type.HasField("tensor_type"):
                v.type.tensor_type.ClearField("shape")  # shapes change between iterations
            outs.append(v)
        g = helper.make_graph(list(graph.node), graph.name or "body", vis, outs, initializer=list(graph.initializer))
        g.sparse_initializer.extend(graph.sparse_initializer)
        m = helper.make_model(g, opset_imports=list(self.model.opset_import), producer_name=self.model.producer_name)
        m.ir_version = self.model.ir_version
        m.functions.extend(self.model.functions)
        sub = StagedModel(m, _staged_nodes(m), self.load_kwargs)
        self.bodies[key] = sub
        return sub

    def _run_body(self, node, attr: str, formal: list[np.ndarray], env: dict[str, np.ndarray]) -> list[np.ndarray]:
        from tfrt.api import ExecutionError
        from tfrt.async_value import ErrorInfo
        from tfrt.tools.import_onnx import ImportError_
        from tfrt.tools.onnx_ops_control import free_names

        graph = _attr_graph(node, attr)
        names = [i.name for i in graph.input][: len(formal)]
        free = [n for n in dict.fromkeys(free_names(graph)) if n not in names]
        values = [*formal, *(self._value(env, n, node) for n in free)]
        where = f"node '{node.name}' ({node.op_type}): in its body: "
        try:
            sub = self._body_model(node, attr, names, values)
            return sub.run(dict(zip([*names, *free], values)))
        except ImportError_ as exc:
            raise ImportError_(where + str(exc)) from None
        except ExecutionError as exc:
            raise ExecutionError("main", ErrorInfo(where + exc.info.message, exc.info.code)) from None

    def _fail(self, node, message: str):
        from tfrt.api import ExecutionError
        from tfrt.async_value import ErrorInfo

        return ExecutionError("main", ErrorInfo(f"node '{node.name}' ({node.op_type}): {message}"))

    def _run_if(self, node, env: dict[str, np.ndarray]) -> None:
        cond = self._value(env, node.input[0], node)
        if cond.size != 1:
            raise self._fail(node, f"the condition has {cond.size} elements, not one")
        outs = self._run_body(node, "then_branch" if bool(cond.reshape(())) else "else_branch", [], env)
        if len(outs) != len([o for o in node.output]):
            raise self._fail(node, f"the branch gives {len(outs)} values for {len(node.output)} outputs")
        for name, v in zip(node.output, outs):
            if name:
                env[name] = v

    def _run_loop(self, node, env: dict[str, np.ndarray]) -> None:
        """ONNX's Loop: up to M iterations while cond; the body maps
        (iteration_num, cond_in, carried...) to (cond_out, carried...,
        scan outputs...); scan outputs are stacked along a new axis 0."""
        body = _attr_graph(node, "body")
        ins = [*node.input, "", ""]
        trip = self._value(env, ins[0], node) if ins[0] else None
        cond = self._value(env, ins[1], node) if ins[1] else None
        carried = [self._value(env, n, node) for n in node.input[2:]]
        n_scan = len(body.output) - 1 - len(carried)
        if n_scan < 0 or len(body.input) != 2 + len(carried):
            raise self._fail(node, f"the body takes {len(body.input)} inputs and gives {len(body.output)} outputs "
                                   f"for {len(carried)} loop-carried values")  # fmt: skip
        for what, v in (("the trip count M", trip), ("the condition", cond)):
            if v is not None and v.size != 1:
                raise self._fail(node, f"{what} has {v.size} elements, not one")
        limit = None if trip is None else int(trip.reshape(()))
        keep = True if cond is None else bool(cond.reshape(()))
        scans: list[list[np.ndarray]] = [[] for _ in range(n_scan)]
        i = 0
        while (limit is None or i < limit) and keep:
            outs = self._run_body(node, "body", [np.array(i, np.int64), np.array(keep), *carried], env)
            # cond_out ends the loop even where the Loop has no cond input
            # (onnxruntime, ONNX's reference and the importer's unrolled Loop).
            if outs[0].size != 1:
                raise self._fail(node, f"the body's condition has {outs[0].size} elements, not one")
            keep = bool(outs[0].reshape(()))
            carried = outs[1 : 1 + len(carried)]
            for k in range(n_scan):
                v = outs[1 + len(carried) + k]
                if scans[k] and v.shape != scans[k][0].shape:
                    raise self._fail(node, f"scan output '{body.output[1 + len(carried) + k].name}' has shape "
                                           f"{scans[k][0].shape} in iteration 0 and {v.shape} in iteration {i}")  # fmt: skip
                scans[k].append(v)
            i += 1
        results = list(carried)
        for k in range(n_scan):
            out = node.output[len(carried) + k] if len(carried) + k < len(node.output) else ""
            if scans[k]:
                results.append(np.stack(scans[k]))
            else:
                results.append(self._empty_scan(node, body.output[1 + len(carried) + k], out))
        for name, v in zip(node.output, results):
            if name:
                env[name] = v

    def _empty_scan(self, node, body_out, out: str) -> np.ndarray:
        """A scan output of a loop that ran no iteration: shape (0, ...) from
        the body's declared output (or the Loop's declared output)."""
        from onnx import helper

        def dims(tt, skip: int):
            if not tt.HasField("shape"):
                return None
            ds = list(tt.shape.dim)[skip:]
            return None if any(not d.HasField("dim_value") for d in ds) else [d.dim_value for d in ds]

        tt = body_out.type.tensor_type
        shape = dims(tt, 0)
        elem = tt.elem_type
        info = self._value_info.get(out)
        if info is not None and info.type.HasField("tensor_type"):
            if shape is None:
                shape = dims(info.type.tensor_type, 1)
            elem = elem or info.type.tensor_type.elem_type
        if shape is None or not elem:
            raise self._fail(node, f"the loop ran no iteration and the shape of its scan output '{body_out.name}' "
                                   f"is not known (the body does not declare it)")  # fmt: skip
        return np.zeros([0, *shape], helper.tensor_dtype_to_np_dtype(elem))

    def programs(self):
        """Every compiled program this model holds, its bodies' included."""
        for stage in self.stages:
            yield from stage.programs.values()
        for sub in self.bodies.values():
            yield from sub.programs()

    def _input(self, i: int, name: str, value: Any) -> np.ndarray:
        """A graph input as an array of the element type the model declares
        (cast only as numpy's ``same_kind`` allows, as compiled programs
        convert their arguments): the kernels see what a program would."""
        from onnx import helper

        from tfrt.values import ValueSpecError

        arr = np.asarray(value)
        tt = self.input_info[name].type.tensor_type
        if tt.elem_type:
            want = np.dtype(helper.tensor_dtype_to_np_dtype(tt.elem_type))
            if want == object:  # STRING: an object array of str
                from tfrt.kernels.registry import KernelError
                from tfrt.kernels.strings import as_strings

                try:
                    return as_strings(arr, "the argument")
                except KernelError as exc:
                    raise ValueSpecError(f"'main' argument {i} ('{name}'): {exc.message}") from None
            if arr.dtype != want:
                if not np.can_cast(arr.dtype, want, "same_kind"):
                    raise ValueSpecError(f"'main' argument {i} ('{name}'): {arr.dtype} does not convert to {want}")
                arr = arr.astype(want)
        return arr

    def run(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The graph's outputs for ``feeds`` (every graph input by name)."""
        env: dict[str, np.ndarray] = {n: self._input(i, n, feeds[n]) for i, n in enumerate(self.input_names)}
        stages = {s.level: s for s in self.stages}
        for level in range(self.depth):
            stage = stages.get(level)
            if stage is not None:
                prog = self._program(stage, env)
                args = [env[n] for n in stage.inputs if n not in stage.static]
                res = prog.call("main", *args)
                if not isinstance(res, tuple):
                    res = (res,)
                for name, v in zip(stage.outputs, res):
                    env[name] = np.asarray(v)
            for node in self.kernels.get(level, ()):
                self._run_kernel(node, env)
        outs = []
        for name in self.output_names:
            v = env.get(name)
            if v is None:
                v = self._const(name)
            if v is None:
                from tfrt.tools.import_onnx import ImportError_

                raise ImportError_(f"graph output '{name}' is not produced by any node")
            self._check_output(name, v)
            outs.append(v)
        return outs

    def _check_output(self, name: str, v: np.ndarray) -> None:
        """A kernel's result is checked against the element type the model
        declares for it (a compiled stage's are checked at import)."""
        from onnx import helper

        info = self.output_info[name]
        if not info.type.HasField("tensor_type") or not info.type.tensor_type.elem_type:
            return
        want = np.dtype(helper.tensor_dtype_to_np_dtype(info.type.tensor_type.elem_type))
        if want != v.dtype:
            from tfrt.tools.import_onnx import ImportError_

            raise ImportError_(f"graph output '{name}' is computed as {v.dtype}, the model declares {want}")


def plan(model, load_kwargs: dict[str, Any] | None = None) -> StagedModel | None:
    """The staged form of ``model``, or None where it needs none (no node
    of its main graph has a result shape that depends on data)."""
    kernels = _staged_nodes(model)
    if not kernels:
        return None
    return StagedModel(model, kernels, load_kwargs)


class StagedProgram:
    """What ``tfrt.api.load`` returns for an ONNX model that is staged:
    ``call("main", *inputs)`` as :class:`tfrt.api.Program`'s (arrays in the
    order of the graph's inputs; one result, a tuple, or None)."""

    function = "main"

    def __init__(self, staged: StagedModel) -> None:
        self.staged = staged

    @property
    def functions(self) -> list[str]:
        return [self.function]

    def _convert(self, args: Sequence[Any]) -> dict[str, np.ndarray]:
        from tfrt.values import ValueSpecError

        names = self.staged.input_names
        if len(args) != len(names):
            raise TypeError(f"'{self.function}' takes {len(names)} arguments ({len(args)} given)")
        feeds = {}
        for i, (n, a) in enumerate(zip(names, args)):
            arr = self.staged._input(i, n, a)
            tt = self.staged.input_info[n].type.tensor_type
            if tt.HasField("shape"):
                dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
                if len(dims) != arr.ndim or any(d is not None and d != s for d, s in zip(dims, arr.shape)):
                    shown = tuple(d if d is not None else "?" for d in dims)
                    raise ValueSpecError(f"'{self.function}' argument {i} ('{n}'): shape {arr.shape}, the model's is {shown}")
            feeds[n] = arr
        return feeds

    def call(self, name: str, *args: Any) -> Any:
        if name != self.function:
            raise KeyError(f"no function named '{name}' (have: {self.function})")
        outs = self.staged.run(self._convert(args))
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    def close(self) -> None:
        for prog in self.staged.programs():
            prog.close()


def staged_program(model, **load_kwargs: Any) -> StagedProgram | None:
    """A :class:`StagedProgram` for ``model`` (None where it needs no
    staging); ``load_kwargs`` go to ``tfrt.api.load`` for each stage."""
    s = plan(model, {k: v for k, v in load_kwargs.items() if v is not None})
    return None if s is None else StagedProgram(s)
