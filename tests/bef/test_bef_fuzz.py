"""Mutated BEF files: the reader either accepts them or raises BEFFormatError,
never another exception, never a hang."""

from __future__ import annotations

import struct

import pytest

from bef_testing import SAMPLES, parse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfrt.bef import encoding as enc
from tfrt.bef.reader import BEFFormatError, read_bef
from tfrt.bef.writer import write_bef

BASES = [
    write_bef(parse(SAMPLES["kitchen_sink"])),
    write_bef(parse(SAMPLES["kitchen_sink"]), optional_sections=False),
    write_bef(parse(SAMPLES["nested_regions"])),
    write_bef(parse(SAMPLES["locations"])),
]

def section_ranges(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every section payload of a well-formed file."""
    out, pos = [], 3
    while pos < len(data):
        length, pos = enc.decode_vbr(data, pos + 1, len(data))
        if length & 1:
            pos += 1 + enc.padding_for(pos + 1, data[pos])
        out.append((pos, pos + (length >> 1)))
        pos += length >> 1
    return out


RANGES = {data: section_ranges(data) for data in BASES}

HUGE_VBRS = [b"\xff" * 12, b"\x8f\xff\xff\xff\x7f", b"\x81\x80\x80\x80\x80\x00", b"\xff\xff\x7f"]


@st.composite
def mutations(draw):
    base = draw(st.sampled_from(BASES))
    data = bytearray(base)
    if draw(st.booleans()):  # aim inside one section: values that mean something
        start, end = draw(st.sampled_from([r for r in RANGES[base] if r[1] > r[0]]))
        pos = draw(st.integers(start, end - 1))
        value = draw(st.sampled_from([0, 1, 3, 8, 64, 65, 0x7FFF, 2**31, 2**62, -1, -2]))
        width = draw(st.sampled_from([1, 2, 4, 8]))
        data[pos : pos + width] = (value % (1 << (8 * width))).to_bytes(width, "little")
    for _ in range(draw(st.integers(0, 3))):
        n = len(data)
        if n == 0:
            break
        pos = draw(st.integers(0, n - 1))
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "vbr", "u32", "byte"]))
        if kind == "flip":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[pos:]
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del data[pos : pos + draw(st.integers(1, 16))]
        elif kind == "vbr":
            data[pos : pos + draw(st.integers(0, 3))] = draw(st.sampled_from(HUGE_VBRS))
        elif kind == "u32":
            aligned = pos & ~3
            value = draw(st.sampled_from([0, 1, 2, 5, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0xCDCDCDCD]))
            data[aligned : aligned + 4] = struct.pack("<I", value)
        else:
            data[pos] = draw(st.integers(0, 255))
    return bytes(data)


def exercise(data: bytes) -> None:
    try:
        bef = read_bef(data)
    except BEFFormatError:
        return
    # What the reader accepted decodes without surprises.
    for fn in bef.functions:
        bef.location(fn.location)
        for kernel in fn.kernels:
            bef.location(kernel.location)
            for offset in kernel.attrs:
                if bef.attribute_types is not None:
                    bef.attribute(offset)
                else:
                    for code in (enc.DType.I32, enc.AttrType.AGGREGATE, enc.AttrType.DENSE):
                        try:
                            bef.attribute(offset, code)
                        except BEFFormatError:
                            pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_mutated_files_raise_only_bef_format_error(data):
    exercise(data)


def test_bases_are_valid():
    for data in BASES:
        exercise(data)
        read_bef(data)


# A program the executor can run: scalar kernels, a call and a region.
RUNNABLE = """
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = "tfrt.add.i32"(%a, %b) : (i32, i32) -> i32
  "tfrt.return"(%c) : (i32) -> ()
}
func.func @main() -> (i32, !tfrt.chain) {
  %ch = "tfrt.new.chain"() : () -> !tfrt.chain
  %one = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32
  %two = "tfrt.constant.i32"() {value = 2 : i32} : () -> i32
  %s = "tfrt.add.i32"(%one, %two) : (i32, i32) -> i32
  %t = "tfrt.call"(%s, %one) {callee = @add} : (i32, i32) -> i32
  %ch1 = "tfrt.print.i32"(%t, %ch) : (i32, !tfrt.chain) -> !tfrt.chain
  %u = "tfrt.multiply.i32"(%t, %s) : (i32, i32) -> i32
  "tfrt.return"(%u, %ch1) : (i32, !tfrt.chain) -> ()
}
"""
RUNNABLE_BEF = write_bef(parse(RUNNABLE))


def lazy_outcome(data: bytes) -> bool:
    """Whether the file passes when its parts are checked as first used."""
    try:
        bef = read_bef(data, lazy=True)
        for fn in bef.functions:
            fn.columns  # noqa: B018
        bef.verify()
    except BEFFormatError:
        return False
    return True


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_lazy_checking_accepts_exactly_what_eager_checking_accepts(data):
    try:
        read_bef(data)
        eager = True
    except BEFFormatError:
        eager = False
    assert lazy_outcome(data) == eager


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_executor_runs_or_rejects_mutated_programs(data):
    """A lazily loaded, mutated program: each function either runs (its
    results resolve) or is rejected with BEFFormatError or a load error when
    it is first called; nothing else escapes and nothing hangs."""
    from tfrt.executor import BEFProgram, ProgramLoadError
    from tfrt.host_context import HostContext

    blob = bytearray(RUNNABLE_BEF)
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(3, len(blob) - 1))
        blob[pos] = data.draw(st.integers(0, 255))
    errors: list = []
    host = HostContext(diag_handler=errors.append)
    try:
        try:
            program = BEFProgram.load(read_bef(bytes(blob), lazy=True), host)
        except (BEFFormatError, ProgramLoadError):
            return
        for fn in program.functions:
            if fn.arg_types:
                continue
            try:
                results = fn.execute(host.new_execution_context(), [])
            except (BEFFormatError, ProgramLoadError):
                continue
            host.await_values(results)
    finally:
        host.shutdown()


# ---------------------------------------------------------------------------
# The tools on mutated files (tests/bef/bef_fuzz.py): exit 0 or 1, no
# traceback, no internal error, no hang, and every format error names its
# section and offset (and a body's function).


def _tool_fuzz(count: int, seed: int):
    import bef_fuzz

    totals = bef_fuzz.fuzz(count, seed, timeout=20.0)
    failures = "\n".join(f"{label} {tool}: {found}\n{err}" for label, tool, found, err in totals.failures[:5])
    assert totals.failed == 0, totals.summary() + "\n" + failures
    return totals


def test_tools_on_mutated_files():
    totals = _tool_fuzz(200, seed=7)
    # The mutations reach every outcome: rejected files and files that run.
    assert totals.rejected["bef_executor"] > 50 and totals.accepted["bef_executor"] > 10
    assert totals.rejected["tfrt_translate"] > 50


@pytest.mark.slow
def test_tools_on_5000_mutated_files():
    _tool_fuzz(5000, seed=0)


def _program_with_unknown_kernel_and_bad_body() -> bytes:
    """An unknown kernel in the last function, and a first function whose body is malformed."""
    text = CALLS + '\nfunc.func @odd() {\n  "no.such_kernel"() : () -> ()\n  "tfrt.return"() : () -> ()\n}\n'
    blob = bytearray(write_bef(parse(text)))
    bef = read_bef(bytes(blob), lazy=True)
    f_start = _section_start(bytes(blob), enc.SectionId.FUNCTIONS)
    first = bef.functions[0]
    assert first.name == "add"
    body = f_start + _body_offset(bef, 0)
    blob[body + 8 : body + 12] = struct.pack("<I", 0xFFFFFFFF)  # the column widths
    return bytes(blob)


def _section_start(data: bytes, sid: int) -> int:
    pos = 3
    while pos < len(data):
        this = data[pos]
        length, pos = enc.decode_vbr(data, pos + 1, len(data))
        if length & 1:
            pos += 1 + enc.padding_for(pos + 1, data[pos])
        if this == sid:
            return pos
        pos += length >> 1
    raise AssertionError("no such section")


def _body_offset(bef, index: int) -> int:
    return bef.functions[index]._loader.entry(index)[1]


def test_unknown_kernel_with_a_malformed_body_is_a_load_error():
    """The load error names the unknown kernel at its use; the malformed body
    of another function does not turn it into a BEFFormatError (it used to:
    the search for the use decoded every body outside the handler)."""
    from tfrt.executor import BEFProgram, ProgramLoadError
    from tfrt.host_context import HostContext

    data = _program_with_unknown_kernel_and_bad_body()
    errors: list = []
    host = HostContext(diag_handler=errors.append)
    try:
        with pytest.raises(ProgramLoadError, match="unknown kernel name 'no.such_kernel'"):
            BEFProgram.load(read_bef(data, lazy=True), host)
    finally:
        host.shutdown()
    assert errors and "no.such_kernel" in errors[0].message


# Two functions and a call, every kernel registered.
CALLS = """
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = "tfrt.add.i32"(%a, %b) : (i32, i32) -> i32
  "tfrt.return"(%c) : (i32) -> ()
}
func.func @main() -> i32 {
  %one = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32
  %t = "tfrt.call"(%one, %one) {callee = @add} : (i32, i32) -> i32
  "tfrt.return"(%t) : (i32) -> ()
}
"""
CALLS_BEF = write_bef(parse(CALLS))


def test_load_decodes_no_function_body():
    from tfrt.executor import BEFProgram
    from tfrt.host_context import HostContext

    bef = read_bef(CALLS_BEF, lazy=True)
    host = HostContext()
    try:
        BEFProgram.load(bef, host)
    finally:
        host.shutdown()
    assert all(f._columns is None for f in bef.functions)


def test_bef_executor_reports_a_malformed_callee_and_exits_1(tmp_path, capsys):
    """A body checked only when a kernel calls it: the error names the
    section, the offset and the function, and the exit status is 1."""
    from tfrt.tools.bef_executor import main

    blob = bytearray(CALLS_BEF)
    bef = read_bef(CALLS_BEF, lazy=True)
    body = _section_start(CALLS_BEF, enc.SectionId.FUNCTIONS) + _body_offset(bef, 0)
    blob[body + 8 : body + 12] = struct.pack("<I", 0xFFFFFFFF)
    path = tmp_path / "bad_callee.bef"
    path.write_bytes(bytes(blob))
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "invalid BEF file: BEF Functions section at offset" in err and "function 0 ('add')" in err


# A small body on several streams that all run inline: the column path
# runs it in the interpreter's order (tfrt.executor.columns._inline_order).
STREAMS = """
func.func @f(%x: i32, %ch: !tfrt.chain) -> i32 {
  %c = tfrt.constant.i32 2
  %y = tfrt.add.i32 %x, %c
  %ch1 = tfrt.print.i32 %y, %ch
  %ch2 = tfrt.print.i32 %c, %ch1
  tfrt.return %y : i32
}
func.func @main() -> i32 {
  %ch = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %a = tfrt.call @f(%one, %ch) : (i32, !tfrt.chain) -> i32
  %b = tfrt.call @f(%a, %ch) : (i32, !tfrt.chain) -> i32
  tfrt.return %b : i32
}
"""


def test_small_body_on_several_streams_runs_in_the_interpreters_order(tmp_path, capsys, monkeypatch):
    from tfrt.dialects.syntax import parse_module
    from tfrt.executor import BEFFunction
    from tfrt.tools.bef_executor import main

    data = write_bef(parse_module(STREAMS, "streams.mlir"))
    bef = read_bef(data)
    assert len(set(bef.function("f").columns.lists.stream)) > 1, "the body should sit on several streams"
    path = tmp_path / "streams.bef"
    path.write_bytes(data)
    used = []
    column_plan = BEFFunction._column_plan
    monkeypatch.setattr(BEFFunction, "_column_plan", lambda self: used.append(self.name) or column_plan(self))
    assert main([str(path)]) == 0
    columns = capsys.readouterr().out
    assert "f" in used and column_plan(bef_function_of(path, "f")) is not None
    monkeypatch.setattr(BEFFunction, "_column_plan", lambda self: None)  # the interpreter only
    assert main([str(path)]) == 0
    assert capsys.readouterr().out == columns


def bef_function_of(path, name):
    from tfrt.executor import BEFProgram
    from tfrt.host_context import HostContext

    return BEFProgram.load(read_bef(str(path), lazy=True), HostContext()).function(name)
