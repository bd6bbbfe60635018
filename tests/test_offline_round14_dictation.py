"""Issue 36, round 14: what dictation writes (split CC's writer), and a dated thing that is part of
another. A day of the month said in words ("October fifteenth", "the twelfth of May") is the day,
a version in words ("three point oh") the version; "may first" and "march first" in lower case are
no dates. A dated thing after "for" or "of" ("code freeze for the 3.0 release is November 1") is
no deadline of that release: the line names the freeze, or is not written when a word of it would
be dropped. Every sentence here was written for these tests.
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts


def _lines(message: str) -> list[str]:
    return [f.text for f in extract_facts(message, st.SAID_ON)]


@pytest.mark.parametrize(
    ("message", "line"),
    [
        (
            "the website launch is September twenty-second",
            "Deadline for website launch: 2027-09-22",
        ),
        ("our 2.0 release is on the third of August", "Deadline for 2.0 release: 2027-08-03"),
        (
            "the product launch is March first, no slipping",
            "Deadline for product launch: 2027-03-01",
        ),
        # the thing a deliverable's date belongs to, named
        (
            "the feature freeze for the 4.2 release is June 3",
            "Feature freeze for the 4.2 release on 2027-06-03",
        ),
        # a version said in words
        (
            "feature freeze for the four point two release is June third",
            "Feature freeze for the 4.2 release on 2027-06-03",
        ),
    ],
)
def test_a_day_said_in_words_is_the_day(message: str, line: str) -> None:
    assert line in _lines(message), _lines(message)


@pytest.mark.parametrize(
    "message",
    [
        "the march first went well, then we had lunch",
        "we may first ask the client about the release",
        "the feature freeze for the 4.2 release is June 3",
        "the rehearsal dinner for the launch is on June 3",
        "the feature freeze for the four point two release is June third",
    ],
)
def test_no_deadline_of_another_thing(message: str) -> None:
    assert not [t for t in _lines(message) if t.startswith("Deadline")], _lines(message)


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("we use Node twenty and Postgres sixteen", "Uses Postgres 16"),
        ("we build it with unity two point one", "Uses Unity 2.1"),
    ],
)
def test_a_tools_version_said_in_words(message: str, line: str) -> None:
    assert line in _lines(message), _lines(message)


def test_a_number_word_after_a_common_word_stays() -> None:
    assert "2" not in " ".join(_lines("I go swimming two times a week"))


@pytest.mark.parametrize(
    ("message", "line"),
    [
        # a sound inside the sentence is a pause ("uh", "um"), or nothing after a joining word
        ("I live in Lisbon uh near the river", "Lives in Lisbon"),
        ("I speak Greek and um Italian", "Speaks Italian"),
        # where in the place, after its name
        ("I live in Bergen up on the hill", "Lives in Bergen"),
    ],
)
def test_what_dictation_leaves_in_a_sentence(message: str, line: str) -> None:
    assert line in _lines(message), _lines(message)
