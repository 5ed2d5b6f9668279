"""Stream analysis: exact stream ids, costs and trees for small graphs.

Every expected id below was worked out by hand from TFRT's algorithm (the
comments give the reasoning); the analysis must reproduce TFRT's ids because
they are written into BEF kernel tables.
"""

from __future__ import annotations

import pytest
from pass_testing import parse
from xdsl.dialects.func import FuncOp

from tfrt.bef.disassembler import bef_to_module
from tfrt.bef.reader import read_bef
from tfrt.bef.writer import write_bef
from tfrt.passes import diagnostic_handler, emit_diagnostic
from tfrt.passes.stream_analysis import (
    ROOT,
    PrintStreamPass,
    StreamAnalysis,
    _llvm_dense_int_set_order,
    cost_threshold_option,
    merge_inter_dependent_streams_option,
)


def tc(result: str, operands: str, cost: int) -> str:
    """A generic `tfrt_test.test_cost` with i32 operands."""
    names = [o.strip() for o in operands.split(",") if o.strip()]
    types = ", ".join("i32" for _ in names)
    return (
        f'%{result} = "tfrt_test.test_cost"({", ".join(names)})'
        f" <{{id = 0 : i64, _tfrt_cost = {cost} : i64}}> : ({types}) -> i32"
    )


def func(
    name: str, body: list[str], results: list[str], attrs: str = "", args: str = "%x: i32"
) -> str:
    ret = ", ".join(results)
    types = ", ".join("i32" for _ in results)
    ret_op = f'"tfrt.return"({ret}) : ({types}) -> ()'
    attr_text = f" attributes {{{attrs}}}" if attrs else ""
    lines = "\n  ".join([*body, ret_op])
    return f"func.func @{name}({args}) -> ({types}){attr_text} {{\n  {lines}\n}}"


def analyse(text: str, name: str | None = None) -> StreamAnalysis:
    module = parse(text)
    funcs = [op for op in module.walk() if isinstance(op, FuncOp)]
    fn = funcs[0] if name is None else next(f for f in funcs if f.sym_name.data == name)
    return StreamAnalysis(fn.body.blocks.first)


def ids(analysis: StreamAnalysis) -> list[int]:
    return [analysis.stream_of(op).id for op in analysis.block.ops]


def tree(analysis: StreamAnalysis) -> dict[int, tuple[int, int]]:
    """stream id -> (cost, parent stream id)."""
    return {s.id: (s.cost, s.parent_id) for s in analysis.streams}


def test_a_chain_is_one_stream():
    # Automatic threshold = the highest cost from the root, 1 + 3 + 3 + 1.
    a = analyse(func("chain", [tc("a", "%x", 3), tc("b", "%a", 3)], ["%b"]))
    assert ids(a) == [0, 0, 0]
    assert tree(a) == {0: (8, -1)}
    assert a.cost_threshold == 8 and a.merge_using_cost_from_root
    assert a.root_stream.child_streams_of(ROOT) == []


def test_expensive_independent_ops_get_their_own_stream():
    # The return is made first (stream 0); %b feeds the return only as a side
    # use (%a, first of the two equal costs, triggers it), so %b leads stream 1.
    a = analyse(func("fork", [tc("a", "%x", 10), tc("b", "%x", 10)], ["%a", "%b"],
                     "tfrt.cost_threshold = 10"))
    assert ids(a) == [0, 1, 0]
    assert tree(a) == {0: (12, -1), 1: (10, 0)}
    assert [s.id for s in a.root_stream.child_streams_of(ROOT)] == [1]
    assert a.stream_of(ROOT) is a.root_stream


def test_cheap_streams_are_merged_until_just_above_the_threshold():
    # Root children in block order: %p (stream 3, cost 2), %q (2, cost 3),
    # %r (1, cost 2), %s (0 with the return, cost 5).  3 absorbs 2 (5) then
    # 1 (7 >= 6); 0 starts a new group and holds the return, so the root
    # joins 0.
    a = analyse(func("cheap", [tc("p", "%x", 2), tc("q", "%x", 3), tc("r", "%x", 2),
                               tc("s", "%x", 4)], ["%p", "%q", "%r", "%s"],
                     "tfrt.cost_threshold = 6"))
    assert ids(a) == [3, 3, 3, 0, 0]
    assert tree(a) == {0: (6, -1), 3: (7, 0)}
    assert a.stream_of(ROOT).child_streams_of(ROOT)[0].id == 3


def test_automatic_threshold_keeps_cheap_siblings_apart():
    # Threshold 9 (1 + 5 + 2 + 1); %b and %c (cost 1 each) are merged with
    # each other (1 + 1 + 1 < 9) but, with the automatic threshold, not into
    # the root stream.
    a = analyse(func("auto", [tc("a", "%x", 5), tc("b", "%x", 1), tc("c", "%x", 1),
                              tc("d", "%a, %b, %c", 2)], ["%d"]))
    assert ids(a) == [0, 2, 2, 0, 0]
    assert tree(a) == {0: (9, -1), 2: (2, 0)}


def test_a_stream_can_start_inside_another():
    # %c is a side use of the return; it hangs off %a, which is in stream 0.
    a = analyse(func("inner", [tc("a", "%x", 2), tc("b", "%a", 5), tc("c", "%a", 5)],
                     ["%b", "%c"], "tfrt.cost_threshold = 5"))
    assert ids(a) == [0, 0, 1, 0]
    first = next(iter(a.block.ops))
    child = a.stream_of(first).child_streams_of(first)
    assert [s.id for s in child] == [1]
    assert child[0].parent_op is first and child[0].parent_id == 0
    assert a.root_stream.child_streams_of(ROOT) == []
    assert tree(a) == {0: (9, -1), 1: (5, 0)}


def test_ops_without_cost_use_the_threshold():
    body = [
        '%a = "tfrt.constant.i32"() <{value = 1 : i32}> : () -> i32',
        '%b = "tfrt.constant.i32"() <{value = 2 : i32}> : () -> i32',
        '%c = "tfrt.add.i32"(%a, %b) : (i32, i32) -> i32',
    ]
    # Automatic: plain ops count 1 while the tree is built (threshold 4).
    a = analyse(func("plain", body, ["%c"], args=""))
    assert ids(a) == [0, 1, 0, 0]
    assert tree(a) == {0: (4, -1), 1: (1, 0)}
    # Threshold 10: each plain op costs 10, so a plain op alone is already
    # expensive enough to keep its own stream.
    a = analyse(func("plain", body, ["%c"], "tfrt.cost_threshold = 10", args=""))
    assert ids(a) == [0, 1, 0, 0]
    assert tree(a) == {0: (22, -1), 1: (10, 0)}


@pytest.mark.parametrize(
    "threshold, expected, costs",
    [
        # A stream costing exactly the threshold stays apart...
        (10, [0, 1, 0, 0], {0: (22, -1), 1: (10, 0)}),
        # ...one below it is the last cheap stream, which joins the op's stream.
        (11, [0, 0, 0, 0], {0: (32, -1)}),
    ],
)
def test_threshold_is_inclusive(threshold, expected, costs):
    body = [tc("a", "%x", 10), tc("b", "%x", 10), tc("c", "%a, %b", 10)]
    a = analyse(func("edge", body, ["%c"], f"tfrt.cost_threshold = {threshold}"))
    assert ids(a) == expected
    assert tree(a) == costs


def test_merge_chains_and_return_are_cheap_and_chains_are_not_data():
    body = [
        tc("a", "%x", 4),
        '%ch = "tfrt.merge.chains"(%a) : (i32) -> !tfrt.chain',
        '%r = "tfrt_test.test_cost"(%x, %ch) <{id = 1 : i64, _tfrt_cost = 1 : i64}> :'
        " (i32, !tfrt.chain) -> i32",
    ]
    a = analyse(func("chains", body, ["%r"]))
    # Costs 1 (root) + 4 + 1 (merge.chains) + 1 + 1 (return): all in one stream.
    assert ids(a) == [0, 0, 0, 0]
    assert tree(a) == {0: (8, -1)}


INTER = [
    tc("a", "%x", 4),
    tc("b", "%x", 4),
    tc("c", "%x", 4),
    tc("c2", "%c, %a", 1),  # triggered by %c; uses %a's data on the side
    tc("r", "%x", 20),
]


@pytest.mark.parametrize(
    "merge, expected, costs",
    [
        # Merging inter-dependent streams first puts %a with %c, %c2.
        (True, [3, 0, 3, 3, 0, 0], {0: (26, -1), 3: (9, 0)}),
        # Otherwise cheap siblings are merged in block order: %a with %b.
        (False, [3, 3, 0, 0, 0, 0], {0: (27, -1), 3: (8, 0)}),
    ],
)
def test_merge_inter_dependent_streams(merge, expected, costs):
    attrs = "tfrt.cost_threshold = 8"
    if merge:
        attrs += ", tfrt.merge_inter_dependent_streams = true"
    a = analyse(func("inter", INTER, ["%r"], attrs))
    assert a.merge_inter_dependent_streams is merge
    assert ids(a) == expected
    assert tree(a) == costs


def test_inter_dependent_merges_follow_llvm_set_order():
    # %w's stream (4) depends on the streams of %y2 (3) and %z2 (1).  TFRT
    # visits them in the order of an llvm::SmallDenseSet<int>: 1 before 3
    # (hash 37 < 47).  Merging 1 already lifts stream 4 over the threshold,
    # so %y's stream (3) stays apart and takes in %v instead.
    body = [
        tc("w", "%x", 3),
        tc("y", "%x", 5),
        tc("z", "%x", 5),
        tc("y2", "%y, %w", 1),
        tc("v", "%x", 5),
        tc("z2", "%z, %w", 1),
        tc("r", "%x", 20),
    ]
    a = analyse(func("order", body, ["%r"],
                     "tfrt.cost_threshold = 8, tfrt.merge_inter_dependent_streams = true"))
    assert ids(a) == [4, 3, 4, 3, 3, 4, 0, 0]
    assert tree(a) == {0: (22, -1), 4: (9, 0), 3: (11, 0)}
    assert [s.id for s in a.root_stream.child_streams_of(ROOT)] == [4, 3]


def test_llvm_dense_int_set_order():
    assert _llvm_dense_int_set_order([]) == []
    assert _llvm_dense_int_set_order([5]) == [5]
    assert _llvm_dense_int_set_order([1, 3]) == [1, 3]
    assert _llvm_dense_int_set_order([3, 1]) == [1, 3]
    assert _llvm_dense_int_set_order([1, 2]) == [2, 1]
    assert _llvm_dense_int_set_order([2, 2, 1]) == [2, 1]
    # 0 and 64 collide in 64 buckets: the later one probes to the next.
    assert _llvm_dense_int_set_order([64, 0]) == [64, 0]
    assert _llvm_dense_int_set_order([0, 64]) == [0, 64]
    # 64 buckets up to 47 entries, then 128.
    assert _llvm_dense_int_set_order(range(47)) == sorted(range(47), key=lambda v: v * 37 % 64)
    assert _llvm_dense_int_set_order(range(50)) == sorted(range(50), key=lambda v: v * 37 % 128)


def test_options_come_from_the_function_then_the_module():
    text = (
        "module attributes {tfrt.cost_threshold = 7 : i64,"
        " tfrt.merge_inter_dependent_streams = true} {\n"
        + func("own", [tc("a", "%x", 1)], ["%a"],
               "tfrt.cost_threshold = 3, tfrt.merge_inter_dependent_streams = false")
        + "\n"
        + func("inherits", [tc("a", "%x", 1)], ["%a"])
        + "\n"
        + func("region", ['%r = "tfrt.repeat.i32"(%x, %x) ({\n  ^bb0(%y: i32):\n'
                          '    "tfrt.return"(%y) : (i32) -> ()\n  }) : (i32, i32) -> i32'],
               ["%r"], "tfrt.cost_threshold = 3")
        + "\n}"
    )
    module = parse(text)
    own, inherits, region = (op for op in module.body.block.ops)
    assert cost_threshold_option(own.body.blocks.first) == 3
    assert not merge_inter_dependent_streams_option(own.body.blocks.first)
    assert cost_threshold_option(inherits.body.blocks.first) == 7
    assert merge_inter_dependent_streams_option(inherits.body.blocks.first)
    # A region's block takes only the module's options.
    repeat = region.body.blocks.first.first_op
    assert cost_threshold_option(repeat.regions[0].blocks.first) == 7
    assert cost_threshold_option(region.body.blocks.first) == 3
    # Absent or non-positive: automatic.
    plain = parse(func("p", [tc("a", "%x", 2)], ["%a"], "tfrt.cost_threshold = 0"))
    block = plain.body.block.first_op.body.blocks.first
    assert cost_threshold_option(block) == 0
    a = StreamAnalysis(block)
    assert a.merge_using_cost_from_root and a.cost_threshold == 4


def test_custom_cost_model():
    body = [
        '%a = "k.a"(%x) : (i32) -> i32',
        '%b = "k.b"(%x) : (i32) -> i32',
    ]
    text = func("custom", body, ["%a"], "tfrt.cost_threshold = 5")
    module = parse(text)
    block = module.body.block.first_op.body.blocks.first
    # Default: unknown ops cost the threshold, so %b (5) stays apart.
    assert ids(StreamAnalysis(block)) == [0, 1, 0]
    # A cost model that makes %b cheap merges it into the root stream.
    cheap = StreamAnalysis(block, cost_model=lambda op: 1 if op.op_name.data == "k.b" else None)
    assert ids(cheap) == [0, 0, 0]
    assert cheap.root_stream.cost == 1 + 5 + 1 + 1


def test_block_arguments_and_outside_values_hang_off_the_root():
    text = func("args", ['%a = "k.a"(%x, %y) : (i32, i32) -> i32'], ["%a"],
                args="%x: i32, %y: i32")
    a = analyse(text)
    assert ids(a) == [0, 0]
    assert a.stream_ids() == {op: 0 for op in a.block.ops}


def test_print_stream_pass_emits_one_remark_per_op_and_function():
    text = func("fork", [tc("a", "%x", 10), tc("b", "%x", 10)], ["%a", "%b"],
                "tfrt.cost_threshold = 10")
    module = parse(text)
    seen = []
    with diagnostic_handler(seen.append):
        PrintStreamPass().apply(None, module)  # type: ignore[arg-type]
    assert [d.severity for d in seen] == ["remark"] * 4
    assert [d.message for d in seen] == [
        "stream id: 0, stream cost: 12, parent stream: -1, child streams: [1]",
        "stream id: 0, stream cost: 12, parent stream: -1",
        "stream id: 1, stream cost: 10, parent stream: 0",
        "stream id: 0, stream cost: 12, parent stream: -1",
    ]


def test_emit_diagnostic_without_handler_prints(capsys):
    from tfrt.diagnostics import Diagnostic

    emit_diagnostic(Diagnostic("remark", "hello"))
    assert capsys.readouterr().err == "remark: hello\n"


def test_bef_kernel_tables_record_stream_ids():
    text = func("fork", [tc("a", "%x", 10), tc("b", "%x", 10)], ["%a", "%b"],
                "tfrt.cost_threshold = 10")
    bef = read_bef(write_bef(parse(text)))
    (fn,) = bef.functions
    assert [(k.name, k.stream_id) for k in fn.kernels] == [
        ("tfrt_test.test_cost", 0),
        ("tfrt_test.test_cost", 1),
    ]


def test_region_functions_get_their_own_stream_ids():
    region = (
        '%r = "tfrt.repeat.i32"(%x, %x) ({\n  ^bb0(%y: i32):\n'
        '    %p = "k.p"() : () -> i32\n'
        '    %q = "k.q"(%y) : (i32) -> i32\n'
        '    "tfrt.return"(%q) : (i32) -> ()\n  }) : (i32, i32) -> i32'
    )
    bef = read_bef(write_bef(parse(func("outer", [region], ["%r"]))))
    body, outer = bef.functions  # the region's function comes first
    # In the region, %p feeds nothing: its own stream (1); %q is on the
    # return's path (0).
    assert [(k.name, k.stream_id) for k in body.kernels] == [("k.p", 1), ("k.q", 0)]
    assert [k.stream_id for k in outer.kernels] == [0]


def test_round_trip_keeps_stream_ids():
    # Ops without a cost trait survive BEF unchanged, so do their ids.
    body = ['%a = "k.a"(%x) : (i32) -> i32', '%b = "k.b"(%x) : (i32) -> i32',
            '"k.c"() : () -> ()', '%d = "k.d"(%a, %b) : (i32, i32) -> i32']
    data = write_bef(parse(func("rt", body, ["%d"])))
    # Threshold 4 (automatic); the cheap leaves %b and %c share stream 2.
    kernels = read_bef(data).functions[0].kernels
    assert [(k.name, k.stream_id) for k in kernels] == [
        ("k.a", 0), ("k.b", 2), ("k.c", 2), ("k.d", 0)
    ]
    assert write_bef(bef_to_module(read_bef(data))) == data
