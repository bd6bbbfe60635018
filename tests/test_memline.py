"""What a memory line is (reverie.text.memline): one bullet rule for every reader and writer."""

from __future__ import annotations

import pytest

from reverie.text.memline import (
    TOP_BULLET,
    bare_line,
    bullet_text,
    is_fact_line,
    line_key,
    strip_bullet,
)


@pytest.mark.parametrize("mark", ["-", "*", "+", "•", "1.", "12)", "  -"])
def test_every_bullet_is_one_rule(mark: str) -> None:
    line = f"{mark} Lives in Porto [pinned] [age: 20 days]"
    assert bare_line(line) == "Lives in Porto"
    assert strip_bullet(f"{mark}   x ") == "x" and bullet_text(f"{mark} x") == "x"
    assert line_key(line) == line_key("Lives in Porto.") == "lives in porto"
    assert bool(TOP_BULLET.match(line)) is (not mark.startswith(" "))


def test_what_is_not_a_bullet_or_a_fact() -> None:
    assert bullet_text("Lives in Porto") is None and bullet_text("- ") is None
    assert bullet_text("1234. x") is None  # a year, not a list number
    assert not is_fact_line("# Heading") and not is_fact_line("| a | b |")
    assert is_fact_line("- Lives in Porto")
