"""Issue 36, round 13: the terse register (split AA's writer). A fragment with no subject that
opens what the user says is read as the user's own statement: a job title with its employer typed
in lower case or after "@" ("senior frontend dev at shopify", "data scientist at monzo (london)"),
a bare title before what only an introduction says ("ux researcher, ~5 yrs in"), a list joined by
"+" ("allergic to tree nuts + shellfish"). Only where the fragment has no other subject and asks
nothing: the look-alikes below give no line. Every sentence here was written for these tests.
"""

from __future__ import annotations

import pytest

from reverie.llm.offline.rules import extract_facts


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message) if not f.text.startswith("Gone: ")]


READ = [
    ("backend dev at trendyol, mostly go + postgres", "Works as backend developer"),
    ("data analyst at wise (london). sql all day", "Works as data analyst"),
    ("qa engineer @ klarna in stockholm", "Works as qa engineer"),
    (
        "mobile intern at swiggy in bangalore, 6 month internship till june",
        "Works as mobile intern",
    ),
    ("product designer, ~4 yrs in. mostly b2b saas", "Works as product designer"),
    (
        "freelance illustrator, mostly procreate, clients are indie game studios",
        "Works as freelance illustrator",
    ),
    ("Pharmacist, 12 years in", "Works as pharmacist"),
    ("allergic to peanuts + sesame, carry an epipen", "Allergic to sesame"),
    ("allergic to kiwi & latex", "Allergic to latex"),
]


@pytest.mark.parametrize(("message", "line"), READ)
def test_a_terse_fragment_is_the_users_own_statement(message: str, line: str) -> None:
    assert line in facts(message), facts(message)


def test_a_list_joined_by_plus_gives_one_line_each() -> None:
    got = facts("allergic to peanuts + sesame")
    assert {"Allergic to peanuts", "Allergic to sesame"} <= set(got), got
    assert not [t for t in got if "+" in t], got


#: Another subject, a question, a request, a title that is not a job held: no job line.
LOOK_ALIKES = [
    "new intern at google, how do I onboard him?",
    "software engineer at google, what's the salary",
    "software engineer at google salary?",
    "the new intern at google keeps asking me questions",
    "my wife, nurse at st marys, says hi",
    "teacher at heart, engineer by trade",
    "nurse at night?",
    "former nurse at guys hospital",
    "recruiter at amazon messaged me",
    "hiring a data scientist at monzo",
    "nurse, come quick",
    "pharmacist, 12 years in? is that normal",
    "student, 3 yrs in",
    "dinner at nobu tonight",
]


@pytest.mark.parametrize("message", LOOK_ALIKES)
def test_a_look_alike_gives_no_job(message: str) -> None:
    assert not [t for t in facts(message) if t.startswith(("Works as", "Works at"))], facts(message)


def test_plus_in_a_name_or_a_language_is_kept() -> None:
    assert "Works at Marks & Spencer" in facts("I work at Marks & Spencer")
    assert "Uses C++" in facts("we use c++ and python")


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("keep answers to max 5 bullets", "Keep answers under 5 bullet points"),
        ("keep it to a maximum of 3 paragraphs please", "Keep answers under 3 paragraphs"),
        ("american spelling pls (color, center etc)", "Use american spelling"),
        ("metric only please (kg, km)", "Use metric units"),
    ],
)
def test_a_terse_request_is_a_rule(message: str, line: str) -> None:
    assert line in facts(message), facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "keep answers to max 5 bullets if the topic is small",
        "can you keep it to max 5 bullets?",
        "american spelling (is it color or colour?)",
    ],
)
def test_a_terse_request_with_a_condition_or_a_question_is_none(message: str) -> None:
    got = facts(message)
    assert not [t for t in got if t.startswith(("Keep answers", "Use "))], got
