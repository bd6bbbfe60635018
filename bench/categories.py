"""The category bridge (``reverie.recall.categories``) measured on questions it did not see:
LoCoMo's questions that name a category of fact ("What pets does Melanie have?", "What is Caroline's
job?").

The lexicon was written before this benchmark read a LoCoMo question, and is not tuned on it. Each
conversation becomes a workspace of its sessions (``bench/recall.py``'s ``build_workspace``); every
question with evidence that names a category is a query. Evidence recall R@k (the share of its
evidence turns among the top k), two ways, as ``Memory.search`` ranks:

- ``query``: Recall's hits of the question alone (what search did before the bridge);
- ``bridged``: ``with_categories`` as ``Memory.search`` uses it: the question's hits in Recall's
  order, then the category's hits (additive: they fill in where the question's own words find
  little);
- ``re-sorted``: the design first tried, and measured worse here: the same pool ordered by the
  category-aware score (``categories.score``), Recall's order among equals.

The figures the docs quote are ``bridged`` against ``query`` (no loss), and the hits each adds where
the question shares no word with memory: the mem0 flow's case, which LoCoMo's questions rarely are.

Usage::

    python bench/categories.py [--split dev|heldout|all] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall import DEFAULT_DATA, SPLITS, build_workspace, evidence_ids  # noqa: E402

from reverie.recall import Recall  # noqa: E402
from reverie.recall.categories import categories_named, score, with_categories  # noqa: E402
from reverie.storage.config import Config  # noqa: E402

KS = (5, 10)


def run_locomo(split: str) -> None:
    samples = [
        s for s in orjson.loads(DEFAULT_DATA.read_bytes()) if s["sample_id"] in SPLITS[split]
    ]
    rows: dict[str, list[list[float]]] = {"query": [], "bridged": [], "re-sorted": []}
    named_seen: Counter[str] = Counter()
    asked = 0
    for sample in samples:
        with tempfile.TemporaryDirectory() as tmp:
            ws, refs, now = build_workspace(sample, Path(tmp) / "ws")
            recall = Recall(ws, Config())
            recall.sync()
            for qa in sample["qa"]:
                gold = set(evidence_ids(qa))
                kinds = categories_named(qa["question"])
                if not gold:
                    continue
                asked += 1
                if not kinds:
                    continue
                named_seen.update(k.name for k in kinds)
                q = qa["question"]
                plain = recall.search(q, max(KS), now=now, sync=False)
                pool = with_categories(lambda x: recall.search(x, max(KS), now=now, sync=False), q)
                wide = with_categories(lambda x: recall.search(x, 30, now=now, sync=False), q)
                ranked = sorted(wide, key=lambda h: -score(h.snippet, q))
                for name, hits in (("query", plain), ("bridged", pool), ("re-sorted", ranked)):
                    got = [refs.get((h.source.session_key, h.source.message_index)) for h in hits]
                    rows[name].append([len(gold & set(got[:k])) / len(gold) for k in KS])
            recall.close()
    n = len(rows["query"])
    print(
        f"LoCoMo {split}: {n} of {asked} questions with evidence name a category {dict(named_seen)}"
    )
    for name, got in rows.items():
        means = [100 * sum(r[i] for r in got) / max(len(got), 1) for i in range(len(KS))]
        print(f"  {name:8s} " + "  ".join(f"R@{k} {m:5.1f}" for k, m in zip(KS, means)))


def run_facts(split: str) -> None:
    """LoCoMo's observations (facts about each speaker, each with the turn it came from) as the
    memory, remembered one per entry; the same questions. ``no shared word``: the questions none of
    whose evidence facts holds a word of the question (chosen by the text, before any search)."""
    import reverie
    from reverie.recall.rank import query_terms
    from reverie.recall.search import match

    samples = [
        s for s in orjson.loads(DEFAULT_DATA.read_bytes()) if s["sample_id"] in SPLITS[split]
    ]
    rows: dict[str, dict[str, list[float]]] = {"all": {}, "no shared word": {}}
    for sample in samples:
        with tempfile.TemporaryDirectory() as tmp, reverie.open(Path(tmp) / "ws") as memory:
            where: dict[int, str] = {}
            facts: dict[str, list[str]] = {}
            for session in sample["observation"].values():
                for said in session.values():
                    for fact, dia in said:
                        ids = [d for d in str(dia).replace(";", " ").split() if d.startswith("D")]
                        cursor = memory.remember(fact).cursor
                        for d in ids:
                            where[cursor] = d
                            facts.setdefault(d, []).append(fact)
            recall = memory.runtime.recall
            recall.sync()
            for qa in sample["qa"]:
                q = qa["question"]
                gold = {d for d in evidence_ids(qa) if d in facts}
                if not gold or not categories_named(q):
                    continue
                terms = query_terms(q)
                texts = [f for d in gold for f in facts[d]]
                groups = ["all"] + (
                    ["no shared word"] if not any(match(t, terms) for t in texts) else []
                )
                plain = recall.search(q, 10, sync=False)
                bridged = with_categories(lambda x: recall.search(x, 10, sync=False), q)
                for name, hits in (("query", plain), ("bridged", bridged)):
                    got = {where.get(h.source.cursor or -1) for h in hits[:10]}
                    for g in groups:
                        rows[g].setdefault(name, []).append(len(gold & got) / len(gold))
    for group, by in rows.items():
        n = len(by.get("query", []))
        shown = "  ".join(f"{k} R@10 {100 * sum(v) / max(len(v), 1):5.1f}" for k, v in by.items())
        print(f"LoCoMo {split} observations as memory, {group} ({n} questions): {shown}")


#: mem0's documentation's own examples (docs.mem0.ai: the Python quickstart, the add / search /
#: update pages, the 2024 quickstart): what is added, and a query the docs ask of it.
MEM0_DOCS = (
    ("Hi, I'm Alex. I love basketball and gaming.", "What do you know about me?"),
    ("Likes to play cricket on weekends", "What are Alice's hobbies?"),
    (
        "I am working on improving my tennis skills. Suggest some online courses.",
        "What are Alice's hobbies?",
    ),
    ("I like to drink coffee in the morning and go for a walk", "Should I drink coffee or tea?"),
    ("I'm not a big fan of thriller movies but I love sci-fi movies.", "food preferences"),
    ("I'm planning a trip to Tokyo next month.", "What do you know about me?"),
)


def run_mem0_docs() -> None:
    """Each of mem0's documented pairs in a fresh workspace, as a mem0 user runs it: ``add`` (Dream
    at once, the offline engine), then ``search``; found when the results hold at least 30 % of the
    added text's words (what it said, as a line Dream wrote or as history)."""
    import reverie
    from reverie.recall.rank import query_terms
    from reverie.recall.search import match

    with_bridge = alone = 0
    for text, query in MEM0_DOCS:
        with tempfile.TemporaryDirectory() as tmp, reverie.open(Path(tmp) / "ws") as memory:
            memory.add([{"role": "user", "content": text}], user_id="alice")
            point = query_terms(text)
            got = [r.memory for r in memory.search(query, user_id="alice")]
            hit = match(" ".join(got), point) >= 0.3
            plain = memory.runtime.recall.search(query, 10)
            with_bridge += hit
            alone += match(" ".join(h.snippet for h in plain), point) >= 0.3
            print(f"  {'found' if hit else 'MISSED':6s} {query!r} <- {text!r}: {got[:3]}")
    n = len(MEM0_DOCS)
    print(
        f"mem0's documented examples: {with_bridge} of {n} found ({alone} of {n} by the words "
        "alone)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--split", default="all", choices=sorted(SPLITS))
    parser.add_argument("--quick", action="store_true", help="the dev split only")
    args = parser.parse_args(argv)
    split = "dev" if args.quick else args.split
    run_locomo(split)
    run_facts(split)
    run_mem0_docs()


if __name__ == "__main__":
    main()
