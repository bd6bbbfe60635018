"""``memory/history.jsonl`` and a conversation's file saved again by an editor or a sync tool in
another encoding of the same text: Windows line ends (CRLF) and a UTF-8 byte order mark before the
first line ("UTF-8 with BOM"). Every entry is still the entry it was: read, dreamed once, and named
by the same digest (a dream commit's ``Reverie-Last-Entry``). The mark made the first line "not
JSON": the log's first entry was skipped, never dreamed; a conversation lost its metadata line."""

from __future__ import annotations

import reverie
from reverie.storage.history import HistoryEntry


def _reencoded(path):
    data = path.read_bytes()
    path.write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n"))


def test_a_log_saved_with_a_byte_order_mark_and_crlf_is_dreamed_whole(tmp_path):
    ws = tmp_path / "ws"
    with reverie.open(ws) as memory:
        memory.remember("User: I live in Lisbon.")
        memory.remember("User: my dog is called Rex.")
        before = [e.digest() for e in memory.history()]
    _reencoded(ws / "memory" / "history.jsonl")
    with reverie.open(ws) as memory:
        assert [e.digest() for e in memory.history()] == before
        result = memory.dream()
        assert (result.first, result.last) == (1, 2)
        text = memory.read("USER.md")
        assert "Lisbon" in text and "Rex" in text
        memory.remember("User: I work as a nurse.")
        assert memory.history()[-1].cursor == 3
        assert (memory.dream().first, memory.read("USER.md").count("Lisbon")) == (3, 1)


def test_an_entry_after_a_mark_or_before_a_cr_is_the_same_entry():
    raw = b'{"cursor":1,"timestamp":"2026-11-29 10:00","content":"hi"}'
    assert HistoryEntry.from_json(b"\xef\xbb\xbf" + raw) == HistoryEntry.from_json(raw + b"\r")


def test_a_session_saved_with_a_byte_order_mark_keeps_its_metadata(tmp_path):
    """A conversation's file saved the same way: its first line is the metadata (the key and how
    many messages are in history already). Read as "not JSON", the count fell to 0 and every message
    was consolidated into history a second time."""
    from reverie.storage.sessions import SessionStore
    from reverie.storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    ws.init()
    sessions = SessionStore(ws)
    session = sessions.get_or_create("cli:alice")
    for text in ("I live in Lisbon.", "my dog is called Rex.", "I work as a nurse."):
        session.add_message("user", text)
    session.last_consolidated = 2
    sessions.save(session)
    _reencoded(session.path)
    again = sessions.load(session.path)
    assert again is not None
    assert (again.key, again.last_consolidated, len(again.messages)) == ("cli:alice", 2, 3)
