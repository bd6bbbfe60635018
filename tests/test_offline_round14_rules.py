"""Issue 36, round 14: standing rules for the agent missed on splits BB and CC, by shape.

A convention said in other words ("24-hour clock", "military time", "British English"), two said
bare with the courtesy last ("Metric and Celsius please."), a reason after the rule that names
where the user lives ("it's what we use here"), a dictated message's opening sound ("um don't use
bullet points"), the length said after the answers ("Answers short please"). The look-alikes (a
convention someone else keeps, one reply's request, a description) give no rule. Every sentence
here was written for these tests.
"""

from __future__ import annotations

import pytest

from reverie.llm.offline.rules import extract_facts


def _lines(message: str) -> list[str]:
    return [f.text for f in extract_facts(message)]


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("24 hour clock please, it's what we use here.", "Use 24-hour time"),
        ("military time pls", "Use 24-hour time"),
        ("twenty four hour time please", "Use 24-hour time"),
        ("Please use British English spelling from now on.", "Use british spelling"),
        ("Metric and Celsius please. Fahrenheit means nothing to me.", "Use metric units"),
        ("Metric and Celsius please. Fahrenheit means nothing to me.", "Use Celsius"),
        ("Celsius please, it's what we use over here.", "Use Celsius"),
        ("um don't use emojis", "Never use emojis"),
        ("uh, reply in Spanish please", "Reply in Spanish"),
        ("Replies short please, I read them on the bus.", "Keep answers short"),
        ("switch to canadian spelling please", "Use canadian spelling"),
    ],
)
def test_a_rule_said_its_way_is_the_rule(message: str, line: str) -> None:
    assert line in _lines(message)


@pytest.mark.parametrize(
    "message",
    [
        "my grandad still uses military time",
        "I learned British English at school",
        "metric and celsius",
        "metric please for the recipe here",
        "use Celsius here please",
        "Replies short.",
        "her replies short please?",
    ],
)
def test_a_look_alike_gives_no_rule(message: str) -> None:
    lines = _lines(message)
    assert not any(ln.startswith(("Use ", "Keep answers")) for ln in lines), lines


def test_a_spelling_said_anew_replaces_the_old_one(tmp_path) -> None:
    """ "make that Canadian English" corrects the spelling rule: the old one is archived."""
    import offline_statements as st

    run = st.run_item(
        st.Item(
            "R14",
            "-",
            "correction",
            None,
            (
                "Please use British English spelling.",
                "oh make that Canadian English, I'm in Ottawa",
            ),
            (),
            (),
        ),
        tmp_path,
    )
    lines = [line for _, line in run.lines]
    assert "Use canadian spelling" in lines and "Use british spelling" not in lines, lines
    assert "Use british spelling" in run.archive, run.archive


def test_make_that_for_one_text_is_no_rule() -> None:
    assert not [
        t for t in _lines("make that Canadian English for this letter") if t.startswith("Use")
    ]


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("I was born in Karachi and grew up in Dubai", "Grew up in Dubai"),
        ("I was born in Karachi and grew up in Dubai", "Born in Karachi"),
        ("I live in Porto and grew up in Braga", "Grew up in Braga"),
    ],
)
def test_where_the_user_grew_up_after_and(message: str, line: str) -> None:
    """An earlier round's open gap: "born in X and grew up in Y" gave only the birthplace."""
    assert line in _lines(message), _lines(message)


@pytest.mark.parametrize(
    "message",
    ["My mum was born in Karachi and grew up in Dubai", "I was born in Karachi and grew up fast"],
)
def test_someone_elses_childhood_is_no_line(message: str) -> None:
    assert not [t for t in _lines(message) if t.startswith("Grew up")], _lines(message)


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("I've a border terrier called Monty.", "Has a terrier named Monty"),
        ("We've a cat called Tigger, he's ancient", "Has a cat named Tigger"),
    ],
)
def test_have_as_irish_and_british_english_say_it(message: str, line: str) -> None:
    """ "I've a …" is "I have a …" (split BB's writer)."""
    assert line in _lines(message), _lines(message)


def test_ive_a_feeling_is_no_fact() -> None:
    assert _lines("I've a feeling it will rain") == []
