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


# -- a reason after a rule is no part of it; an allergy given as the reason is the fact -----------
@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("Never use exclamation marks, I find them loud.", "Never use exclamation marks"),
        ("Always show the units because I mix them up.", "Always show the units"),
    ],
)
def test_a_reason_after_a_rule_is_cut_off(message: str, line: str) -> None:
    assert facts(message) == [line]


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("pls never put anything w sesame in recipes, im allergic", "Allergic to sesame"),
        ("Never suggest dishes with shellfish, I'm badly allergic.", "Allergic to shellfish"),
    ],
)
def test_an_allergy_given_as_a_rule_s_reason_is_the_fact(message: str, line: str) -> None:
    assert facts(message) == [line]


# -- corrections H left stale, each a class (paraphrases of the tests' own) ----------------------
# (turns, the old line, the new line)
RETIRED = [
    # a move with its subject left out after a comma, an unrelated turn between, a typo'd cue
    (
        (
            "I live in Ghent.",
            "any tips for a rainy sunday?",
            "actualy not in ghent anymore, moved to antwerp",
        ),
        "Lives in Ghent",
        "Lives in Antwerp",
    ),
    # an employer left and the new one said with its title
    (
        (
            "I work at Siemens as a project engineer.",
            "Update: I left Siemens, now I'm at Bosch as lead engineer.",
        ),
        "Works at Siemens",
        "Works at Bosch",
    ),
    (
        (
            "I work at Siemens as a project engineer.",
            "Update: I left Siemens, now I'm at Bosch as lead engineer.",
        ),
        "Works as project engineer",
        "Works as lead engineer",
    ),
    # a title given by the user's superiors
    (
        ("I'm a staff nurse.", "Small change: my manager made me ward manager last month."),
        "Works as staff nurse",
        "Works as ward manager",
    ),
    # a meeting that "moves to" a weekday and a bare time, the time said first
    (
        (
            "Our team sync is every Monday 9am.",
            "Starting next week the team sync moves to Thursday 14:00.",
        ),
        "Team cadence: team sync every Monday 9am",
        "Team cadence: team sync every Thursday 14:00",
    ),
    # a deadline extended
    (
        (
            "The funding report for the museum is due 15 March.",
            "Phew, they extended the deadline to 12 April.",
        ),
        "Deadline for funding report for the museum: 2027-03-15",
        "Deadline for funding report for the museum: 2027-04-12",
    ),
    # a dislike of a kind reversed by a pet of that kind the user is smitten with
    (
        (
            "I really dislike dogs.",
            "Well, we adopted a dog last month and I'm totally in love with him.",
        ),
        "Dislikes dogs",
        "Likes dogs",
    ),
    # the old value said to be someone else's, in a message owning a mix-up
    (
        (
            "I'm a huge Lakers fan.",
            "Oops, I mixed that up: I support the Celtics. My dad's the Lakers fan.",
        ),
        "Likes Lakers",
        None,
    ),
    # a database chosen against the one said before ("w" read as "with")
    (
        ("we're going w mysql for the db", "scratch that, the team voted sqlite instead"),
        "Uses mysql",
        "Uses sqlite",
    ),
    # a name spelled letter by letter after a slip of the phone
    (
        ("Hello, my name is Katia.", "Oops, my phone changed it, my name is Katya, with y."),
        "Name: Katia",
        "Name: Katya",
    ),
]


@pytest.mark.parametrize(("turns", "old", "new"), RETIRED)
def test_a_correction_h_left_stale_retires_the_old_line(
    tmp_path, turns: tuple[str, ...], old: str, new: str | None
) -> None:
    run = st.run_item(st.Item("T-5", "T", "correction", None, turns, (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert old not in lines, lines
    assert new is None or new in lines, lines
    assert run.why_finds.get(old), (run.why_finds, run.archive)


# (turns, the line that must stay)
KEPT = [
    # the move is the sister's: the comma's left side has another subject
    (("I live in Ghent.", "My sister is in Bruges, moved there last year."), "Lives in Ghent"),
    # "extended" with no deadline: a lease is no date of memory
    (
        ("The essay is due 15 March.", "We extended the lease to 12 April."),
        "Deadline for essay: 2027-03-15",
    ),
    # "with us" spells nothing
    (("My name is Katia.", "My name is Katia, come with us."), "Name: Katia"),
    # a tool that is no database chosen "instead": the old one is not known, nothing is written
    (("We use Redis for caching.", "The team voted Memcached instead."), "Uses Redis for caching"),
    # someone else's fan said with no mix-up owned
    (("I'm a huge Lakers fan.", "My dad's the Lakers fan too, we watch together."), "Likes Lakers"),
    # smitten with a friend's new pet
    (("I really dislike dogs.", "My sister got a dog and I'm in love with him."), "Dislikes dogs"),
    # an employer named with a friend: "as a friend" is no title
    (("I work at Siemens.", "I'm with Tom as a friend this weekend."), "Works at Siemens"),
]


@pytest.mark.parametrize(("turns", "kept"), KEPT)
def test_what_only_looks_like_those_corrections_keeps_the_line(
    tmp_path, turns: tuple[str, ...], kept: str
) -> None:
    run = st.run_item(st.Item("T-6", "T", "negative", None, turns, (), ()), tmp_path)
    assert kept in [line for _, line in run.lines], run.lines
