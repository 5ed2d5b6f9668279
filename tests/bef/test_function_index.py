"""The function index of a large file is read with numpy (every VBR at
once), and must give exactly what the checked reader gives: the same
entries for a good file, and for a damaged one either the same entries or
nothing (the checked reader then reports the damage)."""

from __future__ import annotations

import random

import pytest
from tfrt.bef import reader as R
from tfrt.bef.reader import BEFFormatError, read_bef
from tfrt.passes.compiler import compile_text_to_bef


def many_functions(count: int) -> bytes:
    fs = []
    for i in range(count):
        na = i % 4
        nr = min(i % 3, na)
        args = ", ".join(f"%a{j}: {'i32' if j % 2 else 'f32'}" for j in range(na))
        res = ", ".join(["i32" if j % 2 else "f32" for j in range(nr)])
        ret = f"tfrt.return {', '.join(f'%a{j}' for j in range(nr))} : {res}" if nr else "tfrt.return"
        fs.append(f"func.func @function_with_a_longer_name_{i}({args}) -> ({res}) {{\n  {ret}\n}}")
    return compile_text_to_bef("\n".join(fs))


@pytest.fixture
def compared(monkeypatch):
    """Every vectorized read checked against the checked reader."""
    seen = {"fast": 0, "declined": 0}
    fast = R._Reader._function_entries_vectorized

    def both(self, n, pos, end, limit):
        out = fast(self, n, pos, end, limit)
        try:
            checked = self._function_entries(n, pos, end, limit)
        except BEFFormatError:
            assert out is None, "the vectorized reader accepted a damaged index"
            seen["declined"] += 1
            return None
        if out is None:
            seen["declined"] += 1
        else:
            assert out == checked
            seen["fast"] += 1
        return out

    monkeypatch.setattr(R._Reader, "_function_entries_vectorized", both)
    return seen


def test_a_large_index_reads_as_the_checked_reader_reads_it(compared):
    bef = read_bef(many_functions(300), lazy=True)
    assert compared == {"fast": 1, "declined": 0}
    assert [f.name for f in bef.functions][:2] == ["function_with_a_longer_name_0", "function_with_a_longer_name_1"]
    assert bef.functions[7].arg_types == ("f32", "i32", "f32")


def test_a_damaged_index_is_reported_as_before(compared):
    data = many_functions(120)
    rng = random.Random(7)
    errors = 0
    for _ in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            p = rng.randrange(len(mutated))
            mutated[p] ^= 1 << rng.randrange(8)
        try:
            read_bef(bytes(mutated), lazy=True)
        except BEFFormatError:
            errors += 1
    assert errors > 0 and compared["fast"] + compared["declined"] > 0


def test_index_records_are_the_functions_the_constructor_makes():
    # Function.from_index sets every field itself (no keyword defaults):
    # it must agree with Function(...), field for field.
    from tfrt.bef import program as bp

    bef = read_bef(many_functions(70), lazy=True)
    loader = bef.functions[0]._loader
    for f in bef.functions:
        kind, _offset, name, args, results = loader.entries[f.index]
        g = bp.Function(f.index, name, kind, args, results, loader=loader)
        for field in bp.Function.__slots__:
            assert getattr(f, field) == getattr(g, field), field
