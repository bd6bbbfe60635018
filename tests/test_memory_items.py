"""Memory items (reverie.operations.items): a memory's id survives Dream's edits, an update and a
restore; get, get_all, update, delete and history act on it; and what search hands a model is
clean — no internal marks, no raw dumps, never the assistant's own replies or the conversation in
progress — with an absolute score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import reverie
from reverie.errors import CommandError, WorkspaceError
from reverie.operations import items


@pytest.fixture
def memory(tmp_path: Path):
    with reverie.open(tmp_path / "ws") as memory:
        memory.init()
        yield memory


def _one(memory, text: str) -> items.MemoryItem:
    found = [i for i in items.get_all(memory.runtime) if text in i.memory]
    assert len(found) == 1, found
    return found[0]


def test_an_id_survives_dream_superseding_the_line_and_a_restore(memory) -> None:
    memory.remember("User: I live in Lisbon.")
    memory.dream(all=True)
    lisbon = _one(memory, "Lisbon")
    assert lisbon.state == "active" and lisbon.path == "USER.md"
    memory.remember("User: I moved to Porto last month.")
    moved = memory.dream(all=True)
    porto = _one(memory, "Porto")
    assert porto.id == lisbon.id  # Dream superseded the line: mem0's UPDATE, the same memory
    assert items.get(memory.runtime, lisbon.id).memory == "Lives in Porto"
    events = items.history_of(memory.runtime, lisbon.id)
    assert [(e.event, e.old_memory, e.new_memory) for e in events] == [
        ("ADD", None, "Lives in Lisbon"),
        ("UPDATE", "Lives in Lisbon", "Lives in Porto"),
    ]
    assert [e.kind for e in events] == ["dream", "dream"]
    memory.restore(moved.commit)
    assert items.get(memory.runtime, lisbon.id).memory == "Lives in Lisbon"


def test_update_and_delete_keep_the_id_and_the_archive(memory) -> None:
    memory.write("USER.md", memory.read("USER.md") + "\n- Takes coffee black\n")
    coffee = _one(memory, "coffee")
    updated = items.update(memory.runtime, coffee.id, "Takes coffee with oat milk")
    assert updated.id == coffee.id and _one(memory, "coffee").id == coffee.id
    assert "superseded " in memory.read("memory/archive/user.md")
    assert [e.event for e in items.history_of(memory.runtime, coffee.id)] == ["ADD", "UPDATE"]
    path, line = items.locate(memory.runtime, coffee.id)
    memory.remove(path, line, reason=f"deleted by id {coffee.id}")
    gone = items.get(memory.runtime, coffee.id)
    assert (
        gone is not None
        and gone.state == "archived"
        and gone.memory == "Takes coffee with oat milk"
    )
    assert "deleted by id" in gone.metadata["note"]
    assert all("coffee" not in i.memory for i in items.get_all(memory.runtime))
    assert items.history_of(memory.runtime, coffee.id)[-1].event == "DELETE"
    with pytest.raises(WorkspaceError, match="is archived .*: restore the commit"):
        items.update(memory.runtime, coffee.id, "x y")
    with pytest.raises(CommandError, match="memory_id must be a non-empty string"):
        items.get(memory.runtime, "")  # type: ignore[arg-type]
    with pytest.raises(CommandError, match="text must be a non-empty string"):
        items.update(memory.runtime, coffee.id, "  ")


def test_pending_entries_and_other_ids(memory) -> None:
    memory.remember("Ada's favourite editor is Helix.", session_key="app:ada")
    pending = [i for i in items.get_all(memory.runtime) if i.state == "pending"]
    assert [(i.id, i.memory) for i in pending] == [("h1", "Ada's favourite editor is Helix.")]
    memory.dream(all=True)
    assert items.get(memory.runtime, "h1").state == "dreamed"
    assert all(i.state == "active" for i in items.get_all(memory.runtime))
    assert items.get(memory.runtime, "h99") is None
    assert items.get(memory.runtime, "memory/history.jsonl#L1") is None  # history is no file
    assert items.get(memory.runtime, "USER.md#L1").memory == "# User"


def _transcript(memory, key: str, turns: list[tuple[str, str]]) -> None:
    memory.record(key, [{"role": role, "content": text} for role, text in turns])


def test_what_a_model_is_handed_is_clean(memory) -> None:
    store = memory.runtime.store
    store.append_history("- [durable] User's sister is called Ines\n- [skip] small talk")
    store.append_history(
        "[RAW] 2 messages\n[2026-11-02 10:00] USER: my sister Ines moved to Braga\n"
        "[2026-11-02 10:01] ASSISTANT: Braga is lovely, your sister Ines will like it"
    )
    store.append_history(
        "[RAW] 1 messages\n[2026-11-02 10:05] ASSISTANT: I think your sister Ines sings"
    )
    _transcript(memory, "old", [("user", "Ines is a nurse"), ("assistant", "Noted about Ines!")])
    _transcript(memory, "now", [("user", "what does my sister Ines do?")])
    query = "what does my sister Ines do?"
    hits = memory.recall(query, limit=20)
    found = items.search_memory(memory.runtime, hits, query, limit=10, session_key="now")
    texts = [f.memory for f in found]
    joined = json.dumps([f.to_dict() for f in found])
    assert "User's sister is called Ines" in texts
    assert "my sister Ines moved to Braga" in texts
    assert "Ines is a nurse" in texts
    for bad in ("[durable]", "[skip]", "[RAW]", "ASSISTANT", "Braga is lovely", "sings", "Noted"):
        assert bad not in joined, bad
    assert query not in texts  # the question in progress is no memory
    assert all(0 < f.score <= 1 for f in found)
    nurse = next(f for f in found if f.memory == "Ines is a nurse")
    assert nurse.id == "c0:old" and items.get(memory.runtime, nurse.id).memory == "Ines is a nurse"
    strict = items.search_memory(memory.runtime, hits, query, limit=10, threshold=1.0)
    assert strict and all(f.score == 1.0 for f in strict)  # every word of the query
    assert "Ines is a nurse" not in [f.memory for f in strict]  # "sister" is not in it
