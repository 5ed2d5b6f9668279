"""The test kernels TFRT's lit tests use: ``tfrt_test.*``, ``tfrt_tutorial.*``, ``vt.*``.

After ``lib/test_kernels/*.cc``; print formats are TFRT's exactly.

    %ch1 = "tfrt_test.print_hello"(%ch0) : (!tfrt.chain) -> !tfrt.chain   // hello host executor!
    %x = "tfrt_test.fail"() : () -> i32                                   // error: something bad happened
    %y = tfrt_test.do.async %a : (i32) -> (i32) { ... }                   // runs the region as a task
"""

from __future__ import annotations

import random
import sys
import threading
import time
from typing import Any

import numpy as np

from tfrt.async_value import (
    CONCRETE,
    AsyncValue,
    IndirectAsyncValue,
    run_when_ready,
)
from tfrt.host_context import tfrt_log
from tfrt.kernels.basic import wrap_i32, wrap_i64
from tfrt.kernels.registry import (
    CHAIN,
    AsyncKernelFrame,
    KernelContext,
    KernelError,
    kernel,
    print_line,
)


def _sleep_random_ms() -> None:
    time.sleep(random.randint(1, 10) / 1000.0)


# ---------------------------------------------------------------------------
# Simple kernels (simple_kernels.cc).


@kernel("tfrt_test.print_hello")
def print_hello(*_chain):
    print_line("hello host executor!")
    return CHAIN


@kernel("tfrt_test.get_string", attrs=("str",))
def get_string(value):
    return str(value)


# TFRT's sync-function form of `get_string`; the same kernel.
kernel("tfrt_test.get_string_sync", attrs=("str",))(get_string)


@kernel("tfrt_test.print_string")
def print_string(s, *_chain):
    print_line(f"string = {s}")
    return CHAIN


@kernel("tfrt_test.append_string")
def append_string(a, b):
    return a + b


@kernel("tfrt_test.string_equal")
def string_equal(a, b):
    return a == b


@kernel("tfrt_test.read_string_from_file")
def read_string_from_file(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("latin-1")
    except OSError:
        raise KernelError(f"failed to read from file {path}") from None


@kernel("tfrt_test.format_string")
def format_string(fmt, index):
    return fmt % index


_thread_ids = threading.local()
_next_thread_id = [0]
_thread_id_lock = threading.Lock()


@kernel("tfrt_test.get_thread_id")
def get_thread_id(*_chain):
    tid = getattr(_thread_ids, "id", None)
    if tid is None:
        with _thread_id_lock:
            tid = _next_thread_id[0]
            _next_thread_id[0] += 1
        _thread_ids.id = tid
    return tid


@kernel("tfrt_test.sum")
def sum_(*values):
    return wrap_i32(sum(values))


@kernel("tfrt_test.count3.i32")
def count3_i32(x):
    return wrap_i32(x + 1), wrap_i32(x + 2), wrap_i32(x + 3)


@kernel("tfrt_test.count3.i64")
def count3_i64(x):
    return wrap_i64(x + 1), wrap_i64(x + 2), wrap_i64(x + 3)


@kernel("tfrt_test.copy.with_delay.i32")
def copy_with_delay_i32(x):
    # A badly behaved kernel on purpose: it sleeps on the calling thread.
    _sleep_random_ms()
    return x


@kernel("tfrt_test.copy.with_delay.i64")
def copy_with_delay_i64(x):
    _sleep_random_ms()
    return x


@kernel("tfrt_test.identity", kind="async")
def identity(frame: AsyncKernelFrame):
    # (chain, values...) -> values: the same AsyncValues, not copies.
    frame.results[:] = frame.args[1:]


@kernel("tfrt_test.multi_arg_result", kind="async")
def multi_arg_result(frame: AsyncKernelFrame):
    frame.results[:] = frame.args


@kernel("tfrt_test.memory_leak_one_int32", context=True)
def memory_leak_one_int32(ctx: KernelContext):
    # Leaks a 4-byte host allocation on purpose: the leak checker must notice.
    _leaked.append(ctx.host.allocate(4))


_leaked: list[Any] = []


class VTValue:
    """vt.value: an int that reports construction and destruction, like TFRT's VTValue."""

    __slots__ = ("v",)

    def __init__(self, v: int) -> None:
        self.v = v
        # C++ constructs a temporary and moves it into the AsyncValue; the
        # moved-from temporary prints nothing when destroyed.
        print_line(f"constructed vt.value({v})")
        print_line(f"move constructed vt.value({v})")

    def __del__(self) -> None:
        try:
            print_line(f"destroyed vt.value({self.v})")
        except Exception:  # interpreter shutdown: stdout may be gone
            pass


@kernel("vt.constant", attrs=("i32",))
def vt_constant(value):
    return VTValue(value)


@kernel("vt.add")
def vt_add(a, b):
    return VTValue(wrap_i32(a.v + b.v))


@kernel("vt.print")
def vt_print(v, *_chain):
    print_line(f"print vt_value({v.v})")
    return CHAIN


@kernel("tfrt_test.share_to_two", kind="async")
def share_to_two(frame: AsyncKernelFrame):
    frame.results[0] = frame.args[0]
    frame.results[1] = frame.args[0]


# ---------------------------------------------------------------------------
# Simple test kernels (simple_test_kernels.cc).


@kernel("tfrt_test.fail")
def fail(*_):
    raise KernelError("something bad happened")


@kernel("tfrt_test.error_chain")
def error_chain(*_):
    raise KernelError("error chain")


@kernel("tfrt_test.partial_fail", kind="async")
def partial_fail(frame: AsyncKernelFrame):
    frame.set_value(0, 1)
    frame.report_error("something bad happened")


@kernel("tfrt_test.report_error_async", kind="async")
def report_error_async(frame: AsyncKernelFrame):
    frame.allocate_result(0)
    frame.host.enqueue_task(lambda: frame.report_error("something bad happened asynchronously"))


@kernel("tfrt_test.report_error_concrete_async", kind="async")
def report_error_concrete_async(frame: AsyncKernelFrame):
    value = frame.arg(0)
    result = frame.allocate_result(0)

    def later() -> None:
        if value == 0:
            result.set_value(value)
        else:
            frame.report_error("something bad happened asynchronously")

    frame.host.enqueue_task(later)


@kernel("tfrt_test.report_error_indirect_async", kind="async")
def report_error_indirect_async(frame: AsyncKernelFrame):
    value = frame.arg(0)
    result = IndirectAsyncValue()
    frame.set_result(0, result)

    def later() -> None:
        if value == 0:
            result.forward_to(AsyncValue(CONCRETE, 0))
        else:
            frame.report_error("something bad happened asynchronously")

    frame.host.enqueue_task(later)


@kernel("tfrt_test.cancel", context=True)
def cancel(ctx: KernelContext, *_chain):
    # Test-only: real kernels never cancel their own request.
    ctx.exec_ctx.request.cancel()
    return 0, CHAIN


@kernel("tfrt_test.flat", attrs=("aggregate",))
def flat(value):
    # value = [["string", [i32, i32]], [f32]]
    first, second = value[0], value[1]
    ints = first[1]
    return str(first[0]), int(ints[0]), int(ints[1]), _f32(second[0])


def _f32(v: Any) -> Any:
    import numpy as np

    return np.float32(v)


@kernel("tfrt_test.async_value_get")
def async_value_get():
    # TFRT checks AsyncValue::get<Base>() on derived payloads; a Python value
    # is simply its own type, so the observable result is the same string.
    return "base1:base2:final_class:3"


def _describe(v: AsyncValue) -> str:
    return f"available:{v.value}" if v.state else "unavailable"


@kernel("tfrt_test.async_value_ref")
def async_value_ref():
    parts: list[str] = []
    two = AsyncValue.make_available(2)
    parts.append(_describe(two))
    three = AsyncValue()
    parts.append(";" + _describe(three))
    three.and_then(lambda: parts.append(f"({three.value})"))
    parts.append(";")
    three.set_value(3)
    parts.append(";" + _describe(three))
    four = AsyncValue()
    parts.append(";" + _describe(four))
    (lambda: four.set_value(4))()
    parts.append(";" + _describe(four))
    return "".join(parts)


@kernel("tfrt_test.logging")
def logging_(s, *_chain):
    where = "simple_test_kernels.py:1"
    tfrt_log("INFO", f"from TFRT_LOG(INFO): {s}", where)
    tfrt_log("WARNING", f"from TFRT_LOG(WARNING): {s}", where)
    tfrt_log("ERROR", f"from TFRT_LOG(ERROR): {s}", where)
    tfrt_log("INFO", f"from TFRT_LOG_IF(INFO, true): {s}", where)
    tfrt_log("WARNING", f"from TFRT_LOG_IF(WARNING, true): {s}", where)
    tfrt_log("ERROR", f"from TFRT_LOG_IF(ERROR, true): {s}", where)
    return CHAIN


class TestResource:
    """A resource that reports its allocation and destruction."""

    def __init__(self) -> None:
        print_line("Allocated TestResource")

    def __del__(self) -> None:
        try:
            print_line("Destroyed TestResource")
        except Exception:  # interpreter shutdown
            pass


class ResourceBox:
    """unique_ptr<TestResource>: reset() destroys the resource now."""

    __slots__ = ("resource",)

    def __init__(self, resource: TestResource) -> None:
        self.resource: TestResource | None = resource

    def reset(self) -> None:
        self.resource = None


@kernel("tfrt_test.allocate_resource")
def allocate_resource(*_chain):
    return ResourceBox(TestResource()), CHAIN


@kernel("tfrt_test.deallocate_resource")
def deallocate_resource(box, *_chain):
    box.reset()
    print_line("tfrt_test.deallocate_resource done")
    return CHAIN


class SampleSharedContext:
    """A shared context: one instance per HostContext, named after the instance count."""

    instance_count = 0

    def __init__(self, host: Any) -> None:
        self.name = f"sample_shared_context{SampleSharedContext.instance_count}"
        SampleSharedContext.instance_count += 1


@kernel("tfrt_test.use_sample_shared_context", context=True)
def use_sample_shared_context(ctx: KernelContext, *_chain):
    return ctx.host.shared_context(SampleSharedContext).name, CHAIN


_locations: dict[int, str] = {}
_locations_lock = threading.Lock()


@kernel("tfrt_test.unique_loc", attrs=("str",), context=True)
def unique_loc(ctx: KernelContext, name, *_):
    offset = ctx.location_offset
    with _locations_lock:
        seen = _locations.setdefault(offset, name)
    if seen != name:
        raise KernelError(f"duplicate locations {offset}")
    return CHAIN


@kernel("tfrt_test.print_bool")
def print_bool(_chain, value, *_):
    print_line("true" if value else "false")
    return CHAIN


@kernel("tfrt_test.test_cost", attrs=("i64",))
def test_cost(id_, *_args):
    print_line(f"id: {id_}")
    return 0


@kernel("tfrt_test.print_debug_info", context=True)
def print_debug_info(ctx: KernelContext, *_chain):
    info = ctx.debug_info
    print_line(info if info is not None else "Kernel has no debug info")
    return CHAIN


@kernel("tfrt_test.get_uniqueness", kind="async", observes_async_values=True)
def get_uniqueness(frame: AsyncKernelFrame):
    # TFRT answers AsyncValue::IsUnique(): only the kernel's own reference is
    # left.  Here: the frame's argument list is the only holder of the
    # AsyncValue (the executor dropped the register after its last use), and
    # it is not an IndirectAsyncValue (whose target someone else produced).
    args = frame.args
    for i in range(len(args)):
        av = args[i]
        # References: the argument list, `av`, and getrefcount's parameter.
        unique = type(av) is AsyncValue and sys.getrefcount(av) <= 3
        frame.set_value(i, unique)
        del av


@kernel("tfrt_test.make_indirect", kind="async")
def make_indirect(frame: AsyncKernelFrame):
    for i, arg in enumerate(frame.args):
        ind = IndirectAsyncValue()
        ind.forward_to(arg)
        frame.set_result(i, ind)


# ---------------------------------------------------------------------------
# Async kernels (async_kernels.cc, async_test_kernels.cc).


@kernel("tfrt_test.async_constant.i1", attrs=("i1",), kind="async", pure=True)
def async_constant_i1(frame: AsyncKernelFrame):
    value = bool(frame.attrs[0])
    return frame.host.enqueue_work(lambda: value)


@kernel("tfrt_test.async_constant.i32", attrs=("i32",), kind="async", pure=True)
def async_constant_i32(frame: AsyncKernelFrame):
    value = frame.attrs[0]
    return frame.host.enqueue_work(lambda: value)


@kernel("tfrt_test.async_add.i32", kind="async", pure=True)
def async_add_i32(frame: AsyncKernelFrame):
    a, b = frame.arg(0), frame.arg(1)
    return frame.host.enqueue_work(lambda: wrap_i32(a + b))


@kernel("tfrt_test.async_copy.i32", kind="async", pure=True)
def async_copy_i32(frame: AsyncKernelFrame):
    value = frame.arg(0)
    return frame.host.enqueue_work(lambda: value)


def _async_copy_with_delay(frame: AsyncKernelFrame):
    value = frame.arg(0)

    def later():
        _sleep_random_ms()
        return value

    return frame.host.enqueue_work(later)


kernel("tfrt_test.async_copy.with_delay.i32", kind="async")(_async_copy_with_delay)
kernel("tfrt_test.async_copy.with_delay.i64", kind="async")(_async_copy_with_delay)


@kernel("tfrt_test.async_copy_2.i32", kind="async")
def async_copy_2_i32(frame: AsyncKernelFrame):
    value = frame.arg(0)
    result = frame.allocate_result(0)
    frame.host.enqueue_task(lambda: result.set_value(value))


@kernel("tfrt_test.do.async", kind="async")
def do_async(frame: AsyncKernelFrame):
    body = frame.funcs[0]
    args = list(frame.args)
    exec_ctx = frame.exec_ctx
    results = [IndirectAsyncValue() for _ in range(frame.num_results)]

    def run() -> None:
        for ind, v in zip(results, body.execute(exec_ctx, args)):
            ind.forward_to(v)

    frame.host.enqueue_task(run)
    return results


@kernel("tfrt_test.quiesce", context=True)
def quiesce(ctx: KernelContext, *_chain):
    ctx.host.quiesce()
    return CHAIN


@kernel("tfrt_test.as_chain", kind="async")
def as_chain(frame: AsyncKernelFrame):
    chain = AsyncValue()
    run_when_ready(frame.args, lambda: chain.set_value(CHAIN))
    return chain


def _report_blocking_refused() -> None:
    sys.stdout.flush()
    sys.stderr.write(
        "Failed to enqueue blocking work. Maximum number of pending blocking tasks reached.\n"
    )
    sys.stderr.flush()


@kernel("tfrt_test.usleep", context=True)
def usleep(ctx: KernelContext, micros, *_):
    def sleep() -> None:
        time.sleep(micros / 1e6)
        print_line(f"Slept for {micros} microseconds")

    if not ctx.host.enqueue_blocking_work(sleep):
        _report_blocking_refused()


@kernel("tfrt_test.blocking.usleep", kind="async")
def blocking_usleep(frame: AsyncKernelFrame):
    micros = frame.arg(0)
    done = frame.allocate_result(0)

    def sleep() -> None:
        time.sleep(micros / 1e6)
        print_line(f"Slept for {micros} microseconds")
        done.set_value(CHAIN)

    if not frame.host.enqueue_blocking_work(sleep):
        _report_blocking_refused()


# ---------------------------------------------------------------------------
# Atomic kernels (atomic_test_kernels.cc).


class AtomicI32:
    """std::atomic<int32_t>: a lock-protected counter shared by kernels."""

    __slots__ = ("value", "_lock")

    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.value = wrap_i32(self.value + n)


@kernel("tfrt_test.atomic.create.i32")
def atomic_create_i32():
    return AtomicI32()


@kernel("tfrt_test.atomic.inc.i32")
def atomic_inc_i32(a, *_chain):
    a.add(1)
    return CHAIN


@kernel("tfrt_test.atomic.add.i32")
def atomic_add_i32(a, n, *_chain):
    a.add(n)
    return CHAIN


@kernel("tfrt_test.atomic.get.i32")
def atomic_get_i32(a, *_chain):
    return a.value, CHAIN


# ---------------------------------------------------------------------------
# Benchmark kernel (benchmark_kernels.cc).


class _BenchmarkStats:
    def __init__(self, name: str, warmup: int, max_count: int, duration_s: int) -> None:
        self.name = name
        self.warmup = warmup
        self.max_count = max_count
        self.duration_ns = duration_s * 1_000_000_000
        self.count = 0
        self.wall: list[int] = []
        self.cpu: list[int] = []
        self.total_wall = 0
        self.total_cpu = 0
        self._start_wall = 0
        self._start_cpu = 0

    def start_run(self) -> None:
        self.count += 1
        self._start_cpu = time.process_time_ns()
        self._start_wall = time.perf_counter_ns()

    def stop_run(self) -> None:
        if self.count <= self.warmup:
            return
        wall = time.perf_counter_ns() - self._start_wall
        cpu = time.process_time_ns() - self._start_cpu
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.total_wall += wall
        self.total_cpu += cpu

    def more(self) -> bool:
        return self.count < self.max_count + self.warmup and self.total_wall < self.duration_ns

    def summarize(self) -> None:
        wall = sorted(self.wall) or [0]
        cpu = sorted(self.cpu) or [0]

        def pct(p: float, xs: list[int]) -> int:
            return xs[min(int(len(xs) * p), len(xs) - 1)]

        prefix = f"BM:{self.name}:"
        util = self.total_cpu * 100.0 / self.total_wall if self.total_wall else 0.0
        lines = [
            f"Duration(ns): {self.total_wall}",
            f"Count: {len(self.wall)}",
            f"Time Min(ns): {wall[0]}",
            f"Time 50%(ns): {pct(0.5, wall)}",
            f"Time 95%(ns): {pct(0.95, wall)}",
            f"Time 99%(ns): {pct(0.99, wall)}",
            f"CPU Min(ns): {cpu[0]}",
            f"CPU 50%(ns): {pct(0.5, cpu)}",
            f"CPU 95%(ns): {pct(0.95, cpu)}",
            f"CPU 99%(ns): {pct(0.99, cpu)}",
            f"CPU utilization(percent): {util:g}",
        ]
        print_line("\n".join(prefix + line for line in lines))


# Attributes in name order: duration_secs, max_count, name, num_warmup_runs.
@kernel("tfrt_test.benchmark", attrs=("i32", "i32", "str", "i32"), kind="async")
def benchmark(frame: AsyncKernelFrame):
    duration_secs, max_count, name, num_warmup_runs = frame.attrs
    fn = frame.funcs[0]
    if fn.num_results != 1:
        frame.report_error(
            "Benchmark op requires the input function have exactly one return value"
        )
        return None
    stats = _BenchmarkStats(str(name), num_warmup_runs, max_count, duration_secs)
    args = list(frame.args)
    exec_ctx = frame.exec_ctx
    done = frame.allocate_result(0)
    host = frame.host

    def start_run() -> None:
        stats.start_run()
        # Each run is a work-queue task, so runs never nest on the stack.
        host.enqueue_task(run_once)

    def run_once() -> None:
        (result,) = fn.execute(exec_ctx, args)

        def finished() -> None:
            stats.stop_run()
            if stats.more():
                start_run()
            else:
                stats.summarize()
                done.set_value(CHAIN)

        result.and_then(finished)

    start_run()
    return None


# Attributes in name order: duration_secs, max_count, num_warmup_runs (the
# function, `target_fn`, is the kernel's function attribute).
@kernel("tfrt_test.sync_benchmark", attrs=("i32", "i32", "i32"), kind="async")
def sync_benchmark(frame: AsyncKernelFrame):
    """Runs a sync function (``tfrt.sync``, no results) in a loop on this thread
    and prints the statistics ``tfrt_test.benchmark`` prints, named after it."""
    from tfrt.bef.program import SYNC_FUNCTION

    duration_secs, max_count = frame.attrs[0], frame.attrs[1]
    # A generic-form op may leave the warm-up count out: its default is 1.
    num_warmup_runs = frame.attrs[2] if len(frame.attrs) > 2 else 1
    if not frame.funcs:
        frame.report_error("SyncBenchmark op requires a target function")
        return None
    fn = frame.funcs[0]
    plan = getattr(fn, "plan", None)
    if getattr(fn, "kind", None) != SYNC_FUNCTION or not getattr(plan, "all_sync", False):
        frame.report_error("SyncBenchmark op requires the input function be a sync function")
        return None
    if fn.num_results != 0:
        frame.report_error("SyncBenchmark op requires the input function have zero return value")
        return None
    if fn.num_arguments != len(frame.args):
        frame.report_error(
            "Incorrect number of arguments for the target function for the SyncBenchmark op"
        )
        return None
    stats = _BenchmarkStats(fn.name, num_warmup_runs, max_count, duration_secs)
    args = list(frame.args)
    while stats.more():
        stats.start_run()
        # Every kernel of a sync function is sync, so the run is over when
        # execute returns.
        fn.execute(frame.exec_ctx, args)
        stats.stop_run()
    stats.summarize()
    return None


# ---------------------------------------------------------------------------
# tensorflow.Example parsing (TFRT's backends/cpu proto_kernels.cc).
#
# `!tfrt.string` values hold bytes as latin-1 text (see read_string_from_file),
# so a serialized proto read from a file arrives intact.


class ProtoError(ValueError):
    """Malformed protocol buffer wire data."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise ProtoError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ProtoError("varint is too long")


def _fields(data: bytes):
    """(field number, wire type, value) of each field of one message."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ProtoError("field number 0")
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            if pos + 8 > len(data):
                raise ProtoError("truncated 64-bit field")
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == 2:
            size, pos = _varint(data, pos)
            if pos + size > len(data):
                raise ProtoError("truncated length-delimited field")
            value, pos = data[pos : pos + size], pos + size
        elif wire == 5:
            if pos + 4 > len(data):
                raise ProtoError("truncated 32-bit field")
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise ProtoError(f"unsupported wire type {wire}")
        yield number, wire, value


def _int64(u: int) -> int:
    u &= (1 << 64) - 1
    return u - (1 << 64) if u >> 63 else u


def _parse_feature(data: bytes) -> tuple[str, list]:
    """A `Feature`: its kind (bytes/float/int64; the last one set wins) and values."""
    kind, values = "", []
    for number, wire, value in _fields(data):
        if wire != 2 or number not in (1, 2, 3):
            continue  # unknown fields are skipped, as protobuf does
        kind = {1: "bytes", 2: "float", 3: "int64"}[number]
        values = []
        for inner, inner_wire, item in _fields(value):
            if inner != 1:
                continue
            if kind == "bytes" and inner_wire == 2:
                values.append(bytes(item))
            elif kind == "float" and inner_wire == 2:  # packed
                if len(item) % 4:
                    raise ProtoError("packed float list has a partial element")
                values += [float(x) for x in np.frombuffer(item, dtype="<f4")]
            elif kind == "float" and inner_wire == 5:
                values.append(float(np.frombuffer(item, dtype="<f4")[0]))
            elif kind == "int64" and inner_wire == 2:  # packed
                pos = 0
                while pos < len(item):
                    v, pos = _varint(item, pos)
                    values.append(_int64(v))
            elif kind == "int64" and inner_wire == 0:
                values.append(_int64(item))
            else:
                raise ProtoError(f"wire type {inner_wire} in a {kind} list")
    return kind, values


def parse_example(data: bytes) -> dict[str, tuple[str, list]]:
    """A serialized `tensorflow.Example` as {feature name: (kind, values)}."""
    features: dict[str, tuple[str, list]] = {}
    for number, wire, value in _fields(data):
        if number != 1 or wire != 2:
            continue
        for entry_number, entry_wire, entry in _fields(value):
            if entry_number != 1 or entry_wire != 2:
                continue
            key, feature = "", ("", [])
            for n, w, v in _fields(entry):
                if n == 1 and w == 2:
                    key = bytes(v).decode("utf-8")
                elif n == 2 and w == 2:
                    feature = _parse_feature(v)
            features[key] = feature  # a map key written twice: the last wins
    return features


@kernel("tfrt_test.parse_example_from_bytes")
def parse_example_from_bytes(data):
    try:
        return parse_example(str(data).encode("latin-1"))
    except (ProtoError, UnicodeError):
        raise KernelError("failed to parse example.proto from string") from None


def _feature(example, key: str, kind: str):
    if not isinstance(example, dict):
        raise KernelError(f"expected a !proto.example, got {type(example).__name__}")
    if key not in example:
        raise KernelError(f"key {key} is not found in the proto")
    feature_kind, values = example[key]
    # Each feature is a scalar, as TFRT's kernels assume.
    if feature_kind != kind or len(values) != 1:
        raise KernelError(f"feature {key} is not a single {kind} value")
    return values[0]


@kernel("tfrt_test.get_bytes_field_from_example")
def get_bytes_field_from_example(example, key):
    return _feature(example, key, "bytes").decode("latin-1")


@kernel("tfrt_test.get_int64_field_from_example")
def get_int64_field_from_example(example, key):
    return _feature(example, key, "int64")


# ---------------------------------------------------------------------------
# Tutorial kernels (tutorial_kernels.cc).


class Coordinate:
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int) -> None:
        self.x = x
        self.y = y


@kernel("tfrt_tutorial.create_coordinate")
def create_coordinate(x, y):
    return Coordinate(x, y)


@kernel("tfrt_tutorial.print_coordinate")
def print_coordinate(c, *_chain):
    print_line(f"({c.x}, {c.y})")
    return CHAIN
