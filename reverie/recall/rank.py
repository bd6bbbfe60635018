"""Ranking arithmetic: query parsing and its signals (speaker, dates, "when"), score fusion, the
recency nudge, MMR. Pure functions, no I/O.

Fusion. Two methods; the default is ``weighted``, chosen by measurement (BENCHMARKS.md, "recall"):
on LoCoMo with the offline embedders available here (hashembed, wordllama's static 256-d model),
weighted fusion kept R@10 at 65.5 / 68.8 where RRF fell to 57.2 / 60.5 (BM25 alone: 74.3). RRF gives
a weak vector list the same say as BM25 whatever its scores; weighting lets a confident lexical
match keep its lead.
- ``weighted``: each list divided by its best score (so the best is 1 and nothing depends on how
  many candidates were read), then ``w·vector + (1 − w)·bm25`` (``vectorWeight``).
- ``rrf``: reciprocal-rank fusion, ``Σ 1 / (60 + rank)``: no score calibration needed, the usual
  choice when the embedder is strong; selectable with ``memory.search.fusion = "rrf"``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta

from ..text.dates import MONTH_NAME, MONTHS, month_number

__all__ = [
    "query_terms",
    "fts_query",
    "rrf",
    "weighted",
    "decay_factor",
    "recency_factor",
    "mmr",
    "jaccard",
    "RRF_K",
    "asks_when",
    "mentions_time",
    "dates_named",
]

RRF_K = 60
WORD = re.compile(r"\w+", re.UNICODE)
_WORD = WORD
# Function words that carry no topic: dropped from queries (not from the index) so an OR-query is
# not flooded.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can cannot could couldn't did didn't do does doesn't doing
    don't down during each few for from further had hadn't has hasn't have haven't having he her
    here hers herself him himself his how i if in into is isn't it its itself just let me more
    most my myself no nor not of off on once only or other ought our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was wasn't we were weren't what when
    where which while who whom why will with would you your yours yourself yourselves s t d ll m
    re ve""".split()
)


#: Words that frame a question rather than name its topic ("What kind of …", "Would she likely …"):
#: dropped from queries only, like the stopwords.
QUESTION_WORDS = frozenset("likely kind type sort ever might may also".split())
QUERY_STOPWORDS = STOPWORDS | QUESTION_WORDS


def query_terms(query: str) -> list[str]:
    """The query's words, lower-cased, without stopwords (all words if every one is a stopword),
    de-duplicated."""
    words = [w.lower() for w in _WORD.findall(query or "")]
    kept = [w for w in words if w not in QUERY_STOPWORDS] or words
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


def weighted(
    lexical: Mapping[int, float], vector: Mapping[int, float], vector_weight: float
) -> dict[int, float]:
    """Each list scaled by its best score (negative similarities count as 0), then weighted; an id
    missing from a list scores 0 there."""
    a, b = _by_best(lexical), _by_best(vector)
    return {
        i: (1 - vector_weight) * a.get(i, 0.0) + vector_weight * b.get(i, 0.0)
        for i in a.keys() | b.keys()
    }


def _by_best(scores: Mapping[int, float]) -> dict[int, float]:
    top = max(scores.values(), default=0.0)
    return {i: max(s, 0.0) / top if top > 0 else 0.0 for i, s in scores.items()}


def decay_factor(ts: float | None, now: float, half_life_days: float, evergreen: bool) -> float:
    """``0.5 ** (age / half_life)``; 1 for evergreen chunks, undated chunks and anything from the
    future."""
    if evergreen or ts is None or ts >= now:
        return 1.0
    return math.pow(0.5, (now - ts) / 86_400.0 / half_life_days)


def recency_factor(
    ts: float | None, now: float, half_life_days: float, share: float, evergreen: bool
) -> float:
    """The recency nudge: ``1 − share + share · decay``, in ``[1 − share, 1]``.

    Only ``share`` of a score is exposed to age, so an old exact match keeps at least ``1 − share``
    of its score and is never buried under a recent loose one; between near-equal matches, the newer
    one wins.
    """
    if share <= 0:
        return 1.0
    return 1.0 - share + share * decay_factor(ts, now, half_life_days, evergreen)


# "When did …", "what year …", "how long ago …": the answer is a date, so the passage that holds it
# usually says when (``yesterday``, ``last week``, ``in 2022``); the session date then dates it.
_WHEN_Q = re.compile(
    r"\b(when|what (year|month|day|date|time|week)|which (year|month|day)|how long "
    r"ago|since when)\b",
    re.IGNORECASE,
)
_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
_TIME_EXPR = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|ago|last|next|recently|earlier|later|soon|since|weekend|"
    r"(this|that|the other|past) "
    r"(week|month|year|morning|evening|night|summer|winter|spring|fall|autumn)|"
    + "|".join([*MONTHS, *_DAYS.split()])
    + r"|(19|20)\d\d)\b",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """Whether the query asks for a time (``when``, ``what year``, ``how long ago`` …)."""
    return bool(_WHEN_Q.search(query or ""))


def mentions_time(text: str) -> bool:
    """Whether the text says when something happened (a relative or absolute time expression)."""
    return bool(_TIME_EXPR.search(text or ""))


_M = rf"({MONTH_NAME})\.?"
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_M},?\s+((?:19|20)\d\d)\b", re.IGNORECASE
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b{_M}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b", re.IGNORECASE
)
_MONTH_YEAR = re.compile(rf"\b{_M},?\s+((?:19|20)\d\d)\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b")


def dates_named(query: str) -> list[tuple[datetime, datetime]]:
    """The periods a query names, as local [start, end) ranges: a day ("October 13, 2023", "13
    October 2023", "2023-10-13") or a month ("May 2023"). A bare month or year is too vague to
    narrow anything and is ignored."""
    text = query or ""
    out: list[tuple[datetime, datetime]] = []

    def add_day(y: int, m: int, d: int) -> None:
        try:
            start = datetime(y, m, d)
        except ValueError:
            return
        out.append((start, start + timedelta(days=1)))

    for m in _DAY_MONTH_YEAR.finditer(text):
        add_day(int(m.group(3)), month_number(m.group(2)), int(m.group(1)))
    for m in _MONTH_DAY_YEAR.finditer(text):
        add_day(int(m.group(3)), month_number(m.group(1)), int(m.group(2)))
    for m in _ISO_DAY.finditer(text):
        add_day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if not out:
        for m in _MONTH_YEAR.finditer(text):
            y, mo = int(m.group(2)), month_number(m.group(1))
            out.append((datetime(y, mo, 1), datetime(y + mo // 12, mo % 12 + 1, 1)))
    return out


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def mmr(
    ranked: Sequence[tuple[int, float]],
    k: int,
    similarity: Callable[[int, int], float],
    lam: float = 0.7,
) -> list[tuple[int, float]]:
    """Maximal marginal relevance: pick greedily by ``λ·relevance − (1 − λ)·max similarity to what
    is picked``.

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
