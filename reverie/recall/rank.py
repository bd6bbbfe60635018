"""Ranking arithmetic: query parsing, score fusion, temporal decay, MMR. Pure functions, no I/O.

Fusion. Two methods; the default is ``weighted``, chosen by measurement (BENCHMARKS.md, "recall"): on LoCoMo with
the offline embedders available here (hashembed, wordllama's static 256-d model), weighted fusion kept R@10 at
65.5 / 68.8 where RRF fell to 57.2 / 60.5 (BM25 alone: 74.3). RRF gives a weak vector list the same say as BM25
whatever its scores; min-max weighting lets a confident lexical match keep its lead.
- ``weighted``: each list min-max normalised to [0, 1], then ``w·vector + (1 − w)·bm25`` (``vectorWeight``).
- ``rrf``: reciprocal-rank fusion, ``Σ 1 / (60 + rank)``: no score calibration needed, the usual choice when the
  embedder is strong; selectable with ``memory.search.fusion = "rrf"``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence

__all__ = ["query_terms", "fts_query", "rrf", "weighted", "decay_factor", "mmr", "jaccard", "RRF_K"]

RRF_K = 60
_WORD = re.compile(r"\w+", re.UNICODE)
# Function words that carry no topic: dropped from queries (not from the index) so an OR-query is not flooded.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can cannot could couldn't did didn't do does doesn't doing don't down during each few for
    from further had hadn't has hasn't have haven't having he her here hers herself him himself his how i if in into
    is isn't it its itself just let me more most my myself no nor not of off on once only or other ought our ours
    ourselves out over own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was wasn't we were weren't what when where which while who
    whom why will with would you your yours yourself yourselves s t d ll m re ve""".split()
)


def query_terms(query: str) -> list[str]:
    """The query's words, lower-cased, without stopwords (all words if every one is a stopword), de-duplicated."""
    words = [w.lower() for w in _WORD.findall(query or "")]
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(kept))


def fts_query(terms: Sequence[str]) -> str:
    """An FTS5 MATCH expression OR-ing the terms, each quoted so no word is read as FTS5 syntax."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def rrf(*rankings: Sequence[int], k: int = RRF_K) -> dict[int, float]:
    """Reciprocal-rank fusion of ranked id lists (best first)."""
    out: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            out[item] = out.get(item, 0.0) + 1.0 / (k + rank + 1)
    return out


def _minmax(scores: Mapping[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    span = hi - lo
    return {i: (s - lo) / span if span > 0 else 1.0 for i, s in scores.items()}


def weighted(lexical: Mapping[int, float], vector: Mapping[int, float], vector_weight: float) -> dict[int, float]:
    """Min-max-normalised weighted sum; an id missing from a list scores 0 there."""
    a, b = _minmax(lexical), _minmax(vector)
    return {i: (1 - vector_weight) * a.get(i, 0.0) + vector_weight * b.get(i, 0.0) for i in a.keys() | b.keys()}


def decay_factor(ts: float | None, now: float, half_life_days: float, evergreen: bool) -> float:
    """``0.5 ** (age / half_life)``; 1 for evergreen chunks, undated chunks and anything from the future."""
    if evergreen or ts is None or ts >= now:
        return 1.0
    return math.pow(0.5, (now - ts) / 86_400.0 / half_life_days)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def mmr(
    ranked: Sequence[tuple[int, float]], k: int, similarity: Callable[[int, int], float], lam: float = 0.7
) -> list[tuple[int, float]]:
    """Maximal marginal relevance: pick greedily by ``λ·relevance − (1 − λ)·max similarity to what is picked``.

    Relevance is the normalised score; returned pairs keep the original scores, in pick order.
    """
    if not ranked:
        return []
    top = max(s for _, s in ranked) or 1.0
    pool = list(ranked)
    picked: list[tuple[int, float]] = []
    while pool and len(picked) < k:
        best_i, best_v = 0, -math.inf
        for i, (item, score) in enumerate(pool):
            redundancy = max((similarity(item, p) for p, _ in picked), default=0.0)
            value = lam * (score / top) - (1 - lam) * redundancy
            if value > best_v:
                best_i, best_v = i, value
        picked.append(pool.pop(best_i))
    return picked


def tokens(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS)
