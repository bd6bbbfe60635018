"""The offline engine's rules: what a user's sentence says about them, in canonical fact templates.

Precision first. A sentence gives a fact only when all of this holds, else nothing (the words stay
in history, where Recall finds them):

1. It is the user's own present statement (``clauses``, ``framing``): no frame covers its clause (a
   story, a dream, a task on a text, a rumour, a denial, a retraction), it is not a question, not a
   hypothetical ("if", "might", "thinking of"), not reported speech ("she said …"), not a joke or
   sarcasm marker, not code; quoted text is removed first. A clause about a passing state
   ("today", "this week") gives only dated facts. Third-person notes about the user ("User prefers
   tea", "The user's sister …") read as the user's own words (``person``).
2. A rule of its kind of fact matches (``identity``, ``family``, ``home``, ``work``, ``pets``,
   ``pursuits``, ``likes``, ``health``, ``languages``, ``agent``, ``project``, ``schedule``; run in
   that order by ``extract``), and no negation precedes it (unless the rule is about a negation:
   "I don't like", "no longer").
3. Each captured value is the right *kind* of thing (``values``), checked against real data where
   there is some (``..kinds``): a home is a place a gazetteer knows, an employer an organisation,
   a role a job title with no judging word, a language an ISO 639-1 one, a relative's name a given
   name, a tool a technology, a liked thing a noun phrase (``likes.liked``, ``coordination``). A
   rule for the agent (SOUL) must be addressed to it (``agent``).

The match is filled into its template (``fill``). ``templates.canon`` reads a canonical fact back:
which file it belongs to (USER, SOUL, MEMORY) and which single-valued *slot* it fills (``home``,
``employer``, ``database:heron`` …). A fact replaces another only when it says so: its mark is
``correction`` (a cue of change: "actually", "now", "moved", "switched", "no longer", "not X but
Y", "(replaces: …)") and it fills the same slot, or it names the old line (``… instead of OLD``).

Marks: identity (name, origin, birthplace, family) ``permanent``; dated things ``ephemeral``;
anything said with a cue of change ``correction``; the rest ``durable``. This is a table of
patterns, not language understanding: it catches the common phrasings and misses the rest, which a
real model handles.
"""

from functools import partial

from . import corrections as _corrections
from .changes import retire as retire_line
from .core import MEMORY, SAID, SOUL, USER, Canon, Fact
from .extract import extract_facts, leaves_unsure
from .person import first_person, third_person
from .templates import (
    attribute,
    canon,
    dated,
    is_canonical,
    is_suspicious_rule,
    names_database,
    normalize,
    strip_instead,
    value_words,
)

# a swapped line must stay in a template the engine knows (``templates`` reads every kind, so the
# check is handed in rather than imported by ``corrections``)
resolve_correction = partial(_corrections.resolve, canonical=is_canonical)
resolve_corrections = partial(_corrections.resolve_all, canonical=is_canonical)

__all__ = [
    "Fact",
    "Canon",
    "USER",
    "SOUL",
    "MEMORY",
    "SAID",
    "extract_facts",
    "leaves_unsure",
    "canon",
    "third_person",
    "first_person",
    "normalize",
    "is_suspicious_rule",
    "strip_instead",
    "dated",
    "is_canonical",
    "attribute",
    "value_words",
    "names_database",
    "resolve_correction",
    "resolve_corrections",
    "retire_line",
]
