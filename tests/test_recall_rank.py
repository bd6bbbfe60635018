"""Recall's ranking: vectors (through litellm, with the offline hashembed provider), decay, evergreen files, MMR."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from reverie.config import Config
from reverie.recall import Recall
from reverie.recall import rank


def make_recall(workspace, **search):
    return Recall(workspace, Config.model_validate({"memory": {"search": search}}))


def test_vectors_find_what_bm25_cannot(workspace, store):
    store.append_history("Alice practises the saxophone every evening")
    store.append_history("Bob repaired the bicycle")
    plain = make_recall(workspace)
    assert plain.search("saxofone") == []  # a typo: no shared term
    plain.close()
    hybrid = make_recall(workspace, embeddingModel="hashembed/256")
    hits = hybrid.search("saxofone", k=1)
    assert hits and "saxophone" in hits[0].snippet
    hybrid.close()


def test_embeddings_are_cached_by_content_hash(workspace, store):
    store.append_history("first note about tea")
    r = make_recall(workspace, embeddingModel="hashembed/64")
    r.sync()
    first = asyncio.run(r.embed_missing())  # the note and the starter memory files' sections
    assert first >= 1
    assert asyncio.run(r.embed_missing()) == 0
    store.append_history("second note about coffee")
    r.sync()
    assert asyncio.run(r.embed_missing()) == 1
    r.rebuild()  # a rebuild drops the database, so embeddings are recomputed
    assert asyncio.run(r.embed_missing()) == first + 1
    r.close()


@pytest.mark.parametrize("fusion", ["rrf", "weighted"])
def test_hybrid_keeps_lexical_matches(workspace, store, fusion):
    for i in range(30):
        store.append_history(f"routine entry {i} about weather")
    store.append_history("the passport is in the blue drawer")
    r = make_recall(workspace, embeddingModel="hashembed/256", fusion=fusion)
    assert "passport" in r.search("where is my passport", k=3)[0].snippet
    r.close()


def test_decay_prefers_recent_and_never_touches_evergreen(workspace, store):
    store.history.append("lantern repair notes", timestamp="2026-01-01 10:00")
    store.history.append("lantern repair notes", timestamp="2026-06-01 10:00")
    store.write_long_term("# Memory\n\nlantern repair notes\n")
    now = datetime(2026, 6, 2)
    r = make_recall(workspace)
    decayed = {(h.source.kind, h.source.cursor): h.score for h in r.search("lantern repair", now=now)}
    flat = {(h.source.kind, h.source.cursor): h.score for h in r.search("lantern repair", now=now, decay=False)}
    # MEMORY.md never decays; the June entry (14 hours old) beats January's (5 months), which equal without decay.
    assert decayed[("memory", None)] == flat[("memory", None)]
    assert flat[("history", 1)] == pytest.approx(flat[("history", 2)])
    assert decayed[("history", 1)] < decayed[("history", 2)] / 8
    assert decayed[("history", 2)] == pytest.approx(flat[("history", 2)] * 0.5 ** ((14 / 24) / 30))  # 14 h old
    # A half-life of 30 days: one half-life halves the score.
    assert rank.decay_factor(0.0, 30 * 86_400.0, 30, False) == pytest.approx(0.5)
    assert rank.decay_factor(0.0, 30 * 86_400.0, 30, True) == 1.0
    r.close()


def test_half_life_is_configurable(workspace, store):
    store.history.append("otter sighting", timestamp="2026-05-02 10:00")
    now = datetime(2026, 6, 1, 10, 0)
    short = make_recall(workspace, halfLifeDays=1).search("otter", now=now)[0].score
    long = make_recall(workspace, halfLifeDays=3650).search("otter", now=now)[0].score
    assert short < long / 1000


def test_mmr_diversifies(workspace, store):
    for _ in range(3):
        store.append_history("grocery list: apples, pears, apples, pears")
    store.append_history("apples grow in the orchard behind the school")
    r = make_recall(workspace, mmrLambda=0.5)
    plain = [h.snippet for h in r.search("apples", k=2, decay=False)]
    assert plain[0] == plain[1]
    diverse = [h.snippet for h in r.search("apples", k=2, decay=False, mmr=True)]
    assert diverse[0] != diverse[1] and any("orchard" in s for s in diverse)
    r.close()


def test_mmr_uses_vectors_when_present(workspace, store):
    for _ in range(3):
        store.append_history("grocery list: apples, pears, apples, pears")
    store.append_history("apples grow in the orchard behind the school")
    r = make_recall(workspace, embeddingModel="hashembed/256", mmr=True, mmrLambda=0.5)
    snippets = [h.snippet for h in r.search("apples", k=2, decay=False)]
    assert any("orchard" in s for s in snippets)
    r.close()


def test_query_parsing():
    assert rank.query_terms("What did Caroline do?") == ["caroline"]
    assert rank.query_terms("what is it") == ["what", "is", "it"]
    assert rank.fts_query(['a"b', "c"]) == '"a""b" OR "c"'
    assert rank.rrf([1, 2], [2, 3])[2] > rank.rrf([1, 2], [2, 3])[1]


def test_embeddings_through_a_local_openai_compatible_server(workspace, store, caplog):
    """The real litellm path to an OpenAI-compatible server on 127.0.0.1; a dead server degrades to BM25."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from support.openai_server import OpenAIServer, Step

    store.append_history("the passport is in the blue drawer")
    store.append_history("bought apples")
    with OpenAIServer() as srv:
        conf = Config.model_validate({"memory": {"search": {"embeddingModel": "openai/test-embed"}},
                                      "providers": {"openai": {"apiKey": "sk-test", "apiBase": srv.base_url}}})
        r = Recall(workspace, conf)
        r.sync()
        todo = r.index.conn.execute(
            "SELECT DISTINCT c.ehash, c.title, c.text FROM chunks c LEFT JOIN embeddings e "
            "ON e.ehash = c.ehash AND e.model = ? WHERE e.ehash IS NULL", ("openai/test-embed",)).fetchall()

        def vector(text: str) -> list[float]:
            return [1.0, 0.0] if "passport" in text else [0.0, 1.0]

        data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, (_, _, t) in enumerate(todo)]
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        srv.enqueue(Step(body={"object": "list", "data": data, "model": "test-embed", "usage": usage}),
                    Step(body={"object": "list", "model": "test-embed", "usage": usage,
                               "data": [{"object": "embedding", "index": 0, "embedding": [0.9, 0.1]}]}))
        hits = r.search("where are my travel documents", k=1)  # no word in common: found by its vector
        assert hits and "passport" in hits[0].snippet
        paths = [q.path for q in srv.requests]
        assert paths == ["/v1/embeddings", "/v1/embeddings"] or all(p.endswith("/embeddings") for p in paths)
        assert srv.requests[0].json["model"] == "test-embed"
        assert srv.requests[0].headers["authorization"] == "Bearer sk-test"
        srv.enqueue(Step(status=500), Step(status=500), Step(status=500), Step(status=500))
        assert "passport" in r.search("passport", k=1)[0].snippet  # the service is down: BM25 still answers
        assert "vector search skipped" in caplog.text
        r.close()
