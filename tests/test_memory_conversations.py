"""Memory's conversation verbs (what the framework adapters call): record appends to
sessions/<key>.jsonl and consolidates under token pressure, pop_message takes the newest unarchived
message out, clear archives first."""

from __future__ import annotations

import json
from pathlib import Path

import reverie


def test_record_messages_pop_and_clear(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        result = memory.record(
            "app:alice",
            [
                {"role": "user", "content": "I moved to Lisbon.", "extra": {"id": 1}},
                {"role": "assistant", "content": "Noted."},
            ],
        )
        assert result.consolidated_messages == 0  # far under the token budget: nothing consolidated
        held = memory.messages("app:alice")
        assert [m["content"] for m in held] == ["I moved to Lisbon.", "Noted."] and held[0][
            "extra"
        ] == {"id": 1}
        lines = (tmp_path / "ws" / "sessions" / "app_alice.jsonl").read_text().splitlines()
        assert json.loads(lines[0])["_type"] == "metadata" and len(lines) == 3

        assert memory.pop_message("app:alice")["content"] == "Noted."
        assert [m["content"] for m in memory.messages("app:alice")] == ["I moved to Lisbon."]
        assert memory.pop_message("nobody") is None

        assert len(memory.messages("app:alice", archived=True)) == 1
        cleared = memory.clear("app:alice")
        assert cleared is not None and cleared.consolidated_messages == 1
        assert memory.messages("app:alice") == []
        assert "Lisbon" in "\n".join(
            e.content for e in memory.history()
        )  # archived before it was cleared
        assert memory.pop_message("app:alice") is None
        assert memory.clear("nobody") is None


def test_an_archived_message_is_not_popped(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.record("k", [{"role": "user", "content": "first"}])
        memory.consolidate("k")  # archives everything, keeps the session
        assert memory.pop_message("k") is None
        assert memory.messages("k") == [] and [
            m["content"] for m in memory.messages("k", archived=True)
        ] == ["first"]
        memory.record("k", [{"role": "user", "content": "second"}])
        assert memory.pop_message("k")["content"] == "second"
        assert memory.pop_message("k") is None
