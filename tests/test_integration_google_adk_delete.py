"""Google ADK's ``delete_memory`` through ADK's own types: exactly the memory named goes, never
another memory's text (hostile report F1), and ids are checked whole (no trailing newline)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support import sdk

# The framework is imported when this file's tests run, not when the suite is collected
# (support/sdk.py).
MemoryEntry: Any = None
types: Any = None
ReverieMemoryService: Any = None


@pytest.fixture(autouse=True, scope="module")
def _sdk() -> None:
    sdk.load(
        globals(),
        "google.adk",
        "Google ADK (reverie[google-adk]) is not installed",
        {
            "MemoryEntry": "google.adk.memory.memory_entry:MemoryEntry",
            "types": "google.genai.types",
            "ReverieMemoryService": "reverie.integrations.google_adk:ReverieMemoryService",
        },
    )


def _entry(text: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]))


def _texts(found: list[MemoryEntry]) -> dict[str, str]:
    return {m.id or "": m.content.parts[0].text or "" for m in found}  # type: ignore[index]


def test_a_delete_never_touches_another_memory_that_holds_its_text(tmp_path: Path) -> None:
    """h1's text is part of h2: deleting h1 is refused with why, and h2 (and h1) are unchanged in
    history and in every git version."""
    service = ReverieMemoryService(tmp_path)
    longer = "Bob likes tea and coffee, and Bob likes tea cakes from Lisbon"

    async def go() -> tuple[str, dict[str, str]]:
        await service.add_memory(app_name="app", user_id="u1", memories=[_entry("Bob likes tea")])
        await service.add_memory(app_name="app", user_id="u1", memories=[_entry(longer)])
        with pytest.raises(ValueError, match="also part of another memory") as refused:
            await service.delete_memory(app_name="app", user_id="u1", memory_id="h1")
        found = await service.search_memory(app_name="app", user_id="u1", query="coffee Lisbon")
        return str(refused.value), _texts(found.memories)

    why, after = asyncio.run(go())
    assert "reverie purge" in why
    assert after.get("h2") == longer
    with service.open("app", "u1") as memory:
        contents = [e.content for e in memory.history()]
        assert contents == ["Bob likes tea", longer]
        assert memory.plan_purge(longer).found  # nothing rewritten anywhere


def test_a_memory_line_goes_to_the_archive_and_why_finds_it(tmp_path: Path) -> None:
    """An active line's id deletes that line only, archived as mem0's delete does."""
    service = ReverieMemoryService(tmp_path)

    async def go() -> dict[str, str]:
        await service.add_memory(app_name="app", user_id="u1", memories=[_entry("Ada is here")])
        with service.open("app", "u1") as memory:
            text = memory.read("USER.md") + "\n- Ada lives in Lisbon\n- Ada lives in Lisbon now\n"
            memory.write("USER.md", text)
        found = await service.search_memory(app_name="app", user_id="u1", query="Ada Lisbon")
        return _texts(found.memories)

    before = asyncio.run(go())
    target = next(i for i, t in before.items() if t == "Ada lives in Lisbon")
    assert target.startswith("m")

    async def delete() -> int:
        return await service.delete_memories(app_name="app", user_id="u1", memory_ids=[target])

    assert asyncio.run(delete()) == 1
    with service.open("app", "u1") as memory:
        lines = memory.read("USER.md").splitlines()
        assert "- Ada lives in Lisbon now" in lines and "- Ada lives in Lisbon" not in lines
        assert memory.why("Ada lives in Lisbon")  # the archive keeps it, with why
        assert memory.get(target).state == "archived"  # type: ignore[union-attr]


def test_an_entry_only_copied_is_erased_and_ids_are_checked_whole(tmp_path: Path) -> None:
    """A history entry whose text is nowhere else is erased for good (ADK's own semantics); an
    id with a trailing newline, or a list of non-ids, is a ValueError before anything runs."""
    service = ReverieMemoryService(tmp_path)

    async def go() -> None:
        await service.add_memory(
            app_name="app", user_id="u1", memories=[_entry("Carol keeps bees in Porto")]
        )
        await service.add_memory(app_name="app", user_id="u1", memories=[_entry("Dan rows daily")])
        await service.delete_memory(app_name="app", user_id="u1", memory_id="h1")
        await service.delete_memory(app_name="app", user_id="u1", memory_id="h999")  # no-op
        for bad in ("u1\n", "u1\r", "../u1"):
            with pytest.raises(ValueError, match="not a usable id"):
                await service.search_memory(app_name="app", user_id=bad, query="bees")
        with pytest.raises(ValueError, match="not an id"):
            await service.delete_memories(app_name="app", user_id="u1", memory_ids=[None])  # type: ignore[list-item]

    asyncio.run(go())
    leaks = [p for p in tmp_path.rglob("*") if p.is_file() and b"keeps bees" in p.read_bytes()]
    assert leaks == []
    with service.open("app", "u1") as memory:
        assert [e.content for e in memory.history()][1] == "Dan rows daily"
