"""How people type to an assistant, read as the full sentence it stands for: apostrophes left out
("im", "dont"), a subject left out ("Big Arsenal fan", "Vegan since 2018", "Allergic to
shellfish"), a label instead of a sentence ("Job: data scientist. Company: Grab."), a tag at the end
("veggie fyi", "celiac here").

Each form is a closed class: a word list or a label list, never a guess at grammar. The sentence it
gives still goes through every other check (framing, mood, kinds), so "Love it!" becomes "I love
it" and gives nothing, as before.
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..kinds import given_name, noun
from .lexicon import TECH
from .values import is_role

__all__ = ["household", "opening_role", "spelled", "titled_here", "with_subject"]

#: Contractions typed without their apostrophe. Words that are words without it ("were", "wont",
#: "ill", "id", "its", "hell") are left alone.
_APOSTROPHES = {
    "im": "I'm",
    "ive": "I've",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "wouldnt": "wouldn't",
    "couldnt": "couldn't",
    "shouldnt": "shouldn't",
    "thats": "that's",
    "whats": "what's",
    "theres": "there's",
    "shes": "she's",
    "hes": "he's",
    "theyre": "they're",
    "youre": "you're",
    "weve": "we've",
    # the cues of change typed in a hurry: a correction's cue misspelt is still its cue
    "actualy": "actually",
    "acutally": "actually",
    "actully": "actually",
    "actaully": "actually",
    "anymroe": "anymore",
    "annymore": "anymore",
    "pls": "please",
    "plz": "please",
    "thx": "thanks",
}
_APOSTROPHE_RX = lazy(r"\b(" + "|".join(_APOSTROPHES) + r")\b", re.I)
#: A tag at the end that says nothing ("vegan btw", "Never use emojis, please"); "here" only after
#: a predicate with no subject ("celiac here").
_TAIL_TAG = lazy(
    r"(?:,\s*(?:please|thanks|thank you)|[,\s]+(?:fyi|btw|by the way|tbh|just so you "
    r"know))+\s*([.!]*)$",
    re.I,
)
_HERE = lazy(r"\s+here\s*([.!]*)$", re.I)
#: The same tags, and other fillers typed after a phrase, before its comma or stop: never part of
#: a fact ("cant stand dark mode tbh, light theme forever" dislikes "dark mode").
_FILLER = lazy(
    r"\s+(?:tbh|tbf|ngl|imo|imho|fwiw|btw|fyi|tho|lowkey|honestly|srsly)\b(?=\s*(?:[,.;:!?]|$))",
    re.I,
)


#: "its" where a clause opens ("changed my mind its ramen now", "its a shiba"): a possessive never
#: opens one, so it is "it's".
_ITS = lazy(r"(?:^|(?<=[.!?;,:]\s)|(?<=\bmind\s)|(?<=\bnow\s))its(?=\s+(?!own\b)[a-z])", re.I)
#: "id like", "id rather": "I'd" ("id" alone may be an ID).
_ID = lazy(r"\bid(?=\s+(?:like|love|prefer|rather|appreciate)\b)", re.I)


#: "were on django 5": "we're", where "were" cannot be the past (no subject before it).
_WERE = lazy(
    r"(?:^|(?<=[.!?]\s))were (?=(?:on|using|going|moving|switching|running|based|in)\b)", re.I
)


#: "w" and "w/" for "with" before a word ("anything w peanuts").
#: "+" or "&" between two words typed in lower case is "and" ("allergic to tree nuts + shellfish");
#: never in a name ("Marks & Spencer") or a language ("C++").
_PLUS = lazy(r"(?<=[a-z]) [+&] (?=[a-z])")
_WITH = lazy(r"(?<![\w/])w/?(?= [a-z])", re.I)
#: "I've a retired greyhound", "we've two teenagers": "have" as Irish and British English say it
#: (never "I've a-" or "I've an idea" read otherwise: the same words).
_HAVE_A = lazy(
    r"\b(I|we)(?:'ve|’ve) (?=(?:a|an|two|three|four|five|six|seven|eight|nine|ten)\b)", re.I
)


#: A relative or a pet said with its name typed in lower case: "my husband kemal", "our lab
#: bruno", "my wife mei ling". The name gets its capital back, so the rules that ask for a name
#: read it; only a given name people have (``kinds.given_name``) that is no word of the sentence's
#: grammar ("my husband will …", "my son can …").
_KIN_NAMED = lazy(
    r"\b(?P<pre>(?:my|our)\s+(?:(?:little|older|younger|big|baby|eldest|oldest|youngest|twin|"
    r"step|new|late)\s+)?(?:wife|husband|hubby|partner|girlfriend|boyfriend|gf|bf|fianc[ée]e?|son|"
    r"daughter|boy|girl|brother|sister|bro|sis|mother|father|mom|mum|mam|dad|grandma|grandpa|"
    r"granny|nan|grandson|granddaughter|uncle|aunt|auntie|cousin|niece|nephew|dog|cat|puppy|"
    r"pup|kitten|parrot|hamster|rabbit|bunny|horse|mare|pony|tortoise|turtle|gecko|snake|lizard|"
    r"ferret|lab|labrador|husky|beagle|shiba|corgi|poodle|collie|terrier|spaniel|retriever|"
    r"greyhound|dachshund|pug|tabby|budgie|cockatiel)\s+)"
    r"(?P<n>[a-z][a-z'-]+)(?:\s+(?P<m>[a-z][a-z'-]+))?"
)
#: Words of grammar some list of the world's given names holds ("will", "may", "said", "the").
_NOT_A_NAME = frozenset(
    "is was will may can could would should has had have and but or so who which that just also "
    "still really now then too are were does did said the an a in on at to from with for of by "
    "over under after before since until while when any than he she us you my your our their "
    "his her it its me we they them i ive come came got gets is's hes shes who's lives works "
    "died passed left moved started turned born says told never always often usually here there "
    "well back home away out up down off already finally recently and its not no yes very much "
    "more most some all both each every other another such only own same early late soon "
    # verbs some list of given names holds ("like my mother made", "my dad taught me")
    "made makes did does went goes took takes gave gives knew knows thought bought brought taught "
    "kept met ran saw sent sat won wore wrote grew drew flew ate drank cooked cooks baked bakes "
    "used uses loved loves likes hated hates wanted wants needed needs tried tries".split()
)


def dictated(message: str) -> str:
    """What dictation writes, as typed: a sound between words read as the pause it is ("Toronto
    uh east end" → "Toronto, east end"), and numbers in digits: a day of the month ("October
    fifteenth" → "October 15", "the twenty first" → "the 21st"), a version ("three point oh" →
    "3.0"), a tool's major version ("Postgres fifteen" → "Postgres 15")."""
    message = _SOUND_INSIDE.sub(_pause, message)
    message = _DICTATED_DAY.sub(_day_in_digits, message)
    message = _DICTATED_ORDINAL.sub(_ordinal_in_digits, message)
    message = _DICTATED_VERSION.sub(_version_in_digits, message)
    return _TOOL_VERSION_SAID.sub(_tool_version_in_digits, message)


#: A sound inside a dictated sentence ("I live in Toronto uh east end Scarborough"): a pause.
_SOUND_INSIDE = lazy(r"(?<=\w)\s*,?\s+(?:uh+|um+|erm+)\b,?(?=\s+\w)", re.I)


def _pause(m: re.Match[str]) -> str:
    """A pause where a clause may end; after a word that joins ("and um Russian"), nothing."""
    before = m.string[: m.start()].rsplit(None, 1)[-1].lower()
    return "" if before in _JOINING else ","


_JOINING = frozenset("and or but the a an to in on at of for with my our so then".split())


#: A day of the month said in words, as dictation writes it ("October fifteenth", "the twelfth of
#: May", "November first"): "May" and "March" only with their capital ("we may first ask").
_ORDINAL_WORDS = {
    w: n
    for n, w in enumerate(
        (
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
        ).split(),
        1,
    )
}
_ORDINAL_WORD = r"(?:(?P<t>twenty|thirty)[- ])?(?P<o>" + "|".join(_ORDINAL_WORDS) + r"|thirtieth)"
_MONTH_SAID = (
    r"(?:(?i:january|february|april|june|july|august|september|october|november|december)|(?-i:May|"
    r"March))"
)
_DICTATED_DAY = lazy(
    rf"(?i:\b(?P<m>{_MONTH_SAID}) (?:the )?{_ORDINAL_WORD}\b)"
    rf"|(?i:\bthe {_ORDINAL_WORD.replace('P<t>', 'P<t2>').replace('P<o>', 'P<o2>')} of "
    rf"(?P<m2>{_MONTH_SAID})\b)"
)


#: Numbers said in words, zero to twenty.
_NUMBER_WORDS = {
    w: str(n)
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
#: A version said in words, as dictation writes it ("the three point oh release" → "3.0").
_DICTATED_VERSION = lazy(
    r"\b(?P<a>zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) point "
    r"(?P<b>oh|zero|one|two|three|four|five|six|seven|eight|nine)\b",
    re.I,
)


#: A tool's major version said in words after it ("Postgres fifteen", "Node twenty").
_TOOL_VERSION_SAID = lazy(
    r"\b(?P<t>[A-Za-z][\w.+#-]*) (?P<n>one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)\b",
    re.I,
)


def _tool_version_in_digits(m: re.Match[str]) -> str:
    """ "Postgres fifteen" → "Postgres 15": only after a technology the lexicon names."""
    if m.group("t").lower() not in TECH:
        return m.group(0)
    number = m.group("n").lower()
    return f"{m.group('t')} {_NUMBER_WORDS[number]}"


#: A day of the month said alone in words, past the tenth ("the twenty first", "the twentieth"):
#: as its digits ("the 21st"); "the first", "the second" stay words ("the second one").
_DICTATED_ORDINAL = lazy(
    r"\bthe (?:(?P<t>twenty|thirty)[- ](?P<o>first|second|third|fourth|fifth|sixth|seventh|eighth|"
    r"ninth)|(?P<w>eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|"
    r"eighteenth|nineteenth|twentieth|thirtieth))\b",
    re.I,
)


def _ordinal_in_digits(m: re.Match[str]) -> str:
    word = (m.group("o") or m.group("w")).lower()
    day = 30 if word == "thirtieth" else _ORDINAL_WORDS[word]
    day += {"twenty": 20, "thirty": 30}.get((m.group("t") or "").lower(), 0)
    if day > 31:
        return m.group(0)
    suffix = (
        "st"
        if day % 10 == 1 and day != 11
        else "nd"
        if day % 10 == 2 and day != 12
        else ("rd" if day % 10 == 3 and day != 13 else "th")
    )
    return f"{m.group(0)[:4]}{day}{suffix}"


def _version_in_digits(m: re.Match[str]) -> str:
    minor = "0" if m.group("b").lower() == "oh" else _NUMBER_WORDS[m.group("b").lower()]
    return f"{_NUMBER_WORDS[m.group('a').lower()]}.{minor}"


def _day_in_digits(m: re.Match[str]) -> str:
    """ "October fifteenth" → "October 15", "the twelfth of May" → "12 May"."""
    tens, word = m.group("t") or m.group("t2"), (m.group("o") or m.group("o2")).lower()
    day = 30 if word == "thirtieth" else _ORDINAL_WORDS[word]
    day += {"twenty": 20, "thirty": 30}.get((tens or "").lower(), 0)
    if day > 31:
        return m.group(0)
    return f"{m.group('m')} {day}" if m.group("m") else f"{day} {m.group('m2')}"


def _named(m: re.Match[str]) -> str:
    first, second = m.group("n"), m.group("m")
    if first in _NOT_A_NAME or not given_name(first):
        return m.group(0)
    said = m.group("pre") + first.capitalize()
    if second is None:
        return said
    if (
        second not in _NOT_A_NAME
        and not second.endswith("ly")
        and given_name(second)
        and not noun(second)
    ):
        return f"{said} {second.capitalize()}"  # "my wife mei ling"
    return f"{said} {second}"


def spelled(message: str) -> str:
    """The message with its apostrophes put back ("im" → "I'm", "dont" → "don't"), "w" read as
    "with", "+" between words as "and", a relative's or a pet's name typed in lower case given its
    capital ("my husband kemal")."""
    message = _WITH.sub("with", _WERE.sub("we're ", message))
    message = _HAVE_A.sub(lambda m: f"{m.group(1)} have ", message)
    message = _PLUS.sub(" and ", message)
    message = _KIN_NAMED.sub(_named, message)

    def put(m: re.Match[str]) -> str:
        word = m.group(1)
        full = _APOSTROPHES[word.lower()]
        return full if full[:1] == "I" or word.islower() else full[:1].upper() + full[1:]

    message = dictated(message)
    message = _ITS.sub(lambda m: "It's" if m.group(0)[0] == "I" else "it's", message)
    message = _ID.sub("I'd", message)
    return _APOSTROPHE_RX.sub(put, message)


#: Labels and the sentence each stands for ("Job: data scientist" → "I work as a data scientist").
_LABELS: list[tuple[re.Pattern[str], str]] = [
    (
        lazy(
            r"^(?:my )?(?:job|role|position|job title|occupation)\s*:\s*(?:an? )?(?P<v>.+)$", re.I
        ),
        "I work as a {v}",
    ),
    (lazy(r"^(?:company|employer|workplace)\s*:\s*(?P<v>.+)$", re.I), "I work at {v}"),
    (
        lazy(r"^(?:home|location|city|home town|hometown)\s*:\s*(?P<v>.+)$", re.I),
        "I live in {v}",
    ),
    (lazy(r"^(?:my )?name\s*:\s*(?P<v>.+)$", re.I), "My name is {v}"),
    (
        lazy(r"^(?:my )?fav(?:ou?rite)? (?P<k>[a-z]+)\s*:\s*(?P<v>.+)$", re.I),
        "My favourite {k} is {v}",
    ),
    (
        lazy(r"^(?:tech )?stack(?: for [^:]{1,40})?\s*:\s*(?P<v>.+)$", re.I),
        "We use {v}",
    ),
    (
        lazy(
            r"^(?:the )?team (?:agreement|rule|decision|agreed|decided)(?: [^:]{1,30})?\s*:\s*"
            r"(?P<v>.+)$",
            re.I,
        ),
        "Team agreement: {v}",
    ),
    (
        lazy(
            r"^(?:backend|back end|frontend|front end|database|db|hosting|infra|"
            r"infrastructure)\s*:\s*(?P<v>.+)$",
            re.I,
        ),
        "We use {v}",
    ),
    (
        lazy(r"^(?:my )?fav(?:ou?rite)? (?P<k>[a-z]+) is (?P<v>.+)$", re.I),
        "My favourite {k} is {v}",
    ),
    (lazy(r"^(?:my )?(?:home )?city is (?P<v>.+)$", re.I), "I live in {v}"),
    (
        lazy(r"^my home is (?P<v>(?-i:[a-z])[a-z]+(?: [a-z]+)?)(?=[,.;!]|$)(?P<rest>.*)$"),
        "I live in {v}{rest}",
    ),
]

#: Predicates that open a clause with no subject, and the subject they imply. Only predicates no
#: request to the agent opens: "Speak French", "Play some jazz", "Work at your own pace" are
#: instructions, so "speak", "play", "work", "live in" are not among them.
_DIET_END = r"(?=\s*(?:[,.;!]|$)|\s+(?:since|for|and|here|now|btw|fyi|too|as well)\b)"
_PREDICATES: list[tuple[re.Pattern[str], str]] = [
    (
        lazy(
            r"^(?:a |an )?(?:(?:big|huge|massive|die-?hard|lifelong|total|avid|long-?time)\s+)+"
            r"(?:\w+\s+){0,2}(?:fan|supporter)\b",
            re.I,
        ),
        "I'm ",
    ),
    (
        lazy(
            rf"^(?:(?:(?:fully|strictly|completely|totally|mostly|mainly|usually|generally) )?"
            rf"(?:vegan|vegetarian|pescatarian|"
            rf"veggie|celiac|coeliac|(?:type [12] )?diabetic|"
            rf"pre-?diabetic|(?:lactose|gluten) intolerant){_DIET_END}|"
            r"(?:really |honestly |definitely )?not (?:a |the )?(?:big |huge )?fan of\b|"
            r"(?:a )?(?:big |huge )?fan of\b|(?:severely |seriously |mildly |deathly |very "
            r")?allergic to\b|"
            r"fluent in\b|a native (?:\w+ )?speaker\b|native \w+ speaker\b|based (?:in|out of)\b|"
            r"originally from\b|married to\b|single (?:mom|mum|dad|mother|father|parent)\b|living "
            r"in\b|"
            r"obsessed with\b|passionate about\b|(?:\d+ weeks )?pregnant\b|"
            # a job said as a participle ("…, working as a chef", "Working at Tesco now"); never an
            # instruction ("Work at your own pace" is one)
            r"working (?:as|at|for) (?:an? |the )?\w)",
            re.I,
        ),
        "I'm ",
    ),
    (
        lazy(
            r"^(?:can't stand|cannot stand|love|hate|adore|grew up|moved (?:to|from)|"
            r"relocated (?:back )?to|keep halal|"
            r"don't like|"
            r"do not like|don't enjoy|really don't like|"
            r"don't eat|do not eat|don't drink|have (?:type [12] )?(?:diabetes|asthma|celiac|"
            r"coeliac))\b",
            re.I,
        ),
        "I ",
    ),
    (lazy(r"^(?:born|raised|born and raised) in\b", re.I), "I was "),
]
#: A household said as a list's item ("Married, no kids, two cats"): alone, "no kids, please" may
#: be a request, so only an item of a list of them (``household``).
_HOUSEHOLD_IS = lazy(r"^(?:happily )?(?:married|divorced|widowed|engaged|single)$", re.I)
_HOUSEHOLD_HAS = lazy(
    r"^(?:no|\d{1,2}|one|two|three|four|five|six) (?:kids?|children|child|sons?|daughters?|pets?|"
    r"cats?|dogs?)$",
    re.I,
)


def household(item: str) -> str | None:
    """One item of a list about the user's household as a sentence ("no kids" → "I have no
    kids", "married" → "I'm married"), or None."""
    item = item.strip().rstrip(".!")
    if _HOUSEHOLD_IS.match(item):
        return f"I'm {item.lower()}"
    if _HOUSEHOLD_HAS.match(item):
        return f"I have {item}"
    return None


def with_subject(clause: str) -> str:
    """The clause as a full statement: a label read as its sentence, a missing subject put back
    ("Vegan since 2018" → "I'm vegan since 2018"), a tag at the end dropped ("veggie fyi")."""
    text = _FILLER.sub("", _TAIL_TAG.sub(r"\1", clause)).strip()
    for rx, sentence in _LABELS:
        m = rx.match(text)
        if m:
            return sentence.format(**{k: v.strip() for k, v in m.groupdict().items()})
    bare = _HERE.sub(r"\1", text)
    for rx, subject in _PREDICATES:
        if rx.match(bare):
            return subject + bare[:1].lower() + bare[1:]
    titled = titled_here(text)
    if titled:
        return titled
    m = _ROLE_AT.match(bare)
    if m and is_role(m.group("r")) and not _STUDIES.search(m.group("r")):
        role = m.group("r")
        article = "an" if role[:1].lower() in "aeiou" else "a"
        return f"I'm {article} {role[:1].lower()}{role[1:]} {m.group('rest')}"
    low = _ROLE_AT_LOWER.match(bare)
    if (
        low
        and is_role(low.group("r"))
        and not _STUDIES.search(low.group("r"))
        and not _ASKED.search(low.group("tail") or "")
        and not low.group("r").startswith(("new ", "old ", "former ", "ex-"))
    ):
        role = low.group("r")
        article = "an" if role[:1] in "aeiou" else "a"
        place = low.group("p") or low.group("q")
        said = f"I'm {article} {role} at {low.group('o')}" + (f" in {place}" if place else "")
        return said + (low.group("tail") or "")
    return text


#: A title said with "here" that is a pastime or a belonging, not a trade: "Horse owner here",
#: "Amateur photographer here", "Fellow engineer here" (the listener's trade, maybe not the user's).
_NO_TRADE = lazy(
    r"^(?:fellow|amateur|hobby|hobbyist|weekend|proud|keen|avid|another)\b"
    r"|^(?!(?:shop|business|restaurant|cafe|café|bakery|salon|studio|gym|bar|pub|store|company|firm|"
    r"farm|hotel|b&b)\b)\S+ owner$",
    re.I,
)


def titled_here(item: str) -> str | None:
    """A job title with "here" and no subject, as people introduce themselves ("Nurse here",
    "Retired postman here!", "Accountant here, small firm"): "I'm a nurse"; None for anything else
    ("The nurse here", "New here", "Student here")."""
    m = _HERE.search(item)
    if not m:
        return None
    role = item[: m.start()].strip()
    if not is_role(role) or _STUDIES.search(role) or _NO_TRADE.search(role):
        return None
    article = "an" if role[:1].lower() in "aeiou" else "a"
    return f"I'm {article} {role[:1].lower()}{role[1:]}"


#: A student studies where a worker works: "Masters student at UofT" is left to the rules.
_STUDIES = lazy(r"\b(?:student|pupil|undergrad|postgrad|candidate|trainee)$", re.I)
#: A job title said with no subject, with where it is held: "Software engineer at Andela",
#: "pediatrician at king faisal hospital", "Freelance designer for US startups". The title must be
#: one (``values.is_role``): "Dinner at Nobu" is none.
_ROLE_AT = lazy(
    r"^(?:an? )?(?P<r>[A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,3}) (?P<rest>(?:at|for|with) "
    r"(?-i:[A-Z0-9])[^,]*)$"
)
#: The same in the terse register: the employer typed in lower case or after "@" ("senior frontend
#: dev at shopify", "sde @ amazon"), one or two words and nothing after them but a place; never
#: "teacher at heart", "nurse at night".
_ROLE_AT_LOWER = lazy(
    r"^(?:an? )?(?P<r>[a-z][\w-]*(?: [a-z][\w-]*){0,3}) (?:at|@) ?(?!(?:heart|home|night|work|"
    r"school|times|best|first|last|most|least|all|the|a|an|my|your|his|her|our|their)\b)"
    r"(?P<o>[a-z][\w&-]*(?: [a-z][\w&-]*)?)(?: \((?P<p>[a-z][\w -]*)\)| in (?P<q>[a-z][\w -]*))?"
    r"(?P<tail>,\s.*)?[.!]*$"
)
#: A tail that asks ("software engineer at google, what's the salary?"): the title is asked about.
_ASKED = lazy(
    r"\?|^,\s*(?:how|what|what's|whats|why|when|where|who|which|can|could|should|would|is|are|do|"
    r"does|any|pls|please|help)\b",
    re.I,
)
#: After a bare job title, what only an introduction says: a tenure ("~5 yrs in", "10+ years
#: exp"), the tools of the trade ("mostly figma").
_INTRO_TAIL = lazy(
    r"^(?:(?:~|about |around |like |over |almost )?(?:\d{1,2}\+?|a few|two|three|four|five|six|"
    r"seven|eight|nine|ten) ?(?:yrs|years|yr|year|y)(?: in| exp| experience| of experience)?|"
    r"mostly [a-z][\w+#./ -]*)\.?$",
    re.I,
)


def opening_role(item: str, after: str) -> str | None:
    """A bare job title opening a list whose next item only an introduction says ("ux
    researcher, ~5 yrs in", "freelance product designer, mostly figma"): "I'm a ux researcher";
    None for anything else ("nurse, come quick", "Student, 5 yrs in")."""
    role = item.strip().rstrip(".!")
    if not _INTRO_TAIL.match(after.strip()) or not is_role(role) or _STUDIES.search(role):
        return None
    article = "an" if role[:1].lower() in "aeiou" else "a"
    return f"I'm {article} {role[:1].lower()}{role[1:]}"
