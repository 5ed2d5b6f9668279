"""``tfrt_array.generic``: any ``linalg.generic``, evaluated with numpy over its iteration space.

``lower-linalg`` turns most structured ops into a few fast kernels (matmul,
conv2d, elementwise, reduce, einsum).  What none of its patterns matches —
indexing maps that are not projected permutations (``d1 * 2 + d4``,
constants, ``d0 floordiv 4``), reductions whose body is not ``combine(out,
f(in))`` (an argmax carries two results; a Welford update reads its own
accumulator twice), ``tensor.extract`` of a tensor from outside the body —
lowers to this kernel, which runs the body exactly as linalg defines it:

* each operand is gathered over the iteration space through its indexing map
  (an index out of the operand's bounds is an error, not a wrapped read);
* with only parallel loops, or when every result is ``combine(out, f(in))``
  with an associative ``combine`` (``kinds``), the body runs once, vectorized
  over the whole space, then reduces over the reduction loops;
* otherwise the reduction loops run in lexicographic order, one step per
  point, the body vectorized over the parallel loops, each step reading the
  accumulators the previous one wrote (linalg's sequential semantics);
* the results are copies of the ``outs`` operands with the computed elements
  written through the outputs' indexing maps.

Attributes (name order, as BEF stores them):

``body``
    One statement per line, ``tN = EXPR : REF, REF...`` where ``EXPR`` is an
    expression of the elementwise language (``tfrt.kernels.expr``) over
    ``a0, a1...`` standing for the listed references, or ``tN = extract : T,
    I...`` (the element of captured tensor ``T`` at indices ``I``).
    References: ``in<k>`` (input k at the current point), ``acc<k>`` (output
    k's current value), ``cap<k>`` (captured operand k), ``idx<d>`` (the
    index along loop d), ``t<N>`` (an earlier statement), ``#<int>`` (an
    index constant).
``iterators``
    One letter per loop: ``p`` parallel, ``r`` reduction.
``kinds``
    Per result, comma-separated: a reduction kind (sum, prod, max, min,
    maxnum, minnum, and, or, xor) when the yielded value is that combination
    of the accumulator with a value of the inputs only, or empty.  With a
    kind, ``yields`` names that value (the contribution).
``maps``
    Per operand, ``;``-separated: its indexing map's results as
    comma-separated affine expressions over ``d0, d1...`` (``+ - * // %``,
    ``cdiv(a, b)``, integers); empty for a scalar operand and a capture.
``n_inputs``
    How many operands are ``ins``; the next ``len(yields)`` are ``outs``, the
    rest are captures (scalars and tensors the body reads).
``ranges``
    The extent of each loop.
``types``
    The operands' element types, comma-separated (scalars arrive as Python
    numbers: this gives them their width).
``yields``
    The references the body yields, comma-separated.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from typing import Any

import numpy as np

from tfrt.kernels.expr import DTYPES, ExprError, type_name
from tfrt.kernels.registry import KernelError, kernel

_KINDS = ("sum", "prod", "max", "min", "maxnum", "minnum", "and", "or", "xor")
_COMBINE = {
    "sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum", "maxnum": "fmax",
    "minnum": "fmin", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
}  # fmt: skip
_BOOL_COMBINE = {"sum": "bitwise_xor", "prod": "bitwise_and", "max": "bitwise_or", "min": "bitwise_and"}


def _fail(message: str) -> KernelError:
    return KernelError(f"tfrt_array.generic: {message}")


# ---------------------------------------------------------------------------
# Affine expressions: parsed once (never eval'd: a BEF file is untrusted input)


def _parse_affine(text: str, n_dims: int):
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise _fail(f"cannot parse the affine expression '{text}'") from None

    def conv(t):
        if isinstance(t, ast.Name) and t.id[:1] == "d" and t.id[1:].isdigit():
            d = int(t.id[1:])
            if d >= n_dims:
                raise _fail(f"'{t.id}' in '{text}': there are {n_dims} loops")
            return ("dim", d)
        if isinstance(t, ast.Constant) and type(t.value) is int:
            return ("const", t.value)
        if isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.USub):
            return ("neg", conv(t.operand))
        if isinstance(t, ast.BinOp) and type(t.op) in _AFFINE_BINOPS:
            return (_AFFINE_BINOPS[type(t.op)], conv(t.left), conv(t.right))
        if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "cdiv" and len(t.args) == 2:
            return ("cdiv", conv(t.args[0]), conv(t.args[1]))
        raise _fail(f"unsupported affine expression '{ast.unparse(t)}' in '{text}'")

    return conv(tree)


_AFFINE_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.FloorDiv: "floordiv", ast.Mod: "mod"}


def _eval_affine(node, dims):
    op = node[0]
    if op == "dim":
        return dims[node[1]]
    if op == "const":
        return np.int64(node[1])
    if op == "neg":
        return -_eval_affine(node[1], dims)
    a, b = _eval_affine(node[1], dims), _eval_affine(node[2], dims)
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if np.any(np.asarray(b) <= 0):
        raise _fail("an indexing map divides by a value that is not positive")
    if op == "floordiv":
        return a // b
    if op == "mod":
        return a % b
    return -((-a) // b)  # cdiv


# ---------------------------------------------------------------------------
# The body program


def _parse_body(body: str) -> list[tuple[str, str, list[str]]]:
    stmts = []
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            lhs, rest = line.split("=", 1)
            expr, refs = rest.rsplit(":", 1)
        except ValueError:
            raise _fail(f"malformed body statement '{line}'") from None
        name, refs_ = lhs.strip(), [r.strip() for r in refs.split(",") if r.strip()]
        if not _STMT_NAME.fullmatch(name) or not all(_REF.fullmatch(r) for r in refs_):
            raise _fail(f"malformed body statement '{line}' (names are t<N>; references in/acc/cap/idx/t<N> or #<int>)")
        stmts.append((name, expr.strip(), refs_))
    return stmts


_STMT_NAME = re.compile(r"t[0-9]+")
_REF = re.compile(r"(?:in|acc|cap|idx|t)[0-9]+|#-?[0-9]+")


def _evaluate(stmts, env: dict, xp) -> None:
    from tfrt.kernels.tfrt_array import _compiled

    for name, expr, refs in stmts:
        try:
            args = [env[r] if r[:1] != "#" else np.int64(int(r[1:])) for r in refs]
        except KeyError as exc:
            raise _fail(f"statement '{name}' reads {exc.args[0]}, which is not defined before it") from None
        except ValueError:
            raise _fail(f"statement '{name}' has a malformed reference") from None
        if expr == "extract":
            env[name] = _extract(args, xp)
            continue
        arrays = [xp.asarray(a) for a in args]
        types = ",".join(type_name(a.dtype) for a in arrays)
        try:
            fn = _compiled(expr, types, xp, -1)
        except (ExprError, KeyError) as exc:
            raise _fail(f"statement '{name}': {exc}") from None
        shape = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
        env[name] = fn(xp.empty(shape, fn.out_dtype), *arrays)


def _extract(args, xp):
    table, *indices = args
    table = xp.asarray(table)
    if len(indices) != table.ndim:
        raise _fail(f"extract from a rank-{table.ndim} tensor with {len(indices)} indices")
    idx = []
    for k, i in enumerate(indices):
        i = xp.asarray(i).astype(np.int64)
        bad = (i < 0) | (i >= table.shape[k])
        if bool(xp.any(bad)):
            first = int(i[bad].reshape(-1)[0]) if i.ndim else int(i)
            raise _fail(f"tensor.extract index {first} is out of bounds for dimension {k} of size {table.shape[k]}")
        idx.append(i)
    return table[tuple(idx)]


# ---------------------------------------------------------------------------
# The kernel


@kernel("tfrt_array.generic", attrs=("str", "str", "str", "str", "i64", "i64[]", "str", "str"), bind=True)
def generic(body, iterators, kinds, maps, n_inputs, ranges, types, yields):
    ranges = tuple(int(r) for r in ranges)
    try:
        dtypes = [DTYPES[t] for t in types.split(",")] if types else []
    except KeyError as exc:
        raise _fail(f"unknown element type {exc.args[0]} in types '{types}'") from None
    n_dims = len(ranges)
    if len(iterators) != n_dims or set(iterators) - {"p", "r"}:
        raise _fail(f"iterators '{iterators}' do not match the {n_dims} loops")
    yields_ = [y.strip() for y in yields.split(",")] if yields else []
    if not all(_REF.fullmatch(y) for y in yields_):
        raise _fail(f"malformed yields '{yields}'")
    n_out = len(yields_)
    kinds_ = kinds.split(",") if kinds else [""] * n_out
    if len(kinds_) != n_out or any(k and k not in _KINDS for k in kinds_):
        raise _fail(f"kinds '{kinds}' do not match the {n_out} results")
    parsed_maps = [
        [_parse_affine(e, n_dims) for e in m.split(",")] if m.strip() else [] for m in maps.split(";")
    ] if maps else []  # fmt: skip
    stmts = _parse_body(body)
    par = [d for d, c in enumerate(iterators) if c == "p"]
    red = [d for d, c in enumerate(iterators) if c == "r"]
    order = par + red  # loops as array axes: parallel first
    n_in = int(n_inputs)
    vectorized = not red or all(kinds_)

    def run(*operands):
        if len(operands) < n_in + n_out or len(parsed_maps) < n_in + n_out:
            raise _fail(f"expected at least {n_in + n_out} operands and maps")
        xp = np
        for x in operands:
            if hasattr(x, "__cuda_array_interface__"):
                import cupy

                xp = cupy
                break
        if len(dtypes) == len(operands):
            # Scalars arrive as Python numbers: give each its element type (i32 stays i32).
            operands = tuple(x if hasattr(x, "dtype") and getattr(x, "ndim", 0) else np.asarray(x, dtype=dt)
                             for x, dt in zip(operands, dtypes))  # fmt: skip
        ins, outs = operands[:n_in], operands[n_in : n_in + n_out]
        caps = operands[n_in + n_out :]
        # Loop d's indices as an array along axis order.index(d).
        dims = []
        for d in range(n_dims):
            shape = [1] * n_dims
            shape[order.index(d)] = ranges[d]
            dims.append(np.arange(ranges[d], dtype=np.int64).reshape(shape))

        def gather(i, x, loop_dims):
            m = parsed_maps[i]
            x = xp.asarray(x)
            if len(m) != x.ndim:
                raise _fail(f"operand {i} has rank {x.ndim} but its indexing map has {len(m)} results")
            if not m:
                return x.reshape((1,) * n_dims) if n_dims else x
            idx = []
            for k, e in enumerate(m):
                v = np.asarray(_eval_affine(e, loop_dims), dtype=np.int64)
                if v.size and (v.min() < 0 or v.max() >= x.shape[k]):
                    bad = v[(v < 0) | (v >= x.shape[k])].reshape(-1)[0]
                    raise _fail(f"operand {i}: its indexing map reads index {int(bad)} of dimension {k} "
                                f"(size {x.shape[k]})")  # fmt: skip
                idx.append(v if xp is np else xp.asarray(v))
            g = x[tuple(idx)]
            return g.reshape(g.shape + (1,) * (n_dims - g.ndim)) if g.ndim < n_dims else g

        if math.prod(ranges) == 0:
            return _results([xp.array(o, copy=True) for o in outs], n_out)
        gathered = [gather(i, x, dims) for i, x in enumerate(ins)]
        results = [xp.array(o, copy=True) for o in outs]
        # Values over the parallel loops, shaped (parallel extents..., 1 per reduction loop).
        acc_shape = tuple(ranges[d] for d in par) + (1,) * len(red)
        out_idx = [_out_index(parsed_maps[n_in + j], dims, red, results[j], acc_shape) for j in range(n_out)]

        def read(j):
            if out_idx[j] is None:
                return xp.broadcast_to(xp.asarray(results[j][()]), acc_shape)
            return results[j][out_idx[j]]

        def write(j, value):
            value = xp.broadcast_to(xp.asarray(value).astype(results[j].dtype, copy=False), acc_shape)
            if out_idx[j] is None:
                results[j][()] = value.reshape(-1)[-1] if value.size else results[j][()]
            else:
                results[j][out_idx[j]] = value

        if vectorized:
            env: dict[str, Any] = {f"in{k}": g for k, g in enumerate(gathered)}
            env.update({f"cap{k}": c for k, c in enumerate(caps)})
            env.update({f"idx{d}": dims[d] for d in range(n_dims)})
            if not red:
                env.update({f"acc{j}": read(j) for j in range(n_out)})
            _evaluate(stmts, env, xp)
            axes = tuple(range(len(par), n_dims))
            full = tuple(ranges[d] for d in order)
            for j, (y, kind) in enumerate(zip(yields_, kinds_)):
                v = xp.asarray(_ref(env, y))
                if kind:
                    v = _reduce(kind, xp.broadcast_to(v, full), axes, xp)
                    acc = read(j)
                    v = _combine(kind, acc, v.astype(acc.dtype), xp)
                write(j, v)
            return _results(results, n_out)

        if xp is np and math.prod(acc_shape) == 1 and not caps_are_tensors(caps):
            accs = _sequential_scalars(stmts, gathered, [read(j) for j in range(n_out)], caps, yields_,
                                       [ranges[d] for d in red], red, par)  # fmt: skip
            for j in range(n_out):
                write(j, accs[j])
            return _results(results, n_out)
        # Sequential over the reduction loops, vectorized over the parallel ones.
        accs = [read(j) for j in range(n_out)]
        base_env: dict[str, Any] = {f"cap{k}": c for k, c in enumerate(caps)}
        base_env.update({f"idx{d}": dims[d] for d in par})
        n_par = len(par)
        for point in itertools.product(*(range(ranges[d]) for d in red)):
            env = dict(base_env)
            for k, g in enumerate(gathered):
                # An operand that does not vary along a reduction loop has extent 1 there.
                sl = (slice(None),) * n_par + tuple(
                    slice(p, p + 1) if g.shape[n_par + i] != 1 else slice(0, 1) for i, p in enumerate(point)
                )
                env[f"in{k}"] = g[sl]
            env.update({f"idx{d}": np.int64(p) for d, p in zip(red, point)})
            env.update({f"acc{j}": a for j, a in enumerate(accs)})
            _evaluate(stmts, env, xp)
            accs = [xp.broadcast_to(xp.asarray(_ref(env, y)).astype(accs[j].dtype, copy=False), acc_shape)
                    for j, y in enumerate(yields_)]  # fmt: skip
        for j in range(n_out):
            write(j, accs[j])
        return _results(results, n_out)

    return run


def caps_are_tensors(caps) -> bool:
    return any(getattr(c, "ndim", 0) for c in caps)


def _sequential_scalars(stmts, gathered, accs, caps, yields, red_extents, red, par):
    """The reduction loops one point at a time on numpy scalars (one parallel
    point): each statement compiled once for scalars (``compile_scalar``), the
    loop itself generated as one Python function (no lookups per step)."""
    from tfrt.kernels.expr import compile_scalar

    full = (1,) * len(par) + tuple(red_extents)
    n = math.prod(red_extents)
    flat = [np.broadcast_to(g, full).reshape(-1) for g in gathered]
    acc_types = [a.dtype for a in accs]
    # The first point through the interpreter: it fixes each statement's operand types.
    env: dict[str, Any] = {f"cap{k}": c for k, c in enumerate(caps)}
    for j, a in enumerate(accs):
        env[f"acc{j}"] = acc_types[j].type(a.reshape(-1)[0])
    for k, f in enumerate(flat):
        env[f"in{k}"] = f[0]
    for d in red:
        env[f"idx{d}"] = np.int64(0)
    fns = []
    for name, expr, refs in stmts:
        if expr == "extract":
            raise _fail("extract in the scalar path")  # pragma: no cover - callers keep tensors out
        try:
            args = [env[r] if r[:1] != "#" else np.int64(int(r[1:])) for r in refs]
        except KeyError as exc:
            raise _fail(f"statement '{name}' reads {exc.args[0]}, which is not defined before it") from None
        try:
            fn = compile_scalar(expr, tuple(type_name(np.asarray(a).dtype) for a in args))
        except (ExprError, KeyError) as exc:
            raise _fail(f"statement '{name}': {exc}") from None
        fns.append(fn)
        env[name] = fn(*args)
    for j, y in enumerate(yields):
        env[f"acc{j}"] = acc_types[j].type(_ref(env, y))
    if n == 1:
        return [np.asarray(env[f"acc{j}"], dtype=acc_types[j]) for j in range(len(accs))]
    # The remaining points: one generated loop.
    strides = [math.prod(red_extents[i + 1 :]) for i in range(len(red_extents))]
    lines = [f"def _loop({', '.join(f'acc{j}' for j in range(len(accs)))}):"]
    lines.append(f"    for _p in range(1, {n}):")
    for k in range(len(flat)):
        lines.append(f"        in{k} = _in{k}[_p]")
    for d, st, ext in zip(red, strides, red_extents):
        lines.append(f"        idx{d} = _i64((_p // {st}) % {ext})")
    for s_no, (name, _expr, refs) in enumerate(stmts):
        args = ", ".join(r if r[:1] != "#" else f"_i64({int(r[1:])})" for r in refs)
        lines.append(f"        {name} = _f{s_no}({args})")
    new_accs = ", ".join(f"_T{j}({_py_ref(y)})" for j, y in enumerate(yields))
    lines.append(f"        {', '.join(f'acc{j}' for j in range(len(accs)))}{',' if len(accs) == 1 else ''} = {new_accs}{',' if len(accs) == 1 else ''}")
    lines.append(f"    return ({', '.join(f'acc{j}' for j in range(len(accs)))},)")
    namespace: dict[str, Any] = {"_i64": np.int64}
    namespace.update({f"_in{k}": f for k, f in enumerate(flat)})
    namespace.update({f"cap{k}": c for k, c in enumerate(caps)})
    namespace.update({f"_f{i}": f for i, f in enumerate(fns)})
    namespace.update({f"_T{j}": t.type for j, t in enumerate(acc_types)})
    exec(compile("\n".join(lines) + "\n", "<tfrt_array.generic loop>", "exec"), namespace)  # noqa: S102 - names checked
    out = namespace["_loop"](*(env[f"acc{j}"] for j in range(len(accs))))
    return [np.asarray(v, dtype=acc_types[j]) for j, v in enumerate(out)]


def _py_ref(name: str) -> str:
    return name if name[:1] != "#" else f"_i64({int(name[1:])})"


def _ref(env, name):
    if name[:1] == "#":
        return np.int64(int(name[1:]))
    try:
        return env[name]
    except KeyError:
        raise _fail(f"the body yields {name}, which it does not define") from None


def _out_index(m, dims, red, out, acc_shape):
    """Index arrays (shaped ``acc_shape``) of the output elements the parallel
    loops write; None for a rank-0 output."""
    if len(m) != out.ndim:
        raise _fail(f"an output has rank {out.ndim} but its indexing map has {len(m)} results")
    if not m:
        return None
    reduced = list(dims)
    for d in red:
        reduced[d] = np.zeros((1,) * dims[d].ndim, dtype=np.int64)
    idx = []
    for k, e in enumerate(m):
        v = np.asarray(_eval_affine(e, reduced), dtype=np.int64)
        if v.size and (v.min() < 0 or v.max() >= out.shape[k]):
            raise _fail(f"an output's indexing map writes outside dimension {k} (size {out.shape[k]})")
        idx.append(np.broadcast_to(v, acc_shape))
    if not hasattr(out, "__cuda_array_interface__"):
        return tuple(idx)
    import cupy

    return tuple(cupy.asarray(v) for v in idx)


def _reduce(kind, v, axes, xp):
    if not axes:
        return v
    if kind in ("max", "min") and v.dtype != np.bool_:
        from tfrt.kernels.tfrt_array import signed_zero_extremum

        r = getattr(xp, _COMBINE[kind]).reduce(v, axis=axes, keepdims=True)
        return signed_zero_extremum(kind, xp, v, r, axes, True)
    if v.dtype == np.bool_ and kind in _BOOL_COMBINE:
        return getattr(xp, _BOOL_COMBINE[kind]).reduce(v, axis=axes, keepdims=True)
    if kind in ("sum", "prod"):
        return (xp.sum if kind == "sum" else xp.prod)(v, axis=axes, dtype=v.dtype, keepdims=True)
    return getattr(xp, _COMBINE[kind]).reduce(v, axis=axes, keepdims=True)


def _combine(kind, acc, v, xp):
    if acc.dtype == np.bool_ and kind in _BOOL_COMBINE:
        return getattr(xp, _BOOL_COMBINE[kind])(acc, v)
    if kind in ("max", "min"):
        from tfrt.kernels.tfrt_array import signed_zero_extremum

        both = xp.stack(xp.broadcast_arrays(xp.asarray(acc), xp.asarray(v)))
        r = getattr(xp, _COMBINE[kind]).reduce(both, axis=0)
        return signed_zero_extremum(kind, xp, both, r, (0,), False)
    return getattr(xp, _COMBINE[kind])(acc, v)


def _results(results, n_out):
    return results[0] if n_out == 1 else tuple(results)
