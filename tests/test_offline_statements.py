"""Issue 36: the offline engine learns what people tell their assistant. Each shape of a direct
statement is a class, checked here with framed and wrong-kind variants that must give nothing;
corrections go through a real Dream and leave their old line in the archive, where ``why`` finds
it; the scorer of the blind corpus (tests/offline_statements.py) can fail.

The blind corpus is scored by ``python -m bench.offline_statements`` (BENCHMARKS.md), not here: the
tuning splits take minutes through a real Dream per turn. The held-out splits (``H``, ``I``) are
never scored by a test."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts


def _facts(sentence: str) -> list[str]:
    return [f.text for f in extract_facts(sentence)]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # homes as people write them
        (
            "Just so you know, I'm in Krakow, Poland. Have been for three years now.",
            "Lives in Krakow",
        ),
        ("my flats in krakow, near the old town", "Lives in Krakow"),
        ("I split my time between Zurich and Milan, but Zurich is home.", "Lives in Zurich"),
        ("For reference I'm a Nairobi resident.", "Lives in Nairobi"),
        ("Actually we moved to Utrecht last month.", "Lives in Utrecht"),
        ("My city is Izmir, so think of Izmir when I ask.", "Lives in Izmir"),
        # work
        ("I'm the product manager for the payments team at Revolut.", "Works at Revolut"),
        ("I'm head chef at Osteria Lupo in Turin.", "Works as head chef"),
        ("Job: data scientist. Company: Grab.", "Works at Grab"),
        (
            "Got promoted to head of the science department at my school!",
            "Works as head of the science department",
        ),
        # family and pets, with a name and an event in the same clause
        ("My husband Tomasz and I have a daughter, Zosia, she's 4.", "Has a husband named Tomasz"),
        ("Our son Luca starts kindergarten in September.", "Has a son named Luca"),
        ("I have twin boys, Arjun and Rohan, they're 7.", "Has a son named Rohan"),
        ("We live in Halifax with my wife and our two boys.", "Has two sons"),
        ("we adopted a rescue greyhound last month, his names Bolt", "Has a greyhound named Bolt"),
        (
            "We have a golden retriever named Biscuit and two cats, Salt and Pepper.",
            "Has a cat named Pepper",
        ),
        ("Chico, my African grey, is 22.", "Has an african grey named Chico"),
        # diets, allergies and health, with durations
        ("I haven't eaten meat in about ten years, I'm vegetarian.", "Is vegetarian"),
        ("Vegan since 2018.", "Is vegan"),
        ("severe peanut alergy, i carry an epipen", "Allergic to peanuts"),
        ("I have type 1 diabetes, diagnosed when I was 15.", "Has type 1 diabetes"),
        ("I don't drink alcohol.", "Doesn't drink alcohol"),
        # languages
        (
            "I'm a native Polish speaker, fluent in English, and learning Japanese.",
            "Speaks English",
        ),
        ("fluent in afrikaans, english and zulu", "Speaks Zulu"),
        ("Portuguese is my first language.", "Native language: Portuguese"),
        # favourites and likes
        (
            "Big fan of Studio Ghibli, Spirited Away is my favourite film ever.",
            "Favourite film: Spirited Away",
        ),
        ("I support Fenerbahce, so don't expect me to be neutral.", "Supports Fenerbahce"),
        ("Favourite colour is teal, I put it in almost all my designs.", "Favourite colour: teal"),
        # requests about answers, however polite
        ("Could you please keep your answers short?", "Keep answers short"),
        (
            "Keep replies under 150 words unless I ask for more detail.",
            "Keep answers under 150 words",
        ),
        ("Five sentences max.", "Keep answers under 5 sentences"),
        ("Always reply in Spanish please, even if I write to you in English.", "Reply in Spanish"),
        ("No emojis. Ever.", "Never use emojis"),
        (
            "When I ask coding questions, give me the code first.",
            "Give the code first, then the explanation",
        ),
        # stacks, versions, agreements, dates
        ("Our backend runs on Django 5 with PostgreSQL 16.", "Uses PostgreSQL 16"),
        ("The mobile app is Flutter 3.22, Riverpod for state management.", "Uses Flutter 3.22"),
        ("project is on python 3.10", "Uses Python 3.10"),
        (
            "Team agreement as of today: every PR needs two approvals.",
            "Team agreement: every PR needs two approvals",
        ),
        (
            "Sprint planning is every other Monday at 10.",
            "Team cadence: Sprint planning every other Monday at 10",
        ),
        (
            "I run payroll every other Friday for my staff.",
            "Routine: runs payroll every other Friday for the user's staff",
        ),
    ],
)
def test_a_shape_of_direct_statement(sentence: str, expected: str) -> None:
    assert expected in _facts(sentence), _facts(sentence)


#: The same shapes framed, hedged, someone else's, one-off or of the wrong kind: nothing.
NOTHING = [
    "I'm in Tokyo this week for a conference.",
    "I'm in London.",
    "I left Berlin last year.",
    "I left Sarah.",
    "My neighbour has a dog, Rex.",
    "My son has a bearded dragon called Spike.",
    "My ex-wife lives in Paris.",
    "My wife is Colombian.",
    "I might move to Berlin someday.",
    "My colleague Sven is vegan.",
    "If I ever get a dog, which breeds are OK?",
    "Translate this: 'I live in Amsterdam and I love cycling.'",
    "Can you give me the code?",
    "When you are done, send me the file.",
    "Please be patient with my english.",
    "We're moving to Berlin.",
    "We're going with Berlin for the offsite.",
    "I'm allergic to drama.",
    "I have a headache.",
    "I live in Berlin, sometimes.",
    "I'm vegetarian, mostly.",
    "I'm a total movie fan, he said.",
    "Sorry, it's Sarah here.",
    "Either I learn Spanish or I take up the guitar this year.",
    "i live in hope",
    "I work at home.",
]


def test_framed_hedged_and_wrong_kind_give_nothing() -> None:
    for sentence in NOTHING:
        assert _facts(sentence) == [], sentence


def test_a_value_said_alone_corrects_the_line_it_means() -> None:
    """ "its Joao actually": a ``Now:`` fact, resolved against memory's lines only when one line
    holds a value of that kind and the old name is said, spelled alike or called a name."""
    from reverie.llm.offline.rules import resolve_correction

    files = {"USER": ["Name: Jose", "Lives in Porto"], "MEMORY": [], "SOUL": []}
    assert resolve_correction("Now: name Joao", files) == ("USER", "Name: Jose", "Name: Joao")
    two = {"USER": ["Name: Jose", "Has a dog named Rex"], "MEMORY": [], "SOUL": []}
    assert resolve_correction("Now: name Sarah", two) is None  # neither is meant
    assert resolve_correction("Now: name Rexy; said: Rex", two) == (
        "USER",
        "Has a dog named Rex",
        "Has a dog named Rexy",
    )
    dated = {"MEMORY": ["Deadline for launch: 2027-05-20"], "USER": [], "SOUL": []}
    assert resolve_correction("Now: date 2027-06-03", dated) == (
        "MEMORY",
        "Deadline for launch: 2027-05-20",
        "Deadline for launch: 2027-06-03",
    )
    assert _facts("Sorry, it's Sarah here.") == []  # no correction of a name without one said


CORRECTIONS = [
    (
        "I live in Rotterdam.",
        "Actually we moved to Utrecht last month.",
        "Lives in Rotterdam",
        "Lives in Utrecht",
    ),
    (
        "I'm a frontend developer at Booking.com.",
        "Update: I left Booking, I'm at Adyen now, same role.",
        "Works at Booking",
        "Works at Adyen",
    ),
    ("My name is Jose.", "its Joao actually, autocorrect changed it", "Name: Jose", "Name: Joao"),
    (
        "We're using MongoDB for the new analytics service.",
        "scratch that, we're going with ClickHouse instead.",
        "Uses MongoDB for the new analytics service",
        "Uses ClickHouse",
    ),
    (
        "Our launch deadline is May 20.",
        "Deadline got moved, launch is now June 3.",
        "Deadline for launch: 2027-05-20",
        "Deadline for launch: 2027-06-03",
    ),
    (
        "I'm learning Japanese.",
        "I dropped Japanese and switched to Korean.",
        "Is learning Japanese",
        "Is learning Korean",
    ),
]


@pytest.mark.parametrize(("first", "second", "old", "new"), CORRECTIONS)
def test_a_correction_retires_the_old_line_to_the_archive_where_why_finds_it(
    tmp_path, first: str, second: str, old: str, new: str
) -> None:
    item = st.Item("T-1", "T", "correction", None, (first, second), (), ())
    run = st.run_item(item, tmp_path)
    lines = [line for _, line in run.lines]
    assert new in lines and old not in lines, lines
    assert f"- {old}" in run.archive, run.archive  # archived, with its reason beside it
    assert run.why_finds.get(old), run.why_finds  # and why finds it there


def test_decisions_about_two_services_both_land(tmp_path) -> None:
    """Only a correction takes a database attribute from its text: two plain decisions about two
    services are two lines (the crash harness's entries found a second one dropped as unsure)."""
    first, second = (
        "We decided to use PostgreSQL for service s1.",
        "We decided to use Redis for service s2.",
    )
    run = st.run_item(st.Item("T-2", "T", "project_stack", None, (first, second), (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert any("PostgreSQL" in ln for ln in lines) and any("Redis" in ln for ln in lines), lines


def test_an_item_from_a_kept_workspace_is_the_item_run_whole(tmp_path) -> None:
    """``run_item`` starts an item from a copy of the workspace its first turns left in an earlier
    item (``_STARTS``): what it gives is what the same turns give from a new workspace."""
    turns = ("I live in Rotterdam.", "Actually we moved to Utrecht last month.")
    days = {str(date.today()), str(datetime.now(UTC).date())}
    st._STARTS.clear()
    whole = st.run_item(st.Item("T-3", "T", "correction", None, turns, (), ()), tmp_path)
    assert turns[:1] in st._STARTS  # its first turn's workspace is kept
    st.run_item(st.Item("T-4", "T", "ordinary", None, (turns[0], "Rotterdam was rainy."), (), ()))
    kept = st.run_item(st.Item("T-3", "T", "correction", None, turns, (), ()), tmp_path)
    assert ("USER.md", "Lives in Utrecht") in whole.lines  # the correction took
    days |= {str(date.today()), str(datetime.now(UTC).date())}

    def undated(archive: str) -> str:  # the archive's day is the run's: midnight may pass between
        return re.sub("|".join(days), "DAY", archive)

    assert (kept.lines, undated(kept.archive), kept.why_finds, kept.turns) == (
        whole.lines,
        undated(whole.archive),
        whole.why_finds,
        whole.turns,
    )


def test_the_judge_counts_no_wrong_line_as_right() -> None:
    assert st.matches(
        "USER.md", "Lives in Krakow", "USER.md", "Lives in Krakow, Poland, since 2019"
    )
    assert st.matches(
        "USER.md", "Lives in Saigon", "USER.md", "Lives in Ho Chi Minh City (District 3)"
    )
    assert st.matches("USER.md", "Has a wife", "USER.md", "Married (has a wife)")
    assert not st.matches("USER.md", "Lives in Hanoi", "USER.md", "Previously lived in Hanoi")
    assert not st.matches(
        "USER.md", "Lives in Milan", "USER.md", "Spends part of their time in Milan"
    )
    assert not st.matches(
        "SOUL.md", "Lives in Krakow", "USER.md", "Lives in Krakow"
    )  # the file counts
    assert not st.matches(
        "USER.md", "Has a partner named Jonas", "USER.md", "Partner is Tom; not married"
    )
    assert not st.matches("USER.md", "Is vegetarian", "USER.md", "Pescatarian")
    deadline = "memory/MEMORY.md"
    assert st.matches(
        deadline, "Deadline for launch: 2027-06-03", deadline, "Launch deadline is June 3"
    )
    assert not st.matches(
        deadline, "Deadline for launch: 2027-05-20", deadline, "Launch deadline is June 3"
    )


def test_the_held_out_split_is_kept_apart() -> None:
    """A held-out split is scored only by the bench, its first run recorded in BENCHMARKS.md
    before any rule reads it: it is no tuning split, no verdict was read by hand for it, and no
    test scores it. Every split in the data is one or the other (none is tuned on by accident), the
    tuning splits are ``A`` to ``Z``, ``AA``, ``BB`` and ``CC`` (``C`` to ``CC`` opened after their first runs);
    none is held out between rounds."""
    assert st.TUNING == (*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "AA", "BB", "CC") and st.HELD_OUT == ()
    assert not set(st.TUNING) & set(st.HELD_OUT)
    on_disk = {p.stem.removeprefix("writer-") for p in st.DATA.glob("writer-*.jsonl")}
    assert on_disk <= {*st.TUNING, *st.HELD_OUT}, on_disk
    judged = {item_id.split("-", 1)[0] for item_id, _ in st.read_verdicts()}
    assert not judged & set(st.HELD_OUT), judged
    for writer in (*st.TUNING, *st.HELD_OUT):
        if writer in st.TUNING or (st.DATA / f"writer-{writer}.jsonl").is_file():
            assert {i.writer for i in st.items(writer)} == {writer}
