"""The offline engine on a hand-written corpus (tests/offline_corpus.py): ordinary sentences give no
wrong fact, facts said in several phrasings land in the right file. Each sentence runs through the
engine's real path (the packaged prompts, Dream's analysis and edit turn, applied to the template
files), both as it sits in history and after the Consolidator's archive step; the negative corpus
also runs through a real Dream on a temp workspace. Precision and recall are printed by ``python -m
bench offline_corpus`` (BENCHMARKS.md)."""

from __future__ import annotations

import offline_corpus as corpus
import pytest


def test_the_corpus_is_as_large_as_promised() -> None:
    positives, negatives = corpus.positive_cases(), corpus.negative_cases()
    assert len(positives) >= 200 and len(negatives) >= 300
    facts = {c.expected for c in positives}
    assert len(facts) >= 60
    assert {f for c in positives for f, _ in c.expected} == set(
        corpus.FILES
    )  # all three files are exercised
    categories = {c.category for c in negatives}
    for kind in (
        "times and schedules",
        "feelings and idioms",
        "hypotheticals and plans",
        "questions",
        "other people",
        "assistant, tool and other participants",
        "negations",
        "sarcasm and jokes",
        "quoted text",
        "code",
    ):
        assert kind in categories


@pytest.mark.parametrize("path", ["history", "archive"])
def test_negative_corpus_gives_no_wrong_fact(path: str) -> None:
    wrong = []
    for case in corpus.negative_cases() + corpus.negative_cases(corpus.HELDOUT_NEGATIVE):
        extra = [f for f in corpus.learn(case.sentence, path).facts() if f not in case.expected]
        if extra:
            wrong.append((case.sentence, extra))
    assert wrong == []


@pytest.mark.parametrize("path", ["history", "archive"])
def test_positive_corpus_lands_in_the_right_file(path: str) -> None:
    learned, wrong, missed = 0, [], []
    cases = corpus.positive_cases()
    for case in cases:
        got = corpus.learn(case.sentence, path).facts()
        if all(e in got for e in case.expected):
            learned += 1
        else:
            missed.append(case.sentence)
        wrong += [(case.sentence, g) for g in got if g not in case.expected]
    assert wrong == []  # a phrasing adds its fact and nothing else
    assert learned / len(cases) >= 0.95, (
        missed
    )  # the issue asks ≥ 85 %; measured 97 % (BENCHMARKS.md)


def test_negative_corpus_through_a_real_dream_changes_nothing(tmp_path) -> None:
    allowed = {fact for case in corpus.negative_cases() for fact in case.expected}
    added = corpus.dream_adds(tmp_path, [case.sentence for case in corpus.negative_cases()])
    assert all((rel, line) in allowed for rel, lines in added.items() for line in lines), added
