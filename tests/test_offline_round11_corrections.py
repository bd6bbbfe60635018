"""Issue 36, eleventh round: the correction shapes T's and U's first runs left stale, built as
classes: a correction marker ("now", "actually", "update:", "new X:", "sorry,", "push X to Y", "X
with an h" …) on a slot memory already holds (employer, title, home, host, a meeting's time, a
date, a count of children, a name in two files, a version, a status, an allergy, a condition, a
team rule). Each class runs through the real path (the archive step and a real Dream per turn) with
sentences written for these tests, not taken from the corpus: the old line leaves for the archive,
where ``why`` finds it, replaced by the new line in its own wording or with the user's words as
its reason. ``test_offline_round11_ordinary.py`` holds the ordinary follow-ups that must change
nothing.
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules.phrases import SOMEONE_ELSE
from reverie.llm.offline.rules.revise import revise

# (turns, the old line, the line that replaces it, or None when it is retired with the user's words)
DREAMED: list[tuple[tuple[str, str], str, str | None]] = [
    # a slot relabelled: "new X: value"
    (("We deploy on Render.", "New host: Fly.io."), "Deployed on Render", "Deployed on Fly.io"),
    (("I live in Aarhus.", "New address: Odense, near the harbour."), "Lives in Aarhus", None),
    (("I work at Initech.", "New employer: Hooli."), "Works at Initech", "Works at Hooli"),
    # an employer left for another
    (
        ("I work at Beacon.", "I left Beacon, I'm at Initech now."),
        "Works at Beacon",
        "Works at Initech",
    ),
    (("I work at Initech.", "Just started at a new company, Hooli."), "Works at Initech", None),
    (
        (
            "I'm a nurse at Leeds General.",
            "i left leeds general, im at the royal free now, same job",
        ),
        "Works at Leeds General",
        "Works at the Royal Free",
    ),
    (
        ("I work at Nokia.", "Update: Nokia let me go, I'm job hunting now."),
        "Works at Nokia",
        None,
    ),
    # a title said anew, given, made, stepped down from, or fixed
    (
        ("I'm a junior designer at Hooli.", "senior designer now!! since March"),
        "Works as junior designer",
        "Works as senior designer",
    ),
    (
        ("I'm an assistant manager at Boots.", "They promoted me to branch manager last month."),
        "Works as assistant manager",
        "Works as branch manager",
    ),
    (
        ("I'm an associate at Linklaters.", "Made partner this year!"),
        "Works as associate",
        "Works as partner",
    ),
    (
        ("I'm the team lead for search.", "I stepped down as team lead, back to coding."),
        "Works as team lead",
        None,
    ),
    (
        ("I'm a data analyst.", "Small fix: I'm a data engineer, not an analyst."),
        "Works as data analyst",
        "Works as data engineer",
    ),
    # a meeting's hour said as a word, a date moved to a day of the month or said after "now"
    (
        ("Our weekly sync is at 2pm.", "Sync's at three now."),
        "Team cadence: weekly sync at 2pm",
        "Team cadence: weekly sync at 3pm",
    ),
    (
        ("The beta ships on the 5th of March.", "Push the beta to the 19th."),
        "Deadline for beta: 2027-03-05",
        "Deadline for beta: 2027-03-19",
    ),
    (
        ("Dissertation due 1 May.", "They gave me an extension! Now 12 June."),
        "Deadline for dissertation: 2027-05-01",
        "Deadline for dissertation: 2027-06-12",
    ),
    # a version, the other tool of the message named as it is held
    (
        ("We use Node 18 and Express.", "node is 22 now, express same"),
        "Uses Node 18",
        "Uses Node 22",
    ),
    # a name held in two files, respelled; someone else named in another clause is no one's name
    (
        ("Our dog is called Rolo.", "its Rollo with two l's lol, my son told me how to spell it"),
        "Has a dog named Rolo",
        "Has a dog named Rollo",
    ),
    (("Call me Mateo.", "Sorry, Matteo with two t's."), "Goes by Mateo", "Goes by Matteo"),
    # a count said with its noun, or as an event
    (
        ("We have two kids.", "Three kids now, the baby arrived on Friday!"),
        "Has two children",
        None,
    ),
    (
        ("I have two children.", "We had a third! A baby boy, born Sunday."),
        "Has two children",
        None,
    ),
    # a status an engagement ends
    (("I'm single.", "Update: I'm engaged to Priya!"), "Is single", None),
    # an allergy cleared by a test, a condition healed, a like taken off the list, a line dropped
    # from the notes or named by "the part about", a thing found to be something else
    (
        (
            "I'm allergic to sesame and kiwi.",
            "Only kiwi in the end — the sesame test came back negative.",
        ),
        "Allergic to sesame",
        None,
    ),
    (("I have a sprained ankle.", "Physio done, ankle is fine now."), "Has a sprained ankle", None),
    (("I love techno.", "Take techno off the list, I'm over it."), "Likes techno", None),
    (
        ("We use Trello for tasks.", "Drop Trello from your notes, nobody opens it."),
        "Uses Trello for tasks",
        None,
    ),
    (("I have a bad back.", "Ignore the part about my back, it's sorted."), "Has a bad back", None),
    (
        ("I'm gluten intolerant.", "turns out its not gluten, it's FODMAPs."),
        "Is gluten intolerant",
        None,
    ),
    # a team rule the team voted to stop
    (
        (
            "We agreed to squash-merge every PR.",
            "The team voted to stop squashing, plain merges now.",
        ),
        "Decided: squash-merge every PR",
        None,
    ),
    # a move said with its place and "now", a remark before it
    (
        ("I'm based in Utrecht.", "Oh and I should say, we relocated — Groningen now, since May."),
        "Lives in Utrecht",
        "Lives in Groningen",
    ),
]


@pytest.mark.parametrize(("turns", "old", "new"), DREAMED, ids=[t[1] for t, _, _ in DREAMED])
def test_the_old_line_leaves_for_the_archive_where_why_finds_it(
    tmp_path, turns: tuple[str, str], old: str, new: str | None
) -> None:
    run = st.run_item(st.Item("T-11", "T", "correction", None, turns, (), ()), tmp_path)
    before, wrote, now = run.turns
    assert any(line == old for _, line in wrote - before), (old, wrote - before)
    assert old not in {line for _, line in now}, now
    assert run.why_finds.get(old), (run.why_finds, run.archive)
    if new is not None:
        assert new in {line for _, line in now}, now
        assert f'by "{new}"' in run.archive, run.archive


def test_a_name_in_two_files_takes_the_new_spelling_in_both(tmp_path) -> None:
    run = st.run_item(
        st.Item(
            "T-11", "T", "correction", None, ("Call me Jon.", "Sorry, John with an h."), (), ()
        ),
        tmp_path,
    )
    assert {("USER.md", "Goes by John"), ("SOUL.md", "Call the user John")} <= run.turns[-1]
    assert not {line for _, line in run.turns[-1]} & {"Goes by Jon", "Call the user Jon"}


def test_a_respelling_of_someone_elses_name_or_of_two_names_changes_nothing() -> None:
    files = {"USER": ["Goes by Jon"], "SOUL": ["Call the user Jon"], "MEMORY": []}
    assert revise("Revise: My boss is John with an h, sorry.", files) == []
    two = {"USER": ["Goes by Jon", "Has a son named Jan"], "SOUL": [], "MEMORY": []}
    assert revise("Revise: Sorry, Jen with an e.", two) == []


def test_a_value_naming_another_line_is_no_new_value() -> None:
    files = {"USER": [], "SOUL": [], "MEMORY": ["Uses Python 3.10", "Uses FastAPI"]}
    [r] = revise("Revise: python is 3.12 now, fastapi same", files)
    assert (r.old, r.new) == ("Uses Python 3.10", "Uses Python 3.12")


def test_a_relabelled_slot_needs_one_line_of_it_and_a_value_of_its_kind() -> None:
    one = {"USER": [], "SOUL": [], "MEMORY": ["Deployed on Heroku"]}
    two = {"USER": [], "SOUL": [], "MEMORY": ["Deployed on Heroku", "Runs on Vercel"]}
    assert revise("Revise: New host: Fly.io.", two) == []
    assert revise("Revise: New host: my cousin Sam.", one) == []
    home = {"USER": ["Lives in Leeds"], "SOUL": [], "MEMORY": []}
    assert revise("Revise: New address: Flat 4.", home) == []


def test_someone_else_is_one_pattern_and_a_pronoun_acting_on_the_user_is_not_someone_else() -> None:
    for theirs in ("my sister moved to Leeds", "he quit", "they gave up being vegan", "our niece"):
        assert SOMEONE_ELSE.search(theirs), theirs
    for mine in ("They made me store manager", "they moved our standup to 10", "I quit"):
        assert not SOMEONE_ELSE.search(mine), mine
