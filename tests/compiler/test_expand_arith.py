"""arith.addui_extended / mului_extended / mulsi_extended against Python's big integers."""

import numpy as np
import pytest

import tfrt.api

WIDTHS = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def _signed(v, w):
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def _edge_values(w, rng, n=24):
    lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    vals = [0, 1, -1, lo, hi, lo + 1, hi - 1, 2, -2]
    vals += [int(v) for v in rng.integers(lo, hi, size=n - len(vals), endpoint=True, dtype=np.int64)]
    return vals


@pytest.mark.parametrize("w", sorted(WIDTHS))
def test_extended_ops_on_tensors_and_scalars(w):
    rng = np.random.default_rng(w)
    a = np.array(_edge_values(w, rng), dtype=WIDTHS[w])
    b = np.array(_edge_values(w, rng)[::-1], dtype=WIDTHS[w])
    n = len(a)
    t = f"tensor<{n}xi{w}>"
    text = f"""
func.func @f(%a: {t}, %b: {t}) -> ({t}, tensor<{n}xi1>, {t}, {t}, {t}, {t}) {{
  %s, %c = arith.addui_extended %a, %b : {t}, tensor<{n}xi1>
  %ul, %uh = arith.mului_extended %a, %b : {t}
  %sl, %sh = arith.mulsi_extended %a, %b : {t}
  return %s, %c, %ul, %uh, %sl, %sh : {t}, tensor<{n}xi1>, {t}, {t}, {t}, {t}
}}
func.func @g(%a: i{w}, %b: i{w}) -> (i{w}, i1, i{w}, i{w}) {{
  %s, %c = arith.addui_extended %a, %b : i{w}, i1
  %sl, %sh = arith.mulsi_extended %a, %b : i{w}
  return %s, %c, %sl, %sh : i{w}, i1, i{w}, i{w}
}}"""
    prog = tfrt.api.load(text)
    s, c, ul, uh, sl, sh = prog.call("f", a, b)
    m = (1 << w) - 1
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        ux, uy = x & m, y & m
        assert int(s[i]) == _signed(ux + uy, w) and bool(c[i]) == (ux + uy > m), (x, y)
        assert int(ul[i]) == _signed(ux * uy, w) and int(uh[i]) == _signed((ux * uy) >> w, w), (x, y)
        assert int(sl[i]) == _signed(x * y, w) and int(sh[i]) == _signed((x * y) >> w, w), (x, y)
    s1, c1, sl1, sh1 = prog.call("g", a[3], b[3])
    x, y = int(a[3]), int(b[3])
    assert int(s1) == _signed(x + y, w) and bool(c1) == ((x & m) + (y & m) > m)
    assert int(sl1) == _signed(x * y, w) and int(sh1) == _signed((x * y) >> w, w)
