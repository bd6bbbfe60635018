"""The trailer format: round trip, git's own parser agrees, prose is never mistaken for trailers."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reverie.gitstore import trailers as T


def test_round_trip_with_body() -> None:
    msg = T.format_message(
        "dream: 2 files", "SOUL.md | +1 -0\nUSER.md | +2 -1", {T.KIND: "dream", T.CURSOR: "17"}
    )
    subject, body, tr = T.split_message(msg)
    assert subject == "dream: 2 files"
    assert body == "SOUL.md | +1 -0\nUSER.md | +2 -1"
    assert tr == {T.KIND: "dream", T.CURSOR: "17"}


def test_no_trailers_and_prose_last_paragraph() -> None:
    assert T.parse_trailers("init: nanobot memory store") == {}
    assert T.parse_trailers("subject\n\nThis is prose: not a trailer line\nsecond line") == {}
    # a single-paragraph message is a subject, even if it looks like a trailer
    assert T.parse_trailers("Fix: something") == {}
    assert T.parse_trailers("") == {}


def test_values_are_one_line_and_bad_keys_refused() -> None:
    msg = T.format_message("s", "", {T.MODEL: "a\nb"})
    assert T.parse_trailers(msg) == {T.MODEL: "a b"}
    with pytest.raises(ValueError):
        T.format_message("s", "", {"bad key": "x"})


def test_batch_and_cursor_values() -> None:
    assert T.parse_batch(T.format_batch(3, 17)) == (3, 17)
    assert T.parse_batch("17-3") is None
    assert T.parse_batch("x") is None
    assert T.parse_cursor_value("42") == 42
    assert T.parse_cursor_value("-1") is None
    assert T.parse_cursor_value(None) is None


@given(
    st.text(min_size=1, max_size=40),
    st.dictionaries(
        st.from_regex(r"[A-Z][a-z0-9-]{0,10}", fullmatch=True), st.text(max_size=30), max_size=5
    ),
)
def test_round_trip_property(subject: str, trailers: dict[str, str]) -> None:
    msg = T.format_message(subject, "", trailers)
    parsed = T.parse_trailers(msg)
    assert parsed == {k: " ".join(v.split()) for k, v in trailers.items()}


@pytest.mark.skipif(shutil.which("git") is None, reason="git CLI not installed")
def test_git_interpret_trailers_agrees() -> None:
    msg = T.format_message("dream: x", "SOUL.md | +1 -0", {T.KIND: "dream", T.BATCH: "3-17"})
    out = subprocess.run(
        ["git", "interpret-trailers", "--parse"],
        input=msg,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.splitlines() == ["Reverie-Kind: dream", "Reverie-Batch: 3-17"]
