"""The Python API: load, call, call_async, argument conversion, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tfrt.api as api

SOURCE = """\
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @fma(%a: f32, %b: f32, %c: f32) -> (f32, f64) {
  %m = "tfrt.multiply.f32"(%a, %b) : (f32, f32) -> f32
  %s = tfrt.add.f32 %m, %c
  %d = tfrt.constant.f64 0.5
  tfrt.return %s, %d : f32, f64
}

func.func @div(%a: i32, %b: i32) -> (i32, i32) {
  %q, %r = tfrt.div.i32 %a, %b
  tfrt.return %q, %r : i32, i32
}

func.func @later(%a: i32) -> i32 {
  %b = "tfrt_test.async_add.i32"(%a, %a) : (i32, i32) -> i32
  tfrt.return %b : i32
}

func.func @nothing() {
  tfrt.return
}
"""


@pytest.fixture(scope="module")
def bef_bytes():
    from tfrt.bef.writer import write_bef
    from tfrt.dialects.syntax import parse_module

    return write_bef(parse_module(SOURCE, "api.mlir", allow_unregistered=True))


def test_call_returns_python_values(bef_bytes):
    prog = api.load(bef_bytes)
    assert sorted(prog.functions) == ["add", "div", "fma", "later", "nothing"]
    for _ in range(3):  # interpreted, then compiled
        assert prog.call("add", 2, 3) == 5
    assert prog.call("add", 2**31 - 1, 1) == -(2**31)
    s, d = prog.call("fma", 0.1, 3.0, 1.0)
    assert type(s) is np.float32 and s == np.float32(np.float32(0.1) * np.float32(3.0)) + np.float32(1.0)
    assert d == 0.5
    assert prog.call("div", -7, 2) == (-3, -1)
    assert prog.call("nothing") is None
    assert prog.signature("div") == (("i32", "i32"), ("i32", "i32"))


def test_errors_raise_with_location(bef_bytes):
    prog = api.load(bef_bytes)
    for _ in range(3):
        with pytest.raises(api.ExecutionError, match=r"'div' failed: Divide by zero \(at api.mlir:14:3\)"):
            prog.call("div", 1, 0)
    assert prog.diagnostics[0].message == "Divide by zero"


def test_bad_arguments(bef_bytes):
    prog = api.load(bef_bytes)
    with pytest.raises(KeyError, match="no function named 'sub'"):
        prog.call("sub", 1, 2)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        prog.call("add", 1)
    with pytest.raises(OverflowError):
        prog.call("add", 2**31, 0)


@pytest.mark.parametrize("work_queue", ["s", "mstd:2"])
def test_call_async_returns_futures(bef_bytes, work_queue):
    prog = api.load(bef_bytes, work_queue=work_queue)
    try:
        futures = [prog.call_async("later", i)[0] for i in range(20)]
        prog.wait(futures)
        assert [f.get() for f in futures] == [2 * i for i in range(20)]
        assert prog.call("later", 21) == 42
    finally:
        prog.close()


def test_load_from_path_and_mlir(tmp_path, bef_bytes):
    path = tmp_path / "p.bef"
    path.write_bytes(bef_bytes)
    assert api.load(path).call("add", 1, 1) == 2
    src = tmp_path / "p.mlir"
    src.write_text(SOURCE)
    assert api.load(src).call("add", 1, 2) == 3
