"""Kernel plug-ins (``tfrt.kernels`` entry points) load when first needed."""

from __future__ import annotations

import importlib.metadata

import pytest

from tfrt.kernels.registry import ENTRY_POINT_GROUP, KernelDef, KernelRegistry


class _EntryPoint:
    def __init__(self, name, load):
        self.name, self.value, self.load = name, f"plugin_mod:{name}", load


@pytest.fixture
def plugins(monkeypatch):
    loaded = []
    eps = []

    def fake_entry_points(*, group):
        loaded.append(group)
        return list(eps) if group == ENTRY_POINT_GROUP else []

    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points)
    return eps, loaded


def _register(name):
    def install(reg):
        reg.add(KernelDef(name, lambda: 1, "sync", (), (), False, "plugin_mod"))

    return install


def test_plugins_are_read_on_the_first_missing_name(plugins):
    eps, loaded = plugins
    eps.append(_EntryPoint("mine", lambda: _register("mine.k")))
    reg = KernelRegistry()
    reg.add(KernelDef("tfrt.k", lambda: 0, "sync", (), (), False, "builtin_mod"))
    reg.defer_plugins()
    assert reg.get("tfrt.k") is not None
    assert loaded == []  # a known name reads no package metadata
    assert reg.get("mine.k") is not None
    assert loaded == [ENTRY_POINT_GROUP]
    assert reg.get("other.k") is None and "other.k" not in reg
    assert loaded == [ENTRY_POINT_GROUP]  # read once


def test_listing_the_registry_includes_plugins(plugins):
    eps, _ = plugins
    eps.append(_EntryPoint("mine", lambda: _register("mine.k")))
    reg = KernelRegistry()
    reg.defer_plugins()
    assert "mine.k" in reg.names() and len(reg) == 1


def test_a_broken_plugin_is_reported_and_the_others_load(plugins, capsys):
    eps, _ = plugins

    def broken():
        raise ImportError("no module named 'missing_dep'")

    eps.append(_EntryPoint("bad", broken))
    eps.append(_EntryPoint("good", lambda: _register("good.k")))
    reg = KernelRegistry()
    reg.defer_plugins()
    assert reg.get("good.k") is not None
    err = capsys.readouterr().err
    assert "kernel plug-in 'bad'" in err and "missing_dep" in err
