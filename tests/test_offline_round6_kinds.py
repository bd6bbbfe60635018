"""Issue 36, sixth round: the kind rules read more of what people tell their assistant about their
home, work, pets, health, likes and how to be answered, each class with fresh sentences written
for these tests (not the corpus's) and look-alikes that must give nothing of the kind.

Each case runs ``extract_facts`` on one message; where a line must land in a given file its
``canon`` is checked too (a rule for the agent is SOUL.md, a fact about the user USER.md).
"""

from __future__ import annotations

import pytest

from reverie.llm.offline.rules import SOUL, USER, canon, extract_facts


def facts(message: str) -> list[str]:
    return [f.text for f in extract_facts(message)]


def _check(message: str, expected: list[str]) -> None:
    got = facts(message)
    for line in expected:
        assert line in got, (message, got)


# -- home ------------------------------------------------------------------------------------------
HOME = [
    # a place typed in lower case with its country, or too small to be read in lower case alone
    ("fyi im in tartu, estonia, been here since my masters", ["Lives in Tartu"]),
    ("based in apia samoa", ["Lives in Apia, Samoa"]),
    ("i live in bath, england", ["Lives in Bath"]),
    # a part of town beside its city
    ("We live in Kadıköy in Istanbul, right by the ferry.", ["Lives in Kadıköy, Istanbul"]),
    ("I live in Brooklyn, New York.", ["Lives in Brooklyn, New York"]),
    ("i live in springfield, illinois", ["Lives in Springfield, Illinois"]),
    ("i stay in east legon, accra", ["Lives in Accra"]),
    ("i stay in osu, accra", ["Lives in Osu, Accra"]),  # a name the gazetteer knows is kept
    ("i'm in seoul, gangnam side", ["Lives in Seoul"]),
    ("I'm in Porto, Foz area", ["Lives in Porto"]),
    # "stay" as "live"; a subjectless note; the home city
    ("i stay in nairobi", ["Lives in Nairobi"]),
    ("live in hanoi, tay ho", ["Lives in Hanoi"]),
    ("my home city is Medellín.", ["Lives in Medellín"]),
    ("home for me is gdansk now", ["Lives in Gdansk"]),
    ("My home base is Lyon, though I travel a lot.", ["Lives in Lyon"]),
    ("I'm writing from Tbilisi, where I live with my dog.", ["Lives in Tbilisi"]),
    ("Our flat is just outside Munich, in Garching.", ["Lives in Garching"]),
    ("Boise ID is where I live", ["Lives in Boise ID"]),
]

NOT_HOME = [
    "I'm in Tokyo, Japan for a conference.",
    "I stay in hotels when I travel for work.",
    "I'm staying in Paris this week.",
    "We live in Apple in Cupertino.",
    "I live in love, Paris",
    "My sister lives in Lekki, Lagos.",
    "we stay in a hotel, paris",
    "Live in Lisbon for a year, you'll love it.",
    "I'm calling from Rome, where I live is none of your business.",
    "My sister writes from Oslo, where she lives.",
    "I'm in a meeting, back later.",
]


@pytest.mark.parametrize(("message", "expected"), HOME)
def test_home_as_people_type_it(message: str, expected: list[str]) -> None:
    _check(message, expected)


@pytest.mark.parametrize("message", NOT_HOME)
def test_no_home_from_look_alikes(message: str) -> None:
    assert not [f for f in facts(message) if f.startswith("Lives in")], message


# -- work ------------------------------------------------------------------------------------------
WORK = [
    (
        "I'm a lecturer in medieval history at the University of Leeds.",
        ["Works as lecturer in medieval history", "Works at the University of Leeds"],
    ),
    (
        "Senior researcher in marine ecology at the University of Bergen.",
        ["Works as senior researcher in marine ecology", "Works at the University of Bergen"],
    ),
    ("Staff engineer at Spotify, five years now.", ["Works at Spotify"]),
    (
        "Second-year PhD student in economics at Sciences Po, mostly labour markets.",
        ["Is a second-year PhD student in economics at Sciences Po"],
    ),
    ("I'm a final-year law student.", ["Is a final-year law student"]),
    (
        "im a 2nd yr med student at Charles University",
        ["Is a second-year medical student at Charles University"],
    ),
    ("I own a small plumbing firm in Cork.", ["Owns a small plumbing firm"]),
    ("I co-founded a startup called Brightline last year.", ["Founded Brightline"]),
    ("I also supervise three PhD students.", ["Supervises three PhD students"]),
    ("I manage 12 nurses on the night shift.", ["Manages 12 nurses"]),
    ("I've got three apprentices working for me.", ["Has three apprentices"]),
    ("Retired police officer here, 30 years in Bristol.", ["Is a retired police officer"]),
    (
        "I'm 70, retired after 40 years at Royal Mail.",
        ["Retired after 40 years at Royal Mail"],
    ),
    ("I retired from nursing in 2019.", ["Retired in 2019"]),
    ("I'm a GP in a rural practice.", ["Works as GP"]),
    ("Plumber by trade, twenty years now.", ["Works as plumber"]),
    ("my job: electrician, self employed", ["Works as electrician"]),
    ("I'm a session pianist here in Lagos.", ["Works as session pianist"]),
    ("I work night shifts at the depot.", ["Works night shifts"]),
    ("I work nights as a security guard.", ["Works night shifts"]),
    ("I'm on nights, so I sleep during the day.", ["Works night shifts"]),
    ("I'm at Zalando, my title is Senior Data Engineer.", ["Works as Senior Data Engineer"]),
]

NOT_WORK = [
    ("My brother is a lecturer in physics at Oxford.", ("Works", "Is a")),
    ("I'm a student in Berlin.", ("Is a ",)),
    ("I train 5 days a week.", ("Trains", "Supervises")),
    ("I manage a few things at home.", ("Manages",)),
    ("I'm retired.", ("Is a retired", "Retired")),
    ("My dad retired after 35 years at Ford.", ("Retired",)),
    ("Engineer at heart, honestly.", ("Works",)),
    ("My dad was a plumber by trade.", ("Works",)),
    ("Senior engineer at Meta, that's what my brother is.", ("Works",)),
    ("Lecturer in law at Leeds, my wife is.", ("Works",)),
    ("My wife is a nurse, mostly night shifts.", ("Works",)),
    ("I love quiet nights, mostly night walks.", ("Works",)),
]


@pytest.mark.parametrize(("message", "expected"), WORK)
def test_work_title_field_employer_business(message: str, expected: list[str]) -> None:
    _check(message, expected)
    for line in expected:
        assert canon(line).target == USER


@pytest.mark.parametrize(("message", "heads"), NOT_WORK)
def test_no_work_from_look_alikes(message: str, heads: tuple[str, ...]) -> None:
    assert not [f for f in facts(message) if f.startswith(heads)], message


def test_a_student_is_not_employed_by_the_university() -> None:
    got = facts("Third-year medical student at the University of Vienna.")
    assert not [f for f in got if f.startswith(("Works as", "Works at"))], got


# -- pets ------------------------------------------------------------------------------------------
PETS = [
    (
        "We've got two cats: a Siamese called Pho and a little moggy called Bao.",
        ["Has a siamese named Pho", "Has a cat named Bao"],
    ),
    ("we have a mutt named Pickle", ["Has a mixed-breed dog named Pickle"]),
    ("Our black labrador Juno is 7 and loves the beach.", ["Has a black labrador named Juno"]),
    ("Our lab Toby is getting old.", ["Has a labrador named Toby"]),
    ("My horse Bella is kept at a livery yard.", ["Has a horse named Bella"]),
    ("Pepper is our dog, a collie cross.", ["Has a dog named Pepper"]),
    ("my cats name is Noodle", ["Has a cat named Noodle"]),
    (
        "We foster puppies for a rescue in Lisbon, usually one at a time.",
        ["Fosters puppies for a rescue in Lisbon"],
    ),
    ("We keep about 20 ducks on the farm, mostly for eggs.", ["Keeps about 20 ducks on the farm"]),
    ("I've got 4 hens, no rooster.", ["Keeps 4 hens"]),
    ("I keep bees.", ["Keeps bees"]),
    ("i have a gecko called zuzu", ["Has a gecko named Zuzu"]),
    ("zuzu died last week :(", ["Gone: pet Zuzu; said: zuzu died last week :("]),
    ("we got a beagle named bindi, total chaos", ["Has a beagle named Bindi"]),
    ("my dogs name is rocco", ["Has a dog named Rocco"]),
    ("our lab bruno is 11 now, old boy", ["Has a labrador named Bruno"]),
    ("I foster cats for the rescue in our village.", ["Fosters cats for the rescue"]),
]

NOT_PETS = [
    ("Our lab Director is a tyrant.", ("Has a",)),
    ("My parrot Squawk is loud.", ("Has a",)),
    ("i have a cat called out by the vet", ("Has a",)),
    ("my husky voice is back", ("Has a",)),
    (
        "we have a dog named after my grandad",
        ("Has a",),
    ),  # a kind of pet takes a given name, as "my dog Rex"
    ("I have chickens for dinner tonight.", ("Keeps",)),
    ("I keep bees in mind.", ("Keeps",)),
    ("My neighbour keeps 10 chickens.", ("Keeps",)),
    ("We got 2 goats for the barbecue.", ("Keeps",)),
    ("I'd love to foster kittens one day.", ("Fosters",)),
    ("My mother fosters kittens.", ("Fosters",)),
]


@pytest.mark.parametrize(("message", "expected"), PETS)
def test_pets_by_breed_colour_flock_and_fostering(message: str, expected: list[str]) -> None:
    _check(message, expected)


@pytest.mark.parametrize(("message", "heads"), NOT_PETS)
def test_no_pet_from_look_alikes(message: str, heads: tuple[str, ...]) -> None:
    assert not [f for f in facts(message) if f.startswith(heads)], message


# -- health, diet, belief -------------------------------------------------------------------------
HEALTH = [
    ("bad wasp allergy, i carry an epipen", ["Carries an EpiPen"]),
    ("epipen always on me, peanuts", ["Carries an EpiPen"]),
    ("I'm a practising Muslim, so halal only please.", ["Is Muslim"]),
    ("I'm Orthodox and I fast during Lent.", ["Is Orthodox"]),
    ("We are Sikh.", ["Is Sikh"]),
    ("had a hip replacement in 2022, so no jogging for me", ["Had a hip replacement"]),
    ("I get migraines when I skip meals.", ["Gets migraines"]),
    ("Mild eczema, worse in winter.", ["Has mild eczema"]),
    ("asthmatic, always carry my inhaler", ["Has asthma"]),
    ("lactose intolrant, sadly", ["Is lactose intolerant"]),
    ("strictly gluten free please", ["Diet: gluten-free"]),
    ("i cant eat kiwi, im allergic", ["Allergic to kiwi"]),
    ("Quick note: peanut allergy.", ["Allergic to peanuts"]),
    ("I only eat kosher.", ["Diet: kosher"]),
    ("I've been vegetarian for twenty years.", ["Is vegetarian"]),
    ("ok so vegan now, no more cheese", ["Is vegan"]),
    ("I've changed that: pescatarian now.", ["Is pescatarian"]),
]

NOT_HEALTH = [
    ("My husband is Muslim.", ("Is ",)),
    ("I'm not Catholic.", ("Is ",)),
    ("My mum had a knee replacement.", ("Had ",)),
    ("I'm catholic-school educated.", ("Is ",)),
    ("My friend carries an EpiPen.", ("Carries",)),
    ("I carry an EpiPen for my son.", ("Carries",)),
    ("We are Catholic school parents.", ("Is ",)),
    ("I can't eat spicy food, I'm allergic to the drama it brings.", ("Allergic",)),
    ("i cant eat sushi, im allergic", ("Allergic",)),  # sushi names no allergen
    ("My sister: vegan now.", ("Is vegan",)),
]


@pytest.mark.parametrize(("message", "expected"), HEALTH)
def test_health_diet_and_belief(message: str, expected: list[str]) -> None:
    _check(message, expected)
    for line in expected:
        assert canon(line).target == USER


@pytest.mark.parametrize(("message", "heads"), NOT_HEALTH)
def test_no_health_fact_from_look_alikes(message: str, heads: tuple[str, ...]) -> None:
    assert not [f for f in facts(message) if f.startswith(heads)], message


# -- likes and pursuits ----------------------------------------------------------------------------
LIKES = [
    ("I love Miriam Makeba and highlife", ["Likes Miriam Makeba", "Likes highlife"]),
    ("I love jazz and reggaeton", ["Likes jazz", "Likes reggaeton"]),
    ("huge Celtic fan here", ["Likes Celtic"]),
    ("big fan of the Springboks", ["Likes Springboks"]),
    ("I collect vintage postcards.", ["Collects vintage postcards"]),
    ("Not a morning person, honestly.", ["Is not a morning person"]),
    ("my fav drink is mate", ["Favourite drink: mate"]),
    ("been a celtic supporter since i was a kid", ["Likes celtic"]),
    ("I'm a lifelong Boca supporter.", ["Likes Boca"]),
    ("my fave band is Wilco, no contest", ["Favourite band: Wilco"]),
    ("not a tea person, never have been", ["Dislikes tea"]),
]

NOT_LIKES = [
    ("I love Sarah and Tom", ("Likes",)),
    ("I collect the kids at 3.", ("Collects",)),
    ("My friend is a big fan of jazz.", ("Likes",)),
    ("My brother is not a tea person.", ("Dislikes",)),
    ("My dad has been a Leeds supporter since 1970.", ("Likes",)),
    ("not a people person, sorry", ("Dislikes",)),
    ("I'm not a fan person.", ("Dislikes",)),
    ("my fav part is the ending", ("Favourite",)),
]


@pytest.mark.parametrize(("message", "expected"), LIKES)
def test_likes_artists_genres_fans_collections(message: str, expected: list[str]) -> None:
    _check(message, expected)
    for line in expected:
        assert canon(line).target == USER


@pytest.mark.parametrize(("message", "heads"), NOT_LIKES)
def test_no_like_from_look_alikes(message: str, heads: tuple[str, ...]) -> None:
    assert not [f for f in facts(message) if f.startswith(heads)], message


# -- rules for the assistant ---------------------------------------------------------------------
SOUL_RULES = [
    ("Keep replies short please, 4 sentences max", ["Keep answers under 4 sentences"]),
    (
        "Please keep answers brief. I read them on the bus, no more than three sentences or so.",
        ["Keep answers under 3 sentences"],
    ),
    ("short answers only, like 2-3 sentences", ["Keep answers to 2-3 sentences"]),
    ("Always metric and Celsius please", ["Use metric units", "Use Celsius"]),
    ("please explain it like I'm five", ["Explain things simply"]),
    ("explain stuff in plain english, I'm not technical", ["Explain things simply"]),
    ("Call me Prof. Adeyemi, please.", ["Call the user Prof. Adeyemi"]),
    ("Show prices in Thai baht.", ["Prices in Thai baht"]),
    ("always quote prices in euros", ["Prices in euros"]),
    ("Please don't add disclaimers to your answers.", ["Never add disclaimers"]),
    ("please don't recommend true crime podcasts", ["Never recommend true crime podcasts"]),
    ("no thriller recommendations please", ["Never recommend thriller"]),
    ("dates as DD-MM-YYYY please", ["Dates as DD-MM-YYYY"]),
    (
        "Use 24-hour time and write dates as YYYY/MM/DD.",
        ["Use 24-hour time", "Dates as YYYY/MM/DD"],
    ),
    ("use 24h clock and dd.mm.yy dates pls", ["Use 24-hour time", "Dates as DD.MM.YY"]),
    ("use imperial only, no metres", ["Use imperial units"]),
    ("please give me all measurements in metric", ["Use metric units"]),
    ("write python for code examples, not bash", ["Code examples in Python"]),
    ("snippets in JS please", ["Code examples in JavaScript"]),
    ("Please keep the emojis out of your answers.", ["Never use emojis"]),
    ("can u stop puting emojis in replies", ["Never use emojis"]),
    ("briefer replies pls", ["Keep answers short"]),
    ("Please be honest with feedback on my essays.", ["Be honest"]),
    ("I'd much prefer concise answers from now on.", ["Keep answers short"]),
    (
        "can't stand zombie movies, please don't ever recommend any",
        ["Never recommend zombie movies"],
    ),
    (
        "don't like romance novels at all, don't recommend them",
        ["Never recommend romance novels"],
    ),
]

NOT_SOUL = [
    "I wrote 500 words today. Keep answers short.",
    "My essay must be under 500 words. Keep answers short.",
    "call me Mr. Right",
    "My boss calls me Dr. Smith.",
    "Metric and Celsius are what we use in Kenya.",
    "The doctor had to explain things simply to my son.",
    "I don't like my job, don't recommend it.",
    "My passport has dates as DD.MM.YYYY.",
    "Dates as DD/MM/YYYY are confusing to Americans.",
    "I wrote the code in Python.",
    "We use metric always at work.",
    "She would prefer shorter answers from the candidates.",
    "My boss never sugarcoats anything.",
    # left: its later change ("maybe tone the bluntness down") is dropped whole as a hedge, so the
    # line would stay beside it
    "Don't sugarcoat anything, be blunt.",
]


@pytest.mark.parametrize(("message", "expected"), SOUL_RULES)
def test_rules_for_the_agent(message: str, expected: list[str]) -> None:
    _check(message, expected)
    for line in expected:
        assert canon(line).target == SOUL


def test_a_length_without_its_limit_word_is_no_number() -> None:
    assert facts("I wrote 500 words today. Keep answers short.") == ["Keep answers short"]


@pytest.mark.parametrize("message", NOT_SOUL)
def test_no_agent_rule_from_look_alikes(message: str) -> None:
    lines = [f for f in facts(message) if canon(f).target == SOUL]
    assert lines in ([], ["Keep answers short"]), (message, lines)


def test_new_rules_fill_their_slots() -> None:
    assert canon("Keep answers to 2-3 sentences").slot == "length"
    assert canon("Keep answers under 4 sentences").slot == "length"
    assert canon("Prices in Thai baht").slot == "currency"
    assert canon("Give prices in rand").slot == "currency"  # lines written before this round
    assert canon("Call the user Prof. Adeyemi").slot == "call"
    assert canon("Is Muslim").slot == "faith"
    assert canon("Dates as DD.MM.YYYY").slot == "dates"
    assert canon("Code examples in TypeScript").slot == "code language"
    assert canon("Is a third-year PhD student in linguistics").slot == "role"
    assert canon("Is a retired police officer").slot == "role"
    assert canon("Is not a morning person").slot == "chronotype"
