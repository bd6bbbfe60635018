"""Checks on what a real model wrote before it may reach a memory file.

A small or confused model answers with a code block, ``{{``, JSON, or the task's own instructions
handed back ("what was discussed, decided and left open", ``kebab-case-topic-name``). Each check
here names what is wrong in a few words (for the log and the file's label), or returns None when the
text is usable.

A reply must also account for its input (``said_something``, ``content_words``, ``unaccounted``):
"nothing to keep" is believed only of an input in which nobody said anything — no sentence of four
words or more that is not a question or code — and a fact line is believed only when it shares a
word with what it is about. These are deliberately crude (words, a light stemmer), and err towards
keeping the words themselves: a false alarm costs a few raw lines in history, a false "nothing"
costs what the user said.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "prose_problem",
    "echo_of",
    "fact_problem",
    "line_problem",
    "content_words",
    "said_something",
    "unaccounted",
    "unwrap_fence",
]

_WORD = re.compile(r"[^\W\d_]{2,}")
#: Indentation stops at its line and a tag at the next ``<``: ``^\s*`` and ``[^>]*`` made every
#: line start re-scan the rest of the text (quadratic: 20,000 newlines took 87 s).
_CODE = re.compile(
    r"```|^[^\S\n]*(?:def |class |import |from \S+ import |#include|function |SELECT |<\w+[^<>]*>)",
    re.I | re.M,
)
#: Consecutive words shared with an instruction text that make an answer an echo of it, not a
#: summary.
ECHO_WORDS = 5


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def echo_of(text: str, sources: Iterable[str], n: int = ECHO_WORDS) -> str | None:
    """The first ``n``-word run ``text`` shares with any of ``sources`` (a prompt, a tool schema),
    or None."""
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


def line_problem(line: str, sources: Iterable[str] = ()) -> str | None:
    """Why one fact line a model wrote is not a fact at all, or None: longer than 500 characters,
    code, template braces, or the instructions read back. (Looser than ``fact_problem``: an archived
    fact may be short, or mostly a date.)"""
    stripped = line.strip()
    if len(stripped) > 500:
        return "longer than 500 characters"
    if "{{" in stripped or "}}" in stripped:
        return "template braces"
    if _CODE.search(stripped):
        return "code"
    echo = echo_of(stripped, sources)
    return f"repeats the instructions ({echo!r})" if echo else None


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


# -- accounting for the input ----------------------------------------------------------------------
_TOKEN = re.compile(r"[^\W_]+", re.U)
#: ``(?<!\s)``: a match starts only where a run of white space starts (else quadratic in its
#: length); the closing fence's indent is ``[ \t]*`` for the same reason (blank lines inside).
_SENTENCE = re.compile(r"(?<=[.!?;…])\s+|(?<!\s)\s+⏎\s+|\n+")
_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(.*?)\n[ \t]*```\s*$", re.S)
#: Words that say nothing of what a sentence is about (English function words, the transcript's
#: own labels, the fact protocol's words, and the verbs every fact line shares: two sentences
#: meeting only on "lives" are not about the same thing).
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each few for from
    further get got had has have having he her here hers herself him himself his how i if in into is
    it its itself just let like me more most my myself no nor not now of off on once only or other
    our ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours yourself yourselves user
    users assistant tool other said says say fact facts really yes yeah okay ok oh well thanks thank
    please hi hello hey one thing things something anything nothing lot much many make made know
    think want going go live lives living lived work works working worked like likes liked love
    loves loved prefer prefers preferred use uses used need needs feel feels look time today
    tomorrow yesterday week day days year years new good great right still""".split()
)
_SUFFIXES = ("ing", "ed", "es", "s", "ly", "e")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:6]


def content_words(text: str) -> set[str]:
    """The stems of ``text``'s words that carry content: not function words, at least three
    characters or a number."""
    out = set()
    for token in _TOKEN.findall(text.lower()):
        if token in STOPWORDS or (len(token) < 3 and not token.isdigit()):
            continue
        out.add(_stem(token))
    return out


def said_something(text: str) -> list[str]:
    """The sentences of ``text`` that say something: four words or more, not a question, not
    code."""
    found = []
    for sentence in _SENTENCE.split(text or ""):
        sentence = sentence.strip()
        if len(sentence.split()) < 4 or sentence.endswith("?") or _CODE.search(sentence):
            continue
        if content_words(sentence):
            found.append(sentence)
    return found


def unaccounted(sentences: Iterable[str], lines: Iterable[str]) -> list[str]:
    """The ``sentences`` that share no content word with any of ``lines`` (a reply's fact lines)."""
    covered: set[str] = set()
    for line in lines:
        covered |= content_words(line)
    return [s for s in sentences if not content_words(s) & covered]


def unwrap_fence(text: str) -> str | None:
    """The body of a reply wrapped whole in one code fence, or None when it is not."""
    m = _FENCE.match(text)
    return m.group(1) if m else None
