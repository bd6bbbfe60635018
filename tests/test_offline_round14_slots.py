"""Issue 36, round 14: the shapes that left a stale or a false line on splits BB and CC.

A date or a time moved with the thing named by "it" alone ("they pushed it to the 21st"), a reply
language taken back after a filler ("actually never mind, Dutch is fine for everything"), a pet's
name said anew beside the old one ("his name is Pippin not Pepin"), a database chosen "instead"
with its version in words, a diet said anew as the truer word ("vegan really"): the old line is
archived with its reason (``reverie why`` finds it) and the new one written. A diet said with what
the user eats anyway writes no line that drops it. The look-alikes (someone else's thing, a thing
named, two lines of the type, a one-off) change no line. Every sentence here was written for these
tests.
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts

#: (what was said first, the correction, the old line, the new line)
CORRECTED = [
    # a date or a time moved, the thing named by "it" alone
    (
        "The grant report is due 9 April.",
        "They moved it to the 21st, phew.",
        "Deadline for grant report: 2027-04-09",
        "Deadline for grant report: 2027-04-21",
    ),
    (
        "Our retro is at three every Friday.",
        "oh wait they moved it to half three",
        "Team cadence: retro at 3 every Friday",
        "Team cadence: retro at 3:30 every Friday",
    ),
    # a day of the month said in words, alone, owning the mistake
    (
        "The audit report is due the fourteenth of June.",
        "typo, the twenty second",
        "Deadline for audit report: 2027-06-14",
        "Deadline for audit report: 2027-06-22",
    ),
    # a pet's kind said anew, its short form in the old line's long one, who set it right after
    (
        "We've a labrador called Juno.",
        "oops, she's a springer spaniel not a lab, my daughter corrected me",
        "Has a labrador named Juno",
        "Has a springer spaniel named Juno",
    ),
    # a reply language taken back after a filler, for everything
    (
        "Please answer in Dutch from now on.",
        "ok never mind, English is fine for everything",
        "Reply in Dutch",
        "Reply in English",
    ),
    # a pet's name said anew beside the old one, with no pause after it
    (
        "My dog is called Pepin.",
        "I mean his name is Pippin not Pepin the autocorrect changed it",
        "Has a dog named Pepin",
        "Has a dog named Pippin",
    ),
    # a database chosen instead, its version in words
    (
        "We use MariaDB for the booking app.",
        "scratch that, we went with Postgres fifteen instead",
        "Uses MariaDB for the booking app",
        "Uses Postgres 15",
    ),
    # a diet said anew as the truer word
    (
        "I'm vegetarian.",
        "Hmm, vegan really, no dairy or eggs either.",
        "Is vegetarian",
        "Is vegan",
    ),
]


@pytest.mark.parametrize(("first", "then", "old", "new"), CORRECTED)
def test_a_slot_said_anew_archives_the_old_line(
    first: str, then: str, old: str, new: str, tmp_path
) -> None:
    run = st.run_item(st.Item("R14", "-", "correction", None, (first, then), (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert new in lines and old not in lines, lines
    assert old in run.archive and run.why_finds.get(old, True), run.archive


#: The same words, another thing, someone else's, or unsure: nothing the first message wrote
#: changes.
ORDINARY = [
    ("The grant report is due 9 April.", "my flight got cancelled, they moved it to the 21st"),
    ("The grant report is due 9 April.", "My brother moved it to the 21st."),
    ("The grant report is due 9 April.", "Could they push it to the 21st?"),
    ("The grant report is due 9 April.", "They moved the book club to the 21st."),
    ("Our retro is at three every Friday.", "the party is at Tom's, they moved it to half three"),
    ("The audit report is due the fourteenth of June.", "sorry, the twelfth grade is hard"),
    ("The audit report is due the fourteenth of June.", "Sorry, second!"),
    ("We've a labrador called Juno.", "my neighbour's dog? she's a springer spaniel not a lab"),
    ("Please answer in Dutch from now on.", "ok never mind, English is fine for the essay"),
    ("Please answer in Dutch from now on.", "never mind, English is fine for my kids"),
    ("My dog is called Pepin.", "my neighbour got a puppy, his name is Pippin not Pepin"),
    ("My dog is called Pepin.", "his name is Pippin"),
    ("We use MariaDB for the booking app.", "we went with pizza fifteen instead"),
    ("I'm vegetarian.", "My sister is vegan really, she is strict about it."),
    ("I'm vegetarian.", "vegan really isn't for me"),
    ("I'm vegetarian.", "vegan really?"),
]


@pytest.mark.parametrize(("first", "follow_up"), ORDINARY)
def test_an_ordinary_follow_up_changes_no_line(first: str, follow_up: str) -> None:
    st.assert_follow_up_changes_no_line(first, follow_up)


def test_two_lines_of_the_type_leave_it_unsure(tmp_path) -> None:
    """ "it" with two dated lines in memory could be either: both stay."""
    run = st.run_item(
        st.Item(
            "R14",
            "-",
            "correction",
            None,
            (
                "The grant report is due 9 April.",
                "The audit is due 12 April.",
                "They moved it to the 21st.",
            ),
            (),
            (),
        ),
        tmp_path,
    )
    lines = [line for _, line in run.lines]
    assert "Deadline for grant report: 2027-04-09" in lines, lines
    assert not any("2027-04-21" in line for line in lines), lines


@pytest.mark.parametrize(
    ("message", "line"),
    [
        # vegetarian but eating fish is pescatarian, whatever follows
        ("I'm vegetarian but I eat fish, so pescatarian I suppose.", "Is pescatarian"),
        ("I'm vegetarian but I eat prawns", "Is pescatarian"),
        # the diet alone, with a "but" about something else or about what the diet allows
        ("vegetarian but I eat eggs and cheese", "Is vegetarian"),
        ("I'm vegan but I eat loads of tofu", "Is vegan"),
        ("I'm vegan, but my partner eats meat.", "Is vegan"),
        ("I'm vegetarian but I have a huge sweet tooth", "Is vegetarian"),
    ],
)
def test_a_diet_with_its_exception_is_the_diet_it_is(message: str, line: str) -> None:
    assert line in [f.text for f in extract_facts(message)]


@pytest.mark.parametrize(
    "message",
    [
        "I'm vegan but I eat eggs from our own hens.",
        "I'm vegetarian, although I eat chicken at christmas",
        "I'm vegan but I still eat honey",
        # fish now and then: the diet is not kept whole, and no pescatarian either
        "I'm vegetarian but I do eat seafood sometimes",
        "im veggie but i eat fish now and then",
    ],
)
def test_a_diet_said_with_what_it_leaves_out_eaten_anyway_writes_no_diet(message: str) -> None:
    lines = [f.text for f in extract_facts(message)]
    assert not any(ln.startswith("Is ve") for ln in lines), lines
