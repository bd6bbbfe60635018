"""Issue 36, eighth round: the corrections the first runs of N and O left stale, as classes (a new
value in a one-value slot said with a cue of change, an ending said beside it), and recall in the
kinds of family (a list of children with names and ages). The sentences are written for these
tests, not taken from the corpus; each class has look-alikes that must keep their line or give
nothing. A real Dream runs only where a line must leave (or stay): one case per class of
correction; the rest is read by ``extract_facts``.
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message, st.SAID_ON)]


# -- corrections, each through a real Dream: the old line leaves for the archive where why finds it
# (turns, the old line, the new line or None)
RETIRED = [
    # a move to a town whose first word reads as a tool's ("Port …")
    (
        ("I live in Enugu.", "Actually we moved to Port Elizabeth in March for my wife's work."),
        "Lives in Enugu",
        "Lives in Port Elizabeth",
    ),
    # the move "ended up" in, typed in lower case with "btw" after it
    (
        ("Based in Osaka.", "we ended up moving to nara btw, cheaper rent"),
        "Lives in Osaka",
        "Lives in Nara",
    ),
    # the old home said to be left, the move's subject left out, after an opener
    (
        ("I live in Kano.", "oh and update, im not in kano anymore, relocated to port harcourt"),
        "Lives in Kano",
        "Lives in Port Harcourt",
    ),
    # a database chosen by someone else, with "scratch that … we're switching"
    (
        (
            "We're using MongoDB for the booking app.",
            "scratch that, our CTO wants PostgreSQL, we're switching",
        ),
        "Uses MongoDB for the booking app",
        "Uses PostgreSQL",
    ),
    # a host migrated off, "ended up migrating"
    (
        ("We host everything on Netlify.", "We ended up migrating off Netlify to Vercel in May."),
        "Hosted on Netlify",
        "Hosted on Vercel",
    ),
    # a version bumped for a named part of the project
    (
        ("Our backend is on Node 18.", "we bumped the backend to Node 22 last week"),
        "Uses Node 18",
        "Uses Node 22",
    ),
    # a deadline said as "new deadline <date>" with no verb
    (
        ("The grant report deadline is 3 June.", "Funder extended it, new deadline 24 June."),
        "Deadline for grant report: 2027-06-03",
        "Deadline for grant report: 2027-06-24",
    ),
    # a language given up as "stopped", the new one "switched to"
    (
        ("I'm learning Italian.", "stopped italian, switched to greek because of my in-laws"),
        "Is learning Italian",
        "Is learning Greek",
    ),
    # engaged to the girlfriend named first
    (
        ("My girlfriend Lucia is a vet.", "Lucia and I got engaged on Sunday!!"),
        "Has a girlfriend named Lucia",
        "Engaged to Lucia",
    ),
    # the name to call the user by, said anew: the agent's old line leaves too
    (
        ("Call me Katherine.", "actually just Kate is fine, that's what my friends use"),
        "Call the user Katherine",
        "Goes by Kate",
    ),
    # the reply language "fine again"
    (
        ("Please answer in German.", "Actually English is fine again, the exam is over."),
        "Reply in German",
        "Reply in English",
    ),
    # a meeting "'s moving", after "turns out"
    (
        ("Our retro is at 4pm.", "Turns out retro's moving to 2:30 from next sprint."),
        "Team cadence: retro at 4pm",
        "Team cadence: retro at 2:30",
    ),
    # an allergy that was a wrong label
    (
        ("I'm allergic to latex.", "Turns out I'm not allergic to latex, the rash was from soap."),
        "Allergic to latex",
        None,
    ),
    # a team rule changed by a vote: the old agreement on the same thing
    (
        (
            "Team rule: every merge request needs two reviewers.",
            "the team voted, small merge requests only need one reviewer now",
        ),
        "Team agreement: every merge request needs two reviewers",
        "Team agreement: small merge requests only need one reviewer",
    ),
]


@pytest.mark.parametrize(("turns", "old", "new"), RETIRED)
def test_a_correction_retires_the_old_line_where_why_finds_it(
    tmp_path, turns: tuple[str, ...], old: str, new: str | None
) -> None:
    run = st.run_item(st.Item("T-11", "T", "correction", None, turns, (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert old not in lines, lines
    assert new is None or new in lines, lines
    assert run.why_finds.get(old), (run.why_finds, run.archive)


# (turns, the line that must stay): what only looks like one of those changes
KEPT = [
    # someone else got engaged
    (
        ("My girlfriend Lucia is a vet.", "Sam and Jo got engaged on Sunday!!"),
        "Has a girlfriend named Lucia",
    ),
    # another team rule voted on: nothing shared with the old one
    (
        (
            "Team rule: every merge request needs two reviewers.",
            "the team voted, no meetings on Fridays now",
        ),
        "Team agreement: every merge request needs two reviewers",
    ),
    # a name someone else calls the user, said with no correction
    (("Call me Katherine.", "my brother calls me Kit"), "Call the user Katherine"),
]


@pytest.mark.parametrize(("turns", "kept"), KEPT)
def test_what_only_looks_like_a_correction_keeps_the_line(
    tmp_path, turns: tuple[str, ...], kept: str
) -> None:
    run = st.run_item(st.Item("T-12", "T", "negative", None, turns, (), ()), tmp_path)
    assert kept in [line for _, line in run.lines], run.lines


# -- the shapes read, by extract_facts: (message, facts it must give)
SHAPES = [
    ("I moved to Port Louis last year.", ["Lives in Port Louis"]),
    ("we ended up moving to kobe btw", ["Lives in Kobe"]),
    ("We ended up migrating off Heroku to Fly.io", ["Now: swap Fly.io; said: Heroku"]),
    ("we bumped the API to Go 1.22", ["Now: version Go 1.22"]),
    ("new deadline 9 March", ["Now: date 2027-03-09"]),
    ("standup's moving to 9:45", ["Now: time 9:45 standup"]),
    ("stopped french, doing spanish now", ["No longer learning French", "Is learning Spanish"]),
    ("Tom and I got engaged last night", ["Engaged to Tom"]),
    # a list of the user's children: each child whose sex is said, and the count
    (
        "my kids are nia, shes 9, and tunde who is 6",
        ["Has a daughter named Nia", "Has two children"],
    ),
    (
        "We have two girls, Ines who's 8 and Clara who's 5.",
        ["Has a daughter named Ines", "Has a daughter named Clara", "Has two daughters"],
    ),
    (
        "got twin boys omar and ali, theyre 4",
        ["Has a son named Omar", "Has a son named Ali"],
    ),
    (
        "I've got two boys, Theo who's 10 and in year 5, and Max who's 7.",
        ["Has a son named Theo", "Has a son named Max"],
    ),
    (
        "me and my wife anna have two kids luis is eight and eva is six",
        ["Has two children"],
    ),
]


@pytest.mark.parametrize(("message", "expected"), SHAPES)
def test_a_shape_of_a_class_is_read(message: str, expected: list[str]) -> None:
    got = facts(message)
    assert all(e in got for e in expected), got


@pytest.mark.parametrize(
    "message",
    [
        # someone else's children, or no list of names
        "my sister has two kids, Tom and Ann",
        "the kids are Tom and Ann",
        "Our kids are grown now",
        # someone else's move, or a tool moved to
        "My cousin moved to Port Harcourt",
        "when we moved to Port Harcourt the kids were small",
        "we ended up moving to azure",
        # a wish of someone's with no switch said
        "the client wants Postgres",
        # someone else gave up a language
        "My son stopped german, switched to dutch",
        # a short name praised, not a name for the user
        "honestly just pasta is fine",
    ],
)
def test_look_alikes_of_those_shapes_give_no_line(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if not f.startswith(("Gone:", "Now:"))], got


# -- languages as items of a list, each with its level: (message, facts it must give)
LANGUAGE_ITEMS = [
    (
        "Native Tagalog, fluent English, Spanish intermediate.",
        ["Native language: Tagalog", "Speaks fluent English", "Speaks intermediate Spanish"],
    ),
    (
        "my languages: greek native, english fluent",
        ["Native language: Greek", "Speaks fluent English"],
    ),
    (
        "first language is Igbo, fluent in French, learning Portuguese",
        ["Native language: Igbo", "Speaks fluent French", "Is learning Portuguese"],
    ),
    ("Mother tongue is Amharic but I work in English", ["Native language: Amharic"]),
    ("Conversational Korean, basic Thai", ["Speaks conversational Korean", "Speaks basic Thai"]),
]


@pytest.mark.parametrize(("message", "expected"), LANGUAGE_ITEMS)
def test_languages_said_as_a_list_with_levels(message: str, expected: list[str]) -> None:
    got = facts(message)
    assert all(e in got for e in expected), got


@pytest.mark.parametrize(
    "message",
    [
        "I'm a Kyoto native",  # a place, not a language
        "my son is fluent in French",  # someone else's
        "we need fluent English speakers",
        "She's a native English speaker",
        "English native speakers are hard to find",
        "I met Anna, learning French at the institute",  # no list of the user's languages
    ],
)
def test_look_alikes_of_a_language_list_give_nothing(message: str) -> None:
    assert facts(message) == []


# -- a meeting's time with a time zone's abbreviation, or said in words after "is"
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("daily standup 9.15am WAT", "Team cadence: Daily standup 9:15am"),
        ("daily standup 8.45am CET mon-fri", "Team cadence: Daily standup 8:45am on weekdays"),
        ("team sync 10:30 PST, weekdays", "Team cadence: Team sync 10:30 on weekdays"),
    ],
)
def test_a_meeting_with_a_time_zone_abbreviation_is_read(message: str, expected: str) -> None:
    assert expected in facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "standup 9:30 ABC daily",  # no time zone
        "standup at 9:30 EST tomorrow",  # once, not a cadence
    ],
)
def test_look_alikes_of_a_meeting_with_a_zone_give_nothing(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith("Team cadence")]


def test_twins_are_named_not_counted() -> None:
    # "twins" says more than "two": the names are the lines, no count beside them
    got = facts("we have twin girls, Noor and Lina, theyre 5")
    assert "Has a daughter named Noor" in got and "Has two daughters" not in got, got


# -- a stack said as "X is Y" part after part, and where it is deployed
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Backend is Flask, frontend is Svelte 4", ["Uses Flask", "Uses Svelte 4"]),
        (
            "backend is Laravel 11 with MySQL 8, deployed on a Linode server",
            ["Uses Laravel 11", "Uses MySQL 8", "Deployed on a Linode server"],
        ),
    ],
)
def test_a_stack_said_part_after_part_is_read(message: str, expected: list[str]) -> None:
    got = facts(message)
    assert all(e in got for e in expected), got


@pytest.mark.parametrize(
    "message",
    [
        "my brother's backend is Rails, frontend is React",  # someone else's stack
        "backend is Django, deployed on a farm",  # no host
    ],
)
def test_look_alikes_of_a_stack_give_no_other_part(message: str) -> None:
    got = facts(message)
    assert "Uses React" not in got and not [f for f in got if f.startswith("Deployed")], got


# -- a release's cadence, and a code freeze said by the release it comes before
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "We deploy to production every other Tuesday, code freeze is the Monday before.",
            [
                "Team cadence: deploy to production every other Tuesday",
                "Team cadence: code freeze on the Monday before each release",
            ],
        ),
        ("prod release is every second friday", ["Team cadence: prod release every second friday"]),
    ],
)
def test_a_release_cadence_and_its_freeze_are_read(message: str, expected: list[str]) -> None:
    got = facts(message)
    assert all(e in got for e in expected), got


@pytest.mark.parametrize(
    "message",
    [
        "code freeze is the Wednesday before",  # before what: no release said
        "my sister said the freeze is the Friday before, they release every month",
    ],
)
def test_a_freeze_with_no_release_of_the_users_gives_nothing(message: str) -> None:
    assert not [f for f in facts(message) if "freeze" in f], facts(message)
