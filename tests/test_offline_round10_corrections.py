"""Issue 36, tenth round: the correction shapes R's and S's first runs left stale, built as classes
(``rules/changes.py``, ``rules/corrections.py``, ``rules/revise.py``). Each class runs through the
real path (the archive step and a real Dream per turn) with sentences written for these tests, not
taken from the corpus: the old line leaves for the archive, where ``why`` finds it, replaced by the
new line in its own wording or with the user's words as its reason. Look-alikes of each class must
change nothing (and ``test_offline_round10_ordinary.py`` holds 90 more).
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.kinds import stem
from reverie.llm.offline.rules import SAID, extract_facts, revise

# (turns, the old line, the line that replaces it, or None when it is retired with the user's words)
DREAMED: list[tuple[tuple[str, str], str, str | None]] = [
    # a retraction without a value: the one line it names
    (
        ("We're using Supabase for auth in the app.", "Please forget the thing about Supabase."),
        "Uses Supabase for auth in the app",
        None,
    ),
    (
        (
            "Please always add a summary at the top.",
            "Forget what I said about always adding a summary, it's too much.",
        ),
        "Always add a summary at the top",
        None,
    ),
    (
        ("I live in Tampere.", "Please remove where I live, I'd rather not have it saved."),
        "Lives in Tampere",
        None,
    ),
    (
        ("I've got a greenhouse.", "I gave the greenhouse up last year, too much upkeep."),
        "Has a greenhouse",
        None,
    ),
    # a slot named by its noun, the new value sharing no word with the old line
    (
        ("I work at Initech.", "New job: I'm at Hooli since last week."),
        "Works at Initech",
        "Works at Hooli",
    ),
    (
        ("I work at Initech.", "new job!! still design but at Hooli"),
        "Works at Initech",
        "Works at Hooli",
    ),
    (
        ("We live in Porto.", "Just moved. Braga now, the job moved us."),
        "Lives in Porto",
        "Lives in Braga",
    ),
    (("I'm vegetarian.", "Fully vegan since March."), "Is vegetarian", "Is vegan"),
    (("I'm vegan.", "gave up on being vegan, i eat chicken and fish again"), "Is vegan", None),
    (
        ("I work at Blue Bottle.", "I've opened my own cafe now, a tiny one in Leith."),
        "Works at Blue Bottle",
        None,
    ),
    (("I work nights.", "New rota, I'm on days now."), "Works night shifts", "Works day shifts"),
    # a rule undone or replaced
    (
        ("Reply in Spanish from now on.", "Too hard to follow. Back to English."),
        "Reply in Spanish",
        "Reply in English",
    ),
    (
        ("Please reply in Italian.", "ok stop the Italian, the trip is over."),
        "Reply in Italian",
        None,
    ),
    (
        ("Use imperial units please.", "please switch to metric"),
        "Use imperial units",
        "Use metric units",
    ),
    (
        ("Keep answers under 80 words.", "You can go up to about 200 words, 80 was too tight."),
        "Keep answers under 80 words",
        "Keep answers under 200 words",
    ),
    # a count said as an event
    (
        ("I have two kids.", "We had our third, a little boy!"),
        "Has two children",
        "Has three children",
    ),
    # a spelling said alone or by its letters
    (("I work at Accenure.", "Accenture*"), "Works at Accenure", "Works at Accenture"),
    (
        ("Our dog is called Rolo.", "its Rollo with two l's, my son corrected me"),
        "Has a dog named Rolo",
        "Has a dog named Rollo",
    ),
    # a migration finished
    (
        ("Our backend is Django 4.", "the Django 5 migration is finally done"),
        "Uses Django 4",
        "Uses Django 5",
    ),
    # a swap that finds no line of its template leaves the message to be read against memory;
    # "never mind" takes back a decision, past a name too short to anchor
    (
        ("Our apps run on Netlify.", "Moved off Netlify to Render, all done as of Friday."),
        "Apps run on Netlify",
        "Apps run on Render",
    ),
    (
        ("We decided to rewrite the search service in Go.", "Never mind the Go rewrite, it's off."),
        "Decided: rewrite the search service in Go",
        None,
    ),
    # a name held in both files, and a name said to be too formal
    (
        ("Call me Rob.", "I'd prefer Robert, actually — Rob was a school thing."),
        "Goes by Rob",
        "Goes by Robert",
    ),
    (
        ("Please call me Professor Adeyemi.", "That's too formal. Just Tunde is fine."),
        "Call the user Professor Adeyemi",
        None,
    ),
]


@pytest.mark.parametrize(("turns", "old", "new"), DREAMED, ids=[t[1] for t, _, _ in DREAMED])
def test_the_old_line_leaves_for_the_archive_where_why_finds_it(
    tmp_path, turns: tuple[str, str], old: str, new: str | None
) -> None:
    run = st.run_item(st.Item("T-10", "T", "correction", None, turns, (), ()), tmp_path)
    before, wrote, now = run.turns
    assert any(line == old for _, line in wrote - before), (old, wrote - before)
    assert old not in {line for _, line in now}, now
    assert run.why_finds.get(old), (run.why_finds, run.archive)
    if new is None:
        assert f'the user said: "{turns[1]}' in run.archive, run.archive
    else:
        assert new in {line for _, line in now}, now
        assert f'by "{new}"' in run.archive, run.archive


# (the message that writes a line, a look-alike of a class above that must change no line)
LOOK_ALIKES = [
    ("I live in Tampere.", "Please remove the photos of where I live from the draft."),
    ("I've got a greenhouse.", "I gave the greenhouse tomatoes to my neighbour."),
    ("I work at Initech.", "New job posting at Initech, can you help my friend apply."),
    ("I work at Initech.", "new job for my sister! she's at Hooli now"),
    ("We live in Porto.", "Just moved the desk. Braga next week for a conference."),
    ("I'm vegetarian.", "My husband gave up on being vegetarian, he eats chicken again."),
    ("I'm vegetarian.", "That cafe is fully vegan since March, we should go."),
    ("I work at Blue Bottle.", "My friend opened her own cafe now, a tiny one in Leith."),
    ("Reply in Spanish from now on.", "Back to English homework, ugh."),
    ("Please reply in Italian.", "Stop the Italian podcast recommendations, I have enough."),
    ("Use imperial units please.", "I switched to metric sockets for the car."),
    ("Keep answers under 80 words.", "The summary can go up to 200 words, it's for the board."),
    ("I have two kids.", "We had our third wedding anniversary yesterday."),
    ("I work at Accenture.", "Accenture is hiring again."),
    ("Our backend is Django 4.", "The Django 5 migration guide is long."),
    ("I work nights.", "My wife is on days now."),
    ("Call me Rob.", "My brother Robert is visiting, Rob and Robert, confusing."),
    ("Please call me Professor Adeyemi.", "My student said the lecture was too formal."),
    ("Our backend is Django 4.", "Python 3.13 came out now and I'm reading the changelog."),
    ("I have type 2 diabetes.", "Switched pharmacies, the new one is closer."),
    ("We decided to rewrite the search service in Go.", "Never mind, I found the Go docs."),
    ("We decided to rewrite the search service in Go.", "Never mind the Go meetup, it's full."),
]


@pytest.mark.parametrize(("first", "follow_up"), LOOK_ALIKES, ids=[f for _, f in LOOK_ALIKES])
def test_a_look_alike_changes_no_line(first: str, follow_up: str) -> None:
    st.assert_follow_up_changes_no_line(first, follow_up, "T-10", "T")


def test_a_retraction_naming_several_lines_or_none_retires_nothing() -> None:
    files = {"USER": ["Uses Supabase for auth", "Likes Supabase's docs"], "SOUL": [], "MEMORY": []}
    fact = next(
        f.text for f in extract_facts("Please forget the thing about Supabase.") if SAID in f.text
    )
    from reverie.llm.offline.rules import retire_line

    assert retire_line(fact, files) is None  # two lines hold it
    assert retire_line(fact, {"USER": ["Lives in Leeds"], "SOUL": [], "MEMORY": []}) is None


def test_the_one_stemmer_reads_both_ways() -> None:
    # the forms revise and changes each read before, now one function
    assert stem("replying") == stem("replies") == "reply"
    assert stem("questions") == stem("question")
    assert stem("allotments") == stem("allotment")
    assert stem("adding") == stem("add")
    assert stem("Mum's") == stem("mum")
    assert stem("Supabase's") == stem("Supabase")


def test_a_starred_word_and_a_spelling_reach_only_a_line_spelled_nearly_alike() -> None:
    files = {"USER": ["Works at Deloitte", "Lives in Leeds"], "SOUL": [], "MEMORY": []}
    fact = revise.said("KPMG*", st.SAID_ON)
    assert fact is not None and revise.revise(fact, files) == []  # no line spelled like it
    fact = revise.said("Deloitte*", st.SAID_ON)
    assert fact is not None and revise.revise(fact, files) == []  # the same spelling: no change


@pytest.mark.parametrize(
    "message",
    [
        "turns out its not gluten, its the dairy probably",
        "thats not Leeds, thats just where I work",
        "doesnt matter, its not Python its the network",
    ],
)
def test_a_pronoun_typed_without_its_apostrophe_is_no_swapped_value(message: str) -> None:
    """U-250's first run wrote ``Is its intolerant``: "its" (for "it's") read as the new value of
    "its not lactose". The words the swap refuses hold their forms typed without an apostrophe."""
    swaps = [f.text for f in extract_facts(message) if f.text.startswith("Now: swap ")]
    assert not [s for s in swaps if s.split(SAID)[0].split()[-1].lower() in ("its", "thats")], swaps


@pytest.mark.parametrize(
    "message",
    [
        "A customer email to summarize: 'I'm vegetarian and the menu had nothing for me.'",
        "Here's a review to summarise: 'I live in Bristol and I've had this blender for a year, it "
        "still works.'",
        "Can you summarize this comment: “I live in Dublin and I'm vegan, love the recipe”",
    ],
)
def test_a_text_pasted_in_quotes_to_be_summarised_writes_no_line(message: str) -> None:
    """T-197's first run wrote ``Lives in Manchester`` from a customer review pasted to be summed up
    in single quotes: the words are material, not the user's life."""
    run = st.run_item(st.Item("T-11", "T", "negative", None, (message,), (), ()))
    assert run.lines == [], run.lines
