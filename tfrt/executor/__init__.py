"""The BEF executor: what runs a kernel, in one read.

A loaded program (:class:`BEFProgram`, ``program.py``) holds one
:class:`BEFFunction` per function of the file.  Each call of a function
takes one of these paths (``program.py`` chooses, per call):

========================  ==================================================  ==============
path                      when it runs                                        module
========================  ==================================================  ==============
column path               first calls of a function of synchronous kernels    ``columns.py``
                          on one stream: a loop over lists numpy made from
                          the body's columns
compiled path             from the ``jit_threshold``-th call of a function     ``compiled.py``
                          that runs inline: generated straight-line Python
ordered path              a call made by the host of a body whose kernels     ``ordered.py``
                          are all pure (``KernelDef.pure``), async kernels,
                          ``tfrt.if`` and several streams included: the
                          column path's loop in the body's ORDER; anything
                          but the plain case runs the call again in TFRT's
                          order
flat interpreter          everything else on a single-threaded queue (async   ``flat.py``
                          kernels, several streams, pending arguments,
                          cancellation): TFRT's ``BEFExecutor`` on plain
                          values and list plans made with numpy
interpreter               the same on a threaded queue, for a function built  ``interpreter.py``
                          in memory, and where a fast path hands over
                          (``BEFProgram.flat_interpreter = False``: always);
                          ``tfrt.sync`` functions in order
traced interpreter        every call of a program with a tracer               ``traced.py``
recovery                  a kernel fails (or a call's results are pending)    ``recovery.py``
                          on the column or compiled path: the interpreter
                          takes over in the state it would have reached
========================  ==================================================  ==============

All of them call a kernel through :func:`tfrt.executor.plan._invoke` or,
on plain values, the kernel's function itself, and they agree on what a
call prints, reports and returns (``tests/runtime/test_fast_path.py``,
``test_column_path.py``, ``test_side_effect_order.py``,
``test_flat_interpreter.py``, ``test_ordered_path.py``).  The shared plan
(``plan.py``: a function's kernels, registers, used-by lists, ready counts
and streams, and the kernel call) is built once per function, the first
time a path needs it; the flat interpreter has its own list plan
(``flat.py``: ``FlatPlan``), made from the same columns.  Modules import one
way: ``plan`` <- ``interpreter`` <- ``traced``; ``plan`` <- ``compiled``;
``plan`` <- ``flat``; ``interpreter``, ``compiled`` <- ``recovery`` <-
``columns`` <- ``ordered``; all <- ``program``.

Example::

    program = BEFProgram.load(read_bef("x.bef", lazy=True), HostContext())
    fn = program.function("main")
    results = fn.execute(host.new_execution_context(), [])   # AsyncValues
"""

from __future__ import annotations

from tfrt.executor.columns import _ColumnPlan
from tfrt.executor.compiled import FAST_CHUNK
from tfrt.executor.interpreter import _Execution
from tfrt.executor.plan import (
    FAST_ASYNC_KERNELS,
    MAX_CONTINUATION_DEPTH,
    FunctionPlan,
    KernelPlan,
    KernelSite,
    debug_info,
    location_to_string,
)
from tfrt.executor.program import (
    DEFAULT_JIT_THRESHOLD,
    BEFFunction,
    BEFProgram,
    NativeFunction,
    ProgramLoadError,
    set_recursion_limit,
)
from tfrt.executor.traced import _TracedExecution

__all__ = [
    "BEFFunction",
    "BEFProgram",
    "DEFAULT_JIT_THRESHOLD",
    "FAST_ASYNC_KERNELS",
    "FAST_CHUNK",
    "FunctionPlan",
    "KernelPlan",
    "KernelSite",
    "MAX_CONTINUATION_DEPTH",
    "NativeFunction",
    "ProgramLoadError",
    "debug_info",
    "location_to_string",
    "set_recursion_limit",
    # What tests reach into: the interpreter and the column plan.
    "_ColumnPlan",
    "_Execution",
    "_TracedExecution",
]
