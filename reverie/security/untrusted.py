"""Provenance of SOUL.md rules: a rule may come from what the user said, never from untrusted
content.

History keeps who said what: transcript lines (``reverie.llm.protocol.transcript_line``) are
``[YYYY-MM-DD HH:MM] ROLE: content``, where ``TOOL`` and ``OTHER(name)`` mark tool output, web pages
and other participants. ``untrusted_soul_lines`` finds the lines a Dream edit would add to SOUL.md
whose words come from such untrusted lines of the batch and from no user line: a rule laundered from
a prompt injection. Dream's gate rejects the edit when it finds one (defence in depth under
``dream.protectSoul``, the only defence without it).

Lines that are not transcript lines (fact lines written by the archiving model, which only keeps
what the user said) count as the user's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["untrusted_soul_lines", "OVERLAP"]

#: Share of an added rule's words that must be found in one source line for that line to count as
#: its source.
OVERLAP = 0.6
_ROLE_LINE = re.compile(r"^\s*\[[^\]]*\]\s+([A-Z]+(?:\([^)]*\))?):\s?(.*)$")
_WORD = re.compile(r"[^\W_]{4,}")
_UNTRUSTED = ("TOOL", "OTHER")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _sources(batch: Iterable[str]) -> tuple[list[set[str]], list[set[str]]]:
    trusted: list[set[str]] = []
    untrusted: list[set[str]] = []
    for entry in batch:
        for line in entry.splitlines():
            m = _ROLE_LINE.match(line)
            if m is None:
                trusted.append(_words(line))
            elif m.group(1).startswith(_UNTRUSTED):
                untrusted.append(_words(m.group(2)))
            elif m.group(1) == "USER":
                trusted.append(_words(m.group(2)))
            # ASSISTANT lines are neither: the agent's own words are not the user's instructions
    return trusted, untrusted


def _best(words: set[str], sources: list[set[str]]) -> float:
    return max((len(words & s) / len(words) for s in sources), default=0.0)


def untrusted_soul_lines(batch: Iterable[str], base: str, proposed: str | None) -> list[str]:
    """Lines ``proposed`` adds to SOUL.md (relative to ``base``) that only untrusted history lines
    support."""
    if proposed is None:
        return []
    trusted, untrusted = _sources(batch)
    if not untrusted:
        return []
    before = {line.strip() for line in base.splitlines()}
    found = []
    for line in proposed.splitlines():
        text = line.strip()
        if not text or text in before or text.startswith("#"):
            continue
        words = _words(text)
        if len(words) < 3:
            continue
        if _best(words, untrusted) >= OVERLAP and _best(words, trusted) < OVERLAP:
            found.append(text)
    return found
