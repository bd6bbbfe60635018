"""Precision and recall of the offline engine on the hand-written corpus (tests/offline_corpus.py).

    .venv/bin/python -m bench offline_corpus

Then the same engine on speech nobody here wrote: hand-labelled first-person turns of the LoCoMo
development conversations (labels in tests/data/locomo_labels.tsv, the text read from
shared/data/locomo/): the tuning set (conv-26, conv-30, conv-41: ``tune``, ``tune2``; conv-42,
conv-43: ``heldout`` to ``heldout4``; conv-26, conv-30, conv-41: ``heldout5``; each opened for
tuning after its first-run figures were recorded in BENCHMARKS.md) and the frozen held-out set
``heldout6`` (turns of conv-26, conv-30, conv-41 labelled blind to the engine; a split with no
labelled rows yet is reported and skipped).
Only the tuning set's misses and wrong lines are listed; the held-out split prints counts
(``--show-heldout`` lists them too; ``--no-heldout`` skips it).

Each sentence goes through the engine's real path (packaged prompts, Dream's analysis and edit turn
on the template files), once as it sits in history and once after the archive step. Precision: the
share of fact lines written (both corpora) that the corpus expects or allows; recall: the share of
positive phrasings whose fact landed in its file. The misses and any wrong fact are listed below the
table."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _corpus():
    spec = importlib.util.spec_from_file_location(
        "offline_corpus", ROOT / "tests" / "offline_corpus.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["offline_corpus"] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    corpus = _corpus()
    positives, negatives = corpus.positive_cases(), corpus.negative_cases()
    facts = len({c.expected for c in positives})
    print(
        f"corpus: {len(positives)} phrasings of {facts} facts, {len(negatives)} sentences that "
        "state none\n"
    )
    held = (
        corpus.positive_cases(corpus.HELDOUT_POSITIVE),
        corpus.negative_cases(corpus.HELDOUT_NEGATIVE),
    )
    print(
        f"held-out set (written after the rules, see tests/offline_corpus.py): {len(held[0])} "
        "phrasings, "
        f"{len(held[1])} sentences that state none\n"
    )
    print(
        "| corpus | path | facts written | wrong facts | precision | recall (positive) | "
        "negatives with a wrong fact "
        "| time |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    details = []
    for heldout, (_pos, neg) in ((False, (positives, negatives)), (True, held)):
        name = "held-out" if heldout else "main"
        for path in ("history", "archive"):
            t0 = time.perf_counter()
            s = corpus.score((path,), heldout=heldout)
            took = time.perf_counter() - t0
            neg_wrong = sum(1 for w in s.wrongs if w[1] in {c.sentence for c in neg})
            print(
                f"| {name} | {path} | {s.written} | {s.wrong} | {s.precision:.1%} | {s.recall:.1%} "
                f"({s.learned}/{s.positives}) | {neg_wrong}/{len(neg)} | {took:.2f} s |"
            )
            details += [f"- {name}, {path}: missed: {m[1]}" for m in s.misses]
            details += [f"- {name}, {path}: WRONG: {w[1]} → {w[2]}" for w in s.wrongs]
    if details:
        print("\n" + "\n".join(details))
    locomo(corpus, show_heldout="--show-heldout" in sys.argv)


def locomo(corpus, *, show_heldout: bool = False) -> None:
    if corpus.locomo_data() is None:
        print("\nLoCoMo: shared/data/locomo/locomo-dev.json not found; skipped")
        return
    print(
        "\n| LoCoMo turns | path | turns | fact turns | lines written | wrong lines | precision | "
        "recall | time |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    details = []
    held_out = ("heldout6",)
    tuning = ("tune", "tune2", "heldout", "heldout2", "heldout3", "heldout4", "heldout5")
    splits = tuning if "--no-heldout" in sys.argv else (*tuning, *held_out)
    for split in splits:
        turns = corpus.locomo_turns(split)
        if not turns:
            print(f"| {split} | – | 0 | – | – | – | – | no labelled turns yet | – |")
            continue
        for path in ("history", "archive"):
            t0 = time.perf_counter()
            s = corpus.score_turns(turns, path)
            took = time.perf_counter() - t0
            print(
                f"| {split} | {path} | {s.turns} | {s.positives} | {s.written} | {s.wrong} | "
                f"{s.precision:.1%} "
                f"| {s.recall:.1%} ({s.learned}/{s.positives}) | {took:.2f} s |"
            )
            if split not in held_out or show_heldout:
                details += [
                    f"- {split}, {path}: missed {m[0]}: {m[1][:100]} → {m[2]}" for m in s.misses
                ]
                details += [
                    f"- {split}, {path}: WRONG {w[0]}: {w[1][:100]} → {w[2]}" for w in s.wrongs
                ]
    if details:
        print("\n" + "\n".join(details))


if __name__ == "__main__":
    main()
