"""The languages the user speaks, was raised in, and is learning (lessons included).

A language is one ISO 639-1 names (``values.is_language``), written with its capital: "Portuguese",
never "Poetry". Every language of a list is a line ("I speak English, French and Portuguese").
"""

from __future__ import annotations

import re

from .clauses import NEGATION
from .core import USER, rule
from .values import is_language

RULES = [
    rule(
        r"\bi(?:'m| am) (?:just |also |currently |now )?learning (?P<v>[A-Z][a-z]+)\b",
        "Is learning {v}",
        {"v": is_language},
    ),
    # "Learning German has been tough but worth it": the speaker's own experience of it, not "…
    # for him", "… a dream of mine"
    rule(
        r"^learning (?P<v>[A-Z][a-z]+) (?:has been|'s been) (?:really |so |pretty |quite )?(?:tough|hard|fun|great|"
        r"challenging|rewarding|difficult|amazing|slow|worth it)\b(?!.*\bfor\b)",
        "Is learning {v}",
        {"v": is_language},
    ),
    # lessons the user takes or keeps up with: "I'm taking German lessons", "I'll keep up with my
    # Spanish classes" (not "I quit my German lessons", "my son's French lessons")
    rule(
        r"\bi(?:'m| am|'ve been| have been|'ll| will)? (?:definitely |still |also |now |currently )?"
        r"(?:going to |gonna )?(?:keep(?:ing)? up with|keep(?:ing)? going with|continu(?:e|ing) with|"
        r"carry(?:ing)? on with|tak(?:e|ing)|lov(?:e|ing)|enjoy(?:ing)?) (?:my )?(?P<v>[A-Z][a-z]+) "
        r"(?:lessons|classes|course|lesson)\b",
        "Is learning {v}",
        {"v": is_language},
    ),
    rule(r"\bi (?:can )?speak (?:fluent )?(?P<v>[A-Z][a-z]+)\b", "Speaks {v}", {"v": is_language}),
    rule(
        r"\bmy (?:native|first|mother) (?:language|tongue) is (?P<v>[A-Z][a-z]+)\b",
        "Native language: {v}",
        {"v": is_language},
        "permanent",
    ),
]

CANON = [
    (r"^Speaks (.+)$", USER, None),
    (r"^Native language: (.+)$", USER, "native-language"),
    (r"^Is learning (.+)$", USER, None),
]


_SPEAK_LIST = re.compile(r"\bi (?:can )?speak (?P<v>[^.;:!?()]{1,120})", re.I)


_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|as well as\s+)?|\s+(?:and|as well as)\s+")


def spoken(sentence: str) -> list[str]:
    """Every language of "I speak English, French and Portuguese", in order, up to the first item
    that is not a bare language ("… and a bit of French" stops the list there)."""
    m = _SPEAK_LIST.search(sentence)
    if not m or NEGATION.search(sentence[: m.start()]):
        return []
    out = []
    for item in _LIST_SPLIT.split(m.group("v").strip()):
        item = re.sub(r"^fluent\s+", "", item.strip(), flags=re.I)
        word = item.split(" ", 1)[0]
        if not is_language(word):
            break
        out.append(word)
        if " " in item:  # "Portuguese at home": the list ends here
            break
    return out
