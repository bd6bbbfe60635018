"""Issue 36, round 13: two of round 12's open gaps. A partner said as one household with the user
("I live in Calgary with my partner") is a partner line, as a wife or a husband already was; a
duration with "now" ("a nurse for twelve years now") says how long, and is no correction that
could replace a line. Every sentence here was written for these tests.
"""

from __future__ import annotations

import re

import pytest

from reverie.llm.offline.rules import extract_facts


def facts(message: str) -> list[tuple[str, str]]:
    return [(f.text, f.mark) for f in extract_facts(message) if not f.text.startswith("Gone: ")]


@pytest.mark.parametrize(
    "message",
    [
        "I live in Calgary with my partner",
        "i live with my partner and two cats",
        "I'm currently living with my partner in Ghent",
    ],
)
def test_a_partner_in_the_users_household_is_a_partner_line(message: str) -> None:
    assert "Has a partner" in [t for t, _ in facts(message)], facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "I live with my business partner",
        "I used to live with my partner",
        "I don't live with my partner",
        "my sister lives with her partner",
        "I'd love to live with my partner one day",
        "I live with my partner-in-crime, my dog",
        "We share a flat in Leeds with my partner's sister",
        "I'm meeting with my partner tomorrow",
    ],
)
def test_no_partner_of_the_users_household(message: str) -> None:
    assert "Has a partner" not in [t for t, _ in facts(message)], facts(message)


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("I've been a nurse for twelve years now", "Works as nurse"),
        ("I've lived in Lyon for 12 years now", "Lives in Lyon"),
        ("I've been vegetarian for a few months now", "Is vegetarian"),
    ],
)
def test_a_duration_with_now_is_no_correction(message: str, line: str) -> None:
    assert (line, "durable") in facts(message), facts(message)


def test_now_alone_still_marks_a_change() -> None:
    assert ("Lives in Lyon", "correction") in facts("I live in Lyon now")


@pytest.mark.parametrize(
    "message",
    [
        "The exam for my class 12 students is on 14 June, I need to finish the syllabus first.",
        "The presentation for my team is on 3 May",
    ],
)
def test_a_dated_event_is_a_note_about_the_user(message: str) -> None:
    """A memory line is in the third person: "my" in the user's words is "the user's" (Z-111)."""
    got = [t for t, _ in facts(message)]
    assert got and not [t for t in got if re.search(r"\bmy\b", t, re.I)], got
