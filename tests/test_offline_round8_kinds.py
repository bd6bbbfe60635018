"""Issue 36, eighth round: the kind rules read more of what people tell their assistant (a diet
never from a question, a rule for the agent with its scope kept, pets named in a list, a home with
its part of town), each class with fresh sentences written for these tests (not the corpus's) and
look-alikes that must give nothing of the kind.

Each case runs ``extract_facts`` on one message (cheap: no workspace, no Dream); where a line must
land in a given file its ``canon`` is checked too.
"""

from __future__ import annotations

import pytest

from reverie.llm.offline.rules import USER, canon, extract_facts


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message)]


def _check(message: str, expected: list[str], target: str = USER) -> None:
    got = facts(message)
    for line in expected:
        assert line in got, (message, got)
        found = canon(line)
        assert found is not None and found.target == target, (line, found)


def _none_of(message: str, heads: tuple[str, ...]) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith(heads)], (message, got)


# -- a diet is stated, never asked ------------------------------------------------------------------
DIETS = [
    ("i eat halal, so no pork in the recipes", ["Diet: halal"]),
    ("I follow a low-carb diet these days", ["Diet: low-carb"]),
    ("I only eat kosher", ["Diet: kosher"]),
]


@pytest.mark.parametrize(("message", "expected"), DIETS)
def test_a_diet_stated_is_read(message: str, expected: list[str]) -> None:
    _check(message, expected)


DIET_QUESTIONS = [
    "in nairobi for the weekend, where can i eat halal around westlands",
    "can i eat kosher at the airport lounge",
    "should i follow a keto diet for a month",
    "what can i eat halal near the station",
]


@pytest.mark.parametrize("message", DIET_QUESTIONS)
def test_a_diet_asked_about_gives_nothing(message: str) -> None:
    _none_of(message, ("Diet:",))
