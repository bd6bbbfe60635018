"""``Recall``: search over a workspace's memory and conversations — BM25 always, vectors when configured.

Pipeline per query: incremental sync → BM25 candidates (FTS5, filters in SQL) → vector candidates (when
``memory.search.embeddingModel`` is set; cosine over a cached float32 matrix) → fusion (``rank``) → temporal decay
(evergreen files never decay) → optional MMR → ``Hit`` values.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..config import Config, SearchConfig, load_config
from ..errors import ModelError, RecallError
from ..history import HistoryLog
from ..hitlog import line_key, record_hits
from ..workspace import MEMORY_FILES, Workspace
from . import rank
from .index import SearchIndex, SyncStats, transaction
from .types import Hit, SearchFilters, SourceRef, from_epoch, to_epoch

log = logging.getLogger(__name__)

__all__ = ["Recall", "memory_search"]

#: BM25 column weights for (text, title, ctx): the message itself, its heading path, its neighbours.
BM25_WEIGHTS = (1.0, 0.5, 0.5)
SNIPPET_CHARS = 320
_EMBED_BATCH = 64
_EMBED_CHARS = 8_000
_COLS = "id, path, kind, text, title, line_start, line_end, cursor, session_key, msg_index, ts, evergreen, ehash"


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

    def __init__(self, workspace: Workspace | str | None = None, config: Config | None = None, *,
                 history: HistoryLog | None = None) -> None:
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.config = config if config is not None else load_config(self.workspace.root)
        ws = self.workspace
        self.history = history or HistoryLog(ws.history_path, ws.cursor_path, ws.dream_cursor_path)
        self.index = SearchIndex(ws, self.history, include_sessions=self.settings.include_sessions)
        self._vectors: tuple[int, str, Any, Any] | None = None  # (generation, model, ids, matrix)

    @classmethod
    def for_store(cls, store: Any) -> Recall:
        """The Recall of a ``MemoryStore`` (shares its workspace, config and history log)."""
        return cls(store.workspace, store.config, history=store.history)

    @property
    def settings(self) -> SearchConfig:
        return self.config.memory.search

    def close(self) -> None:
        self.index.close()

    # -- indexing -------------------------------------------------------------------------------------------
    def sync(self) -> SyncStats:
        """Incremental sync of the lexical index (no model calls)."""
        return self.index.sync()

    def rebuild(self) -> SyncStats:
        self._vectors = None
        return self.index.rebuild()

    async def embed_missing(self) -> int:
        """Embed every chunk whose content hash has no vector for the configured model yet; returns how many."""
        model = self.settings.embedding_model
        if not model:
            return 0
        from ..llm.embeddings import embed

        conn = self.index.conn
        todo = conn.execute(
            "SELECT DISTINCT c.ehash, c.title, c.text FROM chunks c LEFT JOIN embeddings e "
            "ON e.ehash = c.ehash AND e.model = ? WHERE e.ehash IS NULL", (model,)).fetchall()
        done = 0
        for start in range(0, len(todo), _EMBED_BATCH):
            batch = todo[start : start + _EMBED_BATCH]
            texts = [(f"{t}\n{x}" if t else x)[:_EMBED_CHARS] for _, t, x in batch]
            vectors = await embed(texts, model=model, config=self.config)
            rows = [(h, model, len(v), _pack(v)) for (h, _, _), v in zip(batch, vectors)]
            with transaction(conn):
                conn.executemany("INSERT OR REPLACE INTO embeddings(ehash, model, dim, vec) VALUES (?,?,?,?)", rows)
            done += len(rows)
        if done:
            self._vectors = None
        return done

    async def async_sync(self) -> SyncStats:
        """Lexical sync, then embeddings for new chunks when a model is configured."""
        stats = self.sync()
        await self.embed_missing()
        return stats

    # -- searching ------------------------------------------------------------------------------------------
    async def asearch(self, query: str, k: int = 10, filters: SearchFilters | dict[str, Any] | None = None, *,
                      now: datetime | None = None, mmr: bool | None = None, decay: bool | None = None,
                      sync: bool = True) -> list[Hit]:
        """The top ``k`` hits for ``query``. ``now`` is the decay reference time (default: the current time)."""
        if sync:
            self.sync()
        qvec = None
        if self.settings.embedding_model and query.strip():
            from ..llm.embeddings import embed

            try:
                await self.embed_missing()
                qvec = (await embed([query], model=self.settings.embedding_model, config=self.config))[0]
            except ModelError as exc:  # the embedding service is down: answer from BM25 rather than not at all
                log.warning("vector search skipped, BM25 only: %s", exc)
        return self._rank(query, k, SearchFilters.from_mapping(filters), qvec, now, mmr, decay)

    def search(self, query: str, k: int = 10, filters: SearchFilters | dict[str, Any] | None = None, *,
               now: datetime | None = None, mmr: bool | None = None, decay: bool | None = None,
               sync: bool = True) -> list[Hit]:
        """``asearch`` for synchronous callers. BM25-only search makes no model call; with embeddings configured
        this runs an event loop, so async code must call ``asearch``."""
        if not self.settings.embedding_model:
            if sync:
                self.sync()
            return self._rank(query, k, SearchFilters.from_mapping(filters), None, now, mmr, decay)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.asearch(query, k, filters, now=now, mmr=mmr, decay=decay, sync=sync))
        raise RecallError("Recall.search was called inside an event loop with embeddings on; use asearch")

    def _rank(self, query: str, k: int, filters: SearchFilters | None, qvec: Sequence[float] | None,
              now: datetime | None, mmr: bool | None, decay: bool | None) -> list[Hit]:
        if k <= 0:
            return []
        k = min(k, 1_000)
        s = self.settings
        pool = max(50, k * 5)
        lexical = self._bm25(query, filters, pool)
        vector = self._vector(qvec, filters, pool) if qvec is not None else {}
        if vector:
            lex_order = sorted(lexical, key=lexical.__getitem__, reverse=True)
            vec_order = sorted(vector, key=vector.__getitem__, reverse=True)
            fused = rank.rrf(lex_order, vec_order) if s.fusion == "rrf" else rank.weighted(lexical, vector, s.vector_weight)
        else:
            fused = dict(lexical)
        if not fused:
            return []
        rows = self._rows(fused.keys())
        use_decay = s.decay if decay is None else decay
        ref = to_epoch(now) if now is not None else time.time()
        scored = []
        for i, score in fused.items():
            row = rows.get(i)
            if row is None:
                continue
            factor = rank.decay_factor(row.ts, ref, s.half_life_days, bool(row.evergreen)) if use_decay else 1.0
            scored.append((i, score * factor))
        scored.sort(key=lambda p: (-p[1], p[0]))
        if s.mmr if mmr is None else mmr:
            toks = {i: rank.tokens(rows[i].text) for i, _ in scored[: k * 4]}
            vecs = self._vectors_for(toks) if vector else {}

            def sim(a: int, b: int) -> float:
                if a in vecs and b in vecs:
                    return max(0.0, float(vecs[a] @ vecs[b]))
                return rank.jaccard(toks[a], toks[b])

            scored = rank.mmr(scored[: k * 4], k, sim, s.mmr_lambda)
        terms = rank.query_terms(query)
        top = scored[:k]
        _record_prompt_hits(self.workspace, [rows[i] for i, _ in top], terms)
        return [_hit(rows[i], score, terms) for i, score in top]

    def _bm25(self, query: str, filters: SearchFilters | None, limit: int) -> dict[int, float]:
        terms = rank.query_terms(query)
        if not terms:
            return {}
        where, params = _filter_sql(filters)
        w = ", ".join(str(x) for x in BM25_WEIGHTS)
        if where:
            sql = (f"SELECT c.id, bm25(chunks_fts, {w}) AS r FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                   f"WHERE chunks_fts MATCH ? {where} ORDER BY r LIMIT ?")
        else:  # without filters, no join: FTS5 ranks on its own ~3x faster
            sql = f"SELECT rowid, bm25(chunks_fts, {w}) AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r LIMIT ?"
        rows = self.index.conn.execute(sql, (rank.fts_query(terms), *params, limit)).fetchall()
        return {i: -r for i, r in rows}

    def _matrix(self) -> tuple[Any, Any] | None:
        model = self.settings.embedding_model or ""
        gen = self.index.generation()
        if self._vectors is not None and self._vectors[0] == gen and self._vectors[1] == model:
            return self._vectors[2], self._vectors[3]
        import numpy as np

        rows = self.index.conn.execute(
            "SELECT c.id, e.vec FROM chunks c JOIN embeddings e ON e.ehash = c.ehash AND e.model = ?", (model,)
        ).fetchall()
        if not rows:
            return None
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        dims = {len(r[1]) for r in rows}
        if len(dims) != 1:
            raise RecallError(f"embeddings for {model} have mixed dimensions; run `reverie index --rebuild`")
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
        self._vectors = (gen, model, ids, matrix)
        return ids, matrix

    def _vector(self, qvec: Sequence[float], filters: SearchFilters | None, limit: int) -> dict[int, float]:
        import numpy as np

        loaded = self._matrix()
        if loaded is None:
            return {}
        ids, matrix = loaded
        q = np.asarray(qvec, dtype=np.float32)
        if q.shape[0] != matrix.shape[1]:
            raise RecallError("the query embedding's dimension differs from the index's; run `reverie index --rebuild`")
        q /= float(np.linalg.norm(q)) or 1.0
        sims = matrix @ q
        if filters is not None:
            where, params = _filter_sql(filters)
            allowed = np.fromiter((r[0] for r in self.index.conn.execute(
                f"SELECT c.id FROM chunks c WHERE 1 {where}", params)), dtype=np.int64)
            sims = np.where(np.isin(ids, allowed), sims, -np.inf)
        n = min(limit, len(sims))
        top = np.argpartition(sims, len(sims) - n)[len(sims) - n:]  # the n largest, unordered
        return {int(ids[j]): float(sims[j]) for j in top if np.isfinite(sims[j])}

    def _vectors_for(self, ids: Any) -> dict[int, Any]:
        loaded = self._matrix()
        if loaded is None:
            return {}
        index = {int(i): j for j, i in enumerate(loaded[0])}
        return {i: loaded[1][index[i]] for i in ids if i in index}

    def _rows(self, ids: Any) -> dict[int, _Row]:
        ids = list(ids)
        out: dict[int, _Row] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for r in self.index.conn.execute(f"SELECT {_COLS} FROM chunks WHERE id IN ({marks})", part):
                out[r[0]] = _Row(*r)
        return out


def memory_search(query: str, k: int = 10, filters: SearchFilters | dict[str, Any] | None = None, *,
                  workspace: Workspace | str | None = None, config: Config | None = None,
                  now: datetime | None = None) -> list[Hit]:
    """Search a workspace's memory (default workspace when none is given); see ``Recall.search``."""
    recall = Recall(workspace, config)
    try:
        return recall.search(query, k, filters, now=now)
    finally:
        recall.close()


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
    """Tell Dream's salience which prompt-file lines this query returned: an append to a side log, no lock
    (``reverie.hitlog``)."""
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
    ref = SourceRef(kind=row.kind, path=row.path, section=row.title or None, line_start=row.line_start,
                    line_end=row.line_end, cursor=row.cursor, session_key=row.session_key, message_index=row.msg_index)
    return Hit(snippet=snippet(row.text, terms), score=score, source=ref, timestamp=from_epoch(row.ts))


def snippet(text: str, terms: Sequence[str], width: int = SNIPPET_CHARS) -> str:
    """``text`` if short, else a window around the first query term (word-prefix match, so stems find it)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    lower = flat.lower()
    at = min((m.start() for t in terms if (m := re.search(r"\b" + re.escape(t[:5]), lower))), default=0)
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
