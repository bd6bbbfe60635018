"""Canonical facts read back: which file a fact belongs to and which single-valued slot
(attribute) it fills.

Each kind of fact lists its templates (``CANON`` in its module) as ``(pattern, file, slot)``; a slot
with ``{1}`` names the attribute by the template's first value (``deadline:release 2.4``). A fact
replaces another only when it says so (``Canon.replaces``: "… instead of OLD") or fills the same
slot with a cue of change; "No longer …" retracts a line (``Canon.removes``).
"""

from __future__ import annotations

import re
from datetime import date

from ....text.lazyre import lazy
from ..dates import resolve
from . import (
    agent,
    changes,
    corrections,
    family,
    health,
    home,
    identity,
    languages,
    likes,
    pets,
    project,
    pursuits,
    schedule,
    statements,
    work,
)
from .core import MEMORY, USER, Canon, memo, word_set
from .lexicon import DATABASES, NOT_NAMES, PROJECT_NOUN, TECH

#: The kinds of fact, in the order their rules run and their templates are read back.
FACT_KINDS = (
    identity,
    family,
    home,
    work,
    pets,
    pursuits,
    likes,
    health,
    languages,
    corrections,
    changes,
    agent,
    project,
    schedule,
    statements,
)
_CANON: list[tuple[re.Pattern[str], str, str | None]] = [
    (lazy(p, re.I), target, slot) for module in FACT_KINDS for p, target, slot in module.CANON
]
_INSTEAD = lazy(r"^(?P<new>.+?) instead of (?P<old>.+)$", re.I)


_NO_LONGER = lazy(
    r"^No longer (?P<k>lives in|live in|works at|work at|works for|work for|likes|like|uses|use|"
    r"learning|"
    r"is learning) "
    r"(?P<v>.+)$",
    re.I,
)


_NO_LONGER_LINE = {
    "live in": "Lives in",
    "lives in": "Lives in",
    "work at": "Works at",
    "works at": "Works at",
    "work for": "Works at",
    "works for": "Works at",
    "like": "Likes",
    "likes": "Likes",
    "use": "Uses",
    "uses": "Uses",
    "learning": "Is learning",
    "is learning": "Is learning",
}


NO_LONGER_TEXT = {
    "live in": "lives in",
    "work at": "works at",
    "work for": "works at",
    "like": "likes",
    "use": "uses",
}


_SUSPICIOUS = lazy(
    r"https?://|www\.|[\w.+-]+@[\w-]+\.\w+|ignore (?:all |any |the )?(?:previous|prior|above|"
    r"earlier) instructions"
    r"|\b(?:send|upload|forward|post|e-?mail|exfiltrate|share|leak)\b.*\b(?:to|with)\b"
    r"|\b(?:password|api[ _-]?key|token|secret|credential|ssh key)s?\b|\bsoul\.md\b|\bsystem "
    r"prompt\b",
    re.I,
)


def normalize(text: str) -> str:
    """Comparison key: lower case, bullets, marks, punctuation and spacing folded."""
    text = re.sub(r"^\s*[-*]\s*(?:\[[a-z]+\]\s*)?", "", text.strip(), flags=re.I)
    text = re.sub(r"[^\w\s:]", " ", text.lower())
    return " ".join(text.split())


def is_suspicious_rule(text: str) -> bool:
    """A would-be SOUL rule that sends data out, names credentials or tries to rewrite the agent's
    instructions."""
    return bool(_SUSPICIOUS.search(text))


@memo
def canon(fact: str) -> Canon:
    """Where a (canonical) fact belongs and which slot it fills. Unknown phrasing: USER when it is
    about the user, else MEMORY, with no slot."""
    text = fact.strip()
    m = _NO_LONGER.match(text)
    if m:
        line = f"{_NO_LONGER_LINE[m.group('k').lower()]} {m.group('v')}"
        return Canon(canon(line).target, None, removes=line)
    old = None
    m = _INSTEAD.match(text)
    if m:
        text, old = m.group("new"), m.group("old")
    for rx, target, slot in _CANON:
        cm = rx.match(text)
        if cm:
            if slot and "{1}" in slot:
                slot = slot.replace("{1}", normalize(cm.group(1)))
            replaces = (
                f"{text[: cm.start(cm.lastindex or 0)]}{old}" if old and cm.lastindex else None
            )
            return Canon(target, slot, replaces)
    lowered = text.lower()
    if re.match(r"^(?:the )?user\b|\bthe user's\b", lowered):
        return Canon(USER, None, old)
    return Canon(MEMORY, None, old)


@memo
def is_canonical(fact: str) -> bool:
    """Whether ``fact`` is in one of the engine's templates (else it is someone's free phrasing)."""
    text = strip_instead(fact)
    return bool(_NO_LONGER.match(text)) or any(rx.match(text) for rx, _t, _s in _CANON)


_NOT_STORAGE = lazy(
    r"\b(?:cache|caching|queue|queues|sessions|search|logs|logging|"
    r"analytics(?! (?:service|app|api|platform|pipeline|backend|system)))\b",
    re.I,
)


@memo
def attribute(line: str) -> str | None:
    """The single-valued attribute a line states: its template's slot, else (attribute/value
    matching) a named project's database when the line names exactly one project and a database
    ("Decided: use PostgreSQL for Heron" → ``database:heron``)."""
    info = canon(line)
    if info.slot or info.removes:
        return info.slot
    if _NOT_STORAGE.search(line):
        return None
    text = strip_instead(line)
    words = re.findall(r"[A-Za-z][\w-]*", text)
    if not any(w.lower() in DATABASES for w in words):
        return None
    projects = {
        w.lower()
        for w in words[1:]
        if w[0].isupper()
        and w.lower() not in TECH
        and w.lower() not in DATABASES
        and w.lower() not in NOT_NAMES
    }
    projects |= {m.lower() for m in re.findall(rf"(?<!\S)(?-i:[a-z])[\w-]* {PROJECT_NOUN}\b", text)}
    return f"database:{projects.pop()}" if len(projects) == 1 else None


def names_database(text: str) -> bool:
    """The text names a database ("Uses MongoDB for the analytics service", "Decided: go with
    PostgreSQL"), and no cache, queue or search store."""
    if _NOT_STORAGE.search(text):
        return False
    return any(w.lower() in DATABASES for w in re.findall(r"[A-Za-z][\w-]*", strip_instead(text)))


_TEMPLATE_WORDS = word_set(
    "lives in works at as from born grew up likes dislikes prefers uses chose decided "
    "stores its data name no longer the user user's a an of to for"
)


def value_words(text: str) -> frozenset[str]:
    """The words that carry a fact's value ("Lives in Lisbon" → {"lisbon"}), for matching a
    paraphrase."""
    return frozenset(
        w
        for w in normalize(strip_instead(text)).replace(":", " ").split()
        if w not in _TEMPLATE_WORDS and len(w) > 1
    ) - {"lived", "worked", "used", "liked", "was", "is"}


def strip_instead(fact: str) -> str:
    """The fact as it is saved: without its ``instead of …`` clause."""
    m = _INSTEAD.match(fact.strip())
    return m.group("new") if m else fact.strip()


def dated(text: str, said_on: date | None) -> str:
    """A canonical dated fact with its date made absolute ("Deadline for X: next Friday" → "…:
    2027-01-15")."""
    m = re.match(
        r"^(?P<head>Deadline for .+?: |Deadline: |\S+ appointment on |Travelling to .+? on "
        r")(?P<d>.+)$",
        text,
        re.I,
    )
    if not m:
        return text
    day = resolve(m.group("d"), said_on)
    return f"{m.group('head')}{day.isoformat()}" if day else text
