"""Faults from the adversarial pass (issue 19) in the history, cursor and append-only layers.

Each test reproduced its fault on the code before the fix: symlinks swapped in after a store opened,
cursors past int64, a credential as session key, and readers quadratic in the length of one line.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from reverie.errors import CursorError, HistoryError
from reverie.storage.cursors import (
    MAX_CURSOR,
    parse_cursor,
    read_cursor,
    write_cursor,
    write_cursor_hint,
)
from reverie.storage.history import HistoryEntry, HistoryLog


def make_log(tmp_path: Path, **kw) -> HistoryLog:  # type: ignore[no-untyped-def]
    mem = tmp_path / "memory"
    mem.mkdir(exist_ok=True)
    return HistoryLog(mem / "history.jsonl", mem / ".cursor", mem / ".dream_cursor", **kw)


# -- item 14: symlinks swapped in after the store opened -------------------------------------------
def test_a_cursor_hint_replaced_by_a_symlink_is_not_followed(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.append("first")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious data that must not be truncated\n")
    log.cursor_path.unlink()
    log.cursor_path.symlink_to(victim)
    assert (
        log.append("second") == 2
    )  # the entry is durable; only the hint is refused (with a warning)
    assert victim.read_text() == "precious data that must not be truncated\n"
    assert log.cursor_path.is_symlink()


def test_a_history_file_replaced_by_a_symlink_is_refused(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.append("first")
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(log.path.read_bytes())
    log.path.unlink()
    log.path.symlink_to(outside)
    before = outside.read_bytes()
    with pytest.raises(HistoryError, match="symbolic link"):
        log.append("second")
    assert outside.read_bytes() == before


def test_a_lock_file_or_torn_sidecar_replaced_by_a_symlink_is_refused(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.path.write_bytes(
        b'{"cursor": 1, "timestamp": "2026-01-01 10:00", "content": "a"}\n{"cursor": 2, "tim'
    )
    target = tmp_path / "elsewhere"
    log.torn_path.symlink_to(target)
    with pytest.raises(HistoryError, match="torn is a symbolic link"):
        log.append("b")
    assert not target.exists()
    log.torn_path.unlink()
    assert log.append("b") == 2
    lock = Path(str(log.path) + ".lock")
    fresh = make_log(tmp_path)
    lock.unlink()
    lock.symlink_to(tmp_path / "lock-target")
    with pytest.raises(HistoryError, match="symbolic link"):
        fresh.append("c")
    assert not (tmp_path / "lock-target").exists()


def test_write_cursor_hint_refuses_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / ".cursor"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        write_cursor_hint(fifo, 3)


# -- cursors >= 10^18: whatever is written reads back ----------------------------------------------
@pytest.mark.parametrize("value", [10**18, 10**18 + 7, MAX_CURSOR])
def test_large_cursors_written_are_read_back(tmp_path: Path, value: int) -> None:
    path = tmp_path / ".dream_cursor"
    write_cursor(path, value)
    assert read_cursor(path) == value
    write_cursor_hint(tmp_path / ".cursor", value)
    assert read_cursor(tmp_path / ".cursor") == value


def test_cursors_past_int64_are_refused_on_write_and_corrupt_on_read(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        write_cursor(tmp_path / ".dream_cursor", MAX_CURSOR + 1)
    with pytest.raises(CursorError):
        parse_cursor(str(MAX_CURSOR + 1).encode())
    with pytest.raises(CursorError):
        parse_cursor(b"0" * 30 + b"1")  # 31 digits, even if the value is small


def test_history_beyond_10_18_keeps_working_and_stops_cleanly_at_the_end(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.path.write_bytes(
        orjson.dumps({"cursor": 10**18, "timestamp": "2026-01-01 10:00", "content": "x"}) + b"\n"
    )
    assert log.append("next") == 10**18 + 1
    assert read_cursor(log.cursor_path) == 10**18 + 1
    assert [e.cursor for e in log.read_since(10**18)] == [10**18 + 1]
    log.path.write_bytes(
        orjson.dumps({"cursor": MAX_CURSOR, "timestamp": "2026-01-01 10:00", "content": "x"})
        + b"\n"
    )
    log.cursor_path.unlink()
    fresh = make_log(tmp_path)
    with pytest.raises(HistoryError, match="largest"):
        fresh.append("one too many")
    with pytest.raises(Exception):
        HistoryEntry.from_json(b'{"cursor": 9223372036854775808, "timestamp": "t", "content": "c"}')


# -- item 13: the session key is redacted like content ---------------------------------------------
def test_a_credential_used_as_session_key_is_redacted(store) -> None:  # type: ignore[no-untyped-def]
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    store.history.append("hello", session_key=token)
    raw = store.workspace.history_path.read_bytes()
    assert token.encode() not in raw
    (entry,) = store.history.read_since(0)
    assert entry.session_key == "[REDACTED:github-token]"


def test_the_cli_session_flag_does_not_store_a_token(tmp_path: Path) -> None:
    from support.cli import invoke

    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "init").returncode == 0
    r = invoke("-w", str(ws), "history", "append", "note", "--session", token)
    assert r.returncode == 0, r.stderr
    assert token not in (ws / "memory" / "history.jsonl").read_text()


# -- item 5: one long line makes no reader quadratic, and none keeps more than MAX_LINE_BYTES
# of it --------------------------------------------------------------------------------------------
def _entry(cursor: int, content: str = "x") -> bytes:
    return (
        orjson.dumps({"cursor": cursor, "timestamp": "2026-01-01 10:00", "content": content})
        + b"\n"
    )


def _huge_line(cursor: int) -> bytes:
    from reverie.storage.appendlog import MAX_LINE_BYTES

    head = b'{"cursor": %d, "timestamp": "2026-01-01 10:00", "content": "' % cursor
    return head + b"y" * (MAX_LINE_BYTES + 10) + b'"}\n'


def test_a_line_past_the_bound_is_skipped_with_a_warning_and_its_cursor_never_reused(
    tmp_path: Path, caplog
) -> None:  # type: ignore[no-untyped-def]
    log = make_log(tmp_path)
    log.path.write_bytes(_entry(1) + _huge_line(2) + _entry(3) + _huge_line(4))
    with caplog.at_level("WARNING"):
        assert [e.cursor for e in log.read_since(0)] == [1, 3]
    assert "longer than 16,777,216 bytes" in caplog.text
    assert [e.cursor for e in log.read_since(2)] == [3]  # the bisection crosses it too
    assert log.append("next") == 5  # the too-long last line's cursor still counts


def test_line_readers_agree_with_split_at_every_chunk_boundary(monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from reverie.storage import appendlog

    monkeypatch.setattr(appendlog, "CHUNK", 7)
    data = b"a\n\nbcdefghijklmnopqrstu\nvw\n" + b"z" * 40 + b"\nlast-unterminated"
    path = tmp_path / "f"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        expected = data.split(b"\n")
        got = list(appendlog.iter_lines(fd, 0, len(data), limit=30))
        assert [raw for raw, _ in got] == [None if len(x) > 30 else x for x in expected]
        assert [t for _, t in got] == [True] * (len(expected) - 1) + [False]
        backward = list(appendlog.iter_lines_backward(fd, len(data), limit=30))
        assert [raw for _, raw in backward] == [
            None if len(x) > 30 else x for x in reversed(expected) if x
        ]
        assert appendlog.read_line(fd, data.index(b"z"), len(data), limit=30) == (
            None,
            data.index(b"last"),
        )
    finally:
        os.close(fd)


# -- a full disk or a denied permission is a clear one-line error (exit 1), not an "internal
# error" (exit 2) ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "code,words",
    [(28, "No space left on device"), (13, "Permission denied"), (30, "Read-only file system")],
)
def test_disk_full_and_permission_denied_are_user_errors(
    tmp_path: Path, monkeypatch, capsys, code: int, words: str
) -> None:  # type: ignore[no-untyped-def]
    import reverie.storage.fsutil as fsutil
    from reverie.cli import main

    def refuse(fd: int, data: bytes) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(fsutil, "write_all", refuse)
    assert main(["-w", str(tmp_path / "ws"), "init"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("reverie: error: ") and words in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_bad_line_is_warned_about_once_per_file_and_again_when_a_new_one_appears(
    tmp_path: Path, caplog
) -> None:  # type: ignore[no-untyped-def]
    """Every status, search and Dream run reads the log: an unchanged bad line warns the first
    time only; a new bad line (appended, or the same text again) warns once more, and so does the
    file replaced by another holding it."""
    log = make_log(tmp_path)
    log.path.write_bytes(_entry(1) + b"not json\n" + _entry(2))

    def warnings() -> list[str]:
        found = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
        caplog.clear()
        return found

    with caplog.at_level("WARNING"):
        assert [e.cursor for e in log.read_since(0)] == [1, 2]
        assert len(warnings()) == 1
        for _ in range(3):
            assert [e.cursor for e in log.read_since(0)] == [1, 2]
            assert log.count_since(0) == 2
        assert warnings() == []  # the same file, the same bad line: said once
        assert log.append("three") == 3
        assert [e.cursor for e in log.read_since(0)] == [1, 2, 3] and warnings() == []
        with open(log.path, "ab") as f:
            f.write(b"not json\n")  # the same text again: a new bad line
        assert [e.cursor for e in log.read_since(0)] == [1, 2, 3]
        assert len(warnings()) == 1
        assert [e.cursor for e in log.read_since(0)] == [1, 2, 3] and warnings() == []
        copy = log.path.with_name("copy")
        copy.write_bytes(log.path.read_bytes())
        os.replace(copy, log.path)  # another file (another inode) at the path: told again
        assert [e.cursor for e in log.read_since(0)] == [1, 2, 3]
        told = warnings()
        assert len(told) == 1 and f"{log.path}: skipped 2 line(s)" in told[0]
