"""Issue 36: every correction retires the old line. A later statement that ends or changes a fact
the engine keeps (home, job title, the job itself, a partner, a pet by name, a diet, an allergy,
the count of children, a cadence, an answer-length rule given an exception) takes the old line out
of its file into the archive, with the user's words as the reason, where ``why`` finds it; the new
value is written only when it is read with confidence. A statement that only looks like one (a
friend who moved, a plan, a second pet, another person's death, a team's move to a tool) retires
nothing. Each case runs the real path: archive, history, a real Dream per turn
(``tests/offline_statements.run_item``)."""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts, retire_line

# (first turn, later turn, the old line, the new line or None when no value is read)
ENDED = [
    (
        "i live in brisbane",
        "actually we moved to the gold coast in august, forgot to tell u",
        "Lives in Brisbane",
        None,
    ),
    ("I live in Leeds.", "We moved across the river last spring.", "Lives in Leeds", None),
    (
        "I'm a DevOps engineer at Canva.",
        "got promoted last week!! platform engineering manager now, same team",
        "Works as DevOps engineer",
        "Works as platform engineering manager",
    ),
    ("I'm a nurse.", "I got laid off in October.", "Works as nurse", None),
    (
        "My partner Sam and I are planning a trip to Bali.",
        "Sam and I split up in March, so just me going now.",
        "Has a partner named Sam",
        None,
    ),
    (
        "I have a dog named Max.",
        "Sadly we had to rehome Max, he didn't get on with the baby.",
        "Has a dog named Max",
        None,
    ),
    ("My cat is called Luna.", "Luna passed away last week.", "Has a cat named Luna", None),
    (
        "I'm vegetarian.",
        "Update: I started to eat fish again, so pescatarian now I guess.",
        "Is vegetarian",
        None,
    ),
    (
        "I'm allergic to peanuts.",
        "Sorry, not peanuts, it's tree nuts. Peanuts are fine for me.",
        "Allergic to peanuts",
        "Allergic to tree nuts",
    ),
    (
        "I have two kids, a boy and a girl.",
        "Make that three! Our son Ethan was born on Saturday.",
        "Has two children",
        "Has three children",
    ),
    (
        "Our check-in with the developer is Wednesdays at 3pm.",
        "He moved it to Thursdays at 3pm starting this week.",
        "Team cadence: check-in with the developer Wednesdays at 3pm",
        "Team cadence: check-in with the developer Thursdays at 3pm",
    ),
    ("We have a cat named Miso.", "Our old cat died in the spring.", "Has a cat named Miso", None),
    (
        "My husband is called Tom.",
        "My ex-husband Tom still calls every week.",
        "Has a husband named Tom",
        None,
    ),
    ("I have two kids.", "I have three kids now.", "Has two children", "Has three children"),
    (
        "Our standup is every Monday at 9am.",
        "The standup is now on Tuesdays at 10am.",
        "Team cadence: standup every Monday at 9am",
        "Team cadence: standup every Tuesday at 10am",
    ),
    ("No emojis please.", "You can use emojis again.", "Never use emojis", None),
    ("We use Redis for caching.", "We dropped Redis last month.", "Uses Redis for caching", None),
    (
        "Our CI runs on Jenkins.",
        "We replaced Jenkins with GitHub Actions.",
        "CI runs on Jenkins",
        "Uses GitHub Actions",
    ),
    ("I'm a nurse at St Mary's.", "I retired last month.", "Works as nurse", None),
    (
        "I'm learning Spanish.",
        "I'm fluent in Spanish now.",
        "Is learning Spanish",
        "Speaks Spanish",
    ),
    (
        "My girlfriend is called Anna.",
        "Anna and I got married last weekend!",
        "Has a girlfriend named Anna",
        "Married to Anna",
    ),
    ("Reply in German.", "Switch back to English please.", "Reply in German", "Reply in English"),
    (
        "Keep answers under 100 words.",
        "Forget the word limit.",
        "Keep answers under 100 words",
        None,
    ),
    (
        "Keep your answers under 100 words.",
        "Let me correct: for technical topics you can go up to 300 words, for everything else "
        "keep under 100.",
        "Keep answers under 100 words",
        None,
    ),
]


@pytest.mark.parametrize(("first", "later", "old", "new"), ENDED)
def test_a_fact_ended_or_changed_leaves_for_the_archive_with_the_words_that_ended_it(
    tmp_path, first: str, later: str, old: str, new: str | None
) -> None:
    run = st.run_item(st.Item("T-1", "T", "correction", None, (first, later), (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert old not in lines, lines
    assert f"- {old} · " in run.archive, run.archive
    assert run.why_finds.get(old), run.why_finds
    if new is None:
        assert lines == [], lines  # nothing read with confidence: nothing written
        reason = later.split(",")[0][:20]
        # the user's words are the reason ("No longer …" facts: the finding that removed it)
        assert reason in run.archive or "(why: no longer true)" in run.archive
    else:
        assert new in lines, lines


# (first turn, later turn, the line that must stay): looks like a change, is none
KEPT = [
    ("I live in Brisbane.", "My friend moved to Paris last year.", "Lives in Brisbane"),
    ("I live in Brisbane.", "We're thinking of moving to the gold coast.", "Lives in Brisbane"),
    ("I live in Brisbane.", "We moved our standup to Thursdays at 9.", "Lives in Brisbane"),
    ("I live in Brisbane.", "We moved to Postgres last year.", "Lives in Brisbane"),
    ("I live in Brisbane.", "We're going to Lisbon for a week in May.", "Lives in Brisbane"),
    ("I have a dog named Max.", "We got a second dog, Rex.", "Has a dog named Max"),
    ("I have a dog named Max.", "My grandfather Max passed away.", "Has a dog named Max"),
    (
        "My partner Sam lives with me.",
        "My sister and I split up the chores.",
        "Has a partner named Sam",
    ),
    ("My partner Sam lives with me.", "My parents split up in March.", "Has a partner named Sam"),
    ("I'm vegetarian.", "My husband started eating meat again.", "Is vegetarian"),
    ("I'm vegetarian.", "I might start eating fish again.", "Is vegetarian"),
    ("I'm allergic to peanuts.", "Almonds are fine for me.", "Allergic to peanuts"),
    ("I'm a nurse.", "My wife got promoted last week.", "Works as nurse"),
    ("We have a cat named Miso.", "My sister's cat died last week.", "Has a cat named Miso"),
    ("No emojis please.", "Emojis are fine for my sister's birthday card.", "Never use emojis"),
    (
        "We use Redis for caching.",
        "We dropped the ball on the Redis upgrade.",
        "Uses Redis for caching",
    ),
    ("I'm a nurse.", "I retired the old laptop.", "Works as nurse"),
    ("I live in Leeds.", "We moved house a lot when I was a kid.", "Lives in Leeds"),
]


@pytest.mark.parametrize(("first", "later", "kept"), KEPT)
def test_what_only_looks_like_a_change_retires_nothing(
    tmp_path, first: str, later: str, kept: str
) -> None:
    run = st.run_item(st.Item("T-2", "T", "negative", None, (first, later), (), ()), tmp_path)
    assert kept in [line for _, line in run.lines]
    assert f"- {kept} · " not in run.archive, run.archive


def test_an_ended_attribute_is_retired_only_when_one_line_can_be_meant() -> None:
    two_homes = {"USER": ["Lives in Leeds", "Lives in York"], "SOUL": [], "MEMORY": []}
    assert retire_line("Gone: home; said: we moved", two_homes) is None
    two_dogs = {"USER": ["Has a dog named Max", "Has a dog named Bruno"], "SOUL": [], "MEMORY": []}
    assert retire_line("Gone: pet Max; said: we had to rehome Max", two_dogs) == (
        "USER",
        ["Has a dog named Max"],
        "we had to rehome Max",
    )
    person = {"USER": ["Has a grandfather named Max"], "SOUL": [], "MEMORY": []}
    assert retire_line("Gone: pet Max", person) is None  # a person is no pet
    other = {"USER": ["Has a partner named Alex"], "SOUL": [], "MEMORY": []}
    assert retire_line("Gone: partner Sam", other) is None


def test_a_rule_whose_condition_the_template_drops_is_not_written() -> None:
    def facts(sentence: str) -> list[str]:
        return [f.text for f in extract_facts(sentence)]

    # the template drops no condition it keeps (tenth round: the condition is in the line)
    assert facts("Reply in German when I write in German, and in English otherwise.") == [
        "Reply in German when the user writes in German, otherwise in English"
    ]
    assert facts("Reply in German when I write in German.") == []
    assert facts("Please reply in Bahasa Malaysia unless I write to you in English.") == []
    assert facts("Always reply in Spanish please, even if I write to you in English.") == [
        "Reply in Spanish"
    ]
    assert facts("Keep replies under 150 words unless I ask for more detail.") == [
        "Keep answers under 150 words"
    ]


def test_a_value_said_and_ended_in_one_message_is_not_written() -> None:
    facts = [f.text for f in extract_facts("I have a cat named Max. Max died last week.")]
    assert facts[0] == "Has a cat named Max" and facts[1].startswith("Gone: pet Max")
    assert [f.text for f in extract_facts("Actually we moved to Utrecht last month.")] == [
        "Lives in Utrecht"
    ]  # the new home replaces the old line itself: no second change
