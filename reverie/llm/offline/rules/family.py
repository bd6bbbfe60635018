"""The user's family and the people around them, by name: "my wife Priya", "our son Theo starts
school …", "I have a sister named Ana".

A relative's name must be a given name in some locale (``kinds.given_name``): "my wife is
Colombian" names no wife.
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from .. import kinds
from ..kinds import given_name, known_place_in_lower_case, noun
from .core import USER, Filling, rule
from .lexicon import NOT_NAMES, TECH
from .phrases import NAME, PSTOP
from .values import is_language, is_name

#: Relatives and colleagues, as a pattern (``lexicon.PEOPLE`` as a set).
KIN = (
    "wife|husband|partner|girlfriend|boyfriend|fiancée?|son|daughter|brother|sister|mother|father|"
    "mom|mum|dad|"
    "grandmother|grandfather|grandma|grandpa|grandson|granddaughter|stepson|stepdaughter|"
    "uncle|aunt|cousin|niece|nephew|boss|manager"
)


#: "no kids, please": a request about what to leave out (of a booking, a plan), not the user's
#: family.
_ASKED_FOR = lazy(r"\bno (?:kids|children)\W{0,3}(?:please|pls|thanks|thank you)\b", re.I)


def named_person(f: Filling) -> bool:
    """A wife or a son has a given name ("Colombian" is none)."""
    return given_name(f.groups.get("v", ""))


def named_after_kin(f: Filling) -> bool:
    """A name right after the kin word ("my daughter Mei is 3", "a son called Tevita"): a given name
    of the list, or one word shaped as a name that is no other kind of word the engine knows
    (never "my son Monday", "my boss Slack"). After "is" only the list's names count: "my wife is
    Colombian", "my boss is Brilliant" say what, not who."""
    value = f.groups.get("v", "")
    return given_name(value) or name_shaped(value)


#: The endings of a people's or a language's name ("Colombian", "Chinese", "Danish", "Icelandic"):
#: a word the list of names lacks with one is more likely that than a name.
_DEMONYM = lazy(r"(?:an|ese|ish|ic|ern|ean|[alnq]i)$")


def name_shaped(value: str) -> bool:
    """One capitalised word of letters that is no time word, nationality, language, country or
    large city, technology or common noun: a name the list lacks ("Mei", "Zosia", "Kayode")."""
    if not re.fullmatch(r"[A-Z][a-z]{1,14}", value) or _DEMONYM.search(value):
        return False
    if not kinds._given_names():  # the list did not load: no name of this kind (``kinds._safe``)
        return False
    low = value.lower()
    return not (
        low in NOT_NAMES
        or low in TECH
        or noun(low)
        or known_place_in_lower_case(low)
        or is_language(value)
    )


#: Children said as a group ("our two boys", "I have twin girls"), written by what they are.
_CHILDREN = {
    "kids": "children",
    "children": "children",
    "boys": "sons",
    "sons": "sons",
    "girls": "daughters",
    "daughters": "daughters",
    "grandkids": "grandchildren",
    "grandchildren": "grandchildren",
}
_COUNT = r"(?P<n>two|three|four|five|six|2|3|4|5|6)"
_ONE_CHILD = {"children": "child", "sons": "son", "daughters": "daughter"}


def children(f: Filling) -> bool:
    """ "our two boys" → "Has two sons"."""
    f.values["k"] = _CHILDREN[f.groups["k"].lower()]
    f.values["n"] = f.groups["n"].lower()
    return True


def child_named(f: Filling) -> bool:
    """ "I have twin boys, Arjun and Rohan" → "Has a son named Arjun" (and Rohan)."""
    kind = _CHILDREN.get(f.groups["k"].lower(), f.groups["k"].lower())
    f.values["k"] = _ONE_CHILD.get(kind, kind)
    return given_name(f.groups.get("v", ""))


#: Words that may stand between a possessive and its noun ("my wife's new job").
_BEFORE_NOUN = frozenset("new old first own best late current".split())


def a_possession(said: str) -> bool:
    """ "wife's new job", "husbands car": a noun follows, so "'s" is a possessive, not "is" ("my
    wife's not really into hiking")."""
    words = said.split()
    if not words:
        return False
    if words[0] in _BEFORE_NOUN:
        words = words[1:]
    return bool(words) and (noun(words[0]) or noun(words[0].rstrip("s")))


#: A marital status the user states of themselves (``Is divorced``): one at a time.
_STATUS = r"married|divorced|separated|single|engaged|widowed|a widow|a widower"
_STATUS_END = r"(?=\s*(?:[,.;!]|$)|\s+(?:and|since|for|with|but|no)\b)"


def one_household(f: Filling) -> bool:
    if f.groups.get("k3") and not a_possession(f.groups.get("n", "")):
        return False
    kind = f.groups.get("k") or f.groups.get("k2") or f.groups.get("k3", "")
    f.values["k"] = kind.lower()
    return bool(kind)


def spouse(f: Filling) -> bool:
    """Married to a person with a given name ("married to the job" is none)."""
    return given_name(f.groups.get("v", ""))


#: When a baby is due: a month or a season.
_DUE = (
    r"(?-i:[A-Z])[a-z]+|january|february|march|april|may|june|july|august|september|october|"
    r"november|december|the (?:spring|summer|autumn|fall|winter)"
)
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
#: A message about an expected baby.
_PREGNANCY = lazy(
    r"\b(?:baby|babies|scan|ultrasound|pregnan\w*|expecting|midwife|obstetrician|"
    r"ob-?gyn)\b",
    re.I,
)


def _a_due(value: str) -> str | None:
    """ "april" → "April", "the spring" kept; any other word is no time a baby is due."""
    low = value.lower()
    if low in _MONTHS:
        return low.capitalize()
    return value if low.startswith("the ") else None


def expecting(f: Filling) -> bool:
    """ "expecting our first baby in May" → "Expecting a baby in May"; twins → "Expecting twins"."""
    kind = f.groups.get("k", "baby").lower()
    if kind in ("twins", "triplets"):
        f.template = f.template.replace("a baby", kind)
    due = f.groups.get("v")
    if due:
        month = _a_due(due)
        if month is None:
            return False
        f.values["v"] = month
    else:
        f.template = f.template.replace(" in {v}", "")
    return True


def expected_anew(f: Filling) -> bool:
    """The expected baby said anew in a message about it: twins (or triplets) and the due date,
    from wherever the message says them, as one line (the ``expecting`` slot replaces the old)."""
    message = f.message or f.match.string
    if not _PREGNANCY.search(message):
        return False
    many = re.search(r"\b(twins|triplets)\b", message, re.I)
    due = re.search(
        r"\bdue (?:date )?(?:(?:is|was|has|been|now|moved|changed|pushed|brought|shifted|up|back|"
        r"forward|got) ){0,4}(?:(?:in|to|for) )?(?:the (?:start|end|middle) of )?"
        rf"(?P<v>{_DUE})\b",
        message,
        re.I,
    )
    month = _a_due(due.group("v")) if due else None
    if f.groups.get("v") and month is None:
        month = _a_due(f.groups["v"])
        if month is None:
            return False
    what = many.group(1).lower() if many else "a baby"
    f.template = f"Expecting {what} in {{v}}" if month else f"Expecting {what}"
    f.values["v"] = month or ""
    return True


_PARENT = {
    "mum": "mother",
    "mom": "mother",
    "dad": "father",
    "grandma": "grandmother",
    "grandpa": "grandfather",
    "mum-in-law": "mother-in-law",
    "mom-in-law": "mother-in-law",
}


def a_parent_died(f: Filling) -> bool:
    """In the user's word: "died", or "passed away" ("passed" alone is said for it)."""
    if f.groups.get("d", "").lower() == "died":
        f.template = "{K} died"
    return a_parent(f)


def a_parent(f: Filling) -> bool:
    """ "mum" → "mother"; "Dad" → "Father" at a line's start."""
    kind = f.groups.get("k", "").lower()
    f.values["k"] = _PARENT.get(kind, kind)
    f.values["K"] = f.values["k"].capitalize()
    return True


def child_born(f: Filling) -> bool:
    """A newborn by name: a girl is a daughter, a boy a son."""
    kind = (f.groups.get("k") or f.groups.get("k2") or f.groups.get("k3") or "").lower()
    f.values["k"] = {"girl": "daughter", "boy": "son"}.get(kind, kind)
    f.values["v"] = f.groups.get("v") or f.groups.get("v2") or f.groups.get("v3") or ""
    return given_name(f.values["v"])


#: How often children stay with the user: "every other week", "on weekdays", "every other
#: weekend", "half the week", "alternate weeks".
_RHYTHM = (
    r"(?P<v>every (?:other|second) (?:week|weekend)|on (?:weekdays|weekends|school nights)|"
    r"during the week|at weekends|half (?:the|of the) (?:week|time)|alternate (?:weeks|weekends)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days? to (?:mon|tues|wednes|thurs|fri|satur|sun)days?)"
)
#: A message about the user's children or their other parent.
_CHILD_TALK = lazy(
    r"\b(?:kids?|children|child|sons?|daughters?|boys|girls|custody|my ex|co-?parent\w*)\b", re.I
)


def staying(f: Filling) -> bool:
    """ "they're with me every other week" in a message about the user's children: who stays, by
    the pronoun ("she" a daughter, "he" a son, "they" the children), and how often."""
    message = f.message or f.match.string
    if not _CHILD_TALK.search(message):
        return False
    who = (f.groups.get("w") or "").lower()
    kind = f.groups.get("k", "").lower()
    if kind:
        f.values["K"] = {"kids": "Children", "children": "Children"}.get(kind, kind.capitalize())
    elif who.startswith("she"):
        f.values["K"] = "Daughter"
    elif who.startswith("he"):
        f.values["K"] = "Son"
    else:
        f.values["K"] = "Children"
    needs = {"Daughter": r"\bdaughter|\bgirl", "Son": r"\bson\b|\bboy"}.get(f.values["K"])
    if needs and not re.search(needs, message, re.I):
        return False
    f.template = (
        f.template.replace("stay ", "stays ") if f.values["K"] != "Children" else f.template
    )
    return True


def custody(f: Filling) -> bool:
    kind = f.groups.get("k", "").lower()
    f.values["k"] = {"kids": "children"}.get(kind, kind)
    name = f.groups.get("v", "")
    if name and not named_after_kin(f):
        return False
    f.template = "Shares custody of their {k} {v}" if name else "Shares custody of their {k}"
    return True


# -- a list of the user's children, named, with their ages ---------------------------------------
#: The head of a list of the user's children: "I've got two boys", "my kids are", "dad of two:",
#: "got twin girls", "kids: 2,", "we have twins", "single mom of two teenagers:".
_KIDS_HEAD = (
    r"(?:^|(?:\b(?:i|we|me)(?:'ve| have)?(?: got| have)?|^(?:just )?got|\b(?:mum|mom|dad|mother|"
    r"father|parent) (?:of|to)|\bmy|\bour|\b(?:me|i) and my (?:wife|husband|partner)(?: [a-z]+)? "
    r"have|\bmy (?:wife|husband|partner)(?: [a-z]+)? and (?:i|me) have) )"
    r"(?:(?P<n>two|three|four|2|3|4) )?(?:(?P<t>twin) )?(?:(?:little|young|teenage|grown) )?"
    r"(?P<k>kids|children|boys|girls|sons|daughters|twins|teenagers)"
    r"(?P<are> are\b|:(?:\s*(?P<n2>[2-4])\s*,)?)?"
)
_AGE_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_AGE = r"(?:\d{1,2}|" + "|".join(_AGE_WORDS) + r")"
#: One child of the list: a name, and maybe the pronoun and age said after it ("amara, shes 7",
#: "Leo (7)", "Zofia who's 7", "Kuba, 4", "deniz is seven").
_MEMBER = lazy(
    r"(?P<name>[A-Za-z][a-z'’-]+)(?:\s*\((?P<a1>\d{1,2})\)|,?\s+(?:(?P<p>who(?:'s| is)|whos|"
    r"she(?:'s| is)|shes|he(?:'s| is)|hes|is|aged?)\s+)?(?P<a2>" + _AGE + r")\b"
    r"(?:\s*(?:yo|y/o|years? old))?)?",
    re.I,
)
_BETWEEN = lazy(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)", re.I)
_COUNT_WORD = {2: "two", 3: "three", 4: "four"}
_ONE_OF = {"sons": "son", "boys": "son", "daughters": "daughter", "girls": "daughter"}


def _a_child(mm: re.Match[str] | None) -> bool:
    name = mm.group("name") if mm else ""
    return (
        bool(name) and name.lower() not in NOT_NAMES and given_name(name) and not noun(name.lower())
    )


def _sentence_after(f: Filling) -> str:
    """The rest of the head's sentence in the message (a clause may stop at a comma)."""
    rest = f.match.string[f.match.end() :]
    message = f.message or ""
    at = message.lower().find(f.match.string.lower())
    if at >= 0:
        rest = message[at + f.match.end() :]
    return re.split(r"[.;!?]|\s[—–-]\s", rest, maxsplit=1)[0]


_AFTER_HEAD = lazy(r"\s*(?:[,:—–-]\s*|(?:named|called)\s+)?")
_NEXT_ONE = lazy(r",\s*(?:and\s+)?")
#: A child said: (name, age, the pronoun said of them).
Child = tuple[str, str, str]


def _next_child(rest: str, pos: int, after_one: bool) -> re.Match[str] | None:
    """The child named at ``pos``; after one, words about it may come first ("Liam who's 11 and
    in Year 6, and Noah who's 8": the next one then only with an age)."""
    mm = _MEMBER.match(rest, pos)
    if _a_child(mm) or not after_one:
        return mm if _a_child(mm) else None
    later = _NEXT_ONE.search(rest, pos)
    mm = _MEMBER.match(rest, later.end()) if later else None
    return mm if mm and _a_child(mm) and (mm.group("a1") or mm.group("a2")) else None


def _children_said(rest: str) -> tuple[list[Child], int]:
    """The children named in ``rest``, and where the list ends."""
    head = _AFTER_HEAD.match(rest)
    pos = head.end() if head else 0
    members: list[Child] = []
    while len(members) < 6:
        mm = _next_child(rest, pos, bool(members))
        if mm is None:
            break
        age = mm.group("a1") or mm.group("a2") or ""
        name = mm.group("name")
        members.append((name[:1].upper() + name[1:], _age(age), (mm.group("p") or "").lower()))
        pos = mm.end()
        between = _BETWEEN.match(rest, pos)
        if not between:
            break
        pos = between.end()
    return members, pos


def _age(said: str) -> str:
    return _AGE_WORDS.get(said.lower(), said)


def _one_child(kind: str, pronoun: str) -> str:
    """A son or a daughter, by the word for the children or the pronoun; else unsaid ("")."""
    if kind in _ONE_OF:
        return _ONE_OF[kind]
    return "daughter" if pronoun.startswith("she") else "son" if pronoun.startswith("he") else ""


def children_listed(f: Filling) -> bool:
    """ "my kids are amara, shes 7, and chidi who is 4", "I've got two boys, Liam who's 11 and
    Noah who's 8", "twin girls mia and ava, theyre 3": one line per child whose sex is said (by
    the word for the children or a pronoun), and the count of children when two or more are
    named (an age said lets one child alone be read). A child of no said sex is counted only; a
    word that is no given name ends the list."""
    members, _end = _children_said(_sentence_after(f))
    if not members or (len(members) < 2 and not f.groups.get("are") and not members[0][1]):
        return False
    kind = f.groups["k"].lower()
    # the name only: an age goes stale in a year, and the line of the name alone is the one the
    # other rules of a child write (one line per child)
    lines = [
        f"Has a {one} named {name}"
        for name, _age_said, pronoun in members
        if (one := _one_child(kind, pronoun))
    ]
    n = (f.groups.get("n") or f.groups.get("n2") or "").lower()
    count = {"two": 2, "three": 3, "four": 4}.get(n) or (int(n) if n.isdigit() else 0)
    # the count, when said as children, sons or daughters ("twins" and "teenagers" say more than
    # a number: their line is the names')
    plain = kind not in ("twins", "teenagers") and not f.groups.get("t")
    if plain and len(members) >= 2 and count in (0, len(members)):
        many = {"son": "sons", "daughter": "daughters"}.get(_ONE_OF.get(kind, ""), "children")
        lines.append(f"Has {_COUNT_WORD.get(len(members), str(len(members)))} {many}")
    if not lines:
        return False
    f.template, f.values = "\n".join(lines), {}
    return True


RULES = [
    # custody and its rhythm: "My ex and I share custody of our daughter Zoe", "i have my son
    # every other weekend", "they're with me every other week" (in a message about children)
    rule(
        r"\b(?:i|we|my ex(?:-\w+)? and i|[A-Z][a-z]+ and i) (?:share|have shared|split) (?:joint "
        r")?custody of (?:our|my|the) (?P<k>son|daughter|kids|children|boys|girls|twins)"
        rf"(?:,? {NAME})?(?=\s*(?:[,.;!]|$)|\s+(?:and|with|who|since)\b)",
        "Shares custody of their {k} {v}",
        None,
        finish=custody,
    ),
    rule(
        r"\bi (?:have|get|see) (?:my|our|the) (?P<k>son|daughter|kids|children)(?: [a-z]+)? "
        rf"{_RHYTHM}\b",
        "{K} stay with them {v}",
        None,
        finish=staying,
    ),
    rule(
        r"(?:^|\b)(?P<w>they're|they are|she's|she is|he's|he is|the kids are|kids are) with me "
        rf"(?:full[- ]time|{_RHYTHM})\b",
        "{K} stay with them {v}",
        None,
        finish=staying,
    ),
    # "Sofie's my wife now": a partner named as the new kin
    rule(
        rf"(?:^|\b(?:and|so|now)\s+){NAME}(?:'s| is) (?:now )?my (?P<k>wife|husband|fianc[eé]e?|"
        r"partner)"
        r"(?: now)?\s*(?:[,.!]|$)",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        change=True,
        finish=named_person,
    ),
    rule(
        rf"\bmy (?P<k>{KIN})(?:'s name)? is (?:called |named ){NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_after_kin,
    ),
    rule(
        rf"\bmy (?P<k>{KIN})(?:'s name is| is) {NAME}\s*(?:[,.!]|$)",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_person,
    ),
    rule(
        rf"\bmy (?P<k>{KIN}),? {NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|studies|"
        r"loves|likes|starts|"
        r"started|begins|began|goes|plays|turned|turns|graduated|got|had|works|teaches|runs)\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_after_kin,
    ),
    rule(
        rf"\bi have an? (?P<k>{KIN}) (?:called|named) {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_after_kin,
    ),
    rule(
        rf"\bour (?P<k>{KIN})(?:'s name)? is (?:called |named ){NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_after_kin,
    ),
    rule(
        rf"\bour (?P<k>{KIN}),? {NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|studies|"
        r"loves|likes|"
        rf"starts|started|goes|plays|turned|turns|graduated|got)\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_after_kin,
    ),
    # "My husband Tomasz and I have a daughter, Zosia"; "I've got a son, Theo"
    rule(
        rf"\b(?:i|we)(?:'ve| have)?(?: got| have)? (?:an?|one|only one) (?P<k>{KIN})"
        rf"(?: together)?,? {NAME}(?=\s*(?:[,.;!]|$)|"
        r"\s+(?:and|who|is)\b)",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_after_kin,
    ),
    # "I have twin boys, Arjun and Rohan": each child by name
    rule(
        r"\b(?:i|we)(?:'ve| have)?(?: got| have)? (?:twin |two |three )?(?P<k>boys|girls|sons|"
        r"daughters|kids|"
        rf"children)[,:]? (?:named |called )?{NAME}(?=,? and )",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=child_named,
    ),
    rule(
        r"\b(?:i|we)(?:'ve| have)?(?: got| have)? (?:twin |two |three )?(?P<k>boys|girls|sons|"
        r"daughters|kids|"
        r"children)[,:]? (?:named |called )?(?-i:[A-Z])[\w'’-]+,? and (?P<v>(?-i:[A-Z])[\w'’-]+)\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=child_named,
    ),
    # "our two boys", "me, my wife and our two kids", "I have 4 grandkids"
    rule(
        r"\b(?:my|our|(?:i|we|me and my (?:wife|husband|partner)|my (?:wife|husband|partner) and "
        r"(?:i|me))(?: now)?(?: have|'ve got| have got)) "
        rf"{_COUNT} (?:little |young |grown |"
        r"teenage )?(?P<k>kids|children|boys|girls|sons|daughters|grandkids|grandchildren)\b",
        "Has {n} {k}",
        None,
        "permanent",
        finish=children,
    ),
    # the count said as a fragment about the user: "Divorced. Two kids, Petra (15) and Marek
    # (12)", "married, three kids" (at the message's start or after what the user says of
    # themselves, as "no kids")
    rule(
        r"(?:^|\b(?:single|married|divorced|widowed|separated|mum|mom|dad|father|mother|parent) "
        r"(?:of|with) |(?:^|\b)(?:single|married|divorced|widowed|separated)[,.;]\s*)"
        rf"{_COUNT} (?:little |young |grown |teenage )?(?P<k>kids|children|boys|girls|sons|"
        r"daughters)(?=\s*(?:[,.;!(:]|$)|\s+(?:and|under|aged|all)\b)",
        "Has {n} {k}",
        None,
        "permanent",
        finish=children,
    ),
    # a relative named as living with the user, where the clause ends: "I live in Porto with my
    # wife Ana", "we live with my dad Joe" (not "I had dinner with my boss Tom": the user's home,
    # not an event)
    rule(
        r"\b(?:i|we)(?:'ve| have)? (?:(?:still|now|currently|all) )?(?:live|living|stay|moved|"
        r"share a (?:flat|house|home|place)) (?:[^.;!?,]{0,40}? )?with my "
        r"(?P<k>wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|son|daughter|mother|father|"
        rf"mum|mom|dad|brother|sister|grandmother|grandfather|grandma|grandpa) {NAME}"
        r"(?=\s*(?:[,.;!]|$))",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_after_kin,
    ),
    # a spouse said as one household with the user: "with my wife", "my husband and I", "me, my
    # wife and our two kids" (not "my ex-wife", "my wife-to-be"; "my wife is Colombian" says more
    # about her than about a marriage, and is left to the named rules)
    rule(
        r"(?:\b(?:with|me,?(?: and)?) my (?P<k>wife|husband)\b(?![-'’])|\bmy (?P<k2>wife|husband) "
        r"and i\b|"
        # a possessive presupposes one: "for my wife's new job", "my husbands car" (typed without
        # the apostrophe)
        r"\bmy (?P<k3>wife|husband)(?:'s|’s|s) (?P<n>[a-z]+(?: [a-z]+)?))",
        "Has a {k}",
        None,
        "permanent",
        finish=one_household,
    ),
    # a partner said as one household with the user: "I live in Calgary with my partner", "we
    # share a flat, me and my partner" (not "… with my business partner", "I used to live with my
    # partner", "my sister lives with her partner")
    rule(
        r"\b(?:i|we)(?:'ve| have|'m| am|'re| are)? (?:(?:still|now|currently|all|both) )?(?:live|"
        r"living|share a "
        r"(?:flat|house|home|place|apartment)) (?:[^.;!?,]{0,40}? )?with my partner\b(?![-'’])",
        "Has a partner",
        None,
        "permanent",
    ),
    # the user's marital status said as a state: "I'm divorced", "Divorced." opening a message,
    # "married, 2 kids", "single, no kids", "I'm a widower since 2020", "Priya and I are divorced
    # now" (not "married to X" or "engaged to X": the named rules'; not "single mom": a parent)
    rule(
        r"(?:^(?:i'm|i am|im) (?:now |happily |recently |officially |also )?|^)"
        rf"(?P<v>{_STATUS})(?: now)?{_STATUS_END}"
        r"|\b(?:[\w'’-]+ and i are|we(?:'re|’re| are)) (?:now |officially )?(?P<w>divorced|"
        r"separated)"
        rf"(?: now)?{_STATUS_END}",
        "Is {s}",
        None,
        "permanent",
        change=True,
        finish=lambda f: bool(
            f.values.update(s=(f.groups.get("v") or f.groups.get("w") or "").lower())
            or f.values["s"]
        ),
    ),
    # a relationship begun, said without a name the partner rules read: "I've been seeing someone",
    # "we're official", "I'm in a relationship now" (it replaces "Is single")
    rule(
        r"\bi(?:'ve| have) been seeing someone\b|\bi(?:'m| am) (?:now )?in a relationship\b"
        r"|\bwe(?:'re| are) (?:now )?official\b",
        "Is in a relationship",
        None,
        "permanent",
        change=True,
    ),
    rule(
        rf"\bi(?:'m| am| got| just got) married to {NAME}",
        "Married to {v}",
        {"v": is_name},
        "permanent",
        finish=spouse,
    ),
    rule(
        rf"\b{NAME} and i (?:just )?got married\b",
        "Married to {v}",
        {"v": is_name},
        "permanent",
        finish=spouse,
    ),
    rule(
        r"\bi(?:'m| am) (?:a )?single (?P<v>mom|mum|dad|mother|father|parent)\b",
        "Is a single {v}",
        None,
        "permanent",
    ),
    rule(
        r"\b(?:we(?:'re| are)|i(?:'m| am)|and i are) expecting (?:our |my )?"
        r"(?:first |second |third )?(?P<k>baby|child|twins|triplets)"
        rf"(?: in (?P<v>{_DUE}))?{PSTOP}",
        "Expecting a baby in {v}",
        finish=expecting,
    ),
    # the expected baby said anew: "it's twins! And the due date moved up to April", "the due date
    # is now March" (in a message about the baby: a scan, a pregnancy, a due date)
    rule(
        r"\b(?:it's|its|it is|it'll be|we're having|we are having|having) (?P<k>twins|triplets)\b|"
        r"\b(?:the |our |my )?due date (?:has |was |got |is )?(?:been )?(?:(?:now|moved|changed|"
        r"pushed|brought|shifted)(?: up| back| forward)?(?: to)? )?"
        r"(?:the (?:start|end|middle) of )?"
        rf"(?P<v>{_DUE})\b",
        "Expecting a baby in {v}",
        None,
        "correction",
        change=True,
        finish=expected_anew,
    ),
    # a pregnancy with its due month: "my wife is pregnant!! due in march", "I'm pregnant, due in
    # May"
    rule(
        r"\b(?:i(?:'m| am)|my (?:wife|partner|girlfriend) is|we(?:'re| are)) (?:finally )?"
        r"pregnant\b",
        "Expecting a baby in {v}",
        None,
        finish=expected_anew,
    ),
    # no children: "single, no kids", "Married to Tomasz, no kids", "I don't have kids" (a
    # fragment only after what the user says of themselves: "my brother, no kids" is his)
    rule(
        r"(?:^|(?:\b(?:single|married|divorced|widowed|engaged|separated|together|retired)\b|"
        r"\byears? together|\bto (?-i:[A-Z])[\w'’-]+)[^.;:!?]{0,30}?,\s*)no (?:kids|children)"
        r"(?: of my own| yet)?(?=\s*(?:[,.;!()]|$)|\s+(?:and|but|yet)\b)|"
        r"\bi (?:don't|do not) have (?:any )?(?:kids|children)(?: of my own)?(?=\s*(?:[,.;!()]|$)|"
        r"\s+(?:and|but|yet|so)\b)|"
        r"^(?:we have |i have )?no (?:kids|children)(?: of my own| yet)?\s*[.!]*$",
        "Has no children",
        None,
        "durable",
        negative=True,
        finish=lambda f: not _ASKED_FOR.search(f.message or f.match.string),
    ),
    # a parent who lives with the user: "my mum moved in with us", "my mom has been living with
    # us since last year" (not "… for two weeks": a visit)
    rule(
        r"\bmy (?P<k>mum|mom|mother|dad|father|parents|grandmother|grandma|grandfather|grandpa|"
        r"mother-in-law|father-in-law|mum-in-law|mom-in-law) (?:has |have |had )?(?:moved in with "
        r"(?:us|me)|(?:has been |have been |is |are )?living with (?:us|me)|lives with (?:us|me)|"
        r"live with (?:us|me))\b(?! (?:for|until|till|while|over) )",
        "Lives with their {k}",
        None,
        finish=a_parent,
    ),
    # a parent who died: "my dad passed away last year", "after Dad passed last year"
    rule(
        r"\b(?:my |after |since )(?P<k>mum|mom|mother|dad|father) (?P<d>passed away|passed|died)\b"
        r"(?! (?:in (?:my|a|the) (?:dream|story|book|film|movie|show)))",
        "{K} passed away",
        None,
        "permanent",
        finish=a_parent_died,
    ),
    # engaged: "I'm engaged to Karim", "got engaged to my gf Priya last weekend"
    rule(
        r"(?:\bi(?:'m| am| got| just got| recently got)?|^(?:(?:just|recently|finally|so) )?got) "
        r"engaged to "
        rf"(?:my (?:gf|bf|girlfriend|boyfriend|partner) )?{NAME}",
        "Engaged to {v}",
        {"v": is_name},
        "permanent",
        finish=spouse,
    ),
    # engaged, the partner named first: "Daniela and I got engaged!!", "Emma and I just got
    # engaged last night" (never "Sam and Jo got engaged": the user is one of the two)
    rule(
        r"(?:^|[,.;!]\s*|\b(?:so|and|guess what|news)[,:!]?\s+)"
        rf"(?:my (?:gf|bf|girlfriend|boyfriend|partner) )?{NAME} and (?:i|me) "
        r"(?:just |finally |officially |recently )?(?:got|are|'re) "
        r"engaged\b",
        "Engaged to {v}",
        {"v": is_name},
        "permanent",
        finish=spouse,
    ),
    # a child born, named: "baby girl Amara was born last week", "we welcomed a baby boy, Leo"
    rule(
        rf"(?<!'s )\bbaby (?P<k>girl|boy),? (?:named |called )?{NAME},? "
        r"(?:was born|arrived|came)\b|"
        r"(?:^|\b(?:we|i|and i)(?: just| finally| recently)? )(?:welcomed|had) (?:a |our )?"
        r"(?:baby |little )?(?P<k2>girl|boy|son|daughter),? "
        rf"(?:named |called )?(?P<v2>(?-i:[A-Z])[\w'’-]+)(?=\s*(?:[,.;!]|$)|\s+(?:last|this|on|in|"
        r"yesterday)\b)|"
        # "we just had our first baby in May, a boy, Tomas!"
        r"\b(?:we|i|and i)(?: just| finally| recently)? had (?:a |our )?(?:first |second |third )?"
        r"baby(?: (?:in|on|last) [\w ]{2,20}?)?, a (?P<k3>girl|boy),? (?:named |called )?"
        r"(?P<v3>(?-i:[A-Z])[\w'’-]+)(?=\s*(?:[,.;!]|$))",
        "Has a {k} named {v}",
        None,
        "permanent",
        finish=child_born,
    ),
    # a list of the user's children, named (``children_listed``; after the rules
    # of one child, so that a clause they read is still read by it: one line per child)
    rule(
        _KIDS_HEAD,
        "{v}",
        None,
        "permanent",
        finish=children_listed,
        split=lambda text: text.split("\n"),
    ),
]


# -- a relative by name, however the sentence goes on ---------------------------------------------
#
# "My twin sister Ingrid lives in Bergen", "my little girl amara is strating school", "Mateo (my
# son) is on the spectrum", "Amara - that's my daughter - begins reception", "I have a twin
# sister, Priya": a kin word of the user's ("my") with a given name beside it is a relative, said
# in passing or not; what the rest of the sentence says of them is theirs, not the user's.

#: Words between "my" and the kin word that keep the kin ("my twin sister", "my little girl").
_KIN_ADJ = (
    r"(?:(?:little|big|older|younger|elder|eldest|oldest|youngest|middle|baby|twin|teenage|grown|"
    r"adult|half|step)[ -])"
)
#: Kin words of one relative (no colleague, no ex): "boy" and "girl" only after an age word.
_ONE_KIN = (
    r"wife|husband|partner|fianc[eé]e?|son|daughter|brother|sister|mother|father|mom|mum|dad|"
    r"grandmother|grandfather|grandma|grandpa|grandson|granddaughter|stepson|stepdaughter|uncle|"
    r"aunt|cousin|niece|nephew"
)
_LITTLE_ONE = {"boy": "son", "girl": "daughter"}
#: A name: capitalised (``clauses`` capitalises one typed in lower case after a relative).
_A_NAME = r"(?-i:(?P<v>[A-Z][a-z'’-]{1,14}))"


def a_relative_named(f: Filling) -> bool:
    """The name beside the kin word is a given name, capitalised (a name typed in lower case the
    clause stage capitalises when it is sure); "girl" and "boy" after an age word are a daughter and
    a son."""
    name = f.groups.get("v", "")
    rest = f.match.string[f.match.end() :]
    if f.match.end() == f.match.end("k") and re.match(r"['’]s\b", rest):
        return False  # "Anna, my sister's friend": the name is the friend's, no sister's
    after = rest.split()[:1]
    if re.search(r"\w['’]s$", name):
        name = name[:-2]  # "my brother Tom's car": the brother is Tom
    if after and after[0].lower() in _OBJECT_WORDS:
        return False  # "my nephew made it for me": a verb, whatever a list of names says
    if after and _ONE_OFF.fullmatch(after[0]):
        return False  # "my brother Tom called yesterday": one event, told as chit-chat
    if name[:1].islower():
        return False  # "my son can swim": the clause stage capitalises a name it is sure of
    if not (given_name(name) or name_shaped(name)) or not re.search(rf"\b{name}\b", f.message):
        return False  # as typed by the user: "my wife rose early" is capitalised by no one
    kin = (f.groups.get("k") or f.groups.get("b") or "").lower()
    kin = _LITTLE_ONE.get(kin, kin)
    # as the family's other rules write a fiancé; "{K}": only where no other rule read the clause
    f.values["K"] = f"Engaged to {name}" if kin.startswith("fianc") else f"Has a {kin} named {name}"
    return True


#: A verb in the past right after the name: one event ("called", "visited"), no lasting fact.
_ONE_OFF = lazy(r"[a-z]{2,}(?<!ne)(?<!fe)(?<!ee)ed", re.I)

#: Words after a verb, never after a name ("made it", "took us", "sent the").
_OBJECT_WORDS = frozenset(
    "it me us them him her a an the my our that this so to for up out".split()
)


RULES += [
    rule(
        rf"\b(?:my|our) (?:{_KIN_ADJ}*(?P<k>{_ONE_KIN})|(?:little|baby|eldest|youngest) "
        r"(?P<b>boy|girl)),? "
        rf"{_A_NAME}(?![\w'’-])(?!\s*(?:and|&) (?:i|me)\b)",
        "{K}",
        None,
        "permanent",
        finish=a_relative_named,
    ),
    rule(
        rf"(?:^|(?<=[,;] ))(?-i:(?P<v>[A-Z][a-z'’-]{{1,14}}))\s*(?:\(|[-–—,]\s*(?:that's |"
        rf"thats |she's |he's |who's )?)my {_KIN_ADJ}*(?P<k>{_ONE_KIN})\b",
        "{K}",
        None,
        "permanent",
        finish=a_relative_named,
    ),
    rule(
        rf"\b(?:i|we)(?: have|'ve|ve)?(?: got)? an? {_KIN_ADJ}*(?P<k>{_ONE_KIN}),? "
        r"(?-i:(?P<v>[A-Z][a-z'’-]{1,14}))(?![\w'’-])",
        "{K}",
        None,
        "permanent",
        finish=a_relative_named,
    ),
]

CANON = [
    (rf"^Has an? ({KIN}) named (.+)$", USER, None),
    (r"^(?:Children|Son|Daughter) stays? with them (.+)$", USER, None),
    (r"^Shares custody of their (.+)$", USER, None),
    (r"^Has an? (wife|husband|partner)$", USER, None),
    (rf"^Is (?:{_STATUS}|in a relationship)$", USER, "marital"),
    # the count of children is one value ("we now have three kids" replaces "Has two children")
    (
        r"^Has (?:two|three|four|five|six|\d) (children|sons|daughters|grandchildren)$",
        USER,
        "count:{1}",
    ),
    (r"^Married to (.+)$", USER, None),
    (r"^Engaged to (.+)$", USER, None),
    # no children is a count of children: "we now have two kids" replaces it
    (r"^Has no (children)$", USER, "count:{1}"),
    (r"^Lives with their (.+)$", USER, None),
    (r"^(?:Mother|Father) (?:passed away|died)$", USER, None),
    (r"^Is a single (?:mother|father|mom|mum|dad|parent)$", USER, None),
    # one pregnancy at a time: "it's twins … due in April" replaces "Expecting a baby in May"
    (r"^Expecting (?:a baby|twins|triplets)(?: in .+)?$", USER, "expecting"),
]
