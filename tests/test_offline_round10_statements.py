"""Issue 36, tenth round: three mechanisms that read a class of statements however it is worded,
each checked with fresh sentences written for these tests (not the corpus's) and look-alikes that
must give nothing.

- the user's marital status said as a state ("I'm divorced", "Married, no kids") is one value
  (``Is divorced``, slot ``marital``): a later one replaces it, through a real Dream;
- a reply language said with its condition ("reply in Romanian unless I write in English") keeps
  the condition in its line, or gives nothing;
- a request to the agent said with no verb ("pls short answers", "bullet points pls", "metric
  please") is read when a marker makes it a request, never from the bare noun ("Short answers.").

Most cases run ``extract_facts`` on one message (cheap: no workspace, no Dream).
"""

from __future__ import annotations

import pytest

from reverie.llm.offline.rules import SOUL, USER, canon, extract_facts


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message) if not f.text.startswith("Gone: ")]


# -- a marital status -------------------------------------------------------------------------------
STATUSES = [
    ("I'm divorced, two boys, they're with me on weekends", "Is divorced"),
    ("Married, three kids, one dog.", "Is married"),
    ("im separated and live alone now", "Is separated"),
    ("Single, no pets, no kids.", "Is single"),
    ("I'm a widow since last spring", "Is a widow"),
    ("Sam and I are divorced now, it was finalised in May.", "Is divorced"),
    ("We're officially separated since the summer.", "Is separated"),
    ("I've been seeing someone for a while and we're official now", "Is in a relationship"),
]


@pytest.mark.parametrize(("message", "line"), STATUSES)
def test_a_marital_status_is_one_value(message: str, line: str) -> None:
    got = facts(message)
    assert line in got, (message, got)
    assert canon(line).target == USER
    assert canon(line).slot == "marital"


STATUS_LOOK_ALIKES = [
    "I'm not married",  # a denial
    "I'm married to my work these days",  # married to a thing: the named rules refuse it
    "My sister is divorced",  # someone else's
    "I'm single-handedly running the shop",  # no status
    "I'm a single dad",  # a parent: the family rules' own line
    "If I were single I'd move to Lisbon",  # a hypothetical
    "My husband works at Bosch.",  # a spouse mentioned in passing: nothing (hand corpus)
    "We're engaged in a long dispute with the landlord",  # engaged in, no engagement
]


@pytest.mark.parametrize("message", STATUS_LOOK_ALIKES)
def test_a_status_look_alike_gives_no_status(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if canon(f).slot == "marital"], (message, got)
    assert "Has a husband" not in got


def test_a_new_status_replaces_the_old_through_a_real_dream(tmp_path) -> None:
    from offline_statements import Item, run_item

    item = Item(
        "t-1",
        "t",
        "correction",
        None,
        ("I'm single, no kids.", "Update: I've been seeing someone, we're official now."),
        (("USER.md", "In a relationship"),),
        ("Single",),
    )
    run = run_item(item, tmp_path)
    lines = [line for _rel, line in run.lines]
    assert "Is in a relationship" in lines
    assert "Is single" not in lines
    assert "Is single" in run.archive  # where why finds it


# -- a reply language with its condition ----------------------------------------------------------
CONDITIONED = [
    (
        "Please reply in Portuguese unless I write to you in English.",
        "Reply in Portuguese unless the user writes in English",
    ),
    (
        "answer in french when i write in french, and in english otherwise",
        "Reply in French when the user writes in French, otherwise in English",
    ),
    (
        "One request: if I write in Italian, reply in Italian, otherwise English is fine.",
        "Reply in Italian if the user writes in Italian, otherwise in English",
    ),
]


@pytest.mark.parametrize(("message", "line"), CONDITIONED)
def test_a_reply_language_keeps_its_condition(message: str, line: str) -> None:
    got = facts(message)
    assert got == [line], (message, got)
    assert canon(line).target == SOUL


CONDITION_LOOK_ALIKES = [
    "Reply in Poetry unless I write in English",  # no language
    "reply in Dutch when I write in German, otherwise English",  # no rule a user would give
    "In my novel the robot says: reply in Spanish unless I write in English.",  # a story
    "Reply in German when I write in German.",  # the rule without its condition: nothing sure
]


@pytest.mark.parametrize("message", CONDITION_LOOK_ALIKES)
def test_a_condition_look_alike_gives_no_reply_line(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith("Reply in ")], (message, got)


# -- a request with no verb ---------------------------------------------------------------------------
VERBLESS = [
    ("pls shorter replies, I'm on mobile", "Keep answers short"),
    ("Concise answers from now on please.", "Keep answers short"),
    ("numbered lists please", "Answer in numbered lists"),
    ("Canadian spelling pls", "Use Canadian spelling"),
    ("us spelling please", "Use American spelling"),
    ("always imperial units, I'm in Texas", "Use imperial units"),
    ("ISO 8601 dates everywhere please", "Dates as YYYY-MM-DD"),
    ("Could you be more concise from now on?", "Keep answers short"),
]


@pytest.mark.parametrize(("message", "line"), VERBLESS)
def test_a_request_with_no_verb_is_read_by_its_marker(message: str, line: str) -> None:
    got = facts(message)
    assert line in got, (message, got)
    assert canon(line).target == SOUL


VERBLESS_LOOK_ALIKES = [
    "Short answers.",  # no marker: may be about the last answer
    "Bullet points, headings, the lot.",  # a description
    "metric or imperial?",  # a question
    "My teacher wants bullet points please",  # someone else's
    "Short answers are easier for my students.",  # a remark
]


@pytest.mark.parametrize("message", VERBLESS_LOOK_ALIKES)
def test_a_verbless_look_alike_gives_no_rule(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if canon(f).target == SOUL], (message, got)
