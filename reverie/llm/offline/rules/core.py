"""The rules' own types: a fact, a rule, a rule being filled, a canonical fact read back.

A *rule* is a pattern over one clause of the user's words, the template its match fills, the kind
of thing each captured value must be (``values``), and what the phrasing says about the fact (a
cue of change, a negation it is about, a list read item by item). Each kind of fact keeps its rules
in its own module (``home``, ``work``, ``pets`` …); ``extract`` runs them all in order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, wraps
from typing import Any, TypeVar

from . import gate as _gate

__all__ = [
    "USER",
    "SOUL",
    "MEMORY",
    "Fact",
    "Canon",
    "Rule",
    "Filling",
    "Check",
    "rule",
    "memo",
    "word_set",
    "SAID",
]

USER, SOUL, MEMORY = "USER", "SOUL", "MEMORY"
#: What a ``Gone:`` or ``Now:`` fact carries after its value: the words said with it (the user's
#: message, the reason an old line leaves; or the old value or event named).
SAID = "; said: "


@dataclass(frozen=True)
class Fact:
    text: str
    mark: str  # permanent | durable | ephemeral | correction


@dataclass(frozen=True)
class Canon:
    target: str  # USER | SOUL | MEMORY
    slot: str | None  # single-valued attribute, or None for facts that may coexist (likes, rules)
    replaces: str | None = None  # the old line's text ("… instead of X")
    removes: str | None = None  # the line a "No longer …" fact retracts


#: A kind check on one captured value ("Lisbon" is a place, "Linux" none).
Check = Callable[[str], bool]


@dataclass
class Filling:
    """A match on its way into its template: the captured groups as said, the values cleaned for
    the template, and the template itself (a rule's ``finish`` may adjust any of them)."""

    template: str
    groups: dict[str, str]
    values: dict[str, str]
    match: re.Match[str]
    message: str = ""  # the whole message the clause is of (a pet named in the next sentence …)


#: A rule's own last step: adjust the filling, or refuse it (False).
Finish = Callable[[Filling], bool]


@dataclass(frozen=True)
class Rule:
    source: str  # the pattern, compiled on first use (``pattern``) behind its gate
    # {v} value, {o} old value, {k} kind word, {d} date, {p} project, {v3} free text in 3rd person
    template: str
    kinds: tuple[tuple[str, Check], ...]  # (group, check) pairs every match must satisfy
    mark: str
    # the phrasing itself is a cue of change ("moved to", "switched from … to")
    change: bool = False
    # the rule is about a negation: a "not" before the match does not cancel it
    negative: bool = False
    # the value may be a list of activities ("playing games and watching films"): one fact each
    each: bool = False
    # the fact is presupposed by a possessive ("my love for X"), so it holds under a plan or a wish
    # ("I wanted to blend my love for dance and fashion")
    presupposed: bool = False
    finish: Finish | None = field(default=None, compare=False)
    # the filled fact read as several ("Uses Django 5 with PostgreSQL 16" → one line per tool)
    split: Callable[[str], list[str]] | None = field(default=None, compare=False)
    flags: int = re.I

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled on first use: importing the engine compiles no rule (``gate``)."""
        return re.compile(self.source, self.flags)

    @cached_property
    def gate(self) -> _gate.Gate:
        """The literals a match needs, in lower case (``gate``)."""
        return _gate.required(self.source, self.flags)


def rule(
    pattern: str,
    template: str,
    kinds: Mapping[str, Check] | None = None,
    mark: str = "durable",
    *,
    change: bool = False,
    negative: bool = False,
    each: bool = False,
    presupposed: bool = False,
    finish: Finish | None = None,
    split: Callable[[str], list[str]] | None = None,
) -> Rule:
    return Rule(
        pattern,
        template,
        tuple((kinds or {}).items()),
        mark,
        change,
        negative,
        each,
        presupposed,
        finish,
        split,
    )


def rules_of(
    patterns: Sequence[str],
    template: str,
    kinds: Mapping[str, Check] | None = None,
    mark: str = "durable",
    **options: Any,
) -> list[Rule]:
    """One rule per pattern, all filling one template the same way: a table of the phrasings of
    one frame, in the order they are tried."""
    return [rule(p, template, kinds, mark, **options) for p in patterns]


def change(
    pattern: str,
    template: str,
    *,
    negative: bool = False,
    finish: Finish | None = None,
) -> Rule:
    """A correction frame: a statement that changes or ends a fact already in memory (marked
    ``correction``, read even in a passing clause: "I lost my job this month")."""
    return rule(
        pattern, template, None, "correction", change=True, negative=negative, finish=finish
    )


_T = TypeVar("_T")


def memo(fn: Callable[[str], _T]) -> Callable[[str], _T]:
    """Cache a pure function of one short string (a fact or a file line: asked again for every line
    of every file); a long one is computed each time, so the cache stays small."""
    cached = lru_cache(maxsize=4096)(fn)

    @wraps(fn)
    def call(text: str) -> _T:
        return cached(text) if len(text) <= 300 else fn(text)

    return call


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.lower().split())
