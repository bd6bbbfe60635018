"""Recall's value types: what a search returns and how it is narrowed. No I/O here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from ..errors import RecallError
from ..text.dates import parse_timestamp

__all__ = ["SOURCE_KINDS", "SourceKind", "SourceRef", "Hit", "SearchFilters"]

#: Source kinds: the evergreen memory files (SOUL.md, USER.md, memory/MEMORY.md), history.jsonl
#: entries, dated memory files (memory/YYYY-MM-DD*.md) and session transcripts.
SourceKind = Literal["memory", "history", "dated", "session"]
SOURCE_KINDS: tuple[SourceKind, ...] = get_args(SourceKind)


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where a hit came from, precisely enough to open it again.

    ``memory``/``dated``: ``path`` + ``section`` (heading path) + 1-based inclusive
    ``line_start``..``line_end``. ``history``: ``cursor`` (and the entry's ``session_key`` when it
    has one). ``session``: ``session_key`` + ``message_index`` (0-based, counting message lines
    after the metadata line).
    """

    kind: str
    path: str
    section: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    cursor: int | None = None
    session_key: str | None = None
    message_index: int | None = None

    def __str__(self) -> str:
        if self.kind == "history":
            return f"{self.path}#cursor={self.cursor}"
        if self.kind == "session":
            return f"{self.path}#message={self.message_index}"
        if self.line_start is not None:
            return f"{self.path}#L{self.line_start}-L{self.line_end}"
        return self.path

    def to_dict(self) -> dict[str, Any]:
        """The reference as plain JSON: its fields that are set."""
        return {
            f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None
        }


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a text snippet, its final score (higher is better; relative: the best
    lexical match scores about 1, see ``reverie.recall.search``), where it came from, and when.

    ``match`` has an absolute meaning, the same for every query: the share of the query's words
    (stop words aside) that the hit's text holds, each compared by its first five letters, from 0
    to 1 (1: all of them). A threshold is set on it (``Memory.search(..., threshold=0.5)``: at least
    half the words), never on ``score``."""

    snippet: str
    score: float
    source: SourceRef
    timestamp: datetime | None = None
    match: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The hit as plain JSON: snippet, score, match, source (as a string and as its fields),
        time."""
        return {
            "snippet": self.snippet,
            "score": self.score,  # full precision: rounding would merge near-equal scores
            "match": self.match,
            "source": str(self.source),
            "ref": self.source.to_dict(),
            "timestamp": self.timestamp.isoformat() if self.timestamp else None,
        }


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Narrow a search: by source kind, by session key, by time (``since`` ≤ timestamp < ``until``).

    Evergreen memory files have no timestamp; a date range excludes them.
    """

    kinds: frozenset[str] | None = None
    session: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.kinds is not None:
            kinds = frozenset(self.kinds)
            unknown = kinds - set(SOURCE_KINDS)
            if unknown:
                raise RecallError(
                    f"unknown source kind(s) {sorted(unknown)}; known: {', '.join(SOURCE_KINDS)}"
                )
            object.__setattr__(self, "kinds", kinds)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | SearchFilters | None) -> SearchFilters | None:
        """Filters from tool-call or CLI arguments: ``kinds`` (list or comma string), ``session``,
        ``since``, ``until`` (ISO dates or datetimes)."""
        if data is None or isinstance(data, SearchFilters):
            return data
        if not isinstance(data, Mapping):
            raise RecallError(f"filters must be an object, not {type(data).__name__}")
        kinds = data.get("kinds") or data.get("kind")
        if isinstance(kinds, str):
            kinds = [k.strip() for k in kinds.split(",") if k.strip()]
        session = data.get("session")
        if session is not None and not isinstance(session, str):
            raise RecallError("filters.session must be a string")
        return cls(
            kinds=frozenset(kinds) if kinds else None,
            session=session or None,
            since=_parse_when(data.get("since"), "since"),
            until=_parse_when(data.get("until"), "until"),
        )


def _parse_when(value: Any, name: str) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise RecallError(f"filters.{name} must be an ISO date string")
    when = parse_timestamp(value)
    if when is None:
        raise RecallError(f"filters.{name}: {value!r} is not an ISO date (YYYY-MM-DD[THH:MM])")
    return when


def to_epoch(when: datetime) -> float:
    """Seconds since the epoch; naive datetimes are local time (history timestamps are local)."""
    return when.timestamp() if when.tzinfo else when.astimezone().timestamp()


def from_epoch(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=UTC).astimezone()


def unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
