"""Kind checks: whether a captured value is the right kind of thing for its template.

A home is a place a gazetteer knows, an employer an organisation (no department, no time zone), a
role a job title with no judging word, a language an ISO 639-1 one, a tool a technology, a liked
thing a short noun phrase that is no pronoun and nothing unpleasant. Checks against real data go
through ``kinds``; the rest are closed classes of the engine's own (``lexicon``). A rule names the
check each captured group must pass (``Rule.kinds``).
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..kinds import (
    common_given_name,
    known_language,
    known_place,
    known_place_in_lower_case,
    noun,
)
from .core import word_set
from .lexicon import (
    CONNECTORS,
    DEICTIC,
    GENERIC_THE,
    LANGUAGES,
    MEDIA,
    NOT_NAMES,
    NOT_PRESENT,
    PEOPLE,
    PROJECT_NOUN,
    QUALIFIERS,
    ROLES,
    TECH,
    TIME_WORDS,
    TOOL_TAIL,
    UNPLEASANT,
    VAGUE,
)


def _tokens(value: str) -> list[str]:
    return value.split()


def _is_proper(value: str, *, max_words: int = 5, digits: bool = False) -> bool:
    """A proper name: every significant word capitalised (``Rio de Janeiro``, ``Bank of America``),
    no time word, no greeting, no nationality."""
    words = _tokens(value)
    if not words or len(words) > max_words or words[0].lower() in CONNECTORS - {"the"}:
        return False
    if words[0].lower() == "the":
        words = words[1:]
        if not words:
            return False
    if words[-1].lower() in CONNECTORS:
        return False
    for w in words:
        bare = w.strip("'’.,")
        if not bare:
            return False
        if bare.lower() in CONNECTORS:
            continue
        if bare.lower() in NOT_NAMES or bare.lower().rstrip("s") in TIME_WORDS:
            return False
        if not (bare[0].isupper() or (digits and bare[0].isdigit())):
            return False
        if not digits and any(ch.isdigit() for ch in bare):
            return False
    return True


#: Not an organisation, whatever the capitals: departments, time zones, places of work that are no
#: employer.
NOT_ORG = word_set(
    "hr it marketing finance sales legal engineering accounting support operations ops pr r&d "
    "admin management "
    "product design research security compliance procurement logistics customer payroll facilities "
    "qa "
    "utc gmt cet cest est edt pst pdt cst cdt mst mdt bst ist jst aest central pacific eastern "
    "mountain atlantic "
    "time home remote remotely night nights weekends school university college"
)


#: Short forms a gazetteer spells out.
_PLACE_ALIASES = word_set("uk u.k. us u.s. usa u.s.a. uae nyc la sf england scotland wales bavaria")


def is_place(value: str) -> bool:
    """A place the gazetteer knows (``kinds``) by any of its Latin names, written as a proper name:
    "Lisbon", "the Netherlands", "Gdansk", "Cologne"; or typed in lower case when the name is no
    English word ("krakow", "tel aviv"; never "reading", "nice"). Software, time zones and moods
    never are ("Linux", "Central Time"); an unknown name needs a cue (``place_named``)."""
    if value.islower():
        return _lower_case_place(value) or _with_its_country(value)
    return (
        (
            _is_proper(value, max_words=4)
            and (known_place(value) or value.strip().lower() in _PLACE_ALIASES)
        )
        or _a_known_name_of_words(value)
        or _with_its_country(value)
    )


def _a_known_name_of_words(value: str) -> bool:
    """A place of several words the gazetteer knows whole, written with its capitals, whose words
    alone would read as no name: "Da Nang" opens with a connector, "Vina del Mar" ends in a
    month's short form."""
    words = value.split()
    return (
        2 <= len(words) <= 4
        and words[0][:1].isupper()
        and words[-1][:1].isupper()
        and all(w[:1].isupper() or w.lower() in CONNECTORS for w in words)
        and known_place(value)
    )


#: Words of a direction, which name a part of a country more than a place ("south east").
_COMPASS = frozenset("north south east west central northern southern eastern western".split())


def _with_its_country(value: str) -> bool:
    """A town of the gazetteer too small (or too like a word) to be read in lower case alone, with
    its country after it: "suva fiji", "bath, england"."""
    words = value.replace(",", " ").split()
    if not 2 <= len(words) <= 5 or set(w.lower() for w in words) & (NOT_NAMES | CONNECTORS):
        return False
    return any(
        known_place(" ".join(words[:i]))
        and (
            " ".join(words[i:]).lower() in _PLACE_ALIASES
            or _lower_case_place(" ".join(words[i:]).lower())
            or " ".join(words[i:]) in _US_STATE_CODES  # "Austin TX", typed in capitals
            # "halifax nova scotia", "perth western australia": a region of two words or more
            # the gazetteer knows, which no English phrase is
            or (
                len(words) - i >= 2
                and known_place(" ".join(words[i:]))
                and not {w.lower() for w in words[i:]} <= _COMPASS  # "london south east"
            )
        )
        for i in range(1, len(words))
    )


#: The postal codes of US states, read only in capitals after a city ("Austin TX", "Boise ID").
_US_STATE_CODES = frozenset(
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM "
    "NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC".split()
)


def _lower_case_place(value: str) -> bool:
    words = value.split()
    return (
        0 < len(words) <= 4
        and not set(words) & (NOT_NAMES | CONNECTORS) - {"de", "la", "el", "san", "los", "las"}
        and known_place_in_lower_case(value)
    )


def place_name(value: str) -> str:
    """A place as a memory line writes it: as typed, or capitalised when typed in lower case
    ("tel aviv" → "Tel Aviv")."""
    if not value.islower():
        return value
    return " ".join(w if w in CONNECTORS else w[:1].upper() + w[1:] for w in value.split())


def is_unknown_place(value: str) -> bool:
    """A proper name the gazetteer does not know, for a sentence that says it is a place ("a village
    near …")."""
    words = value.lower().split()
    return _is_proper(value, max_words=4) and not set(words) & (NOT_ORG | TECH | LANGUAGES)


#: Places of work that are an organisation only with a name of their own ("the University of
#: Edinburgh", not "university"; "Lincoln High School", not "school").
_BARE_ONLY = word_set("time home remote remotely night nights weekends school university college")


#: A number with a letter or two: a school class, a form, a room or a flat ("class teacher for
#: 7B", "we're in 4C"), never an employer said alone.
_CODE = lazy(r"\d{1,3}[a-z]{0,2}", re.I)


def is_org(value: str) -> bool:
    words = {w.strip(".,").lower() for w in value.split()} - {"the"}
    if not words or words <= _BARE_ONLY or _CODE.fullmatch(value.strip()):
        return False
    return _is_proper(value, max_words=5, digits=True) and not (
        words & ((NOT_ORG - _BARE_ONLY) | LANGUAGES)
    )


def is_name(value: str) -> bool:
    return _is_proper(value, max_words=3) and not value.lower().startswith("the ")


#: Words that judge rather than name a job: "a terrible cook" is no cook by trade.
EVALUATIVE = word_set(
    "terrible awful bad good great decent lousy horrible amazing excellent better worse best worst "
    "average "
    "mediocre poor fine lazy proud happy big huge aspiring wannabe would-be former ex failed "
    "frustrated "
    "hopeless natural born real total complete wonderful fantastic brilliant okay ok so-so"
)


#: A title that heads something ("head of the science department", "VP of engineering").
_HEAD_OF = lazy(r"(?:head|director|vp|chair|dean|lead) of (?:the )?[a-z][a-z -]{2,40}", re.I)


_GRADE = lazy(r"\b(?:year|grade|form|class|primary|standard|p|ks) ?\d{1,2}\b", re.I)


def is_role(value: str) -> bool:
    if _HEAD_OF.fullmatch(value.strip()):
        return True
    # "Year 2 teacher", "grade 5 teacher", "form 4 tutor": the class taught is part of the role
    value = _GRADE.sub("grade", value)
    words = [w.strip(".,").lower() for w in _tokens(value)]
    return (
        0 < len(words) <= 4
        and (
            words[-1] in ROLES
            or words[-2:-1] in (["deputy"], ["assistant"])
            and words[-1] == "head"
        )
        and all(re.fullmatch(r"[a-z-]+", w) for w in words)
        and not (set(words) & (VAGUE | TIME_WORDS | EVALUATIVE | _PAST_TITLE))
    )


#: A title held once ("a retired teacher"): no job now; the retired line says it
#: (``Is a retired teacher``).
_PAST_TITLE = frozenset({"retired"})


def is_language(value: str) -> bool:
    """A language ISO 639-1 names (``kinds``), as written with its capital: "Portuguese", never
    "Poetry"."""
    value = value.strip()
    return value[:1].isupper() and (value.lower() in LANGUAGES or known_language(value))


def is_tool(value: str) -> bool:
    """A technology, optionally with a short purpose ("Rust for the parser", "Slack for chat")."""
    words = _tokens(value)
    if not words or len(words) > 7:
        return False
    head: list[str] = []
    for w in words:
        if w.lower() in TOOL_TAIL:
            break
        head.append(w)
    if not head or len(head) > 3:
        return False
    first = head[0].strip(".,")
    if first.lower() in VAGUE or first.lower() in TIME_WORDS or _VERSION.fullmatch(first):
        return False
    return all(
        h.lower().strip(".,") in TECH
        or (h[:1].isupper() and h.lower() not in NOT_NAMES)
        or (i > 0 and _VERSION.fullmatch(h.strip(".,")) is not None)  # "Django 5", "Go 1.22"
        or (i > 0 and head[0].lower() in TECH and h.isalpha() and h.islower())  # "spring boot"
        for i, h in enumerate(head)
    )


#: A version after a tool's name ("5", "3.12", "v2", "16.1").
_VERSION = lazy(r"v?\d+(?:\.\d+)*[a-z]?")


def is_tech(value: str) -> bool:
    """A tool, and not a place, a person or a language ("we're going with ClickHouse", never "…
    with Berlin")."""
    first = value.split()[0] if value.split() else ""
    if first.lower() in TECH:
        return is_tool(value)
    words = value.split()
    return (
        is_tool(value)
        and not known_place(first)
        # "Port Harcourt", "Santa Cruz": a place of several words, none of them a place alone
        and not any(known_place(" ".join(words[:n])) for n in (2, 3) if n <= len(words))
        and not common_given_name(first)
        and not is_language(first)
    )


_EMPTY_TAIL = word_set("time out stuff things everything it that this there here together")


#: Settings that "the" names in general, not one of them in view ("I love the ocean", not "I love
#: the vase in the pic"): a like of anything else after "the" is about one thing of the
#: conversation.
_BEING_OUT = frozenset(
    ("being outdoors", "being outside", "being in nature", "being on the water", "being by the sea")
)


def is_thing(value: str, *, unpleasant_ok: bool = False) -> bool:
    """Something a person can like or dislike: a short noun phrase, not a pronoun, not a vague or
    unpleasant one."""
    words = [w.strip(".,!'\"").replace("’", "'").lower() for w in _tokens(value)]
    if len(words) == 2 and words[0] == "the" and words[1] in GENERIC_THE:
        return True  # "I love the ocean"
    if " ".join(words) in _BEING_OUT:
        return True  # "we love being outdoors"
    tokens = _tokens(value)
    if len(tokens) > 1 and words[0] == "the" and all(t[:1].isupper() for t in tokens[1:]):
        return is_thing(" ".join(tokens[1:]))  # "the Springboks", "the Beatles": a name
    if len(words) > 1 and words[0] == "having" and words[-1].endswith("s"):
        # "having movie marathons": the marathons are the thing
        return is_thing(" ".join(words[1:]))
    if (
        not words
        or len(words) > 6
        or words[0] in VAGUE
        or words[0] in DEICTIC
        or words[0] in NOT_PRESENT
    ):
        return False  # "I like tomorrow's plan": about one day
    if words[0].removesuffix("s") in TIME_WORDS and len(words) == 1:
        # "I love Fridays": a day, maybe a plan; "morning meetings", "night trains" are things
        return False
    if words[-1] in _EMPTY_TAIL:
        return False  # "spending time", "hanging out": no thing named
    if (set(words) & UNPLEASANT and not unpleasant_ok) or set(words) & {
        "my",
        "your",
        "it",
        "that",
        "this",
        "you",
        "when",
        "if",
        "answers",
        "replies",
        "responses",
        "answer",
        "reply",
        "explanations",
        "explanation",
    }:
        return False
    return all(re.fullmatch(r"[\w'&+-]+(?:\.\w+)*", w) for w in words)


_ONE_OCCASION = frozenset(
    (
        "together",
        "lately",
        "recently",
        "again",
        "sometimes",
        "tonight",
        "today",
        "yesterday",
        "tomorrow",
        "last",
        "next",
        "once",
        "here",
        "there",
        "us",
        "with",
    )
)


def is_activity(value: str) -> bool:
    """A pastime said as a gerund ("hiking in the mountains"), or a list of them, and not one
    occasion ("painting together lately")."""
    items = [i for i in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", value.lower()) if i]
    return (
        bool(items)
        and len(items) <= 5
        and all(
            len(words) <= 5
            and words[0].endswith("ing")
            and len(words[0]) > 4
            and not set(words) & _ONE_OCCASION
            and is_thing(item)
            for item in items
            for words in [item.split()]
        )
    )


TITLE = lazy(r"The(?: (?:of|the|and|a|[A-Z][\w'’:-]*)){0,4} [A-Z][\w'’:-]*")


def is_thing_or_title(value: str) -> bool:
    """A liked thing, or a title that opens with its "The" ("The Hobbit is one of my favorites")."""
    return is_thing(value) or bool(TITLE.fullmatch(value.strip()))


_HONORIFICS = word_set(
    "mr mrs ms miss dr doctor prof professor sir madam auntie grandpa grandma coach"
)


def is_title(value: str) -> bool:
    """A name of two capitalised words or more that names no person ("Home Alone", not "Grandma
    Rose")."""
    words = [w for w in value.split() if w[:1].isupper()]
    return (
        len(value.split()) >= 2
        and words[0].lower().rstrip(".") not in PEOPLE | _HONORIFICS
        and not any(common_given_name(w) for w in words)
    )


#: Verbs that name no pastime after "I like to": saying, thinking, seeing and helping are about a
#: moment or a person ("I like to think …", "I love to see it").
_NOT_PASTIME_VERBS = word_set(
    "think say know believe hear see keep remind make help go be get have let tell ask imagine "
    "remember "
    "point mention add call check try give put take feel show"
)


def is_pastime_verb(value: str) -> bool:
    """A verb after "I like to" that can name a pastime ("collect", "swim"), not "think" or
    "see"."""
    return value.lower() not in _NOT_PASTIME_VERBS and value.isalpha()


_ABOUT = lazy(rf"(?:[\w-]+ )?(?:{MEDIA}) about [a-z][\w -]*")


#: Words that tie a topic to this conversation or one occasion ("books about you", "stories about
#: the time we went camping").
_NOT_TOPIC = word_set(
    "my your his her their our the a an this that these those it we i you he she they me him them "
    "us "
    "when what how who where which time"
)


def is_about(value: str) -> bool:
    """Books, films … about a topic: a generic topic of at most eight words in all, no pronoun,
    no article, no one occasion."""
    words = value.lower().split()
    return (
        bool(_ABOUT.fullmatch(value.strip()))
        and len(words) <= 8
        and not set(words) & (_NOT_TOPIC | QUALIFIERS)
    )


def is_no_noun(value: str) -> bool:
    """No noun of the lexicon, singular or plural (the word after an instrument: "hero" of "Guitar
    Hero" is one, "every" of "guitar every day" none); an empty value is none."""
    word = value.lower()
    return not (word and (noun(word) or (word.endswith("s") and noun(word[:-1]))))


def is_pastime(value: str) -> bool:
    """A named pursuit of three words at most ("dance", "charity work"); a longer one is more often
    an aim ("making a positive impact in my town") than something a person does."""
    return len(value.split()) <= 3 and is_thing(value)


def is_any_thing(value: str) -> bool:
    """As ``is_thing``, unpleasant things included: a dislike of one is sincere ("I hate early
    meetings"), and a tax return can be due."""
    return is_thing(value, unpleasant_ok=True)


def is_np(value: str) -> bool:
    """A noun phrase with its article ("a homeless shelter", "the fire-fighting brigade")."""
    bare = re.sub(
        r"^(?:a|an|the|my local|our local|my own|our own)\s+", "", value.strip(), flags=re.I
    )
    return bare != value.strip() and is_any_thing(bare)


def is_firm(value: str) -> bool:
    """An organisation that is no place the gazetteer knows ("I left Google for Stripe", not "…
    Berlin for Lisbon")."""
    return is_org(value) and not known_place(value)


def is_project(value: str) -> bool:
    """A named project ("Heron") or a described one ("inventory app", "the service")."""
    return is_name(value) or bool(re.fullmatch(rf"(?:[a-z][\w-]* )?{PROJECT_NOUN}", value))


def is_specific(value: str) -> bool:
    """Anything but a pronoun or a vague word ("I no longer use it")."""
    first = value.split(" ", 1)[0].lower() if value.strip() else ""
    return bool(first) and first not in VAGUE


#: After an unknown proper name, words that say it is a place.
PLACE_CUE = lazy(
    r",?\s+(?:an?|the)\s+(?:small\s+|little\s+|tiny\s+|big\s+)?(?:town|village|city|suburb|"
    r"hamlet|neighbou?rhood|district|borough|island|county|region|province|state)\b",
    re.I,
)


#: After a place, its country or region and nothing more ("suva, fiji", "bath, england").
_COUNTRY_AFTER = lazy(r"\s*,?\s*(?P<c>[A-Za-z][\w'’ .-]{1,30}?)\s*(?:[,.;!]|$)")


def place_named(value: str, rest: str) -> bool:
    """An unknown proper name that the words after it say is a place ("I live in Little Hinton, a
    village near Oxford"), or a name of the gazetteer too small or too like a word to be read in
    lower case alone, with its country after it ("suva, fiji", "bath, england")."""
    if PLACE_CUE.match(rest) and is_unknown_place(value):
        return True
    country = _COUNTRY_AFTER.match(rest)
    return (
        country is not None
        and known_place(value)
        and not set(value.lower().split()) & (NOT_NAMES | CONNECTORS)
        and (is_place(country.group("c")) or country.group("c").lower() in _PLACE_ALIASES)
    )


#: A value as it goes into its template: no broken or control characters, spacing folded, and a
#: leading "the", "my", "in" … dropped (``strip``), except before a proper name (``proper``: "the
#: Netherlands") or a title ("The Hobbit").
def clean(value: str, proper: bool, *, strip: bool = True) -> str:
    value = re.sub(
        r"[\ud800-\udfff\x00-\x1f\x7f\ufffd]", "", value
    )  # broken or control characters: never file text
    value = re.sub(r"\s+", " ", value).strip(" '\"`-:")
    if not strip:
        return value
    value = re.sub(r"^(?:the city of|our|my|in|at)\s+", "", value, flags=re.I)
    if re.fullmatch(r"(?i:the)\s+\w+", value) and value.split()[-1].lower() in GENERIC_THE:
        return value  # "the ocean" keeps its article, as said
    if (proper and re.match(r"^the\s+[A-Z]", value)) or TITLE.fullmatch(value):
        return value  # "the Netherlands"; a title said with its capital "The" ("The Hobbit")
    value = re.sub(r"^the\s+", "", value, flags=re.I)
    return value
