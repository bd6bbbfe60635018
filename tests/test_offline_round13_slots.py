"""Issue 36, round 13: a correction of a one-value slot leaves nothing stale (splits Z and AA).

A standing rule or fact that holds one value at a time (the reply language, the answer length, a
count of grandchildren, a pet's name, a recurring meeting's day) said anew, with or without a cue
("from now on", "nvm", "now", "changed", "not X", "one g"): the old line is archived with its reason
(``reverie why`` finds it) and the new one written. Only where the slot is the same; the
look-alikes below change no line. A diet said with a condition ("on Wednesdays") writes no line
that drops it. Every sentence here was written for these tests.
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts

#: (what was said first, the correction, the old line, the new line)
CORRECTED = [
    # the reply language, said alone "from now on" or as the better one after "nvm"
    (
        "Please reply in Portuguese always.",
        "Ok, English please from now on.",
        "Reply in Portuguese",
        "Reply in English",
    ),
    (
        "reply in french pls",
        "nvm, english is better, my french is rusty",
        "Reply in French",
        "Reply in English",
    ),
    (
        "Always answer in Italian.",
        "never mind, spanish is fine",
        "Reply in Italian",
        "Reply in Spanish",
    ),
    # a recurring meeting changed by name, its new day in the next clause
    (
        "Our staff meeting is every Monday at 9.",
        "they moved the staff meeting, it is Wednesday 4pm now",
        "Team cadence: staff meeting every Monday at 9",
        "Team cadence: staff meeting every Wednesday at 4pm",
    ),
    # a count of grandchildren said anew, after a cue, with the birth in the next sentence
    (
        "I have three grandchildren.",
        "Correction, four grandchildren now! My son had a baby girl last week, Ada.",
        "Has three grandchildren",
        "Has four grandchildren",
    ),
    (
        "I have two grandchildren.",
        "Update: three grandchildren now! Our daughter had a baby boy yesterday, Tomas.",
        "Has two grandchildren",
        "Has three grandchildren",
    ),
    # a pet's name re-spelled
    (
        "My dog is called Bella.",
        "my son corrected me, the dog's name is Bela, one l, not Bella",
        "Has a dog named Bella",
        "Has a dog named Bela",
    ),
    (
        "My cat is called Mimmi.",
        "haha my wife corrected me, the cat's name is Mimi, not Mimmi",
        "Has a cat named Mimmi",
        "Has a cat named Mimi",
    ),
    # the answer length: a middle one, with its limit
    (
        "Give me detailed answers please.",
        "Hmm, too long. Medium length please, two or three paragraphs max.",
        "Give detailed answers",
        "Keep answers to two or three paragraphs",
    ),
]


@pytest.mark.parametrize(("first", "then", "old", "new"), CORRECTED)
def test_a_slot_said_anew_archives_the_old_line(
    first: str, then: str, old: str, new: str, tmp_path
) -> None:
    run = st.run_item(st.Item("R13", "-", "correction", None, (first, then), (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert new in lines and old not in lines, lines
    assert old in run.archive and run.why_finds.get(old, True), run.archive


#: The same words, another slot or none: nothing the first message wrote changes.
ORDINARY = [
    ("Please reply in Portuguese always.", "from now on I'll practise English at school"),
    ("reply in french pls", "nvm, the weather is better today"),
    ("reply in french pls", "English please, just for this one answer"),
    ("Our staff meeting is every Monday at 9.", "it is Thursday 2pm now"),
    (
        "Our staff meeting is every Monday at 9.",
        "they changed my gym class, it is Thursday 2pm now",
    ),
    ("Our staff meeting is every Monday at 9.", "they changed the menu, it is Thursday 2pm now"),
    ("I have two grandchildren.", "My neighbour has three grandchildren now"),
    ("I have two grandchildren.", "three grandchildren now would be too many"),
    ("My cat is called Tigger.", "the dog's name is Rex, not a cat"),
    ("My cat is called Tigger.", "my neighbour's name is Tiger"),
    ("Give me detailed answers please.", "write me a story, a few paragraphs max"),
    ("Give me detailed answers please.", "a medium pizza please, a few slices"),
]


@pytest.mark.parametrize(("first", "follow_up"), ORDINARY)
def test_an_ordinary_follow_up_changes_no_line(first: str, follow_up: str) -> None:
    st.assert_follow_up_changes_no_line(first, follow_up)


@pytest.mark.parametrize(
    "message",
    [
        "I don't eat meat on Wednesdays and Fridays, we are Orthodox.",
        "I don't eat meat during Lent",
        "I don't eat sugar at work, only at home",
        "i dont eat fish on fridays",
        "I don't eat pork in the morning",
    ],
)
def test_a_diet_with_its_condition_is_never_written_without_it(message: str) -> None:
    texts = [f.text for f in extract_facts(message)]
    assert not [t for t in texts if t.startswith("Doesn't eat")], texts


def test_a_diet_without_a_condition_is_still_written() -> None:
    assert "Doesn't eat meat" in [f.text for f in extract_facts("I don't eat meat, never have.")]
