"""The template stage: a rule's match filled into its canonical template, or refused.

Steps, in order: each captured value must be its kind (``values``); the values are cleaned for the
template (proper names keep their "the"); dates become absolute; a value whose capital only opens
the sentence loses it; the rule's own last step (``Rule.finish``) adjusts or refuses the filling;
free text for the agent is kept in the third person.
"""

from __future__ import annotations

import re
from datetime import date

from ....text.lazyre import lazy
from ..dates import resolve
from ..kinds import given_name, known_place
from .core import Filling, Rule, word_set
from .lexicon import CLIPPED_ROLES, TECH
from .person import third_person
from .templates import NO_LONGER_TEXT
from .values import clean, is_place, place_name, place_named

#: Templates whose value is a proper name, kept with its "the" ("Lives in the Netherlands").
_PROPER = ("Lives in", "From", "Works at", "Travelling to", "Born in", "Grew up in")
_PLACES = ("Lives in", "From", "Travelling to", "Born in", "Grew up in")
#: A favourite of these kinds is a title or a name, capitalised wherever it stands ("Titanic is my
#: favourite movie").
_TITLE_KINDS = word_set(
    "book novel movie film show series band song album team game author writer singer artist player"
)


def fill(rule: Rule, m: re.Match[str], said_on: date | None, message: str = "") -> str | None:
    """The canonical fact ``m`` states by ``rule``, or None when a value is not its kind or the rule
    refuses it."""
    groups = {k: v for k, v in m.groupdict().items() if v}
    if "a" in groups and "v" not in groups:
        groups["v"] = groups["a"]  # "we need to launch by …": the action is the thing that is due
    if not _kinds_hold(rule, groups, m):
        return None
    f = Filling(rule.template, groups, _values(rule.template, groups, m, said_on), m, message)
    if rule.finish is not None and not rule.finish(f):
        return None
    if "{v3}" in f.template and "v3" not in f.values:  # the user's words, in the third person
        f.values["v3"] = third_person(groups.get("v", "").strip().rstrip(".!"))
    try:
        text = f.template.format(**f.values).strip()
    except KeyError:
        return None
    if text.startswith(("Works as ", "Is a retired ")):
        text = whole_title(text)
    return text[:1].upper() + text[1:] if text else None


_CLIPPED = lazy(rf"\b(?:{'|'.join(sorted(CLIPPED_ROLES))})$", re.I)


def whole_title(line: str) -> str:
    """A job title's clipped head written whole ("Works as backend dev" → "… developer")."""
    return _CLIPPED.sub(lambda m: CLIPPED_ROLES[m.group(0).lower()], line)


def _kinds_hold(rule: Rule, groups: dict[str, str], m: re.Match[str]) -> bool:
    """Each captured value is the right kind of thing, on the words as said: "my coffee black" is no
    thing, "coffee black" would be. An unknown place counts when the sentence says it is one."""
    for group, check in rule.kinds:
        raw = clean(groups.get(group, ""), True, strip=False)
        if not check(raw) and not (check is is_place and place_named(raw, m.string[m.end() :])):
            return False
    return True


def _values(
    template: str, groups: dict[str, str], m: re.Match[str], said_on: date | None
) -> dict[str, str]:
    values: dict[str, str] = {}
    for key in ("v", "o", "p"):
        if key in groups:
            values[key] = clean(groups[key], template.startswith(_PROPER) or key == "p")
            if template.startswith(_PLACES):
                values[key] = place_name(values[key])  # "tel aviv" → "Tel Aviv"
    for key, value in values.items():
        # the template's own word is not said twice ("Deadline for {v}" of "for the library")
        before = re.search(rf"(\w+) \{{{key}\}}", template)
        if before and value.lower().startswith(before.group(1).lower() + " "):
            values[key] = value[len(before.group(1)) + 1 :]
    if "b" in groups:
        values["b"] = groups["b"].strip()
    for key in ("t", "e", "n"):
        if key in groups:
            values[key] = groups[key].strip()
    if (
        "v" in values
        and m.start("v") == 0
        and _sentence_capital(values["v"])
        and groups.get("k", "").lower() not in _TITLE_KINDS
        and not template.startswith("Supports")
    ):
        values["v"] = (
            values["v"][:1].lower() + values["v"][1:]
        )  # "Dance is my passion" → "Likes dance"
    if "d" in groups:
        raw = re.sub(r"^on ", "", groups["d"].strip(), flags=re.I)
        day = resolve(raw, said_on)
        values["d"] = day.isoformat() if day else raw
    if "k" in groups:
        values["K"] = groups["k"].capitalize()
        values["k"] = NO_LONGER_TEXT.get(groups["k"].lower(), groups["k"].lower())
    return values


def _sentence_capital(value: str) -> bool:
    """The value's capital comes only from opening the sentence ("Drawing flowers"), not from a name
    ("Rust")."""
    first = value.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].islower() and first.endswith("ing") and " " in value:
        return True  # "Reading fantasy novels": an activity, though Reading is also a town
    if any(w[:1].isupper() for w in value.split()[1:]):
        return False  # "Iron Man", "Harry Potter": a name of several capitalised words
    return (
        first[:1].isupper()
        and first[1:].islower()
        and first.lower() not in TECH
        and not known_place(first)
        and not given_name(first)
    )
