"""A large body (more than SMALL_BODY kernels) is checked with numpy: its
ORDER column and its uses of registers must give the messages the small
body's check gives, naming the first kernel at fault."""

from __future__ import annotations

import random

import pytest
from make_invalid_fixtures import C, main_body, with_main_body
from tfrt.bef import program as bp
from tfrt.bef.reader import BEFFormatError, read_bef
from tfrt.bef.writer import write_bef
from tfrt.dialects.syntax import parse_module


def chain(n: int, sync: bool = False) -> bytes:
    attr = " attributes {tfrt.sync}" if sync else ""
    lines = [f"func.func @main(%a: i32) -> i32{attr} {{", "  %v0 = tfrt.constant.i32 1"]
    lines += [f"  %v{i} = tfrt.add.i32 %v{i - 1}, %a" for i in range(1, n)]
    lines += [f"  tfrt.return %v{n - 1} : i32", "}"]
    return write_bef(parse_module("\n".join(lines) + "\n", "chain.mlir"))


def first_fault(body, nfargs: int, sync: bool) -> str | None:
    """The check, one kernel at a time: the first operand (in kernel-table
    order) whose defining kernel does not run before its user."""
    n = body.n
    order = body.cols[C.ORDER]
    if sorted(order) != list(range(n)):
        return f"the execution order is not a permutation of its {n} kernels"
    rank = {k: i for i, k in enumerate(order)}
    producer = {}
    reg = nfargs
    for k in range(n):
        for _ in range(body.cols[C.NUM_RESULTS][k]):
            producer[reg] = k
            reg += 1
    at = 0
    for u in range(n):
        for a in body.cols[C.ARGS][at : at + body.cols[C.NUM_ARGS][u]]:
            if a >= nfargs:
                p = producer[a]
                if rank[p] >= rank[u] or (sync and p >= u):
                    return f"kernel {u} uses register {a} before kernel {p} defines it"
        at += body.cols[C.NUM_ARGS][u]
    return None


@pytest.mark.parametrize("sync", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_a_large_body_reports_its_first_fault(sync, seed):
    data = chain(bp.SMALL_BODY + 30, sync)
    body, _ = main_body(data)
    rng = random.Random(seed)
    order = body.cols[C.ORDER]
    if seed == 0:
        order[rng.randrange(body.n)] = order[rng.randrange(body.n)]  # a kernel twice
    else:
        for _ in range(seed):  # some kernels moved
            i, j = rng.randrange(body.n), rng.randrange(body.n)
            order[i], order[j] = order[j], order[i]
    if sync:  # a sync body runs in program order: ORDER as written, a use before its kernel
        body.cols[C.ORDER] = list(range(body.n))
        k = rng.randrange(2, body.n - 1)
        at = sum(body.cols[C.NUM_ARGS][:k])
        body.cols[C.ARGS][at] = 1 + k + rng.randrange(1, body.n - k)  # a later kernel's result
    want = first_fault(body, 1, sync)
    assert want is not None
    bef = read_bef(with_main_body(data, body), lazy=True)
    with pytest.raises(BEFFormatError) as info:
        bef.function("main").columns  # noqa: B018
    assert want in str(info.value)


def test_a_large_body_in_order_is_accepted_and_ranks_its_kernels():
    bef = read_bef(chain(bp.SMALL_BODY + 30), lazy=True)
    cols = bef.function("main").columns
    assert cols.lists is None
    assert cols.rank[cols.order].tolist() == list(range(len(cols)))
