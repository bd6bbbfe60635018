"""Issue 36, twelfth round: corrections as classes of the words that own a mistake, whatever the
slot they correct.

- **A mistake owned before the right value** ("My bad,", "OK I lied,", "I misspoke earlier",
  "Typo earlier,", "Wrong uni —") opens a correction of the whole message, as "Actually," and
  "Update:" already did: a value of a one-valued slot said after it (home, employer, title, …)
  replaces the line of that slot.
- **A slot said to be wrong, then its value** ("Wrong city, it's Leeds", "wrong company, I'm at
  Globex", "wrong host, we're on Render"): the one line of that slot takes the value, as a slot
  relabelled ("New host: Fly.io.") does.

Each runs through the real path (the archive step and a real Dream per turn) with sentences
written for these tests: the old line leaves for the archive, where ``why`` finds it. Ordinary
follow-ups in the same words ("my bad, I'm late", "wrong number", "I was wrong about the film")
change no line.
"""

from __future__ import annotations

import offline_statements as st
import pytest

# (turns, the old line, the line that replaces it)
DREAMED: list[tuple[tuple[str, str], str, str]] = [
    (("I live in Bristol.", "My bad, I live in Bath."), "Lives in Bristol", "Lives in Bath"),
    (
        ("I work at Initech.", "Typo earlier, I work at Hooli."),
        "Works at Initech",
        "Works at Hooli",
    ),
    (
        ("I'm a paramedic.", "My mistake, I'm a firefighter."),
        "Works as paramedic",
        "Works as firefighter",
    ),
    (
        ("I live in Ghent.", "I misspoke earlier, we live in Antwerp."),
        "Lives in Ghent",
        "Lives in Antwerp",
    ),
    (("I live in Bristol.", "Wrong city, it's Cardiff."), "Lives in Bristol", "Lives in Cardiff"),
    (
        ("I live in Bristol.", "Oops, wrong city — I live in Exeter."),
        "Lives in Bristol",
        "Lives in Exeter",
    ),
    (
        ("I work at Initech.", "Wrong company, I'm at Hooli."),
        "Works at Initech",
        "Works at Hooli",
    ),
    (
        ("We deploy on Heroku.", "wrong host, we're on Render"),
        "Deployed on Heroku",
        "Deployed on Render",
    ),
]


@pytest.mark.parametrize(("turns", "old", "new"), DREAMED, ids=[t[1] for t, _, _ in DREAMED])
def test_the_old_line_leaves_for_the_archive_where_why_finds_it(
    tmp_path, turns: tuple[str, str], old: str, new: str
) -> None:
    run = st.run_item(st.Item("R12", "-", "correction", None, turns, (), ()), tmp_path)
    before, wrote, now = run.turns
    assert any(line == old for _, line in wrote - before), (old, wrote - before)
    assert old not in {line for _, line in now}, now
    assert new in {line for _, line in now}, now
    assert run.why_finds.get(old), (run.why_finds, run.archive)


# (the message that writes the line, an ordinary follow-up that must change no line)
ORDINARY: list[tuple[str, str]] = [
    ("I live in Bristol.", "My bad, I'm late with the rent this month."),
    ("I live in Bristol.", "Wrong city, sorry."),
    ("I live in Bristol.", "Wrong number, it's 0117 496 0000."),
    ("I live in Bristol.", "I was wrong about the film, it was great."),
    ("I live in Bristol.", "My mistake, I meant the other recipe."),
    ("I work at Initech.", "My bad, I forgot to say I also do some tutoring."),
    ("I work at Initech.", "Wrong job, it's Tuesday I have the interview for my cousin."),
    ("I work at Initech.", "OK I lied, I didn't finish the book."),
    ("I'm a paramedic.", "Typo earlier, I meant Thursday not Tuesday."),
    ("We deploy on Heroku.", "Wrong host for the party, it's Sam now."),
    ("We deploy on Heroku.", "My bad, the build broke on Heroku again."),
    ("I'm a paramedic.", "I misspoke earlier, the shift was long, not short."),
]


@pytest.mark.parametrize(("first", "follow_up"), ORDINARY, ids=[f for _, f in ORDINARY])
def test_an_ordinary_follow_up_changes_no_line(first: str, follow_up: str) -> None:
    st.assert_follow_up_changes_no_line(first, follow_up)
