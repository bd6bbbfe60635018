"""Recall's ranking: vectors (through litellm, with the offline hashembed provider), decay,
evergreen files, MMR.

A search never hides an exact match: a stored memory whose text is the query's is found by
``Memory.search_memory`` and mem0's ``Memory.search`` (a hostile tester saw ``search_memory("Bob
likes tea")`` leave out the memory "Bob likes tea"); the conversation in progress is still left out
by its ``session_key``, not by its words."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import orjson
import pytest

import reverie
from reverie.recall import Recall, rank
from reverie.storage.config import Config


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


def test_recency_nudges_but_never_buries_and_never_touches_evergreen(workspace, store):
    store.history.append("lantern repair notes", timestamp="2026-01-01 10:00")
    store.history.append("lantern repair notes", timestamp="2026-06-01 10:00")
    store.write_long_term("# Memory\n\nlantern repair notes\n")
    now = datetime(2026, 6, 2)
    r = make_recall(workspace)
    share = r.settings.recency_weight
    nudged = {
        (h.source.kind, h.source.cursor): h.score for h in r.search("lantern repair", now=now)
    }
    flat = {
        (h.source.kind, h.source.cursor): h.score
        for h in r.search("lantern repair", now=now, decay=False)
    }
    # MEMORY.md never decays; of two equal matches the June entry (14 hours old) wins, and January's
    # (5 months)
    # keeps at least 1 - share of its score.
    assert nudged[("memory", None)] == flat[("memory", None)]
    assert flat[("history", 1)] == pytest.approx(flat[("history", 2)])
    assert flat[("history", 1)] * (1 - share) <= nudged[("history", 1)] < nudged[("history", 2)]
    factor = 1 - share + share * 0.5 ** ((14 / 24) / 30)  # 14 h old, 30-day half-life
    assert nudged[("history", 2)] == pytest.approx(flat[("history", 2)] * factor)
    assert rank.decay_factor(0.0, 30 * 86_400.0, 30, False) == pytest.approx(0.5)
    assert rank.recency_factor(0.0, 30 * 86_400.0, 30, 0.1, False) == pytest.approx(0.95)
    assert rank.recency_factor(0.0, 30 * 86_400.0, 30, 0.1, True) == 1.0
    r.close()


def test_an_old_exact_match_beats_a_recent_loose_one(workspace, store):
    """Issue 17's case: a year-old answer must not sink under this week's chatter that shares a
    word with it."""
    store.history.append(
        "Andrew: eagles have always mesmerized me, I could watch them soar for hours",
        timestamp="2025-05-01 10:00",
    )
    for day in range(1, 21):
        store.history.append(
            f"Andrew had sushi for lunch again, day {day}", timestamp=f"2026-06-{day:02d} 12:00"
        )
    r = make_recall(workspace)
    hits = r.search("Which type of bird mesmerizes Andrew?", k=5, now=datetime(2026, 6, 21))
    assert "eagles" in hits[0].snippet
    r.close()


def test_half_life_is_configurable(workspace, store):
    store.history.append("otter sighting", timestamp="2026-05-02 10:00")
    store.history.append("otter sighting", timestamp="2026-06-01 09:00")
    now = datetime(2026, 6, 1, 10, 0)
    short = make_recall(workspace, halfLifeDays=1).search("otter", now=now)
    long = make_recall(workspace, halfLifeDays=3650).search("otter", now=now)
    assert short[0].source.cursor == long[0].source.cursor == 2
    assert short[1].score < long[1].score  # the month-old one loses more with a short half-life ...
    assert (
        short[1].score >= 0.9 * long[1].score
    )  # ... but only its bounded share (recencyWeight 0.1)
    full = make_recall(workspace, halfLifeDays=1, recencyWeight=1.0).search("otter", now=now)
    assert full[1].score < long[1].score / 1000  # recencyWeight 1: plain exponential decay


def test_top_k_is_the_prefix_of_any_larger_k(workspace, store, monkeypatch):
    """The top k never depends on k: the candidate pool is fixed, and every score is computed on
    that pool."""
    from reverie.recall import search as search_mod

    words = ["heron", "pond", "reeds", "willow", "mist"]
    for i in range(240):
        picked = " ".join(words[j] for j in range(5) if (i >> j) & 1 or j == i % 5)
        store.history.append(
            f"note {i}: {picked} {'pond ' * (i % 3)}",
            timestamp=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d} 10:00",
        )
    now = datetime(2027, 1, 1)
    queries = ["heron pond", "willow mist reeds", "when did the heron come to the pond", "reeds"]
    for pool in (search_mod.POOL, 30):
        monkeypatch.setattr(search_mod, "POOL", pool)
        r = make_recall(workspace)
        for q in queries:
            full = [(h.source.cursor, h.score) for h in r.search(q, pool, now=now)]
            assert len(full) >= 30
            for k in (1, 5, 10, 25):
                assert [(h.source.cursor, h.score) for h in r.search(q, k, now=now)] == full[:k], (
                    q,
                    k,
                    pool,
                )
        r.close()


def test_scores_keep_their_precision(workspace, store):
    store.history.append("kingfisher on the fence post", timestamp="2024-01-01 10:00")
    store.history.append("kingfisher on the fence post", timestamp="2024-01-02 10:00")
    now = datetime(2026, 6, 1)
    r = make_recall(workspace)
    assert all(
        h.to_dict()["score"] > 0.85 for h in r.search("kingfisher", now=now)
    )  # old, yet no "score": 0.0
    r.close()
    # Full decay (recencyWeight 1) leaves ~1e-9 of a 2-year-old score: still exact, still ordered,
    # in JSON too.
    r = make_recall(workspace, recencyWeight=1.0)
    hits = r.search("kingfisher", now=now)
    dicts = [orjson.loads(orjson.dumps(h.to_dict())) for h in hits]
    assert 0 < dicts[1]["score"] < dicts[0]["score"] < 1e-6
    assert [d["score"] for d in dicts] == [h.score for h in hits]
    r.close()


def _session(ws, key: str, messages: list[tuple[str, str]]) -> None:
    meta = {
        "_type": "metadata",
        "key": key,
        "created_at": "2026-01-01T00:00:00",
        "updated_at": "2026-01-01T00:00:00",
        "metadata": {},
        "last_consolidated": 0,
    }
    lines = [orjson.dumps(meta)] + [
        orjson.dumps({"role": r, "content": c, "timestamp": "2026-06-01T09:00:00"})
        for r, c in messages
    ]
    (ws.sessions_dir / (key.replace(":", "_") + ".jsonl")).write_bytes(b"\n".join(lines) + b"\n")


def test_a_reply_without_the_querys_words_stays_below_an_exact_match_elsewhere(workspace, store):
    """bench/lifecycle.py's case: the "Noted." replies around the message that said a fact used to
    outrank the fact in curated memory (their neighbour's and session's shares); curated memory must
    make the top 3."""
    (workspace.root / "memory" / "MEMORY.md").write_text(
        "# Memory\n\n- Uses Postgres\n- Our proxy server is called merlin (nginx, in the rack by"
        " the door)\n- Deadline for the atlas report: 2027-01-10\n"
    )
    for i in range(
        40
    ):  # a workspace with some history, so that BM25's document frequencies mean something
        store.append_history(
            f"- [durable] Likes {('green', 'black', 'mint', 'iced')[i % 4]} tea number {i}"
        )
    msgs = []
    said = ["Remember that our proxy server is called merlin.", "We use Postgres."]
    others = [
        f"Remember that our {role} server is called {name}."
        for role, name in (
            ("mail", "curlew"),
            ("build", "osprey"),
            ("cache", "dunlin"),
            ("vpn", "shrike"),
        )
    ]
    for text in said + others + [f"I really like dish number {i}." for i in range(20)]:
        msgs += [("user", text), ("assistant", "Noted.")]
    _session(workspace, "cli:a", msgs)
    r = make_recall(workspace)
    hits = r.search("Our proxy server is called merlin", k=5)
    kinds = [h.source.kind for h in hits]
    assert "memory" in kinds[:2], [(h.source.kind, h.snippet, h.score) for h in hits]
    noted = [h for h in hits if h.snippet == "Noted."]
    memory = next(h for h in hits if h.source.kind == "memory")
    assert all(h.score < memory.score for h in noted)
    r.close()


def test_each_bullet_of_a_memory_file_is_its_own_hit(workspace):
    """A long section must not rank below a short one holding the same words: each bullet is a
    chunk, with its own line range, so a hit names the fact."""
    lines = [
        f"- Likes {adj} tea"
        for adj in ("green", "black", "white", "mint", "iced", "jasmine", "smoked")
    ]
    (workspace.root / "USER.md").write_text(
        "# User\n\n"
        + "\n".join(lines + ["- Prefers quiet cafes"])
        + "\n\nNotes in prose\nover two lines.\n"
    )
    (workspace.root / "memory" / "MEMORY.md").write_text("# Memory\n\n## Café\n- Quiet\n")
    r = make_recall(workspace)
    hits = r.search("Prefers quiet cafes", k=3)
    assert hits[0].source.path == "USER.md" and hits[0].snippet == "- Prefers quiet cafes"
    assert (hits[0].source.line_start, hits[0].source.line_end) == (10, 10)
    prose = r.search("prose", k=1)[0]
    assert (prose.source.line_start, prose.source.line_end) == (12, 13)
    r.close()


def test_conversation_shares_come_from_nearby_messages_that_match_themselves():
    """One session key may hold a year of chat (bench/lifecycle.py: 1,400 messages). The session
    share reaches ``SESSION_WINDOW`` messages, not the whole key; and a "Noted." reply, a candidate
    only through the message it answers, passes no share back to it (an echo) nor to anyone else."""
    from reverie.recall import search as s

    def row(i: int, n: int, text: str) -> s._Row:
        return s._Row(
            i, "sessions/a.jsonl", "session", text, "", None, None, None, "cli:a", n, None, 0, ""
        )

    rows = {
        1: row(1, 0, "We decided to audit the Glacier login flow"),
        2: row(2, 1, "Noted."),
        3: row(3, 500, "We decided to audit the Comet login flow"),
        4: row(4, 501, "Noted."),
        5: row(5, 4, "the login flow again"),
    }
    fused = {1: 1.0, 2: 0.6, 3: 0.6, 4: 0.4, 5: 0.3}
    only = s._context_only(rows, ["glacier", "login", "flow", "audit"])
    assert only == {2, 4}
    out = s._with_neighbours(fused, rows, s.NEIGHBOUR_SHARE, only)
    assert out[3] == pytest.approx(
        0.6
    )  # 500 messages away from the best match, its reply an echo: no share
    assert out[1] == pytest.approx(
        1.0 + s.SESSION_SHARE * 0.3
    )  # from message 4 (in the window), not its reply
    assert out[2] <= s.CONTEXT_CAP * 1.0 and out[4] <= s.CONTEXT_CAP * 0.6


# -- an exact match is never hidden ----------------------------------------------------------------


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
