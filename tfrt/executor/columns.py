"""The column path: a function's first calls, straight from the file's columns.

Runs the first calls (before the compiled path exists) of a function whose
kernels are all synchronous, take no context and sit on the call's (root)
stream, when every argument is available, the request is not cancelled
and nothing traces: numpy turns the body's columns into a few Python
lists, in execution order (the ORDER column), and one loop calls the
kernels on plain values.  Nothing per kernel is built beyond those lists,
and no :class:`~tfrt.executor.plan.FunctionPlan` either.  A kernel that
raises hands the rest of the call to the interpreter's rules
(:func:`tfrt.executor.recovery._finish_in_order`, after the plan is
built): every other kernel is synchronous, so all of them run before the
call returns.  ``tests/runtime/test_column_path.py`` checks it against the
interpreter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from tfrt.async_value import CONCRETE, AsyncValue
from tfrt.executor.plan import ArityError, _fail, _partition_like_libstdcxx, result_count
from tfrt.executor.recovery import _finish_in_order, _release_dead
from tfrt.host_context import ExecutionContext

if TYPE_CHECKING:
    from tfrt.executor.program import BEFFunction, BEFProgram, _KernelTable


_K_NONE, _K_ONE, _K_TWO, _K_ATTR, _K_GENERAL = 0, 1, 2, 3, 4
_FREE_X, _FREE_Y, _DEAD = 1, 2, 4


class _ColumnPlan:
    # One list per step field, in execution order: the kind of call, the
    # kernel, operand x (or the attribute, or a general step's spec), operand
    # y, the result register, and what dies after the call (_FREE_X ...).
    # ``order``: the kernels (0-based) in the order the steps run them, when
    # it is not the body's ORDER column (a small body on several streams).
    # ``pure``: every kernel is (``KernelDef.pure``): the ordered path may
    # run the body as a branch.
    __slots__ = ("kinds", "fns", "xs", "ys", "rs", "ds", "num_registers", "returns", "order", "pure")

    def __init__(self) -> None:
        self.order: list[int] | None = None
        self.pure = False

    def run(self, exec_ctx: ExecutionContext, fn: Any, values: Sequence[Any]) -> Any:
        """Plain values in; a tuple of plain values out, or a list of
        AsyncValues when a kernel failed (the rest ran by the interpreter's
        rules).  ``fn``: the function, or a callable that makes it (asked
        for only when a kernel fails)."""
        regs: list[Any] = [None] * self.num_registers
        regs[: len(values)] = values
        v = None
        kind = x = r = None
        try:
            for kind, f, x, y, r, d in zip(self.kinds, self.fns, self.xs, self.ys, self.rs, self.ds):
                if kind == 2:
                    v = f(regs[x], regs[y])
                elif kind == 1:
                    v = f(regs[x])
                elif kind == 3:
                    v = f(x)
                elif kind == 0:
                    v = f()
                else:
                    v = None  # the last result is in regs: drop this reference
                    _general_step(regs, f, x)
                    continue
                if d:
                    if d == 1:  # the common case: the first operand's last use
                        regs[x] = None
                    else:
                        if d & 1:
                            regs[x] = None
                        if d & 2:
                            regs[y] = None
                        if d & 4:
                            v = None  # a result nobody uses dies now
                            continue
                regs[r] = v
        except BaseException as exc:
            if fn is None:
                raise  # (the ordered path runs the whole call again)
            v = None  # regs holds every value the rest of the call needs
            return _recover_columns(fn, exec_ctx, regs, self._position(kind, x, r), exc, self.order)
        returns = self.returns
        if len(returns) == 1:
            return (regs[returns[0]],)
        return tuple([regs[r] for r in returns])

    def _position(self, kind: int, x: Any, r: int) -> int:
        """Which step failed, from its locals: a general step's spec is its
        own object, and the other kinds have one result, so their result
        register is theirs alone."""
        kinds, xs, rs = self.kinds, self.xs, self.rs
        for p in range(len(kinds)):
            if kind == _K_GENERAL:
                if kinds[p] == _K_GENERAL and xs[p] is x:
                    return p
            elif kinds[p] != _K_GENERAL and rs[p] == r:
                return p
        raise AssertionError("a failed step that is not in the plan")


def _general_step(regs: list, f: Callable[..., Any], spec: tuple) -> None:
    attrs, args, results, free, dead = spec
    out = f(*attrs, *[regs[a] for a in args])
    n = len(results)
    if n > 1 and result_count(out) != n:
        raise ArityError(result_count(out), n)
    for a in free:
        regs[a] = None
    if n == 1:
        if not dead[0]:
            regs[results[0]] = out
        return
    if n == 0:
        return
    for r, v, gone in zip(results, out, dead):
        if not gone:
            regs[r] = v


def _column_plan(func: "BEFFunction") -> _ColumnPlan | None:
    """The column plan of ``func``, or None when it does not qualify."""
    program = func.program
    cols = func.bef_function.columns
    if cols is None or program.tracer:
        return None
    n = len(cols)
    table = program._kernel_table()
    if cols.lists is not None:
        return _small_column_plan(program, table, cols, cols.lists)
    simple = table.simple
    if n and not simple[cols.code].all():
        return None
    if n and (cols.stream.min() != cols.stream.max() or int(cols.stream[0]) != cols.root_stream):
        return None  # kernels off the call's stream are enqueued: the interpreter's order
    nregs = cols.num_registers
    order = cols.order.astype(np.int64)
    na = cols.num_args.astype(np.int64)[order]
    nt = cols.num_attrs.astype(np.int64)[order]
    nr = cols.num_results.astype(np.int64)[order]
    codes = cols.code[order]
    binding = table.binds[codes] if n else np.zeros(0, bool)
    fns = table.fns[codes].tolist()
    decode = None
    if binding.any():
        # Binding kernels get their attributes now and take only operands.
        decode = _attribute_decoder(program, table, cols, order, codes, nt)
        for p in np.nonzero(binding)[0].tolist():
            values = decode(p)
            if values is None:
                return None  # a bad attribute: the full plan reports it
            fns[p] = table.kdefs[codes[p]].bind(values)
        nt = np.where(binding, 0, nt)
    rb = cols.result_base[order]
    ops = _Operands(cols, order, na, rb)
    x, y, d = ops.x, ops.y, ops.d
    kind = np.full(n, _K_GENERAL, np.int64)
    one = nr == 1
    kind[one & (nt == 0) & (na == 0)] = _K_NONE
    kind[one & (nt == 0) & (na == 1)] = _K_ONE
    kind[one & (nt == 0) & (na == 2)] = _K_TWO
    kind[one & (nt == 1) & (na == 0)] = _K_ATTR
    # A kernel that uses one register twice frees it once.
    d = np.where((kind == _K_TWO) & (x == y), d & ~_FREE_Y, d)
    xs = x.tolist()
    kinds = kind.tolist()
    special = np.nonzero(kind >= _K_ATTR)[0].tolist()
    if special:
        # Few kernels as a rule (constants, calls of several results): each
        # reads its own slices, not whole columns.
        decode = decode or _attribute_decoder(program, table, cols, order, codes, nt)
        for p in special:
            values = () if binding[p] else decode(p)  # bound: the attributes are applied
            if values is None:
                return None  # a bad attribute: the full plan reports it
            if kinds[p] == _K_ATTR:
                xs[p] = values[0]
                continue
            xs[p] = (values, *ops.spec(p, int(rb[p]), int(nr[p])))
    plan = _ColumnPlan()
    plan.kinds, plan.fns, plan.xs, plan.ys, plan.rs, plan.ds = kinds, fns, xs, y.tolist(), rb.tolist(), d.tolist()
    plan.num_registers = nregs
    plan.returns = ops.returns.tolist()
    plan.pure = bool(table.pure[codes].all())
    return plan


class _Operands:
    """The registers a body's kernels read, in an execution order (the
    column path's and the ordered path's plans): each kernel's operand x
    and y (where it has them) and what dies after it (``d``: _FREE_X,
    _FREE_Y, _DEAD), from where each register is used last."""

    __slots__ = ("args", "a0", "na", "returns", "returned", "use_pos", "free", "has_use", "x", "y", "d")

    def __init__(self, cols: Any, order: np.ndarray, na: np.ndarray, rb: np.ndarray) -> None:
        n = len(order)
        nregs = cols.num_registers
        self.na = na
        self.a0 = a0 = cols.arg_start[order].astype(np.int64)
        self.args = args = cols.args.astype(np.int64)
        self.returns = returns = cols.returns.astype(np.int64)
        self.returned = returned = np.zeros(nregs + 1, bool)
        returned[returns] = True
        # Per operand use: its position in execution order; the last use of
        # a register that the function does not return frees it.
        rank = cols.rank  # (``order`` is the body's ORDER column)
        self.use_pos = use_pos = np.repeat(rank, cols.num_args)
        last = np.full(nregs + 1, -1, np.int64)
        np.maximum.at(last, args, use_pos)
        self.free = free = (use_pos == last[args]) & ~returned[args]
        self.has_use = has_use = last >= 0
        xi = np.where(na >= 1, a0, 0)
        yi = np.where(na >= 2, a0 + 1, 0)
        if len(args):
            self.x, self.y = args[xi], args[yi]
            fx, fy = free[xi] & (na >= 1), free[yi] & (na >= 2)
        else:
            self.x = self.y = np.zeros(n, np.int64)
            fx = fy = np.zeros(n, bool)
        dead = ~has_use[rb] & ~returned[rb]
        self.d = fx * _FREE_X + fy * _FREE_Y + dead * _DEAD

    def spec(self, p: int, base: int, nres: int) -> tuple:
        """Kernel ``p``'s operands, results, the operands it frees (in the
        order the interpreter drops them: of their last use in the list)
        and which results nobody uses, for a step that takes a spec."""
        s, m = int(self.a0[p]), int(self.na[p])
        k_args = tuple(self.args[s : s + m].tolist())
        k_frees = self.free[s : s + m].tolist()
        last_use = {a: i for i, a in enumerate(k_args) if k_frees[i]}
        k_free = tuple(sorted(last_use, key=last_use.__getitem__))
        results = tuple(range(base, base + nres))
        has_use, returned = self.has_use, self.returned
        return k_args, results, k_free, tuple(not has_use[r] and not returned[r] for r in results)


def _small_column_plan(program: "BEFProgram", table: "_KernelTable", cols: Any, L: Any) -> _ColumnPlan | None:
    """``_column_plan`` of a small body, from its columns as Python lists:
    the same plan, without numpy's per-call cost."""
    simple = table.simple_list
    code = L.code
    for c in code:
        if not simple[c]:
            return None
    n = len(code)
    nregs = cols.num_registers
    na, nt, nr, a0, t0, rb, args = L.num_args, L.num_attrs, L.num_results, L.arg_start, L.attr_start, L.result_base, L.args
    steps = _inline_order(cols.stream_list(), cols.root_stream, cols.num_args_fn, nregs, na, nr, a0, rb, args)
    if steps is None:
        return None  # a kernel would be enqueued: only the interpreter keeps TFRT's order
    returned = [False] * (nregs + 1)
    for r in L.returns:
        returned[r] = True
    rank = [0] * n
    for p, k in enumerate(steps):
        rank[k] = p
    # The last use of each register, in execution order; an operand whose
    # use is that last use frees the register (unless it is returned).
    last = [-1] * (nregs + 1)
    for k in range(n):
        pk = rank[k]
        for i in range(a0[k], a0[k] + na[k]):
            a = args[i]
            if last[a] < pk:
                last[a] = pk
    fns_of, binds, kdefs, names = table.fn_list, table.binds_list, table.kdefs, program.bef.kernel_names
    kinds, fns, xs, ys, rs, ds = [], [], [], [], [], []
    for k in steps:
        c, s, nargs, nres = code[k], a0[k], na[k], nr[k]
        pk = rank[k]
        f = fns_of[c]
        nattrs = nt[k]
        values = None
        if nattrs or binds[c]:
            values = program._attribute_values(kdefs[c], names[c], L.attrs[t0[k] : t0[k] + nattrs])
            if values is None:
                return None  # a bad attribute: the full plan reports it
            if binds[c]:
                f = kdefs[c].bind(values)
                values, nattrs = (), 0
        x = args[s] if nargs >= 1 else 0
        y = args[s + 1] if nargs >= 2 else 0
        base = rb[k]
        d = 0
        if nargs >= 1 and last[x] == pk and not returned[x]:
            d |= _FREE_X
        if nargs >= 2 and last[y] == pk and not returned[y] and y != x:
            d |= _FREE_Y
        if last[base] < 0 and not returned[base]:
            d |= _DEAD
        kind = _K_GENERAL
        if nres == 1 and nattrs == 0 and nargs <= 2:
            kind = (_K_NONE, _K_ONE, _K_TWO)[nargs]
        elif nres == 1 and nattrs == 1 and nargs == 0:
            kind, x = _K_ATTR, values[0]
        if kind == _K_GENERAL:
            k_args = tuple(args[s : s + nargs])
            last_use = {a: i for i, a in enumerate(k_args) if last[a] == pk and not returned[a]}
            k_free = tuple(sorted(last_use, key=last_use.__getitem__))
            results = tuple(range(base, base + nres))
            k_dead = tuple(last[r] < 0 and not returned[r] for r in results)
            x = (values or (), k_args, results, k_free, k_dead)
        kinds.append(kind)
        fns.append(f)
        xs.append(x)
        ys.append(y)
        rs.append(base)
        ds.append(d)
    plan = _ColumnPlan()
    plan.kinds, plan.fns, plan.xs, plan.ys, plan.rs, plan.ds = kinds, fns, xs, ys, rs, ds
    plan.num_registers = nregs
    plan.returns = list(L.returns)
    pure = table.pure_list
    plan.pure = all(pure[c] for c in code)
    if steps != L.order:
        plan.order = steps
    return plan


def _inline_order(stream: list[int], root: int, nfargs: int, nregs: int, na: list[int], nr: list[int],
                  a0: list[int], rb: list[int], args: list[int]) -> list[int] | None:  # fmt: skip
    """The order the interpreter runs a body of synchronous kernels in, all
    values available (``tfrt.executor.plan._replay`` over lists), or None
    when it would enqueue a kernel of another stream while the current one
    has work (TFRT runs that kernel later, from the work queue).  Kernels
    are numbered from 0."""
    n = len(na)
    users: list[list[int]] = [[] for _ in range(nregs)]
    start = []
    for k in range(n - 1, -1, -1):  # users latest first: MLIR's use-list order
        if not na[k]:
            start.append(k)
        for i in range(a0[k], a0[k] + na[k]):
            users[args[i]].append(k)
    start.reverse()
    counts = [c or 1 for c in na]
    current = root
    inline: list[int] = []
    outline: list[int] = []

    def ready(ks: list[int]) -> None:
        for u in ks:
            c = counts[u] - 1
            counts[u] = c
            if not c:
                (inline if stream[u] == current else outline).append(u)

    ready(start)
    for i in range(nfargs):
        ready(users[i])
    order = []
    while True:
        if not inline and outline:  # TFRT's SwitchStreamId
            current = stream[outline[0]]
            cut = _partition_like_libstdcxx(outline, lambda k: stream[k] != current)
            inline, outline = outline[cut:], outline[:cut]
        if outline:
            return None
        if not inline:
            break
        k = inline.pop()
        order.append(k)
        for r in range(rb[k], rb[k] + nr[k]):
            ready(users[r])
    return order if len(order) == n else None


def _attribute_decoder(program: "BEFProgram", table: "_KernelTable", cols: Any, order: np.ndarray,
                       codes: np.ndarray, nt: np.ndarray) -> Callable[[int], tuple | None]:  # fmt: skip
    """``decode(p)``: the attributes of the kernel at execution position ``p``
    (None when one cannot be decoded).  Reads only that kernel's entries."""
    names = program.bef.kernel_names
    attr_start = cols.attr_start
    attrs = cols.attrs

    def decode(p: int) -> tuple | None:
        code = int(codes[p])
        s = int(attr_start[order[p]])
        offsets = attrs[s : s + int(nt[p])].tolist()
        return program._attribute_values(table.kdefs[code], names[code], offsets)

    return decode


def _recover_columns(fn: "BEFFunction", exec_ctx: ExecutionContext, values: list, pos: int,
                     exc: BaseException, steps: list[int] | None = None) -> list[AsyncValue]:  # fmt: skip
    """Finish a column-path call whose kernel at ``pos`` (execution order) raised.

    ``fn`` may be a callable that makes the function (a region called
    before its object was made: ``BEFProgram.region_plan``)."""
    if callable(fn):
        fn = fn()
    plan = fn.plan
    cols = fn.bef_function.columns
    order = [k + 1 for k in (cols.order.tolist() if steps is None else steps)]
    kp = plan.kernels[order[pos]]
    exc.__traceback__ = None  # the failed kernel's frame lets go of its values now
    kuses = list(plan.kernel_uses)
    for kid in order[: pos + 1]:
        for r in plan.kernels[kid].args:
            kuses[r] -= 1
    returned = set(plan.result_registers)
    regs: list[AsyncValue | None] = [None] * plan.num_registers
    defined = list(range(cols.num_args_fn))
    for kid in order[:pos]:
        defined.extend(plan.kernels[kid].results)
    for r in defined:
        if kuses[r] > 0 or r in returned:
            regs[r] = AsyncValue(CONCRETE, values[r])
    values.clear()
    err = _fail(kp, exec_ctx, exc)
    del exc
    for i, r in enumerate(kp.results):
        regs[r] = err if kp.live[i] else None
    _release_dead(regs, kuses, plan)
    return _finish_in_order(plan, exec_ctx, regs, kuses, order[pos + 1 :])
