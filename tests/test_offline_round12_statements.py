"""Issue 36, twelfth round: classes of plain statements, each kept only if it moved the validation
splits (V and W, read through aggregate figures only) without a worse precision or stale count.
Every sentence here was written for these tests, not taken from a corpus; each class has
look-alikes in its own words that must give nothing of it.

- an answer format said as what helps the user ("Bullet points help me a lot"), also after another
  clause ("I have ADHD, so tables work better for me"): a SOUL.md rule; how answers open or close,
  asked to stop ("Stop ending every answer with a question");
- a diet held with how long ("been veggie about a decade") or by what one is on or doing ("I'm
  doing keto", "on low FODMAP for my IBS");
- a job title as people introduce themselves ("Nurse here, ICU"), clipped ("backend dev",
  "sparky"), or of a trade outside tech ("civil servant", "dental hygienist", "postman"); a
  retired title is no job now ("I'm a retired teacher" is ``Is a retired teacher``);
- a meeting's cadence by its week of the month or quarter ("the first Tuesday of every quarter"),
  with where it is held after it ("…, on Google Meet", "…, at the community centre");
- a home named by its kind and where it lies from a known place ("I live in a small village
  outside Cork" is ``Lives in a village outside Cork``);
- a second statement after "and" with the subject left out, after one of the user's own ("I work
  as a teacher and live in Porto", "…, working as a chef"), a relative named as living with the
  user ("I live in Porto with my wife Ana"), and pets named as the user's ("Luna is our cat", "My
  dogs are Oscar and Bella").

Most cases run ``extract_facts`` on one message (cheap: no workspace, no Dream); one per class
runs through the real path (archive, history, a real Dream).
"""

from __future__ import annotations

import offline_statements as st
import pytest

from reverie.llm.offline.rules import SOUL, USER, canon, extract_facts


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message) if not f.text.startswith("Gone: ")]


# -- an answer format that helps the user -----------------------------------------------------------
FORMATS = [
    ("Numbered lists help me a lot.", "Answer in numbered lists"),
    ("I'm dyslexic, so bullet points really help.", "Answer in bullet points"),
    ("Tables work way better for me.", "Answer in tables"),
    ("Honestly, short paragraphs are easier for me to take in.", "Answer in short paragraphs"),
    ("bullets help me loads", "Answer in bullets"),
]


@pytest.mark.parametrize(("message", "line"), FORMATS)
def test_a_format_said_to_help_the_user_is_a_rule_for_answers(message: str, line: str) -> None:
    assert line in facts(message), (message, facts(message))
    assert canon(line).target == SOUL


FORMAT_LOOK_ALIKES = [
    "Bullet points help me when I write my own reports.",  # the user's writing, not answers
    "Tables help me a lot at work.",  # where: at work
    "His bullet points help a lot.",  # someone else's
    "Would numbered lists help?",  # a question
    "Bullet points helped me a lot at school.",  # the past
    "Tables don't help me.",  # a denial
    "Coffee helps me a lot.",  # no format
    "My notes in bullet points help me a lot.",  # the user's notes
    "For my students tables work better.",  # for others
]


@pytest.mark.parametrize("message", FORMAT_LOOK_ALIKES)
def test_a_format_look_alike_gives_no_rule(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if canon(f).target == SOUL], (message, got)


ANSWER_ENDS = [
    ("Stop ending every answer with a question.", "Never end answers with a question"),
    ("please don't start your replies with a compliment", "Never start answers with a compliment"),
    ("Don't finish every response with a summary, thanks.", "Never end answers with a summary"),
]


@pytest.mark.parametrize(("message", "line"), ANSWER_ENDS)
def test_how_answers_open_or_close_asked_to_stop_is_a_rule(message: str, line: str) -> None:
    assert line in facts(message), (message, facts(message))
    assert canon(line).target == SOUL


ANSWER_END_LOOK_ALIKES = [
    "Stop ending the meeting with a quiz.",  # no answer of the agent's
    "Don't end every email with Cheers.",  # the user's emails
    "My boss doesn't end every answer with a question.",  # someone else's
    "I never end my answers with a question.",  # the user's own habit
    "Please don't start your replies with 'Certainly!' or anything like that.",  # the quote is gone
]


@pytest.mark.parametrize("message", ANSWER_END_LOOK_ALIKES)
def test_an_answer_end_look_alike_gives_no_rule(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if canon(f).target == SOUL], (message, got)


# -- a diet held, with how long or by what one is on ------------------------------------------------
DIETS = [
    ("Been veggie about fifteen years.", "Is vegetarian"),
    ("ive been veggie for years, no fish either", "Is vegetarian"),
    ("I've been vegan for over a decade.", "Is vegan"),
    ("I'm on keto.", "Diet: keto"),
    ("im doing keto since the new year", "Diet: keto"),
    ("I've been doing paleo since March, feels great.", "Diet: paleo"),
    ("I'm on low FODMAP because of my gut.", "Diet: low-FODMAP"),
    ("Currently I'm on low salt for my blood pressure.", "Diet: low-salt"),
]


@pytest.mark.parametrize(("message", "line"), DIETS)
def test_a_diet_held_is_read(message: str, line: str) -> None:
    assert line in facts(message), (message, facts(message))
    assert canon(line).target == USER


DIET_LOOK_ALIKES = [
    "My wife has been vegan for years.",  # someone else's
    "I'm doing keto research for an article.",  # a noun follows
    "I'm on the keto subreddit a lot.",  # a forum
    "My husband is on keto.",  # someone else's
    "I'm doing keto for a month, just to try it.",  # a trial, for a time
    "I'm on keto this week.",  # a passing state
    "I was on keto for a year.",  # the past
    "I'm not on keto.",  # a denial
    "Are you on keto?",  # a question
    "I'm on low battery, talk later.",  # no diet
]


@pytest.mark.parametrize("message", DIET_LOOK_ALIKES)
def test_a_diet_look_alike_gives_no_diet(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith(("Diet:", "Is veg"))], (message, got)


# -- a job title as people introduce themselves, clip it, or hold it outside tech ---------------------
TITLES = [
    ("Midwife here, mostly nights.", "Works as midwife"),
    ("Plumber here!", "Works as plumber"),
    ("Frontend dev at Klarna.", "Works as frontend developer"),
    ("I'm a mobile dev.", "Works as mobile developer"),
    ("self-employed sparky here, mostly rewires", "Works as self-employed electrician"),
    ("I'm a civil servant in the tax office.", "Works as civil servant"),
    ("im a dental hygienist", "Works as dental hygienist"),
    ("I work as a postman in Dundee.", "Works as postman"),
    ("I'm a hospital porter.", "Works as hospital porter"),
    ("I'm a shift supervisor at Amazon.", "Works as shift supervisor"),
    ("I'm a retired electrician.", "Is a retired electrician"),
    ("im a retired midwife, 40 years on the wards", "Is a retired midwife"),
]


@pytest.mark.parametrize(("message", "line"), TITLES)
def test_a_job_title_is_read(message: str, line: str) -> None:
    got = facts(message)
    assert line in got, (message, got)
    assert canon(line).slot == "role"


TITLE_LOOK_ALIKES = [
    "The nurse here is lovely.",  # someone here
    "Nurse here says I'm fine.",  # someone here, speaking
    "Any plumbers here?",  # a question
    "New here.",  # no title
    "Student here.",  # a student's line is its own
    "My dad is a vet.",  # someone else's
    "I'm a former nurse.",  # held once
    "Long time listener here.",  # no title
    "Cat owner here, two ragdolls.",  # a belonging, not a trade
    "Amateur photographer here.",  # a pastime
    "Fellow engineer here.",  # the listener's trade
]


@pytest.mark.parametrize("message", TITLE_LOOK_ALIKES)
def test_a_title_look_alike_gives_no_job(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith("Works as")], (message, got)


def test_a_retired_title_is_never_a_job_now() -> None:
    for message in ("I'm a retired teacher.", "im a retired nurse", "I am a retired postman."):
        got = facts(message)
        assert not [f for f in got if f.startswith("Works as")], (message, got)
        assert [f for f in got if f.startswith("Is a retired ")], (message, got)


# -- a meeting's cadence by its week of the month or quarter, with where it is held -------------------
CADENCES = [
    (
        "Leadership meeting is the last Friday of every quarter.",
        "Team cadence: Leadership meeting the last Friday of every quarter",
    ),
    (
        "Staff meeting is the second Monday of each month, at the village hall.",
        "Team cadence: Staff meeting the second Monday of each month",
    ),
    (
        "Our lab meeting is every Wednesday at 11, on Zoom.",
        "Team cadence: Lab meeting on Wednesdays at 11",
    ),
    ("Board meeting is quarterly.", "Team cadence: Board meeting quarterly"),
]


@pytest.mark.parametrize(("message", "line"), CADENCES)
def test_a_meeting_cadence_is_read(message: str, line: str) -> None:
    assert line in facts(message), (message, facts(message))


CADENCE_LOOK_ALIKES = [
    "The meeting is at 3 on Zoom.",  # one meeting: no cadence
    "Board meeting is the first Monday, at the pub.",  # a day, no cadence
    "My standup buddy is every day at the gym.",  # no meeting
    "The quarterly report is the worst part of my job.",  # no meeting
]


@pytest.mark.parametrize("message", CADENCE_LOOK_ALIKES)
def test_a_cadence_look_alike_gives_no_cadence(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith("Team cadence")], (message, got)


# -- a home named by its kind, near a place ----------------------------------------------------------------
HOMES = [
    ("I live in a tiny village near Kendal.", "Lives in a village near Kendal"),
    (
        "Retired nurse, living in a little hamlet outside Galway.",
        "Lives in a hamlet outside Galway",
    ),
    (
        "We've just moved into a cottage north of Inverness.",
        "Lives in a cottage north of Inverness",
    ),
    ("We live in a town about twenty minutes outside Lyon.", "Lives in a town outside Lyon"),
]


@pytest.mark.parametrize(("message", "line"), HOMES)
def test_a_home_near_a_place_is_read(message: str, line: str) -> None:
    assert line in facts(message), (message, facts(message))
    assert canon(line).slot == "home"


HOME_LOOK_ALIKES = [
    "I live in a house near the park.",  # no place the gazetteer knows
    "My brother lives in a village near Kendal.",  # someone else's
    "We stayed in a cottage near Keswick last week.",  # a trip
    "I'd love to live in a village near Bath one day.",  # a wish
    "I grew up in a village outside Galway.",  # the past
    "I used to live in a town near Lyon.",  # the past
    "living in a van near Bristol for the summer",  # a passing state
]


@pytest.mark.parametrize("message", HOME_LOOK_ALIKES)
def test_a_home_look_alike_gives_no_home(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith("Lives in")], (message, got)


# -- two statements of one subject; a relative named in the household ----------------------------------
JOINED = [
    ("I work as a midwife and live in Dundee.", {"Works as midwife", "Lives in Dundee"}),
    ("I'm a plumber and live near Swansea.", {"Works as plumber"}),
    ("I live in Graz and work at Magna.", {"Lives in Graz", "Works at Magna"}),
    ("I teach history and live in Dundee.", {"Lives in Dundee"}),
    ("I live in Aarhus with my husband Lars.", {"Lives in Aarhus", "Has a husband named Lars"}),
    ("We live with my mum Irene.", {"Has a mum named Irene"}),
    ("We moved to Bath with my partner Sam.", {"Has a partner named Sam"}),
    # a job said as a participle, its subject left out
    ("I'm from Chile, living in Lyon since 2019, working as a baker.", {"Works as baker"}),
    ("Based in Cork, working as a paramedic.", {"Lives in Cork", "Works as paramedic"}),
    # pets named as the user's, by "our" as by "my", a pair by its plural
    ("Luna is our cat.", {"Has a cat named Luna"}),
    ("My dogs are Oscar and Bella.", {"Has a dog named Oscar", "Has a dog named Bella"}),
]


@pytest.mark.parametrize(("message", "lines"), JOINED)
def test_both_statements_and_the_named_relative_are_read(message: str, lines: set[str]) -> None:
    assert lines <= set(facts(message)), (message, facts(message))


JOINED_LOOK_ALIKES = [
    ("I used to work at Magna and live in Graz.", ("Works at", "Lives in")),  # the past
    ("I want to work as a midwife and live in Dundee.", ("Works as", "Lives in")),  # a wish
    ("My wife works as a midwife and lives in Dundee.", ("Works as", "Lives in")),  # hers
    ("I work nights and live in fear of the rota.", ("Lives in",)),  # no place
    ("I had dinner with my boss Tom.", ("Has a",)),  # an event
    ("I used to live with my sister Kate.", ("Has a",)),  # the past
    ("I'd like to live with my girlfriend Mia one day.", ("Has a",)),  # a wish
    ("Working at your own pace is fine.", ("Works",)),  # no job
    ("Working as a team is hard.", ("Works",)),  # no job
    ("My wife is working as a baker.", ("Works",)),  # hers
    ("Working at home today.", ("Works",)),  # a passing day
    ("My sister's dogs are Oscar and Bella.", ("Has a",)),  # hers
    ("Oscar is our neighbour's dog.", ("Has a",)),  # theirs
    ("My favourite dogs are Labradors and Collies.", ("Has a",)),  # breeds, no names
]


@pytest.mark.parametrize(("message", "kinds"), JOINED_LOOK_ALIKES)
def test_a_joined_look_alike_gives_none_of_them(message: str, kinds: tuple[str, ...]) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith(kinds)], (message, got)


# -- through the real path ----------------------------------------------------------------------------
REAL_PATH = [
    ("I have ADHD, so bullet points help a lot.", ("SOUL.md", "Answer in bullet points")),
    ("Been veggie about a decade now.", ("USER.md", "Is vegetarian")),
    ("Accountant here, small firm in Leeds.", ("USER.md", "Works as accountant")),
    ("I live in a small village outside Cork.", ("USER.md", "Lives in a village outside Cork")),
    ("I work as a nurse and live in Leeds.", ("USER.md", "Lives in Leeds")),
    (
        "Board meeting is the first Monday of every quarter.",
        ("memory/MEMORY.md", "Team cadence: Board meeting the first Monday of every quarter"),
    ),
]


@pytest.mark.parametrize(("message", "line"), REAL_PATH, ids=[m for m, _ in REAL_PATH])
def test_each_class_reaches_its_file_through_a_real_dream(
    tmp_path, message: str, line: tuple[str, str]
) -> None:
    run = st.run_item(st.Item("R12", "-", "statement", None, (message,), (), ()), tmp_path)
    assert line in run.lines, run.lines
