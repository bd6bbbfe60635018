"""The user's pets: named ("we adopted a cat named Miso", "my dog Rex …") or held ("we've got a pup
and a kitty", "I have two cats").

A pet held is written by its kind ("a pup" → ``Has a dog``) and must end its noun phrase: "a cat
allergy", "a dog show" and "a bird's eye view" hold no pet. A pet named with a bare "is" needs a
given name ("my dog is Hungry" names no dog); with "named" or "called" any proper name will do
("Biscuit").
"""

from __future__ import annotations

import re

from ..kinds import given_name
from .core import USER, Filling, rule
from .lexicon import PETS, PETS_PLURAL
from .phrases import NAME
from .values import is_name

#: The pets "my dog is called Rex" and "our cat, Miso, …" are read for.
PET_KIN = "dog|cat|puppy|kitten|parrot|hamster|rabbit|horse"
#: How people say "dog" and "cat" to friends: a pet held is written by its kind.
PET_TALK = {"pup": "dog", "pups": "dogs", "doggo": "dog", "kitty": "cat", "kitties": "cats"}
#: "a dog", "a pup", "two turtles": a pet held, counted.
_PET_NP = rf"(?:an? (?:{PETS}|pup|doggo|kitty)|(?:two|three|four|five) (?:{PETS_PLURAL}))"
#: The pet ends its noun phrase and its clause ("a cat allergy", "a dog on my lap" are none).
_PET_END = (
    r"(?=\s*(?:[.!;]|$)|,\s*(?:and|but|so|which|they|he|she|both)\b|"
    r"\s+(?:and (?:i|we|they|he|she|it)|but|so|who|that)\b)"
)


def named_pet(f: Filling) -> bool:
    """A pet named with "named" or "called" may have any proper name; with a bare "is" a given name."""
    return given_name(f.groups.get("v", "")) or bool(
        re.search(r"\b(?:named|called|name is)\b", f.match.group(0), re.I)
    )


RULES = [
    rule(
        rf"\bmy (?P<k>{PET_KIN})(?:'s name)? is (?:called |named ){NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    rule(
        rf"\bmy (?P<k>{PET_KIN})(?:'s name is| is) {NAME}\s*(?:[,.!]|$)",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    rule(
        rf"\bmy (?P<k>{PET_KIN}),? {NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|studies|loves|likes)\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    rule(
        rf"\bi have an? (?P<k>{PET_KIN}) (?:called|named) {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    rule(
        rf"\bour (?P<k>{PET_KIN})(?:'s name)? is (?:called |named ){NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    rule(
        rf"\bour (?P<k>{PET_KIN}),? {NAME},?\s+(?:is|lives|works|was|has|just|will|and|who|studies|loves|likes|"
        rf"starts|started|goes|plays|turned|turns|graduated|got)\b",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    rule(
        rf"\b(?:we|i)(?:'ve| have)? (?:just |recently |also )?(?:got|adopted|rescued|brought home|have) (?:a|an|another|"
        rf"a new|our|my) (?:new )?(?P<k>{PETS}) (?:named|called) {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
    # a pet held, without a name: "we've got a pup and a kitty", "I have two cats"; the pet ends its
    # noun phrase ("a cat allergy", "a dog show", "a bird's eye view" are none)
    rule(
        rf"\b(?:we|i)(?:'ve| have)? (?:also |still )?(?:got|have) (?P<v>{_PET_NP})(?: and (?:{_PET_NP}))?{_PET_END}",
        "Has {v}",
        None,
        "permanent",
    ),
    rule(
        rf"\b(?:we|i)(?:'ve| have)? (?:also |still )?(?:got|have) (?:{_PET_NP}) and (?P<v>{_PET_NP}){_PET_END}",
        "Has {v}",
        None,
        "permanent",
    ),
    # the second pet of the same statement: "we have a dog named Buddy and a cat named Socks"
    rule(
        rf"\b(?:we|i)(?:'ve| have)? (?:just |recently |also )?(?:got|adopted|rescued|brought home|have) (?:a|an|another|"
        rf"a new|our|my) (?:new )?(?:{PETS}) (?:named|called) (?-i:[A-Z])[\w'’-]+,? and (?:a|an|another) (?:new )?"
        rf"(?P<k>{PETS}) (?:named|called) {NAME}",
        "Has a {k} named {v}",
        {"v": is_name},
        "permanent",
        finish=named_pet,
    ),
]

CANON = [
    (r"^Has an? (\w+) named (.+)$", USER, None),
    (rf"^Has (?:an? (?:{PETS})|(?:two|three|four|five) (?:{PETS_PLURAL}))$", USER, None),
]


def by_kind(text: str) -> str:
    """ "Has a pup" → "Has a dog": a pet held is written by its kind."""
    m = re.fullmatch(r"Has (an? |two |three |four |five )(\w+)", text)
    if m and m.group(2).lower() in PET_TALK:
        return f"Has {m.group(1)}{PET_TALK[m.group(2).lower()]}"
    return text
