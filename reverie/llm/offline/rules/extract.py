"""Facts stated in one message of the user's: every kind's rules run over each clause the clause
stage keeps, in order (``RULES``), and each fill is read in its sentence (a coordination, a list of
activities, a like that names a lasting thing).

The order of ``RULES`` matters in two places: a generic rule for the agent ("Always …") gives
nothing once an earlier rule read the clause ("always answer in French" is ``Reply in French``), and
of two facts for one slot from one message the first is kept unless a later one is a correction.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from functools import cache

from ....text.lazyre import lazy
from ..framing import framed, reversed_feeling
from . import agent, languages, likes, pets, statements
from .changes import NARROWED, without_read_values
from .clauses import (
    AGAIN,
    CODE,
    CORRECTION_CUE,
    MAX_MATCHES,
    NEGATION,
    REMEMBER,
    SARCASM,
    Clause,
    laughter_attached,
    message_clauses,
    sentences_of,
)
from .coordination import coordinated, each
from .core import SAID, SOUL, Fact, Rule
from .fill import fill
from .gate import Index, fold
from .person import third_person
from .shorthand import spelled
from .templates import FACT_KINDS, canon, is_suspicious_rule, normalize

#: Every rule, by kind of fact; within a kind, in the order its module gives.
RULES: list[Rule] = [r for kind in FACT_KINDS for r in kind.RULES]
#: Rules for the agent that take free text: tried only when no other rule read the clause.
_GENERIC = ("{K}", "Never {v3}", "Always {v3}")
_MAX_FACT = 160


class _Found:
    """The facts of one message so far, without duplicates."""

    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self.seen: set[str] = set()

    def add(self, text: str, mark: str) -> bool:
        key = normalize(text)
        if key in self.seen:
            return False
        self.seen.add(key)
        self.facts.append(Fact(text, mark))
        return True


def extract_facts(sentence_block: str, said_on: date | None = None) -> list[Fact]:
    """Facts stated in one message of the user's (or a note about the user), in order, without
    duplicates. ``said_on`` is the day it was said: relative dates ("next Friday") are counted from
    it."""
    if SARCASM.search(sentence_block):
        # sarcasm anywhere in the message ("Oh great, I'm the boss now 🙄"): nothing is sure
        return []
    sentence_block = laughter_attached(sentence_block)  # "I work at NASA. lol": one joke
    found = _Found()
    _conditioned(sentence_block, found)
    for clause in message_clauses(sentence_block):
        if clause.frequency:
            _stated(clause, found)  # "I mostly work from home": a kind's line would drop "mostly"
            continue
        read, tried = _read(clause, said_on, found)
        if clause.ends_only or clause.polite:
            continue  # a hedge's ending, a polite request's rule: nothing else is sure
        _spoken_rest(clause, found)
        _no_longer(clause, found)
        if not read and not _remembered(clause, found) and not tried:
            _stated(clause, found)
        else:
            _stated_tail(clause, said_on, found)
    facts = _unreversed(sentence_block, found.facts)
    return without_read_values(_drop_shadowed(_named_over_bare(facts)))


def _conditioned(message: str, found: _Found) -> None:
    """A reply language said with its condition ("Reply in Romanian unless I write in English"),
    which no clause keeps whole: the line keeps the condition (``agent.conditional_reply``)."""
    if not agent.CONDITIONED.search(message):
        return
    sentences = sentences_of(spelled(message))
    for sentence, in_frame in zip(sentences, framed(sentences)):
        line = None if in_frame else agent.conditional_reply(sentence)
        if line:
            found.add(line, "correction" if CORRECTION_CUE.search(sentence) else "durable")


def _read(clause: Clause, said_on: date | None, found: _Found) -> tuple[bool, bool]:
    """Run every rule over the clause: whether one gave a fact, and whether one matched at all
    (a rule that matched and refused its value knows the clause better than ``statements``)."""
    read = tried = False
    folded = gated(clause.text)
    allowed = _index().passing(folded) if folded is not None else None
    for n, rule in enumerate(RULES):
        if (allowed is not None and not allowed[n]) or not _applies(rule, clause, read):
            continue
        for m in _matches(rule, clause):
            tried = True
            for text in _readings(rule, m, clause, said_on):
                read = _keep(text, rule, clause, found) or read
    return read, tried


#: Whether rules are gated by their literals (``gate``); off only to compare the two.
GATED = True


@cache
def _index() -> Index:
    """The gates of ``RULES``, in their order (read on first use, not at import)."""
    return Index([rule.gate for rule in RULES])


def gated(text: str) -> str | None:
    """The text as the gates read it (``gate.fold``), or None (every rule tried) when gating is
    off."""
    return fold(text) if GATED else None


def _applies(rule: Rule, clause: Clause, read: bool) -> bool:
    if clause.ends_only and not rule.template.startswith("Gone: "):
        return False  # under a hedge only an ending is sure
    if clause.polite and rule.template.startswith(_GENERIC):
        return False  # "could you always …?": only a rule its kind reads, no free "Always …"
    if clause.presupposed_only and not rule.presupposed:
        return False  # under a plan or a wish only a possessive's presupposition holds
    if rule.presupposed and AGAIN.search(clause.text):
        return False  # "get in touch with my love for art again": a love sought again is lost
    # "always answer in French" already gave "Reply in French": no generic rule too
    return not (read and rule.template.startswith(_GENERIC))


def _matches(rule: Rule, clause: Clause) -> Iterator[re.Match[str]]:
    """The rule's matches in the clause that no negation cancels and no passing state makes
    passing; at most ``MAX_MATCHES`` ("I love cats, I love cats, …" costs no more)."""
    text = clause.text
    for n, m in enumerate(rule.pattern.finditer(text)):
        if n >= MAX_MATCHES:
            return
        if not rule.negative and NEGATION.search(text[: m.start()] + " " + m.group(0)):
            continue  # "I don't live in Berlin", "it's not that I like tea"
        if rule.negative and NEGATION.search(text[: m.start()]):
            continue  # "it's not that I'm not into hiking": a negated negation says neither
        if clause.passing and rule.mark != "ephemeral" and not rule.change:
            # "I'm working from Café Lisboa today": no lasting fact; a change ("I lost my job at X
            # this month") is dated by its time phrase, not made passing
            continue
        yield m


def _readings(rule: Rule, m: re.Match[str], clause: Clause, said_on: date | None) -> list[str]:
    """The facts one match states, each read in its sentence."""
    filled = fill(rule, m, said_on, clause.message)
    if not filled or len(filled) > _MAX_FACT:
        return []
    if (
        not clause.opens
        and canon(filled).target == SOUL
        and not agent.HELPS_THE_USER.match(clause.text)
    ):
        # an instruction to the agent opens its sentence; "… - always full of memories" is none
        return []
    if rule.split is not None:
        texts = rule.split(filled)
    else:
        texts = each(filled) if rule.each else coordinated(filled, m, rule)
    return [t for t in (likes.liked(pets.by_kind(t)) for t in texts) if t]


def _keep(text: str, rule: Rule, clause: Clause, found: _Found) -> bool:
    """Add one filled fact unless it is a one-off rule for the agent or said already: True if
    added."""
    if canon(text).target == SOUL and (
        is_suspicious_rule(text) or agent.ONE_OFF.search(clause.text)
    ):
        return False  # "be concise in the summary below": about one reply, not a standing rule
    if clause.polite and canon(text).target != SOUL:
        return False  # "could you tell me …": a request states nothing of the user's
    if canon(text).target == SOUL and _narrowed(clause):
        return (
            False  # "Reply in German when I write in German": a rule without its condition is wrong
        )
    if clause.old and "instead of" not in text and canon(text).removes is None:
        text = f"{text} (replaces: {clause.old})"
    changed = clause.correction or rule.change
    mark = "correction" if changed and rule.mark != "ephemeral" else rule.mark
    return found.add(text, mark)


def _narrowed(clause: Clause) -> bool:
    """The clause's sentence limits the rule with a condition its template drops."""
    head = clause.text[:24]
    sentence = next((s for s in sentences_of(clause.message) if head in s), clause.text)
    return bool(NARROWED.search(sentence))


def _spoken_rest(clause: Clause, found: _Found) -> None:
    """Every language of "I speak English, French and Portuguese" after the first (the rule's)."""
    if clause.passing:
        return
    for lang in languages.spoken(clause.text)[1:]:
        found.add(f"Speaks {lang}", "correction" if clause.correction else "durable")


#: "I'm not prediabetic anymore", "I no longer live in Leeds", "we don't use Jira any more": a
#: statement the user ends, read without its negation.
_ENDED = lazy(
    r"^(?:(?:ok|okay|so|well|also|update|good news|actually)[,:!]?\s+)*(?P<s>i'm|i am|i|we're|we "
    r"are|we)"
    r" (?:(?P<neg>not|no longer|don't|do not|didn't)) (?P<rest>[^,;]{2,80}?)"
    r"(?P<more> any ?more| these days| nowadays)?\s*[.!]*$",
    re.I,
)
_CHANGE_OF = {"no longer"}


def _no_longer(clause: Clause, found: _Found) -> None:
    """A fact the user says has ended ("I'm not prediabetic anymore") retires the line that states
    it, word for word as its own reading ("Has prediabetes"): ``Gone: line …``. Said without a cue
    of change ("I'm not vegan") it is a denial, and retires nothing."""
    m = _ENDED.match(clause.text)
    if m is None or not (m.group("more") or m.group("neg").lower() in _CHANGE_OF):
        return
    positive = f"{m.group('s')} {m.group('rest')}."
    words = " ".join(clause.message.split()).replace(";", ",")[:90]
    for fact in extract_facts(positive):
        if not fact.text.startswith(("Gone: ", "Now: ", "No longer ")):
            found.add(f"Gone: line {fact.text}{SAID}{words}", "correction")


def _remembered(clause: Clause, found: _Found) -> bool:
    """ "Remember that my …" with no rule for it: the user's words, as a note about them (True
    when one was kept)."""
    m = REMEMBER.search(clause.text)
    if not m:
        return False
    note = third_person(m.group("v").strip())
    note = note[:1].upper() + note[1:]
    if is_suspicious_rule(note):
        return False
    return found.add(note, "correction" if clause.correction else "durable")


def _stated_tail(clause: Clause, said_on: date | None, found: _Found) -> None:
    """ "I'm allergic to peanuts and I carry an EpiPen": a kind rule read the clause; its second
    statement as a plain statement (``statements.tail``), or, when a kind rule reads it as the
    user's own ("… and work from home most days" is "I work from home most days"), what it read."""
    rest = statements.tail(clause)
    if rest is None:
        return
    own = _Found()
    read, tried = _read(rest, said_on, own)
    if not tried:
        _stated(rest, found)
    elif read:
        for fact in own.facts:
            found.add(fact.text, fact.mark)


def _stated(clause: Clause, found: _Found) -> None:
    """A plain statement of the user's no rule read (``statements``), kept in the user's words when
    its line reads back to its own file with no slot: a line another kind's template would claim
    is that kind's to write."""
    for text, target in statements.lines(clause):
        info = canon(text)
        if info.target == target and info.slot is None and len(text) <= _MAX_FACT:
            found.add(text, "durable")


def _unreversed(message: str, facts: list[Fact]) -> list[Fact]:
    """ "I hate Rust, honestly I love it": neither feeling is sure."""
    likes_it, hates_it = reversed_feeling(message)
    return [
        f
        for f in facts
        if not (hates_it and f.text.startswith(("Likes ", "Prefers ", "Favourite ")))
        and not (likes_it and f.text.startswith("Dislikes "))
    ]


def _named_over_bare(facts: list[Fact]) -> list[Fact]:
    """ "Has a husband" says less than "Has a husband named Tomasz" from the same message:
    dropped."""
    named = {f.text.split(" named ", 1)[0] for f in facts if " named " in f.text}
    return [f for f in facts if f.text not in named]


def _drop_shadowed(facts: list[Fact]) -> list[Fact]:
    """When one sentence matched two rules for the same slot (e.g. "I now work at X" and "I work at
    X"), keep one."""
    kept: list[Fact] = []
    slots: dict[str, int] = {}
    for fact in facts:
        slot = canon(fact.text).slot
        if slot and slot in slots:
            prev = kept[slots[slot]]
            if fact.mark == "correction" and prev.mark != "correction":
                kept[slots[slot]] = fact
            continue
        if slot:
            slots[slot] = len(kept)
        kept.append(fact)
    return kept


def leaves_unsure(message: str) -> bool:
    """True when a sentence of the user's message says something that gave no fact: four words or
    more, not a question, not code. The rules were not sure what it means (a hedge, a plan, a
    preference in words they do not know), so the caller keeps the words themselves rather than
    nothing: history keeps them, Recall finds them."""
    for sentence in sentences_of(message):
        if len(sentence.split()) < 4 or sentence.endswith("?") or CODE.search(sentence):
            continue
        if not extract_facts(sentence):
            return True
    return False
