"""A like read in its sentence: one thing, two, or unsure.

"I love dramas and romcoms" is two likes; "I love fantasy and sci-fi movies" none, since "fantasy"
may qualify "movies" as "rock" does in "rock and roll": unsure, so nothing is written. Each half of
"X and Y" must stand alone (a plural, an activity, a name, or a noun of the lexicon that is never
an adjective: "dance and fashion", not "black and white"); fixed binomials ("rock and roll", "pros
and cons"), broad words ("life and love") and people ("Mom and Dad") are never two likes.
"""

from __future__ import annotations

import re

from ....text.lazyre import lazy
from ..kinds import given_name, noun
from .core import Rule, word_set
from .lexicon import MUSIC_GENRES, PEOPLE
from .values import is_thing

#: "… and Y" after a liked value, Y ending its clause: the second half of a coordination.
_AND_TAIL = lazy(
    r"\s+and\s+(?P<t>[\w'’-]+(?: [\w'’-]+){0,3}?)(?=\s*(?:[,.;:!?()]|$)|\s+(?:but|so|because|since|"
    r"which|"
    r"that|though|too|as well|also|in general)\b)",
    re.I,
)


#: A word that opens a new clause after "and" ("I love dogs and I have two"), not a second liked
#: thing.
_CLAUSE_OPENERS = word_set(
    "i we it that this they he she you my our there so then now also just really"
)


#: A pronoun keeps opening a clause with its verb contracted onto it ("and it'd be great").
_CONTRACTION = lazy(r"['’](?:m|s|d|ll|re|ve)$")


def _opens_clause(word: str) -> bool:
    return _CONTRACTION.sub("", word.lower()) in _CLAUSE_OPENERS


#: ... and so do these ("my love for dance and how it makes me feel").
_WH = word_set("how what why when where who whom whose which whether")


#: A determiner after "and" opens a noun phrase of its own: the like before it is whole ("my love
#: for reading and the joy of sharing stories"), never a modifier of what follows.
_DETERMINERS = word_set("the a an your his her their its")


def _list_item(value: str) -> bool:
    """One item of a coordinated like that stands alone: a plural ("dramas"), an activity
    ("hiking"),
    a name, or one word the lexicon knows as a noun and never as an adjective ("dance", "pottery";
    not "black" of "black and white")."""
    words = value.split()
    last = words[-1].lower()
    return (
        words[0][:1].isupper()
        or (words[0].lower().endswith("ing") and len(words[0]) > 4)
        or (last.endswith("s") and not last.endswith(("ss", "us", "is")))
        or (len(words) == 1 and noun(last))
        or (len(words) == 1 and last in MUSIC_GENRES)
    )


#: Fixed pairs that name one thing ("rock and roll", "salt and pepper", "pros and cons"): never two
#: likes. A closed class: English has a few dozen in everyday use, and no lexicon here lists them.
_BINOMIALS = frozenset(
    tuple(pair.split("+"))
    for pair in (
        "rock+roll rhythm+blues salt+pepper fish+chips mac+cheese macaroni+cheese bread+butter "
        "peanut+butter peace+quiet black+white trial+error hide+seek law+order pros+cons ups+downs "
        "wear+tear rise+fall give+take trick+treat surf+turf odds+ends nuts+bolts bed+breakfast "
        "arts+crafts cops+robbers song+dance heart+soul life+death health+safety fun+games "
        "bells+whistles sticks+stones flesh+blood bits+pieces rest+relaxation lock+key cat+mouse "
        "research+development hugs+kisses milk+cookies"
    ).split()
)


#: Words too broad to be a like on their own, as a half of a coordination ("life and love"), and
#: people ("mom and dad", "kids and dogs"): a like is of a thing, not of a person.
_BROAD = word_set(
    "life love work family home people stuff things world time fun kid kids child children friend "
    "friends "
    "parents baby babies guys girls boys men women teacher teachers student students neighbour "
    "neighbours "
    "neighbor neighbors colleague colleagues team teammates coworkers classmates grandparents "
    "grandkids "
    "grandchildren " + " ".join(PEOPLE)
)


def _noun_pair(first: str, second: str) -> bool:
    """Two halves of "X and Y" that are two things liked: each stands alone, the pair is no fixed
    binomial, and a bare singular noun is coordinated only with one word ("dance and fashion", not
    "dance and fashion shows", which may be shows of both)."""
    a, b = first.lower().split(), second.lower().split()
    if not a or not b or (a[-1], b[0]) in _BINOMIALS or {a[-1], b[0]} & _BROAD:
        return False
    genre = bool({first.lower(), second.lower()} & MUSIC_GENRES)  # "Fela Kuti and afrobeat"
    if not genre and any(
        w[:1].isupper() and given_name(w) for w in (first.split()[0], second.split()[0])
    ):
        return False  # "Jesus and Mary", "Sarah and Tom": people
    if not (_list_item(first) and _list_item(second)):
        return False
    bare = len(a) == 1 and noun(a[0]) and not a[0].endswith(("s", "ing"))
    return len(b) == 1 or not bare


def coordinated(text: str, m: re.Match[str], rule: Rule) -> list[str]:
    """A like (or an allergy) read in its sentence. "I love dramas and romcoms" → both likes; "I
    love fantasy and sci-fi movies" → none, since "fantasy" may qualify "movies" (as "rock" in "rock
    and roll"): unsure, so nothing is written."""
    head = next((h for h in ("Likes ", "Allergic to ") if text.startswith(h)), None)
    if head is None or not m.groupdict().get("v"):
        return [text]
    pair = re.fullmatch(r"([\w'’-]+) and ([\w'’-]+)", text.removeprefix(head))
    if pair:  # a value read whole ("passionate about dance and fashion"): two things, or one
        first, second = pair.groups()
        if (first.lower(), second.lower()) in _BINOMIALS:
            return [text]  # "rock and roll": one thing
        kind = dict(rule.kinds).get("v", is_thing)
        if _noun_pair(first, second) and kind(first) and kind(second):
            return [f"{head}{first}", f"{head}{second}"]
        return []
    if re.match(r"\s+(?:with|to|for|about) (?:you|u)\b", m.string[m.end("v") :], re.I):
        return []  # "I love chatting with you": about this conversation, not a pastime
    tail = _AND_TAIL.match(m.string, m.end("v"))
    if not tail:
        rest = re.match(r"\s+and\s+([\w'’-]+)", m.string[m.end("v") :])
        if rest and not (
            _opens_clause(rest.group(1)) or rest.group(1).lower() in _WH | _DETERMINERS
        ):
            # "I love action and comedy movies with my kids": the second half not read, unsure
            return []
        return [text]
    if _opens_clause(tail.group("t").split()[0]):
        return [text]
    items = [text.removeprefix(head), tail.group("t")]
    kind = dict(rule.kinds).get("v", is_thing)
    if _noun_pair(*items) and kind(items[1]):
        return [f"{head}{i}" for i in items]
    if items[0].split()[0].lower().endswith("ing") and " " in items[0]:
        # "helping people and making a positive impact": an activity with its object stands alone
        return [text]
    return []


_GERUND_LIST = lazy(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


def each(text: str) -> list[str]:
    """ "Likes playing video games and watching movies" → one fact per activity, when every item is
    one (an "-ing" phrase); "Likes rock and roll" stays whole."""
    head, _, value = text.partition(" ")
    items = [i for i in _GERUND_LIST.split(value) if i]
    if len(items) > 1 and all(i.split(" ", 1)[0].lower().endswith("ing") for i in items):
        return [f"{head} {i}" for i in items]
    return [text]
