"""Cursor files: bare integers, atomic writes, corrupt files are errors (never silently 0)."""

from __future__ import annotations

import pytest

from reverie.errors import CursorError
from reverie.storage.cursors import read_cursor, write_cursor


@pytest.mark.parametrize(
    ("raw", "value"), [(b"42", 42), (b"42\n", 42), (b"  7 \r\n", 7), (b"0", 0)]
)
def test_reads_nanobot_and_reverie_forms(tmp_path, raw, value):
    p = tmp_path / ".cursor"
    p.write_bytes(raw)
    assert read_cursor(p) == value


def test_missing_reads_none(tmp_path):
    assert read_cursor(tmp_path / ".dream_cursor") is None


def test_empty_reads_none_as_nanobot_035_creates_it(tmp_path):
    """nanobot 0.3.5's GitStore.init touches its tracked files, .dream_cursor among them: not yet
    written, not corrupt."""
    p = tmp_path / ".dream_cursor"
    p.write_bytes(b"")
    assert read_cursor(p) is None


@pytest.mark.parametrize(
    "raw", [b"  \n", b"abc", b"-3", b"4.0", b"true", b"1e3", b"\xff\xfe", b"9" * 19, b"1 2"]
)
def test_corrupt_is_an_error_naming_the_file(tmp_path, raw):
    p = tmp_path / ".dream_cursor"
    p.write_bytes(raw)
    with pytest.raises(CursorError) as err:
        read_cursor(p)
    assert str(p) in str(err.value)


def test_unreadable_is_an_error(tmp_path):
    p = tmp_path / ".cursor"
    p.mkdir()  # a directory where the file should be
    with pytest.raises(CursorError):
        read_cursor(p)


def test_write_is_atomic_and_round_trips(tmp_path):
    p = tmp_path / "memory" / ".cursor"
    write_cursor(p, 5)
    write_cursor(p, 6)
    assert p.read_bytes() == b"6\n" and read_cursor(p) == 6
    assert [x.name for x in p.parent.iterdir()] == [".cursor"]  # no temp files left behind


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3"])
def test_write_rejects_non_cursors(tmp_path, bad):
    with pytest.raises(ValueError):
        write_cursor(tmp_path / ".cursor", bad)
    assert not (tmp_path / ".cursor").exists()
