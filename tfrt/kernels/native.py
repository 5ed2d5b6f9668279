"""Native functions: ``func.func private @f(...) attributes {tfrt.native}`` bodies in Python.

After TFRT's ``lib/test_kernels/test_native_functions.cc``.  A native function
receives its (available) argument AsyncValues, the number of results and the
HostContext, and returns its results::

    func.func private @native_add(%a: i32, %b: i32) -> i32 attributes {tfrt.native}
    %r = tfrt.call @native_add(%a, %b) : (i32, i32) -> i32
"""

from __future__ import annotations

from tfrt.async_value import AsyncValue
from tfrt.kernels.basic import wrap_i32
from tfrt.kernels.registry import CHAIN, KernelError, native_function


@native_function("native_sink")
def native_sink(args: list[AsyncValue], num_results: int, host) -> list:
    """Accepts any arguments, returns nothing."""
    return []


@native_function("native_async_sink")
def native_async_sink(args: list[AsyncValue], num_results: int, host) -> list:
    """Accepts any arguments, returns one chain."""
    return [CHAIN]


@native_function("native_add")
def native_add(args: list[AsyncValue], num_results: int, host) -> list:
    return [wrap_i32(args[0].get() + args[1].get())]


@native_function("native_async_add")
def native_async_add(args: list[AsyncValue], num_results: int, host) -> list:
    total = wrap_i32(args[0].get() + args[1].get())
    return [host.enqueue_work(lambda: total)]


@native_function("native_error")
def native_error(args: list[AsyncValue], num_results: int, host) -> list:
    raise KernelError("something bad happened")
