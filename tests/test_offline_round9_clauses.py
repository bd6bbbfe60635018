"""Round 9 of issue 36, the clause stage: what reaches a rule. Each mechanism was found by tracing
every missed fact of the tuning splits to the stage that refused it (``bench/offline_why_missed``),
and each is a class with fresh sentences of its own and look-alikes that must give nothing (the
precision side); all run on ``extract_facts`` (cheap)."""

from __future__ import annotations

from datetime import date

import pytest

from reverie.llm.offline.framing import temporary
from reverie.llm.offline.rules import extract_facts
from reverie.llm.offline.rules.clauses import coordinated_clauses

SAID_ON = date(2027, 1, 4)


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message, SAID_ON)]


def lasting(message: str) -> list[str]:
    return [f for f in facts(message) if not f.startswith(("Gone: ", "Now: "))]


# -- two main clauses joined by "and": each read on its own ---------------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I'm Deaf and Auslan is my first language.", ["Is Deaf", "Native language: Auslan"]),
        ("i'm deaf and my first language is LSF", ["Is deaf", "Native language: LSF"]),
        ("I'm badly allergic to shellfish and carry an EpiPen", ["Carries an EpiPen"]),
        (
            "We host everything on Hetzner, and the services run on Kubernetes.",
            ["Services run on Kubernetes"],
        ),
        ("I'm a pharmacist and my husband is a teacher", ["Works as pharmacist"]),
    ],
)
def test_two_clauses_joined_by_and_are_each_read(message: str, expected: list[str]) -> None:
    got = facts(message)
    for fact in expected:
        assert fact in got


@pytest.mark.parametrize(
    ("part", "whole"),
    [
        ("my husband Kwame and I have twins", True),  # "and" joins two subjects
        ("I should mention Ana and I are divorced now", True),  # "X and I are": one subject
        ("I think I'm vegan and my wife is too", True),  # a hedge reaches both
        ("I live in Leeds and I might move to York", True),  # a plan reaches both
        ("I quit nursing in May and I'm a florist now", True),  # a change is read whole
        ("We had to dig deep and keep on pushing", True),  # a left-out subject only after "I'm"
        ("I'm allergic to cats and dogs", True),  # a list, no clause
        ("I'm a nurse and my husband is a teacher", False),
    ],
)
def test_and_cuts_only_between_clauses(part: str, whole: bool) -> None:
    assert (coordinated_clauses(part) == [part]) is whole


@pytest.mark.parametrize(
    "message",
    [
        "My sister is Deaf and BSL is her first language",  # someone else's facts
        "If I were Deaf and BSL was my first language, what would change?",  # hypothetical
        "I'd love to be fluent and Italian would be my second language",  # a wish
        "In my novel I'm a pilot and my home is Oslo.",  # a story
        "I'm Deaf and use BSL lol, not really",  # a retraction
    ],
)
def test_and_clauses_look_alikes_give_nothing(message: str) -> None:
    assert not [f for f in lasting(message) if "Deaf" in f or "Oslo" in f or "pilot" in f]
    assert not [f for f in lasting(message) if f.startswith(("Native language", "Speaks"))]


# -- a comma before a clause whose subject is a noun ----------------------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("huge fan of pixar, ratatouille is my all time fav film", "Favourite film: Ratatouille"),
        ("Big fan of jazz, Coltrane is my favourite musician", "Likes jazz"),
    ],
)
def test_a_comma_before_a_noun_subject_opens_a_clause(message: str, expected: str) -> None:
    assert expected in facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "I think I love jazz, Coltrane is my favourite?",  # a question
        "My brother is a big fan of Pixar, Up is his favourite film",  # someone else's
    ],
)
def test_a_comma_before_a_noun_subject_look_alikes(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith(("Favourite", "Likes"))]


# -- a clinician's diagnosis is the user's fact; a guess, advice or a layman's is not ------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("My GP says I'm prediabetic", "Has prediabetes"),
        ("my doctor told me last year that I have type 1 diabetes", "Has type 1 diabetes"),
        ("The vet says our beagle Rex has a heart murmur.", "Has a beagle named Rex"),
    ],
)
def test_a_diagnosis_told_by_a_clinician(message: str, expected: str) -> None:
    assert expected in facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "My doctor thinks I might have asthma",  # a guess
        "My doctor says I should cut down on sugar",  # advice
        "my doctor told me to watch the carbs",
        "My mum says I'm diabetic, she's wrong",  # no clinician
        "My friend says I have celiac disease",
        "My doctor says I'm fine",
    ],
)
def test_a_diagnosis_look_alikes_give_nothing(message: str) -> None:
    assert lasting(message) == []


# -- a decision dated by the day it was taken lasts; a passing state does not --------------------
def test_a_decision_taken_today_is_no_passing_state() -> None:
    assert not temporary("Team agreed today: all new services in Rust.")
    assert not temporary("We decided this morning to move the dashboard to Zustand.")
    assert temporary("I'm working from a café today")
    assert temporary("We agreed today that I work from home this week")  # the state is passing
    assert "Team agreement: new services are written in Rust" in facts(
        "Team decided today: new services are written in Rust"
    )


# -- a word that looks like a hedge and is none --------------------------------------------------
def test_half_of_something_else_is_no_hedge() -> None:
    assert "Works as nurse" in facts("I'm a nurse and half my patients are kids.")
    assert lasting("I'm half Italian, I think") == []


# -- an object after "writes" is work done, no report -------------------------------------------
def test_writes_with_an_object_is_no_report() -> None:
    assert lasting("Anna writes that I'm a vegan") == []
    assert lasting("My friend in London says I'm a vegan") == []


# -- part of the week: a pastime's time, but only part of a home, a job or a diet -----------------
def test_part_of_the_week_is_a_pastimes_time() -> None:
    assert "Likes baking on weekends" in facts("I love baking on weekends")
    for message in (
        "I live in Brighton on weekends",
        "I work from home on weekdays",
        "I'm vegetarian on weekdays",
        "She's with me on weekdays and with her dad on weekends.",
    ):
        assert lasting(message) == [], message


def test_a_verb_after_my_mother_is_no_name() -> None:
    assert not [f for f in facts("I cook fish curries like my mother made") if "named" in f]


# -- words that looked like a frame, a task or sarcasm -------------------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("polish is my first language, english second", "Native language: Polish"),
        ("Teacher at Lycée Molière in Lyon, if that's useful for context.", "Works as teacher"),
        ("Explain it as if I'm a beginner. I live in Quito.", "Lives in Quito"),
    ],
)
def test_no_frame_where_none_is(message: str, expected: str) -> None:
    assert expected in facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "Polish my bio: I live in Paris and I'm a nurse.",  # a task on a text
        "As if I'd ever live in Paris. I'm a CEO.",  # sarcasm
        "I'm the CEO of Apple, as if!",
        "In my game I'm a pilot who lives in Oslo.",  # a story
        "For my D&D campaign I'm an elf who lives in Rivendell.",
        "I live in Oslo, if that's true.",  # a doubt, no remark on relevance
    ],
)
def test_frames_that_stay(message: str) -> None:
    assert lasting(message) == []


# -- phone typing: "its" where a clause opens, "id" before a preference ---------------------------
def test_its_and_id_typed_without_apostrophes() -> None:
    from reverie.llm.offline.rules.shorthand import spelled

    assert spelled("changed my mind its ramen now") == "changed my mind it's ramen now"
    assert spelled("ok, its fine") == "ok, it's fine"
    assert spelled("id rather short answers") == "I'd rather short answers"
    assert spelled("the dog wags its tail") == "the dog wags its tail"  # a possessive stays
    assert spelled("its own thing") == "its own thing"
    assert spelled("my id is 1234") == "my id is 1234"
