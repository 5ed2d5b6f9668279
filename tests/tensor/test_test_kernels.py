"""Kernels behind ops that had none: the `tensorflow.Example` kernels,
`tfrt_test.sync_benchmark`, `tfrt_test.get_string_sync`, `tfrt.constant_s.*`,
`tfrt.mul_s.*` and `tfrt.get_device`'s device names, run through the whole
stack (tfrt.kernels.basic / test_kernels)."""

from __future__ import annotations

import struct

import pytest

from tfrt.kernels.test_kernels import parse_example

from .pipeline import run_mlir


# -- a tiny protobuf encoder, enough to build tensorflow.Example messages ----


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _example(features: dict[str, tuple[str, list]], packed: bool = True) -> bytes:
    entries = b""
    for key, (kind, values) in features.items():
        if kind == "bytes":
            inner = b"".join(_field(1, v) for v in values)
            feature = _field(1, inner)
        elif kind == "int64":
            if packed:
                inner = _field(1, b"".join(_varint(v) for v in values))
            else:
                inner = b"".join(_varint(1 << 3 | 0) + _varint(v) for v in values)
            feature = _field(3, inner)
        else:
            feature = _field(2, _field(1, b"".join(struct.pack("<f", v) for v in values)))
        entries += _field(1, _field(1, key.encode()) + _field(2, feature))
    return _field(1, entries)


def test_parse_example_kinds():
    data = _example(
        {
            "image": ("bytes", [b"\xff\xd8\x00raw"]),
            "label": ("int64", [-3]),
            "scores": ("float", [0.5, 2.0]),
        }
    )
    assert parse_example(data) == {
        "image": ("bytes", [b"\xff\xd8\x00raw"]),
        "label": ("int64", [-3]),
        "scores": ("float", [0.5, 2.0]),
    }
    # Unpacked repeated int64 fields read the same.
    assert parse_example(_example({"n": ("int64", [7, 8])}, packed=False)) == {
        "n": ("int64", [7, 8])
    }


def test_example_kernels_from_mlir(tmp_path):
    path = tmp_path / "example.pb"
    path.write_bytes(_example({"name": ("bytes", [b"tfrt"]), "label": ("int64", [42])}))
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\x0a\x05ab")  # a length that runs past the end
    run = run_mlir(f"""
func.func @f() -> !tfrt.chain {{
  %ch0 = tfrt.new.chain
  %path = tfrt_test.get_string {{value = "{path}"}}
  %data = "tfrt_test.read_string_from_file"(%path) : (!tfrt.string) -> !tfrt.string
  %ex = tfrt_test.parse_example_from_bytes %data
  %k1 = tfrt_test.get_string {{value = "name"}}
  %name = tfrt_test.get_bytes_field_from_example %ex, %k1
  %k2 = tfrt_test.get_string_sync {{value = "label"}}
  %label = tfrt_test.get_int64_field_from_example %ex, %k2
  %ch1 = "tfrt_test.print_string"(%name, %ch0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %ch2 = tfrt.print.i64 %label, %ch1
  %k3 = tfrt_test.get_string {{value = "missing"}}
  %none = tfrt_test.get_int64_field_from_example %ex, %k3
  %wrong = tfrt_test.get_int64_field_from_example %ex, %k1
  %bpath = tfrt_test.get_string {{value = "{bad}"}}
  %bdata = "tfrt_test.read_string_from_file"(%bpath) : (!tfrt.string) -> !tfrt.string
  %bex = tfrt_test.parse_example_from_bytes %bdata
  tfrt.return %ch2 : !tfrt.chain
}}
""")
    assert run.lines == ["string = tfrt", "int64 = 42"]
    assert sorted(run.diagnostics, key=lambda d: d[1]) == [
        ("key missing is not found in the proto", 14),
        ("feature name is not a single int64 value", 15),
        ("failed to parse example.proto from string", 18),
    ]


SYNC_PROGRAM = """
func.func @work(%x: i64) attributes {tfrt.sync} {
  %two = tfrt.constant_s.i64 2
  %y = tfrt.mul_s.i64 %x, %two
  tfrt.return
}
func.func @not_sync(%x: i64) {
  tfrt.return
}
func.func @main() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %x = tfrt.constant.i64 21
  tfrt_test.sync_benchmark @work(%x : i64) duration_secs = 100, max_count = 5, num_warmup_runs = 2
  tfrt_test.sync_benchmark @not_sync(%x : i64) duration_secs = 1, max_count = 1
  tfrt.return %ch0 : !tfrt.chain
}
"""


def test_sync_benchmark_runs_a_sync_function():
    run = run_mlir(SYNC_PROGRAM, functions=["main"])
    stats = dict(line.split(":", 2)[2].split(": ") for line in run.lines)
    assert run.lines[0].startswith("BM:work:Duration(ns): ")
    assert stats["Count"] == "5"  # the warm-up runs are not counted
    assert set(stats) >= {"Time Min(ns)", "Time 50%(ns)", "CPU 99%(ns)", "CPU utilization(percent)"}
    assert run.diagnostics == [("SyncBenchmark op requires the input function be a sync function", 14)]


def test_sync_kernels_compute():
    run = run_mlir("""
func.func @f() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %a = tfrt.constant_s.i64 9223372036854775807
  %b = tfrt.constant_s.i64 2
  %p = tfrt.mul_s.i64 %a, %b
  %c = tfrt.constant.i32 65536
  %q = tfrt.mul_s.i32 %c, %c
  %f = tfrt.constant_s.f32 1.5
  %d = tfrt.constant_s.f64 0.25
  %ch1 = tfrt.print.i64 %p, %ch0
  %ch2 = tfrt.print.i32 %q, %ch1
  %ch3 = tfrt.print.f32 %f, %ch2
  %ch4 = tfrt.print.f64 %d, %ch3
  tfrt.return %ch4 : !tfrt.chain
}
""")
    assert run.diagnostics == []
    assert run.lines == ["int64 = -2", "int32 = 0", "f32 = 1.500000", "f64 = 0.250000"]


@pytest.mark.parametrize("name", ["CPU:0", "cpu"])
def test_get_device_finds_registry_devices(name):
    run = run_mlir(f"""
func.func @f() -> !tfrt.chain {{
  %ch0 = tfrt.new.chain
  %dev = tfrt.get_device %ch0 {{device_name = "{name}"}}
  %bad = tfrt.get_device %ch0 {{device_name = "tpu:0"}}
  tfrt.return %ch0 : !tfrt.chain
}}
""")
    assert run.diagnostics == [("cannot find device tpu:0", 5)]
