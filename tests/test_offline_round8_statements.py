"""Round 8 of issue 36: the clause stage judges each clause of a message on its own, so a reason, a
remark, a joke or a hedge after a fact no longer sinks it, and a fragment with no subject or no
verb still says what it says. Each class has fresh sentences of its own and look-alikes that must
give nothing (the precision side); all run on ``extract_facts`` (cheap)."""

from __future__ import annotations

from datetime import date

import pytest

from reverie.llm.offline.rules import extract_facts

SAID_ON = date(2027, 1, 4)


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message, SAID_ON)]


# -- a remark after the head: a reason, a joke, a question or a hedge of its own ------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # a remark on relevance ("in case …", "if that matters") leaves the head as it is
        ("I live in Tallinn, in case you need it for the weather", "Lives in Tallinn"),
        ("I work at Siemens, if that matters for the examples.", "Works at Siemens"),
        ("I'm allergic to peanuts in case you suggest recipes", "Allergic to peanuts"),
        # a hedge in a later clause about something else
        ("Dune is my favourite book, I've read it maybe six times.", "Favourite book: Dune"),
        ("I speak Polish and German, my English is so-so", "Speaks Polish"),
        # a joke on a remark of its own, not on the head
        ("i like k-dramas, please don't judge me haha", "Likes k-dramas"),
        ("learning italian on duolingo, 90 day streak lol", "Is learning Italian"),
        # a question after the fact
        ("I live in Porto, any good bakeries near the river?", "Lives in Porto"),
    ],
)
def test_a_remark_after_a_fact_does_not_sink_it(message: str, expected: str) -> None:
    assert expected in facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "I eat meat, if it's halal.",  # a condition scopes the head
        "I'm vegan, sometimes I cheat with cheese though",  # a hedge on the user's own words
        "I work at NASA, lol",  # laughter alone after the head: the head is the joke
        "I'm the CEO of Google, haha.",
        "I live in Paris, I think.",
        "I'm a teacher, I guess you could say",
        "I'm a doctor, or I will be one day",  # an alternative
        "I live in Berlin, mostly in Paris though",
        "I play the cello, not really lol",
        "I speak Russian, right?",
    ],
)
def test_a_remark_on_the_head_still_sinks_it(message: str) -> None:
    assert not [f for f in facts(message) if not f.startswith(("Gone: ", "Now: "))]


# -- a request kept in mind: the statement it frames is the user's --------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Could you remember that I'm allergic to shellfish?", "Allergic to shellfish"),
        ("Would you mind remembering that I don't eat pork?", "Doesn't eat pork"),
        ("Can you please keep in mind that I live in Leeds?", "Lives in Leeds"),
        (
            "I'd appreciate it if you could remember that I'm a freelance illustrator.",
            "Works as freelance illustrator",
        ),
    ],
)
def test_a_statement_asked_to_be_remembered(message: str, expected: str) -> None:
    assert expected in facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "Could you remember that I might move to Berlin?",  # the statement is a plan
        "Could you remember that my sister lives in Rome?",  # someone else's
        "Could you remember what I said about Rust?",  # no statement at all
    ],
)
def test_a_request_to_remember_no_statement_gives_nothing(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith(("Lives in", "Works", "Is "))]


# -- a request followed by its reason --------------------------------------------------------------
def test_a_request_then_its_reason_each_on_its_own() -> None:
    assert "Never use emojis" in facts("No emojis please, I paste your replies into school reports")


def test_a_taste_after_a_request_stays_with_the_request() -> None:
    # "I prefer …" after "no bullet points please" is about the answers, no taste of the user's
    assert not [f for f in facts("no tables pls, i prefer plain text") if f.startswith("Prefers")]


def test_a_rule_of_the_users_own_is_no_request() -> None:
    # "no caffeine for me" is the user's own rule, not one for the agent: the clause stays whole
    assert "Is pregnant" not in facts("no caffeine for me, I'm pregnant")


# -- a fragment with no subject -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Vegetarian, no eggs either.", ["Is vegetarian", "Doesn't eat eggs"]),
        ("vegan, no alcohol either", ["Is vegan", "Doesn't drink alcohol"]),
        ("Data engineer at Klarna, mostly streaming, been there 2 years.", ["Works at Klarna"]),
        ("Nurse at St Mary's.", ["Works as nurse", "Works at St Mary's"]),
    ],
)
def test_a_fragment_with_no_subject(message: str, expected: list[str]) -> None:
    got = facts(message)
    assert all(e in got for e in expected), got


@pytest.mark.parametrize(
    "message",
    [
        "Dinner at Nobu tonight.",  # no job title
        "Masters student at Monash.",  # a student studies there
        "I'm vegetarian, no kids.",  # "no kids" is no food
    ],
)
def test_a_fragment_look_alike(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith(("Works", "Doesn't eat", "Doesn't drink"))], got


def test_either_at_the_end_is_no_choice() -> None:
    assert "Doesn't eat pork" in facts("I don't eat pork either.")
    assert facts("Either tea or coffee is fine.") == []


# -- a name typed in lower case ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("my husband tomasz works nights at the hospital", "Has a husband named Tomasz"),
        ("my daughter aiko starts school in april", "Has a daughter named Aiko"),
        ("our beagle max is 4 and eats everything", "Has a beagle named Max"),
    ],
)
def test_a_name_in_lower_case(message: str, expected: str) -> None:
    assert expected in facts(message)


@pytest.mark.parametrize(
    "message",
    [
        "my husband will be home late",  # "will" is a name in some list, and a verb here
        "my son can swim now",
        "my wife rose early to cook",
    ],
)
def test_a_word_after_a_relative_is_no_name(message: str) -> None:
    assert not [f for f in facts(message) if " named " in f]


# -- a preamble before a colon ------------------------------------------------------------------
def test_a_preamble_does_not_reach_the_statement_after_its_colon() -> None:
    got = facts("Busy day today but quick one: I'm a physiotherapist at Bupa Leeds.")
    assert "Works as physiotherapist" in got
    assert "Lives in Krakow" in facts(
        "Some context about me before I ask: I live in Krakow, third floor, no lift."
    )


@pytest.mark.parametrize(
    "message",
    [
        "My flatmate always says: I'm the best cook in Leeds",  # someone else's words
        "For the next two weeks: I live in Paris",  # a time that scopes it
        "If anyone asks: I'm a lawyer",  # a condition
    ],
)
def test_a_preamble_that_frames_or_scopes(message: str) -> None:
    assert facts(message) == []


# -- a list of fragments ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Widowed, three sons.", ["Has three sons"]),
        ("married, no kids, two dogs", ["Has no children", "Has two dogs"]),
        ("Pescatarian, allergic to shellfish, based in Gdansk", ["Allergic to shellfish"]),
    ],
)
def test_a_list_of_fragments_each_read(message: str, expected: list[str]) -> None:
    got = facts(message)
    assert all(e in got for e in expected), got


def test_a_list_with_an_item_no_fragment_stays_whole() -> None:
    from reverie.llm.offline.rules.clauses import clauses

    # "two tickets for Friday" is no household item: the list is not cut into clauses
    assert clauses("married, two cats, two tickets for Friday") == [
        "married, two cats, two tickets for Friday"
    ]
    assert "Has two tickets for Friday" not in facts("married, two cats, two tickets for Friday")


# -- a contrast with no comma opens a clause of the user's own -----------------------------------
def test_but_i_opens_a_clause_of_its_own() -> None:
    assert "Lives in Kraków" in facts(
        "I grew up near Gdansk but I've been living in Kraków since 2015"
    ) or "Lives in Krakow" in facts(
        "I grew up near Gdansk but I've been living in Krakow since 2015"
    )
    assert "Likes tea" in facts("I love tea but I can't drink it after 4pm")


@pytest.mark.parametrize(
    "message",
    [
        "I'd love to live in Lisbon but I can't afford it",  # a wish, then a reason
        "I'm not vegan but I try to eat less meat",  # a denial, then a try
    ],
)
def test_but_i_look_alikes(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith(("Lives in", "Is vegan", "Diet"))], got


# -- a run-on remark opened by a modal -------------------------------------------------------------
def test_a_run_on_ability_after_a_fact() -> None:
    assert "Favourite food: dumplings" in facts(
        "dumplings are my favourite food hands down could eat thirty in one go"
    )
    assert "Likes ramen" in facts("I love ramen could eat it every single day")


@pytest.mark.parametrize(
    "message",
    [
        "I work at Shopify, well, I might soon.",  # a plan about the head
        "I love oysters, trying them would be fun.",  # never tried: the like is no fact
        "I live in Bergen would love to move though",
    ],
)
def test_a_modal_remark_on_the_head(message: str) -> None:
    got = facts(message)
    assert not [f for f in got if f.startswith(("Works at", "Likes", "Lives in"))], got
