"""Operators of the ``ai.onnx.preview.training`` and ``ai.onnx.ml`` domains,
and TfIdfVectorizer: Adagrad, Adam, Momentum (with Nesterov), Binarizer,
ArrayFeatureExtractor, TreeEnsemble (ai.onnx.ml opset 5), TfIdfVectorizer
(integer inputs).

* The optimizers are elementwise bodies, one per output tensor, in the
  precision ONNX's reference computes each step in (``onnx.reference``,
  numpy's promotion rules): the regularized gradient and the moments in the
  tensors' type, the learning-rate terms in f64 where the reference's are
  (Adagrad's decayed rate, Adam's bias-corrected rate), then rounded once to
  the tensors' type.
* TreeEnsemble: the trees are known at import; every interior node's test is
  computed for every sample at once (the features gathered, compared in f64,
  set membership against a padded table), each leaf is reached where every
  test on its path goes its way, and the leaf weights are aggregated in f64
  per target, rounded once.
* TfIdfVectorizer: the pool of n-grams is known at import; for each n-gram
  length and skip, the shifted windows of the input are compared with every
  pooled n-gram of that length and the matches counted (int64), then weighted
  (the i-th weight is the i-th pooled n-gram's, as the spec says and
  onnxruntime does; ONNX's reference takes the i-th output column's).

Mixed into ``tools.import_onnx.Importer``.
"""

from __future__ import annotations

import numpy as np

from tfrt.tools import import_onnx as core
from tfrt.tools.onnx_ops import Body, convert, el_of

_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
# The optimizers' default epsilon (a float attribute: 1e-6 rounded to f32).
_EPS = float(np.float32(1e-6))

# The domains whose operators this file imports (others stay refused).
_DOMAIN_OPS = {
    "ai.onnx.preview.training": frozenset({"Adagrad", "Adam", "Momentum"}),
    "ai.onnx.ml": frozenset({"Binarizer", "ArrayFeatureExtractor", "TreeEnsemble"}),
}


def _err(msg: str):
    return core.ImportError_(msg)


def _text(v) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _array(v) -> np.ndarray:
    """An attribute's value (a TensorProto or a list) as an array."""
    from onnx import TensorProto, numpy_helper

    if isinstance(v, TensorProto):
        return numpy_helper.to_array(v)
    return np.asarray(v)


class OnnxOpsMl:
    """Operator handlers (mixed into ``Importer``)."""

    def ml_handles(self, node) -> bool:
        """Whether ``node`` (of a domain other than ONNX's own) is one of the
        operators imported here."""
        return node.op_type in _DOMAIN_OPS.get(node.domain, ())

    def _ml_domain(self, node, domain: str) -> None:
        if node.domain != domain:
            raise _err(f"operator {node.op_type} is defined in domain '{domain}', the node is in domain '{node.domain or 'ai.onnx'}'")

    # -- the optimizers ------------------------------------------------------------
    def _optimizer_inputs(self, node, groups: int):
        """R, T and the ``groups`` lists of tensors (X, G, then H/V...)."""
        self._ml_domain(node, "ai.onnx.preview.training")
        names = list(node.input)
        if len(names) < 2 + groups or (len(names) - 2) % groups:
            raise _err(f"{len(names)} inputs: expected R, T and {groups} tensors per optimized tensor")
        if any(not n for n in names):
            raise _err("an input is absent")
        n = (len(names) - 2) // groups
        r = self.value(names[0], node)
        t = self.value(names[1], node)
        if core.kind(r.dtype) != "f" or core.bits(r.dtype) < 32:
            raise _err(f"learning rate R of element type {r.dtype}: float or double expected")
        if t.dtype != _I64:
            raise _err(f"iteration count T of element type {t.dtype}: int64 expected")
        for what, v in (("R", r), ("T", t)):
            if int(np.prod(v.shape)) != 1:
                raise _err(f"{what} has shape {v.shape}: a scalar expected")
        r, t = self.em.reshape(r, ()), self.em.reshape(t, ())
        tensors = [[self.value(names[2 + g * n + i], node) for i in range(n)] for g in range(groups)]
        for i in range(n):
            x = tensors[0][i]
            if x.dtype not in (np.dtype(np.float32), _F64):
                raise _err(f"'{names[2 + i]}' of element type {x.dtype}: float or double expected")
            for g in range(1, groups):
                y = tensors[g][i]
                if y.shape != x.shape or y.dtype != x.dtype:
                    raise _err(f"'{names[2 + g * n + i]}' is {y.dtype}{list(y.shape)}, "
                               f"'{names[2 + i]}' is {x.dtype}{list(x.shape)}: they must agree")  # fmt: skip
        if len(node.output) > (groups - 1) * n:
            raise _err(f"{len(node.output)} outputs: at most {(groups - 1) * n} expected")
        return r, t, tensors

    def op_Adagrad(self, node, a):  # noqa: N802
        r, t, (xs, gs, hs) = self._optimizer_inputs(node, 3)
        nc, eps, decay = float(a.get("norm_coefficient", 0.0)), float(a.get("epsilon", _EPS)), float(a.get("decay_factor", 0.0))

        def common(b, x, g, h, dt):
            el = el_of(dt)
            gr = b.op("arith.addf", b.op("arith.mulf", b.const(nc, dt), x, t=el), g, t=el)
            hn = b.op("arith.addf", h, b.op("arith.mulf", gr, gr, t=el), t=el)
            return gr, hn

        xo, ho = [], []
        for x, g, h in zip(xs, gs, hs):
            dt = x.dtype

            def x_new(b, args, el, dt=dt):
                rv, tv, xv, gv, hv = args
                gr, hn = common(b, xv, gv, hv, dt)
                hsq = b.op("arith.addf", b.op("math.sqrt", hn, t=el), b.const(eps, dt), t=el)
                # The decayed rate R / (1 + T * decay) in f64, and so the step.
                t64 = b.line(f"arith.sitofp {tv} : i64 to f64")
                den = b.op("arith.addf", b.const(1.0, _F64), b.op("arith.mulf", t64, b.const(decay, _F64), t="f64"), t="f64")
                rr = b.op("arith.divf", convert(b, rv, r.dtype, _F64), den, t="f64")
                step = b.op("arith.divf", b.op("arith.mulf", rr, convert(b, gr, dt, _F64), t="f64"), convert(b, hsq, dt, _F64), t="f64")
                return convert(b, b.op("arith.subf", convert(b, xv, dt, _F64), step, t="f64"), _F64, dt)

            def h_new(b, args, el, dt=dt):
                return common(b, args[0], args[1], args[2], dt)[1]

            xo.append(self.ew([r, t, x, g, h], x.shape, dt, x_new))
            ho.append(self.ew([x, g, h], x.shape, dt, h_new))
        return xo + ho

    def op_Adam(self, node, a):  # noqa: N802
        r, t, (xs, gs, vs, hs) = self._optimizer_inputs(node, 4)
        # (The defaults are float attributes: 0.9 and 0.999 rounded to f32.)
        alpha, beta = float(a.get("alpha", np.float32(0.9))), float(a.get("beta", np.float32(0.999)))
        eps, nc, ncp = float(a.get("epsilon", _EPS)), float(a.get("norm_coefficient", 0.0)), float(a.get("norm_coefficient_post", 0.0))

        def moments(b, x, g, v, h, dt):
            el = el_of(dt)
            gr = b.op("arith.addf", b.op("arith.mulf", b.const(nc, dt), x, t=el), g, t=el)
            vn = b.op("arith.addf", b.op("arith.mulf", b.const(alpha, dt), v, t=el),
                      b.op("arith.mulf", b.const(1 - alpha, dt), gr, t=el), t=el)  # fmt: skip
            hn = b.op("arith.addf", b.op("arith.mulf", b.const(beta, dt), h, t=el),
                      b.op("arith.mulf", b.const(1 - beta, dt), b.op("arith.mulf", gr, gr, t=el), t=el), t=el)  # fmt: skip
            return vn, hn

        xo, vo, ho = [], [], []
        for x, g, v, h in zip(xs, gs, vs, hs):
            dt = x.dtype
            ct = np.promote_types(r.dtype, dt)  # where the step is taken without bias correction

            def x_new(b, args, el, dt=dt, ct=ct):
                rv, tv, xv, gv, vv, hv = args
                vn, hn = moments(b, xv, gv, vv, hv, dt)
                hsq = b.op("arith.addf", b.op("math.sqrt", hn, t=el), b.const(eps, dt), t=el)
                q = b.op("arith.divf", vn, hsq, t=el)
                # T > 0: R * sqrt(1 - beta^T) / (1 - alpha^T), in f64 (taken
                # with T at least 1: where T <= 0 the other value is chosen).
                tpos = b.op("arith.maxsi", tv, b.const(1, _I64), t="i64")
                t64 = b.line(f"arith.sitofp {tpos} : i64 to f64")
                one = b.const(1.0, _F64)
                pb = b.op("math.powf", b.const(beta, _F64), t64, t="f64")
                pa = b.op("math.powf", b.const(alpha, _F64), t64, t="f64")
                ra = b.op("arith.mulf", convert(b, rv, r.dtype, _F64), b.op("math.sqrt", b.op("arith.subf", one, pb, t="f64"), t="f64"), t="f64")
                ra = b.op("arith.divf", ra, b.op("arith.subf", one, pa, t="f64"), t="f64")
                xn = b.op("arith.subf", convert(b, xv, dt, _F64), b.op("arith.mulf", ra, convert(b, q, dt, _F64), t="f64"), t="f64")
                xa = convert(b, b.op("arith.mulf", b.const(1 - ncp, _F64), xn, t="f64"), _F64, dt)
                # T <= 0: R itself, in the promoted type of R and the tensor.
                ce = el_of(ct)
                xn2 = b.op("arith.subf", convert(b, xv, dt, ct), b.op("arith.mulf", convert(b, rv, r.dtype, ct), convert(b, q, dt, ct), t=ce), t=ce)
                xb = convert(b, b.op("arith.mulf", b.const(1 - ncp, ct), xn2, t=ce), ct, dt)
                pos = b.cmp("arith.cmpi", "sgt", tv, b.const(0, _I64), "i64")
                return b.select(pos, xa, xb, el)

            xo.append(self.ew([r, t, x, g, v, h], x.shape, dt, x_new))
            vo.append(self.ew([x, g, v, h], x.shape, dt, lambda b, args, el, dt=dt: moments(b, *args, dt)[0]))
            ho.append(self.ew([x, g, v, h], x.shape, dt, lambda b, args, el, dt=dt: moments(b, *args, dt)[1]))
        return xo + vo + ho

    def op_Momentum(self, node, a):  # noqa: N802
        r, t, (xs, gs, vs) = self._optimizer_inputs(node, 3)
        for k in ("alpha", "beta", "mode", "norm_coefficient"):
            if k not in a:
                raise _err(f"attribute '{k}' is required")
        alpha, beta, nc = float(a["alpha"]), float(a["beta"]), float(a["norm_coefficient"])
        mode = _text(a["mode"])
        if mode not in ("standard", "nesterov"):
            raise _err(f"mode '{mode}' is not 'standard' or 'nesterov'")

        def vel(b, tv, x, g, v, dt):
            el = el_of(dt)
            gr = b.op("arith.addf", b.op("arith.mulf", b.const(nc, dt), x, t=el), g, t=el)
            # The gradient's coefficient is 1 at the first iteration (T = 0).
            pos = b.cmp("arith.cmpi", "sgt", tv, b.const(0, _I64), "i64")
            ba = b.select(pos, b.const(beta, dt), b.const(1.0, dt), el)
            vn = b.op("arith.addf", b.op("arith.mulf", b.const(alpha, dt), v, t=el), b.op("arith.mulf", ba, gr, t=el), t=el)
            return gr, vn

        xo, vo = [], []
        for x, g, v in zip(xs, gs, vs):
            dt = x.dtype
            ct = np.promote_types(r.dtype, dt)

            def x_new(b, args, el, dt=dt, ct=ct):
                rv, tv, xv, gv, vv = args
                gr, vn = vel(b, tv, xv, gv, vv, dt)
                d = vn
                if mode == "nesterov":
                    d = b.op("arith.addf", gr, b.op("arith.mulf", b.const(alpha, dt), vn, t=el), t=el)
                ce = el_of(ct)
                step = b.op("arith.mulf", convert(b, rv, r.dtype, ct), convert(b, d, dt, ct), t=ce)
                return convert(b, b.op("arith.subf", convert(b, xv, dt, ct), step, t=ce), ct, dt)

            xo.append(self.ew([r, t, x, g, v], x.shape, dt, x_new))
            vo.append(self.ew([t, x, g, v], x.shape, dt, lambda b, args, el, dt=dt: vel(b, *args, dt)[1]))
        return xo + vo

    # -- Binarizer, ArrayFeatureExtractor ----------------------------------------------
    def op_Binarizer(self, node, a):  # noqa: N802
        self._ml_domain(node, "ai.onnx.ml")
        x = self.value(node.input[0], node)
        thr = float(a.get("threshold", 0.0))
        k = core.kind(x.dtype)
        if x.dtype not in (np.dtype(np.float32), _F64, np.dtype(np.int64), np.dtype(np.int32)):
            raise _err(f"input of element type {x.dtype} is not supported (float, double, int64, int32)")

        def fn(b, args, el):
            if k == "f":
                c = b.cmp("arith.cmpf", "ogt", args[0], b.const(thr, x.dtype), el)
                one, zero = b.const(1.0, x.dtype), b.const(0.0, x.dtype)
            else:
                # x > thr for an integer x is x > floor(thr) (thr is finite).
                info = np.iinfo(x.dtype)
                fl = int(np.floor(thr)) if np.isfinite(thr) else (info.min - 1 if thr < 0 else info.max)
                if fl < info.min:
                    return b.const(1, x.dtype)
                if fl >= info.max:
                    return b.const(0, x.dtype)
                c = b.cmp("arith.cmpi", "sgt", args[0], b.const(fl, x.dtype), el)
                one, zero = b.const(1, x.dtype), b.const(0, x.dtype)
            return b.select(c, one, zero, el)

        return self.ew([x], x.shape, x.dtype, fn)

    def op_ArrayFeatureExtractor(self, node, a):  # noqa: N802
        self._ml_domain(node, "ai.onnx.ml")
        x = self.value(node.input[0], node)
        shape = x.shape
        if not shape:
            raise _err("input X is a scalar: at least one dimension expected")
        c = shape[-1]
        idx = self.const(node.input[1])
        if idx is not None:
            idx = np.asarray(idx).astype(np.int64).ravel()
            bad = idx[(idx < 0) | (idx >= c)]
            if bad.size:
                raise _err(f"index {int(bad[0])} is out of range for the last dimension of X ({c})")
            y = self.take(x, idx, len(shape) - 1)
        else:
            iv = self.value(node.input[1], node)
            if core.kind(iv.dtype) not in "iu":
                raise _err(f"indices of element type {iv.dtype}: int64 expected")
            iv = self.em.reshape(iv, (int(np.prod(iv.shape)),))
            # A negative index is out of range (as a constant one is refused
            # here and onnxruntime fails on it), not counted from the end:
            # it becomes C, which the gather reports when the program runs.
            it = core._elem(iv.dtype)
            iv = self.ew([iv], iv.shape, iv.dtype, lambda b, args, el: b.select(
                b.cmp("arith.cmpi", "slt", args[0], b.const(0, iv.dtype), it), b.const(c, iv.dtype), args[0], it))
            y = self.gather_axis(x, iv, len(shape) - 1)
        k = y.shape[-1]
        # A vector gives one row (as onnxruntime and ONNX's reference do).
        return self.em.reshape(y, (1, k) if len(shape) == 1 else (*shape[:-1], k))

    # -- TreeEnsemble ---------------------------------------------------------------
    def op_TreeEnsemble(self, node, a):  # noqa: N802
        self._ml_domain(node, "ai.onnx.ml")
        x = self.value(node.input[0], node)
        if core.kind(x.dtype) != "f" or x.dtype not in (np.dtype(np.float32), _F64, np.dtype(np.float16)):
            raise _err(f"input of element type {x.dtype} is not supported (float, double, float16)")
        if len(x.shape) != 2:
            raise _err(f"input of shape {list(x.shape)}: [N, F] expected")
        n_rows, n_feat = x.shape

        def need(k):
            if k not in a:
                raise _err(f"attribute '{k}' is required")
            return _array(a[k])

        modes = need("nodes_modes").astype(np.int64).ravel()
        feats = need("nodes_featureids").astype(np.int64).ravel()
        splits = need("nodes_splits").astype(np.float64).ravel()
        tids, fids = need("nodes_truenodeids").astype(np.int64).ravel(), need("nodes_falsenodeids").astype(np.int64).ravel()
        tleaf, fleaf = need("nodes_trueleafs").astype(np.int64).ravel(), need("nodes_falseleafs").astype(np.int64).ravel()
        ltarget, lweight = need("leaf_targetids").astype(np.int64).ravel(), need("leaf_weights").astype(np.float64).ravel()
        roots = need("tree_roots").astype(np.int64).ravel()
        n_targets = int(a.get("n_targets", 0))
        if "n_targets" not in a:
            raise _err("attribute 'n_targets' is required")
        agg = int(a.get("aggregate_function", 1))
        post = int(a.get("post_transform", 0))
        nn = modes.size
        for k, v in (("nodes_featureids", feats), ("nodes_splits", splits), ("nodes_truenodeids", tids),
                     ("nodes_falsenodeids", fids), ("nodes_trueleafs", tleaf), ("nodes_falseleafs", fleaf)):  # fmt: skip
            if v.size != nn:
                raise _err(f"'{k}' has {v.size} entries, 'nodes_modes' has {nn}")
        if ltarget.size != lweight.size:
            raise _err(f"'leaf_targetids' has {ltarget.size} entries, 'leaf_weights' has {lweight.size}")
        mt = _array(a["nodes_missing_value_tracks_true"]).astype(np.int64).ravel() if "nodes_missing_value_tracks_true" in a else np.zeros(nn, np.int64)
        if mt.size != nn:
            raise _err(f"'nodes_missing_value_tracks_true' has {mt.size} entries, 'nodes_modes' has {nn}")
        if np.any((modes < 0) | (modes > 6)):
            raise _err(f"node mode {int(modes[(modes < 0) | (modes > 6)][0])} is not one of 0..6")
        if np.any((feats < 0) | (feats >= n_feat)):
            raise _err(f"feature id {int(feats[(feats < 0) | (feats >= n_feat)][0])} is out of range for {n_feat} features")
        if np.any((ltarget < 0) | (ltarget >= n_targets)):
            raise _err(f"leaf target id {int(ltarget[(ltarget < 0) | (ltarget >= n_targets)][0])} is out of range for n_targets={n_targets}")
        if agg not in (0, 1, 2, 3):
            raise _err(f"aggregate_function {agg} is not one of 0 (AVERAGE), 1 (SUM), 2 (MIN), 3 (MAX)")
        if post not in (0, 1, 2):
            names = {3: "SOFTMAX_ZERO", 4: "PROBIT"}
            raise _err(f"post_transform {post} ({names.get(post, 'unknown')}) is not supported (NONE, SOFTMAX, LOGISTIC are)")
        if roots.size == 0:
            raise _err("'tree_roots' is empty")
        # The sets of the member nodes, in the order of the nodes (NaN-delimited).
        members: dict[int, list[float]] = {}
        member_nodes = [int(i) for i in np.nonzero(modes == 6)[0]]
        if member_nodes:
            if "membership_values" not in a:
                raise _err("nodes of mode BRANCH_MEMBER (6) need 'membership_values'")
            vals = _array(a["membership_values"]).astype(np.float64).ravel()
            sets, cur = [], []
            for v in vals:
                if np.isnan(v):
                    sets.append(cur)
                    cur = []
                else:
                    cur.append(float(v))
            if cur:
                sets.append(cur)
            if len(sets) != len(member_nodes):
                raise _err(f"'membership_values' holds {len(sets)} sets for {len(member_nodes)} BRANCH_MEMBER nodes")
            members = dict(zip(member_nodes, sets))

        # Each tree's leaves and the tests on the way to them.
        paths: list[tuple[int, int, list[tuple[int, bool]]]] = []  # (tree, leaf, [(node, branch)])
        for ti, root in enumerate(roots):
            if not 0 <= root < nn:
                raise _err(f"tree root {int(root)} is out of range for {nn} nodes")
            stack = [(int(root), [])]
            while stack:
                i, path = stack.pop()
                if len(path) > nn:
                    raise _err(f"tree {ti} has a cycle through node {i}")
                for branch, child, leaf in ((True, tids[i], tleaf[i]), (False, fids[i], fleaf[i])):
                    p = path + [(i, branch)]
                    if leaf:
                        if not 0 <= child < lweight.size:
                            raise _err(f"node {i}: leaf {int(child)} is out of range for {lweight.size} leaves")
                        paths.append((ti, int(child), p))
                    else:
                        if not 0 <= child < nn:
                            raise _err(f"node {i}: node {int(child)} is out of range for {nn} nodes")
                        stack.append((int(child), p))
        used = sorted({i for _, _, p in paths for i, _ in p})
        col = {i: k for k, i in enumerate(used)}
        nk = len(used)

        # The tests of the nodes used, for every sample: (N, K) booleans.
        x64 = self.ew([x], x.shape, _F64, lambda b, args, el: convert(b, args[0], x.dtype, _F64))
        xg = self.take(x64, feats[used], 1)
        m_modes = self.em.constant(modes[used].astype(np.int64))
        m_split = self.em.constant(np.where(modes[used] == 6, 0.0, splits[used]))
        m_mt = self.em.constant(mt[used].astype(np.bool_))
        ins = [xg, m_modes, m_split, m_mt]
        if members:
            width = max(len(s) for s in members.values())
            table = np.full((nk, max(width, 1)), np.nan)
            for i, s in members.items():
                if i in col:
                    table[col[i], : len(s)] = s
            tv = self.em.constant(table)
            init = self.em.filled((n_rows, nk), _BOOL, 0)
            member = self.em.generic(
                [(xg, ["d0", "d1"]), (tv, ["d1", "d2"])], [((n_rows, nk), _BOOL, init, ["d0", "d1"])], "ppr",
                lambda i, o: ([f"%e = arith.cmpf oeq, {i[0]}, {i[1]} : f64", f"%r = arith.ori {o[0]}, %e : i1"], ["%r"]))[0]  # fmt: skip
            ins.append(member)

        def test(b, args, el):
            xv, mode, split, track = args[:4]
            preds = ["ole", "olt", "oge", "ogt", "oeq", "une"]
            res = b.cmp("arith.cmpf", "ole", xv, split, "f64")
            for m, p in enumerate(preds[1:] + (["member"] if members else []), start=1):
                c = args[4] if p == "member" else b.cmp("arith.cmpf", p, xv, split, "f64")
                is_m = b.cmp("arith.cmpi", "eq", mode, b.const(m, _I64), "i64")
                res = b.select(is_m, c, res, "i1")
            nan = b.cmp("arith.cmpf", "uno", xv, xv, "f64")
            return b.op("arith.ori", res, b.op("arith.andi", nan, track, t="i1"), t="i1")

        cond = self.ew(ins, (n_rows, nk), _BOOL, test)

        # Leaves reached: every test on the path goes the path's way.
        depth = max(len(p) for _, _, p in paths)
        npaths = len(paths)
        pidx = np.zeros((npaths, depth), np.int64)
        want = np.zeros((npaths, depth), np.bool_)
        care = np.zeros((npaths, depth), np.bool_)
        for k, (_, _, p) in enumerate(paths):
            for d, (i, br) in enumerate(p):
                pidx[k, d], want[k, d], care[k, d] = col[i], br, True
        g = self.gather_axis(cond, self.em.constant(pidx), 1)  # (N, P, D)
        wv, cv = self.em.constant(want), self.em.constant(~care)
        init = self.em.filled((n_rows, npaths), _BOOL, 1)
        reach = self.em.generic(
            [(g, ["d0", "d1", "d2"]), (wv, ["d1", "d2"]), (cv, ["d1", "d2"])], [((n_rows, npaths), _BOOL, init, ["d0", "d1"])], "ppr",
            lambda i, o: ([f"%e = arith.cmpi eq, {i[0]}, {i[1]} : i1", f"%k = arith.ori %e, {i[2]} : i1",
                           f"%r = arith.andi {o[0]}, %k : i1"], ["%r"]))[0]  # fmt: skip

        # Each path's weight for each target (zero elsewhere), aggregated in f64.
        wmat = np.zeros((npaths, n_targets))
        hit = np.zeros((npaths, n_targets), np.bool_)
        for k, (_, leaf, _) in enumerate(paths):
            wmat[k, ltarget[leaf]] = lweight[leaf]
            hit[k, ltarget[leaf]] = True
        wm, hm = self.em.constant(wmat), self.em.constant(hit)
        ins3 = [(reach, ["d0", "d2"]), (wm, ["d2", "d1"]), (hm, ["d2", "d1"])]
        if agg in (0, 1):
            acc = self.em.filled((n_rows, n_targets), _F64, 0.0)
            y = self.em.generic(ins3, [((n_rows, n_targets), _F64, acc, ["d0", "d1"])], "ppr",
                                lambda i, o: ([f"%z = arith.constant 0.0 : f64", f"%v = arith.select {i[0]}, {i[1]}, %z : f64",
                                               f"%r = arith.addf {o[0]}, %v : f64"], ["%r"]))[0]  # fmt: skip
            if agg == 0:
                inv = float(len(roots))
                y = self.ew([y], y.shape, _F64, lambda b, args, el: b.op("arith.divf", args[0], b.const(inv, _F64), t="f64"))
        else:
            # MIN / MAX over the leaves reached; a target no leaf reached is 0
            # (as onnxruntime writes it).
            start = np.inf if agg == 2 else -np.inf
            comb = "arith.minimumf" if agg == 2 else "arith.maximumf"
            acc = self.em.filled((n_rows, n_targets), _F64, start)
            y = self.em.generic(ins3, [((n_rows, n_targets), _F64, acc, ["d0", "d1"])], "ppr",
                                lambda i, o: ([f"%c = arith.andi {i[0]}, {i[2]} : i1", f"%m = {comb} {o[0]}, {i[1]} : f64",
                                               f"%r = arith.select %c, %m, {o[0]} : f64"], ["%r"]))[0]  # fmt: skip
            hinit = self.em.filled((n_rows, n_targets), _BOOL, 0)
            any_hit = self.em.generic([(reach, ["d0", "d2"]), (hm, ["d2", "d1"])], [((n_rows, n_targets), _BOOL, hinit, ["d0", "d1"])], "ppr",
                                      lambda i, o: ([f"%c = arith.andi {i[0]}, {i[1]} : i1", f"%r = arith.ori {o[0]}, %c : i1"], ["%r"]))[0]  # fmt: skip
            y = self.ew([any_hit, y], y.shape, _F64, lambda b, args, el: b.select(args[0], args[1], b.const(0.0, _F64), "f64"))
        y = self.ew([y], y.shape, x.dtype, lambda b, args, el: convert(b, args[0], _F64, x.dtype))
        if post == 0:
            return y
        key = f"{node.output[0]}__tree_scores"
        self.values[key] = y
        if post == 1:
            name = self._sub(node, "Softmax", [key], axis=-1)
        else:
            name = self._sub(node, "Sigmoid", [key])
        return self._finish(node, [name])[0]

    # -- TfIdfVectorizer ---------------------------------------------------------------
    def op_TfIdfVectorizer(self, node, a):  # noqa: N802
        x = self.value(node.input[0], node)
        if core.kind(x.dtype) not in "iu" or x.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise _err(f"input of element type {x.dtype} is not supported (int32, int64; strings are not)")
        if "pool_strings" in a:
            raise _err("a pool of strings (pool_strings) is not supported")
        for k in ("mode", "min_gram_length", "max_gram_length", "max_skip_count", "ngram_counts", "ngram_indexes"):
            if k not in a:
                raise _err(f"attribute '{k}' is required")
        mode = _text(a["mode"])
        if mode not in ("TF", "IDF", "TFIDF"):
            raise _err(f"mode '{mode}' is not one of TF, IDF, TFIDF")
        lo, hi, skip = int(a["min_gram_length"]), int(a["max_gram_length"]), int(a["max_skip_count"])
        if not 1 <= lo <= hi or skip < 0:
            raise _err(f"min_gram_length {lo}, max_gram_length {hi}, max_skip_count {skip}: 1 <= min <= max and skip >= 0 expected")
        pool = np.asarray(a.get("pool_int64s", []), np.int64).ravel()
        counts = [int(c) for c in a["ngram_counts"]]
        indexes = np.asarray(a["ngram_indexes"], np.int64).ravel()
        weights = np.asarray(a.get("weights", []), np.float32).ravel()
        if len(x.shape) not in (1, 2):
            raise _err(f"input of shape {list(x.shape)}: [C] or [N, C] expected")
        if any(c < 0 or c > pool.size for c in counts) or any(b < c for c, b in zip(counts, counts[1:])):
            raise _err(f"ngram_counts {counts} are not increasing offsets into the pool of {pool.size}")
        if indexes.size == 0 or np.any(indexes < 0):
            raise _err("ngram_indexes must be non-negative (and not empty)")
        out_size = int(indexes.max()) + 1
        # The pooled n-grams by length: (their n-gram number, the n-grams).
        grams: dict[int, tuple[list[int], np.ndarray]] = {}
        number = 0
        for i, start in enumerate(counts):
            size = i + 1
            end = counts[i + 1] if i + 1 < len(counts) else pool.size
            items = pool[start:end]
            if items.size % size:
                raise _err(f"{items.size} pool entries for n-grams of length {size}")
            k = items.size // size
            if lo <= size <= hi and k:
                grams[size] = (list(range(number, number + k)), items.reshape(k, size))
            number += k
        if number > indexes.size:
            raise _err(f"{number} n-grams in the pool, {indexes.size} ngram_indexes")
        if weights.size and weights.size < number:
            raise _err(f"{weights.size} weights for {number} n-grams in the pool")
        # The weight of the i-th pooled n-gram (the spec; onnxruntime does the
        # same) on the output column it counts in.
        wcol = np.ones(out_size, np.float32)
        if weights.size:
            seen: dict[int, float] = {}
            for gid in range(number):
                o = int(indexes[gid])
                if o in seen and seen[o] != weights[gid]:
                    raise _err(f"n-grams of different weights count in output column {o}")
                seen[o] = wcol[o] = weights[gid]
        rows = x if len(x.shape) == 2 else self.em.reshape(x, (1, x.shape[0]))
        rows = self.ew([rows], rows.shape, _I64, lambda b, args, el: convert(b, args[0], x.dtype, _I64))
        nb, c = rows.shape
        parts, ids = [], []
        for size, (nums, table) in sorted(grams.items()):
            # Unigrams are counted once; longer n-grams at every skip.
            total = None
            for s in range(1, (skip + 1 if size > 1 else 1) + 1):
                span = (size - 1) * s
                p = c - span
                if p <= 0:
                    continue
                wins = [self.slice_(rows, [0, j * s], [nb, p]) for j in range(size)]
                ins = [(w, ["d0", "d1"]) for w in wins] + [(self.em.constant(np.ascontiguousarray(table[:, j])), ["d2"]) for j in range(size)]
                init = self.em.filled((nb, len(nums)), _I64, 0)

                def body(i, o, size=size):
                    lines, acc = [], ""
                    for j in range(size):
                        lines.append(f"%e{j} = arith.cmpi eq, {i[j]}, {i[size + j]} : i64")
                        if acc:
                            lines.append(f"%q{j} = arith.andi {acc}, %e{j} : i1")
                        acc = f"%q{j}" if acc else f"%e{j}"
                    return lines + [f"%c = arith.extui {acc} : i1 to i64", f"%r = arith.addi {o[0]}, %c : i64"], ["%r"]

                cnt = self.em.generic(ins, [((nb, len(nums)), _I64, init, ["d0", "d2"])], "prp", body)[0]
                total = cnt if total is None else self.ew([total, cnt], cnt.shape, _I64, lambda b, args, el: b.op("arith.addi", args[0], args[1], t="i64"))
            if total is not None:
                parts.append(total)
                ids.extend(nums)
        if parts:
            allc = self.concat(parts, 1)
            m = np.zeros((len(ids), out_size), np.int64)
            for k, gid in enumerate(ids):
                m[k, indexes[gid]] = 1
            init = self.em.filled((nb, out_size), _I64, 0)
            freq = self.em.generic([(allc, ["d0", "d2"]), (self.em.constant(m), ["d2", "d1"])], [((nb, out_size), _I64, init, ["d0", "d1"])], "ppr",
                                   lambda i, o: ([f"%m = arith.muli {i[0]}, {i[1]} : i64", f"%r = arith.addi {o[0]}, %m : i64"], ["%r"]))[0]  # fmt: skip
        else:
            freq = self.em.constant(np.zeros((nb, out_size), np.int64))
        f32 = np.dtype(np.float32)
        w = self.em.constant(wcol)

        def weigh(b, args, el):
            f = b.line(f"arith.sitofp {args[0]} : i64 to f32")
            if mode == "TF":
                return f
            if mode == "IDF":
                pos = b.cmp("arith.cmpi", "sgt", args[0], b.const(0, _I64), "i64")
                return b.select(pos, args[1], b.const(0.0, f32), "f32")
            return b.op("arith.mulf", args[1], f, t="f32")

        y = self.ew([freq, w], freq.shape, f32, weigh)
        return y if len(x.shape) == 2 else self.em.reshape(y, (out_size,))
