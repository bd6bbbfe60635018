"""``Recall``: search over a workspace's memory and conversations — BM25 always, vectors when
configured.

Pipeline per query: the index as the files are now, written nowhere (``SearchIndex.refresh``: the
index file when it is in step, else a private copy synced in memory) → a fixed pool of candidates
(the ``POOL`` best BM25 matches, filters in SQL; plus the ``POOL`` nearest vectors when
``memory.search.embeddingModel`` is set, cosine over a cached float32 matrix) → relevance relative
to the query's best match (fusion in ``rank``) → conversation context (neighbours, session) →
bounded boosts (speaker named, date named, "when") → the recency nudge (``recencyWeight`` of a score
at most; evergreen files never decay) → optional MMR → ``Hit`` values. The design and its
measurements: docs/recall.md and BENCHMARKS.md ("recall")."""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import ModelError, RecallError, WorkspaceError
from ..storage.history import HistoryLog
from ..storage.hitlog import record_hits
from ..storage.workspace import MEMORY_FILES, Workspace
from ..text.memline import line_key
from . import rank
from .index import SearchIndex, SyncStats, index_location, transaction
from .types import Hit, SearchFilters, SourceRef, from_epoch, to_epoch

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import numpy
    from numpy.typing import NDArray

    from ..storage.store import WorkspaceStore

    _State = tuple[int, int]  # SearchIndex.state()
    _Ids = NDArray[numpy.int64]  # chunk ids, ascending
    _Vecs = NDArray[numpy.float32]  # one row (or one value) per id
    from ..storage.config import Config, SearchConfig

__all__ = ["Recall", "memory_search"]

#: BM25 column weights for (text, title, ctx): the message itself, its heading path (a session
#: message: its speaker's name), its neighbours.
BM25_WEIGHTS = (1.0, 0.5, 0.5)
#: How much a passage that says when (``yesterday``, ``last May``) gains for a "when" question
#: (``rank.asks_when``).
WHEN_BOOST = 0.25
#: How much a session message gains when the query names its speaker ("what did Alice say about …").
#: A boost, not a BM25 term: a name on half the messages has no inverse document frequency left to
#: score with.
SPEAKER_BOOST = 0.4
#: Share of its best neighbour's score a session message gains (``_with_neighbours``).
NEIGHBOUR_SHARE = 0.4
#: How much an item dated within a day or month the query names ("on 13 October 2023") gains.
DATE_BOOST = 0.5
#: Share of the best other candidate of its session a session message gains: a conversation about
#: the topic.
SESSION_SHARE = 0.25
#: How far (in messages) the session share reaches: a conversation about the topic, not the whole of
#: a session key that may run for a year (bench/lifecycle.py: one session, every message shared in
#: the best match).
SESSION_WINDOW = 10
#: Shares come only from messages that hold a query word themselves: a "Noted." reply is a candidate
#: through its ``ctx`` column, i.e. through the very message it would then pass a share back to (an
#: echo).
ECHO_FREE = True
#: A session message holding none of the query's words scores at most this share of its best
#: neighbour's relevance (``_with_neighbours``): before, a "Noted." reply scored 1.2 through the
#: message it answers and pushed exact matches in curated memory out of the top 5
#: (bench/lifecycle.py).
CONTEXT_CAP = 0.7
MAX_K = 1_000
#: Candidates taken from each list (BM25, vectors) whatever ``k`` is: a fixed pool keeps the top k
#: independent of k.
POOL = 200
#: MMR re-ranks the top ``MMR_POOL`` (fixed for the same reason).
MMR_POOL = 100
SNIPPET_CHARS = 320
_EMBED_BATCH = 64
_EMBED_CHARS = 8_000
_COLS = (
    "id, path, kind, text, title, line_start, line_end, "
    "cursor, session_key, msg_index, ts, evergreen, ehash"
)


@dataclass(frozen=True, slots=True)
class _Row:
    id: int
    path: str
    kind: str
    text: str
    title: str
    line_start: int | None
    line_end: int | None
    cursor: int | None
    session_key: str | None
    msg_index: int | None
    ts: float | None
    evergreen: int
    ehash: str


class Recall:
    """Search over one workspace. Cheap to create; the index opens on first use."""

    def __init__(
        self,
        workspace: Workspace | str | None = None,
        config: Config | None = None,
        *,
        history: HistoryLog | None = None,
    ) -> None:
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        if not self.workspace.root.is_dir():  # searching never creates a workspace (nor its index)
            self.workspace.check()
            raise WorkspaceError(f"workspace {self.workspace.root} does not exist")
        if config is None:
            from ..storage.config import load_config

            config = load_config(self.workspace.root)
        self.config = config
        ws = self.workspace
        self.history = history or HistoryLog(ws.history_path, ws.cursor_path, ws.dream_cursor_path)
        self.index = SearchIndex(
            ws,
            self.history,
            include_sessions=self.settings.include_sessions,
            path=index_location(ws, self.settings.index_dir),
            journal=self.settings.journal_mode,
        )
        # Caches, each keyed by the `SearchIndex.state` it was read at:
        # (state, model, ids, matrix)
        self._vectors: tuple[_State, str, _Ids, _Vecs] | None = None
        # (state, name → its words)
        self._speakers: tuple[_State, dict[str, frozenset[str]]] | None = None
        # (state, model) last found with every chunk embedded, in the index file (a writer's) or
        # in what queries read
        self._embedded: dict[bool, tuple[_State, str]] = {}

    @classmethod
    def for_store(cls, store: WorkspaceStore) -> Recall:
        """The Recall of a ``WorkspaceStore`` (shares its workspace, config and history log)."""
        return cls(store.workspace, store.config, history=store.history)

    @property
    def settings(self) -> SearchConfig:
        return self.config.memory.search

    def close(self) -> None:
        self.index.close()

    # -- indexing ----------------------------------------------------------------------------------
    def sync(self) -> SyncStats:
        """Bring the index file up to date with the files (a writer's step: no model calls)."""
        return self.index.sync()

    def rebuild(self) -> SyncStats:
        self._vectors = self._speakers = None
        self._embedded.clear()
        return self.index.rebuild()

    def _read(
        self, query: bool, *, private: bool = False
    ) -> AbstractContextManager[sqlite3.Connection]:
        """A block on what a query reads (``query``), else on the index file, as a writer."""
        return self.index.reading(private=private) if query else self.index.connection()

    def _missing_embeddings(self, query: bool = False) -> list[tuple[str, str, str]]:
        """(ehash, title, text) of the chunks with no vector for the configured model, in what a
        query reads (``query``) or in the index file. The check is skipped while the index state is
        the one last found complete, so a query pays for it only after a sync changed something."""
        model = self.settings.embedding_model
        if not model:
            return []
        with self._read(query) as conn:
            state = self.index.state()
            if self._embedded.get(query) == (state, model):
                return []
            todo: list[tuple[str, str, str]] = conn.execute(
                "SELECT DISTINCT c.ehash, c.title, c.text FROM chunks c LEFT JOIN embeddings e "
                "ON e.ehash = c.ehash AND e.model = ? WHERE e.ehash IS NULL",
                (model,),
            ).fetchall()
        if not todo:
            self._embedded[query] = (state, model)
        return todo

    def _store_vectors(
        self, batch: list[tuple[str, str, str]], vectors: list[list[float]], query: bool = False
    ) -> int:
        """Keep the vectors: in the index file (a writer), or in the private copy a query reads
        (never in the workspace)."""
        model = self.settings.embedding_model
        rows = [(h, model, len(v), _pack(v)) for (h, _, _), v in zip(batch, vectors)]
        with self.index.reading(private=True) if query else self.index.writing() as conn:
            with transaction(conn) if query else nullcontext():
                conn.executemany(
                    "INSERT OR REPLACE INTO embeddings(ehash, model, dim, vec) VALUES (?,?,?,?)",
                    rows,
                )
        self._vectors = None
        return len(rows)

    def _done_embedding(self, query: bool, model: str) -> None:
        with self._read(query):
            self._embedded[query] = (self.index.state(), model)

    @staticmethod
    def _batches(
        todo: list[tuple[str, str, str]],
    ) -> Iterator[tuple[list[tuple[str, str, str]], list[str]]]:
        for start in range(0, len(todo), _EMBED_BATCH):
            batch = todo[start : start + _EMBED_BATCH]
            yield batch, [(f"{t}\n{x}" if t else x)[:_EMBED_CHARS] for _, t, x in batch]

    async def embed_missing(self, *, query: bool = False) -> int:
        """Embed every chunk whose content hash has no vector for the configured model yet, in the
        index file (or, ``query``, in what queries read, never written to the workspace); returns
        how many."""
        model, todo = self.settings.embedding_model, self._missing_embeddings(query)
        if not todo or not model:
            return 0
        from ..llm.embeddings import embed

        done = 0
        for batch, texts in self._batches(todo):
            vectors = await embed(texts, model=model, config=self.config)
            done += self._store_vectors(batch, vectors, query)
        self._done_embedding(query, model)
        return done

    def embed_missing_sync(self, *, query: bool = False) -> int:
        """``embed_missing`` without an event loop (``embed_sync``: in-process embedders are called
        directly)."""
        model, todo = self.settings.embedding_model, self._missing_embeddings(query)
        if not todo or not model:
            return 0
        from ..llm.embeddings import embed_sync

        done = 0
        for batch, texts in self._batches(todo):
            vectors = embed_sync(texts, model=model, config=self.config)
            done += self._store_vectors(batch, vectors, query)
        self._done_embedding(query, model)
        return done

    async def async_sync(self) -> SyncStats:
        """Lexical sync, then embeddings for new chunks when a model is configured."""
        stats = self.sync()
        await self.embed_missing()
        return stats

    # -- searching ---------------------------------------------------------------------------------
    async def asearch(
        self,
        query: str,
        k: int = 10,
        filters: SearchFilters | dict[str, Any] | None = None,
        *,
        now: datetime | None = None,
        mmr: bool | None = None,
        decay: bool | None = None,
        sync: bool = True,
    ) -> list[Hit]:
        """The top ``k`` hits for ``query``. ``now`` is the recency reference time (default: the
        current time). ``sync``: read the files as they are now (else what was read last); either
        way nothing is written to the workspace."""
        if sync:
            self.index.refresh(vectors=self.settings.embedding_model)
        qvec = None
        if self.settings.embedding_model and query.strip():
            from ..llm.embeddings import embed

            try:
                await self.embed_missing(query=True)
                qvec = (
                    await embed([query], model=self.settings.embedding_model, config=self.config)
                )[0]
            except ModelError as exc:
                # the embedding service is down: answer from BM25 rather than not at all
                log.warning("vector search skipped, BM25 only: %s", exc)
        return self._rank(query, k, SearchFilters.from_mapping(filters), qvec, now, mmr, decay)

    def search(
        self,
        query: str,
        k: int = 10,
        filters: SearchFilters | dict[str, Any] | None = None,
        *,
        now: datetime | None = None,
        mmr: bool | None = None,
        decay: bool | None = None,
        sync: bool = True,
    ) -> list[Hit]:
        """``asearch`` for synchronous callers, with no event loop: BM25-only search makes no model
        call; with an embedding model, an in-process embedder (``hashembed``, ``register_embedder``)
        is called directly and a hosted one through litellm's synchronous API. Safe to call from
        inside a running event loop too (it blocks it while a hosted model answers; async code
        should prefer ``asearch``)."""
        if sync:
            self.index.refresh(vectors=self.settings.embedding_model)
        qvec = None
        if self.settings.embedding_model and query.strip():
            from ..llm.embeddings import embed_sync

            try:
                self.embed_missing_sync(query=True)
                qvec = embed_sync([query], model=self.settings.embedding_model, config=self.config)[
                    0
                ]
            except ModelError as exc:
                log.warning("vector search skipped, BM25 only: %s", exc)
        return self._rank(query, k, SearchFilters.from_mapping(filters), qvec, now, mmr, decay)

    def _rank(
        self,
        query: str,
        k: int,
        filters: SearchFilters | None,
        qvec: Sequence[float] | None,
        now: datetime | None,
        mmr: bool | None,
        decay: bool | None,
    ) -> list[Hit]:
        """The top ``k`` of a fixed candidate pool, so the top ``k`` never depends on ``k`` (for ``k
        ≤ POOL``).

        Four steps: candidates (``_candidates``), fusion into one relevance (``_fuse``), the query's
        signals on that relevance (``_adjust``), then the order with its tie-break and optional
        diversity (``_order``).
        """
        if k <= 0:
            return []
        with self.index.reading():  # one connection for the whole ranking (self.index.conn)
            return self._rank_held(query, k, filters, qvec, now, mmr, decay)

    def _rank_held(
        self,
        query: str,
        k: int,
        filters: SearchFilters | None,
        qvec: Sequence[float] | None,
        now: datetime | None,
        mmr: bool | None,
        decay: bool | None,
    ) -> list[Hit]:
        k = min(k, MAX_K)
        terms = rank.query_terms(query)
        sims = self._similarities(qvec, filters) if qvec is not None else None
        lexical, vector = self._candidates(terms, filters, sims, max(POOL, k))
        if not lexical and not vector:
            return []
        fused = self._fuse(lexical, vector, sims)
        rows = self._rows(fused.keys())
        scored = self._adjust(query, terms, fused, rows, now, decay)
        top = self._order(
            scored, rows, k, sims is not None, self.settings.mmr if mmr is None else mmr
        )
        _record_prompt_hits(self.workspace, [rows[i] for i, _ in top], terms)
        return [_hit(rows[i], score, terms) for i, score in top]

    def _candidates(
        self,
        terms: Sequence[str],
        filters: SearchFilters | None,
        sims: tuple[_Ids, _Vecs] | None,
        n: int,
    ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        """The ``n`` best BM25 matches and (with an embedding model) the ``n`` nearest vectors, best
        first."""
        lexical = self._bm25(terms, filters, n)
        vector = _top(sims, n) if sims is not None else []
        return lexical, vector

    def _fuse(
        self,
        lexical: list[tuple[int, float]],
        vector: list[tuple[int, float]],
        sims: tuple[_Ids, _Vecs] | None,
    ) -> dict[int, float]:
        """One relevance per candidate: BM25 over the best BM25 score (so the top lexical match is
        1), or the weighted sum of that and the cosine over the best cosine, or RRF when configured.
        """
        s = self.settings
        lex_top = lexical[0][1] if lexical else 1.0
        if vector and s.fusion == "rrf":
            return rank.rrf([i for i, _ in lexical], [i for i, _ in vector])
        lex = {i: r / lex_top for i, r in lexical}
        if not vector:
            return lex
        # A candidate of one list gets its exact score in the other from the similarity array; a
        # vector candidate outside the BM25 pool counts 0 there (the pool is fixed, so this never
        # depends on k).
        sim_of = _lookup(sims, lex.keys() | {i for i, _ in vector})
        return rank.weighted(lex, sim_of, s.vector_weight)

    def _adjust(
        self,
        query: str,
        terms: Sequence[str],
        fused: dict[int, float],
        rows: dict[int, _Row],
        now: datetime | None,
        decay: bool | None,
    ) -> list[tuple[int, float]]:
        """The query's signals on each candidate: a session message gains a share of its neighbours'
        and of its session's best relevance; bounded boosts for the speaker the query names, a date
        it names, a passage that says when for a "when" question; and the recency nudge."""
        s = self.settings
        when = rank.asks_when(query)
        named = self._speakers_named(query)
        periods = [(to_epoch(a), to_epoch(b)) for a, b in rank.dates_named(query)]
        share = (
            (s.recency_weight if s.decay else 0.0)
            if decay is None
            else (s.recency_weight if decay else 0.0)
        )
        ref = to_epoch(now) if now is not None else time.time()
        if NEIGHBOUR_SHARE > 0 or SESSION_SHARE > 0:
            fused = _with_neighbours(fused, rows, NEIGHBOUR_SHARE, _context_only(rows, terms))
        scored = []
        for i, score in fused.items():
            row = rows.get(i)
            if row is None:
                continue
            factor = rank.recency_factor(row.ts, ref, s.half_life_days, share, bool(row.evergreen))
            if when and row.kind == "session" and rank.mentions_time(row.text):
                factor *= 1.0 + WHEN_BOOST
            if named and row.title.lower() in named:
                factor *= 1.0 + SPEAKER_BOOST
            if periods and row.ts is not None and any(a <= row.ts < b for a, b in periods):
                factor *= 1.0 + DATE_BOOST
            scored.append((i, score * factor))
        return scored

    def _order(
        self,
        scored: list[tuple[int, float]],
        rows: dict[int, _Row],
        k: int,
        hybrid: bool,
        use_mmr: bool,
    ) -> list[tuple[int, float]]:
        """The top ``k``: best score first, ties to the lower chunk id (stable across runs and
        ``k``); with MMR, picked from the best ``MMR_POOL`` for diversity (vector similarity when
        hybrid, else word overlap)."""
        scored = sorted(scored, key=lambda p: (-p[1], p[0]))
        if use_mmr:
            pool = scored[: max(k, MMR_POOL)]
            toks = {i: rank.tokens(rows[i].text) for i, _ in pool}
            vecs = self._vectors_for(toks) if hybrid else {}

            def sim(a: int, b: int) -> float:
                if a in vecs and b in vecs:
                    return max(0.0, float(vecs[a] @ vecs[b]))
                return rank.jaccard(toks[a], toks[b])

            scored = rank.mmr(pool, k, sim, self.settings.mmr_lambda)
        return scored[:k]

    def _speakers_named(self, query: str) -> frozenset[str]:
        """The known speakers (session messages' ``name``s, lower-cased) whose name the query
        mentions."""
        gen = self.index.state()
        if self._speakers is None or self._speakers[0] != gen:
            names = {
                r[0].lower()
                for r in self.index.conn.execute(
                    "SELECT DISTINCT title FROM chunks WHERE kind = 'session' AND title != ''"
                )
            }
            self._speakers = (gen, {n: frozenset(rank.WORD.findall(n)) for n in names})
        words = frozenset(w.lower() for w in rank.WORD.findall(query or ""))
        return frozenset(n for n, parts in self._speakers[1].items() if parts and parts <= words)

    def _bm25(
        self, terms: Sequence[str], filters: SearchFilters | None, limit: int
    ) -> list[tuple[int, float]]:
        """The ``limit`` best BM25 matches, best first, as (id, score > 0)."""
        if not terms:
            return []
        where, params = _filter_sql(filters)
        w = ", ".join(str(x) for x in BM25_WEIGHTS)
        if where:
            sql = (
                f"SELECT c.id, bm25(chunks_fts, {w}) AS r FROM chunks_fts JOIN chunks c ON c.id "
                f"= chunks_fts.rowid WHERE chunks_fts MATCH ? {where} ORDER BY r, c.id LIMIT ?"
            )
        else:  # without filters, no join: FTS5 ranks on its own ~3x faster
            sql = (
                f"SELECT rowid, bm25(chunks_fts, {w}) AS r FROM chunks_fts "
                "WHERE chunks_fts MATCH ? ORDER BY r, rowid LIMIT ?"
            )
        rows = self.index.conn.execute(sql, (rank.fts_query(terms), *params, limit)).fetchall()
        return [(i, -r) for i, r in rows]

    def _similarities(
        self, qvec: Sequence[float], filters: SearchFilters | None
    ) -> tuple[_Ids, _Vecs] | None:
        """Cosine similarity of the query to every (allowed) chunk with a vector: (ids ascending,
        similarities)."""
        np = _numpy()

        loaded = self._matrix()
        if loaded is None:
            return None
        ids, matrix = loaded
        q = np.asarray(qvec, dtype=np.float32)
        if q.shape[0] != matrix.shape[1]:
            raise RecallError(
                "the query embedding's dimension differs from "
                "the index's; run `reverie index --rebuild`"
            )
        q = q / (float(np.linalg.norm(q)) or 1.0)
        # einsum's own loop, not BLAS: OpenBLAS's threads stall on a busy machine (measured here:
        # p90 24 ms for a 2,000-row product whose median is 0.02 ms; at 110k rows einsum 6 ms
        # against 20 ms).
        sims = np.einsum("ij,j->i", matrix, q)
        if filters is not None:
            where, params = _filter_sql(filters)
            if where:
                allowed = np.fromiter(
                    (
                        r[0]
                        for r in self.index.conn.execute(
                            f"SELECT c.id FROM chunks c WHERE 1 {where}", params
                        )
                    ),
                    dtype=np.int64,
                )
                keep = np.isin(ids, allowed)
                ids, sims = ids[keep], sims[keep]
        return ids, sims

    def _matrix(self) -> tuple[_Ids, _Vecs] | None:
        model = self.settings.embedding_model or ""
        gen = self.index.state()
        if self._vectors is not None and self._vectors[0] == gen and self._vectors[1] == model:
            return self._vectors[2], self._vectors[3]
        np = _numpy()

        rows = self.index.conn.execute(
            "SELECT c.id, e.vec FROM chunks c JOIN embeddings e "
            "ON e.ehash = c.ehash AND e.model = ? ORDER BY c.id",
            (model,),
        ).fetchall()
        if not rows:
            return None
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        dims = {len(r[1]) for r in rows}
        if len(dims) != 1:
            raise RecallError(
                f"embeddings for {model} have mixed dimensions; run `reverie index --rebuild`"
            )
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
        self._vectors = (gen, model, ids, matrix)
        return ids, matrix

    def _vectors_for(self, ids: Iterable[int]) -> dict[int, _Vecs]:
        loaded = self._matrix()
        if loaded is None:
            return {}
        index = {int(i): j for j, i in enumerate(loaded[0])}
        return {i: loaded[1][index[i]] for i in ids if i in index}

    def _rows(self, wanted: Iterable[int]) -> dict[int, _Row]:
        ids = list(wanted)
        cols = _COLS
        out: dict[int, _Row] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for r in self.index.conn.execute(
                f"SELECT {cols} FROM chunks WHERE id IN ({marks})", part
            ):
                out[r[0]] = _Row(*r)
        return out


def memory_search(
    query: str,
    k: int = 10,
    filters: SearchFilters | dict[str, Any] | None = None,
    *,
    workspace: Workspace | str | None = None,
    config: Config | None = None,
    now: datetime | None = None,
) -> list[Hit]:
    """Search a workspace's memory (default workspace when none is given); see ``Recall.search``."""
    recall = Recall(workspace, config)
    try:
        return recall.search(query, k, filters, now=now)
    finally:
        recall.close()


def _context_only(rows: dict[int, _Row], terms: Sequence[str]) -> frozenset[int]:
    """The session messages among ``rows`` that hold none of the query's words (a word-prefix match,
    so stems count): candidates only through their neighbours' text (the ``ctx`` column), such as a
    "Noted." reply."""
    if not terms:
        return frozenset()
    probe = re.compile(r"\b(?:" + "|".join(re.escape(t[:5]) for t in terms) + ")", re.I)
    return frozenset(
        i
        for i, r in rows.items()
        if r.kind == "session" and not probe.search(r.text) and not probe.search(r.title)
    )


def _with_neighbours(
    fused: dict[int, float],
    rows: dict[int, _Row],
    share: float,
    context_only: frozenset[int] = frozenset(),
) -> dict[int, float]:
    """Each session message gains ``share`` of its best-scoring neighbour's score (the adjacent
    messages of the same session among the candidates): an answer is found through the question it
    answers, and the reverse; and ``SESSION_SHARE`` of the best other candidate in its session. A
    message in ``context_only`` (none of the query's words) ends at most ``CONTEXT_CAP`` of its best
    neighbour's relevance: it is found through that neighbour, never above it, and never above an
    exact match elsewhere."""
    at = {
        (r.session_key, r.msg_index): i
        for i, r in rows.items()
        if r.kind == "session"
        and i in fused
        and r.session_key is not None
        and r.msg_index is not None
    }
    out = dict(fused)
    cap: dict[int, float] = {}
    for (key, n), i in at.items():
        near = [j for m in (n - 1, n + 1) if (j := at.get((key, m))) is not None]
        best = max((fused[j] for j in near), default=0.0)
        if ECHO_FREE:
            out[i] = fused[i] + share * max(
                (fused[j] for j in near if j not in context_only), default=0.0
            )
        else:
            out[i] = fused[i] + share * best
        if i in context_only:
            cap[i] = CONTEXT_CAP * best
    if SESSION_SHARE > 0:
        by_session: dict[str, list[tuple[int, float]]] = {}
        for (key, n), i in at.items():
            if not (ECHO_FREE and i in context_only):
                by_session.setdefault(key, []).append((n, fused[i]))
        for (key, n), i in at.items():
            best = max(
                (v for m, v in by_session.get(key, ()) if m != n and abs(m - n) <= SESSION_WINDOW),
                default=0.0,
            )
            out[i] += SESSION_SHARE * best
    for i, limit in cap.items():
        out[i] = min(out[i], limit)
    return out


def _top(sims: tuple[_Ids, _Vecs] | None, n: int) -> list[tuple[int, float]]:
    """The ``n`` most similar chunks, best first (ties by id)."""
    np = _numpy()

    if sims is None or not len(sims[0]):
        return []
    ids, values = sims
    n = min(n, len(values))
    part = np.argpartition(-values, n - 1)[:n] if n < len(values) else np.arange(len(values))
    order = part[np.lexsort((ids[part], -values[part]))]
    return [(int(ids[j]), float(values[j])) for j in order if np.isfinite(values[j])]


def _lookup(sims: tuple[_Ids, _Vecs] | None, wanted: Iterable[int]) -> dict[int, float]:
    """id → similarity for the wanted ids that have a vector (``sims`` ids are ascending)."""
    np = _numpy()

    if sims is None or not len(sims[0]):
        return {}
    ids, values = sims
    want = np.fromiter(wanted, dtype=np.int64)
    at = np.searchsorted(ids, want).clip(0, len(ids) - 1)
    hit = ids[at] == want
    return {int(i): float(v) for i, v in zip(want[hit], values[at[hit]])}


def _filter_sql(filters: SearchFilters | None) -> tuple[str, list[Any]]:
    if filters is None:
        return "", []
    parts: list[str] = []
    params: list[Any] = []
    if filters.kinds:
        parts.append(f"c.kind IN ({','.join('?' * len(filters.kinds))})")
        params.extend(sorted(filters.kinds))
    if filters.session:
        parts.append("c.session_key = ?")
        params.append(filters.session)
    if filters.since is not None:
        parts.append("c.ts >= ?")
        params.append(to_epoch(filters.since))
    if filters.until is not None:
        parts.append("c.ts < ?")
        params.append(to_epoch(filters.until))
    return "".join(f" AND {p}" for p in parts), params


def _record_prompt_hits(workspace: Workspace, rows: Sequence[_Row], terms: Sequence[str]) -> None:
    """Tell Dream's salience which prompt-file lines this query returned: an append to a side log,
    no lock (``reverie.storage.hitlog``)."""
    if not terms:
        return
    probes = [re.compile(r"\b" + re.escape(t[:5]), re.I) for t in terms]
    hits = []
    for row in rows:
        if row.path not in MEMORY_FILES:
            continue
        keys = [line_key(ln) for ln in row.text.splitlines() if any(p.search(ln) for p in probes)]
        hits.append((row.path, keys))
    if hits:
        record_hits(workspace.state_dir, time.time(), hits)


def _hit(row: _Row, score: float, terms: Sequence[str]) -> Hit:
    # a session title is its speaker
    section = row.title or None if row.kind in ("memory", "dated") else None
    ref = SourceRef(
        kind=row.kind,
        path=row.path,
        section=section,
        line_start=row.line_start,
        line_end=row.line_end,
        cursor=row.cursor,
        session_key=row.session_key,
        message_index=row.msg_index,
    )
    return Hit(
        snippet=snippet(row.text, terms),
        score=score,
        source=ref,
        timestamp=from_epoch(row.ts),
        match=match(row.text, terms),
    )


def match(text: str, terms: Sequence[str]) -> float:
    """The share of ``terms`` (a query's words) that ``text`` holds, each found by its first five
    letters at the start of a word (so "editors" finds "editor"): ``Hit.match``, absolute."""
    if not terms:
        return 0.0
    lower = text.lower()
    found = sum(1 for t in terms if re.search(r"\b" + re.escape(t[:5]), lower))
    return found / len(terms)


def snippet(text: str, terms: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """``text`` if short, else a window around the first query term (word-prefix match, so stems
    find it)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lower = flat.lower()
    at = min(
        (m.start() for t in terms if (m := re.search(r"\b" + re.escape(t[:5]), lower))), default=0
    )
    start = max(0, min(at - width // 4, len(flat) - width))
    out = flat[start : start + width].strip()
    return ("…" if start > 0 else "") + out + ("…" if start + width < len(flat) else "")


def _pack(vector: Sequence[float]) -> bytes:
    import array
    import math
    import sys

    norm = math.sqrt(sum(float(x) * float(x) for x in vector)) or 1.0
    arr = array.array("f", (float(x) / norm for x in vector))
    if sys.byteorder != "little":
        arr.byteswap()
    return arr.tobytes()


def _numpy() -> Any:
    """numpy, which only vector search needs: the ``vectors`` extra (``pip install
    'reverie[vectors]'``)."""
    try:
        import numpy
    except ImportError:
        raise RecallError(
            "vector search (memory.search.embeddingModel) needs numpy: install reverie's `vectors` "
            "extra (pip install 'reverie[vectors]'), or unset the embedding model for BM25 only"
        ) from None
    return numpy
