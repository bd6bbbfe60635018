"""Who the user is: name, nickname, origin, birthplace, where they grew up, birthday.

Identity facts are ``permanent``: Dream's lifecycle never retires them on its own.
"""

from __future__ import annotations

from .core import USER, rule
from .phrases import NAME, PLACE
from .values import is_name, is_place

RULES = [
    # identity
    rule(rf"\bmy name is {NAME}", "Name: {v}", {"v": is_name}, "permanent"),
    rule(
        rf"^(?:hi|hello|hey)(?: there)?[,!\s]+(?:i'm|i am) {NAME}\s*(?:[,.!]|$)",
        "Name: {v}",
        {"v": is_name},
        "permanent",
    ),
    rule(rf"^name's {NAME}\s*[.!]?$", "Name: {v}", {"v": is_name}, "permanent"),
    rule(rf"\bi(?:'m| am) (?:originally )?from {PLACE}", "From {v}", {"v": is_place}, "permanent"),
    rule(rf"\bi was born in {PLACE}", "Born in {v}", {"v": is_place}, "permanent"),
    rule(
        rf"\bi was born and (?:raised|brought up) in {PLACE}",
        "Born in {v}",
        {"v": is_place},
        "permanent",
    ),
    rule(
        rf"\bi was born and (?:raised|brought up) in {PLACE}",
        "Grew up in {v}",
        {"v": is_place},
        "permanent",
    ),
    rule(rf"\bi grew up in {PLACE}", "Grew up in {v}", {"v": is_place}, "permanent"),
    rule(
        r"\bmy birthday is (?:on )?(?P<b>(?:\d{1,2}(?:st|nd|rd|th)? (?:of )?[a-z]+|[a-z]+ "
        r"\d{1,2}(?:st|nd|rd|th)?))\b",
        "Birthday: {b}",
        None,
        "permanent",
    ),
    rule(
        r"\bmy (?:home country|homeland|native country|country of origin|home town|hometown)(?:,| "
        r"is| was|:) "
        rf"{PLACE}",
        "From {v}",
        {"v": is_place},
        "permanent",
    ),
    rule(
        r"\b(?:(?:my|our) (?:friends|family|colleagues|coworkers|co-workers|parents|kids|team|"
        r"mates|students)|"
        rf"everyone|everybody|people|most people|folks) (?:all |usually |just )?calls? me {NAME}",
        "Goes by {v}",
        {"v": is_name},
    ),
    rule(rf"\bi (?:usually |mostly )?go by {NAME}", "Goes by {v}", {"v": is_name}),
    rule(rf"\bmy nickname is {NAME}", "Goes by {v}", {"v": is_name}),
]

#: Templates read back: (pattern, file, single-valued slot).
CANON = [
    (r"^Name: (.+)$", USER, "name"),
    (r"^From (.+)$", USER, "origin"),
    (r"^Born in (.+)$", USER, "birthplace"),
    (r"^Grew up in (.+)$", USER, None),
    (r"^Birthday: (.+)$", USER, "birthday"),
    (r"^Goes by (.+)$", USER, "nickname"),
]
