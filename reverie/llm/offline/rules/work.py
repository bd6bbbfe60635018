"""Where the user works and as what: employer, job title, a new job, a job left.

An employer is an organisation that is no department or time zone (``values.is_org``); a job ends
in a job title of ``lexicon.ROLES`` with no judging word before it ("a terrible cook" is no cook by
trade). Leaving one employer for another replaces the old line.
"""

from __future__ import annotations

from .core import USER, rule
from .lexicon import ROLES
from .phrases import OLDTO, PLACE, VAL, I
from .values import is_firm, is_org, is_role, is_specific

_ROLE_NOUN = "|".join(sorted(ROLES, key=len, reverse=True))
#: A job title of up to four words, ending where a preposition or a clause begins.
_ROLE = (
    r"(?P<v>(?:[a-z-]+ ){0,3}?[a-z-]+)(?=\s+(?:at|for|in|with|and|but|since|because|so|now|who|which|"
    r"from|by|on)\b|[,.;:!?()]|$)"
)

RULES = [
    rule(rf"{I}(?: work| am working|'m working) (?:at|for) {PLACE}", "Works at {v}", {"v": is_org}),
    rule(
        rf"\bi(?:'m| am) (?:now )?(?:employed|working) (?:at|by|for) {PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:started (?:a new job|working) at|got a (?:new )?job at|been hired by|"
        rf"switched jobs to|moved to a new job at) {PLACE}",
        "Works at {v}",
        {"v": is_org},
        change=True,
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:joined|started at) {PLACE}(?= as an? )",
        "Works at {v}",
        {"v": is_org},
        change=True,
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:joined|started at) [^,.;]{{1,60}}? as an? {_ROLE}",
        "Works as {v}",
        {"v": is_role},
        change=True,
    ),
    rule(
        rf"{I}(?:'ve| have)? left {PLACE}(?=\s+(?:to join|to start|and joined|last (?:week|month|year))\b)",
        "No longer works at {v}",
        {"v": is_org},
        "correction",
        change=True,
    ),
    rule(
        rf"{I}(?: work| am working|'m working)(?: (?:at|for) [^,.;]*?)? as (?:an? )?{_ROLE}",
        "Works as {v}",
        {"v": is_role},
    ),
    rule(rf"\bi(?:'m| am) (?:now |currently )?an? {_ROLE}", "Works as {v}", {"v": is_role}),
    rule(
        rf"\bi(?:'m| am| work| am working|'m working) (?:now |currently )?(?:as )?an? (?:[a-z-]+ ){{0,3}}(?:{_ROLE_NOUN}) "
        rf"(?:at|for) {PLACE}",
        "Works at {v}",
        {"v": is_org},
    ),
    rule(rf"\bmy job is (?:an? )?{VAL}", "Works as {v}", {"v": is_role}),
    rule(rf"\bmy (?:current )?employer is {PLACE}", "Works at {v}", {"v": is_org}),
    rule(
        rf"\bi(?:'ve| have) (?:worked|been working) (?:at|for) {PLACE}(?=\s+(?:for|since)\b)",
        "Works at {v}",
        {"v": is_org},
    ),
    # job and home changes said as leaving one for another
    rule(
        rf"{I}(?:'ve| have)? (?:left|quit) {OLDTO} (?:to join|to work at|to work for|and joined) {PLACE}",
        "Works at {v} instead of {o}",
        {"v": is_org, "o": is_org},
        "correction",
        change=True,
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:left|quit) {OLDTO} for {PLACE}",
        "Works at {v} instead of {o}",
        {"v": is_firm, "o": is_firm},
        "correction",
        change=True,
    ),
    rule(
        rf"{I}(?:'ve| have)? (?:quit|left|lost) my (?:job|position|role) (?:at|with) {PLACE}",
        "No longer works at {v}",
        {"v": is_org},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi (?:don't|do not) (?P<k>work at|work for) {VAL}\s+any ?more\b",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi no longer (?P<k>work at|work for) {VAL}",
        "No longer {k} {v}",
        {"v": is_specific},
        "correction",
        change=True,
        negative=True,
    ),
    rule(
        rf"\bi(?:'m| am) no longer (?:working|employed) (?:at|for|by) {PLACE}",
        "No longer works at {v}",
        {"v": is_org},
        "correction",
        change=True,
        negative=True,
    ),
]

CANON = [
    (r"^Works at (.+)$", USER, "employer"),
    (r"^Works as (.+)$", USER, "role"),
]
