"""Dates read one way (reverie.text.dates): the month names Recall and Dream's lifecycle read, and
the one timestamp parser."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from reverie.dream.lifecycle import line_dates
from reverie.recall.rank import dates_named
from reverie.text.dates import MONTH_NAME, month_number, parse_timestamp


@pytest.mark.parametrize(
    ("name", "number"), [("January", 1), ("sept", 9), ("Sep", 9), ("june", 6), ("MAY", 5)]
)
def test_every_spelling_of_a_month_has_its_number(name: str, number: int) -> None:
    assert re.fullmatch(MONTH_NAME, name, re.I) and month_number(name) == number


def test_recall_and_the_lifecycle_read_the_same_month_names() -> None:
    (start, _end), *_ = dates_named("what happened on Sept 3, 2025")
    assert (start.month, start.day) == (9, 3)
    assert [d.month for d in line_dates("flight on 3 Sept 2025")] == [9]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-28", datetime(2026, 11, 28)),
        (" 2026-11-28 14:05 ", datetime(2026, 11, 28, 14, 5)),
        ("2026-11-28T14:05:00Z", datetime(2026, 11, 28, 14, 5, tzinfo=UTC)),
        ("28/11/2026", None),
        ("", None),
        (None, None),
        (1764338700, None),
    ],
)
def test_one_timestamp_parser(text: object, expected: datetime | None) -> None:
    assert parse_timestamp(text) == expected
