"""Issue 36, round 12b: a message typed without punctuation (dictation, a phone) is read as its
punctuated form is. Its next clause opens with a new subject ("… i rent a flat") or with the user's
subject left out ("… been here since uni"), and a request opens a sentence of its own ("… anyway
can you help me plan …"): ``clauses.run_on_punctuated`` puts the comma or the full stop there. A
city typed before its region in lower case ("halifax nova scotia") is a home as "Halifax, Nova
Scotia" is.

Every sentence here was written for these tests, not taken from a corpus. The look-alikes are in the
same words and must give the same lines before and after: a run-on that is a question, a hedge,
someone else's, the past, or no home at all.
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import clauses, extract_facts
from reverie.llm.offline.rules.clauses import run_on_punctuated


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message) if not f.text.startswith("Gone: ")]


RUN_ONS = [
    (
        "i live in lisbon been here since my masters so about six years and i cycle to work",
        "Lives in Lisbon",
    ),
    ("i live in toronto been living here since 2015 and honestly love it", "Lives in Toronto"),
    ("we live in dublin its grand but the rent is mad and we might move soon", None),
    ("i live in seattle its so rainy most of the year but we love the coffee", "Lives in Seattle"),
    (
        "so i live in perth western australia and its boiling half the year anyway can you "
        "suggest some cold lunches for this week",
        "Lives in Perth, Western Australia",
    ),
    ("I live in Berlin been here for ten years now and I work as a nurse", "Lives in Berlin"),
]


@pytest.mark.parametrize(("message", "line"), [r for r in RUN_ONS if r[1]])
def test_a_home_in_a_message_typed_without_punctuation(message: str, line: str) -> None:
    assert line in facts(message), (message, facts(message))


#: A city typed before its region of two words or more, in lower case, as "Halifax, Nova Scotia".
CITY_AND_REGION = [
    ("i live in darwin northern territory with my husband", "Lives in Darwin, Northern Territory"),
    ("we live in sydney new south wales", "Lives in Sydney, New South Wales"),
]


@pytest.mark.parametrize(("message", "line"), CITY_AND_REGION)
def test_a_city_typed_before_its_region(message: str, line: str) -> None:
    assert line in facts(message), (message, facts(message))


@pytest.mark.parametrize(("message", "line"), [r for r in RUN_ONS if r[1]])
def test_the_run_on_gives_what_its_punctuated_form_gives(message: str, line: str) -> None:
    """The run-on's home line is the line of the same words with their commas and full stops."""
    punctuated = " ".join(run_on_punctuated(message))
    assert punctuated != message
    assert line in facts(punctuated)


def test_a_plan_in_the_run_on_still_reaches_its_own_clause_only() -> None:
    # "we might move soon" is a plan of its own; the home said before it holds ("we live in
    # dublin" is a household's home) or not, as the punctuated form says
    message = RUN_ONS[2][0]
    assert facts(message) == facts(" ".join(run_on_punctuated(message)))


#: Messages in the same words that must change no line: each gives the same facts with and without
#: the run-on reading (``run_on_punctuated`` off), and no home.
LOOK_ALIKES = [
    "I left my keys at work been looking for them all morning and i'm late",
    "so i live for the weekends its the only thing that keeps me going these days",
    "do you think i should live in lisbon been thinking about it since my masters",
    "can you tell me if i live in the right place been wondering for years now",
    "my sister lives in lisbon been there since her masters and she loves it",
    "i lived in lisbon been back in porto since 2019 and i miss it",
    "i live in lisbon i think been here since uni or so not sure anymore",
    "i'd love to live in lisbon been dreaming of it for ages and its so sunny",
    "i live in a flat that i rent from my uncle its tiny but cheap",
    "i live in hope been saying that since uni and its never worked",
    "i visited lisbon last week been meaning to tell you its amazing",
    "i live in london south east side of the city and i cycle everywhere",
    "The inventory app stores its data in Postgres and its backups in a bucket.",
    "i gave a few talks at the shelter i volunteer at its been really fulfilling",
    "our team in lisbon keeps its roadmap in notion and its docs in confluence",
]


@pytest.mark.parametrize("message", LOOK_ALIKES)
def test_a_look_alike_learns_no_home(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith("Lives in")], (message, facts(message))


@pytest.mark.parametrize(
    "message",
    [
        "I live in Krakow, been here since uni so like twelve years now.",
        "i live in krakow",
        "I left my keys at work.",
        "short one with no run on at all here",  # eight words, no opening: as it is
    ],
)
def test_a_punctuated_or_short_message_is_read_as_it_is(message: str) -> None:
    assert run_on_punctuated(message) == [message]


def test_a_message_with_punctuation_anywhere_keeps_its_sentences() -> None:
    """The writer who typed one full stop typed the commas they meant: no run-on reading."""
    message = "I live in Lisbon been here since my masters so about six years. Love it"
    assert clauses.sentences_of(message) == [
        "I live in Lisbon been here since my masters so about six years.",
        "Love it",
    ]


def test_the_dictated_messages_of_issue_36_learn_their_home_through_a_real_dream(tmp_path) -> None:
    run = st.run_item(
        st.Item(
            "R12b",
            "-",
            "statement",
            None,
            (
                "so i live in halifax nova scotia with my partner and our two kids and its freezing "
                "half the year anyway can you help me plan some warm dinners for this week",
            ),
            (),
            (),
        ),
        tmp_path,
    )
    assert ("USER.md", "Lives in Halifax, Nova Scotia") in run.lines, run.lines
    assert ("USER.md", "Has two children") in run.lines, run.lines
    assert not [line for line in run.lines if "dinner" in line[1].lower()], run.lines


@pytest.mark.parametrize("message", LOOK_ALIKES)
def test_a_look_alike_gives_what_it_gave_without_the_run_on_reading(
    monkeypatch: pytest.MonkeyPatch, message: str
) -> None:
    """The run-on reading changes no line of a look-alike: its facts are the same with the reading
    off (each sentence as typed)."""
    with_reading = [(f.text, f.mark) for f in extract_facts(message)]
    monkeypatch.setattr(clauses, "run_on_punctuated", lambda sentence: [sentence])
    assert [(f.text, f.mark) for f in extract_facts(message)] == with_reading
