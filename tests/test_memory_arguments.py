"""Wrong arguments at the ``Memory`` boundary are one ``CommandError`` naming the argument, never a
``TypeError`` from deep inside nor a silently empty answer (an application's bug shows where it
is)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

import reverie
from reverie.errors import CommandError


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"limit": "5"}, "limit must be a whole number"),  # was a TypeError from the walk
        ({"limit": -1}, "limit must be a whole number"),  # was an empty list
        ({"limit": True}, "limit must be a whole number"),
        ({"since": "soon"}, "since must be a date"),  # was a TypeError comparing dates
        ({"until": 20260101}, "until must be a date"),
        ({"kind": 5}, "kind must be a string"),
        ({"text": b"tea"}, "text must be a string"),
    ],
)
def test_log_names_a_wrong_argument(
    tmp_path: Path, arguments: dict[str, object], said: str
) -> None:
    with reverie.open(tmp_path) as memory:
        memory.init()
        with pytest.raises(CommandError, match=said):
            memory.log(**arguments)  # type: ignore[arg-type]


def test_log_takes_a_day_as_a_date_or_as_iso_text(tmp_path: Path) -> None:
    with reverie.open(tmp_path) as memory:
        memory.init()
        today = datetime.datetime.now(datetime.UTC).date()
        assert len(memory.log(since=today.isoformat())) == len(memory.log(since=today)) == 1
        assert memory.log(until="2020-01-01") == []
        assert memory.log(limit=0) == []
