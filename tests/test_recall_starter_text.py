"""The prompt files' starter prose ("Who the user is: name, home, work, preferences. Dream keeps
this current.") is Reverie's description of the file, not anyone's memory; it was indexed like
a fact, and mem0's ``search`` of "where does the user live" returned it first (score 1.0, above
the fact itself: found by a newcomer running the Google ADK example). Recall now reads those
lines as blank; a person's own prose in the same file is still found."""

from __future__ import annotations

from pathlib import Path

import reverie
from reverie.storage.workspace import MEMORY_FILES, starter_prose


def test_no_starter_line_is_a_memory_or_a_hit(tmp_path: Path) -> None:
    prose = set().union(*(starter_prose(rel) for rel in MEMORY_FILES))
    assert prose  # each starter file has its description
    with reverie.open(tmp_path / "ws") as m:
        m.init()  # as `reverie init` does: the prompt files with their starter text
        m.remember("I live in Lisbon.")
        m.dream()
        found = [item.memory for item in m.search_memory("where does the user live")]
        assert "Lives in Lisbon" in found and not prose & set(found)
        for query in ("who the user is", "how the agent behaves", "standing instructions tone"):
            assert not prose & {hit.snippet for hit in m.recall(query)}, query


def test_a_persons_own_prose_beside_it_is_still_found(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as m:
        m.init()
        text = m.read("USER.md")
        m.write("USER.md", text + "\nThe user is a night owl who answers email at 2 am.\n")
        hits = [hit.snippet for hit in m.recall("night owl")]
        assert any("night owl" in snippet for snippet in hits)
        assert not starter_prose("USER.md") & set(hits)
