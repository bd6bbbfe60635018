"""Categories of fact a query names: the bridge from a question's category words to the lines of
that category, which share no word with it ("dietary restrictions" → "Is vegetarian"; "What do you
know about me?" → every line about the user). Offline, with no embeddings, this is what lets such a
question find anything.

The lexicon (``CATEGORIES``) is small and written down here, not learned: for each category, the
words a question uses to name it (compared as whole words, a plural's ``s`` aside) and the words a
line of that category holds (compared at the start of a word, so ``allerg`` finds "allergic" and
"allergies"). The ``self`` category ("about me", "who am I") is the user's profile: every line of
USER.md, and what the user said that Dream has not read yet.

How Recall uses it (``with_categories``): the query's own hits first, then the hits of the
categories' line words that do hold one of them — additive, never dropping a hit of the query.

Scores keep their absolute meaning (``score``): the share of the query's topic words a text holds,
where a word naming a category counts as held by a line of that category. So "dietary restrictions"
and "Is vegetarian" score 1.0 (both words name the diet category), and "what is my job at the
hospital" scores "Works as nurse" 0.5 (the job, not the hospital).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .rank import query_terms
from .search import match
from .types import Hit

__all__ = [
    "Category",
    "CATEGORIES",
    "SELF",
    "categories_named",
    "of_category",
    "score",
    "with_categories",
]


@dataclass(frozen=True)
class Category:
    """One category of fact: its ``name``, the words a question names it by (``asked``) and the word
    starts a line of that category holds (``lines``; empty for ``self``, which is a file's
    lines)."""

    name: str
    asked: frozenset[str]
    lines: tuple[str, ...]


def _category(name: str, asked: str, lines: str) -> Category:
    return Category(name, frozenset(asked.split()), tuple(lines.split()))


CATEGORIES: tuple[Category, ...] = (
    _category(
        "diet",
        "diet dietary food eat eating eats meal cuisine restriction allergy allergies allergic",
        "vegetarian vegan pescatarian allerg gluten lactose dairy meat eat eats food diet kosher "
        "halal nut nuts peanut shellfish celiac cook cuisine",
    ),
    _category(
        "health",
        "health medical medication condition illness allergy allergies",
        "allerg asthma diabet medicat doctor surgery injur sick illness therapy disease health "
        "hospital",
    ),
    _category(
        "work",
        "work job career occupation profession employer workplace company colleague boss",
        "work job career employ engineer nurse teacher developer programmer manager designer "
        "office company colleague boss profession intern hired startup business",
    ),
    _category(
        "family",
        "family relative kid children child parent sibling spouse partner married",
        "wife husband son daughter sister brother mother father mom mum dad kid child children "
        "married partner parent grandm grandf grandp cousin aunt uncle niece nephew family "
        "sibling spouse fiance",
    ),
    _category(
        "pets",
        "pet animal",
        "dog cat puppy kitten pet parrot hamster rabbit bunny horse turtle guinea snake bird",
    ),
    _category(
        "home",
        "home live lives living address location city hometown reside house",
        "live lives lived moved home house apartment flat city town hometown neighbo",
    ),
    _category(
        "languages",
        "language speak speaks",
        "speak language fluent english spanish french german italian portuguese chinese "
        "mandarin japanese korean arabic russian hindi dutch",
    ),
    _category(
        "preferences",
        "preference prefer likes favorite favourite taste",
        "like likes love prefer enjoy favo hate dislike",
    ),
    _category(
        "hobbies",
        "hobby hobbies interest pastime leisure",
        "play enjoy love hobby hik paint read swim cook garden danc sing guitar piano game "
        "gaming sport camp travel photograph knit yoga",
    ),
    _category(
        "education",
        "education school study studies degree university college",
        "stud school universit college degree graduat major course phd master bachelor",
    ),
)
#: The user's profile: "about me", "who am I", "my profile".
SELF = Category("self", frozenset(), ())
_SELF_ASKED = re.compile(
    r"\b(?:about (?:me|myself|the user)|who am i|my profile|know me)\b", re.IGNORECASE
)
#: Question words that frame "what do you know about me" rather than name a topic.
_FRAMING = frozenset("know tell remember recall".split())
_WORD = re.compile(r"\w+")


def _asks(category: Category, word: str) -> bool:
    return word in category.asked or (word.endswith("s") and word[:-1] in category.asked)


def categories_named(query: str) -> tuple[Category, ...]:
    """The categories of fact ``query`` names, in ``CATEGORIES`` order (``SELF`` first when it asks
    about the user as a whole)."""
    words = {w.lower() for w in _WORD.findall(query or "")}
    named = [k for k in CATEGORIES if any(_asks(k, w) for w in words)]
    return ((SELF,) if _SELF_ASKED.search(query or "") else ()) + tuple(named)


def of_category(text: str, category: Category, path: str | None = None) -> bool:
    """Whether a line is of ``category``: it holds one of the category's line words at the start of
    a word; for ``SELF``, it is a line of USER.md or a history entry (what the user said)."""
    if category is SELF:
        return path in ("USER.md", "memory/history.jsonl")
    lower = text.lower()
    return any(re.search(r"\b" + re.escape(stem), lower) for stem in category.lines)


def score(text: str, query: str, path: str | None = None) -> float:
    """The share of ``query``'s topic words ``text`` holds, a word naming a category counting as
    held by a line of that category (see the module doc); ``match``'s value when the query names
    none."""
    terms = query_terms(query)
    categories = categories_named(query)
    if not categories:
        return match(text, terms)
    rest = [t for t in terms if not any(_asks(k, t) for k in categories)]
    if SELF in categories:
        rest = [t for t in rest if t not in _FRAMING]
    held = sum(1 for t in rest if match(text, [t]) > 0)
    held += sum(1 for k in categories if of_category(text, k, path))
    return round(held / (len(rest) + len(categories)), 4)


def with_categories(search: Callable[[str], list[Hit]], query: str) -> list[Hit]:
    """``search(query)``'s hits, then the hits of the query's categories' line words that hold one
    of them (not already found): a question naming a category of fact finds the lines of that
    category."""
    hits = search(query)
    categories = [k for k in categories_named(query) if k.lines]
    if not categories:
        return hits
    seen = {h.source for h in hits}
    words = " ".join(dict.fromkeys(w for k in categories for w in k.lines))
    out = list(hits)
    for hit in search(words):
        if hit.source not in seen and any(of_category(hit.snippet, k) for k in categories):
            seen.add(hit.source)
            out.append(hit)
    return out
