"""Salience: how much a prompt-file line deserves its place. The record's format and the rule, in
one module.

``memory/.reverie/salience.json`` (advisory, rebuilt from scratch if lost: every line then counts as
learned on the day it is first seen again)::

    {"version": 1, "hits_offset": 1234,
     "files": {"USER.md": {"lives in porto": {
         "learned": "2027-03-02", "confirmed": "2027-05-01",
         "hits": 3, "last_hit": "2027-05-20", "mark": "durable"}}}}

Keys are ``reverie.text.memline.line_key``. ``mark`` is the summary call's mark of the fact the line
was written from (``permanent``, ``durable``, ``ephemeral``), when Dream could match it (a batch
fact with the same words, Jaccard ≥ 0.5 for a new line; a restatement, ≥ 0.8, confirms an existing
one). Dream writes the record after its commit, under its run lock (atomic replace); a crash in
between only loses one run's dates.

**The rule.** A line that is *protected* is never archived automatically: every SOUL.md line
(standing rules), a line carrying the summary call's ``permanent`` mark (identity: name, family,
birthplace) or reading as identity in USER.md, and a line a person pinned (``[pinned]`` at its end,
``reverie pin``). Every other line scores::

    score = 0.5 ** (days since it was last learned, confirmed or recalled / halfLifeDays)
            + 0.25 * log2(1 + times Recall returned it)

When a file is over its budget, lines learned or confirmed in the last ``RECENT_DAYS`` (30) days
leave only after every other unprotected line — recall hits keep an old line ahead of other old
lines, never ahead of what the user said this month — then the lowest scores leave first (ties: the
older line, then the one nearer the top) until the file is at ``targetRatio`` of its budget. With
``staleDays`` set, an unprotected line whose last learning, confirmation or recall is older than
that leaves even under budget.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import orjson

from ..storage.fsutil import atomic_write
from ..storage.hitlog import ROTATE_BYTES, read_hits, rotate_hits
from ..text.dates import parse_timestamp

__all__ = ["LineInfo", "SalienceRecord", "score", "recent", "SALIENCE_NAME", "RECENT_DAYS"]

log = logging.getLogger(__name__)

SALIENCE_NAME = "salience.json"
HIT_WEIGHT = 0.25
#: A line learned or confirmed this many days ago or less is *recent*: budget pressure archives it
#: last.
RECENT_DAYS = 30


def _day(value: Any) -> date | None:
    when = parse_timestamp(value[:10]) if isinstance(value, str) else None
    return None if when is None else when.date()


@dataclass
class LineInfo:
    learned: date
    confirmed: date | None = None
    hits: int = 0
    last_hit: date | None = None
    mark: str | None = None

    @property
    def last_seen(self) -> date:
        return max(d for d in (self.learned, self.confirmed, self.last_hit) if d is not None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"learned": self.learned.isoformat()}
        if self.confirmed:
            out["confirmed"] = self.confirmed.isoformat()
        if self.hits:
            out["hits"] = self.hits
        if self.last_hit:
            out["last_hit"] = self.last_hit.isoformat()
        if self.mark:
            out["mark"] = self.mark
        return out

    @classmethod
    def from_json(cls, data: Any) -> LineInfo | None:
        if not isinstance(data, dict) or (learned := _day(data.get("learned"))) is None:
            return None
        hits = data.get("hits", 0)
        mark = data.get("mark")
        return cls(
            learned,
            _day(data.get("confirmed")),
            hits if isinstance(hits, int) and hits > 0 else 0,
            _day(data.get("last_hit")),
            mark if isinstance(mark, str) else None,
        )


def score(info: LineInfo, today: date, half_life_days: float) -> float:
    """The salience of an unprotected line (see the module docstring)."""
    age = max(0, (today - info.last_seen).days)
    return math.pow(0.5, age / half_life_days) + HIT_WEIGHT * math.log2(1 + info.hits)


def recent(info: LineInfo, today: date) -> bool:
    """Learned or confirmed (restated by the user) in the last ``RECENT_DAYS`` days; a recall hit
    does not count."""
    said = max(d for d in (info.learned, info.confirmed) if d is not None)
    return (today - said).days <= RECENT_DAYS


@dataclass
class SalienceRecord:
    path: Path
    files: dict[str, dict[str, LineInfo]] = field(default_factory=dict)
    hits_offset: int = 0

    @classmethod
    def load(cls, state_dir: Path) -> SalienceRecord:
        path = Path(state_dir) / SALIENCE_NAME
        try:
            data = orjson.loads(path.read_bytes())
        except FileNotFoundError:
            return cls(path)
        except (OSError, orjson.JSONDecodeError) as exc:
            log.warning("%s is unreadable (%s); line dates start afresh", path, exc)
            return cls(path)
        if not isinstance(data, dict):
            return cls(path)
        files: dict[str, dict[str, LineInfo]] = {}
        for rel, lines in (data.get("files") or {}).items():
            if isinstance(lines, dict):
                files[str(rel)] = {
                    str(k): info for k, v in lines.items() if (info := LineInfo.from_json(v))
                }
        offset = data.get("hits_offset", 0)
        return cls(path, files, offset if isinstance(offset, int) and offset >= 0 else 0)

    def info(self, rel: str, key: str) -> LineInfo | None:
        return self.files.get(rel, {}).get(key)

    def fold_hits(self) -> None:
        """Count the hits Recall logged since the last run (``reverie.storage.hitlog``)."""
        hits, self.hits_offset = read_hits(self.path.parent, self.hits_offset)
        for hit in hits:
            lines = self.files.get(hit.path)
            if not lines:
                continue
            when = date.fromtimestamp(hit.time)
            for key in hit.keys:
                info = lines.get(key)
                if info is not None:
                    info.hits += 1
                    info.last_hit = max(info.last_hit or when, when)
        if self.hits_offset > ROTATE_BYTES:
            rotate_hits(self.path.parent)
            self.hits_offset = 0

    def save(self) -> None:
        data = {
            "version": 1,
            "hits_offset": self.hits_offset,
            "files": {
                rel: {k: v.to_json() for k, v in lines.items()} for rel, lines in self.files.items()
            },
        }
        try:
            atomic_write(self.path, orjson.dumps(data) + b"\n", fsync=False)
        except OSError as exc:
            log.warning("%s not written (%s); line dates of this run are lost", self.path, exc)
