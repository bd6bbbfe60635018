"""Why the offline engine missed each expected fact of the plain-statement splits (issue 36): the
real clause stage traced, clause by clause, to the stage that refused.

    .venv/bin/python -m bench.offline_why_missed A B C [--list] [--json PATH] [--from SHOW.txt]

``--from`` reads the missed facts and wrong lines from a saved ``bench.offline_statements --show``
run instead of running every item's Dreams again (the trace itself is cheap).

Each missed fact (``tests/offline_statements.py``'s judge) is located in its item's turns by the
clause that shares most of its content words, and that clause is followed through the real path
(``extract.extract_facts``'s stages, called one by one):

- ``a:…`` no clause reached a rule: the message dropped (sarcasm), the sentence framed
  (``framing``), code, or the clause refused as no statement (the word that refused it: a
  question, a hedge, a hypothetical, a report, a joke);
- ``b`` the clause reached the rules and no rule matched it, nor did ``statements`` keep it;
- ``c`` a rule matched and every value it read was refused (a gate or a kind check);
- ``d`` the fact's words are spread over two clauses (a value cut at a clause boundary), or a
  line was written from the clause and the judge found it unlike (``d/e``: read by hand);
- ``f`` the clause gave a fact that no line of the run states (lost downstream: a slot already
  filled, the Dream's lifecycle);
- ``?`` no clause shares a content word with the fact (the writer's paraphrase).

``--list`` prints every miss with its cause and clause; the counts are always printed.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from functools import cache

from bench.offline_statements import _statements as _load
from reverie.llm.offline.framing import framed
from reverie.llm.offline.rules import clauses as cl
from reverie.llm.offline.rules import extract as ex
from reverie.llm.offline.rules import statements
from reverie.llm.offline.rules.shorthand import spelled
from reverie.llm.offline.rules.templates import canon

_statements = cache(_load)

_STOP = frozenset(
    "a an the and or of to in on at for with by from is are am was be been user user's users "
    "their they them his her he she it its i my me we our us that this as has have had not no "
    "likes like loves prefers works lives wants uses is a who which".split()
)


def _words(text: str) -> set[str]:
    return {
        w[:5] for w in re.findall(r"[a-z0-9][a-z0-9'+#.-]*", text.lower()) if w not in _STOP
    } - {""}


@dataclass
class Trace:
    clause: str
    sentence: str
    stage: str  # the cause code
    detail: str = ""


def refusal(text: str) -> str:
    """The check of ``clauses.statement`` that refuses ``text``, with the words that did."""
    checks = [
        ("question", re.compile(r"\?\s*$")),
        ("question", cl._QUESTION_START),
        ("other-speaker", cl._OTHER_SPEAKER),
        ("sarcasm", cl.SARCASM),
        ("laugh", cl.LAUGH),
        ("code", cl.CODE),
        ("ironic", cl._IRONIC),
        ("hedge", cl._HEDGE),
        ("hypothetical", cl._HYPOTHETICAL),
        ("reported", cl._REPORTED),
    ]
    for name, rx in checks:
        m = rx.search(text)
        if m:
            return f"{name}:{m.group(0).strip()[:20]!r}"
    return "prepare"


def _clause_records(message: str) -> list[tuple[str, str, str, cl.Clause | None]]:
    """(sentence, raw clause, stage, prepared clause) for every clause of the message."""
    if cl.SARCASM.search(message):
        m = cl.SARCASM.search(message)
        assert m
        return [(message, message, f"a:sarcasm-message:{m.group(0)!r}", None)]
    message = cl.laughter_attached(message)
    sentences = cl.sentences_of(spelled(message))
    out = []
    for sentence, in_frame in zip(sentences, framed(sentences)):
        for i, clause in enumerate(cl.clauses(sentence)):
            if in_frame:
                out.append((sentence, clause, "a:frame", None))
                continue
            if cl.CODE.search(clause):
                out.append((sentence, clause, "a:code", None))
                continue
            prepared = cl._prepare(clause, opens=i == 0)
            if prepared is None or prepared.ends_only or prepared.presupposed_only:
                head = cl.unsunk_head(clause)
                unsunk = cl._prepare(head, opens=i == 0) if head else None
                if unsunk is not None and not (unsunk.ends_only or unsunk.presupposed_only):
                    prepared = unsunk
            if prepared is None:
                out.append((sentence, clause, "a:" + refusal(cl.first_person(clause)), None))
            else:
                out.append((sentence, clause, "reached", prepared))
    return out


_FILE = {"USER": "USER.md", "SOUL": "SOUL.md", "MEMORY": "memory/MEMORY.md"}
_PARTS = re.compile(r"\s*[,;:()]\s*|\s+(?:and|but|so|because|though)\s+|\s+[-–—]\s+", re.I)


def states(text: str, rel: str, fact: str) -> bool:
    """Some fact ``extract_facts`` reads from ``text`` states ``fact`` (the judge's ``matches``)."""
    st = _statements()
    return any(
        st.matches(_FILE[canon(f.text).target], f.text, rel, fact) for f in ex.extract_facts(text)
    )


def part_states(clause: str, rel: str, fact: str) -> str:
    """A part of the clause (cut at a comma, a colon, a bracket, a conjunction, a dash) that alone
    gives the fact: the clause stage kept it joined to words that hid it. "" when none does."""
    parts = [p for p in _PARTS.split(clause) if p and len(p.split()) >= 1]
    if len(parts) < 2:
        return ""
    for n in range(len(parts)):
        for k in (1, 2):
            piece = " ".join(parts[n : n + k])
            if k == 2 and n + k > len(parts):
                continue
            if states(piece, rel, fact):
                return piece
    return ""


def trace(
    fact: str, turns: tuple[str, ...], lines: list[str], wrong: list[str], rel: str = "USER.md"
) -> Trace:
    want = _words(fact)
    records = [r for turn in turns for r in _clause_records(turn)]
    if not records or not want:
        return Trace("", "", "?")
    scored = [(len(want & _words(r[1])), n) for n, r in enumerate(records)]
    best, n = max(scored)
    if best == 0:
        return Trace("", "", "?")
    sentence, clause, stage, prepared = records[n]
    spread = {m for s, m in scored if s and m != n and records[m][0] == sentence}
    union = set().union(*(_words(records[m][1]) for m in spread)) if spread else set()
    cut = bool(spread) and len(want & (_words(clause) | union)) > best and best < len(want)
    for w in wrong:
        if len(want & _words(w)) >= max(1, min(2, len(want))):
            return Trace(clause, sentence, "d/e:written-unlike", w)
    if prepared is None or (stage == "reached" and not prepared.text):
        if states(clause, rel, fact):
            return Trace(clause, sentence, stage + " [alone: gives it]")
        piece = part_states(clause, rel, fact)
        if piece:
            return Trace(clause, sentence, stage + " [a part gives it]", piece)
        return Trace(clause, sentence, stage + (" (cut)" if cut else ""))
    flags = [
        k
        for k in ("ends_only", "presupposed_only", "polite", "frequency", "passing")
        if getattr(prepared, k)
    ]
    found = ex._Found()
    read, tried = ex._read(prepared, None, found)
    said = [t for t, _ in statements.lines(prepared)] if not tried else []
    detail = f"text={prepared.text!r} flags={flags} facts={[f.text for f in found.facts]} "
    detail += f"stmt={said}"
    st = _statements()
    if read:
        hit = any(st.matches(_FILE[canon(f.text).target], f.text, rel, fact) for f in found.facts)
        if hit:
            return Trace(clause, sentence, "f:lost", detail)
        piece = part_states(prepared.text, rel, fact)
        if piece:
            return Trace(clause, sentence, "d:split [read another; a part gives it]", piece)
        return Trace(clause, sentence, "d/e:read-other", detail)
    piece = part_states(prepared.text, rel, fact)
    if piece:
        return Trace(clause, sentence, "d:split [a part gives it]", piece + " || " + detail)
    if cut:
        return Trace(clause, sentence, "d:cut", detail)
    if flags and any(f in flags for f in ("passing", "ends_only", "presupposed_only")):
        return Trace(clause, sentence, "a:flag-" + flags[0], detail)
    if tried:
        return Trace(clause, sentence, "c:refused", detail)
    return Trace(clause, sentence, "b:no-rule", detail)


_SHOWN = re.compile(r"^- (?P<id>\S+) (?P<what>WRONG|STALE|missed) (?P<rel>[^:]+): (?P<text>.*)$")


def _from_show(
    path: str, writers: list[str]
) -> list[tuple[object, str, str, list[str], list[str]]]:
    """(item, file, fact, lines, wrong lines) of every miss a saved ``--show`` run lists; the lines
    written are the facts ``extract_facts`` reads from the item's turns (no Dream run)."""
    st = _statements()
    by_id = {i.id: i for w in writers for i in st.items(w)}
    wrong: dict[str, list[str]] = {}
    missed: list[tuple[str, str, str]] = []
    with open(path, encoding="utf-8") as fh:
        for row in fh:
            m = _SHOWN.match(row.rstrip("\n"))
            if not m or m.group("id") not in by_id:
                continue
            if m.group("what") == "missed":
                missed.append((m.group("id"), m.group("rel"), m.group("text")))
            else:
                wrong.setdefault(m.group("id"), []).append(m.group("text"))
    out = []
    for item_id, rel, fact in missed:
        item = by_id[item_id]
        lines = [f.text for t in item.turns for f in ex.extract_facts(t)]
        out.append((item, rel, fact, lines, wrong.get(item_id, [])))
    return out


def _from_runs(writers: list[str]) -> list[tuple[object, str, str, list[str], list[str]]]:
    st = _statements()
    out = []
    for writer in writers:
        s = st.score(writer)
        for i in s.items:
            lines = [ln for _, ln in i.lines]
            wrong = [ln for _, ln in i.wrong]
            out += [(i.item, rel, fact, lines, wrong) for rel, fact in i.missed]
    return out


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    st = _statements()
    out_json = args[args.index("--json") + 1] if "--json" in args else None
    src = args[args.index("--from") + 1] if "--from" in args else None
    writers = [a for a in args if not a.startswith("-") and a not in (out_json, src)] or list(
        st.TUNING
    )
    misses = _from_show(src, writers) if src else _from_runs(writers)
    rows = []
    for item, rel, fact, lines, wrong in misses:
        t = trace(fact, item.turns, lines, wrong, rel)  # type: ignore[attr-defined]
        rows.append(
            {
                "id": item.id,  # type: ignore[attr-defined]
                "file": rel,
                "fact": fact,
                "cause": t.stage,
                "clause": t.clause,
                "detail": t.detail,
                "turns": list(item.turns),  # type: ignore[attr-defined]
                "wrong": wrong,
            }
        )
    counts = Counter(r["cause"].split(":")[0] for r in rows)
    fine = Counter(r["cause"].split(" (")[0] for r in rows)
    print(f"missed facts: {len(rows)}")
    for k, v in counts.most_common():
        print(f"  {k}: {v}")
    print("by stage:")
    for k, v in fine.most_common():
        print(f"  {v:4d} {k}")
    if "--list" in args:
        for r in rows:
            print(f"- {r['id']} [{r['cause']}] {r['fact']} | clause: {r['clause']!r} {r['detail']}")
    if out_json:
        with open(out_json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
