"""Issue 36, fourth round: every correction retires the old line, by kind of fact. Each case is a
class of statement (a correction frame of one kind of fact), run through the real path (archive,
history, a real Dream per turn: ``tests/offline_statements.run_item``): the old line leaves its
file for the archive, where ``why`` finds it, and the new value is written only when it is read
with confidence. The sentences are paraphrases written for these tests, not the corpus's.

What only looks like a correction (a plan, a friend's change, a tool a team moved to, a denial
without a cue of change) retires nothing (``KEPT``).
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract_facts

# (first turn, later turn, the old line, the new line or None when no value is read)
RETIRED = [
    # home: a relocation told with a time after the place; the old home denied first
    (
        "Home is Lyon.",
        "Not Lyon anymore, we relocated to Grenoble over the winter.",
        "Lives in Lyon",
        "Lives in Grenoble",
    ),
    # home: a value said beside the old one, mid-sentence ("X not Y")
    (
        "i live in porto",
        "oops i meant to say i live in Braga not porto",
        "Lives in Porto",
        "Lives in Braga",
    ),
    # pet died: a sentence adverb is no part of its name; the new pet is read
    (
        "I have a dog called Biscuit.",
        "Sadly Biscuit died in June. We've since adopted a puppy called Olive.",
        "Has a dog named Biscuit",
        "Has a puppy named Olive",
    ),
    # pet renamed: "the X's name is NEW not OLD"
    (
        "We have a poodle named Bella.",
        "I mistyped before, the poodle's name is Stella not Bella",
        "Has a poodle named Bella",
        "Has a poodle named Stella",
    ),
    # allergy narrowed: the old allergen cleared, the new one read
    (
        "I'm allergic to nuts.",
        "The allergy test came back: it's only walnuts, other nuts are fine.",
        "Allergic to nuts",
        "Allergic to walnuts",
    ),
    # like reversed: the like ended
    (
        "I love techno.",
        "honestly I've gone off techno, I'm into ambient now",
        "Likes techno",
        None,
    ),
    # like reversed: a dislike taken up
    ("I don't like swimming.", "Got into swimming this year!", "Dislikes swimming", None),
    # a unit rule for the agent switched, the reason in a plan of the user's own
    (
        "Please use imperial units.",
        "Actually switch to metric units, I'm trying to learn them.",
        "Use imperial units",
        "Use metric units",
    ),
    # answer language: "let's go back to …"
    (
        "Reply in Spanish please.",
        "Let's go back to English for answers.",
        "Reply in Spanish",
        "Reply in English",
    ),
    # answer format: bullets to paragraphs
    (
        "Always give me answers in bullet points.",
        "the bullets are too much, just write normal paragraphs from now on",
        "Answer in bullet points",
        "Answer in paragraphs",
    ),
    # answer format narrowed by an exception: the old rule leaves, no rule without its exception
    (
        "Answer in bullet points.",
        "Change of plan: paragraphs, and bullets only for step lists.",
        "Answer in bullet points",
        None,
    ),
    # answer length narrowed later
    (
        "Keep your answers short.",
        "Longer answers are fine for code, keep it short for everything else.",
        "Keep answers short",
        None,
    ),
    # a runtime's version upgraded
    (
        "The API runs on Python 3.9.",
        "We upgraded to Python 3.11 last week.",
        "API runs on Python 3.9",
        "API runs on Python 3.11",
    ),
    ("Project runs on Node 16.", "we bumped Node to 20", "Project runs on Node 16", None),
    # a meeting time moved, the event said first
    (
        "Standup is at 9:00 every day.",
        "Standup moved to 9:45 starting Monday.",
        "Team cadence: Standup at 9:00 every day",
        "Team cadence: Standup at 9:45 every day",
    ),
    (
        "My 1:1 with Omar is Mondays at 2pm.",
        "The 1:1 with Omar moved to Fridays, same time.",
        "Team cadence: 1:1 with Omar Mondays at 2pm",
        "Team cadence: 1:1 with Omar Fridays at 2pm",
    ),
    # a deadline moved: "the new deadline is …", a subject said with fewer words
    (
        "The launch deadline is June 2.",
        "Launch slipped, the new deadline is June 20.",
        "Deadline for launch: 2027-06-02",
        "Deadline for launch: 2027-06-20",
    ),
    (
        "The grant proposal deadline is April 9.",
        "correction: proposal deadline is April 11",
        "Deadline for grant proposal: 2027-04-09",
        "Deadline for proposal: 2027-04-11",
    ),
    (
        "The board review is on the 3rd of June.",
        "they pushed the review back, so its June 17 now",
        "Board review on 2027-06-03",
        "Board review on 2027-06-17",
    ),
    # role: a promotion, typed in a hurry; a job left for a new one
    (
        "I'm a junior designer at Figma.",
        "got promtoed to senior designer!",
        "Works as junior designer",
        "Works as senior designer",
    ),
    (
        "I'm a nurse.",
        "Update: I've left nursing, I started as a project manager at Atlassian this month.",
        "Works as nurse",
        "Works as project manager",
    ),
    # a condition ended, read as its own statement without the negation
    ("I'm asthmatic.", "I'm not asthmatic anymore, I outgrew it.", "Has asthma", None),
    # a favourite replaced, the old value named in the message
    (
        "My favourite season is autumn.",
        "scratch that, spring's my favourite, autumn here is grey",
        "Favourite season: autumn",
        "Favourite season: spring",
    ),
]


@pytest.mark.parametrize(("first", "later", "old", "new"), RETIRED)
def test_a_correction_of_each_kind_retires_the_old_line_into_the_archive(
    tmp_path, first: str, later: str, old: str, new: str | None
) -> None:
    run = st.run_item(st.Item("T-1", "T", "correction", None, (first, later), (), ()), tmp_path)
    lines = [line for _, line in run.lines]
    assert old not in lines, lines
    assert run.why_finds.get(old), (run.why_finds, run.archive)
    if new is not None:
        assert new in lines, lines


# (first turn, later turn, the line that must stay)
KEPT = [
    ("I live in Leeds.", "We replaced Jest with Vitest when we moved to Vite.", "Lives in Leeds"),
    ("I live in Leeds.", "We switched to Vite when we moved to Leeds.", "Lives in Leeds"),
    ("I'm vegan.", "I'm not vegan, I'm plant-based.", "Is vegan"),  # a denial, no change
    ("I'm allergic to nuts.", "Walnuts are fine in salads.", "Allergic to nuts"),
    ("I love techno.", "My brother has gone off techno.", "Likes techno"),
    (
        "Reply in Spanish please.",
        "Write paragraphs for the report, not bullets.",
        "Reply in Spanish",
    ),
    ("Project runs on Node 16.", "We upgraded to Python 3.12.", "Project runs on Node 16"),
    ("I'm a nurse.", "My sister got promoted to head nurse.", "Works as nurse"),
    ("I'm a nurse.", "I started as a cleaner at the hospital in 2009.", "Works as nurse"),
    ("My favourite season is autumn.", "Spring's my favourite too.", "Favourite season: autumn"),
]


@pytest.mark.parametrize(("first", "later", "kept"), KEPT)
def test_what_only_looks_like_a_correction_retires_nothing(
    tmp_path, first: str, later: str, kept: str
) -> None:
    run = st.run_item(st.Item("T-2", "T", "negative", None, (first, later), (), ()), tmp_path)
    assert kept in [line for _, line in run.lines], run.lines
    assert f"- {kept} · " not in run.archive, run.archive


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message)]


def test_laughter_covers_its_own_sentence_not_the_whole_message() -> None:
    # laughter at a claim: that sentence is a joke, the message's other sentences stand
    assert facts("Sure, I work at NASA. lol") == []
    assert facts("I'm the Queen of England, haha.") == []
    assert facts("I have a dog. lol. I live in Oslo.") == ["Lives in Oslo"]
    # laughter at one's own slip covers nothing
    assert facts("lol autocorrect, it's Rollo with two Ls")[0].startswith("Now: name Rollo")
    # sarcasm still covers the whole message
    assert facts("Oh great, I live in Oslo now. I work at NASA.") == []


def test_a_move_told_as_the_time_of_something_else_gives_no_home() -> None:
    assert not [
        f
        for f in facts("We replaced Jest with Vitest when we moved to Vite.")
        if "Vite" in f and "Lives" in f
    ]
    assert not [
        f
        for f in facts("We replaced Jest with Vitest when we moved to Vite.")
        if f.startswith("Gone: home")
    ]
    assert facts("We moved to Lisbon in May.") == ["Lives in Lisbon"]


def test_a_possessive_is_no_project_name() -> None:
    assert "S website runs on Shopify" not in facts("My shop's website runs on Shopify.")


def test_a_new_deadline_has_no_subject_named_new() -> None:
    assert not [
        f for f in facts("Release got pushed, the new deadline is March 17.") if "for new" in f
    ]


def test_values_typed_in_lower_case() -> None:
    assert facts("reply in arabic from now on") == ["Reply in Arabic"]
    assert facts("reply in kind") == []
    assert facts("radiohead is my all time fav band, no contest") == ["Favourite band: Radiohead"]
    assert facts("this is my favourite band") == []


def test_a_swap_names_the_old_value_by_its_acronym() -> None:
    from reverie.llm.offline.rules import resolve_correction

    def files(*lines: str) -> dict[str, list[str]]:
        return {"USER": [], "SOUL": [], "MEMORY": list(lines)}

    assert resolve_correction(
        "Now: swap Vite; said: CRA", files("Uses React 18", "Uses Create React App")
    ) == ("MEMORY", "Uses Create React App", "Uses Vite")
    # only a whole name: "NY" is no part of "New York City", "CB" none of "Google Cloud Build"
    home = {"USER": ["Lives in New York City"], "SOUL": [], "MEMORY": []}
    assert resolve_correction("Now: swap Boston; said: NY", home) is None
    assert (
        resolve_correction("Now: swap AWS; said: CB", files("CI runs on Google Cloud Build"))
        is None
    )
