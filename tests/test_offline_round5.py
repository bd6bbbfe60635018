"""Issue 36, fifth round (after the held-out splits H and I's first runs): the wrong lines they
showed, each fixed as a class, and the corrections they left stale. The sentences are written for
these tests, not taken from the corpus; each class has look-alikes that must keep their fact.
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message, st.SAID_ON)]


# -- a degree or a quantifier is no object ----------------------------------------------------------
@pytest.mark.parametrize(
    "message",
    [
        "Honestly I love it so much.",
        "Cheese, I like a lot.",
        "I like them all.",
        "I really enjoy very much.",
        "I hate everything.",
        "I prefer both.",
    ],
)
def test_a_degree_or_a_quantifier_is_never_the_thing_liked(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith(("Likes", "Dislikes", "Prefers"))]


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("I eat most things, and rice I love very much.", "Likes rice"),
        ("Opera I really love.", "Likes opera"),
        ("Olives I don't like at all.", "Dislikes olives"),
        ("The old cartoons I don't like at all.", "Dislikes old cartoons"),
        ("I love hiking a lot.", "Likes hiking"),
        ("I don't like horror films at all.", "Dislikes horror films"),
    ],
)
def test_an_object_said_before_its_verb_is_the_thing(message: str, line: str) -> None:
    assert line in facts(message)


@pytest.mark.parametrize(
    "message", ["Everything I love.", "The people I love.", "That is what I like."]
)
def test_a_fronted_phrase_that_is_no_thing_gives_nothing(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith(("Likes", "Dislikes"))]


# -- a filler typed after a phrase is no part of the fact -----------------------------------------
@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("i hate pineapple pizza ngl, it's just wrong", "Dislikes pineapple pizza"),
        ("I prefer tea tbh.", "Prefers tea"),
        ("i live in Oslo btw, moved last year", "Lives in Oslo"),
        ("I love board games imo.", "Likes board games"),
    ],
)
def test_a_filler_after_a_phrase_is_dropped(message: str, line: str) -> None:
    got = facts(message)
    assert line in got, got
    assert not [f for f in got if f.split()[-1].lower() in {"ngl", "tbh", "btw", "imo"}]


# -- a class, a room or a flat is no employer ---------------------------------------------------------
@pytest.mark.parametrize(
    "message",
    ["I'm form tutor for 9C.", "I'm a teacher for 10A this year.", "I'm a nurse at 4B."],
)
def test_a_code_of_a_number_and_a_letter_is_no_employer(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith("Works at")]


def test_an_employer_named_with_letters_is_kept() -> None:
    assert "Works at Spotify" in facts("I'm a developer for Spotify.")


# -- the template's word is not said twice -------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "line"),
    [
        (
            "The funding bid for the youth club is due 12 March.",
            "Deadline for funding bid for the youth club: 2027-03-12",
        ),
        ("My essay is due March 12.", "Deadline for essay: 2027-03-12"),
    ],
)
def test_a_deadline_s_subject_is_whole_and_not_doubled(message: str, line: str) -> None:
    got = facts(message)
    assert line in got, got
    assert not [f for f in got if "for for" in f]
