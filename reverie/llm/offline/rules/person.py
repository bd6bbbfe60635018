"""The user's words in the first person and the third: a note about the user ("User lives in
Porto") is read as the user's own words, and the user's own words are kept in a memory line as a
note about them ("my flat" → "the user's flat")."""

from __future__ import annotations

import re
from collections.abc import Callable

from ....text.lazyre import lazy
from .lexicon import NOT_PRESENT

# Third-person notes about the user, read as the user's own words: "User prefers tea" → "I prefer
# tea".
_USER_SUBJECT = lazy(
    r"^(?:the )?user(?P<adv>(?:\s+(?:now|currently|also|really|still|just|actually|recently|no "
    r"longer|"
    r"usually|generally|always|never|often))*)\s+(?P<verb>[a-z']+)\b",
    re.I,
)


_USER_POSSESSIVE = lazy(r"\b(?:the )?user's\b", re.I)


_USER_OBJECT = lazy(r"\b(?:the )?user\b", re.I)


_BE_HAVE = {
    "is": "am",
    "was": "was",
    "has": "have",
    "does": "do",
    "doesn't": "don't",
    "isn't": "am not",
    "hasn't": "haven't",
    "wasn't": "wasn't",
}


def _base_verb(verb: str) -> str:
    low = verb.lower()
    if low in _BE_HAVE:
        return _BE_HAVE[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return low[:-2]
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return low[:-1]
    return low


def first_person(sentence: str) -> str:
    """A third-person note about the user as the user's own words ("User lives in Porto" → "I live
    in Porto")."""
    m = _USER_SUBJECT.match(sentence)
    if m:
        sentence = f"I{m.group('adv')} {_base_verb(m.group('verb'))}{sentence[m.end() :]}"
    else:
        m = re.match(r"^(?:the )?user's\b", sentence, re.I)
        if not m:
            return sentence
    sentence = _USER_POSSESSIVE.sub("my", sentence)
    return _USER_OBJECT.sub("me", sentence)


# "I copy" → "the user copies": the verb right after "I" (past an adverb or two) agrees with its new
# subject.
_I_VERB = (
    r"\bI((?:\s+(?:also|really|usually|always|never|often|just|still|mostly|only|generally|"
    r"sometimes))*)"
    r"\s+([a-z]+)\b"
)


def _third_singular(verb: str) -> str:
    if (
        verb in NOT_PRESENT
        or (verb.endswith("ed") and not verb.endswith("eed"))
        or verb.endswith("n't")
        or len(verb) < 2
    ):
        return verb
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_THIRD_PERSON: list[tuple[str, str | Callable[[re.Match[str]], str]]] = [
    (r"\bI am\b|\bI'm\b", "the user is"),
    (r"\bI've\b|\bI have\b", "the user has"),
    (r"\bI'll\b", "the user will"),
    (r"\bI'd\b", "the user would"),
    (r"\bI was\b", "the user was"),
    (r"\bI don't\b|\bI do not\b", "the user doesn't"),
    (r"\bI do\b", "the user does"),
    (_I_VERB, lambda m: f"the user{m.group(1)} {_third_singular(m.group(2))}"),
    (r"\bI\b", "the user"),
    (r"\bmy\b", "the user's"),
    (r"\bmine\b", "the user's"),
    (r"\bmyself\b", "the user"),
    (r"\bme\b", "the user"),
]


_THIRD_PERSON_RX = [(lazy(p, 0 if p in (r"\bI\b", _I_VERB) else re.I), r) for p, r in _THIRD_PERSON]


def third_person(text: str) -> str:
    """The user's first-person words as a third-person note ("my flat" → "the user's flat")."""
    for rx, repl in _THIRD_PERSON_RX:
        text = rx.sub(repl, text)
    return text
