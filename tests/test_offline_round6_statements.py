"""Issue 36, round 6: the user's plain self-statements that no kind rule reads
(``reverie/llm/offline/rules/statements.py``), kept as a short third-person line in the user's words.

Each class of what the stage writes and of what it refuses is tested with sentences written fresh
for these tests (none is from the blind corpus or LoCoMo); the refusals are the precision side and
outnumber the writes. A line goes through a real Dream to its file, and a later statement that ends
it retires it to the archive, where ``why`` finds it."""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import canon, extract_facts, is_canonical
from reverie.llm.offline.rules import statements as stage


def _facts(sentence: str) -> list[str]:
    return [f.text for f in extract_facts(sentence)]


# -- what the stage writes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        # a habit or a possession, by a verb of a durable state
        (
            "I keep three beehives at the end of the orchard.",
            "Keeps three beehives at the end of the orchard",
        ),
        ("i carry an inhaler everywhere", "Carries an inhaler everywhere"),
        ("I collect vintage fountain pens.", "Collects vintage fountain pens"),
        ("I supervise six junior auditors.", "Supervises six junior auditors"),
        (
            "I also brew a small batch of cider every autumn.",
            "Brews a small batch of cider every autumn",
        ),
        ("I sing in a barbershop quartet.", "Sings in a barbershop quartet"),
        ("I mentor two first-year apprentices.", "Mentors two first-year apprentices"),
        # animals fostered, bred or trained are a pursuit; an animal kept is the pet rules'
        ("I foster puppies for a rescue in Leeds.", "Fosters puppies for a rescue in Leeds"),
        ("I train guide dogs for a charity.", "Trains guide dogs for a charity"),
        # "I'm a/an/the …": what the user is
        ("I'm the treasurer of a small credit union.", "Is the treasurer of a small credit union"),
        ("I referee under-12 football.", "Referees under-12 football"),
        # a durable state said by its adjective
        ("I'm retired.", "Is retired"),
        ("I'm left-handed.", "Is left-handed"),
        ("I'm colour-blind, for what it's worth.", "Is colour-blind"),
        # "I have a …": a possession that is no event
        ("I have a master's degree in hydrology.", "Has a master's degree in hydrology"),
        ("I've got a brown belt in judo.", "Has a brown belt in judo"),
    ],
)
def test_a_plain_statement_about_the_user_lands_in_user(sentence: str, line: str) -> None:
    assert _facts(sentence) == [line]
    assert canon(line).target == "USER" and canon(line).slot is None


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("Our app supports iOS 16 and later.", "App supports iOS 16 and later"),
        ("Our API relies on Stripe Connect.", "API relies on Stripe Connect"),
        ("The monorepo is containerised with Podman.", "Monorepo is containerised with Podman"),
        ("Our product supports Arabic and Hebrew.", "Product supports Arabic and Hebrew"),
        ("The services talk over NATS.", "Services talk over NATS"),
        ("The pipeline runs on Dagster.", "Pipeline runs on Dagster"),
    ],
)
def test_a_statement_about_the_project_lands_in_memory(sentence: str, line: str) -> None:
    assert _facts(sentence) == [line]
    assert canon(line).target == "MEMORY" and canon(line).slot is None


def test_the_line_is_cut_at_its_reason_and_its_trailing_words() -> None:
    assert _facts("I carry an EpiPen because of a wasp allergy.") == ["Carries an EpiPen"]
    assert _facts("I collect enamel pins, mostly from national parks.") == ["Collects enamel pins"]
    assert _facts("I keep ducks: four runners and a call duck.") == ["Keeps ducks"]


def test_a_kind_rule_reads_its_clause_first_and_nothing_is_written_twice() -> None:
    assert _facts("I live in Lisbon.") == ["Lives in Lisbon"]
    # a kind rule that matched and refused its value knows the clause better: no free line
    assert _facts("I live in Narnia.") == []
    assert _facts("I work at the moon base.") == []
    # one clause, one fact: the stage runs only where no rule read the clause
    assert _facts("I speak Welsh, I collect beer mats.") == ["Speaks Welsh", "Collects beer mats"]


def test_a_line_of_this_stage_reads_back_to_its_file_with_no_slot() -> None:
    for line in ("Keeps bees", "Is left-handed", "Has a brown belt in judo", "Carries an inhaler"):
        assert canon(line).target == "USER" and canon(line).slot is None
        assert is_canonical(line)  # kept as written by Dream, never re-read into another template
    # another kind's template keeps its line: this stage's pattern comes after every kind's
    assert canon("Lives in Porto").slot == "home"
    assert not stage.RULES


# -- what the stage refuses: each a class ----------------------------------------------------------

REFUSED = {
    "feelings and evaluations": [
        "I'm so excited about the trip.",
        "I'm a bit lost with the new dashboard.",
        "I'm happy with it.",
        "I'm a total mess this week.",
        "I'm a lucky guy.",
        "I'm the worst at remembering birthdays.",
    ],
    "passing states and one-off events": [
        "I'm at the airport right now.",
        "I carry a spare charger today.",
        "I have a dentist appointment tomorrow.",
        "I went to the farmers market.",
        "I had a great time at the wedding.",
        "I just collected my new glasses.",
        "I've been to Peru twice.",
        "I keep forgetting my keys.",
    ],
    "a passing ailment, an appointment or an amount of time had": [
        "I have a migraine.",
        "I have a job interview at noon.",
        "I've got a nasty flu, so keep it brief today.",
        "I have five minutes before the bus.",
    ],
    "an idiom, no possession": [
        "I keep bees in mind.",
        "I keep an open mind about diets.",
        "I keep track of every receipt.",
        "I keep my cool in meetings.",
    ],
    "plans, wants, wishes and tries": [
        "I want to keep bees someday.",
        "I'm going to collect stamps.",
        "I'm trying to carry less stuff.",
        "I'd love to own a sailboat.",
        "I hope to mentor students next year.",
        "I need to train for the half marathon.",
    ],
    "hedges": [
        "I think I keep about ten hens.",
        "Maybe I'm a bit of a collector.",
        "I sort of manage the team.",
        "I probably own too many mugs.",
        "I guess I'm retired.",
    ],
    "questions and requests": [
        "Do I carry enough water for a day hike?",
        "I keep bees, is that a problem for the neighbours?",
        "Can you keep it short?",
        "Keep the answers under five lines.",
    ],
    "unresolved pronouns, demonstratives and a bare 'the X' said before": [
        "I own the business.",
        "I'm the owner.",
        "I keep it in the garage.",
        "I collect those.",
        "I carry them everywhere.",
        "I have a thing for it.",
        "I manage that.",
    ],
    "the listener": [
        "I keep your last answer in my notes.",
        "I'm a fan of yours.",
    ],
    "other people and possessives": [
        "I'm the daughter of a fisherman.",
        "I have a sister who collects coins.",
        "I carry my son's inhaler.",
        "I manage my mum's accounts.",
        "I have a friend in Oslo.",
    ],
    "negations": [
        "I don't keep chickens.",
        "I never carry cash.",
        "I'm not a morning person.",
        "I have no car.",
    ],
    "corrections, which a slotless line could not carry out": [
        "Actually I keep twenty hens.",
        "Update: I'm a lecturer at Makerere.",
    ],
    "money, phone numbers, links, code and swearing": [
        "I keep 500 dollars in a jar.",
        "I own a bike that cost €900.",
        "I carry a phone on +44 7700 900123.",
        "I maintain https://example.org for the club.",
        "I maintain a fork of foo() in C.",
        "I keep damn chickens.",
    ],
    "bounds: too short or too long": [
        "I'm a.",
        "I collect old cameras from the fifties and sixties that people give me at flea "
        "markets in the south of France",
    ],
    "timetables left to the schedule rules": [
        "I teach on Tuesday mornings.",
        "I coach at 7pm.",
    ],
    "names left to the family and pet rules": [
        "I have a tortoise called Speedy.",
        "I own a parrot named Kiwi.",
    ],
    "a project clause that is a wish or about someone else": [
        "Our app might target Android.",
        "The backend is written in what they chose.",
        "Our app targets my cousin's phone.",
    ],
}


@pytest.mark.parametrize(
    ("kind", "sentence"), [(k, s) for k, sentences in REFUSED.items() for s in sentences]
)
def test_a_refused_class_gives_no_free_line(kind: str, sentence: str) -> None:
    lines = [ln for ln, _target in _stage_lines(sentence)]
    assert lines == [], (kind, sentence, lines)


def _stage_lines(sentence: str) -> list[tuple[str, str]]:
    from reverie.llm.offline.rules.clauses import message_clauses

    return [ln for c in message_clauses(sentence) for ln in stage.lines(c)]


def test_chit_chat_between_friends_gives_nothing() -> None:
    """Written fresh in the manner of a conversation between friends (the LoCoMo tuning turns
    are the strongest guard, in test_offline_locomo.py)."""
    for sentence in [
        "Thanks so much, Maria! I'm so glad you liked the painting.",
        "I keep thinking about that trip to the lake, it was amazing!",
        "I have a big exam on Friday, wish me luck.",
        "I'm the one who always forgets the snacks, haha.",
        "I have a feeling this year is going to be great!",
        "I'm a sucker for sunsets like that.",
        "I carry so many memories from that summer.",
        "I have a few ideas for the party.",
    ]:
        assert _stage_lines(sentence) == [], sentence


def test_no_soul_line_is_written_by_this_stage() -> None:
    for sentence in ["I keep my answers short.", "I'm the admin, always reply in English."]:
        assert all(target != "SOUL" for _l, target in _stage_lines(sentence))


# -- the real path ---------------------------------------------------------------------------------


def test_a_line_lands_through_dream_and_a_later_end_retires_it_to_the_archive(tmp_path) -> None:
    item = st.Item(
        "T-1",
        "T",
        "statement",
        None,
        ("I keep about twelve quail in the backyard.", "I don't keep quail anymore."),
        (),
        (),
    )
    run = st.run_item(item, tmp_path)
    assert run.lines == [], run.lines  # written by the first turn, retired by the second
    assert "- Keeps about twelve quail in the backyard" in run.archive, run.archive
    assert run.why_finds.get("Keeps about twelve quail in the backyard"), run.why_finds


def test_lines_of_both_files_land_through_dream(tmp_path) -> None:
    item = st.Item(
        "T-2",
        "T",
        "statement",
        None,
        ("I carry a hearing aid.", "Our app runs on a Raspberry Pi cluster."),
        (),
        (),
    )
    run = st.run_item(item, tmp_path)
    assert run.lines == [
        ("USER.md", "Carries a hearing aid"),
        ("memory/MEMORY.md", "App runs on a Raspberry Pi cluster"),
    ]


def test_a_statement_line_retires_no_other_line(tmp_path) -> None:
    """It fills no slot: a second statement of the same verb stands beside the first."""
    item = st.Item(
        "T-3",
        "T",
        "statement",
        None,
        ("I collect vinyl records.", "I collect enamel pins."),
        (),
        (),
    )
    run = st.run_item(item, tmp_path)
    assert [ln for _f, ln in run.lines] == ["Collects vinyl records", "Collects enamel pins"]


# -- the household's animals and land; a hedge in a trailing phrase -------------------------------


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("We keep about 30 sheep and there are two dogs too.", "Keeps about 30 sheep"),
        ("We grow five acres of lavender in Provence.", "Grows five acres of lavender in Provence"),
        ("We breed about twenty alpacas.", "Breeds about twenty alpacas"),
    ],
)
def test_the_household_keeping_animals_or_land_is_the_users(sentence: str, line: str) -> None:
    assert _facts(sentence) == [line]


def test_a_household_having_something_is_no_possession() -> None:
    for sentence in ["We have a mouse in the kitchen.", "We have a leak in the roof."]:
        assert _stage_lines(sentence) == [], sentence


def test_a_hedge_of_proportion_in_a_trailing_phrase_leaves_the_head_a_statement() -> None:
    """The clause stage (``clauses._hedged_tail_cut``): "mostly" in the phrase after the comma
    qualifies that phrase; the head before it is read by every rule, this stage's too."""
    assert _facts("I'm a nurse at St Mary's, working mostly on the cardiac ward.") == [
        "Works as nurse",
        "Works at St Mary's",
    ]
    assert _facts("I referee under-12 football, mostly weekend league games near home.") == [
        "Referees under-12 football"
    ]
    # a hedge that reaches back, a lone hedge, or another place keeps the whole clause unsure
    for sentence in [
        "I live in Berlin, sometimes.",
        "I live in Berlin, mostly in Kreuzberg but sometimes in Paris.",
        "I'm vegetarian, mostly, I guess.",
        "I'm a cellist here in Porto, working mostly on film scores.",
    ]:
        assert not any(
            f.startswith(("Lives in P", "Works as", "Is vegetarian")) for f in _facts(sentence)
        ), sentence


def test_a_second_statement_joined_by_and_i_is_read_after_a_kind_rule_read_the_first() -> None:
    assert _facts("I'm allergic to kiwi and I carry antihistamines everywhere.") == [
        "Allergic to kiwi",
        "Carries antihistamines everywhere",
    ]
    assert _facts("I live in Leeds and I keep bees.") == ["Lives in Leeds", "Keeps bees"]
    # the user not alone as the first subject, a pronoun, or a verb of no durable state: nothing
    assert _facts("My partner and I keep a boat in Split.") == []
    assert _facts("I keep a boat in Split.") == ["Keeps a boat in Split"]  # the user alone: read
    assert _facts("I live in Leeds and I keep it quiet.") == ["Lives in Leeds"]
    assert _facts("I live in Leeds and I love it.") == ["Lives in Leeds"]


def test_hostile_text_gives_no_line_and_no_error() -> None:
    for sentence in [
        "I keep " + "1 " * 5000,
        "I collect " + "(" * 3000,
        "I carry an EpiPen \udcff everywhere.",
        "I keep " + "bees and I keep " * 400 + "bees.",
        "\x00I keep bees\x00",
    ]:
        facts = _facts(sentence)
        assert all(len(f) <= 160 for f in facts), facts
    assert _stage_lines("I carry a phone, +44 (0)20 7946 0958, everywhere.") == []
