"""Dates in text, read one way: the month names (with their numbers) and the timestamp parser that
every stored timestamp goes through (session messages, history entries, Dream's records, search
filters, salience days).

The offline engine keeps its own date rules in ``reverie.llm.offline.dates`` (its issue moves them).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["MONTHS", "MONTH_NAME", "month_number", "parse_timestamp"]

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
#: A month's name as people write it, in a regular expression (no group, match case-insensitively):
#: the full name or its three-letter abbreviation (``sept`` too); a full stop after it is the
#: caller's to allow.
MONTH_NAME = "(?:" + "|".join([*MONTHS, *(m[:3] for m in MONTHS if m != "may"), "sept"]) + ")"
_NUMBER = {m[:3]: n for n, m in enumerate(MONTHS, 1)}


def month_number(name: str) -> int:
    """1-12 for a name `MONTH_NAME` matched (any case); `KeyError` for anything else."""
    return _NUMBER[name[:3].lower()]


def parse_timestamp(value: Any) -> datetime | None:
    """An ISO 8601 timestamp or date (``2026-11-28``, ``2026-11-28 14:05``, ``…T14:05:00.5Z``,
    ``…+01:00``), surrounding white space allowed; None for anything else. Naive when the text
    names no zone: the caller decides what that means (history and sessions: local time)."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return datetime.fromisoformat(value.strip())
    except ValueError:
        return None
