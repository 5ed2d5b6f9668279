"""The function index of a large file is read with numpy (every VBR at
once), and must give exactly what the checked reader gives: the same
entries for a good file, and for a damaged one either the same entries or
nothing (the checked reader then reports the damage)."""

from __future__ import annotations

import random

import numpy as np
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


def body_ends(entries: list, functions_at: int, limit: int) -> list:
    """Where each body ends: at the next body's start (None for a native function)."""
    starts = sorted({e[1] for e in entries if e[0] != 1})
    after = {s: functions_at + (starts[i + 1] if i + 1 < len(starts) else limit) for i, s in enumerate(starts)}
    return [None if e[0] == 1 else after[e[1]] for e in entries]


@pytest.fixture
def compared(monkeypatch):
    """Every vectorized read checked against the checked reader."""
    seen = {"fast": 0, "declined": 0}
    fast = R._Reader._function_index_vectorized

    def both(self, n, pos, end, limit):
        ok = fast(self, n, pos, end, limit)
        try:
            checked = self._function_entries(n, pos, end, limit)
        except BEFFormatError:
            assert not ok, "the vectorized reader accepted a damaged index"
            seen["declined"] += 1
            return False
        if not ok:
            seen["declined"] += 1
        else:
            assert [self.entry(i) for i in range(n)] == checked
            assert self._fend == body_ends(checked, self._functions_at, limit)
            assert self._named == [(i, e[2]) for i, e in enumerate(checked) if e[2]]
            assert self._natives == [i for i, e in enumerate(checked) if e[0] == 1]
            seen["fast"] += 1
        return ok

    monkeypatch.setattr(R._Reader, "_function_index_vectorized", both)
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
    # Function.lazy sets every field itself (no keyword defaults): it must
    # agree with Function(...), field for field.
    from tfrt.bef import program as bp

    bef = read_bef(many_functions(70), lazy=True)
    loader = bef.functions[0]._loader
    for f in bef.functions:
        kind, _offset, name, args, results = loader.entry(f.index)
        g = bp.Function(f.index, name, kind, args, results, loader=loader)
        for field in bp.Function.__slots__:
            assert getattr(f, field) == getattr(g, field), field


def test_functions_are_made_when_asked_for():
    from tfrt.bef import program as bp

    bef = read_bef(many_functions(100), lazy=True)
    fl = bef.functions
    assert isinstance(fl, bp.FunctionList) and len(fl) == 100
    assert fl._items.count(None) == 100
    assert len(fl.named()) == 100 and fl.natives() == []
    assert bef.function("function_with_a_longer_name_42").index == 42
    assert fl._items.count(None) == 99  # the one asked for
    assert fl[-1] is fl[99] and fl[98:][0] is fl[98]
    assert [f.index for f in fl] == list(range(100))
    with pytest.raises(IndexError):
        fl[100]
    # A body class without the function: kind, signature and body bytes.
    key = fl.body_class(7)
    assert key[:3] == (bp.ASYNC_FUNCTION, ("f32", "i32", "f32"), ("f32",))
    assert key == bp.body_class(list(fl), 7)  # a plain list's answer, from the function


def test_a_large_index_with_native_functions_and_regions(compared):
    from tfrt.bef import program as bp

    text = ["func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}"]
    text += [f"func.func @f{i}(%c: i1, %x: i32) -> i32 {{\n  %r = tfrt.if %c, %x : (i32) -> i32 {{\n"
             f"    tfrt.return %x : i32\n  }} else {{\n    tfrt.return %x : i32\n  }}\n  tfrt.return %r : i32\n}}"
             for i in range(40)]
    data = compile_text_to_bef("\n".join(text))
    bef = read_bef(data, lazy=True)
    checked = read_bef(data, lazy=True)
    assert len(bef.functions) > 64
    assert bp.named_functions(bef.functions)[:3] == [(0, "native_add"), (3, "f0"), (6, "f1")]
    assert bp.native_functions(bef.functions) == [0]
    assert bef.functions[0].kind == bp.NATIVE_FUNCTION and bef.functions.body_class(0) is None
    # Regions of one shape are one class; a function and a region are not.
    regions = [i for i in range(len(bef.functions)) if not bef.functions[i].name]
    classes = {bef.functions.body_class(i) for i in regions}
    assert len(classes) == 1
    assert checked.functions.body_class(regions[0]) == next(iter(classes))
    assert compared == {"fast": 2, "declined": 0}


def regions_file(count: int, seed: int) -> bytes:
    """Functions whose tfrt.if regions come in a few shapes (some the same
    but for their locations, some differing in one constant or type)."""
    rng = random.Random(seed)
    fs = []
    for i in range(count):
        k = rng.choice([1, 2, 2, 3])
        ty = rng.choice(["i32", "i32", "i64"])
        other = f"    %k = tfrt.constant.{ty} {k}\n    %m = tfrt.add.{ty} %x, %k\n    tfrt.return %m : {ty}"
        then = rng.choice(["    tfrt.return %x : " + ty, other])
        fs.append(f"func.func @f{i}(%c: i1, %x: {ty}) -> {ty} {{\n  %r = tfrt.if %c, %x : ({ty}) -> {ty} {{\n"
                  f"{then}\n  }} else {{\n{other}\n  }}\n  tfrt.return %r : {ty}\n}}")
    return compile_text_to_bef("\n".join(fs))


@pytest.mark.parametrize("seed", range(4))
def test_body_classes_group_as_body_class_does(seed, monkeypatch):
    from tfrt.bef import program as bp
    from tfrt.bef import reader as R

    bef = read_bef(regions_file(60, seed), lazy=True)
    fl = bef.functions
    rng = random.Random(seed)
    indices = [i for i in range(len(fl)) if rng.random() < 0.8]
    rng.shuffle(indices)
    indices += indices[:5]  # (an index twice)
    expected = bp.body_classes(list(fl), indices)  # from the functions, one at a time
    got = fl.body_classes(indices)
    for i, g, want in zip(indices, got, expected):
        assert g in (want, i)
    monkeypatch.setattr(R._Reader, "_CLASS_ROUNDS", 100)  # (every class of a shape)
    assert fl.body_classes(indices) == expected
    assert len(set(expected) - {-1}) > 3 and expected.count(-1) == 0
    # Bodies of one shape compared with only the first of them: the rest
    # keep themselves (a class split in several, never two classes merged).
    monkeypatch.setattr(R._Reader, "_CLASS_ROUNDS", 1)
    split = fl.body_classes(indices)
    for i, got, want in zip(indices, split, expected):
        assert got in (want, i)
    assert split != expected


def test_body_classes_of_functions_without_a_key():
    from tfrt.bef import program as bp

    text = ["func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}"]
    text += [f"func.func @f{i}() -> i32 {{\n  %c = tfrt.constant.i32 {i % 3}\n  tfrt.return %c : i32\n}}"
             for i in range(80)]
    bef = read_bef(compile_text_to_bef("\n".join(text)), lazy=True)
    indices = list(range(len(bef.functions)))
    got = bef.functions.body_classes(indices)
    assert got == bp.body_classes(list(bef.functions), indices)
    assert got[0] == -1 and got[1:7] == [1, 2, 3, 1, 2, 3]


def test_function_heads_without_making_functions():
    from tfrt.bef import program as bp

    for count in (30, 100):  # the checked reader's index, and the vectorized one
        bef = read_bef(many_functions(count), lazy=True)
        heads = bp.function_heads(bef.functions)
        assert bef.functions._items.count(None) == count
        assert heads == [(f.index, f.name, len(f.arg_types)) for f in bef.functions]
        assert bp.function_heads(list(bef.functions)) == heads
