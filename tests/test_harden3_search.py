"""A search never hides an exact match: a stored memory whose text is the query's is found by
``Memory.search_memory`` and mem0's ``Memory.search`` (a hostile tester saw ``search_memory("Bob
likes tea")`` leave out the memory "Bob likes tea"); the conversation in progress is still left out
by its ``session_key``, not by its words."""

from __future__ import annotations

from pathlib import Path

import reverie


def test_a_memory_equal_to_the_query_is_found(tmp_path: Path) -> None:
    with reverie.open(tmp_path / "ws") as memory:
        memory.remember("Bob likes tea")
        memory.remember("Bob likes tea and coffee, and Bob likes tea cakes from Lisbon")
        memory.remember("Carol likes chess")
        found = [i.memory for i in memory.search_memory("Bob likes tea", limit=10)]
        assert "Bob likes tea" in found
        assert "Bob likes tea and coffee, and Bob likes tea cakes from Lisbon" in found
        mem0 = [r["memory"] for r in memory.search("Bob likes tea", limit=10)["results"]]
        assert "Bob likes tea" in mem0
        # the same question asked in the conversation in progress is still no memory
        memory.record("now", [{"role": "user", "content": "Carol likes chess"}])
        live = [i.memory for i in memory.search_memory("Carol likes chess", session_key="now")]
        assert live.count("Carol likes chess") == 1  # the stored one, not the question
