"""Session files: nanobot's format, safe names, appends with torn-tail repair, offsets,
corruption, clearing."""

from __future__ import annotations

import logging
import os
import threading

import orjson
import pytest

from reverie.errors import SessionError
from reverie.storage.sessions import MAX_STEM_BYTES, Session, SessionStore, safe_filename


def rows(path) -> list[dict]:
    return [orjson.loads(l) for l in path.read_bytes().splitlines() if l.strip()]


def user(text: str, **kw) -> dict:
    return {"role": "user", "content": text, **kw}


@pytest.fixture
def sessions(workspace) -> SessionStore:
    return SessionStore(workspace)


def test_append_writes_metadata_first_then_one_message_per_line(sessions, workspace):
    s = sessions.get_or_create("cli:alice")
    assert s.messages == [] and not s.path.exists()
    sessions.append(s, user("hi"))
    sessions.append(s, {"role": "assistant", "content": "hello"})
    assert s.path == workspace.sessions_dir / "cli_alice.jsonl"
    meta, m1, m2 = rows(s.path)
    assert (
        meta["_type"] == "metadata"
        and meta["key"] == "cli:alice"
        and meta["last_consolidated"] == 0
    )
    assert set(meta) == {
        "_type",
        "key",
        "created_at",
        "updated_at",
        "metadata",
        "last_consolidated",
    }
    assert m1["role"] == "user" and m1["content"] == "hi" and "timestamp" in m1
    again = sessions.get_or_create("cli:alice")
    assert [m["content"] for m in again.messages] == ["hi", "hello"]


def test_nanobot_written_file_loads(sessions, workspace):
    workspace.sessions_dir.mkdir(exist_ok=True)
    path = workspace.sessions_dir / "telegram_42.jsonl"
    lines = [
        {
            "_type": "metadata",
            "key": "telegram:42",
            "created_at": "2026-01-02T10:00:00.123456",
            "updated_at": "2026-01-02T11:00:00",
            "metadata": {"x": 1},
            "last_consolidated": 2,
        },
        {"role": "user", "content": "a", "timestamp": "2026-01-02T10:00:01"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": "{}"},
                }
            ],
            "timestamp": "2026-01-02T10:00:02",
        },
        {
            "role": "tool",
            "content": "data",
            "tool_call_id": "c1",
            "name": "read_file",
            "timestamp": "2026-01-02T10:00:03",
        },
    ]
    path.write_bytes(b"".join(orjson.dumps(l) + b"\n" for l in lines))
    s = sessions.get_or_create("telegram:42")
    assert s.path == path and len(s.messages) == 3 and s.last_consolidated == 2
    assert s.metadata == {"x": 1} and s.created_at.year == 2026
    assert [info.key for info in sessions.list()] == ["telegram:42"]
    # Our rewrite of the offset keeps nanobot's shape and every message byte for byte.
    before = path.read_bytes().splitlines()[1:]
    sessions.save_offset(s, 3)
    assert path.read_bytes().splitlines()[1:] == before
    assert rows(path)[0]["last_consolidated"] == 3 and rows(path)[0]["metadata"] == {"x": 1}


@pytest.mark.parametrize(
    "key",
    [
        "../../etc/passwd",
        "/abs/path",
        "a\x00b",
        "..",
        ".",
        "",
        "x" * 1000,
        "C:\\win\\path",
        "a/../../b",
        "lone \ud800 surrogate",
        "new\nline\ttab",
    ],
)
def test_hostile_keys_stay_inside_sessions_dir(sessions, workspace, key):
    if key in ("", "a\x00b", "lone \ud800 surrogate", "new\nline\ttab"):
        # a key is one line of valid text (reverie.text.safety.unusable_key): refused, never named
        with pytest.raises(SessionError):
            sessions.get_or_create(key)
        return
    s = sessions.get_or_create(key)
    sessions.append(s, user("x"))
    assert s.path.parent == workspace.sessions_dir
    assert s.path.resolve().parent == workspace.sessions_dir.resolve()
    assert (
        s.path.name.endswith(".jsonl") and len(os.fsencode(s.path.name)) <= 255 - 22
    )  # room for the temp name
    assert sessions.get_or_create(key).messages[0]["content"] == "x"


def test_safe_filename_matches_nanobot_for_ordinary_keys():
    assert safe_filename("cli:alice") == "cli_alice"
    assert safe_filename("telegram:12345") == "telegram_12345"
    assert safe_filename("discord:José") == "discord_José"
    # nanobot replaces only <>:"/\\|?* and strips white space; every other character stays (issue
    # 20, item 1)
    assert safe_filename("email:alice@example.com") == "email_alice@example.com"
    assert safe_filename(" slack:a b+c#d ") == "slack_a b+c#d"
    assert safe_filename('x<y>z"w/v\\u|t?s*r') == "x_y_z_w_v_u_t_s_r"
    assert safe_filename("..") == ".." and safe_filename("a/../../b") == "a_.._.._b"


@pytest.mark.parametrize("char", ["界", "é", "😀", "a"])
def test_long_keys_are_capped_by_encoded_bytes_in_every_script(sessions, char):
    """Issue 19, item 6: 90 CJK characters made a 285-byte name the OS refused; the cap counts
    bytes."""
    key = "chat:" + char * 300
    stem = safe_filename(key)
    assert len(os.fsencode(stem)) <= MAX_STEM_BYTES and stem.startswith("chat_" + char)
    assert (
        safe_filename("chat:" + char * 301) != stem
    )  # the hash tells long keys with a common prefix apart
    s = sessions.get_or_create(key)
    sessions.append(s, user("kept"))
    assert sessions.get_or_create(key).messages[0]["content"] == "kept"
    sessions.save_offset(s, 1)  # the atomic rewrite's temp name fits too
    sessions.clear(s)
    assert len(os.fsencode(s.path.name + ".corrupt")) <= 255


def test_key_that_fits_exactly_keeps_nanobots_name():
    key = "界" * (MAX_STEM_BYTES // 3)
    assert safe_filename(key) == key
    assert safe_filename(key + "界") != key + "界"


def test_a_session_written_under_the_old_naming_is_still_opened(sessions, workspace):
    key = "email:alice@example.com"
    old = (
        workspace.sessions_dir / "email_alice_example.com.jsonl"
    )  # Reverie's naming before it took nanobot's
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_bytes(
        orjson.dumps(
            {
                "_type": "metadata",
                "key": key,
                "created_at": "2026-01-01T00:00:00",
                "updated_at": "2026-01-01T00:00:00",
                "metadata": {},
                "last_consolidated": 0,
            }
        )
        + b"\n"
        + orjson.dumps(
            {"role": "user", "content": "before the rename", "timestamp": "2026-01-01T00:00:01"}
        )
        + b"\n"
    )
    s = sessions.get_or_create(key)
    assert s.path == old and [m["content"] for m in s.messages] == ["before the rename"]
    sessions.append(s, user("after"))
    assert [m["content"] for m in sessions.get_or_create(key).messages] == [
        "before the rename",
        "after",
    ]
    # a file of another key under the old name is not taken for this one
    assert (
        sessions.path_for("email:alice+example.com")
        == workspace.sessions_dir / "email_alice+example.com.jsonl"
    )


def test_nanobot_named_file_wins_over_an_old_one(sessions, workspace, caplog):
    key = "email:bob@example.com"
    sessions.dir.mkdir(parents=True, exist_ok=True)
    meta = {
        "_type": "metadata",
        "key": key,
        "created_at": "2026-01-01T00:00:00",
        "updated_at": "2026-01-01T00:00:00",
        "metadata": {},
        "last_consolidated": 0,
    }
    for name in ("email_bob_example.com.jsonl", "email_bob@example.com.jsonl"):
        (sessions.dir / name).write_bytes(
            orjson.dumps(meta) + b"\n" + orjson.dumps(user(name)) + b"\n"
        )
    with caplog.at_level(logging.WARNING):
        assert sessions.get_or_create(key).messages[0]["content"] == "email_bob@example.com.jsonl"
        sessions.get_or_create(key)
    assert (
        caplog.text.count("email_bob_example.com.jsonl holds session") == 1
    )  # named once, left on disk
    assert (sessions.dir / "email_bob_example.com.jsonl").exists()


def test_colliding_keys_get_distinct_files(sessions):
    a = sessions.get_or_create("cli:alice")
    sessions.append(a, user("from a"))
    b = sessions.get_or_create("cli_alice")
    sessions.append(b, user("from b"))
    assert a.path != b.path
    assert sessions.get_or_create("cli:alice").messages[0]["content"] == "from a"
    assert sessions.get_or_create("cli_alice").messages[0]["content"] == "from b"


def test_torn_tail_is_repaired_before_the_next_append(sessions, caplog):
    s = sessions.get_or_create("k")
    sessions.append(s, user("one"))
    with open(s.path, "ab") as f:
        f.write(b'{"role": "user", "content": "tw')  # a crash mid-append
    assert len(sessions.get_or_create("k").messages) == 1  # the torn line is an append in flight
    with caplog.at_level(logging.WARNING):
        sessions.append(s, user("two"))
    assert [m["content"] for m in sessions.get_or_create("k").messages] == ["one", "two"]
    assert (
        s.path.with_name(s.path.name + ".torn")
        .read_bytes()
        .startswith(b'{"role": "user", "content": "tw')
    )
    assert "torn" in caplog.text


def test_complete_line_missing_its_newline_is_kept(sessions):
    s = sessions.get_or_create("k")
    sessions.append(s, user("one"))
    with open(s.path, "ab") as f:
        f.write(orjson.dumps(user("two")))
    sessions.append(s, user("three"))
    assert [m["content"] for m in sessions.get_or_create("k").messages] == ["one", "two", "three"]


@pytest.mark.parametrize("bad", [-1, 99, "3", 2.5, True, None, [1]])
def test_corrupt_offset_resets_to_zero_with_a_warning(sessions, bad, caplog):
    s = sessions.get_or_create("k")
    for i in range(3):
        sessions.append(s, user(str(i)))
    data = rows(s.path)
    data[0]["last_consolidated"] = bad
    s.path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in data))
    with caplog.at_level(logging.WARNING):
        loaded = sessions.get_or_create("k")
    assert loaded.last_consolidated == 0 and len(loaded.messages) == 3
    assert "last_consolidated" in caplog.text


def test_bad_lines_are_skipped_with_a_warning_and_kept_on_rewrite(sessions, caplog):
    s = sessions.get_or_create("k")
    sessions.append(s, user("one"))
    with open(s.path, "ab") as f:
        f.write(b'not json at all\n[1, 2]\n{"content": "no role"}\n')
        f.write(b'{"role": "user", "content": "bad \xff utf8"}\n')
    sessions.append(s, user("two"))
    with caplog.at_level(logging.WARNING):
        loaded = sessions.get_or_create("k")
    assert [m["content"] for m in loaded.messages] == ["one", "bad \ufffd utf8", "two"]
    assert "not JSON" in caplog.text and "invalid UTF-8" in caplog.text
    sessions.save_offset(loaded, 1)
    assert b"not json at all" in s.path.read_bytes()  # never silently dropped


def test_huge_binary_and_surrogate_content_is_capped_and_escaped(sessions):
    s = sessions.get_or_create("k")
    sessions.append(s, user("x" * 1_000_000))
    sessions.append(s, {"role": "user", "content": b"\x00\xff\xfebinary"})
    sessions.append(s, user("lone \ud800 surrogate"))
    sessions.append(s, {"role": "tool", "content": object(), "tool_call_id": 7})
    got = sessions.get_or_create("k").messages
    assert len(got[0]["content"]) < 210_000 and "truncated" in got[0]["content"]
    assert got[1]["content"] == "\x00\\xff\\xfebinary"
    assert got[2]["content"] == "lone \\ud800 surrogate"
    assert got[3]["content"].startswith("<object")


def test_unusable_message_is_refused(sessions):
    s = sessions.get_or_create("k")
    with pytest.raises(SessionError):
        sessions.append(s, {"content": "no role"})
    with pytest.raises(SessionError):
        sessions.append(s, "just text")  # type: ignore[arg-type]
    assert not s.path.exists()


def test_save_offset_keeps_appends_from_another_writer(sessions):
    s = sessions.get_or_create("k")
    for i in range(3):
        sessions.append(s, user(str(i)))
    other = SessionStore(sessions.workspace)
    t = other.get_or_create("k")
    other.append(t, user("3"))  # our in-memory session does not know about it
    sessions.save_offset(s, 2)
    loaded = sessions.get_or_create("k")
    assert len(loaded.messages) == 4 and loaded.last_consolidated == 2


def test_save_offset_refuses_bad_values(sessions):
    s = sessions.get_or_create("k")
    sessions.append(s, user("a"))
    for bad in (-1, 2, True, "1"):
        with pytest.raises(SessionError):
            sessions.save_offset(s, bad)  # type: ignore[arg-type]
    assert sessions.get_or_create("k").last_consolidated == 0


def test_concurrent_appends_and_offset_writes_lose_nothing(sessions):
    s = sessions.get_or_create("k")
    sessions.append(s, user("start"))

    def appender(n: int) -> None:
        store = SessionStore(sessions.workspace, fsync=False)
        mine = store.get_or_create("k")
        for i in range(50):
            store.append(mine, user(f"{n}-{i}"))

    def offsetter() -> None:
        store = SessionStore(sessions.workspace, fsync=False)
        for _ in range(30):
            store.save_offset(store.get_or_create("k"), 1)

    threads = [threading.Thread(target=appender, args=(n,)) for n in range(3)] + [
        threading.Thread(target=offsetter)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    loaded = sessions.get_or_create("k")
    assert len(loaded.messages) == 151 and loaded.last_consolidated == 1


def test_clear_keeps_later_messages_not_in_history_and_saves_bad_lines(sessions):
    s = sessions.get_or_create("k")
    for i in range(3):
        sessions.append(s, user(str(i)))
    with open(s.path, "ab") as f:
        f.write(b"garbage\n")
    SessionStore(sessions.workspace).append(
        SessionStore(sessions.workspace).get_or_create("k"), user("late")
    )
    sessions.clear(s, consolidated=3)
    loaded = sessions.get_or_create("k")
    assert [m["content"] for m in loaded.messages] == ["late"] and loaded.last_consolidated == 0
    assert rows(s.path)[0]["_type"] == "metadata"
    assert s.path.with_name(s.path.name + ".corrupt").read_bytes() == b"garbage\n"


def test_missing_metadata_line_loads_from_offset_zero(sessions, workspace):
    workspace.sessions_dir.mkdir(exist_ok=True)
    path = workspace.sessions_dir / "k.jsonl"
    path.write_bytes(orjson.dumps(user("a")) + b"\n")
    s = sessions.get_or_create("k")
    assert len(s.messages) == 1 and s.last_consolidated == 0
    sessions.save_offset(s, 1)
    assert rows(path)[0]["_type"] == "metadata" and rows(path)[0]["last_consolidated"] == 1
    assert len(sessions.get_or_create("k").messages) == 1


def test_session_unconsolidated_view():
    s = Session(key="k", messages=[user("a"), user("b"), user("c")], last_consolidated=2)
    assert [m["content"] for m in s.unconsolidated] == ["c"]


def test_a_session_file_not_written_yet_reads_as_absent(sessions, caplog):
    # another writer created the file and has not written its metadata line yet (16 threads
    # warned "metadata names key 'mem0_u', opened as 'mem0:u'")
    path = sessions.path_for("mem0:u")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    with caplog.at_level(logging.WARNING):
        s = sessions.get_or_create("mem0:u")
    assert s.key == "mem0:u" and s.messages == [] and caplog.records == []
    assert sessions.load(path) is None
    sessions.append(s, {"role": "user", "content": "hi"})
    assert sessions.get_or_create("mem0:u").messages[0]["content"] == "hi"
    assert orjson.loads(path.read_bytes().splitlines()[0])["key"] == "mem0:u"


def test_a_new_session_file_appears_with_its_metadata_line(sessions, monkeypatch):
    seen: list[bytes] = []
    real_write = os.write

    def write(fd, data):
        # what a reader would find in the session file at the instant of each write
        path = sessions.path_for("new:one")
        seen.append(path.read_bytes() if path.exists() else b"<absent>")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    s = sessions.get_or_create("new:one")
    sessions.append(s, {"role": "user", "content": "hi"})
    monkeypatch.setattr(os, "write", real_write)
    assert seen and all(b == b"<absent>" for b in seen)


def test_reading_a_session_streams_its_lines(sessions, monkeypatch):
    # a 200 MB session read whole took ~700 MB (its bytes, their lines, then the messages)
    s = sessions.get_or_create("k")
    for i in range(5):
        sessions.append(s, {"role": "user", "content": f"m{i}"})
    path = sessions.path_for("k")

    def whole(self):  # type: ignore[no-untyped-def]
        raise AssertionError(f"{self} read whole")

    monkeypatch.setattr(type(path), "read_bytes", whole)
    loaded = sessions.get_or_create("k")
    assert [m["content"] for m in loaded.messages] == [f"m{i}" for i in range(5)]
