"""ONNX control flow (Scan, Loop, If) imported by unrolling: the body graph's
nodes are imported once per iteration (or the taken branch once), so the
program holds no loop.  This needs iteration counts and conditions known when
the program is compiled; otherwise the node is refused with the reason.

Mixed into ``tools.import_onnx.Importer``.
"""

from __future__ import annotations

import numpy as np

from tfrt.tools import import_onnx as core

# The most body copies one node may unroll to (a bigger program is refused).
MAX_UNROLL = 4096


def _err(msg: str):
    return core.ImportError_(msg)


def _defined(graph) -> set[str]:
    names = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    for n in graph.node:
        names.update(o for o in n.output if o)
    return names


def rename_free(graph, rename) -> None:
    """Renames, in place, the names ``graph`` uses but does not define
    (references to an enclosing scope) through ``rename(name)``."""
    import onnx

    inner = _defined(graph)
    for n in graph.node:
        for lst in (n.input,):
            names = [x if (not x or x in inner) else rename(x) for x in lst]
            del lst[:]
            lst.extend(names)
        for at in n.attribute:
            subs = [at.g] if at.type == onnx.AttributeProto.GRAPH else list(at.graphs) if at.type == onnx.AttributeProto.GRAPHS else []
            for g in subs:
                rename_free(g, lambda x, _i=inner: x if x in _i else rename(x))
    for o in graph.output:
        if o.name and o.name not in inner:
            o.name = rename(o.name)


def free_names(graph) -> list[str]:
    """The names ``graph`` (or a subgraph in it) uses from enclosing scopes."""
    import onnx

    inner = _defined(graph)
    out = []
    for n in graph.node:
        out += [x for x in n.input if x and x not in inner]
        for at in n.attribute:
            subs = [at.g] if at.type == onnx.AttributeProto.GRAPH else list(at.graphs) if at.type == onnx.AttributeProto.GRAPHS else []
            for g in subs:
                out += [x for x in free_names(g) if x not in inner]
    out += [o.name for o in graph.output if o.name and o.name not in inner]
    return out


class OnnxOpsControl:
    """Scan, Loop and If (mixed into ``Importer``)."""

    def _bind(self, name: str, src: str, node) -> None:
        """``name`` is the value of ``src`` (a constant stays a constant)."""
        c = self.consts.get(src)
        if c is not None:
            self.consts[name] = c
        else:
            self.values[name] = self.value(src, node)

    def _set(self, name: str, v) -> None:
        if isinstance(v, np.ndarray):
            self.consts[name] = v
        else:
            self.values[name] = v

    def _get(self, name: str, node):
        c = self.consts.get(name)
        return c if c is not None else self.value(name, node)

    def _run_body(self, node, graph, bound: list, tag: str) -> list:
        """Imports ``graph``'s nodes with its inputs bound to ``bound``
        (Values or arrays, in order; None leaves an input unbound) and
        returns its outputs (Values or arrays)."""
        import onnx
        from onnx import numpy_helper

        self._unrolled = getattr(self, "_unrolled", 0) + 1
        if self._unrolled > MAX_UNROLL:
            raise _err(f"unrolling its body gives more than {MAX_UNROLL} copies")
        prefix = f"__{tag}{self._unrolled}__"
        defined = _defined(graph)
        if len(bound) > len(graph.input):
            raise _err(f"its body takes {len(graph.input)} inputs, {len(bound)} are given")

        def rn(x):
            return prefix + x if x in defined else x

        for formal, v in zip(graph.input, bound):
            if v is not None:
                self._set(rn(formal.name), v)
        for t in graph.initializer:
            self.consts[rn(t.name)] = self.cast(numpy_helper.to_array(t))
        where = f"node '{node.name}' ({node.op_type})"
        for inner in graph.node:
            n = onnx.NodeProto()
            n.CopyFrom(inner)
            for lst in (n.input, n.output):
                names = [rn(x) if x else x for x in lst]
                del lst[:]
                lst.extend(names)
            for at in n.attribute:
                subs = [at.g] if at.type == onnx.AttributeProto.GRAPH else list(at.graphs) if at.type == onnx.AttributeProto.GRAPHS else []
                for g in subs:
                    rename_free(g, rn)
            n.name = f"{node.name or node.op_type}/{inner.name or inner.op_type}"
            for o in n.output:
                if o:
                    self.producer[o] = n
            try:
                self.node(n)
            except core.StaticInputNeeded as exc:
                raise core.StaticInputNeeded(f"{where}: in its body: {exc}", exc.inputs) from None
            except core.ImportError_ as exc:
                raise _err(f"{where}: in its body: {exc}") from None
        outs = []
        for o in graph.output:
            what = o.type.WhichOneof("value")
            if what not in (None, "tensor_type", "sequence_type", "optional_type"):  # (onnx_ops_seq)
                raise _err(f"its body's output '{o.name}' is of {what.replace('_type', '')} type: only tensors are supported")
            name = rn(o.name)
            if name not in self.consts and name not in self.values and name in defined:
                raise _err(f"its body's output '{o.name}' is not produced by any node")
            outs.append(self._get(name, node))
        return outs

    # -- helpers on Values or arrays ------------------------------------------
    def _v(self, x):
        return self.em.constant(x) if isinstance(x, np.ndarray) else x

    def _take_slice(self, x, axis: int, i: int):
        """x[..., i, ...] along ``axis`` (that axis dropped)."""
        if isinstance(x, np.ndarray):
            return np.take(x, i, axis=axis)
        offs = [0] * len(x.shape)
        offs[axis] = i
        sizes = list(x.shape)
        sizes[axis] = 1
        s = self.slice_(x, offs, sizes)
        return self.em.reshape(s, tuple(d for k, d in enumerate(x.shape) if k != axis))

    def _stack(self, vals, axis: int, what: str):
        if all(isinstance(v, np.ndarray) for v in vals):
            return np.stack(vals, axis=axis)
        vals = [self._v(v) for v in vals]
        shape0 = vals[0].shape
        for v in vals:
            if v.shape != shape0 or v.dtype != vals[0].dtype:
                raise _err(f"{what} changes shape or type between iterations ({shape0} and {v.shape})")
        parts = []
        for v in vals:
            shape = list(v.shape)
            shape.insert(axis, 1)
            parts.append(self.em.reshape(v, tuple(shape)))
        return self.concat(parts, axis)

    # -- Scan -----------------------------------------------------------------
    def op_Scan(self, node, a):  # noqa: N802
        body = a["body"]
        m = int(a["num_scan_inputs"])
        if self.opset < 9:
            return self._scan8(node, a, body, m)
        ins = list(node.input)
        n = len(ins) - m
        states = [self._get(x, node) for x in ins[:n]]
        scans = [self._get(x, node) for x in ins[n:]]
        return self._scan(node, a, body, states, scans, m)

    def _scan(self, node, a, body, states, scans, m):
        in_axes = list(a.get("scan_input_axes", [0] * m))
        in_dirs = list(a.get("scan_input_directions", [0] * m))
        if not scans:
            raise _err("no scan inputs")
        in_axes = [ax % np.ndim(s) if isinstance(s, np.ndarray) else ax % len(s.shape) for ax, s in zip(in_axes, scans)]
        lens = {(s.shape[ax]) for s, ax in zip(scans, in_axes)}
        if len(lens) != 1:
            raise _err(f"scan inputs of different lengths {sorted(lens)}")
        steps = lens.pop()
        n = len(states)
        k = len(body.output) - n
        per_iter: list[list] = [[] for _ in range(k)]
        for t in range(steps):
            sl = [self._take_slice(s, ax, steps - 1 - t if d else t) for s, ax, d in zip(scans, in_axes, in_dirs)]
            outs = self._run_body(node, body, states + sl, "scan")
            states = outs[:n]
            for j in range(k):
                per_iter[j].append(outs[n + j])
        out_axes = list(a.get("scan_output_axes", [0] * k))
        out_dirs = list(a.get("scan_output_directions", [0] * k))
        results = list(states)
        for j in range(k):
            vals = per_iter[j][::-1] if out_dirs[j] else per_iter[j]
            if not vals:
                raise _err("a scan of length 0 is not supported")
            r = np.ndim(vals[0]) if isinstance(vals[0], np.ndarray) else len(vals[0].shape)
            results.append(self._stack(vals, out_axes[j] % (r + 1), f"scan output {j}"))
        return [self._v(x) if not isinstance(x, np.ndarray) else x for x in results]

    def _scan8(self, node, a, body, m):
        """Opset 8: a leading batch axis, the scan along axis 1, and optional
        sequence lengths (only the full length is taken)."""
        ins = list(node.input)
        seq = ins[0]
        rest = ins[1:]
        n = len(rest) - m
        states = [self._get(x, node) for x in rest[:n]]
        scans = [self._get(x, node) for x in rest[n:]]
        shapes = [np.shape(x) if isinstance(x, np.ndarray) else x.shape for x in states + scans]
        batch = shapes[0][0]
        if seq:
            lens = self.static(node, 0, "sequence_lens")
            if lens is not None and np.any(np.asarray(lens) != scans[0].shape[1] if not isinstance(scans[0], np.ndarray) else np.shape(scans[0])[1]):
                raise _err("sequence_lens shorter than the scan inputs are not supported")
        dirs = list(a.get("directions", [0] * m))
        per_b = []
        for b in range(batch):
            st = [self._take_slice(x, 0, b) for x in states]
            sc = [self._take_slice(x, 0, b) for x in scans]
            per_b.append(self._scan(node, {"scan_input_directions": dirs}, body, st, sc, m))
        return [self._v(x) if not isinstance(x, np.ndarray) else x
                for x in (self._stack([r[j] for r in per_b], 0, f"output {j}") for j in range(len(per_b[0])))]  # fmt: skip

    # -- Loop -----------------------------------------------------------------
    def op_Loop(self, node, a):  # noqa: N802
        body = a["body"]
        trip = self.static(node, 0, "the trip count M") if len(node.input) > 0 and node.input[0] else None
        cond = self.static(node, 1, "the condition") if len(node.input) > 1 and node.input[1] else None
        carried = [self._get(x, node) for x in node.input[2:]]
        n = len(carried)
        k = len(body.output) - 1 - n
        if trip is None and cond is None:
            raise _err("a loop with neither a trip count nor a condition does not end")
        limit = int(np.asarray(trip).reshape(())) if trip is not None else None
        go = bool(np.asarray(cond).reshape(())) if cond is not None else True
        scans: list[list] = [[] for _ in range(k)]
        i = 0
        while go and (limit is None or i < limit):
            if i >= MAX_UNROLL:
                raise _err(f"more than {MAX_UNROLL} iterations")
            outs = self._run_body(node, body, [np.array(i, np.int64), np.array(go, np.bool_)] + carried, "loop")
            c = outs[0]
            if not isinstance(c, np.ndarray):
                raise _err("its body's condition is computed at run time: only loops whose iterations are known when compiling are supported")
            go = bool(np.asarray(c).reshape(()))
            carried = outs[1:1 + n]
            for j in range(k):
                scans[j].append(outs[1 + n + j])
            i += 1
        results = list(carried)
        for j in range(k):
            if not scans[j]:
                raise _err(f"scan output {j} of a loop that runs no iteration (its shape is unknown) is not supported")
            results.append(self._stack(scans[j], 0, f"scan output {j}"))
        return results

    # -- If -------------------------------------------------------------------
    def op_If(self, node, a):  # noqa: N802
        cond = self.static(node, 0, "the condition")
        branch = a["then_branch"] if bool(np.asarray(cond).reshape(-1)[0]) else a["else_branch"]
        return self._run_body(node, branch, [], "if")
