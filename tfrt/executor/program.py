"""Programs and functions: loading a BEF file, and choosing the path each call takes.

:meth:`BEFProgram.load` checks every kernel name against the registry (an
unknown name is reported at the first op that uses it, as TFRT's loader
does: ``unknown kernel name 'X'``) and resolves native functions; it
decodes no function body.  Each call of a :class:`BEFFunction` then takes
one path:

* a ``tfrt.sync`` function: :func:`tfrt.executor.interpreter._run_in_order`;
* a call at a depth that is a multiple of ``call_hop()``: started from the
  work queue (``_deep``);
* the compiled straight-line code (``compiled.py``), from the
  ``jit_threshold``-th call of a function that qualifies;
* before that, the column path (``columns.py``) for a function of
  synchronous kernels on one stream;
* for a blocking call made by the host (:meth:`BEFFunction.run`, as
  ``bef_executor`` makes) of a body whose kernels are all pure, the
  ordered path (``ordered.py``);
* otherwise TFRT's dataflow interpreter: ``flat.py`` on a single-threaded
  queue, ``interpreter.py`` on a threaded one (``traced.py`` when the
  program traces), on the plan built at the first such call.

The fast paths hand a failing call over to the interpreter through
``recovery.py``.  A function body is checked (``BEFFormatError``) when one
of these first reads it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import Any, Callable

import numpy as np

from tfrt.async_value import CONCRETE, ERROR, AsyncValue, ErrorCode, ErrorInfo, IndirectAsyncValue
from tfrt.bef import program as bp
from tfrt.bef.reader import BEFFormatError
from tfrt.executor.columns import _column_plan, _ColumnPlan
from tfrt.executor.compiled import _compile_fast, _FastCode
from tfrt.executor.flat import FlatPlan, _FlatExecution, build_flat_plan
from tfrt.executor.interpreter import _Execution, _run_in_order
from tfrt.executor.ordered import OrderedPlan, _OrderedCall, build_ordered_plan
from tfrt.executor.plan import FunctionPlan, KernelPlan, KernelSite, _build_plan, _without_gc
from tfrt.executor.recovery import _recover
from tfrt.executor.traced import _TracedExecution
from tfrt.host_context import ExecutionContext, HostContext, _call_hop, call_hop
from tfrt.kernels.registry import KernelDef, KernelError

DEFAULT_JIT_THRESHOLD = 2


class ProgramLoadError(Exception):
    """The BEF file could not be loaded; the diagnostics went to the host's handler."""


class _KernelTable:
    """Per kernel code of a program: its definition, function and whether the
    column path may call it (sync, no context)."""

    __slots__ = ("kdefs", "fns", "simple", "binds", "fn_list", "simple_list", "binds_list", "observing",
                 "pure", "pure_list", "is_async", "is_if", "ordered")  # fmt: skip

    def __init__(self, program: "BEFProgram") -> None:
        registry = program.host.registry
        self.kdefs = [registry.get(name) for name in program.bef.kernel_names]
        # As Python lists for small bodies, as numpy arrays for the others.
        self.fn_list = [kd.fn if kd is not None else None for kd in self.kdefs]
        self.simple_list = [kd is not None and kd.is_sync and not kd.context for kd in self.kdefs]
        self.binds_list = [kd is not None and kd.binds for kd in self.kdefs]
        self.fns = np.empty(len(self.kdefs), object)
        self.fns[:] = self.fn_list
        self.simple = np.array(self.simple_list, bool)
        self.binds = np.array(self.binds_list, bool)
        # Per code: the kernel observes AsyncValues (None: no such kernel).
        observing = [kd is not None and kd.observes_async_values for kd in self.kdefs]
        self.observing = np.array(observing, bool) if any(observing) else None
        # For the ordered path: pure kernels, and tfrt.if (pure when its branch is).
        self.pure_list = [kd is not None and kd.pure for kd in self.kdefs]
        self.pure = np.array(self.pure_list, bool)
        self.is_async = np.array([kd is not None and not kd.is_sync for kd in self.kdefs], bool)
        self.is_if = np.array([name == "tfrt.if" for name in program.bef.kernel_names], bool)
        self.ordered = self.pure | self.is_if


class BEFFunction:
    """A BEF function of a loaded program (TFRT's ``BEFFunction``)."""

    # What a function has before its first call (class attributes: a file
    # may hold tens of thousands of regions, each made when first run).
    _plan: FunctionPlan | None = None
    _flat: FlatPlan | None = None
    _flat_body_ok: bool | None = None
    _columns: _ColumnPlan | None | bool = False  # False: not looked at yet
    _fast: _FastCode | None = None
    _calls = 0
    _key: Any = False  # _body(), once asked for
    _ordered: OrderedPlan | None | bool = False  # False: not looked at yet
    # For a region (no name): the function it belongs to, once known.
    owner: str | None = None

    def __init__(self, program: "BEFProgram", fn: bp.Function) -> None:
        self.program = program
        self.index = fn.index
        self.name = fn.name
        self.kind = fn.kind
        self.arg_types = tuple(fn.arg_types)
        self.result_types = tuple(fn.result_types)
        self.bef_function = fn

    def describe(self) -> str:
        """``function 'f'``, or ``a region of function 'f'`` for a branch or loop body."""
        if self.name:
            return f"function '{self.name}'"
        if self.owner:
            return f"a region of function '{self.owner}'"
        return "a region"

    @property
    def plan(self) -> FunctionPlan:
        """The interpreter's plan, built (and the body checked) when first needed."""
        plan = self._plan
        if plan is None:
            plan = self._plan = _without_gc(_build_plan, self.bef_function, self.program)
        return plan

    @property
    def flat_plan(self) -> FlatPlan:
        """The flat interpreter's plan, built (and the body checked) when first needed."""
        plan = self._flat
        if plan is None:
            plan = self._flat = _without_gc(build_flat_plan, self)
        return plan

    def _flat_ok(self) -> bool:
        """Whether the interpreter's calls run on the flat plan: a body read
        from a file, a single-threaded queue, no tracer, and no kernel that
        observes its operands' AsyncValues (``KernelDef.observes_async_values``)."""
        program = self.program
        if not program.flat_interpreter or program.tracer or program.host.work_queue.threaded:
            return False
        ok = self._flat_body_ok
        if ok is None:
            cols = self.bef_function.columns
            ok = cols is not None
            if ok and len(cols):
                observing = program._kernel_table().observing
                ok = observing is None or not observing[np.asarray(cols.code)].any()
            self._flat_body_ok = ok
        return ok

    def _execution(self, ctx: ExecutionContext) -> Any:
        """The interpreter for one call: flat, traced or the general one."""
        if self.program.tracer:
            return _TracedExecution(self, ctx)
        if self._flat_ok():
            return _FlatExecution(self, ctx)
        return _Execution(self, ctx)

    def prepare(self) -> None:
        """Check the body and build what the first call needs (done by the
        first call otherwise; a call made by the host, for the ordered
        path).  Raises BEFFormatError for a malformed body."""
        if self.kind == bp.SYNC_FUNCTION:
            self.plan  # noqa: B018
        elif self._column_plan() is None:
            if self.program._may_order() and self._ordered_plan() is not None:
                pass
            elif self._flat_ok():
                self.flat_plan  # noqa: B018
            else:
                self.plan  # noqa: B018

    def _body(self) -> Any:
        """What decides what a call does: the kind, the signature and the
        body's bytes but its locations (None: no key, nothing is shared)."""
        key = self._key
        if key is False:
            key = self._key = bp.body_class(self.program.bef.functions, self.index)
        return key

    def _by_body(self, cache: dict, build: Callable[["BEFFunction"], Any]) -> Any:
        """``build(self)``, shared in ``cache`` by the functions whose bodies
        are the same (``_body``)."""
        key = self._body()
        if key is None:
            return _without_gc(build, self)
        plan = cache.get(key, False)
        if plan is False:
            plan = cache[key] = _without_gc(build, self)
        return plan

    def _column_plan(self) -> _ColumnPlan | None:
        cp = self._columns
        if cp is False:
            cp = self._columns = self._by_body(self.program._column_plans, _column_plan)
        return cp  # type: ignore[return-value]

    def _ordered_plan(self) -> OrderedPlan | None:
        """The ordered path's plan (None: the body is not pure), shared by
        functions with the same body as column plans are."""
        op = self._ordered
        if op is False:
            op = self._ordered = self._by_body(self.program._ordered_plans, build_ordered_plan)
        return op  # type: ignore[return-value]

    def _ordered_ok(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> bool:
        """Whether a blocking call (:meth:`run`) may take the ordered path
        (``ordered.py``): made by the host, on an idle single-threaded queue
        without a tracer, every argument available, the request not
        cancelled, a body of pure kernels that neither the compiled nor the
        column path runs."""
        if exec_ctx.depth or not self.program._may_order():
            return False
        wq = self.program.host.work_queue
        if getattr(wq, "busy", True) or not hasattr(wq, "run_queued_until"):
            return False
        if self.kind != bp.ASYNC_FUNCTION or exec_ctx.request.cancel_value is not None:
            return False
        if len(args) != len(self.arg_types) or self._fast is not None:
            return False
        for a in args:
            if a.state != CONCRETE:
                return False
        ctx = exec_ctx._nested or exec_ctx.nested()
        if ctx.deep or self._column_plan() is not None:
            return False
        return self._ordered_plan() is not None

    @property
    def num_arguments(self) -> int:
        return len(self.arg_types)

    @property
    def num_results(self) -> int:
        return len(self.result_types)

    def __repr__(self) -> str:
        return f"BEFFunction({self.name!r}, {self.arg_types} -> {self.result_types})"

    # -- execution ------------------------------------------------------------
    def execute(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """Run the function; returns one AsyncValue per result, possibly unavailable.

        ``exec_ctx`` is the caller's context; the function's kernels run one
        level deeper (``exec_ctx.nested()``).  Every ``call_hop()``-th level
        starts on the work queue instead of inline (see ``_deep``).
        """
        if len(args) != len(self.arg_types):
            raise TypeError(
                f"function '{self.name}' takes {len(self.arg_types)} arguments, got {len(args)}"
            )
        ctx = exec_ctx._nested or exec_ctx.nested()
        if ctx.deep:
            return self._deep(ctx, args)
        if self.kind == bp.SYNC_FUNCTION:
            return _run_in_order(self, ctx, args)
        fast = self._fast_code()
        if fast is not None and ctx.request.cancel_value is None:
            for a in args:
                if a.state != CONCRETE:
                    break
            else:
                vals = [a.value for a in args]
                try:
                    out = fast.func(ctx, *vals)
                except BaseException as exc:
                    return _recover(self, fast, ctx, exc, vals)
                return [AsyncValue(CONCRETE, v) for v in out]
        elif fast is None and ctx.request.cancel_value is None:
            cp = self._column_plan()
            if cp is not None:
                for a in args:
                    if a.state != CONCRETE:
                        break
                else:
                    out = cp.run(ctx, self, [a.value for a in args])
                    if type(out) is tuple:
                        return [AsyncValue(CONCRETE, v) for v in out]
                    return out
        ex = self._execution(ctx)
        results = ex.prebind_results()
        ex.run(args)
        return results

    def run(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """Execute and wait for every result: the host's blocking call (as
        ``bef_executor`` makes one per function).  Returns the results, all
        available.  A body of pure kernels may run on the ordered path
        (``ordered.py``): nothing can look at the call between its start
        and its end, so no order of its kernels can be seen."""
        if not self._ordered_ok(exec_ctx, args):
            results = self.execute(exec_ctx, args)
            exec_ctx.host.await_values(results)
            return results
        results = _OrderedCall(self, exec_ctx._nested or exec_ctx.nested(), args).start()
        exec_ctx.host.await_values(results)  # (those of a call run again in TFRT's order)
        return results

    def _deep(self, ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """A call at a depth that is a multiple of ``call_hop()``, or beyond the limit.

        Nested calls nest Python frames (a dozen per level), so recursion
        through ``tfrt.call`` would end in a RecursionError, or worse.  At
        every ``call_hop()``-th level (the recursion limit / 25) the function
        starts in a work-queue task instead: that task runs from the queue's
        loop, on a shallow stack, and the caller gets placeholders for the
        results (as TFRT enqueues a continuation that nests too deep).  So
        recursion of any depth runs, on every queue, with its memory growing
        with the depth and its stack bounded.  Past
        ``HostContext.max_call_depth`` the call returns an error naming the
        function and the depth (a function that recurses without end ends
        there, the same on every queue).  A ``tfrt.sync`` function is not
        deferred: it runs in order, inline.
        """
        depth = ctx.depth
        limit = ctx.host.max_call_depth
        if depth > limit:
            info = ErrorInfo(
                f"{self.describe()} called at depth {depth}, past the maximum call depth "
                f"{limit} (HostContext.max_call_depth)",
                ErrorCode.RESOURCE_EXHAUSTED,
            )
            return [AsyncValue(ERROR, info)] * len(self.result_types)
        if self.kind == bp.SYNC_FUNCTION:
            return _run_in_order(self, ctx, args)
        return self._start_later(ctx, args)

    def _start_later(self, ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """Run the function (at ``ctx``'s depth) from a work-queue task; placeholders now."""
        ex = self._execution(ctx)
        results = ex.prebind_results()
        args = list(args)
        ctx.host.enqueue_task(lambda: ex.run(args))
        return results

    def execute_async(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """Start the function in a work-queue task; results are placeholders (TFRT's ExecuteAsync)."""
        ctx = exec_ctx._nested or exec_ctx.nested()
        if ctx.depth > ctx.host.max_call_depth:
            return self._deep(ctx, args)
        return self._start_later(ctx, args)

    def call_values(self, exec_ctx: ExecutionContext, values: Sequence[Any]) -> list[AsyncValue] | tuple:
        """Run with plain argument values.

        Returns a tuple of plain values when the compiled path ran without an
        error, else a list of AsyncValues (the caller awaits and unwraps).
        """
        return self.call_values_in(exec_ctx._nested or exec_ctx.nested(), values)

    def call_values_in(self, ctx: ExecutionContext, values: Sequence[Any]) -> list[AsyncValue] | tuple:
        """:meth:`call_values` given the context the function's own kernels run
        in (the caller's ``exec_ctx.nested()``), for callers that make it once:
        a loop calling its body, ``Program.call``."""
        if ctx.deep:
            return self._deep(ctx, [AsyncValue(CONCRETE, v) for v in values])
        fast = self._fast  # only ever set for functions that are not SYNC_FUNCTIONs
        if fast is None:
            if self.kind == bp.SYNC_FUNCTION:
                return _run_in_order(self, ctx, [AsyncValue(CONCRETE, v) for v in values])
            fast = self._fast_code()
        if fast is not None and ctx.request.cancel_value is None:
            try:
                return fast.func(ctx, *values)
            except BaseException as exc:
                return _recover(self, fast, ctx, exc, values)
        if fast is None and ctx.request.cancel_value is None:
            cp = self._column_plan()
            if cp is not None:
                return cp.run(ctx, self, values)
        ex = self._execution(ctx)
        results = ex.prebind_results()
        ex.run([AsyncValue(CONCRETE, v) for v in values])
        return results

    def _fast_code(self) -> _FastCode | None:
        fast = self._fast
        if fast is not None:
            return fast
        if self.program.tracer:
            return None
        self._calls += 1
        if self._calls < self.program.jit_threshold or self._calls < 0:
            return None
        # Functions with the same body share their code when it names no
        # kernel's site (no async or context kernel: an error is reported
        # through the function's own plan), as they share column plans.
        key = self._body()
        shared = self.program._fast_codes
        fast = shared.get(key, False) if key is not None else False
        if fast is None:
            self._calls = -(1 << 62)  # never qualifies: stop counting
            return None
        if fast is False:
            if self.plan.order is None:
                if key is not None:
                    shared[key] = None
                self._calls = -(1 << 62)  # never qualifies: stop counting
                return None
            fast = _compile_fast(self)
            if key is not None and all(kp.sync and not kp.context for kp in self.plan.kernels[1:]):
                shared[key] = fast
        self._fast = fast
        return fast

    def compile(self) -> bool:
        """Compile the fast path now (if the function qualifies); returns whether it did."""
        if self.plan.order is None:
            return False
        if self._fast is None:
            self._fast = _compile_fast(self)
        return True


class NativeFunction:
    """A ``{tfrt.native}`` function: a registered Python callable (TFRT's NativeFunction)."""

    def __init__(self, program: "BEFProgram", fn: bp.Function, impl: Callable[..., Any]) -> None:
        self.program = program
        self.index = fn.index
        self.name = fn.name
        self.kind = fn.kind
        self.arg_types = tuple(fn.arg_types)
        self.result_types = tuple(fn.result_types)
        self.impl = impl
        self.plan = None

    @property
    def num_arguments(self) -> int:
        return len(self.arg_types)

    @property
    def num_results(self) -> int:
        return len(self.result_types)

    def __repr__(self) -> str:
        return f"NativeFunction({self.name!r})"

    def _call(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        n = len(self.result_types)
        try:
            out = self.impl(list(args), n, exec_ctx.host)
        except KernelError as exc:
            return [AsyncValue(ERROR, ErrorInfo(exc.message, exc.code))] * n
        except BaseException as exc:  # errors are values, whatever raised them
            if not isinstance(exc, Exception):
                exec_ctx.request.interrupt(exc)
            return [AsyncValue(ERROR, ErrorInfo(f"{type(exc).__name__}: {exc}"))] * n
        out = list(out or ())
        if len(out) != n:
            err = ErrorInfo(f"native function '{self.name}' returned {len(out)} results, expected {n}")
            return [AsyncValue(ERROR, err)] * n
        return [v if isinstance(v, AsyncValue) else AsyncValue(CONCRETE, v) for v in out]

    def execute(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        pending = [a for a in args if not a.state]
        if not pending:
            return self._call(exec_ctx, args)
        results = [IndirectAsyncValue() for _ in self.result_types]
        from tfrt.async_value import run_when_ready

        def go() -> None:
            for ind, v in zip(results, self._call(exec_ctx, args)):
                ind.forward_to(v)

        run_when_ready(pending, go)
        return results  # type: ignore[return-value]

    def execute_async(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        results = [IndirectAsyncValue() for _ in self.result_types]

        def go() -> None:
            for ind, v in zip(results, self.execute(exec_ctx, args)):
                ind.forward_to(v)

        exec_ctx.host.enqueue_task(go)
        return results  # type: ignore[return-value]

    def call_values(self, exec_ctx: ExecutionContext, values: Sequence[Any]) -> list[AsyncValue]:
        return self.execute(exec_ctx, [AsyncValue(CONCRETE, v) for v in values])

    call_values_in = call_values  # a native function does not nest

    def run(self, exec_ctx: ExecutionContext, args: Sequence[AsyncValue]) -> list[AsyncValue]:
        """Execute and wait for every result (``BEFFunction.run``)."""
        results = self.execute(exec_ctx, args)
        exec_ctx.host.await_values(results)
        return results


class _Functions(Sequence):
    """A program's functions, indexed as in the file: each made when first
    asked for (a file of an unrolled loop holds tens of thousands of
    regions, most of which a call never runs)."""

    __slots__ = ("_program", "_bef", "_items")

    def __init__(self, program: "BEFProgram", bef_functions: Sequence[bp.Function]) -> None:
        self._program = program
        self._bef = bef_functions
        self._items: list[BEFFunction | NativeFunction | None] = [None] * len(bef_functions)

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: Any) -> Any:
        if type(i) is int:
            f = self._items[i]  # IndexError as a list's
            if f is None:
                f = self._items[i] = BEFFunction(self._program, self._bef[i])
                calls = self._program._unmade_calls
                if calls and i in calls:  # (its first calls ran on a shared plan)
                    f._calls = calls.pop(i)
            return f
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._items)))]
        return self[i.__index__()]

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self._items)):
            yield self[i]

    def made(self) -> list[Any]:
        """The functions made so far."""
        return [f for f in self._items if f is not None]

    def __repr__(self) -> str:
        return f"<{len(self._items)} functions>"


class BEFProgram:
    """A loaded BEF file: its functions, ready to run on a host."""

    def __init__(self, bef: bp.BefFile, host: HostContext, *, jit_threshold: int = DEFAULT_JIT_THRESHOLD) -> None:
        self.bef = bef
        self.host = host
        self.jit_threshold = jit_threshold
        self.tracer: Any = None  # set by tfrt.tracing to trace every kernel
        # False: the interpreter's calls run on the general interpreter
        # (interpreter.py) even where the flat one applies (a reference).
        self.flat_interpreter = True
        # False: calls of pure bodies run in TFRT's order too (ordered.py).
        self.ordered = True
        self.functions: _Functions = _Functions(self, [])
        self._by_name: dict[str, int] = {}  # name -> index (the last of that name)
        self._kernels: _KernelTable | None = None
        # Column plans by body (bp.Function.body_key): functions whose bodies
        # differ only in their locations share one plan.
        self._column_plans: dict[Any, _ColumnPlan | None] = {}
        # Compiled code by body, for bodies of plain kernels (_fast_code).
        self._fast_codes: dict[Any, _FastCode | None] = {}
        self._ordered_plans: dict[Any, OrderedPlan | None] = {}
        # Calls that ran on a shared column plan before the function object
        # was made (region_plan): index -> count, handed to the object.
        self._unmade_calls: dict[int, int] = {}

    def _may_order(self) -> bool:
        """Whether host calls may take the ordered path at all: switched on,
        untraced, on a single-threaded queue."""
        return self.ordered and not self.tracer and not self.host.work_queue.threaded

    def region_plan(self, index: int, num_args: int) -> _ColumnPlan | None:
        """The column plan a call of function ``index`` runs on, when no
        object is made for that function yet and another function with the
        same body has made the plan (the regions of an unrolled loop, each
        run once); None otherwise: the caller makes the function and calls
        it.  What the call would do is the same: the function's first
        calls run on its column plan, and the call is counted towards its
        ``jit_threshold``.  The caller checks ``ExecutionContext.deep``
        and cancellation, as ``call_values_in`` does."""
        if self.functions._items[index] is not None:
            return None  # (made: its own paths)
        calls = self._unmade_calls.get(index, 0) + 1
        if calls >= self.jit_threshold:
            return None  # this call may compile: the function object's
        key = bp.body_class(self.bef.functions, index)
        if key is None or key[0] != bp.ASYNC_FUNCTION or len(key[1]) != num_args:
            return None
        cp = self._column_plans.get(key)
        if cp is not None:
            self._unmade_calls[index] = calls
        return cp

    def _kernel_table(self) -> _KernelTable:
        table = self._kernels
        if table is None:
            table = self._kernels = _KernelTable(self)
        return table

    @classmethod
    def load(
        cls, bef: bp.BefFile, host: HostContext, *, jit_threshold: int = DEFAULT_JIT_THRESHOLD
    ) -> "BEFProgram":
        """Resolve kernels and native functions.  Each function's body is
        checked and planned when it is first called (``BEFFunction.prepare``
        does it ahead of time).

        Problems are reported to ``host.diag_handler`` (an unknown kernel at
        the location of the first op that uses it) and raise ProgramLoadError.
        """
        prog = cls(bef, host, jit_threshold=jit_threshold)
        prog._check_kernel_names()
        registry = host.registry
        functions = prog.functions = _Functions(prog, bef.functions)
        for i in bp.native_functions(bef.functions):
            f = bef.functions[i]
            ndef = registry.get_native(f.name)
            if ndef is None:
                # TFRT's loader wording, plus the name it leaves out.
                prog._load_error(
                    "invalid FunctionIndex section in BEF file: unable to find native "
                    f"function in global registry: '{f.name}'"
                )
            functions._items[i] = NativeFunction(prog, f, ndef.fn)
        prog._by_name = dict((name, i) for i, name in bp.named_functions(bef.functions))
        return prog

    def named_functions(self) -> list["BEFFunction | NativeFunction"]:
        """The functions that have a name, in the file's order (a region's
        function is made only when something runs or asks for it)."""
        functions = self.functions
        return [functions[i] for i, _name in bp.named_functions(self.bef.functions)]

    def release(self) -> None:
        """Drop every function's plans and the references that make cycles
        (functions <-> program), so that the program is freed as soon as the
        caller lets go of it, without a pass of the cyclic GC over its
        plans.  The program cannot run afterwards."""
        functions = self.functions
        made = functions.made() if isinstance(functions, _Functions) else functions
        for f in made:
            if isinstance(f, BEFFunction):
                # Back to the class's defaults (a region that never ran
                # holds none of these).
                d = f.__dict__
                if len(d) > 7:
                    for name in ("_plan", "_flat", "_columns", "_fast", "_ordered"):
                        d.pop(name, None)
            f.program = None
        self.functions = _Functions(self, [])
        self._by_name = {}
        self._kernels = None
        self._column_plans = {}
        self._fast_codes = {}
        self._ordered_plans = {}

    def function(self, name: str) -> BEFFunction | NativeFunction | None:
        index = self._by_name.get(name)
        return None if index is None else self.functions[index]

    def _load_error(self, message: str, location: bp.Location | None = None) -> None:
        self.host.emit_error(ErrorInfo(message), location)
        raise ProgramLoadError(message)

    def _check_kernel_names(self) -> None:
        registry = self.host.registry
        for code, name in enumerate(self.bef.kernel_names):
            if name not in registry:
                self._load_error(f"unknown kernel name '{name}'", self._first_use(code, name))

    def _first_use(self, code: int, name: str) -> bp.Location | None:
        """The location of the first kernel ``code`` of the file (None when
        no body that can be read uses it).

        Only a load that fails looks: bodies are searched through their
        columns, and a body that is itself malformed is passed over (it is
        reported when its function is called, or by ``--verify_all``).
        """
        for f in self.bef.functions:
            if f.kind == bp.NATIVE_FUNCTION:
                continue
            try:
                cols = f.columns
            except BEFFormatError:
                continue
            if cols is None:  # a function built in memory
                for k in f.kernels:
                    if k.name == name:
                        return KernelSite(name, k.location, self).decoded_location()
                continue
            hits = np.flatnonzero(cols.code == code)
            if len(hits):
                return KernelSite(name, int(cols.locations[hits[0]]), self).decoded_location()
        return None

    def _make_kernel_plan(
        self, plan: FunctionPlan, kid: int, name: str, location: int, args: tuple[int, ...],
        attrs: tuple[int, ...], funcs: tuple[int, ...], results: tuple[int, ...],
        used_by: tuple[tuple[int, ...], ...], _num_operands: int, stream: int,
    ) -> KernelPlan:  # fmt: skip
        kdef: KernelDef | None = self.host.registry.get(name)
        site = KernelSite(name, location, self)
        if kdef is None:  # a name outside the Kernels section: the reader let it through
            self._load_error(f"unknown kernel name '{name}'", site.decoded_location())
        kp = KernelPlan()
        kp.kid = kid
        kp.site = site
        kp.kdef = kdef
        kp.fn = kdef.fn
        kp.sync = kdef.is_sync
        kp.context = kdef.context
        kp.simple = kp.sync and not kp.context
        kp.attrs = self._decode_attrs(kdef, name, attrs, site) if attrs else ()
        if kdef.binds:
            kp.fn = kdef.bind(kp.attrs)
            kp.attrs = ()
        try:
            kp.funcs = tuple([self.functions[i] for i in funcs])
        except IndexError:
            self._load_error(f"kernel '{name}' refers to a function that does not exist",
                             site.decoded_location())
        kp.args = args
        kp.results = results
        kp.used_by = used_by
        uses = plan.register_uses
        kp.live = tuple([uses[r] > 0 for r in results])
        kp.stream = stream
        kp.nres = len(results)
        return kp

    def _decode_attrs(self, kdef: KernelDef, name: str, offsets: tuple[int, ...], site: KernelSite) -> tuple[Any, ...]:
        try:
            return self._attr_values(kdef, offsets)
        except _AttributeProblem as problem:
            self._load_error(f"kernel '{name}': {problem}", site.decoded_location())
            raise  # not reached: _load_error raises

    def _attribute_values(self, kdef: KernelDef, name: str, offsets: Sequence[int]) -> tuple[Any, ...] | None:
        """The decoded attributes, or None when one cannot be decoded (the
        full plan then reports it)."""
        try:
            return self._attr_values(kdef, offsets)
        except _AttributeProblem:
            return None

    def _attr_values(self, kdef: KernelDef, offsets: Sequence[int]) -> tuple[Any, ...]:
        declared = kdef.attr_codes
        recorded = self.bef.attribute_types
        values = []
        for i, off in enumerate(offsets):
            code = declared[i] if declared is not None and i < len(declared) else None
            if code is None and recorded is not None:
                code = recorded.get(off)
            if code is None:
                raise _AttributeProblem(
                    f"attribute {i} has no recorded type "
                    "(the BEF file has no AttributeTypes section and the kernel does not "
                    "declare the attribute's kind)"
                )
            try:
                values.append(self.bef.attribute(off, code))
            except Exception as exc:
                raise _AttributeProblem(f"cannot decode attribute {i}: {exc}") from None
        return tuple(values)


class _AttributeProblem(Exception):
    pass


def set_recursion_limit(limit: int = 20000) -> None:
    """Room for nested function executions on the Python stack: ``call_hop()``
    levels (800 with this limit) nest inline before a call starts from the
    work queue on a fresh stack."""
    if sys.getrecursionlimit() < limit:
        sys.setrecursionlimit(limit)
    _call_hop[0] = call_hop()
