"""Kinds of fact a query names: the bridge from a question's category words to the lines of that
kind, which share no word with it ("dietary restrictions" → "Is vegetarian"; "What do you know
about me?" → every line about the user). Offline, with no embeddings, this is what lets such a
question find anything.

The lexicon (``KINDS``) is small and written down here, not learned: for each kind, the words a
question uses to name it (compared as whole words, a plural's ``s`` aside) and the words a line of
that kind holds (compared at the start of a word, so ``allerg`` finds "allergic" and
"allergies"). The ``self`` kind ("about me", "who am I") is the user's profile: every line of
USER.md, and what the user said that Dream has not read yet.

How Recall uses it (``with_kinds``): the query's own hits first, then the hits of the kinds'
line words that do hold one of them — additive, never dropping a hit of the query.

Scores keep their absolute meaning (``score``): the share of the query's topic words a text holds,
where a word naming a kind counts as held by a line of that kind. So "dietary restrictions" and
"Is vegetarian" score 1.0 (both words name the diet kind), and "what is my job at the hospital"
scores "Works as nurse" 0.5 (the job, not the hospital).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .rank import query_terms
from .search import match
from .types import Hit

__all__ = ["Kind", "KINDS", "SELF", "kinds_named", "of_kind", "score", "with_kinds"]


@dataclass(frozen=True)
class Kind:
    """One kind of fact: its ``name``, the words a question names it by (``asked``) and the word
    starts a line of that kind holds (``lines``; empty for ``self``, which is a file's lines)."""

    name: str
    asked: frozenset[str]
    lines: tuple[str, ...]


def _kind(name: str, asked: str, lines: str) -> Kind:
    return Kind(name, frozenset(asked.split()), tuple(lines.split()))


KINDS: tuple[Kind, ...] = (
    _kind(
        "diet",
        "diet dietary food eat eating eats meal cuisine restriction allergy allergies allergic",
        "vegetarian vegan pescatarian allerg gluten lactose dairy meat eat eats food diet kosher "
        "halal nut nuts peanut shellfish celiac cook cuisine",
    ),
    _kind(
        "health",
        "health medical medication condition illness allergy allergies",
        "allerg asthma diabet medicat doctor surgery injur sick illness therapy disease health "
        "hospital",
    ),
    _kind(
        "work",
        "work job career occupation profession employer workplace company colleague boss",
        "work job career employ engineer nurse teacher developer programmer manager designer "
        "office company colleague boss profession intern hired startup business",
    ),
    _kind(
        "family",
        "family relative kid children child parent sibling spouse partner married",
        "wife husband son daughter sister brother mother father mom mum dad kid child children "
        "married partner parent grandm grandf grandp cousin aunt uncle niece nephew family "
        "sibling spouse fiance",
    ),
    _kind(
        "pets",
        "pet animal",
        "dog cat puppy kitten pet parrot hamster rabbit bunny horse turtle guinea snake bird",
    ),
    _kind(
        "home",
        "home live lives living address location city hometown reside house",
        "live lives lived moved home house apartment flat city town hometown neighbo",
    ),
    _kind(
        "languages",
        "language speak speaks",
        "speak language fluent english spanish french german italian portuguese chinese "
        "mandarin japanese korean arabic russian hindi dutch",
    ),
    _kind(
        "preferences",
        "preference prefer likes favorite favourite taste",
        "like likes love prefer enjoy favo hate dislike",
    ),
    _kind(
        "hobbies",
        "hobby hobbies interest pastime leisure",
        "play enjoy love hobby hik paint read swim cook garden danc sing guitar piano game "
        "gaming sport camp travel photograph knit yoga",
    ),
    _kind(
        "education",
        "education school study studies degree university college",
        "stud school universit college degree graduat major course phd master bachelor",
    ),
)
#: The user's profile: "about me", "who am I", "my profile".
SELF = Kind("self", frozenset(), ())
_SELF_ASKED = re.compile(
    r"\b(?:about (?:me|myself|the user)|who am i|my profile|know me)\b", re.IGNORECASE
)
#: Question words that frame "what do you know about me" rather than name a topic.
_FRAMING = frozenset("know tell remember recall".split())
_WORD = re.compile(r"\w+")


def _asks(kind: Kind, word: str) -> bool:
    return word in kind.asked or (word.endswith("s") and word[:-1] in kind.asked)


def kinds_named(query: str) -> tuple[Kind, ...]:
    """The kinds of fact ``query`` names, in ``KINDS`` order (``SELF`` first when it asks about the
    user as a whole)."""
    words = {w.lower() for w in _WORD.findall(query or "")}
    named = [k for k in KINDS if any(_asks(k, w) for w in words)]
    return ((SELF,) if _SELF_ASKED.search(query or "") else ()) + tuple(named)


def of_kind(text: str, kind: Kind, path: str | None = None) -> bool:
    """Whether a line is of ``kind``: it holds one of the kind's line words at the start of a word;
    for ``SELF``, it is a line of USER.md or a history entry (what the user said)."""
    if kind is SELF:
        return path in ("USER.md", "memory/history.jsonl")
    lower = text.lower()
    return any(re.search(r"\b" + re.escape(stem), lower) for stem in kind.lines)


def score(text: str, query: str, path: str | None = None) -> float:
    """The share of ``query``'s topic words ``text`` holds, a word naming a kind counting as held
    by a line of that kind (see the module doc); ``match``'s value when the query names none."""
    terms = query_terms(query)
    kinds = kinds_named(query)
    if not kinds:
        return match(text, terms)
    rest = [t for t in terms if not any(_asks(k, t) for k in kinds)]
    if SELF in kinds:
        rest = [t for t in rest if t not in _FRAMING]
    held = sum(1 for t in rest if match(text, [t]) > 0)
    held += sum(1 for k in kinds if of_kind(text, k, path))
    return round(held / (len(rest) + len(kinds)), 4)


def with_kinds(search: Callable[[str], list[Hit]], query: str) -> list[Hit]:
    """``search(query)``'s hits, then the hits of the query's kinds' line words that hold one of
    them (not already found): a question naming a kind of fact finds the lines of that kind."""
    hits = search(query)
    kinds = [k for k in kinds_named(query) if k.lines]
    if not kinds:
        return hits
    seen = {h.source for h in hits}
    words = " ".join(dict.fromkeys(w for k in kinds for w in k.lines))
    out = list(hits)
    for hit in search(words):
        if hit.source not in seen and any(of_kind(hit.snippet, k) for k in kinds):
            seen.add(hit.source)
            out.append(hit)
    return out
