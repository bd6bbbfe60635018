"""The offline engine on plain statements people tell their assistant, written blind (issue 36):
precision, recall and corrections per writer's split, through the real path (archive, Dream with
its lifecycle and archive), judged as ``tests/offline_statements.py`` says.

    .venv/bin/python -m bench.offline_statements [A B C D E F G] [--show] [--raw] [--kinds]

``--show`` lists every wrong line, stale line and missed fact (never for a held-out split unless
named on the command line); ``--raw`` scores without the verdicts read by hand
(``tests/data/statements/verdicts.tsv``), i.e. the judge's own figures; ``--kinds`` adds a
table per split of counts by the writer's kind of item (facts, learned, wrong lines, stale
items), counts only, so a validation split can say where it loses recall without anyone reading
its items.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _statements():
    spec = importlib.util.spec_from_file_location(
        "offline_statements", ROOT / "tests" / "offline_statements.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["offline_statements"] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    st = _statements()
    named = [a for a in args if not a.startswith("-")]
    writers = named or [
        w for w in (*st.TUNING, *st.HELD_OUT) if (st.DATA / f"writer-{w}.jsonl").is_file()
    ]
    print(
        "| split | items | facts | lines | wrong | stale | precision | recall | corrections: old "
        "line "
        "archived and found by why / stale | time |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    details = []
    kinds = []
    for writer in writers:
        t0 = time.perf_counter()
        s = st.score(writer, verdicts="--raw" not in args)
        took = time.perf_counter() - t0
        corr = s.corrections()
        stale_items = sum(1 for c in corr if c.stale)
        retired = sum(1 for c in corr if c.retired_archived)
        unfound = sum(len(c.archived_unfound) for c in s.items)
        print(
            f"| {writer} | {len(s.items)} | {s.facts} | {s.lines} | {s.count('wrong')} | "
            f"{s.count('stale')} | {s.precision:.1%} | {s.recall:.1%} "
            f"({s.count('learned')}/{s.facts}) | "
            f"{len(corr)} items, {retired} with the old line archived, {stale_items} with a stale "
            "line, "
            f"{unfound} archived lines why misses | "
            f"{took:.1f} s |"
        )
        if "--kinds" in args:
            kinds += _by_kind(writer, s)
        if "--show" in args and (writer in st.TUNING or writer in named):
            for i in s.items:
                details += [f"- {i.item.id} WRONG {rel}: {ln}" for rel, ln in i.wrong]
                details += [f"- {i.item.id} STALE {rel}: {ln}" for rel, ln in i.stale]
                details += [f"- {i.item.id} missed {rel}: {f}" for rel, f in i.missed]
    if kinds:
        print("\n| split | kind | items | facts | learned | missed | wrong lines | stale items |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        print("\n".join(kinds))
    if details:
        print("\n" + "\n".join(details))


def _by_kind(writer: str, s: Any) -> list[str]:
    """One row per kind of item of a split's score: counts only (no item's words)."""
    rows: dict[str, list[int]] = {}
    for i in s.items:
        row = rows.setdefault(i.item.kind, [0] * 6)
        for n, value in enumerate(
            (1, len(i.item.expect), len(i.learned), len(i.missed), len(i.wrong), int(bool(i.stale)))
        ):
            row[n] += value
    return [
        f"| {writer} | {kind} | " + " | ".join(str(v) for v in row) + " |"
        for kind, row in sorted(rows.items())
    ]


if __name__ == "__main__":
    main()
