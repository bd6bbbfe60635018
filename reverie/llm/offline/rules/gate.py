"""A cheap gate before each rule's pattern: the literal words a match cannot do without.

Compiling the rules' ~330 patterns (106,000 characters) took most of the engine's import (about
2 s on this machine), and running every one of them over every clause most of its work. A pattern
is compiled only when first needed, and tried on a clause only when one of its *required literals*
is in the clause's lower-cased text: a match of ``\\bi (?:don't|do not) like …`` needs "i don't"
or "i do not" somewhere, so a clause with neither is skipped without running the pattern.

The literals are read from the pattern's parse tree (``re._parser``): a run of literal
characters every match contains; an alternation gives one literal per branch (all or nothing); an
optional part, a character class or a negative lookaround gives none. The gate is a necessary
condition, never a guess: for any text a pattern matches, one of its literals is in the text, in
lower case. Text that is not ASCII is gated too, read by ``fold``: under ``re.I`` exactly four
characters beyond ASCII match an ASCII letter ("İ" and "ı" match "i", "ſ" matches "s", the
Kelvin sign matches "k"), so they are read as that letter; a constraint with a literal beyond
ASCII ("fiancé") is taken as met in such text, since case folding there is more than
``str.lower``. A message naming "Tomás" or "Gdańsk" used to run (and compile) every rule.

Parsing costs about 40 % of compiling, so the literals of the shipped rules are read from a table
(``data/gates.json``, keyed by a digest of each pattern and its flags) written by
``python -m reverie.llm.offline gates``; a pattern missing from it (a rule edited since) is parsed
on first use instead, so a stale table is slower, never wrong. ``tests/test_offline_gates.py``
checks that the table is current and that the gate changes no fact on every corpus.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import cache
from pathlib import Path
from typing import Any

try:  # CPython's own parser of patterns (3.11+); without it no rule is gated, none is lost
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python
    c = _parser = None

__all__ = ["literals", "required", "Index", "fold", "key", "table", "write_table", "TABLE", "Gate"]

log = logging.getLogger(__name__)

TABLE = Path(__file__).resolve().parent.parent / "data" / "gates.json"

#: One constraint: one of these strings must be in the lower-cased text.
Literals = tuple[str, ...] | None
#: A gate: every constraint must hold (none: always tried).
Gate = tuple[tuple[str, ...], ...]

_REPEATS = (
    {c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)} if c else set()
)


def key(source: str, flags: int) -> str:
    """The table's key for one pattern: a digest of its flags and its text."""
    return hashlib.sha1(f"{flags}\0{source}".encode()).hexdigest()[:20]


def literals(source: str, flags: int) -> Gate:
    """The required literals of one pattern, read from its parse tree (lower-cased): the
    constraints of its top-level sequence, each a set of strings one of which must occur."""
    if _parser is None:
        return ()
    try:
        tree = _parser.parse(source, flags)
    except Exception:  # a pattern this reader cannot walk: no gate, never a wrong one
        return ()
    needs = {tuple(sorted(n)) for n in _needs(list(tree)) if n and all(n)}
    # the most selective first, so a clause that fails is told at once
    return tuple(sorted(needs, key=lambda n: (-min(len(s) for s in n), len(n), n)))


def _needs(items: list[tuple[Any, Any]]) -> list[frozenset[str]]:
    """Every constraint a sequence of parse items puts on the text: each a set of strings of
    which one must occur."""
    out: list[frozenset[str]] = []
    run: list[str] = []

    def close() -> None:
        if run:
            out.append(frozenset({"".join(run).lower()}))
            run.clear()

    for op, arg in items:
        if op is c.LITERAL:
            run.append(chr(arg))
            continue
        close()
        need = _need(op, arg)
        if need:
            out.append(need)
    close()
    return out


def _need(op: Any, arg: Any) -> frozenset[str] | None:
    """The constraint one parse item puts on the text, if any."""
    if op is c.SUBPATTERN:
        return _as_set(_best(_needs(list(arg[-1]))))
    if op is c.ATOMIC_GROUP:
        return _as_set(_best(_needs(list(arg))))
    if op in _REPEATS:
        low, _high, body = arg
        return _as_set(_best(_needs(list(body)))) if low >= 1 else None
    if op is c.ASSERT:  # a positive lookahead or lookbehind: its text is in the text too
        return _as_set(_best(_needs(list(arg[1]))))
    if op is c.BRANCH:
        branches = [_best(_needs(list(b))) for b in arg[1]]
        if any(b is None for b in branches):
            return None
        return frozenset(s for b in branches if b for s in b)
    return None  # a class, any character, an anchor, a negative lookaround, a back reference


def _as_set(found: Literals) -> frozenset[str] | None:
    return frozenset(found) if found else None


def _best(needs: list[frozenset[str]]) -> Literals:
    """Of several constraints that all hold, the most selective: its shortest string longest."""
    needs = [n for n in needs if n and all(n)]
    if not needs:
        return None
    best = max(needs, key=lambda n: (min(len(s) for s in n), -len(n)))
    return tuple(sorted(best))


@cache
def table() -> dict[str, Gate]:
    """The shipped table (empty when it cannot be read: every gate is then parsed on first use)."""
    try:
        raw = json.loads(TABLE.read_text(encoding="utf-8"))
        return {k: tuple(tuple(str(s) for s in n) for n in v) for k, v in raw["gates"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        log.warning("offline engine: cannot read %s (%s); gates are parsed on first use", TABLE, e)
        return {}


def required(source: str, flags: int) -> Gate:
    """The gate of one pattern: from the table, else parsed."""
    found = table().get(key(source, flags))
    return literals(source, flags) if found is None else found


#: The characters beyond ASCII that ``re.I`` matches to an ASCII letter (checked over every code
#: point by ``tests/test_offline_gates.py``), read as that letter.
_TO_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def fold(text: str) -> str:
    """The text as the gates read it: lower case, with the four characters beyond ASCII that match
    an ASCII letter under ``re.I`` read as that letter (one character each, so a literal's run is
    kept)."""
    return text.lower() if text.isascii() else text.translate(_TO_ASCII).lower()


class Index:
    """The gates of a list of rules, read together: each distinct literal is looked for once per
    text, then a rule passes when every constraint of its gate has a literal present (a set
    inclusion). Checking each rule's gate on its own cost as much as running its pattern.

    The literals (about 2,600) are keyed by their first ``_KEY`` characters: a literal can only be
    in a text that holds its key, so a text is read once for its own keys and only the literals
    under them are looked for (a few dozen substring tests instead of one per literal; testing
    every literal took 2 ms a clause, more than the rules it saved). Shorter literals are looked
    for every time. The result is the same as testing every literal
    (``tests/test_offline_gates.py``)."""

    def __init__(self, gates: list[Gate]) -> None:
        ids: dict[tuple[str, ...], int] = {}
        by_literal: dict[str, set[int]] = {}
        self.needs: list[frozenset[int]] = []
        for gate in gates:
            cids = []
            for need in gate:
                cid = ids.setdefault(need, len(ids))
                for s in need:
                    by_literal.setdefault(s, set()).add(cid)
                cids.append(cid)
            self.needs.append(frozenset(cids))
        self.literals = [(s, frozenset(c)) for s, c in sorted(by_literal.items())]
        self._short = [(s, c) for s, c in self.literals if len(s) < _KEY]
        self._keyed: dict[str, list[tuple[str, frozenset[int]]]] = {}
        for s, c in self.literals:
            if len(s) >= _KEY:
                self._keyed.setdefault(s[:_KEY], []).append((s, c))
        self._keys = frozenset(self._keyed)
        # constraints a text beyond ASCII meets unread: a literal of theirs is beyond ASCII too
        self.beyond_ascii = frozenset(
            cid for need, cid in ids.items() if not all(s.isascii() for s in need)
        )

    def passing(self, folded: str) -> list[bool]:
        """For each rule, whether its pattern may match the text read by ``fold``."""
        met: set[int] = set() if folded.isascii() else set(self.beyond_ascii)
        for s, cids in self._short:
            if s in folded:
                met |= cids
        keyed = self._keyed
        keys = {folded[i : i + _KEY] for i in range(len(folded) - _KEY + 1)}
        for k in keys & self._keys:  # two sets: read over the smaller
            for s, cids in keyed[k]:
                if s in folded:
                    met |= cids
        return [need <= met for need in self.needs]


#: How many leading characters key a literal in ``Index``.
_KEY = 3


def write_table(patterns: list[tuple[str, int]]) -> int:
    """Write the table for these patterns (atomically); the count of patterns written."""
    from ....storage.fsutil import atomic_write

    gates = {key(s, f): [list(n) for n in literals(s, f)] for s, f in patterns}
    # one pattern a line, so a rule's edit is a line of the diff
    rows = ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(gates.items()))
    about = json.dumps("required literals of the offline rules' patterns (rules/gate.py)")
    atomic_write(TABLE, f'{{"about": {about},\n"gates": {{\n{rows}\n}}}}\n')
    table.cache_clear()
    return len(gates)
