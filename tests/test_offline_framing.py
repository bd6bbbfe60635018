"""The offline engine on framed and wrong-kind sentences written for issue 26
(``offline_corpus.FRAMED``): stories, dreams, role-play, tasks on a text, examples, quotes, reports,
rumours, denials, sarcasm, retractions, passing states, values of the wrong kind and remarks that
are no instruction give no wrong fact, along both paths."""

from __future__ import annotations

from datetime import date

import offline_corpus as corpus
import pytest

from reverie.llm.offline.framing import framed, temporary
from reverie.llm.offline.rules import extract_facts


def test_the_framed_corpus_covers_every_category_of_the_issue() -> None:
    categories = {c.category for c in corpus.framed_cases()}
    for kind in (
        "fiction",
        "dream",
        "role-play and pretending",
        "translation and editing tasks",
        "examples and templates",
        "quoted text",
        "reported speech",
        "rumour",
        "denial",
        "sarcasm",
        "retraction in the same message",
        "temporary states",
        "hypotheticals and plans",
        "software, time zones, departments, moods as values",
        "adjectives as jobs and names",
        "verbs and moods as preferences",
        "remarks that are no instruction to the agent",
        # second round
        "the user asking about their own life",
        "conditional plans",
        "other people's words in first person",
        "sarcasm without markers",
        "lists of hypothetical options",
        "compliments and remarks on what the other person shared",
        "past, one-time and finished things",
    ):
        assert kind in categories
    assert len(corpus.framed_cases()) >= 791


@pytest.mark.parametrize("path", ["history", "archive"])
def test_framed_corpus_gives_no_wrong_fact(path: str) -> None:
    wrong = []
    for case in corpus.framed_cases():
        extra = [f for f in corpus.learn(case.sentence, path).facts() if f not in case.expected]
        if extra:
            wrong.append((case.sentence, extra))
    assert wrong == []


def test_a_frame_reaches_forward_a_retraction_backward_a_task_everywhere() -> None:
    assert framed(
        ["I live in Lisbon.", "In my novel the hero lives in Oslo.", "He works at Acme."]
    ) == [False, True, True]
    assert framed(["I love PHP.", "Just kidding.", "I work at Acme."]) == [True, True, False]
    assert framed(["Translate this:", "I live in Paris."]) == [True, True]


def test_the_users_own_statement_beside_a_frame_still_counts() -> None:
    facts = [f.text for f in extract_facts("I live in Lisbon. In my novel the hero lives in Oslo.")]
    assert facts == ["Lives in Lisbon"]
    facts = [f.text for f in extract_facts("I love PHP. Just kidding. I work at Siemens.")]
    assert facts == ["Works at Siemens"]


def test_passing_states_give_no_lasting_fact_but_dates_still_count() -> None:
    assert temporary("I'm working from Café Central today")
    assert not temporary("I live in Porto these days")
    assert extract_facts("I work at Café Central today.") == []
    said = date(2027, 1, 4)
    assert [f.text for f in extract_facts("The report is due today.", said)] == [
        "Deadline for report: 2027-01-04"
    ]


def test_values_are_checked_against_real_data() -> None:
    learned = {
        s: [f.text for f in extract_facts(s)]
        for s in (
            "I live in Lisbon.",
            "I live in the Netherlands.",
            "I live in Little Hinton, a village near Oxford.",
            "I live in Linux.",
            "I live in Central Time.",
            "My wife is called Priya.",
            "My wife is called Colombian.",
            "My cat is called Biscuit.",
            "I speak Portuguese.",
            "I speak Poetry.",
            "Reply in Central.",
        )
    }
    assert learned == {
        "I live in Lisbon.": ["Lives in Lisbon"],
        "I live in the Netherlands.": ["Lives in the Netherlands"],
        "I live in Little Hinton, a village near Oxford.": ["Lives in Little Hinton"],
        "I live in Linux.": [],
        "I live in Central Time.": [],
        "My wife is called Priya.": ["Has a wife named Priya"],
        "My wife is called Colombian.": [],
        "My cat is called Biscuit.": [
            "Has a cat named Biscuit"
        ],  # a pet's name need not be a person's
        "I speak Portuguese.": ["Speaks Portuguese"],
        "I speak Poetry.": [],
        "Reply in Central.": [],
    }


def test_rules_for_the_agent_only_when_addressed_to_it() -> None:
    assert [f.text for f in extract_facts("At home we speak in Portuguese.")] == []
    assert [f.text for f in extract_facts("Never have I ever been to Peru.")] == []
    assert [f.text for f in extract_facts("Please reply in Portuguese.")] == ["Reply in Portuguese"]
    assert [f.text for f in extract_facts("I'd like you to answer in Portuguese.")] == [
        "Reply in Portuguese"
    ]


def test_nicknames_go_to_user_and_a_naming_rule_only_when_asked() -> None:
    assert [f.text for f in extract_facts("My friends call me Mo.")] == ["Goes by Mo"]
    assert [f.text for f in extract_facts("I go by Mo.")] == ["Goes by Mo"]
    assert [f.text for f in extract_facts("Please call me Mo.")] == [
        "Call the user Mo",
        "Goes by Mo",
    ]


def test_a_dated_item_keeps_its_full_subject() -> None:
    facts = [
        f.text for f in extract_facts("Release 2.4 is due on 14 December.", date(2026, 11, 25))
    ]
    assert facts == ["Deadline for release 2.4: 2026-12-14"]


def test_every_language_of_a_list() -> None:
    facts = [f.text for f in extract_facts("I speak English, French and Portuguese.")]
    assert facts == ["Speaks English", "Speaks French", "Speaks Portuguese"]
    assert [f.text for f in extract_facts("I speak English and a bit of French.")] == [
        "Speaks English"
    ]


def test_framed_corpus_through_a_real_dream_changes_nothing(tmp_path) -> None:
    allowed = {fact for case in corpus.framed_cases() for fact in case.expected}
    added = corpus.dream_adds(tmp_path, [case.sentence for case in corpus.framed_cases()])
    assert all((rel, line) in allowed for rel, lines in added.items() for line in lines), added
