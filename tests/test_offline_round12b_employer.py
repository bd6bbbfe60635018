"""Issue 36, round 12b: an employer left for another in one message ("left atlassian last week,
starting at Canva on monday", split I, item I-115). The new employer replaces the old line; the old
name is a firm ("Left Initech …, starting at Globex": never "Works at Left Initech") or one word
typed in lower case, which the line leaves out. Every sentence here was written for these tests.
"""

from __future__ import annotations

import re

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message) if not f.text.startswith("Gone: ")]


LEFT_FOR = [
    ("Left Initech last week, starting at Globex on Monday.", "Works at Globex instead of Initech"),
    ("I quit Hooli yesterday and I'm starting at Pied Piper next week", "Works at Pied Piper"),
    ("left zendesk this month, joining Shopify in june", "Works at Shopify"),
    ("I left Umbrella, starting with Stark Industries on the 3rd", "Works at Stark Industries"),
]


@pytest.mark.parametrize(("message", "line"), LEFT_FOR)
def test_an_employer_left_for_another_is_a_correction(message: str, line: str) -> None:
    got = [(f.text, f.mark) for f in extract_facts(message)]
    assert any(text.startswith(line) and mark == "correction" for text, mark in got), got
    # the employer's name never swallows the verb ("Works at Left Initech")
    assert not [t for t in facts(message) if re.search(r"\b(?:left|quit)\b", t, re.I)], got


#: In the same words, no employer: none of these changes a line (same facts before and after).
LOOK_ALIKES = [
    "I left my keys at work, starting at the gym tomorrow",
    "left work early, starting at Canva on monday",
    "left home last week, starting at Canva on monday",
    "left school last year, starting at Canva on monday",
    "left berlin last week, starting at Canva on monday",
    "I left the party early, starting at Canva on monday",
    "my sister left Atlassian last week, starting at Canva on Monday",
    "left atlassian last week, starting at Canva on monday?",
    "I left Atlassian years ago, starting at Canva in 2015",
    "I never left Atlassian, starting at Canva on monday",
    "left atlassian last week and might start at Canva",
]


@pytest.mark.parametrize("message", LOOK_ALIKES)
def test_a_look_alike_names_no_employer(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith("Works at")], (message, facts(message))


def test_the_employer_of_issue_36_is_replaced_through_a_real_dream(tmp_path) -> None:
    turns = ("I'm a dev at Atlassian", "left atlassian last week, starting at Canva on monday")
    run = st.run_item(st.Item("R12b", "-", "correction", None, turns, (), ()), tmp_path)
    assert ("USER.md", "Works at Canva") in run.lines, run.lines
    assert ("USER.md", "Works at Atlassian") not in run.lines, run.lines
