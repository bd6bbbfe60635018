"""Where the user lives, a move from one place to another, and their time zone.

A home is a place the gazetteer knows (``values.is_place``), or an unknown proper name the sentence
says is a place ("Little Hinton, a village near Oxford"). A move is a cue of change: the new home
replaces the old line.
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..kinds import known_place, noun, region
from .core import USER, Filling, rule
from .lexicon import NOT_NAMES, TECH
from .phrases import BACKGROUND, OLD, OLDTO, PLACE, VAL, I
from .values import is_place, is_specific, is_tech, is_unknown_place, place_name

#: The user, or the user's household ("we", "my wife and I"), as a subject.
_WE = (
    r"\b(?:i|we|my (?:wife|husband|partner|family|girlfriend|boyfriend) and i)"
    r"(?:\s+(?:now|currently|just|actually|recently|also|still|finally|all))?"
)
#: Words that make "I'm in X" a home rather than a visit: a duration, a move, "now", "home",
#: "local".
_LASTING = lazy(
    r"\b(?:now|since|years?|months|home|local|locally|live|lived|living|based|resident|settled|moved|"
    r"registered|for good)\b",
    re.I,
)


#: After a city, its country or region ("Krakow, Poland", "cluj napoca, romania") or the part of
#: town the user lives in ("busan, haeundae area", "Lagos, Lekki side").
_WHERE_IN_IT = lazy(
    r"\s*,?\s*(?:[\w'’-]+(?: [\w'’-]+)? (?:area|side|neighbou?rhood|district|suburb|part of town)"
    r"\b|(?P<c>[\w'’ .-]{2,30}?)\s*(?:[,.;!]|$))",
    re.I,
)


def at_home(f: Filling) -> bool:
    """ "I'm in X" is a home only with a word that makes it lasting ("… now", "… since 2015",
    "Have been for three years"), its country after it ("Krakow, Poland") or the part of town
    ("Busan, Haeundae area"); "I'm in Tokyo" alone may be a visit, and a trip said in the message
    makes it one."""
    rest = f.match.string[f.match.end() :]
    if part_of_town(rest):  # "we're in Munich, in Schwabing": a home (the city is the line)
        return no_trip(f)
    where = _WHERE_IN_IT.match(rest)
    country = where.group("c") if where else None
    placed = where is not None and (country is None or is_place(country.strip()))
    return (bool(_LASTING.search(f.match.string)) or placed) and no_trip(f)


#: A part of town named after its city, in the words that follow it: "…, in Schwabing", "… —
#: Leslieville, to be exact", "…, Kilimani side", "…, lived here all my life, Cau Giay district".
_PART_IN = lazy(
    r"\s*(?:,|[—–]|\s-)\s*(?:in |up in |down in |out in )?(?P<p>(?-i:[A-Z])[\w'’-]+"
    r"(?: (?-i:[A-Z])[\w'’-]+){0,2})"
    r"(?=\s*(?:[,.;!]|$)|\s+(?:and|but|so|to be exact|specifically)\b)"
)
_PART_NAMED = lazy(
    r"(?:^|,)\s*(?:in (?:the )?)?(?P<p>[\w'’-]+(?: [\w'’-]+){0,2}) (?:area|side|neighbou?rhood|"
    r"district|suburb|quarter)\b"
)


def part_of_town(rest: str) -> str | None:
    """The part of town said right after a city (``_PART_IN``) or named as one, with its word
    (``_PART_NAMED``), within the clause; never a place of its own, a time, a noun or a tool."""
    rest = re.split(r"[.;!?]", rest, maxsplit=1)[0]
    m = _PART_IN.match(rest)
    if not m:
        m = next(
            (x for x in _PART_NAMED.finditer(rest) if x.start() == 0 or rest[x.start()] == ","),
            None,
        )
    if not m:
        return None
    part = m.group("p").strip()
    words = part.lower().split()
    if (
        region(part)
        or set(words) & (NOT_NAMES | TECH)
        or (len(words) == 1 and noun(words[0]) and not is_unknown_place(part))
        or words[0] in ("the", "my", "our", "a", "this", "that", "which", "every", "each")
    ):
        return None
    return place_name(part) if part.islower() else part


_TRIP = lazy(
    r"\b(?:visit(?:ing)?|trip|holiday|vacation|travel(?:l?ing)?|staying|conference|tour(?:ing)?|"
    r"week(?:end)?|days?|stopover|layover|business)\b",
    re.I,
)


def no_trip(f: Filling) -> bool:
    """ "here in X" is home in a message that says no trip, visit or stay."""
    return not _TRIP.search(f.message or f.match.string)


def is_home(value: str) -> bool:
    """A place one moves to, never a tool a team moves to ("when we moved to Vite")."""
    return is_place(value) and not is_tech(value)


def no_background(f: Filling) -> bool:
    """ "We replaced Jest with Vitest when we moved to Vite": a move told as the time of something
    else (after "when") is background, not a statement of home."""
    return not re.search(BACKGROUND, f.match.string[: f.match.start()], re.I)


def is_place_or_with_country(value: str) -> bool:
    """A place, or a place followed by its country ("suva fiji": a town too small to be read in
    lower case alone is one beside a country the gazetteer knows)."""
    if is_place(value):
        return True
    words = value.replace(",", " ").split()
    return any(
        (is_place(" ".join(words[:i])) or known_place(" ".join(words[:i])))
        and is_place(" ".join(words[i:]))
        for i in range(1, len(words))
    )


#: A proper name of one to three words, and where a value of a home ends.
_PROPER_NAME = r"(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+){0,2}"
_END = r"(?=\s*(?:[,.;!()]|$)|\s+(?:and|but|so|with|since|for|near|now)\b)"


def part_of_a_city(value: str) -> bool:
    """ "Achrafieh in Beirut", "Lekki, Lagos": a part of town (a name the gazetteer may not know,
    no organisation or tool) beside a place it knows."""
    part, _, city = re.split(r"(,| in )", value, maxsplit=1)
    city = city.strip()
    known = is_place(part) or (is_unknown_place(part) and not noun(part.lower()))
    return is_place(city) and known and not set(part.lower().split()) & TECH


def with_its_country(f: Filling) -> bool:
    """ "suva fiji" is written "Suva, Fiji"."""
    value = f.values["v"]
    if known_place(value) or "," in value or len(value.split()) < 2:
        return True
    words = value.split()
    for i in range(1, len(words)):
        if is_place(" ".join(words[i:])):
            f.values["v"] = f"{' '.join(words[:i])}, {' '.join(words[i:])}"
            return True
    return True


#: Advice to someone else ("Live in Lisbon for a year, you'll love it"): no statement of home.
_ADVICE = lazy(r"\byou(?:'ll|'d|'re| will| would| should| must| can)?\b", re.I)


def _town_too(f: Filling) -> bool:
    """ "i live in springfield, illinois": a town before its region is kept ("Springfield,
    Illinois"); a part of town is left out ("east legon, accra" → "Accra")."""
    town = f.groups["n"]
    if known_place(town):
        f.values["v"] = f"{place_name(town)}, {f.values['v']}"
    return True


def _in_its_city(f: Filling) -> bool:
    """ "Achrafieh in Beirut" is written "Achrafieh, Beirut"."""
    f.values["v"] = re.sub(r"\s*(?:,| in )\s*", ", ", f.values["v"], count=1)
    return True


def _city_then_part(f: Filling) -> bool:
    """ "kigali kimihurura neighbourhood": the city (as "seoul, gangnam side" gives "Seoul"), its
    part of town no word of a time or a tool."""
    part = f.groups["p"].strip()
    if set(part.lower().split()) & (NOT_NAMES | TECH) or is_place(f"{f.groups['v']} {part}"):
        return False
    return no_trip(f)


#: A settlement or dwelling named by its kind, not its name ("a little village", "an old
#: farmhouse"), and where it lies from a place the gazetteer knows (``near_a_place``).
_NEAR_A_PLACE = (
    r"(?:an? |the )?(?:(?:little|small|tiny|old|quiet|big|rural) ){0,2}"
    r"(?P<k>village|hamlet|town|farmhouse|farm|cottage|bungalow|house|flat|apartment|suburb)"
    r" (?:just |right |about \w+ (?:minutes|miles|km|kilometres|kilometers) )?"
    r"(?P<p>outside|near|close to|north of|south of|east of|west of) "
    rf"{PLACE}"
)


def near_a_place(f: Filling) -> bool:
    """ "I live in a small village outside Cork" → "Lives in a village outside Cork": the kind of
    place and the user's own word for where it lies, a place the gazetteer knows; sizes and ages
    ("little", "old") left out."""
    place = f.values.get("v", "")
    if not is_place(place):
        return False
    article = "an" if f.groups["k"][:1].lower() in "aeiou" else "a"
    f.values["v"] = f"{article} {f.groups['k'].lower()} {f.groups['p'].lower()} {place}"
    return no_trip(f)


RULES = [
    # "I live in a little village outside Cluj", "I'm a retired teacher living in a small village
    # near Ayr", "we just moved into an old farmhouse outside Cork": a home named by its kind and
    # where it lies
    rule(
        rf"(?:{_WE}(?: live| am living|'m living|'re living| are living| reside)|\bliving|"
        rf"{_WE}(?:'ve|'ve just| have| have just)? (?:moved|moved into|moved to)) (?:in|into|on) "
        rf"{_NEAR_A_PLACE}",
        "Lives in {v}",
        finish=near_a_place,
    ),
    # "We live in Achrafieh in Beirut", "I live in Lekki, Lagos": a part of town beside a city the
    # gazetteer knows
    rule(
        rf"{_WE}(?: live| am living|'m living|'re living| are living| reside| stay) in "
        rf"(?P<v>{_PROPER_NAME}(?:,| in) {_PROPER_NAME}){_END}",
        "Lives in {v}",
        {"v": part_of_a_city},
        finish=lambda f: _in_its_city(f) and no_trip(f),
    ),
    # "i stay in east legon, accra": a part of town typed in lower case: the city
    rule(
        rf"{_WE}(?: live| am living|'m living|'re living| are living| reside| stay) in "
        rf"(?P<n>[a-z][a-z'’-]+(?: [a-z'’-]+)?), (?P<v>[a-z][a-z'’ -]{{2,30}}?){_END}",
        "Lives in {v}",
        {"v": is_place},
        finish=lambda f: (
            not noun(f.groups["n"].split()[-1].lower()) and _town_too(f) and no_trip(f)
        ),
    ),
    rule(
        rf"{_WE}(?: live| am living|'m living|'re living| are living| am based|'m based|'re based|"
        rf" are based| reside| live out| live over) in {PLACE}",
        "Lives in {v}",
        {"v": is_place},
        finish=with_its_country,
    ),
    rule(
        r"(?:\bmy home is (?:now )?in|(?:^|\bbut |\band |\bso )home (?:base )?(?:for (?:me|us) "
        r")?is(?: now)?"
        rf"(?: (?:out|over|up|down))?(?: in)?) {PLACE}",
        "Lives in {v}",
        {"v": is_place},
    ),
    # "my flat's in krakow", "our house is in Molndal"
    rule(
        r"\b(?:my|our) (?:flat|apartment|house|home|place)(?:'s|s| is)(?: now)? (?:in|out in) "
        rf"{PLACE}",
        "Lives in {v}",
        {"v": is_place},
    ),
    # "I'm writing from Amman, where I live with my wife"
    rule(
        rf"\b(?:from|in) {PLACE}, where (?:i|we) (?:now )?live"
        r"(?=\s*(?:[,.;!]|$)|\s+(?:with|now|and|since|for)\b)",
        "Lives in {v}",
        {"v": is_place},
    ),
    # "Our house is just outside Gothenburg, in Molndal"
    rule(
        r"\b(?:my|our) (?:flat|apartment|house|home|place)(?:'s|s| is)(?: now)? (?:just )?"
        rf"(?:outside|near|north of|south of|east of|west of) [^,.;]{{2,40}}?, in {PLACE}",
        "Lives in {v}",
        {"v": is_place},
    ),
    # "Zurich is home", "Lekki, Lagos is home"
    rule(
        r"(?<![\w'’-])(?P<v>(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+){0,2}) is (?:my |our |now |"
        r"still )*home\b"
        r"(?! (?:to|of)\b)(?! for (?!(?:me|us)\b))",
        "Lives in {v}",
        {"v": is_place},
    ),
    rule(
        r"\bi(?:'m| am) an? (?P<v>(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+){0,2}) resident\b",
        "Lives in {v}",
        {"v": is_place},
    ),
    # "i stay in chennai": where one lives, in the English of India and West Africa (a trip said in
    # the message makes it a stay)
    rule(
        rf"{_WE} stay in {PLACE}(?=\s*(?:[,.;!]|$))",
        "Lives in {v}",
        {"v": is_place},
        finish=no_trip,
    ),
    # a subjectless note: "live in seoul, mapo-gu", "been living in Accra about 3 yrs now"
    rule(
        rf"^(?:been living|living|live) in {PLACE}(?=\s*(?:[,.;!]|$)|\s+(?:for|since|now|about)\b)",
        "Lives in {v}",
        {"v": is_place},
        finish=lambda f: not _ADVICE.search(f.message or f.match.string),
    ),
    # "my home city is São Paulo", "home for me is koln these days", "Austin TX is where I'm at"
    rule(
        rf"\b(?:my (?:home ?town|home city|home base|city) is|home for (?:me|us) is) {PLACE}",
        "Lives in {v}",
        {"v": is_place_or_with_country},
    ),
    rule(
        r"^(?P<v>(?-i:[A-Z])[\w'’-]+(?: (?-i:[A-Z])[\w'’-]+){0,2}) is where (?:i|we)(?:(?:'m| am|"
        r"'re| are) (?:at|based)| live)\b",
        "Lives in {v}",
        {"v": is_place_or_with_country},
    ),
    rule(
        rf"{_WE}(?:'m|'re| am| are) (?:now |currently |still )?(?:in|out in|over in) {PLACE}",
        "Lives in {v}",
        {"v": is_place},
        finish=at_home,
    ),
    # "I'm from Nairobi and still live there, Kilimani side"
    rule(
        rf"\bfrom {PLACE},? and (?:i |we )?(?:still |now )?(?:live|stay) (?:there|here)\b",
        "Lives in {v}",
        {"v": is_place},
        finish=no_trip,
    ),
    # "im in kigali kimihurura neighbourhood": the city, then its part of town and its word
    rule(
        rf"{_WE}(?:'m|'re| am| are) (?:now |currently |still )?(?:in|based in) "
        r"(?P<v>[\w'’-]+(?: [\w'’-]+)?) (?P<p>[\w'’-]+(?: [\w'’-]+)?) (?:area|side|"
        r"neighbou?rhood|district|suburb|quarter)\b",
        "Lives in {v}",
        {"v": is_place},
        finish=_city_then_part,
    ),
    rule(
        rf"\b(?:i|we)(?:'ve| have) (?:lived|been living|been) in {PLACE}"
        r"(?=\s*,?\s+(?:for|since)\b)",
        "Lives in {v}",
        {"v": is_place},
    ),
    rule(
        rf"\bborn and (?:raised|bred|brought up) in {PLACE}(?:\s*,)?\s+and\s+(?:i\s+)?still\s+"
        r"(?:live\s+)?here\b",
        "Lives in {v}",
        {"v": is_place},
    ),
    rule(
        rf"{_WE}(?:'ve| have)? (?:just )?(?:moved|relocated|shifted) from {OLD} to {PLACE}",
        "Lives in {v} instead of {o}",
        {"v": is_place, "o": is_place},
        change=True,
    ),
    rule(
        rf"{_WE}(?:'ve| have)? (?:just )?(?:moved|relocated|shifted) (?:back |over |down |up )?to "
        rf"{PLACE}",
        "Lives in {v}",
        {"v": is_home},
        change=True,
        finish=no_background,
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:left|swapped) {OLDTO} for {PLACE}",
        "Lives in {v} instead of {o}",
        {"v": is_place, "o": is_place},
        "correction",
        change=True,
    ),
    rule(
        rf"\bi (?:don't|do not) (?P<k>live in) {VAL}\s+any ?more\b",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi no longer (?P<k>live in) {VAL}",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    # "I've finally settled in Cluj"
    rule(
        rf"{_WE}(?:'ve| have)? (?:finally |now |just )?settled (?:down )?in {PLACE}",
        "Lives in {v}",
        {"v": is_place},
        change=True,
    ),
    # "lahore based btw", "based in suva fiji btw": a subjectless note
    rule(
        r"^(?:i'm |im |i am |we're |we are )?(?P<v>[\w'’ .-]{2,30}?)[ -]based(?=\s*(?:[,.!]|$)|"
        r"\s+(?:btw|fyi|now)\b)",
        "Lives in {v}",
        {"v": is_place},
    ),
    rule(
        r"^(?:currently |now )?based (?:in|out of) (?P<v>[\w'’ .-]{2,40}?)(?=\s*(?:[,.!]|$)|"
        r"\s+(?:btw|fyi|now)\b)",
        "Lives in {v}",
        {"v": is_place_or_with_country},
    ),
    # "the shelter here in Sofia": the user's own place, when the message says no trip
    rule(
        rf"\bhere in {PLACE}",
        "Lives in {v}",
        {"v": is_place},
        finish=no_trip,
    ),
    rule(r"\bmy time ?zone is (?P<v>[A-Z][\w/+:-]{1,30})", "Timezone: {v}"),
]

CANON = [
    (r"^Lives in (.+)$", USER, "home"),
    (r"^Timezone: (.+)$", USER, "timezone"),
]
