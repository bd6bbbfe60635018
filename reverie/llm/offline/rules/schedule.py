"""Dated things: deadlines with their full subject, appointments, trips.

A date is made absolute from the day it was said (``dates.resolve``); a phrase that names no single
day keeps the user's words ("Deadline for thesis: 3/4"), and one that is no date at all ("due
soon") gives no fact.
"""

from __future__ import annotations

from ..dates import DATE_PHRASE
from .core import MEMORY, Filling, rule
from .phrases import NAME
from .values import is_any_thing, is_place

APPOINTMENTS = (
    "dentist|doctor|doctor's|dental|eye|hair|haircut|vet|physio|therapy|job|interview|medical|"
    "hospital|optician|check-up|checkup"
)
_DATE = rf"(?P<d>{DATE_PHRASE})"


def what_is_due(f: Filling) -> bool:
    """A deadline said with no subject ("the deadline is Friday") is a bare deadline."""
    if "v" not in f.values:
        f.template = f.template.replace("Deadline for {v}", "Deadline")
    return True


RULES = [
    rule(
        rf"\bthe deadline (?:for (?P<v>[\w\s-]{{2,40}}?) )?is (?:on |by )?{_DATE}\b",
        "Deadline for {v}: {d}",
        None,
        "ephemeral",
        finish=what_is_due,
    ),
    rule(
        rf"\b(?:the |our |my )?(?P<v>[\w-]+(?: [\w-]+(?:\.\w+)*){{0,3}}) (?:is|are) due (?:on |by )?{_DATE}\b",
        "Deadline for {v}: {d}",
        {"v": is_any_thing},
        "ephemeral",
        finish=what_is_due,
    ),
    rule(
        rf"\bwe (?:need to|have to|must|want to|'ve got to|have got to) (?P<a>ship|release|launch|deliver|finish|submit)(?: (?:the |our )?"
        rf"(?P<v>[\w-]+(?: [\w-]+){{0,3}}))? by {_DATE}\b",
        "Deadline for {v}: {d}",
        {"v": is_any_thing},
        "ephemeral",
        finish=what_is_due,
    ),
    rule(
        rf"\bi(?:'ve| have)(?: got)? an? (?P<k>{APPOINTMENTS}) appointment (?:on |at |for )?{_DATE}\b",
        "{K} appointment on {d}",
        None,
        "ephemeral",
    ),
    rule(
        rf"\bi(?:'m| am) (?:going|flying|travelling|traveling|driving|heading) to {NAME} (?:on |this |next )?{_DATE}\b",
        "Travelling to {v} on {d}",
        {"v": is_place},
        "ephemeral",
    ),
]

CANON = [
    (r"^Deadline for (.+?): (.+)$", MEMORY, "deadline:{1}"),
    (r"^Deadline: (.+)$", MEMORY, None),
    (r"^(\S+) appointment on (.+)$", MEMORY, None),
    (r"^Travelling to (.+)$", MEMORY, None),
]
