"""Where the user lives, a move from one place to another, and their time zone.

A home is a place the gazetteer knows (``values.is_place``), or an unknown proper name the sentence
says is a place ("Little Hinton, a village near Oxford"). A move is a cue of change: the new home
replaces the old line.
"""

from __future__ import annotations

from .core import USER, rule
from .phrases import OLD, OLDTO, PLACE, VAL, I
from .values import is_place, is_specific

RULES = [
    # home and work
    rule(
        rf"{I}(?: live| am living|'m living| am based|'m based| reside) in {PLACE}",
        "Lives in {v}",
        {"v": is_place},
    ),
    rule(
        rf"(?:\bmy home is (?:now )?in|^home (?:for me )?is(?: now)?) {PLACE}",
        "Lives in {v}",
        {"v": is_place},
    ),
    rule(
        rf"\bi(?:'ve| have) (?:lived|been living) in {PLACE}(?=\s+(?:for|since)\b)",
        "Lives in {v}",
        {"v": is_place},
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:just )?(?:moved|relocated) from {OLD} to {PLACE}",
        "Lives in {v} instead of {o}",
        {"v": is_place, "o": is_place},
        change=True,
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:just )?(?:moved|relocated) (?:back )?to {PLACE}",
        "Lives in {v}",
        {"v": is_place},
        change=True,
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
    rule(r"\bmy time ?zone is (?P<v>[A-Z][\w/+:-]{1,30})", "Timezone: {v}"),
]

CANON = [
    (r"^Lives in (.+)$", USER, "home"),
    (r"^Timezone: (.+)$", USER, "timezone"),
]
