"""The rules' gates (``reverie/llm/offline/rules/gate.py``): a rule's pattern is compiled on first
use and tried on a clause only when the literals a match needs are in it. The gate must change no
fact: it is a necessary condition read from the pattern's parse tree, checked here on every corpus
the engine is measured on (one sentence in three, to keep the file to seconds) and on patterns
built for the parts a reader could get wrong (alternations, optional parts, lookarounds, classes).
"""

from __future__ import annotations

import json
import logging
import re
import string
import subprocess
import sys
from functools import cache
from pathlib import Path

import offline_corpus as oc
import offline_statements as st
import pytest

from reverie.llm.offline.rules import extract as ex
from reverie.llm.offline.rules import gate
from reverie.llm.offline.rules.clauses import message_clauses


def test_the_shipped_table_is_current() -> None:
    """``python -m reverie.llm.offline gates`` after editing a rule (a stale table is only slower:
    its missing patterns are parsed on first use)."""
    shipped = gate.table()
    stale = [r.source[:60] for r in ex.RULES if shipped.get(gate.key(r.source, r.flags)) is None]
    assert not stale, f"run `python -m reverie.llm.offline gates`: {stale[:3]}"
    for r in ex.RULES:
        assert shipped[gate.key(r.source, r.flags)] == gate.literals(r.source, r.flags)


def _texts() -> list[str]:
    texts = [t for w in st.TUNING for i in st.items(w) for t in i.turns]
    for block in (oc.POSITIVE, oc.NEGATIVE, oc.HELDOUT_POSITIVE, oc.HELDOUT_NEGATIVE, oc.FRAMED):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                texts.append(line.split(" | ")[0].split(": ", 1)[-1])
    return texts[::3]


@cache
def _clauses() -> frozenset[str]:
    """The clauses of ``_texts``, split once for the tests that read them (2.5 s of CPU)."""
    return frozenset(c.text for t in _texts() for c in message_clauses(t))


def test_the_gate_changes_no_fact_on_any_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    assert len(texts) > 1000
    gated = [[f.text for f in ex.extract_facts(t, st.SAID_ON)] for t in texts]
    monkeypatch.setattr(ex, "GATED", False)
    every = [[f.text for f in ex.extract_facts(t, st.SAID_ON)] for t in texts]
    assert [t for t, a, b in zip(texts, gated, every) if a != b] == []
    assert sum(map(len, gated)) > 300  # the corpora give facts: the comparison is not empty


@pytest.mark.parametrize(
    ("pattern", "matching", "refused"),
    [
        # an alternation: one of its branches' literals ("i do" + "n't" or " not")
        (r"\bi (?:don't|do not) like (?P<v>\w+)", "I do not like tea", "I never like tea"),
        # optional parts give nothing, required ones all count
        (r"(?:my )?dog (?:is )?named \w+", "dog named Rex", "my dog is called Rex"),
        # a positive lookahead's text is in the text too
        (r"\bmoved(?= to)", "we moved to Leeds", "we moved in"),
        # a branch whose literals differ: either will do
        (r"\b(?:a|b)c|d", "d", "ab"),
        # a negative lookahead and an optional part give nothing
        (r"x(?!yz)y?[a-z]+", "xq", "yq"),
        (r"(?:ab){2,}c", "ababc", "abab"),
        # a part under (?-i:…) is still gated in lower case: the gate only ever lets more through
        (r"(?-i:[A-Z])\w+ is my (?:team|club)", "Spurs is my team", "Spurs is my dog"),
    ],
)
def test_literals_read_from_the_parse_tree(pattern: str, matching: str, refused: str) -> None:
    index = gate.Index([gate.literals(pattern, re.I)])
    assert re.search(pattern, matching, re.I)
    assert index.passing(matching.lower()) == [True]
    assert not re.search(pattern, refused, re.I)
    assert index.passing(refused.lower()) == [False]


def test_a_pattern_with_no_required_literal_has_no_gate() -> None:
    assert gate.literals(r"[a-z]+\d?", re.I) == ()
    assert gate.Index([()]).passing("anything") == [True]


def test_every_rule_s_gate_lets_its_own_matches_through() -> None:
    """For each rule, the clauses of the corpora it matches pass its gate (a gate that refused one
    would lose a fact silently)."""
    index = gate.Index([r.gate for r in ex.RULES])
    clauses = _clauses()
    assert any(not c.isascii() for c in clauses)
    for text in clauses:
        allowed = index.passing(gate.fold(text))
        for n, r in enumerate(ex.RULES):
            if not allowed[n]:
                assert not r.pattern.search(text), (r.source[:80], text)


def test_the_fold_reads_every_character_re_i_matches_to_an_ascii_letter() -> None:
    """Over every code point beyond ASCII: those ``re.I`` matches to an ASCII letter are exactly the
    ones ``fold`` reads as that letter, and no other one folds to ASCII."""
    # One search per letter over a string of them all: a one-letter pattern matches one code point
    # at a time, so each match is a code point it fullmatches (29 million fullmatch calls took 11 s
    # of CPU; this, half a second).
    beyond = "".join(map(chr, range(128, sys.maxunicode + 1)))
    matched = {}
    for letter in string.ascii_lowercase:
        for m in re.finditer(letter, beyond, re.I):
            matched[m.group()] = letter
    assert matched  # "İ", "ı", "ſ", the Kelvin sign, on this Python
    folded = {chr(c): gate.fold(chr(c)) for c in range(128, sys.maxunicode + 1)}
    assert {
        ch: f for ch, f in folded.items() if f.isascii() and f.strip(string.ascii_lowercase) == ""
    } == matched


@pytest.mark.parametrize(
    "message",
    [
        "İ live in Berlin and I work at Siemens",  # a dotted capital I for "I"
        "I live in Gdańsk and my dog is named Reks",
        "My manager is Tomás, I work at Globex",
        "My fiancé is named Luc",  # a literal beyond ASCII in the rule's own gate
        "I'm from Zürich, I work as a nurse",
        "Call me \u212aate, I live in Porto",  # the Kelvin sign
    ],
)
def test_a_message_beyond_ascii_is_gated_and_gives_the_same_facts(
    message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = gate.Index([r.gate for r in ex.RULES])
    passing = [c for c in message_clauses(message) for ok in index.passing(gate.fold(c.text)) if ok]
    assert len(passing) < len(ex.RULES) // 3  # not every rule, as before the fold
    gated = [f.text for f in ex.extract_facts(message, st.SAID_ON)]
    monkeypatch.setattr(ex, "GATED", False)
    assert [f.text for f in ex.extract_facts(message, st.SAID_ON)] == gated


def test_a_missing_or_broken_table_is_slower_never_wrong(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "gates.json"
    broken.write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(gate, "TABLE", broken)
    gate.table.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger=gate.__name__):
            assert gate.table() == {}
        assert "cannot read" in caplog.text
        r = ex.RULES[0]
        assert gate.required(r.source, r.flags) == gate.literals(r.source, r.flags)
    finally:
        gate.table.cache_clear()


def test_importing_the_engine_compiles_no_rule() -> None:
    code = (
        "from reverie.llm.offline.rules import extract as e; "
        "print(sum('pattern' in r.__dict__ for r in e.RULES), len(e.RULES))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    compiled, total = map(int, out.stdout.split())
    assert compiled == 0 and total > 300


def test_importing_the_engine_compiles_almost_none_of_its_patterns() -> None:
    """The engine's modules define some 330 helper patterns at their top level besides the rules;
    each is compiled on first use (``reverie.text.lazyre``), so importing the engine compiles
    only what its own import uses (main compiled about 430 there). Counted by source, whatever
    compiles them: a module-level ``re.compile`` added back is seen."""
    code = """
import re, sys
seen = set()
real = re._compile
def counting(pattern, flags):
    if isinstance(pattern, str) and (pattern, flags) not in seen:
        caller = sys._getframe(1)
        while caller.f_code.co_filename.endswith(("re/__init__.py", "lazyre.py")):
            caller = caller.f_back
        if "/llm/offline/" in caller.f_code.co_filename.replace("\\\\", "/"):
            seen.add((pattern, flags))
    return real(pattern, flags)
re._compile = counting
import reverie.llm.offline.engine
print(len(seen))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) <= 5, (
        "a pattern compiled at import: write lazy(...) (lazyre), not re.compile"
    )


def test_a_lazy_pattern_is_the_pattern_it_stands_for() -> None:
    from reverie.text.lazyre import LazyPattern, lazy

    source = r"\b(?P<w>m[ae]ow)s?\b"
    p = lazy(source, re.I)
    assert isinstance(p, LazyPattern) and "_rx" not in vars(p)  # not compiled yet
    assert p.pattern == source and f"({p.pattern})" == f"({source})"  # no compile for its source
    real = re.compile(source, re.I)
    text = "Meows and a MAOW, then meow."
    assert p.search(text).group("w") == real.search(text).group("w")  # type: ignore[union-attr]
    assert [m.span() for m in p.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert p.sub("x", text) == real.sub("x", text) and p.split(text) == real.split(text)
    assert p.flags == real.flags and p.groupindex == real.groupindex
    assert vars(p)["_rx"] is p.compiled  # compiled once, then its own
    assert p.fullmatch("meow") and not p.match("a meow")


def test_the_table_is_json_of_strings() -> None:
    raw = json.loads(gate.TABLE.read_text(encoding="utf-8"))
    assert all(isinstance(s, str) for g in raw["gates"].values() for need in g for s in need)


def _every_literal_tested(index: gate.Index, folded: str) -> list[bool]:
    """``Index.passing`` as it read before its literals were keyed: each literal looked for."""
    met: set[int] = set() if folded.isascii() else set(index.beyond_ascii)
    for s, cids in index.literals:
        if s in folded:
            met |= cids
    return [need <= met for need in index.needs]


def test_the_keyed_index_passes_what_testing_every_literal_passes() -> None:
    """The index looks for a literal only in a text holding its first characters: on every clause
    of the corpora, on their ends and starts cut short, and on texts shorter than a key, the same
    rules pass as when every literal is looked for."""
    index = gate.Index([r.gate for r in ex.RULES])
    clauses = sorted({gate.fold(c) for c in _clauses()})
    cut = clauses[:: max(1, len(clauses) // 300)]  # ends and starts of 300 of them
    texts = set(clauses) | {t[-k:] for t in cut for k in (1, 2, 3, 4, 9)} | {t[:5] for t in cut}
    texts |= {"", "i", "my", "i'm", "we", "i live", "ı", "zürich"}
    for text in texts:
        assert index.passing(text) == _every_literal_tested(index, text), text
