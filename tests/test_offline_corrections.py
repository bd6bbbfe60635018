"""Issue 36: corrections as classes, whatever kind of line they correct. A value swapped for
another ("X not Y", "not Y, X", "Pip is a gerbil, not a hamster", "I meant X", "switched from Y to
X") replaces the one line holding the old value (or, said alone, one of its kind); a line taken
back by its words ("forget the metric thing", "we cancelled Datadog", "I don't have the rabbit
anymore", "stop ending with a summary") leaves for the archive with the user's words; a like said
against a dislike of the same thing, a convention for the agent said anew, a nickname spelled
anew replace their line. Sentences that only look like one correct nothing. The sentences here
are this file's own (not the blind corpus's); each runs the real path (archive, history, a real
Dream per turn: ``tests/offline_statements.run_item``)."""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts

# (first turn, later turn, the old line, the new line or None when only the old one leaves)
CORRECTED = [
    (
        "I work at Accenture as a consultant.",
        "sorry, PwC not Accenture",
        "Works at Accenture",
        "Works at PwC",
    ),
    ("I live in Bristol.", "not Bristol, Bath. Typo.", "Lives in Bristol", "Lives in Bath"),
    (
        "I have a hamster named Pip.",
        "Oops, Pip is a gerbil, not a hamster.",
        "Has a hamster named Pip",
        "Has a gerbil named Pip",
    ),
    (
        "My native language is Spanish.",
        "Sorry, I meant Catalan.",
        "Native language: Spanish",
        "Native language: Catalan",
    ),
    (
        "I have type 2 diabetes.",
        "Sorry, I meant type 1.",
        "Has type 2 diabetes",
        "Has type 1 diabetes",
    ),
    (
        "We're on Postgres 16.",
        "We switched from Postgres to MySQL.",
        "Uses Postgres 16",
        "Uses MySQL",
    ),
    (
        "Our CI runs on Travis.",
        "We moved from Travis to CircleCI last month.",
        "CI runs on Travis",
        "CircleCI",
    ),
    ("Use metric units.", "forget the metric thing please", "Use metric units", None),
    (
        "I have a rabbit called Bun.",
        "I don't have the rabbit anymore, she lives with my sister.",
        "Has a rabbit named Bun",
        None,
    ),
    (
        "We use Datadog for monitoring.",
        "We cancelled Datadog last quarter.",
        "Uses Datadog for monitoring",
        None,
    ),
    (
        "Always end with a summary.",
        "Stop ending with a summary, please.",
        "Always end with a summary",
        None,
    ),
    (
        "I don't like jazz.",
        "I like jazz now, my partner converted me.",
        "Dislikes jazz",
        "Likes jazz",
    ),
    (
        "Use British spelling.",
        "switch to american spelling please",
        "Use British spelling",
        "Use american spelling",
    ),
    ("Call me Kat.", "It's Cat with a C, actually.", "Goes by Kat", "Goes by Cat"),
    (
        "My boyfriend is called Marco.",
        "Marco's my husband now, we got married in June.",
        "Has a boyfriend named Marco",
        "Has a husband named Marco",
    ),
    ("fyi based in leeds", "correction, york now", "Lives in Leeds", "Lives in York"),
]


@pytest.mark.parametrize(("first", "later", "old", "new"), CORRECTED)
def test_a_correction_of_any_kind_retires_the_old_line_into_the_archive(
    tmp_path, first: str, later: str, old: str, new: str | None
) -> None:
    before = st.run_item(st.Item("T-0", "T", "fact", None, (first,), (), ()), tmp_path)
    assert old in [line for _, line in before.lines], (
        before.lines
    )  # the case states what it corrects
    run = st.run_item(st.Item("T-1", "T", "correction", None, (first, later), (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert old not in lines, lines
    assert f"- {old} · " in run.archive, run.archive
    assert run.why_finds.get(old), run.why_finds
    if new is not None:
        assert new in lines or (" " not in new and any(new in line for line in lines)), lines


# (first turn, later turn): looks like a correction, corrects nothing
LOOKALIKES = [
    ("I live in Bristol.", "I like tea, not coffee."),
    ("I work at Accenture.", "it's fine, not a problem"),
    ("Use metric units.", "forget it"),
    ("Our standup is every Monday at 9am.", "We cancelled the standup today."),
    ("I have a dog named Rex.", "I don't have the time anymore."),
    ("We use Python and Java.", "Python, not Java, for the new service."),
    ("I live in Paris.", "The food here in Rome is amazing, we're visiting for a week."),
    ("I live in Paris.", "Lyon now? No, just for the weekend."),
    ("Call me Kat.", "It's Tuesday, actually."),
    ("I live in London.", "My brother moved from London to Leeds."),
    ("We use Redis for caching.", "My friend's team replaced Redis with Memcached."),
    ("I like jazz.", "forget the jazz, let's talk about rock"),
    ("Call me Sam.", "Sorry, I meant London."),
    ("I like jazz.", "My brother doesn't like jazz."),
]


@pytest.mark.parametrize(("first", "later"), LOOKALIKES)
def test_what_only_looks_like_a_correction_corrects_nothing(
    tmp_path, first: str, later: str
) -> None:
    before = st.run_item(st.Item("T-2", "T", "fact", None, (first,), (), ()), tmp_path)
    assert before.lines
    run = st.run_item(st.Item("T-3", "T", "negative", None, (first, later), (), ()), tmp_path)
    for line in before.lines:
        assert line in run.lines, run.lines
    assert "· " not in run.archive, run.archive


def test_homes_said_as_people_note_them() -> None:
    def facts(sentence: str) -> list[str]:
        return [f.text for f in extract_facts(sentence)]

    assert facts("I volunteer at an animal shelter here in Porto on Saturdays.") == [
        "Lives in Porto"
    ] or "Lives in Porto" in facts("I volunteer at an animal shelter here in Porto on Saturdays.")
    assert "Lives in Lahore" in facts("lahore based btw")
    assert "Lives in Cluj" in facts(
        "We've finally settled in Cluj after two years of moving around."
    )
    assert facts("The weather here in Rome is lovely, we're on holiday.") == []
    assert facts("cloud based") == []
    # a title is no name ("Goes by Dr"); with its surname it is how to address the user
    assert facts("Please address me as Dr. Okafor from now on.") == ["Call the user Dr. Okafor"]


def test_every_canonical_template_reads_a_line_of_its_own() -> None:
    """A template whose slot names no captured value ('use:temperature') reads its line: the slot
    was filled from group 1 even when it had no '{1}', so "Use Celsius" raised IndexError inside
    the engine (found by held-out split F's first run)."""
    from reverie.llm.offline.rules.templates import canon

    assert canon("Use celsius").slot == "use:temperature"
    assert canon("Use metric units").slot == "use:units"
    assert canon("Favourite band: Radiohead").slot == "favourite:band"
