"""The ordered path (tfrt.executor.ordered) against TFRT's order.

A call made by the host of a body whose kernels are all pure runs its
kernels in the body's ORDER, async kernels and ``tfrt.if`` included.  What
it returns and what it reports must be what TFRT's order gives
(``BEFProgram.ordered = False``): the same values, the same errors, the
same diagnostics in the same order (anything but the plain case runs the
call again in TFRT's order).
"""

from __future__ import annotations

import random
import sys
import threading
import time

import pytest
from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module

from tfrt.async_value import CONCRETE, AsyncValue
from tfrt.executor import BEFProgram, ordered
from tfrt.host_context import HostContext
from tfrt.kernels.registry import BUILTIN_KERNEL_MODULES, AsyncKernelFrame, KernelError, KernelRegistry, kernel


@kernel("ordered_test.async_div", kind="async", pure=True)
def async_div(frame: AsyncKernelFrame):
    a, b = frame.arg(0), frame.arg(1)

    def work():
        if b == 0:
            raise KernelError("async division by zero")
        return int(a / b)

    return frame.host.enqueue_work(work)


@kernel("ordered_test.async_pair", kind="async", pure=True)
def async_pair(frame: AsyncKernelFrame):
    a = frame.arg(0)
    return frame.host.enqueue_work(lambda: a + 1), frame.host.enqueue_work(lambda: a - 1)


@kernel("ordered_test.async_where", kind="async", pure=True)
def async_where(frame: AsyncKernelFrame):
    """Its own name and line, from its frame (made only when asked for)."""
    a, name, line = frame.arg(0), frame.kernel_name, frame.location.line
    return frame.host.enqueue_work(lambda: a * 1000 + len(name) * 10 + line)


@kernel("ordered_test.async_elsewhere", kind="async", pure=True)
def async_elsewhere(frame: AsyncKernelFrame):
    """a + 1, set by another thread a moment later (not a queue task)."""
    a = frame.arg(0)
    out = AsyncValue()
    threading.Timer(0.01, lambda: out.set_value(a + 1)).start()
    return out


@kernel("ordered_test.interrupt", pure=True)
def interrupt(a):
    raise KeyboardInterrupt(f"at {a}")


def registry() -> KernelRegistry:
    reg = KernelRegistry()
    for name in BUILTIN_KERNEL_MODULES:
        reg.add_module(name)
    return reg.add_module(sys.modules[__name__])


def random_module(seed: int, impure: bool = False) -> str:
    """``@main``: i32 constants, adds, divisions (which fail on zero),
    comparisons, async adds and divisions, a two-result async kernel, and
    ``tfrt.if`` of one or two results (a branch may divide, may be async,
    or, with ``impure``, print)."""
    rng = random.Random(seed)
    lines = ["func.func @main() -> ({results}) {"]
    values: list[str] = []
    for i in range(rng.randint(1, 3)):
        lines.append(f"  %c{i} = tfrt.constant.i32 {rng.choice([0, 1, 2, 3, 7, -4])}")
        values.append(f"%c{i}")

    def pick() -> str:
        return rng.choice(values)

    for i in range(rng.randint(3, 30)):
        r = rng.random()
        if r < 0.25:
            lines.append(f"  %v{i} = tfrt.add.i32 {pick()}, {pick()}")
        elif r < 0.32:
            lines.append(f"  %v{i}, %w{i} = tfrt.div.i32 {pick()}, {pick()}")
            values.append(f"%w{i}")
        elif r < 0.40:
            lines.append(f'  %v{i} = "tfrt_test.async_add.i32"({pick()}, {pick()}) : (i32, i32) -> i32')
        elif r < 0.45:
            lines.append(f'  %v{i} = "ordered_test.async_div"({pick()}, {pick()}) : (i32, i32) -> i32')
        elif r < 0.50:
            lines.append(f'  %v{i}, %w{i} = "ordered_test.async_pair"({pick()}) : (i32) -> (i32, i32)')
            values.append(f"%w{i}")
        elif r < 0.55:
            lines.append(f'  %v{i} = "tfrt_test.async_copy.i32"({pick()}) : (i32) -> i32')
        elif r < 0.60:
            lines.append(f"  %v{i} = tfrt.constant.i32 {rng.randint(-3, 3)}")
        elif r < 0.85:
            a, b, c = pick(), pick(), pick()
            lines.append(f'  %b{i} = "tfrt.lessequal.i32"({a}, {b}) : (i32, i32) -> i1')
            kind = rng.random()
            if kind < 0.3:
                body = ["    %k = tfrt.constant.i32 5", f"    %m, %n = tfrt.div.i32 %k, {c}", "    tfrt.return %m : i32"]
            elif kind < 0.5:
                body = [f'    %m = "tfrt_test.async_add.i32"({c}, {c}) : (i32, i32) -> i32', "    tfrt.return %m : i32"]
            elif kind < 0.6 and impure:
                body = ["    %ch = tfrt.new.chain", f"    %p = tfrt.print.i32 {c}, %ch", f"    tfrt.return {c} : i32"]
            else:
                body = ["    %k = tfrt.constant.i32 2", f"    %m = tfrt.add.i32 {c}, %k", "    tfrt.return %m : i32"]
            lines += [f"  %v{i} = tfrt.if %b{i}, {c} : (i32) -> i32 {{", f"    tfrt.return {c} : i32", "  } else {",
                      *body, "  }"]  # fmt: skip
        else:
            a, b, c = pick(), pick(), pick()
            lines.append(f'  %b{i} = "tfrt.lessequal.i32"({a}, {b}) : (i32, i32) -> i1')
            lines += [
                f"  %v{i}, %w{i} = tfrt.if %b{i}, {b}, {c} : (i32, i32) -> (i32, i32) {{",
                f"    tfrt.return {c}, {b} : i32, i32",
                "  } else {",
                f"    %m = tfrt.add.i32 {b}, {c}",
                "    tfrt.return %m, %m : i32, i32",
                "  }",
            ]
            values.append(f"%w{i}")
        values.append(f"%v{i}")
    returned = [rng.choice(values) for _ in range(rng.randint(1, 3))]
    lines.append(f"  tfrt.return {', '.join(returned)} : {', '.join(['i32'] * len(returned))}")
    lines.append("}")
    return "\n".join(lines).replace("{results}", ", ".join(["i32"] * len(returned))) + "\n"


def run(text: str, ordered_path: bool, calls: int = 1) -> tuple:
    """(results, diagnostics) of ``calls`` blocking calls of ``main`` made by the host."""
    data = write_bef(parse_module(text, "o.mlir", allow_unregistered=True))
    diags: list[str] = []
    host = HostContext(registry=registry(), diag_handler=lambda d: diags.append(str(d)))
    program = BEFProgram.load(read_bef(data, lazy=True), host)
    program.ordered = ordered_path
    out = []
    for _ in range(calls):
        results = program.function("main").run(host.new_execution_context(), [])
        host.quiesce()
        out.append([("error", r.error.message) if r.is_error else r.value for r in results])
    host.shutdown()
    return out, diags


@pytest.mark.parametrize("seed", range(150))
def test_random_pure_programs_match_tfrt_order(seed):
    text = random_module(seed, impure=seed % 5 == 0)
    assert run(text, True, calls=3) == run(text, False, calls=3), text


def test_the_ordered_path_runs_and_runs_again_where_it_must(monkeypatch):
    """It takes a pure program (no second run), and gives up on one whose
    branch prints before that branch runs."""
    seen = []
    restart = ordered._OrderedCall._restart

    def spy(self, exc):
        seen.append(type(exc).__name__)
        return restart(self, exc)

    monkeypatch.setattr(ordered._OrderedCall, "_restart", spy)
    starts = []
    start = ordered._OrderedCall.start
    monkeypatch.setattr(ordered._OrderedCall, "start", lambda self: starts.append(1) or start(self))
    pure = "\n".join([
        "func.func @main() -> i32 {",
        "  %a = tfrt.constant.i32 4",
        '  %b = "tfrt_test.async_add.i32"(%a, %a) : (i32, i32) -> i32',
        "  %c = tfrt.add.i32 %b, %a",
        "  tfrt.return %c : i32",
        "}",
    ]) + "\n"  # fmt: skip
    assert run(pure, True) == ([[12]], [])
    assert starts == [1] and seen == []
    printing = pure.replace("  tfrt.return %c : i32\n}", "\n".join([
        "  %t = tfrt.constant.i1 1",
        "  %d = tfrt.if %t, %c : (i32) -> i32 {",
        "    %ch = tfrt.new.chain",
        "    %p = tfrt.print.i32 %c, %ch",
        "    tfrt.return %c : i32",
        "  } else {",
        "    tfrt.return %c : i32",
        "  }",
        "  tfrt.return %d : i32",
        "}",
    ]))  # fmt: skip
    assert run(printing, True) == run(printing, False)
    assert seen == ["_Restart"]


def test_a_failure_after_a_wait_runs_the_call_again():
    text = "\n".join([
        "func.func @main() -> (i32, i32) {",
        "  %a = tfrt.constant.i32 4",
        "  %z = tfrt.constant.i32 0",
        '  %b = "ordered_test.async_div"(%a, %z) : (i32, i32) -> i32',
        "  %c = tfrt.add.i32 %b, %a",
        "  %q, %r = tfrt.div.i32 %a, %z",
        "  tfrt.return %c, %q : i32, i32",
        "}",
    ]) + "\n"  # fmt: skip
    got = run(text, True)
    assert got == run(text, False)
    assert got[0] == [[("error", "async division by zero"), ("error", "Divide by zero")]]
    assert len(got[1]) == 1 and "Divide by zero" in got[1][0]


def test_only_calls_made_by_the_host_take_it():
    """A kernel's call (tfrt.call) runs in TFRT's order: its caller sees
    when each result becomes available."""
    text = "\n".join([
        "func.func @pure(%x: i32) -> (i32, i32) {",
        '  %b = "tfrt_test.async_add.i32"(%x, %x) : (i32, i32) -> i32',
        "  %c = tfrt.add.i32 %x, %x",
        "  tfrt.return %b, %c : i32, i32",
        "}",
        "func.func @main() -> (i32, i32) {",
        "  %a = tfrt.constant.i32 3",
        "  %b, %c = tfrt.call @pure(%a) : (i32) -> (i32, i32)",
        "  tfrt.return %b, %c : i32, i32",
        "}",
    ]) + "\n"  # fmt: skip
    data = write_bef(parse_module(text, "o.mlir", allow_unregistered=True))
    host = HostContext(registry=registry())
    program = BEFProgram.load(read_bef(data, lazy=True), host)
    ctx = host.new_execution_context()
    three = [AsyncValue(CONCRETE, 3)]
    assert program.function("pure")._ordered_ok(ctx, three)  # (from the host: it may)
    assert not program.function("pure")._ordered_ok(ctx.nested(), three)
    results = program.function("main").run(ctx, [])
    assert [r.value for r in results] == [6, 6]


T1 = "\n".join([
    "func.func @main() -> (i32, i32) {",
    "  %a = tfrt.constant.i32 4",
    '  %b = "tfrt_test.async_add.i32"(%a, %a) : (i32, i32) -> i32',
    "  %c = tfrt.add.i32 %b, %a",
    '  %z = "tfrt.minus.i32"(%a, %a) : (i32, i32) -> i32',
    "  %q, %r = tfrt.div.i32 %a, %z",
    "  tfrt.return %c, %q : i32, i32",
    "}",
]) + "\n"  # fmt: skip


def host_sees(ordered_path: bool, how: str) -> list:
    """What a host that looks at a call between its start and its end sees:
    ``cancel`` after execute, or a task queued before a blocking call."""
    log: list = []
    host = HostContext(registry=registry(), diag_handler=lambda d: log.append(str(d).splitlines()[0][-14:]))
    program = BEFProgram.load(read_bef(write_bef(parse_module(T1, "o.mlir")), lazy=True), host)
    program.ordered = ordered_path
    ctx = host.new_execution_context()
    if how == "cancel":
        results = program.function("main").execute(ctx, [])
        log.append([r.state for r in results])
        ctx.request.cancel()
        host.await_values(results)
    else:
        host.enqueue_task(lambda: log.append("the queued task"))
        results = program.function("main").run(ctx, [])
    log.append([("error", r.error.message) if r.is_error else r.value for r in results])
    return log


@pytest.mark.parametrize("how", ["cancel", "busy"])
def test_a_host_that_looks_between_start_and_end_sees_tfrt_order(how):
    assert host_sees(True, how) == host_sees(False, how)


def test_a_value_another_thread_sets_runs_the_call_again_in_tfrt_order(monkeypatch):
    text = "\n".join([
        "func.func @main() -> (i32, i32) {",
        "  %a = tfrt.constant.i32 4",
        '  %b = "ordered_test.async_elsewhere"(%a) : (i32) -> i32',
        "  %c = tfrt.add.i32 %b, %a",
        '  %d = "ordered_test.async_elsewhere"(%c) : (i32) -> i32',
        "  %e = tfrt.add.i32 %d, %b",
        "  tfrt.return %c, %e : i32, i32",
        "}",
    ]) + "\n"  # fmt: skip
    restarts = []
    restart = ordered._OrderedCall._restart
    monkeypatch.setattr(ordered._OrderedCall, "_restart", lambda self, exc: restarts.append(exc) or restart(self, exc))
    got = run(text, True)
    assert got == run(text, False) == ([[9, 15]], [])
    assert len(restarts) == 1


def test_an_async_kernel_finds_its_own_site(monkeypatch):
    restarts = []
    monkeypatch.setattr(ordered._OrderedCall, "_restart", lambda self, exc: restarts.append(exc))
    text = "\n".join([
        "func.func @main() -> (i32, i32) {",
        "  %a = tfrt.constant.i32 1",
        '  %b = "ordered_test.async_where"(%a) : (i32) -> i32',
        "  %c = tfrt.add.i32 %b, %a",
        '  %d = "ordered_test.async_where"(%c) : (i32) -> i32',
        "  tfrt.return %c, %d : i32, i32",
        "}",
    ]) + "\n"  # fmt: skip
    name = len("ordered_test.async_where") * 10
    got = run(text, True)
    assert got == ([[1000 + name + 3 + 1, (1000 + name + 3 + 1) * 1000 + name + 5]], [])
    assert not restarts


def test_ctrl_c_in_a_call_stops_it_as_the_interpreter_stops_one():
    """Reported (naming the function), the request interrupted, raised
    from ``run`` (TFRT's order makes a kernel's own KeyboardInterrupt that
    kernel's error; here it cannot be told from a signal)."""
    text = "\n".join([
        "func.func @main() -> (i32, i32) {",
        "  %a = tfrt.constant.i32 4",
        '  %b = "tfrt_test.async_add.i32"(%a, %a) : (i32, i32) -> i32',
        '  %c = "ordered_test.interrupt"(%b) : (i32) -> i32',
        "  %d = tfrt.add.i32 %a, %a",
        "  tfrt.return %c, %d : i32, i32",
        "}",
    ]) + "\n"  # fmt: skip
    diags: list = []
    host = HostContext(registry=registry(), diag_handler=lambda d: diags.append(d.message))
    program = BEFProgram.load(read_bef(write_bef(parse_module(text, "o.mlir", allow_unregistered=True)), lazy=True), host)
    ctx = host.new_execution_context()
    with pytest.raises(KeyboardInterrupt, match="at 8"):
        program.function("main").run(ctx, [])
    assert repr(ctx.request.interrupted) == "KeyboardInterrupt('at 8')"
    assert diags == ["KeyboardInterrupt: at 8 (while running function 'main')"]


@kernel("ordered_test.async_args_sum", kind="async", pure=True)
def async_args_sum(frame: AsyncKernelFrame):
    """The sum of its operands, read through ``frame.args`` (AsyncValues)."""
    total = sum(av.value for av in frame.args)
    return frame.host.enqueue_work(lambda: total)


def unrolled(blocks: int, seed: int) -> str:
    """``@main``: blocks of a comparison, a ``tfrt.if`` whose branches have
    the same bodies in every block (one of them may divide by zero), an
    async add and adds: every branch of a side is one class of bodies."""
    rng = random.Random(seed)
    lines = ["func.func @main() -> (i32, i32) {", "  %one = tfrt.constant.i32 1",
             f"  %a0 = tfrt.constant.i32 {rng.randint(-6, 0)}", "  %b0 = tfrt.constant.i32 0"]  # fmt: skip
    divide = rng.random() < 0.5
    for i in range(1, blocks + 1):
        p = i - 1
        other = ["    %k = tfrt.constant.i32 2", f"    %m = tfrt.add.i32 %x{i}, %k", "    tfrt.return %m : i32"]
        if divide:  # (fails where %x is 0)
            other = ["    %k = tfrt.constant.i32 12", f"    %m, %n = tfrt.div.i32 %k, %x{i}", "    tfrt.return %m : i32"]
        lines += [
            f"  %x{i} = tfrt.add.i32 %a{p}, %one",
            f"  %y{i} = tfrt.add.i32 %b{p}, %one",
            f'  %c{i} = "tfrt.lessequal.i32"(%x{i}, %y{i}) : (i32, i32) -> i1',
            f"  %d{i} = tfrt.if %c{i}, %x{i} : (i32) -> i32 {{",
            f"    tfrt.return %x{i} : i32",
            "  } else {",
            *other,
            "  }",
            f'  %e{i} = "ordered_test.async_args_sum"(%d{i}, %one) : (i32, i32) -> i32',
            f"  %a{i} = tfrt.add.i32 %e{i}, %one",
            f"  %b{i} = tfrt.add.i32 %y{i}, %one",
        ]
    lines += [f"  tfrt.return %a{blocks}, %b{blocks} : i32, i32", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(8))
def test_branches_of_one_body_share_its_plan_and_compiled_code(seed):
    text = unrolled(12, seed)
    assert run(text, True, calls=2) == run(text, False, calls=2), text
    data = write_bef(parse_module(text, "o.mlir", allow_unregistered=True))
    host = HostContext(registry=registry())
    program = BEFProgram.load(read_bef(data, lazy=True), host)
    fn = program.function("main")
    fn.prepare()
    ifs = [b for k, b in zip(fn._ordered.kinds, fn._ordered.fns) if k == ordered._K_IF]
    assert len(ifs) == 12
    elses = [b[3] for b in ifs]  # (one body, in one or a few classes)
    assert None not in elses and len({id(b) for b in elses}) <= 3
    fn.run(host.new_execution_context(), [])
    compiled = {b.fast for b in elses} - {None}
    assert compiled <= {code.func for code in program._fast_codes.values() if code is not None}
    if "tfrt.div" not in text:  # (a failing division runs the call again in TFRT's order)
        assert compiled, "no shared else body was compiled"


def test_a_shared_body_that_fails_on_its_compiled_code_runs_the_call_again(monkeypatch):
    """The else branches divide 12 by -4, -3, ... 3: the shared body is
    compiled by its second call and fails at 0.  One diagnostic (the
    interpreter's, at that block's division) and TFRT's results."""
    lines = ["func.func @main() -> i32 {", "  %lo = tfrt.constant.i32 -100", "  %s0 = tfrt.constant.i32 0"]
    for i in range(1, 9):
        lines += [
            f"  %x{i} = tfrt.constant.i32 {i - 5}",
            f'  %c{i} = "tfrt.lessequal.i32"(%x{i}, %lo) : (i32, i32) -> i1',
            f"  %d{i} = tfrt.if %c{i}, %x{i} : (i32) -> i32 {{",
            f"    tfrt.return %x{i} : i32",
            "  } else {",
            "    %k = tfrt.constant.i32 12",
            f"    %m, %n = tfrt.div.i32 %k, %x{i}",
            "    tfrt.return %m : i32",
            "  }",
            f"  %s{i} = tfrt.add.i32 %s{i - 1}, %d{i}",
        ]
    lines += ["  tfrt.return %s8 : i32", "}"]
    text = "\n".join(lines) + "\n"
    compiled_at_restart = []
    restart = ordered._OrderedCall._restart

    def spy(self, exc):
        bodies = [b[3] for k, b in zip(self.plan.kinds, self.plan.fns) if k == ordered._K_IF]
        compiled_at_restart.append(any(b.fast is not None for b in bodies))
        return restart(self, exc)

    monkeypatch.setattr(ordered._OrderedCall, "_restart", spy)
    got = run(text, True)
    assert compiled_at_restart == [True]
    assert got == run(text, False)
    assert got[0] == [[("error", "Divide by zero")]] and len(got[1]) == 1 and "line=50" in got[1][0]


@kernel("ordered_test.two_stages", kind="async", pure=True)
def two_stages(frame: AsyncKernelFrame):
    """Its work in two queued tasks, the second (its result) reading what
    the first made: the queue's order is part of what it computes."""
    a = frame.arg(0)
    first = frame.host.enqueue_work(lambda: a + 1)
    return frame.host.enqueue_work(lambda: first.value * 10)


def test_an_async_kernel_whose_tasks_rely_on_the_queue_order():
    text = "\n".join([
        "func.func @main() -> i32 {",
        "  %a = tfrt.constant.i32 4",
        '  %b = "ordered_test.two_stages"(%a) : (i32) -> i32',
        "  %c = tfrt.add.i32 %b, %a",
        "  tfrt.return %c : i32",
        "}",
    ]) + "\n"  # fmt: skip
    assert run(text, True) == run(text, False) == ([[54]], [])


WAITED: dict = {}


@kernel("ordered_test.waits_for_another_thread", kind="async", pure=True)
def waits_for_another_thread(frame: AsyncKernelFrame):
    """Blocks until another thread sets a value (after its own quiesce)."""
    a = frame.arg(0)
    value = WAITED["value"]
    frame.host.await_values([value])
    return frame.host.enqueue_work(lambda: a + value.value)


@pytest.mark.parametrize("ordered_path", [True, False])
def test_a_quiesce_on_another_thread_does_not_wait_for_the_call(ordered_path):
    """The call is not a task: another thread's quiesce returns while a
    kernel of the call waits for that thread (no hang)."""
    text = "\n".join([
        "func.func @main() -> i32 {",
        "  %a = tfrt.constant.i32 4",
        '  %b = "tfrt_test.async_add.i32"(%a, %a) : (i32, i32) -> i32',
        '  %c = "ordered_test.waits_for_another_thread"(%a) : (i32) -> i32',
        "  %d = tfrt.add.i32 %c, %b",
        "  tfrt.return %d : i32",
        "}",
    ]) + "\n"  # fmt: skip
    host = HostContext(registry=registry())
    program = BEFProgram.load(read_bef(write_bef(parse_module(text, "o.mlir", allow_unregistered=True)), lazy=True), host)
    program.ordered = ordered_path
    WAITED["value"] = AsyncValue()
    out: dict = {}

    def other() -> None:
        time.sleep(0.1)
        host.quiesce()
        WAITED["value"].set_value(100)

    def caller() -> None:
        out["result"] = [r.value for r in program.function("main").run(host.new_execution_context(), [])]

    threads = [threading.Thread(target=other, daemon=True), threading.Thread(target=caller, daemon=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads)
    assert out["result"] == [112]


def test_an_async_kernel_asks_for_its_own_site():
    """After a kernel of no results (whose result base is the async
    kernel's first register), and in a function that shares its plan with
    another one whose locations differ: each kernel gets its own line."""
    body = [
        "  %a = tfrt.constant.i32 1",
        "  %t = tfrt.constant.i1 1",
        "  tfrt.if %t, %a : (i32) -> () {",
        "    tfrt.return",
        "  } else {",
        "    tfrt.return",
        "  }",
        '  %b = "ordered_test.async_where"(%a) : (i32) -> i32',
        "  %c = tfrt.add.i32 %b, %a",
        "  tfrt.return %c : i32",
    ]
    text = "\n".join(["func.func @f() -> i32 {", *body, "}", "func.func @g() -> i32 {", "", "", *body, "}"]) + "\n"
    data = write_bef(parse_module(text, "o.mlir", allow_unregistered=True))
    got = {}
    for ordered_path in (True, False):
        host = HostContext(registry=registry())
        program = BEFProgram.load(read_bef(data, lazy=True), host)
        program.ordered = ordered_path
        got[ordered_path] = [program.function(f).run(host.new_execution_context(), [])[0].value for f in "fg"]
    name = len("ordered_test.async_where") * 10
    assert got[True] == got[False] == [1001 + name + 9, 1001 + name + 23]

