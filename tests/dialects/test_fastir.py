"""create_op builds the same op as xDSL's Op.create, field for field."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.linalg.ops import YieldOp as LinalgYieldOp
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnregisteredOp,
    f32,
    i64,
)
from xdsl.ir import Block, Region

from tfrt.dialects.fastir import create_op, erase_op, replace_all_uses, walk


def _fields(op):
    """What an op holds, with IR objects replaced by what identifies them."""
    return {
        "keys": sorted(op.__dict__),
        "operands": tuple(op.operands),
        "uses": [(u.operation is op, u.index) for u in op._operand_uses],
        "results": [(r.type, r.index, r.op is op, sorted(r.__dict__)) for r in op.results],
        "properties": dict(op.properties),
        "attributes": dict(op.attributes),
        "location": op.location,
        "regions": len(op.regions),
        "successors": tuple(op.successors),
        "parent": op.parent,
    }


def _args(*types):
    return Block(arg_types=list(types)).args


@pytest.mark.parametrize(
    "cls, make",
    [
        (arith.MulfOp, lambda: dict(operands=list(_args(f32, f32)), result_types=[f32])),
        (arith.ConstantOp, lambda: dict(properties={"value": IntAttr(1)}, result_types=[i64])),
        (func.ReturnOp, lambda: dict(operands=list(_args(f32)))),
        (ModuleOp, lambda: dict(regions=[Region(Block())])),
        (UnregisteredOp.with_name("my.op"), lambda: dict(result_types=[f32])),
        (
            LinalgYieldOp,
            lambda: dict(operands=list(_args(TensorType(f32, [2])))),
        ),
    ],
)
def test_create_op_equals_create(cls, make):
    loc = FileLineColLoc(StringAttr("f.mlir"), IntAttr(3), IntAttr(4))
    theirs = cls.create(**make(), location=loc)
    ours = create_op(cls, **make(), location=loc)
    a, b = _fields(theirs), _fields(ours)
    # Operands are fresh block arguments per call: compare their types.
    a["operands"] = [v.type for v in a.pop("operands")]
    b["operands"] = [v.type for v in b.pop("operands")]
    assert a == b


def test_create_op_links_uses_and_copies_dicts():
    x, y = _args(f32, f32)
    props: dict = {}
    first = create_op(arith.AddfOp, [x, y], [f32], props)
    second = create_op(arith.MulfOp, [x, x], [f32])
    assert props == {}  # the op's dictionary is its own
    assert [(u.operation, u.index) for u in x.uses] == [(second, 1), (second, 0), (first, 0)]
    assert [(u.operation, u.index) for u in y.uses] == [(first, 1)]
    second.operands[0] = y
    assert len(list(x.uses)) == 2 and len(list(y.uses)) == 2


def _chain():
    """x, y -> a = x + y; two users of a; c = x - x; d = c - x."""
    block = Block(arg_types=[f32, f32])
    x, y = block.args
    ops = {}
    ops["a"] = create_op(arith.AddfOp, [x, y], [f32])
    a = ops["a"].results[0]
    ops["u1"] = create_op(arith.MulfOp, [a, a], [f32])
    ops["u2"] = create_op(arith.MulfOp, [y, a], [f32])
    ops["c"] = create_op(arith.SubfOp, [x, x], [f32])
    ops["d"] = create_op(arith.SubfOp, [ops["c"].results[0], x], [f32])
    for op in ops.values():
        block.add_op(op)
    a.name_hint = "foo_1_2"
    return block, ops


def _state(block):
    """Every use list, every operand list and every name, by position."""
    ops = list(block.ops)
    where = {op: i for i, op in enumerate(ops)}

    def uses(v):
        return [(where[u.operation], u.index) for u in v.uses]

    def owner(v):
        return where.get(v.owner, "arg")

    values = [r for op in ops for r in op.results] + list(block.args)
    return (
        [uses(v) for v in values],
        [[owner(v) for v in op.operands] for op in ops],
        [v.name_hint for v in values],
    )


def test_replace_all_uses_does_what_xdsl_does():
    theirs, t = _chain()
    t["a"].results[0].replace_all_uses_with(t["c"].results[0])
    ours, o = _chain()
    replace_all_uses(o["a"].results[0], o["c"].results[0])
    assert _state(ours) == _state(theirs)


def test_erase_op_detaches_and_drops_uses():
    block, ops = _chain()
    replace_all_uses(ops["a"].results[0], ops["c"].results[0])
    erase_op(ops["a"])
    assert ops["a"] not in list(block.ops)
    assert [u.operation for u in block.args[1].uses] == [ops["u2"]]
    with pytest.raises(ValueError):
        erase_op(ops["c"])  # still used


def test_walk_is_list_of_walk():
    from tfrt.dialects.syntax import parse_module

    src = """
    func.func @f(%x: i32) -> i32 {
      %a = "t.a"(%x) ({
        "t.b"() : () -> ()
      ^bb1:
        "t.c"() ({ "t.d"() : () -> () }) : () -> ()
      }, {}) : (i32) -> i32
      func.return %a : i32
    }
    func.func @g() { func.return }
    """
    m = parse_module(src, allow_unregistered=True)
    assert walk(m) == list(m.walk())


def test_erase_op_drops_the_uses_of_nested_ops():
    from tfrt.dialects.syntax import parse_module

    src = """
    func.func @f(%x: i32) {
      "t.outer"() ({
        "t.a"(%x) : (i32) -> ()
      ^bb1:
        "t.b"() ({ "t.c"(%x, %x) : (i32, i32) -> () }) : () -> ()
      }) : () -> ()
      func.return
    }
    """
    m = parse_module(src, allow_unregistered=True)
    f = next(iter(m.body.block.ops))
    x = f.body.block.args[0]
    outer = f.body.block.first_op
    assert len(list(x.uses)) == 3
    erase_op(outer)
    assert not list(x.uses)
    assert all(op.parent is None for op in walk(outer) if op is not outer)


def test_new_block_and_region_are_what_xdsl_builds():
    from xdsl.dialects.builtin import i32

    from tfrt.dialects.fastir import new_block, new_region

    theirs, ours = Block(arg_types=[f32, i32]), new_block([f32, i32])
    assert sorted(vars(ours)) == sorted(vars(theirs))
    assert [sorted(vars(a)) for a in ours.args] == [sorted(vars(a)) for a in theirs.args]
    assert [(a.type, a.index, a.block is ours, a.location) for a in ours.args] == [
        (a.type, a.index, a.block is theirs, a.location) for a in theirs.args
    ]
    r1, r2 = Region(theirs), new_region(ours)
    assert sorted(vars(r1)) == sorted(vars(r2)) and sorted(vars(ours)) == sorted(vars(theirs))
    assert r2.block is ours and ours.parent is r2
    with pytest.raises(ValueError):
        new_region(ours)


def test_insert_op_before_links_like_xdsl():
    from tfrt.dialects.fastir import insert_op_before

    block, ops = _chain()
    new = create_op(arith.AddfOp, list(block.args), [f32])
    insert_op_before(new, ops["a"])
    first = create_op(arith.AddfOp, list(block.args), [f32])
    insert_op_before(first, new)
    middle = create_op(arith.AddfOp, list(block.args), [f32])
    insert_op_before(middle, ops["c"])
    got = list(block.ops)
    assert got[:3] == [first, new, ops["a"]] and got[got.index(middle) + 1] is ops["c"]
    assert all(op.parent is block for op in got)
    assert [o.prev_op for o in got[1:]] == got[:-1]
    with pytest.raises(ValueError):
        insert_op_before(middle, ops["d"])  # already in a block


def test_canon_numbers_attributes_by_value():
    from xdsl.dialects.builtin import ArrayAttr, TensorType, i32

    from tfrt.dialects.fastir import canon

    a, b = TensorType(f32, [2, 3]), TensorType(f32, [2, 3])
    assert a is not b and canon(a) == canon(b) == canon(a)
    assert canon(TensorType(f32, [3, 2])) != canon(a)
    assert canon(ArrayAttr([i32])) == canon(ArrayAttr([i32])) != canon(i32)
