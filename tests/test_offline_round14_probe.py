"""Probe of round 14 (probe14): look-alikes of the round's shapes that changed or wrote a wrong line.

"it" moved after a question naming someone else's thing ("My sister's standup? They moved it to
ten."), a database chosen "instead" by another team or for another part ("for the cache we went
with Redis instead of Memcached"), and a vegetarian eating fish only on a condition or as a fish
product ("… fish oil capsules"), a name given by someone's job ("the receptionist's name is Mizu not
Miso") and a name beside someone else's relative ("Anna, my sister's friend") now change and write no
line. Every sentence here was written for these tests.
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts

#: The same words as a round-14 correction, of another thing or someone else's: no line changes.
ORDINARY = [
    # "it" is the thing a question before it named, someone else's
    ("Our standup is at 9 every Monday.", "My sister's standup? They moved it to ten."),
    ("The grant report is due 9 April.", "my sister's report? they pushed it to the 17th"),
    # "instead" said by another team, or for another part than the database line's
    ("We use MariaDB for the booking app.", "The other team went with Postgres instead."),
    ("We use MariaDB for the booking app.", "we went with Redis instead for the cache"),
    (
        "We use MariaDB for the booking app.",
        "for the cache we went with Redis instead of Memcached",
    ),
    ("We use MariaDB for the booking app.", "For the analytics we went with ClickHouse instead."),
]


@pytest.mark.parametrize(("first", "follow_up"), ORDINARY)
def test_a_look_alike_of_a_round_14_correction_changes_no_line(first: str, follow_up: str) -> None:
    st.assert_follow_up_changes_no_line(first, follow_up)


def test_a_name_given_by_someones_job_beside_the_pets_changes_no_line() -> None:
    """ "the receptionist's name": a person named by a job, never the pet's line."""
    st.assert_follow_up_changes_no_line(
        "My cat is called Miso.", "the receptionist's name is Mizu not Miso"
    )


@pytest.mark.parametrize(
    "message",
    [
        # fish eaten only on a condition: neither the diet whole nor pescatarian
        "I'm vegetarian but I eat fish on Fridays.",
        "I'm vegetarian but I eat fish at my gran's.",
        "I'm vegetarian but I eat fish when my mum cooks it.",
        # a fish product, not fish eaten
        "I'm vegetarian but I eat fish oil capsules.",
    ],
)
def test_a_diet_with_fish_on_a_condition_or_as_a_product_writes_no_diet(message: str) -> None:
    lines = [f.text for f in extract_facts(message)]
    assert not any(ln.startswith(("Is ve", "Is pesc")) for ln in lines), lines


@pytest.mark.parametrize(
    ("first", "then", "old", "new"),
    [
        # what held: "it" alone after a question of no thing, a database chosen instead of the line
        (
            "The grant report is due 9 April.",
            "Really? They moved it to the 21st.",
            "Deadline for grant report: 2027-04-09",
            "Deadline for grant report: 2027-04-21",
        ),
        (
            "We use MariaDB for the booking app.",
            "we went with Postgres instead",
            "Uses MariaDB for the booking app",
            "Uses Postgres",
        ),
    ],
)
def test_the_correction_beside_them_still_moves_the_line(
    first: str, then: str, old: str, new: str, tmp_path
) -> None:
    run = st.run_item(st.Item("P14", "-", "correction", None, (first, then), (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert new in lines and old not in lines, lines
    assert old in run.archive, run.archive


@pytest.mark.parametrize(
    ("message", "wrong"),
    [
        # the name (or an opening word) beside someone else's relative's thing names no relative
        ("Funny, my sister's friend is pescatarian really.", "Has a sister named Funny"),
        ("Anna, my sister's friend, is vegan.", "Has a sister named Anna"),
        # the relative's name said in its possessive is the name, without its "'s"
        ("my brother Tom's car is red", "Has a brother named Tom's"),
    ],
)
def test_a_relative_beside_a_possessive_is_named_right(message: str, wrong: str) -> None:
    assert wrong not in [f.text for f in extract_facts(message)]


@pytest.mark.parametrize(
    ("message", "line"),
    [
        ("Anna, my sister, is vegan.", "Has a sister named Anna"),
        ("my brother Tom's car is red", "Has a brother named Tom"),
    ],
)
def test_a_relative_named_beside_them_is_still_read(message: str, line: str) -> None:
    assert line in [f.text for f in extract_facts(message)]
