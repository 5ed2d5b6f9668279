"""tfrt.bef.reader: decoded values, zero-copy tensors, errors, and the
standard-library-plus-numpy import rule."""

from __future__ import annotations

import mmap
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from bef_testing import KITCHEN_SINK, build_file, parse, ret, split_sections

from tfrt.bef import encoding as enc
from tfrt.bef import program
from tfrt.bef.encoding import DType
from tfrt.bef.reader import BEFFormatError, read_bef
from tfrt.bef.writer import write_bef


@pytest.fixture(scope="module")
def sink_bytes() -> bytes:
    return write_bef(parse(KITCHEN_SINK, "ops.mlir"))


@pytest.fixture(scope="module")
def sink(sink_bytes):
    return read_bef(sink_bytes)


def kernel_attrs(bef_file, fn_name: str, kernel_index: int) -> dict:
    fn = bef_file.function(fn_name)
    kernel = fn.kernels[kernel_index]
    names = fn.attribute_names[kernel_index]
    return {name: bef_file.attribute(offset) for name, offset in zip(names, kernel.attrs)}


def test_functions_and_signatures(sink):
    names = [(f.name, f.kind, f.arg_types, f.result_types) for f in sink.functions]
    assert names[:4] == [
        ("callee", program.ASYNC_FUNCTION, ("i32",), ("i32",)),
        ("native", program.NATIVE_FUNCTION, ("i32",), ("i32",)),
        ("sync", program.SYNC_FUNCTION, ("i32",), ("i32",)),
        ("", program.ASYNC_FUNCTION, ("i32",), ("i32",)),
    ]
    everything = sink.function("everything")
    assert everything.arg_types == ("i32", "i1")
    assert everything.result_types == ("i32", "!tfrt.chain")
    assert [k.name for k in everything.kernels] == [
        "tfrt.new.chain", "simple.op", "tfrt.call", "tfrt.cond", "tfrt.case", "tfrt.if", "tfrt.print.i32",
    ]  # fmt: skip
    call, cond, case, if_ = everything.kernels[2:6]
    callee = sink.functions.index(sink.function("callee"))
    native = sink.functions.index(sink.function("native"))
    assert call.funcs == (callee,)
    assert cond.funcs == (callee, native)
    assert case.funcs == (callee, callee)
    assert [sink.functions[i].name for i in if_.funcs] == ["", ""]
    assert everything.register_types[:3] == ("i32", "i1", "!tfrt.chain")
    assert everything.function_ref_names[3] == (("a_true_fn", 1, False), ("b_false_fn", 1, False))
    assert everything.function_ref_names[4] == (("branches", 2, True),)


def test_scalar_attribute_values(sink):
    attrs = kernel_attrs(sink, "everything", 1)
    assert attrs["i1v"] is True
    assert (attrs["i8v"], attrs["i16v"], attrs["i32v"], attrs["i64v"]) == (-3, 300, -7, 1234567890123)
    assert (attrs["ui8v"], attrs["ui16v"], attrs["ui32v"]) == (255, 65535, 4000000000)
    assert attrs["ui64v"] == 2**64 - 1
    assert (attrs["f16v"], attrs["bf16v"], attrs["f64v"]) == (1.5, 2.5, 3.25)
    assert attrs["f32v"] == pytest.approx(-0.1)
    assert (attrs["str"], attrs["empty_str"]) == ("hello", "")
    assert (attrs["ty"], attrs["cty"], attrs["sty"]) == (DType.I32, DType.COMPLEX128, DType.STRING)
    assert "_tfrt_cost" not in attrs


def test_array_and_aggregate_values(sink):
    attrs = kernel_attrs(sink, "everything", 1)
    assert attrs["arr_i32"].dtype == np.int32 and attrs["arr_i32"].tolist() == [1, 2, 3]
    assert attrs["arr_i64"].tolist() == [1, 2]
    assert attrs["arr_bool"].dtype == np.bool_ and attrs["arr_bool"].tolist() == [True, False]
    assert attrs["arr_ty"] == (DType.F32, DType.I8)
    assert attrs["empty"].size == 0
    one, inner, dense, shape = attrs["agg"]
    assert one == 1 and inner == (2, "s")
    assert dense.tolist() == [1.0, 2.0]
    assert shape == program.ShapeValue((3,))
    assert attrs["shape"] == program.ShapeValue((2, -1, 3))
    assert attrs["unranked"] == program.ShapeValue(None)
    agg_offset = dict(zip(sink.function("everything").attribute_names[1], sink.function("everything").kernels[1].attrs))["agg"]
    codes = [code for code, _ in sink.aggregate_elements(agg_offset)]
    assert codes == [DType.I32, enc.AttrType.AGGREGATE, enc.AttrType.DENSE, enc.AttrType.SHAPE]


def test_dense_values(sink):
    attrs = kernel_attrs(sink, "everything", 1)
    assert attrs["dense_i32"].shape == (2, 2) and attrs["dense_i32"].tolist() == [[1, 2], [3, 4]]
    assert attrs["splat"].tolist() == [7, 7, 7]
    assert attrs["dense_i1"].tolist() == [True, False, True]
    assert attrs["dense_c64"].dtype == np.complex64 and attrs["dense_c64"].tolist() == [1 + 2j]
    assert attrs["dense_bf16"].astype(np.float32).tolist() == [1.5, 1.5]
    assert attrs["scalar"].shape == () and int(attrs["scalar"]) == 5
    assert not attrs["dense_i32"].flags.writeable


def test_symbol_ref_value(sink):
    attrs = kernel_attrs(sink, "everything", 1)
    ref = attrs["kernel"]
    assert (ref.id, ref.root, ref.nested) == (0, "kernel0", ("main",))
    assert "tfrt.compiled" in ref.module_text and "sym_name = \"main\"" in ref.module_text


def test_locations(sink):
    fn = sink.function("everything")
    chain, op, call, cond = fn.kernels[:4]
    assert sink.location(chain.location) == program.FileLineColLocation("ops.mlir", 3, 5)
    assert sink.location(op.location) == program.NameLocation(
        "named", program.FileLineColLocation("ops.mlir", 4, 7)
    )
    assert sink.location(call.location) == program.CallSiteLocation(
        program.FileLineColLocation("ops.mlir", 5, 1), program.FileLineColLocation("main.mlir", 1, 1)
    )
    loc = sink.location(cond.location)
    assert isinstance(loc, program.FusedLocation) and len(loc.locations) == 2
    assert program.file_line_col(loc) == program.FileLineColLocation("a.mlir", 1, 1)
    assert sink.location(2**32 - 2) == program.UnknownLocation()  # a "virtual" offset


def test_file_is_mapped_and_tensors_are_views(tmp_path, sink_bytes):
    path = tmp_path / "sink.bef"
    path.write_bytes(sink_bytes)
    b = read_bef(path)
    assert isinstance(b.source, mmap.mmap)
    arr = kernel_attrs(b, "everything", 1)["dense_i32"]
    # No copy: the array's memory is the mapped file's.
    assert np.shares_memory(arr, np.frombuffer(b.source, np.uint8))
    base = arr
    while isinstance(base, np.ndarray):
        base = base.base
    assert isinstance(base, memoryview) and base.obj is b.source
    assert read_bef(str(path)).functions[-1].name == b.functions[-1].name


def test_reads_bytes_bytearray_and_memoryview(sink_bytes):
    for data in (sink_bytes, bytearray(sink_bytes), memoryview(sink_bytes)):
        b = read_bef(data)
        assert b.function("everything") is not None


def test_error_message_format():
    err = BEFFormatError("Functions", 123, "register index 9 out of range (8 registers)")
    assert str(err) == "BEF Functions section at offset 123: register index 9 out of range (8 registers)"
    assert (err.section, err.offset) == ("Functions", 123)
    assert str(BEFFormatError(None, 0, "x")) == "BEF file at offset 0: x"


def test_version_mismatch_names_both_versions(sink_bytes):
    with pytest.raises(BEFFormatError, match=r"version 7 \(this reader supports version 1\)"):
        read_bef(sink_bytes[:2] + b"\x07" + sink_bytes[3:])


def test_unknown_sections_are_skipped(sink_bytes):
    sections = split_sections(sink_bytes)
    extended = build_file([(42, b"future data", 1), *sections, (200, b"\x00" * 9, 8)])
    b = read_bef(extended)
    assert [f.name for f in b.functions] == [f.name for f in read_bef(sink_bytes).functions]


def test_without_optional_sections_attributes_need_a_type_code():
    text = f'func.func @f() {{\n  "k"() {{v = 42 : i32}} : () -> ()\n  {ret()}\n}}'
    b = read_bef(write_bef(parse(text), optional_sections=False))
    assert b.attribute_types is None
    fn = b.functions[0]
    assert fn.attribute_names is None and fn.register_types is None and fn.function_ref_names is None
    offset = fn.kernels[0].attrs[0]
    with pytest.raises(KeyError):
        b.attribute(offset)
    assert b.attribute(offset, DType.I32) == 42
    with pytest.raises(BEFFormatError, match="out of range"):
        b.attribute(10**6, DType.I32)


def test_reader_imports_neither_xdsl_nor_lark(tmp_path, sink_bytes):
    path = tmp_path / "sink.bef"
    path.write_bytes(sink_bytes)
    script = textwrap.dedent(
        f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("xdsl", "lark"):
                    raise ImportError("blocked: " + name)
                return None
        sys.meta_path.insert(0, Block())
        from tfrt.bef.reader import read_bef
        b = read_bef({str(path)!r})
        fn = b.function("everything")
        values = [b.attribute(a) for a in fn.kernels[1].attrs]
        b.location(fn.kernels[1].location)
        assert not [m for m in sys.modules if m.split(".")[0] in ("xdsl", "lark")]
        print("ok", len(values))
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok ")
