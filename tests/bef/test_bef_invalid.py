"""One malformed BEF file per reader error (tests/bef/invalid/*.bef, built by
make_invalid_fixtures.py): each must be rejected with its own message."""

from __future__ import annotations

from pathlib import Path

import pytest
from make_invalid_fixtures import FIXTURES, HERE, build_all

from tfrt.bef.reader import BEFFormatError, read_bef


@pytest.fixture(scope="module")
def built() -> dict[str, bytes]:
    return build_all()


def test_committed_fixtures_are_current(built):
    on_disk = {p.stem: p.read_bytes() for p in Path(HERE).glob("*.bef")}
    assert set(on_disk) == set(FIXTURES), "run tests/bef/make_invalid_fixtures.py"
    stale = [name for name, data in built.items() if on_disk[name] != data]
    assert not stale, f"regenerate with tests/bef/make_invalid_fixtures.py: {stale}"


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_reader_rejects(name):
    _, section, message = FIXTURES[name]
    with pytest.raises(BEFFormatError) as info:
        read_bef(HERE / f"{name}.bef")
    assert message in info.value.message
    assert info.value.section == section
    assert str(info.value).startswith(f"BEF {section} section at offset " if section else "BEF file at offset ")


def test_every_fixture_is_a_distinct_error():
    errors = [(section, message) for _, section, message in FIXTURES.values()]
    assert len(set(errors)) == len(errors)
