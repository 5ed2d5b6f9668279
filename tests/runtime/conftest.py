"""Fixtures for the runtime tests (helpers live in runtime_helpers.py and bef_builder.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bef_builder import ProgramBuilder  # noqa: E402


@pytest.fixture
def builder():
    return ProgramBuilder()


@pytest.fixture(params=["s", "mstd:2"])
def work_queue(request):
    return request.param
