"""The pass registry: names, classes, docstrings, entry points."""

from __future__ import annotations

import dataclasses
import importlib.metadata

import pytest
from xdsl.passes import ModulePass

import tfrt.passes as registry


def test_every_registered_name_is_the_pass_name():
    passes = registry.all_passes()
    assert set(registry.PASSES) <= set(passes)
    for name, factory in passes.items():
        cls = factory()
        assert issubclass(cls, ModulePass)
        assert cls.name == name
        assert cls.name == cls.name.lower() and " " not in cls.name


@pytest.mark.parametrize("name", sorted(registry.PASSES))
def test_passes_are_frozen_dataclasses_with_an_ir_example(name):
    cls = registry.all_passes()[name]()
    assert dataclasses.is_dataclass(cls)
    assert cls.__dataclass_params__.frozen
    doc = cls.__doc__ or ""
    assert "Example" in doc and "::" in doc and "%" in doc
    assert cls.__name__.endswith("Pass")


def test_summaries_need_no_import_and_cover_every_pass():
    assert set(registry.pass_summaries()) >= set(registry.PASSES)
    assert all(registry.pass_summaries()[n] for n in registry.PASSES)


def test_entry_point_passes_join_the_registry(monkeypatch):
    ep = importlib.metadata.EntryPoint(
        name="my-ext-pass", value="tfrt.passes.dce:DCEPass", group=registry.ENTRY_POINT_GROUP
    )

    def fake_entry_points(*, group):
        return [ep] if group == registry.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    assert registry.all_passes()["my-ext-pass"]().name == "dce"
    assert "my-ext-pass" in registry.pass_summaries()
    # A built-in name cannot be taken over by an entry point.
    ep2 = importlib.metadata.EntryPoint(
        name="cse", value="tfrt.passes.dce:DCEPass", group=registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(registry, "entry_points", lambda *, group: [ep2])
    assert registry.all_passes()["cse"]().name == "cse"
