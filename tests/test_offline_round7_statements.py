"""Issue 36, round 7: rules for the assistant however they are asked, a habit's frequency kept,
laughter and emojis that cover nothing, and clause boundaries (``rules/clauses.py``,
``rules/agent.py``, ``rules/statements.py``, ``rules/phrases.VAL``).

Every class is tested with sentences written fresh for these tests (none from the blind corpus or
LoCoMo) and with look-alikes that must give nothing: the precision side. One real Dream per class
of retirement shows the old rule archived where ``why`` finds it."""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import canon, extract_facts
from reverie.llm.offline.rules.clauses import clauses, polite_request


def _facts(sentence: str) -> list[str]:
    return [f.text for f in extract_facts(sentence)]


# -- a request to the agent said politely ----------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("Would you mind replying in Portuguese?", "Reply in Portuguese"),
        ("would you mind keeping replies under 80 words", "Keep answers under 80 words"),
        ("It'd be great if you used numbered lists.", "Answer in numbered lists"),
        ("I'd appreciate it if you kept answers brief.", "Keep answers short"),
        ("If you could skip the emojis, that would really help.", "Never use emojis"),
        ("if you could avoid jargon that'd be great", "Never use jargon"),
        ("Could you please keep your answers brief?", "Keep answers short"),
        ("could you always give me metric units?", "Use metric units"),
        ("Would you mind using Canadian spelling?", "Use Canadian spelling"),
        ("Could you answer in Italian from now on?", "Reply in Italian"),
    ],
)
def test_a_polite_request_is_read_as_the_rule_it_asks_for(sentence: str, line: str) -> None:
    assert _facts(sentence) == [line]
    assert canon(line).target == "SOUL"


@pytest.mark.parametrize(
    "sentence",
    [
        # a bare question may ask for the next answer only (the hand corpus's questions)
        "Could you answer in Italian?",
        "Can you keep answers short?",
        "Would you call me Mo?",
        # a one-off ask, or no verb the agent follows
        "Could you please translate this into Italian?",
        "would you mind if I asked about Lisbon?",
        "Could you please help me move house?",
        "It'd be great if you could tell me where the station is.",
        "if you could skip the small print in this one, that would help",
        # a condition on the user, not a request: a polite frame states nothing about them
        "Would you mind I live in Porto?",
        "it'd be great if you knew I work at Siemens",
        # "could you always …" reads no free "Always …" line
        "could you please always think twice?",
    ],
)
def test_a_question_or_a_one_off_ask_gives_no_rule(sentence: str) -> None:
    assert _facts(sentence) == [], sentence


def test_a_polite_frame_turns_the_verb_into_its_imperative() -> None:
    assert polite_request("Would you mind putting the summary first?") == "put the summary first"
    assert polite_request("It'd be great if you stopped adding emojis") == "stop adding emojis"
    assert polite_request("it would be great if you wrote dates as DD.MM.YYYY") == (
        "write dates as DD.MM.YYYY"
    )
    assert polite_request("Would you mind hiking with me?") is None  # no verb of an answer


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("always use imperial with me, feet and pounds and all that", "Use imperial units"),
        ("Keep the tone friendly please.", "Be friendly"),
        ("use a formal tone with me", "Be formal"),
        ("end every reply with a quick recap", "End answers with a quick recap"),
        (
            "Always close with a short summary, my team skims lol",
            "End answers with a short summary",
        ),
        ("pls no tables, just write plain text", "Never use tables"),
        ("keep it brief pls, 80 words max", "Keep answers under 80 words"),
    ],
)
def test_a_rule_said_in_other_words_is_read(sentence: str, line: str) -> None:
    assert _facts(sentence) == [line]
    assert canon(line).target == "SOUL"


@pytest.mark.parametrize(
    "sentence",
    [
        "We use metric always at work.",
        "the tone of the meeting was formal",
        "I always end with a summary in my reports",
        "I finish with a recap at every meeting",
        "no tables, the slides look cleaner",
        "Keep it short.",
        "keep it brief, I wrote 800 words today",
    ],
)
def test_a_look_alike_of_those_rules_gives_none(sentence: str) -> None:
    assert not [f for f in _facts(sentence) if canon(f).target == "SOUL"], sentence


# -- a rule loosened or reversed retires the old one -----------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "You can go longer now.",
        "feel free to write longer again",
        "Longer answers are fine again, the short ones felt rushed.",
    ],
)
def test_a_length_rule_loosened_retires_the_length_line(sentence: str) -> None:
    facts = extract_facts(sentence)
    assert [f.text.split(";")[0] for f in facts] == ["Gone: length"]
    assert facts[0].mark == "correction"


@pytest.mark.parametrize(
    "sentence",
    [
        "You can't go longer, sorry.",
        "My essays can go longer now.",
        "the talks can be longer now",
        "longer answers are fine for the report section",  # narrowed: ``changes``' own rule
    ],
)
def test_a_loosening_that_is_not_the_users_rule_retires_nothing_here(sentence: str) -> None:
    assert not [
        f
        for f in extract_facts(sentence)
        if f.text == "Gone: length"
        or (f.text.startswith("Gone: length") and "report" not in f.text)
    ], sentence


def test_a_length_rule_reversed_is_a_correction_of_the_length_slot() -> None:
    facts = extract_facts("Actually, I'd rather have detailed answers now.")
    assert [(f.text, f.mark) for f in facts] == [("Give detailed answers", "correction")]
    assert canon("Give detailed answers").slot == canon("Keep answers short").slot


def test_a_loosened_rule_is_archived_where_why_finds_it(tmp_path) -> None:
    item = st.Item(
        "T-71",
        "T",
        "correction",
        None,
        ("Keep answers under 60 words.", "You can go longer now, I have more time to read."),
        (),
        (),
    )
    run = st.run_item(item, tmp_path)
    assert run.lines == [], run.lines
    assert "- Keep answers under 60 words" in run.archive, run.archive
    assert run.why_finds.get("Keep answers under 60 words"), run.why_finds


def test_a_reversed_rule_replaces_the_old_one_through_dream(tmp_path) -> None:
    item = st.Item(
        "T-72",
        "T",
        "correction",
        None,
        ("Keep answers short please.", "Actually I'd rather have longer answers now."),
        (),
        (),
    )
    run = st.run_item(item, tmp_path)
    assert run.lines == [("SOUL.md", "Give detailed answers")], run.lines
    assert run.why_finds.get("Keep answers short"), run.why_finds


def test_a_format_banned_as_a_change_replaces_the_format_line() -> None:
    facts = _facts("on second thought, no numbered lists")
    assert facts == ["Never use numbered lists (replaces: Answer in numbered lists)"]
    assert _facts("no numbered lists please") == ["Never use numbered lists"]  # no change said


def test_a_reversed_format_is_archived_where_why_finds_it(tmp_path) -> None:
    item = st.Item(
        "T-73",
        "T",
        "correction",
        None,
        ("Please answer in tables.", "actually, stop using tables, plain text reads better"),
        (),
        (),
    )
    run = st.run_item(item, tmp_path)
    assert ("SOUL.md", "Answer in tables") not in run.lines, run.lines
    assert run.why_finds.get("Answer in tables"), (run.lines, run.archive)


# -- a habit's frequency ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("I mostly cycle to the office.", "Mostly cycles to the office"),
        ("I usually carry a water filter.", "Usually carries a water filter"),
        ("I work from home most days.", "Works from home most days"),
        ("I mostly work from home.", "Mostly works from home"),
        ("I'm based in Ghent and work from home most days.", "Works from home most days"),
        ("I work from home", "Works from home"),
        ("I'm mostly vegan.", "Is mostly vegan"),
        ("I'm usually pescatarian", "Is usually pescatarian"),
        ("mostly vegetarian", "Is mostly vegetarian"),
    ],
)
def test_a_habits_frequency_stays_in_its_line(sentence: str, line: str) -> None:
    assert line in _facts(sentence)
    assert canon(line).target == "USER" and canon(line).slot is None


@pytest.mark.parametrize(
    "sentence",
    [
        # a kind's line would drop the hedge: nothing rather than "Lives in …"
        "I mostly live in Ghent.",
        "I'm mostly vegetarian.",
        "I mostly work at the Antwerp office.",
        # a frequency over a passing time or another person
        "I mostly work from home these days.",
        "My wife mostly works from home.",
        "we mostly work from home this month",
        # a hedge that is doubt, not frequency
        "I think I mostly cycle to work.",
        # the frequency in a trailing phrase, or where the line cannot keep it
        "I cycle mostly to work",
        "I'm usually in Lyon",
    ],
)
def test_a_frequency_never_leaves_a_line_without_it(sentence: str) -> None:
    for fact in _facts(sentence):
        assert {"mostly", "usually"} & set(fact.lower().split()), (sentence, fact)


def test_a_frequency_in_a_trailing_phrase_makes_no_line_of_the_head() -> None:
    facts = _facts("I'm a harpist here in Lyon, mostly weddings and funerals")
    assert not [f for f in facts if "harpist" in f], facts


# -- laughter, emojis and fillers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("I'm a midwife 😊", "Works as midwife"),
        ("I live in Tartu 🙂", "Lives in Tartu"),
        ("I keep two beehives 🐝", "Keeps two beehives"),
        ("I'm vegetarian tbh", "Is vegetarian"),
    ],
)
def test_an_emoji_or_a_closing_filler_is_no_part_of_the_line(sentence: str, line: str) -> None:
    assert _facts(sentence) == [line]


def test_laughter_at_what_the_user_gave_up_covers_nothing() -> None:
    facts = _facts("gave up on german lol, doing Dutch now")
    assert "No longer learning German" in facts
    assert all("lol" not in f for f in facts)


@pytest.mark.parametrize(
    "sentence",
    [
        "I have three cats, lol.",
        "I'm the King of Spain haha",
        "I quit my job lol jk",
        "gave up on german lol just kidding",
        "I'm so thrilled 🙄",
        "I work at the Kremlin 😂",
    ],
)
def test_laughter_at_a_claim_still_covers_it(sentence: str) -> None:
    assert not [f for f in _facts(sentence) if not f.startswith("Gone: ")], sentence


# -- clause boundaries ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("can't stand fennel tastes like licorice", "Dislikes fennel"),
        ("I hate okra it's so slimy", "Dislikes okra"),
        ("I love durian it smells like heaven to me", "Likes durian"),
    ],
)
def test_a_remark_run_on_without_a_comma_ends_the_clause_before_it(
    sentence: str, line: str
) -> None:
    assert _facts(sentence) == [line]


def test_a_run_on_cut_needs_a_clause_before_it_and_nothing_binding_them() -> None:
    assert clauses("I like how it looks") == ["I like how it looks"]
    assert clauses("I know it's tasty") == ["I know it's tasty"]
    assert clauses("the soup tastes like soap") == ["the soup tastes like soap"]


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("I love Vue.js", "Likes Vue.js"),
        ("we chose Svelte.js", "Chose Svelte.js"),
        ("I use Python 3.13", "Uses Python 3.13"),
    ],
)
def test_a_dot_inside_a_value_is_part_of_it(sentence: str, line: str) -> None:
    assert line in _facts(sentence)


def test_a_dot_before_a_capital_still_ends_the_value() -> None:
    facts = _facts("I like oolong.I live in Gdansk")
    assert "Likes oolong" in facts and not [f for f in facts if ".I" in f]


# -- the self-statement stage: a home rented, a fast kept ----------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("we rent a tiny flat out in Vallila", "Rents a tiny flat"),
        ("I rent a two-bedroom apartment near the port.", "Rents a two-bedroom apartment"),
        ("I'm in Tbilisi, we rent a house in Vake", "Rents a house"),
        ("I keep kosher and I fast on Yom Kippur.", "Fasts on Yom Kippur"),
    ],
)
def test_a_home_rented_or_a_fast_kept_is_a_line(sentence: str, line: str) -> None:
    assert line in _facts(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "we rent a flat in Nice for the summer",
        "we rent a car when we visit",
        "we rent out our spare room",
        "my brother rents a flat in Riga",
        "we rent bikes on weekends",
        "I fast",
    ],
)
def test_a_rental_for_a_stay_or_someone_elses_gives_no_line(sentence: str) -> None:
    assert not [f for f in _facts(sentence) if f.startswith(("Rents", "Fasts"))], sentence
