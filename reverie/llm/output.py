"""Checks on what a real model wrote before it may reach a memory file.

A small or confused model answers with a code block, ``{{``, JSON, or the task's own instructions
handed back ("what was discussed, decided and left open", ``kebab-case-topic-name``). Each check
here names what is wrong in a few words (for the log and the file's label), or returns None when the
text is usable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["prose_problem", "echo_of", "fact_problem"]

_WORD = re.compile(r"[^\W\d_]{2,}")
_CODE = re.compile(
    r"```|^\s*(?:def |class |import |from \S+ import |#include|function |SELECT |<\w+[^>]*>)",
    re.I | re.M,
)
#: Consecutive words shared with an instruction text that make an answer an echo of it, not a
#: summary.
ECHO_WORDS = 5


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def echo_of(text: str, sources: Iterable[str], n: int = ECHO_WORDS) -> str | None:
    """The first ``n``-word run ``text`` shares with any of ``sources`` (a prompt, a tool schema), or None."""
    words = _words(text)
    if len(words) < n:
        return None
    grams: set[tuple[str, ...]] = set()
    for source in sources:
        src = _words(source)
        grams.update(tuple(src[i : i + n]) for i in range(len(src) - n + 1))
    for i in range(len(words) - n + 1):
        if tuple(words[i : i + n]) in grams:
            return " ".join(words[i : i + n])
    return None


def prose_problem(text: str, *, min_words: int = 3) -> str | None:
    """Why ``text`` is not a few sentences of prose, or None: too short, code, JSON or template
    braces, or mostly symbols."""
    stripped = text.strip()
    if not stripped:
        return "empty"
    if "{{" in stripped or "}}" in stripped or stripped[0] in "{[<":
        return "template or JSON, not prose"
    if _CODE.search(stripped):
        return "code, not prose"
    words = _words(stripped)
    if len(words) < min_words:
        return f"{len(words)} word(s), too short to be a summary"
    letters = sum(c.isalpha() for c in stripped)
    visible = sum(not c.isspace() for c in stripped)
    if letters < 0.6 * visible:
        return "mostly symbols, not prose"
    return None


def fact_problem(fact: str, sources: Iterable[str] = ()) -> str | None:
    """Why one flushed fact line is unusable, or None: a fact is a short sentence of words, not
    code, not braces, not the prompt read back."""
    stripped = fact.strip()
    if len(stripped) > 500:
        return "longer than 500 characters"
    problem = prose_problem(stripped, min_words=2)
    if problem:
        return problem
    echo = echo_of(stripped, sources)
    return f"repeats the instructions ({echo!r})" if echo else None
