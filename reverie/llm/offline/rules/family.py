"""The user's family and the people around them, by name: "my wife Priya", "our son Theo starts
school …", "I have a sister named Ana".

A relative's name must be a given name in some locale (``kinds.given_name``): "my wife is
Colombian" names no wife.
"""

from __future__ import annotations

from ..kinds import given_name
from .core import USER, Filling, rule
from .phrases import NAME
from .values import is_name

#: Relatives and colleagues, as a pattern (``lexicon.PEOPLE`` as a set).
KIN = (
    "wife|husband|partner|girlfriend|boyfriend|fiancée?|son|daughter|brother|sister|mother|father|mom|mum|dad|"
    "grandmother|grandfather|grandma|grandpa|uncle|aunt|cousin|niece|nephew|boss|manager"
)


def named_person(f: Filling) -> bool:
    """A wife or a son has a given name ("Colombian" is none)."""
    return given_name(f.groups.get("v", ""))


RULES = [
    rule(
        rf"\bmy (?P<k>{KIN})(?:'s name)? is (?:called |named ){NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_person,
    ),
    rule(
        rf"\bmy (?P<k>{KIN})(?:'s name is| is) {NAME}\s*(?:[,.!]|$)",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_person,
    ),
    rule(
        rf"\bmy (?P<k>{KIN}),? {NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|studies|loves|likes)\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_person,
    ),
    rule(
        rf"\bi have an? (?P<k>{KIN}) (?:called|named) {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_person,
    ),
    rule(
        rf"\bour (?P<k>{KIN})(?:'s name)? is (?:called |named ){NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_person,
    ),
    rule(
        rf"\bour (?P<k>{KIN}),? {NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|studies|loves|likes|"
        rf"starts|started|goes|plays|turned|turns|graduated|got)\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_person,
    ),
]

CANON = [
    (rf"^Has an? ({KIN}) named (.+)$", USER, None),
]
