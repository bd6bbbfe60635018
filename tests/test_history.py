"""history.jsonl: cursors, durability, torn tails, bad lines, bisected reads, caps, compaction."""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from pathlib import Path

import orjson
import pytest

from reverie.storage.history import HistoryEntry, HistoryLog


def make_log(tmp_path: Path, **kw) -> HistoryLog:
    mem = tmp_path / "memory"
    mem.mkdir(exist_ok=True)
    return HistoryLog(mem / "history.jsonl", mem / ".cursor", mem / ".dream_cursor", **kw)


def lines(log: HistoryLog) -> list[dict]:
    return [orjson.loads(l) for l in log.path.read_bytes().splitlines() if l.strip()]


def test_append_assigns_increasing_cursors_and_writes_nanobot_format(tmp_path):
    log = make_log(tmp_path)
    assert [log.append(f"e{i}") for i in range(5)] == [1, 2, 3, 4, 5]
    rows = lines(log)
    assert [r["cursor"] for r in rows] == [1, 2, 3, 4, 5]
    assert set(rows[0]) == {"cursor", "timestamp", "content"}
    assert len(rows[0]["timestamp"]) == len("2026-01-01 10:00")
    assert log.cursor_path.read_text().strip() == "5"


def test_session_key_and_extra_round_trip(tmp_path):
    log = make_log(tmp_path)
    log.append("x", "cli:alice", extra={"source": "raw"})
    (e,) = log.read_since(0)
    assert e.session_key == "cli:alice" and e.extra == {"source": "raw"}


def test_threads_get_unique_cursors(tmp_path):
    log = make_log(tmp_path, fsync=False)
    got: list[int] = []
    lock = threading.Lock()

    def worker() -> None:
        other = make_log(tmp_path, fsync=False)  # separate instances share only the files
        for _ in range(100):
            c = other.append("t")
            with lock:
                got.append(c)

    threads = [threading.Thread(target=worker) for _ in range(4)] + [
        threading.Thread(target=lambda: [got.append(log.append("s")) for _ in range(100)])
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == list(range(1, 501))
    assert [e.cursor for e in log.read_since(0)] == list(range(1, 501))


def _proc_append(path: str, n: int) -> None:
    p = Path(path)
    log = HistoryLog(p / "history.jsonl", p / ".cursor", p / ".dream_cursor", fsync=False)
    for i in range(n):
        log.append(f"{os.getpid()}-{i}")


def test_two_processes_2000_each_give_4000_unique_cursors(tmp_path):
    mem = tmp_path / "memory"
    mem.mkdir()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_proc_append, args=(str(mem), 2000)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    log = make_log(tmp_path)
    rows = lines(log)
    assert len(rows) == 4000
    assert [r["cursor"] for r in rows] == list(range(1, 4001))
    assert len({r["content"] for r in rows}) == 4000


def test_torn_tail_is_moved_aside_and_next_append_survives(tmp_path, caplog):
    log = make_log(tmp_path)
    log.append("one")
    with open(log.path, "ab") as f:
        f.write(b'{"cursor": 2, "timestamp": "2026-01-01 10:00", "cont')
    with caplog.at_level(logging.WARNING):
        c = log.append("three")
    assert c == 2  # the torn line never got a valid cursor, so 2 is free
    assert [r["content"] for r in lines(log)] == ["one", "three"]
    assert b'"cont' in log.torn_path.read_bytes()
    assert "torn" in caplog.text


def test_complete_last_line_without_newline_is_kept(tmp_path):
    log = make_log(tmp_path)
    log.append("one")
    with open(log.path, "ab") as f:
        f.write(HistoryEntry(2, "2026-01-01 10:00", "two").to_json().rstrip(b"\n"))
    assert log.append("three") == 3
    assert [r["content"] for r in lines(log)] == ["one", "two", "three"]
    assert not log.torn_path.exists()


@pytest.mark.parametrize("cursor_file", [None, b"1", b"garbage", b"-5", b"true", b"\xff\xfe"])
def test_stale_missing_or_corrupt_cursor_file_never_reuses_a_cursor(tmp_path, cursor_file):
    log = make_log(tmp_path)
    for i in range(10):
        log.append(f"e{i}")
    if cursor_file is None:
        log.cursor_path.unlink()
    else:
        log.cursor_path.write_bytes(cursor_file)
    fresh = make_log(tmp_path)
    assert fresh.append("next") == 11
    assert log.cursor_path.read_text().strip() == "11"


def test_cursor_hint_ahead_of_log_is_respected(tmp_path):
    """After compaction dropped everything, .cursor is the only memory of issued cursors."""
    log = make_log(tmp_path)
    log.cursor_path.write_text("41")
    assert log.append("x") == 42


def test_bad_lines_are_skipped_with_one_warning_per_kind(tmp_path, caplog):
    log = make_log(tmp_path)
    good = [HistoryEntry(i, "2026-01-01 10:00", f"c{i}").to_json() for i in (1, 2, 3, 4, 5, 6)]
    bad = [
        b"not json at all\n",
        b'{"cursor": 2.5, "timestamp": "x", "content": "y"}\n',
        b"[1, 2, 3]\n",
        b'{"cursor": "3", "timestamp": "x", "content": "y"}\n',
        b'{"cursor": true, "timestamp": "x", "content": "y"}\n',
        b'{"cursor": -1, "timestamp": "x", "content": "y"}\n',
        b'{"cursor": 9, "timestamp": 5, "content": "y"}\n',
        b'{"cursor": 9, "timestamp": "x", "content": "\xff\xfe"}\n',
        b"also not json\n",
    ]
    data = b"".join(x for pair in zip(good, bad) for x in pair) + b"".join(bad[6:])
    log.path.write_bytes(data)
    with caplog.at_level(logging.WARNING, logger="reverie.storage.history"):
        entries = log.read_since(0)
    assert [e.cursor for e in entries] == [1, 2, 3, 4, 5, 6]
    kinds = [r.getMessage() for r in caplog.records]
    assert len(kinds) == len(set(kinds))
    assert any("not JSON" in k for k in kinds) and any("invalid UTF-8" in k for k in kinds)
    assert any("bad cursor" in k for k in kinds) and any("not an object" in k for k in kinds)


def test_read_since_matches_full_scan_at_every_cursor(tmp_path):
    log = make_log(tmp_path, fsync=False)
    for i in range(1, 400):
        log.append(("x" * (i % 37)) + f"entry {i}" + ("\n" * (i % 3)))
    everything = log.read_since(0)
    assert [e.cursor for e in everything] == list(range(1, 400))
    for since in [0, 1, 2, 57, 198, 199, 200, 397, 398, 399, 500]:
        assert log.read_since(since) == [e for e in everything if e.cursor > since]
        assert log.read_since(since, limit=5) == [e for e in everything if e.cursor > since][:5]


def test_read_since_with_gaps_and_garbage_in_the_middle(tmp_path):
    log = make_log(tmp_path)
    chunks = []
    for c in range(1, 3000, 3):  # gaps in cursors (compaction of other entries, or legacy)
        chunks.append(HistoryEntry(c, "2026-01-01 10:00", "p" * 50).to_json())
        if c % 100 == 1:
            chunks.append(b"garbage line here\n" * 5)
    log.path.write_bytes(b"".join(chunks))
    for since in (0, 1, 2, 1500, 1501, 2995, 2998, 3000):
        got = [e.cursor for e in log.read_since(since, limit=3)]
        want = [c for c in range(1, 3000, 3) if c > since][:3]
        assert got == want, since


def test_out_of_order_file_is_read_in_cursor_order(tmp_path):
    log = make_log(tmp_path)
    order = list(range(1, 200)) + [5000] + list(range(200, 400))
    log.path.write_bytes(b"".join(HistoryEntry(c, "t", "z" * 80).to_json() for c in order))
    assert [e.cursor for e in log.read_since(150)] == list(range(151, 400)) + [5000]
    assert [e.cursor for e in log.read_since(150, 3)] == [151, 152, 153]  # the late ones known


def test_unterminated_last_line_is_not_reported_by_readers(tmp_path, caplog):
    log = make_log(tmp_path)
    log.append("a")
    with open(log.path, "ab") as f:
        f.write(b'{"cursor": 2, "time')
    with caplog.at_level(logging.WARNING):
        assert [e.cursor for e in log.read_since(0)] == [1]
    assert caplog.text == ""


def test_entry_cap_truncates_with_visible_marker(tmp_path):
    log = make_log(tmp_path, max_entry_chars=1000)
    log.append("é" * 5000)
    (e,) = log.read_since(0)
    assert e.content.startswith("é" * 1000)
    assert "truncated 4000 characters" in e.content


def test_lone_surrogates_are_escaped_not_crashing(tmp_path):
    log = make_log(tmp_path)
    log.append("bad \udcff surrogate")
    (e,) = log.read_since(0)
    assert "surrogate" in e.content


def test_redactor_runs_before_write(tmp_path):
    log = make_log(tmp_path, redact=lambda s: s.replace("hunter2", "[REDACTED:password]"))
    log.append("my password is hunter2")
    assert b"hunter2" not in log.path.read_bytes()


def test_compaction_keeps_undreamed_entries_and_never_reuses_cursors(tmp_path):
    log = make_log(tmp_path)
    for i in range(100):
        log.append(f"e{i}")
    log.dream_cursor_path.write_text("50")
    dropped = log.compact(keep_last=10)
    assert dropped == 50  # entries 51..100 are not dreamed yet: kept although over retention
    assert [e.cursor for e in log.read_since(0)] == list(range(51, 101))
    log.dream_cursor_path.write_text("100")
    assert log.compact(keep_last=0, dream_cursor=100) == 50
    assert log.read_since(0) == []
    assert log.append("after") == 101


def test_compaction_keeps_garbage_lines(tmp_path):
    log = make_log(tmp_path)
    log.append("a")
    with open(log.path, "ab") as f:
        f.write(b"hand-written note\n")
    log.append("b")
    log.dream_cursor_path.write_text("2")
    log.compact(keep_last=0)
    assert log.path.read_bytes() == b"hand-written note\n"


def test_missing_file_reads_empty(tmp_path):
    log = make_log(tmp_path)
    assert log.read_since(0) == [] and log.last_cursor() == 0


GOOD_A = HistoryEntry(1, "2026-01-01 10:00", "before").to_json()
GOOD_B = HistoryEntry(2, "2026-01-01 10:01", "after").to_json()


@pytest.mark.parametrize(
    ("bad", "kind"),
    [
        (b"{not json\n", "not JSON"),
        (b'{"cursor": 5, "timestamp": "t", "content": "\xc3\x28"}\n', "invalid UTF-8"),
        (b"\xff\xfe\xfd\n", "invalid UTF-8"),
        (b'"a string"\n', "not an object"),
        (b"17\n", "not an object"),
        (b"null\n", "not an object"),
        (b'{"timestamp": "t", "content": "c"}\n', "bad cursor"),
        (b'{"cursor": 0, "timestamp": "t", "content": "c"}\n', "bad cursor"),
        (b'{"cursor": -4, "timestamp": "t", "content": "c"}\n', "bad cursor"),
        (b'{"cursor": false, "timestamp": "t", "content": "c"}\n', "bad cursor"),
        (b'{"cursor": 1.0, "timestamp": "t", "content": "c"}\n', "bad cursor"),
        (b'{"cursor": "2", "timestamp": "t", "content": "c"}\n', "bad cursor"),
        (b'{"cursor": 3, "timestamp": "t", "content": 5}\n', "wrong field types"),
        (b'{"cursor": 3, "timestamp": null, "content": "c"}\n', "wrong field types"),
        (
            b'{"cursor": 3, "timestamp": "t", "content": "c", "session_key": 9}\n',
            "wrong field types",
        ),
    ],
)
def test_each_bad_line_kind_is_skipped_with_one_warning(tmp_path, caplog, bad, kind):
    log = make_log(tmp_path)
    log.path.write_bytes(GOOD_A + bad + bad + GOOD_B)
    with caplog.at_level(logging.WARNING, logger="reverie.storage.history"):
        assert [e.content for e in log.read_since(0)] == ["before", "after"]
    (record,) = caplog.records
    assert kind in record.getMessage() and "2 line(s)" in record.getMessage()
    # The writer is not confused either: past every cursor, including an integer cursor on a line
    # readers skip (another tool may count that line as an entry, so its number is never reissued).
    assert log.append("next") == {5: 6, 3: 4}.get(
        orjson.loads(bad.replace(b"\xc3\x28", b"")).get("cursor")
        if kind in ("invalid UTF-8", "wrong field types") and bad[:1] == b"{"
        else None,
        3,
    )


def test_bad_lines_do_not_break_bisection(tmp_path):
    log = make_log(tmp_path)
    chunks = []
    for c in range(1, 2001):
        chunks.append(HistoryEntry(c, "2026-01-01 10:00", "q" * 40).to_json())
        if c % 7 == 0:
            chunks.append(b"\xff\xfe garbage \x00\n" + b'{"cursor": true}\n' + b"[]\n")
    log.path.write_bytes(b"".join(chunks))
    for since in (0, 6, 7, 8, 999, 1000, 1995, 2000):
        assert [e.cursor for e in log.read_since(since, limit=4)] == list(
            range(since + 1, min(since + 5, 2001))
        )


def test_torn_tails_accumulate_in_the_torn_file(tmp_path, caplog):
    log = make_log(tmp_path)
    log.append("one")
    for torn in (b'{"cursor": 2, "ti', b"\xff\xfe half a line"):
        with open(log.path, "ab") as f:
            f.write(torn)
        with caplog.at_level(logging.WARNING):
            log.append("next")
    assert [e.content for e in log.read_since(0)] == ["one", "next", "next"]
    assert log.torn_path.read_bytes() == b'{"cursor": 2, "ti\n\xff\xfe half a line\n'
    assert len([r for r in caplog.records if "moved a torn last line" in r.getMessage()]) == 2


def test_torn_tail_is_repaired_by_a_new_instance_after_a_crash(tmp_path):
    """A process died mid-write; a fresh process (new instance, no cache) repairs and continues."""
    log = make_log(tmp_path)
    for i in range(3):
        log.append(f"e{i}")
    line = HistoryEntry(4, "2026-01-01 10:00", "lost in the crash").to_json()
    with open(log.path, "ab") as f:
        f.write(line[: len(line) // 2])
    fresh = make_log(tmp_path)
    assert fresh.append("survivor") == 4
    assert [e.content for e in make_log(tmp_path).read_since(0)] == ["e0", "e1", "e2", "survivor"]
    assert fresh.path.read_bytes().endswith(b"\n")


def test_entry_exactly_at_the_cap_is_not_truncated(tmp_path):
    log = make_log(tmp_path, max_entry_chars=1000)
    log.append("a" * 1000)
    log.append("b" * 1001)
    first, second = log.read_since(0)
    assert first.content == "a" * 1000
    assert second.content == "b" * 1000 + "\n…[truncated 1 characters]"


def test_content_must_be_text(tmp_path):
    log = make_log(tmp_path)
    with pytest.raises(TypeError):
        log.append(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        log.append("x", session_key=5)  # type: ignore[arg-type]
    assert not log.path.exists() or log.read_since(0) == []


def test_unwritable_log_is_a_history_error(tmp_path):
    from reverie.errors import HistoryError

    log = make_log(tmp_path)
    log.path.mkdir()  # a directory where the file should be
    with pytest.raises(HistoryError, match="cannot append"):
        log.append("x")
    with pytest.raises(HistoryError, match="cannot read"):
        log.read_since(0)


def test_compaction_never_drops_past_the_on_disk_dream_cursor(tmp_path):
    log = make_log(tmp_path)
    for i in range(20):
        log.append(f"e{i}")
    log.dream_cursor_path.write_text("5")
    assert log.compact(keep_last=0) == 5
    assert [e.cursor for e in log.read_since(0)] == list(range(6, 21))
    assert log.compact(keep_last=0, dream_cursor=8) == 3  # an explicit cursor is the caller's word
    log.dream_cursor_path.unlink()  # nothing dreamed: nothing may go
    assert log.compact(keep_last=0) == 0


def test_compaction_with_a_corrupt_dream_cursor_refuses(tmp_path):
    from reverie.errors import CursorError

    log = make_log(tmp_path)
    for i in range(5):
        log.append(f"e{i}")
    before = log.path.read_bytes()
    log.dream_cursor_path.write_text("xx")
    with pytest.raises(CursorError):
        log.compact(keep_last=0)
    assert log.path.read_bytes() == before


def test_compaction_of_everything_then_cursor_hint_lost_never_reuses(tmp_path):
    log = make_log(tmp_path)
    for i in range(10):
        log.append(f"e{i}")
    log.dream_cursor_path.write_text("10")
    assert log.compact(keep_last=0) == 10
    log.cursor_path.unlink()  # even without the hint, the Dream cursor bounds what was issued
    assert make_log(tmp_path).append("after") == 11


def test_compaction_concurrent_with_appends_loses_nothing_acknowledged(tmp_path):
    log = make_log(tmp_path, fsync=False)
    for i in range(50):
        log.append(f"seed{i}")
    log.dream_cursor_path.write_text("50")
    acked: list[int] = []
    stop = threading.Event()

    def writer() -> None:
        other = make_log(tmp_path, fsync=False)
        for i in range(300):
            acked.append(other.append(f"w{i}"))
        stop.set()

    t = threading.Thread(target=writer)
    t.start()
    compactor = make_log(tmp_path, fsync=False)
    while not stop.is_set():
        compactor.compact(keep_last=10)
    t.join()
    cursors = [e.cursor for e in make_log(tmp_path).read_since(0)]
    assert cursors == sorted(set(cursors))
    assert set(acked) <= set(cursors)  # every acknowledged entry past the Dream cursor survived
    assert set(cursors) - set(acked) <= set(
        range(1, 51)
    )  # only seeds (dreamed) may have been dropped


def _hold_lock(path: str, ready, release) -> None:  # type: ignore[no-untyped-def]
    p = Path(path)
    log = HistoryLog(p / "history.jsonl", p / ".cursor")
    with log.locked():
        ready.set()
        release.wait(30)


def test_a_held_lock_times_out_with_a_clear_error(tmp_path):
    from reverie.errors import LockTimeoutError

    log = make_log(tmp_path, lock_timeout=0.3)
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_lock, args=(str(log.path.parent), ready, release))
    holder.start()
    try:
        assert ready.wait(60)
        with pytest.raises(LockTimeoutError, match="history.jsonl.lock"):
            log.append("blocked")
    finally:
        release.set()
        holder.join(30)
    assert log.append("after") == 1


def _child_append(log: HistoryLog, out) -> None:  # type: ignore[no-untyped-def]
    # the parent held the lock (its thread lock too) at fork time: the child waits for the parent,
    # then gives up
    try:
        log.append("from child")
        out.put("appended")
    except Exception as exc:  # noqa: BLE001
        out.put(type(exc).__name__)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_does_not_inherit_the_parents_lock(tmp_path):
    """flock belongs to the open file description: a child must reopen it, not share the parent's
    lock."""
    log = make_log(tmp_path, lock_timeout=0.3)
    log.append("parent")
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    with log.locked():
        child = ctx.Process(target=_child_append, args=(log, out))
        child.start()
        result = out.get(timeout=30)
        child.join(30)
    assert result == "LockTimeoutError"
    assert [e.content for e in log.read_since(0)] == ["parent"]
