"""Issue 36, ninth round: the kind rules read by mechanism, not by phrase. A value's kind is known
from data (a technology from ``data/technologies.txt``), so a clause about the user's own work
gives a line for each tool it names however it is worded; each class is checked with fresh
sentences written for these tests (not the corpus's) and look-alikes that must give nothing.

Each case runs ``extract_facts`` on one message (cheap: no workspace, no Dream).
"""

from __future__ import annotations

from datetime import date

import pytest

from reverie.llm.offline import kinds
from reverie.llm.offline.rules import MEMORY, canon, extract_facts
from reverie.llm.offline.rules.values import is_tech


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message)]


# -- the stack named: each technology of the data in a clause about the user's own work ---------------
STACKS = [
    ("the billing service is elixir 1.16 + phoenix, postgres 15 underneath", ["Uses Postgres 15"]),
    ("our thesis pipeline is snakemake with polars, all on the uni's SLURM box", []),
    ("Mobile client: kotlin + jetpack compose, ktor on the server", ["Uses Kotlin"]),
    (
        "We host everything on Hetzner with Docker Compose and Caddy in front",
        ["Uses Caddy"],
    ),
    ("my side project is a Svelte app on Cloudflare Workers with Supabase", ["Uses Supabase"]),
    ("dashboards are Grafana, metrics in Prometheus 2.50", ["Uses Grafana"]),
    ("I keep the timesheets in Google Sheets and the invoices in Xero", ["Uses Google Sheets"]),
    ("Settled: TypeScript everywhere, Deno 1.40 for the scripts", ["Uses Deno 1.40"]),
]


@pytest.mark.parametrize(("message", "expected"), STACKS)
def test_a_stack_is_read_by_its_tools_however_it_is_worded(
    message: str, expected: list[str]
) -> None:
    got = facts(message)
    for line in expected:
        assert line in got, (message, got)
        assert canon(line).target == MEMORY
    assert all(not f.startswith("Uses ") or canon(f).target == MEMORY for f in got)


STACK_LOOK_ALIKES = [
    "my brother's startup runs on Django and Postgres",  # someone else's
    "Our CTO wants everything in Rust",  # someone else's call
    "should we move the API to Go 1.22?",  # a question
    "we might try Kafka for the events next quarter",  # a plan
    "We compared Vue and Svelte for a week",  # a trial, not a stack
    "we used to be on Heroku with MongoDB",  # a past
    "no more Jenkins for us, it's dead",  # a tool given up
    "I'm learning Rust and Haskell this year",  # learning, not a stack
    "I love Python, honestly the best language",  # a like
    "Write me a Python script that renames photos",  # a task
    "Give code examples in TypeScript by default",  # a rule for the agent
    "we go to the market on Saturdays",  # "go" as a word
    "our unity as a team matters to me",  # "unity" as a word
    "We farm near Swift Current in Saskatchewan",  # a place's name
    "I'm a data engineer at Snowflake",  # an employer
    "We have a rabbit named Pip.",  # a pet's name
    "We had to rehome Pip, my son is allergic to him.",  # the same pet (R-202's first run: "Uses pip")
    "our cat is called Rust and the dog Ruby",  # pets' names
    "We named the baby Julia after my gran",  # a child's name
]


@pytest.mark.parametrize("message", STACK_LOOK_ALIKES)
def test_a_tool_named_outside_the_users_own_stack_gives_no_stack_line(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith("Uses ")], (message, got)


def test_a_tool_said_as_dropped_or_old_is_not_in_use() -> None:
    got = facts(
        "Backend is FastAPI now, Flask is out, and we're leaving the old Perl scripts alone"
    )
    assert not [f for f in got if f.startswith("Uses ") and ("Flask" in f or "Perl" in f)], got


def test_the_technology_list_spells_each_tool_as_its_makers_do() -> None:
    assert kinds.technology("postgresql") == ("PostgreSQL", False)
    assert kinds.technology("next.js") == ("Next.js", False)
    assert kinds.technology("go") == (
        "Go",
        True,
    )  # a common word too: needs its capital or a version
    assert kinds.technology("lisbon") is None


# -- a dated deliverable, however it is said ----------------------------------------------------------
SAID = date(2027, 1, 4)
DEADLINES = [
    ("dissertation due 3 may, send help", "Deadline for dissertation: 2027-05-03"),
    ("The funding report has to be in by 12 March.", "Deadline for funding report: 2027-03-12"),
    ("our beta must be live before April 2", "Deadline for beta: 2027-04-02"),
    ("the app launches on the 9th of June, no slipping", "Deadline for app: 2027-06-09"),
]


@pytest.mark.parametrize(("message", "line"), DEADLINES)
def test_a_deadline_is_read_from_any_cue_that_something_is_due(message: str, line: str) -> None:
    got = [f.text for f in extract_facts(message, SAID)]
    assert line in got, (message, got)
    assert canon(line).target == MEMORY


DEADLINE_LOOK_ALIKES = [
    "my brother's dissertation is due 3 May",  # someone else's
    "is the funding report due 12 March?",  # a question
    "the report might be due 12 March",  # unsure
    "she has to be in by 12 March",  # a person
    "Lagos opens on 3 May",  # a place
    "rent is due sometime in spring",  # no single day
]


@pytest.mark.parametrize("message", DEADLINE_LOOK_ALIKES)
def test_no_deadline_from_a_look_alike(message: str) -> None:
    got = [f.text for f in extract_facts(message, SAID)]
    assert not [f for f in got if f.startswith("Deadline")], (message, got)


# -- a value's kind from data: places of several words, roles with their class ----------------------
@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("I live in Vina del Mar", "Lives in Vina del Mar"),
        ("I'm originally from Da Nang", "From Da Nang"),
        ("I'm a Year 2 teacher at a primary school", "Works as Year 2 teacher"),
        ("I'm a grade 5 teacher", "Works as grade 5 teacher"),
    ],
)
def test_a_value_of_its_kind_is_read_whatever_its_words(message: str, line: str) -> None:
    assert line in facts(message)


def test_a_place_of_several_words_is_no_tool_and_a_request_is_no_family() -> None:
    assert not is_tech("Port Harcourt") and is_tech("Django 5")
    assert facts("I live in May") == []  # a month, no town
    assert "Has no children" not in facts("no kids, please")
    assert "Has no children" in facts("Married to Tomasz, no kids")


# -- a relative or a pet by name, however the sentence goes on --------------------------------------
@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("My older brother Tariq runs a garage in Leeds", "Has a brother named Tariq"),
        ("Oksana (my daughter) is in year 9", "Has a daughter named Oksana"),
        ("I have a twin brother, Emeka.", "Has a brother named Emeka"),
        ("my baby girl Zara is teething like crazy", "Has a daughter named Zara"),
        ("so my fiancee Ines hates the venue", "Engaged to Ines"),
        ("Our rabbit Zuzu hides under the sofa all day", "Has a rabbit named Zuzu"),
        ("my greyhound Pixel sleeps twenty hours a day", "Has a greyhound named Pixel"),
    ],
)
def test_a_relative_or_a_pet_is_read_by_its_name_beside_its_kin(message: str, line: str) -> None:
    assert line in facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "my nephew made it for me last year",  # a verb, not a name
        "my brother's friend Tom is visiting",  # someone else's
        "my cousin Dana called yesterday",  # one event
        "My dog Bruno chewed my shoes again",  # one event
        "my cat Food bowl is empty",  # a thing of the pet's
        "is my sister Maya coming tonight?",  # a question
        "my boss Carlos hates Mondays",  # no relative
    ],
)
def test_no_relative_or_pet_from_a_look_alike(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith(("Has a", "Engaged"))], (message, got)
