"""Recall benchmarks: LoCoMo evidence recall (quality) and index/query speed at 100k history
entries.

Usage::

    python bench/recall.py quality [--split dev|heldout|all] \\
        [--variants "default;no-recency;default:spk=0.2"]
    python bench/recall.py speed [--history 100000] [--messages 10000]
    python bench/recall.py sync-embed [--history 2000]

Quality: each LoCoMo conversation becomes a Reverie workspace whose sessions are Reverie session
files (speaker A as ``user``, speaker B as ``assistant``, the speaker's name in the message's
``name`` field — or, for the issue-9 variants, in the text as ``Name: text`` — an image's caption
appended, session dates as message timestamps). The conversations are split once, before tuning
(``SPLITS``): ranking choices are made on ``dev``; ``heldout`` is only reported. Every question with
evidence is a query; hits map back to ``dia_id`` through (session key, message index). Evidence
recall R@k (LoCoMo paper, Table 3): per question, the fraction of its evidence turns among the top
k, averaged. The data is read where it lies, never copied.

Speed: a synthetic workspace (Zipf-distributed words; session messages carry a speaker name) with N
history entries and M session messages; full index time, query latency with the default ranking
(median and p95 of 200 queries, a mix that exercises every signal: speaker named, "when", a date),
hybrid latency with the offline ``hashembed`` model (query embedding excluded), and incremental sync
after 20 new entries against a full rebuild.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reverie.recall import Recall, search  # noqa: E402
from reverie.storage.config import Config  # noqa: E402
from reverie.storage.history import HistoryEntry  # noqa: E402
from reverie.storage.workspace import Workspace  # noqa: E402

_REPO = Path(__file__).resolve().parent.parent
#: ``../shared`` next to the checkout (main), or two levels up (a worktree under wt/).
DEFAULT_DATA = (
    next(
        (p for p in (_REPO.parent / "shared", _REPO.parent.parent / "shared") if p.is_dir()),
        _REPO.parent / "shared",
    )
    / "data"
    / "locomo"
    / "locomo-dev.json"
)
CATEGORIES = {4: "single-hop", 1: "multi-hop", 2: "temporal", 3: "open-domain", 5: "adversarial"}
KS = (5, 10, 25)

#: Splits by conversation, fixed before any tuning: ranking choices are made on ``dev`` only;
#: ``heldout`` is reported, never tuned on.
SPLITS = {"dev": ("conv-26", "conv-30", "conv-41"), "heldout": ("conv-42", "conv-43")}
SPLITS["all"] = SPLITS["dev"] + SPLITS["heldout"]


@dataclass(frozen=True)
class Variant:
    """One ranking configuration: ``memory.search`` overrides and the module constants a bench may
    vary."""

    config: dict = field(default_factory=dict)
    weights: tuple[float, float, float] = search.BM25_WEIGHTS
    when_boost: float = search.WHEN_BOOST
    speaker_boost: float = search.SPEAKER_BOOST
    neighbour_share: float = search.NEIGHBOUR_SHARE
    session_share: float = search.SESSION_SHARE
    date_boost: float = search.DATE_BOOST
    decay: bool | None = (
        None  # None: what the config says (the default config: the bounded recency nudge)
    )
    # how a turn carries its speaker: "name" (message field, indexed) or "prefix" ("Name: text")
    speaker: str = "name"
    context_cap: float = search.CONTEXT_CAP
    session_window: int = search.SESSION_WINDOW
    echo_free: bool = search.ECHO_FREE


#: The default configuration is ``default``; the rest are the measured alternatives (BENCHMARKS.md,
#: "recall").
VARIANTS: dict[str, Variant] = {
    "default": Variant(),
    "bm25-plain": Variant(
        weights=(1.0, 0.0, 0.0),
        when_boost=0.0,
        speaker_boost=0.0,
        neighbour_share=0.0,
        session_share=0.0,
        date_boost=0.0,
        decay=False,
        speaker="prefix",
    ),
    "issue9-default": Variant(
        config={"recencyWeight": 1.0},
        weights=(1.0, 0.5, 0.5),
        when_boost=0.0,
        speaker_boost=0.0,
        neighbour_share=0.0,
        session_share=0.0,
        date_boost=0.0,
        speaker="prefix",
    ),
    "issue9-nodecay": Variant(
        weights=(1.0, 0.5, 0.5),
        when_boost=0.0,
        speaker_boost=0.0,
        neighbour_share=0.0,
        session_share=0.0,
        date_boost=0.0,
        decay=False,
        speaker="prefix",
    ),
    "no-recency": Variant(decay=False),
    "recency-0.2": Variant(config={"recencyWeight": 0.2}),
    "no-neighbours": Variant(neighbour_share=0.0, session_share=0.0),
    "no-context-cap": Variant(context_cap=float("inf")),
    "issue17-context": Variant(context_cap=float("inf"), session_window=10**9, echo_free=False),
    "no-dates": Variant(date_boost=0.0),
    "no-when": Variant(when_boost=0.0),
    "no-speaker": Variant(speaker_boost=0.0),
    "speaker-prefix": Variant(speaker="prefix"),
    "hybrid-hash-weighted": Variant(
        config={"embeddingModel": "hashembed/512", "fusion": "weighted"}
    ),
    "hybrid-hash-rrf": Variant(config={"embeddingModel": "hashembed/512", "fusion": "rrf"}),
    "hybrid-wordllama-weighted": Variant(config={"embeddingModel": "wordllama/l2_supercat_256"}),
}


def parse_variant(spec: str) -> tuple[str, Variant]:
    """A named variant, optionally with overrides:
    ``default:recencyWeight=0.2,ctx=0.8,title=1,when=0.2``."""
    name, _, rest = spec.partition(":")
    v = VARIANTS[name]
    conf, weights, when, decay, spk = (
        dict(v.config),
        list(v.weights),
        v.when_boost,
        v.decay,
        v.speaker_boost,
    )
    nb, ss, date, cap, win = (
        v.neighbour_share,
        v.session_share,
        v.date_boost,
        v.context_cap,
        v.session_window,
    )
    echo = v.echo_free
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        if key in ("text", "title", "ctx"):
            weights[("text", "title", "ctx").index(key)] = float(value)
        elif key == "when":
            when = float(value)
        elif key == "spk":
            spk = float(value)
        elif key == "nb":
            nb = float(value)
        elif key == "ss":
            ss = float(value)
        elif key == "date":
            date = float(value)
        elif key == "cap":
            cap = float(value)
        elif key == "win":
            win = int(value)
        elif key == "echo":
            echo = value == "1"
        elif key == "decay":
            decay = value == "1"
        else:
            conf[key] = float(value) if value.replace(".", "").isdigit() else value
    return spec, Variant(
        conf,
        (weights[0], weights[1], weights[2]),
        when,
        spk,
        nb,
        ss,
        date,
        decay,
        v.speaker,
        cap,
        win,
        echo,
    )


def register_wordllama() -> None:
    """``wordllama/*``: wordllama's bundled 256-d static model (``pip install wordllama``; weights
    ship in the wheel, loaded with downloads disabled), registered through the same litellm hook as
    any embedding model."""
    import os

    import wordllama
    from wordllama import WordLlama

    from reverie.llm.embeddings import register_embedder

    model = WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)
    register_embedder("wordllama", lambda texts, _name: model.embed(texts).tolist())


def parse_locomo_date(text: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` → datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def build_workspace(
    sample: dict, root: Path, speaker: str = "name"
) -> tuple[Workspace, dict[tuple[str, int], str], datetime]:
    """Write the conversation's sessions as Reverie session files; return the (key, index) → dia_id
    map.

    ``speaker="name"``: each message carries its speaker in the ``name`` field (indexed as the
    chunk's title); ``"prefix"``: the text starts ``Name: `` (how issue 9's figures were measured).
    """
    ws = Workspace(root)
    ws.sessions_dir.mkdir(parents=True)
    ws.memory_dir.mkdir()
    conv = sample["conversation"]
    speaker_a = conv["speaker_a"]
    refs: dict[tuple[str, int], str] = {}
    last = datetime(2000, 1, 1)
    sessions = sorted(
        (k for k in conv if k.startswith("session_") and not k.endswith("date_time")),
        key=lambda k: int(k.split("_")[1]),
    )
    for name in sessions:
        turns = conv[name]
        if not isinstance(turns, list) or not turns:
            continue
        start = parse_locomo_date(conv[f"{name}_date_time"])
        key = f"locomo:{sample['sample_id']}:{name}"
        meta = {
            "_type": "metadata",
            "key": key,
            "created_at": start.isoformat(),
            "updated_at": start.isoformat(),
            "metadata": {},
            "last_consolidated": 0,
        }
        lines = [orjson.dumps(meta)]
        for i, turn in enumerate(turns):
            text = f"{turn['speaker']}: {turn['text']}" if speaker == "prefix" else turn["text"]
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            when = start + timedelta(seconds=30 * i)
            role = "user" if turn["speaker"] == speaker_a else "assistant"
            message = {"role": role, "content": text, "timestamp": when.isoformat()}
            if speaker == "name":
                message["name"] = turn["speaker"]
            lines.append(orjson.dumps(message))
            refs[(key, i)] = turn["dia_id"]
            last = max(last, when)
        (ws.sessions_dir / f"{key.replace(':', '_')}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return ws, refs, last


def evidence_ids(qa: dict) -> list[str]:
    out: list[str] = []
    for ev in qa.get("evidence") or []:
        out.extend(p for p in str(ev).replace(";", " ").split() if p.startswith("D"))
    return out


def _query_sample(
    sample: dict,
    ws: Workspace,
    refs: dict,
    now: datetime,
    variant: Variant,
    results: dict[str, list[list[float]]],
    timings: list[float],
    unstable: list[int],
) -> None:
    """Index one conversation under one variant and score every question with the synchronous
    API."""
    search.BM25_WEIGHTS = variant.weights
    search.WHEN_BOOST = variant.when_boost
    search.SPEAKER_BOOST = variant.speaker_boost
    search.NEIGHBOUR_SHARE = variant.neighbour_share
    search.SESSION_SHARE = variant.session_share
    search.DATE_BOOST = variant.date_boost
    search.CONTEXT_CAP = variant.context_cap
    search.SESSION_WINDOW = variant.session_window
    search.ECHO_FREE = variant.echo_free
    recall = Recall(ws, Config.model_validate({"memory": {"search": variant.config}}))
    if variant.config.get("embeddingModel"):
        asyncio.run(recall.async_sync())
    else:
        recall.sync()
    for qa in sample["qa"]:
        gold = set(evidence_ids(qa))
        if not gold:
            continue
        t0 = time.perf_counter()
        hits = recall.search(qa["question"], max(KS), now=now, decay=variant.decay, sync=False)
        timings.append(time.perf_counter() - t0)
        got = [refs.get((h.source.session_key, h.source.message_index)) for h in hits]
        short = [
            refs.get((h.source.session_key, h.source.message_index))
            for h in recall.search(qa["question"], 10, now=now, decay=variant.decay, sync=False)
        ]
        unstable.append(int(short != got[:10]))
        row = [len(gold & set(got[:k])) / len(gold) for k in KS]
        results[CATEGORIES.get(qa.get("category"), str(qa.get("category")))].append(row)
        results["all"].append(row)
    recall.close()


def run_quality(
    data_path: Path, specs: list[str], split: str = "dev"
) -> dict[str, dict[str, list[float]]]:
    """Print the evidence-recall table for ``split``; return variant → category → [R@5, R@10,
    R@25]."""
    samples = [s for s in orjson.loads(data_path.read_bytes()) if s["sample_id"] in SPLITS[split]]
    variants = dict(parse_variant(spec) for spec in specs)
    if any(
        str(v.config.get("embeddingModel", "")).startswith("wordllama/") for v in variants.values()
    ):
        register_wordllama()
    results: dict[str, dict[str, list[list[float]]]] = {v: defaultdict(list) for v in variants}
    timings: dict[str, list[float]] = defaultdict(list)
    unstable: dict[str, list[int]] = defaultdict(list)
    knobs = (
        "BM25_WEIGHTS",
        "WHEN_BOOST",
        "SPEAKER_BOOST",
        "NEIGHBOUR_SHARE",
        "SESSION_SHARE",
        "DATE_BOOST",
        "CONTEXT_CAP",
        "SESSION_WINDOW",
        "ECHO_FREE",
    )
    saved = {name: getattr(search, name) for name in knobs}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for sample in samples:
                built = {}
                for name, variant in variants.items():
                    if variant.speaker not in built:
                        built[variant.speaker] = build_workspace(
                            sample,
                            Path(tmp) / f"{sample['sample_id']}-{variant.speaker}",
                            variant.speaker,
                        )
                    ws, refs, last = built[variant.speaker]
                    _query_sample(
                        sample,
                        ws,
                        refs,
                        last + timedelta(days=1),
                        variant,
                        results[name],
                        timings[name],
                        unstable[name],
                    )
    finally:
        for name, value in saved.items():
            setattr(search, name, value)
    print(
        f"LoCoMo evidence recall, {data_path.name}, split {split} ({', '.join(SPLITS[split])}): "
        f"{len(next(iter(results.values()))['all'])} questions with evidence\n"
    )
    cats = ["all", *CATEGORIES.values()]
    print(f"{'variant':34} " + " ".join(f"{c:>22}" for c in cats))
    print(f"{'':34} " + " ".join(f"{'R@5  R@10  R@25':>22}" for _ in cats))
    table: dict[str, dict[str, list[float]]] = {}
    for name in variants:
        cells = []
        table[name] = {}
        for c in cats:
            rows = results[name][c]
            if not rows:
                cells.append(f"{'-':>22}")
                continue
            means = [100 * statistics.fmean(r[i] for r in rows) for i in range(len(KS))]
            table[name][c] = means
            cells.append(f"{means[0]:6.1f}{means[1]:6.1f}{means[2]:6.1f} (n={len(rows):3})")
        lat = sorted(timings[name])
        p95 = 1000 * lat[int(0.95 * (len(lat) - 1))] if lat else 0.0
        print(
            f"{name:34} " + " ".join(cells) + f"   p95 {p95:.1f} ms/query (k=25)"
            "   top-10 differs from top-25[:10]: "
            f"{100 * statistics.fmean(unstable[name] or [0]):.1f} %"
        )
    return table


# -- speed -----------------------------------------------------------------------------------------
def _vocabulary(rng: random.Random, n: int = 6_000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(n)]


def _sentence(
    rng: random.Random, vocab: list[str], weights: list[float], lo: int = 8, hi: int = 40
) -> str:
    return " ".join(rng.choices(vocab, weights, k=rng.randint(lo, hi)))


def build_synthetic(
    root: Path, n_history: int, n_messages: int, rng: random.Random
) -> tuple[Workspace, list[str], list[float]]:
    ws = Workspace(root)
    ws.init()
    vocab = _vocabulary(rng)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    base = datetime(2025, 1, 1)
    with open(ws.history_path, "wb") as f:
        for c in range(1, n_history + 1):
            stamp = (base + timedelta(minutes=5 * c)).strftime("%Y-%m-%d %H:%M")
            f.write(
                HistoryEntry(
                    c, stamp, "- " + _sentence(rng, vocab, weights), "cli:synthetic"
                ).to_json()
            )
    per_session = 100
    for s in range(max(1, n_messages // per_session)):
        key = f"cli:s{s}"
        meta = {
            "_type": "metadata",
            "key": key,
            "created_at": "2025-01-01T00:00:00",
            "updated_at": "2025-01-01T00:00:00",
            "metadata": {},
            "last_consolidated": 0,
        }
        lines = [orjson.dumps(meta)]
        for i in range(per_session):
            role = "user" if i % 2 == 0 else "assistant"
            when = (base + timedelta(days=s, minutes=i)).isoformat()
            lines.append(
                orjson.dumps(
                    {
                        "role": role,
                        "name": "Alice" if role == "user" else "Bob",
                        "content": _sentence(rng, vocab, weights),
                        "timestamp": when,
                    }
                )
            )
        (ws.sessions_dir / f"cli_s{s}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return ws, vocab, weights


def synthetic_queries(rng: random.Random, vocab: list[str], n: int) -> list[str]:
    """Random 2-6 word queries; a third name a speaker, one in six asks "when", one in six names a
    date, so every ranking signal is exercised."""
    out = []
    for i in range(n):
        q = " ".join(rng.choices(vocab[50:3000], k=rng.randint(2, 6)))
        if i % 3 == 0:
            q = f"what did Alice say about {q}"
        if i % 6 == 1:
            q = f"when did {q}"
        if i % 6 == 2:
            q = f"{q} on {rng.randint(1, 28)} March 2025"
        out.append(q)
    return out


def _pct_ms(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return 1000 * s[min(len(s) - 1, int(q * len(s)))]


def _median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def run_speed(n_history: int, n_messages: int, queries: int, hybrid: bool) -> None:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        ws, vocab, weights = build_synthetic(Path(tmp) / "ws", n_history, n_messages, rng)
        recall = Recall(ws, Config())
        t0 = time.perf_counter()
        stats = recall.sync()
        full = time.perf_counter() - t0
        print(
            f"workspace: {n_history:,} history entries + {n_messages:,} session messages → "
            f"{recall.index.count():,} chunks"
        )
        print(f"full index build: {full:.2f} s ({stats.added:,} chunks)")
        qs = synthetic_queries(rng, vocab, queries)
        for q in qs[:5]:
            recall.search(q, 10, sync=False)
        lat = []
        for q in qs:
            t = time.perf_counter()
            recall.search(q, 10, sync=False)
            lat.append(time.perf_counter() - t)
        print(
            f"BM25 query, default ranking (k=10, {queries} queries): median {_median_ms(lat):.1f} "
            "ms, "
            f"p90 {_pct_ms(lat, 0.9):.1f} ms, p95 {_pct_ms(lat, 0.95):.1f} ms"
        )
        lat = []
        for q in qs:
            t = time.perf_counter()
            recall.search(
                q, 10
            )  # including the (no-op) incremental sync every query does by default
            lat.append(time.perf_counter() - t)
        print(
            f"BM25 query incl. its up-to-date check: median {_median_ms(lat):.1f} ms, p95 "
            f"{_pct_ms(lat, 0.95):.1f} ms"
        )
        _stale_queries(ws, qs, n_history, rng, vocab, weights)
        recall.sync()  # the writer's step those 20 entries missed (untimed)
        syncs = []
        for round_ in range(1, 11):
            with open(ws.history_path, "ab") as f:
                last = n_history + 20 * round_
                for c in range(last + 1, last + 21):
                    f.write(
                        HistoryEntry(
                            c, "2026-01-01 00:00", "- " + _sentence(rng, vocab, weights)
                        ).to_json()
                    )
            t = time.perf_counter()
            st = recall.sync()
            syncs.append(time.perf_counter() - t)
            assert st.history_entries == 20 and st.removed == 0, st
        inc = statistics.median(syncs)
        print(
            f"incremental sync after 20 new entries: median {1000 * inc:.1f} ms over 10 rounds "
            f"(full rebuild of the same workspace: {full:.2f} s; ratio {full / inc:,.0f}×)"
        )
        if hybrid:
            conf = Config.model_validate(
                {"memory": {"search": {"embeddingModel": "hashembed/256"}}}
            )
            hrec = Recall(ws, conf)
            t = time.perf_counter()
            n = asyncio.run(hrec.embed_missing())
            print(
                f"hashembed/256 embedding of {n:,} chunks: {time.perf_counter() - t:.1f} s "
                "(offline, pure Python)"
            )
            from reverie.llm.embeddings import hash_embedding
            from reverie.recall.types import SearchFilters

            hrec._rank(
                qs[0], 10, None, hash_embedding(qs[0], 256), None, None, None
            )  # load the matrix once
            lat = []
            for q in qs:
                qvec = hash_embedding(q, 256)
                t = time.perf_counter()
                hrec._rank(q, 10, SearchFilters.from_mapping(None), qvec, None, None, None)
                lat.append(time.perf_counter() - t)
            print(
                "hybrid query (BM25 + vectors, weighted fusion, query embedding excluded): "
                f"median {_median_ms(lat):.1f} ms, "
                f"p95 {_pct_ms(lat, 0.95):.1f} ms"
            )
            hrec.close()
        recall.close()


def _stale_queries(  # type: ignore[no-untyped-def]
    ws: Workspace, qs: list[str], n_history: int, rng: random.Random, vocab, weights
) -> None:
    """Queries on an index 20 entries behind the files (appended behind its back, as a writer
    that does not sync would leave it): the first query of a new ``Recall`` (a new process, such as
    `reverie search`), and the next ones of the same ``Recall``. Queries write nothing, so the first
    reads a private copy of the index brought in step in memory, kept for the next ones."""
    with open(ws.history_path, "ab") as f:
        for c in range(n_history + 1, n_history + 21):
            f.write(
                HistoryEntry(c, "2026-01-01 00:00", "- " + _sentence(rng, vocab, weights)).to_json()
            )
    firsts, nexts = [], []
    for q in qs[:10]:
        fresh = Recall(ws, Config())
        t = time.perf_counter()
        fresh.search(q, 10)
        firsts.append(time.perf_counter() - t)
        for q2 in qs[10:30]:
            t = time.perf_counter()
            fresh.search(q2, 10)
            nexts.append(time.perf_counter() - t)
        fresh.close()
    print(
        f"query on an index 20 entries stale: first of a new Recall median {_median_ms(firsts):.1f}"
        f" ms (10 runs), the next ones median {_median_ms(nexts):.1f} ms, p95 "
        f"{_pct_ms(nexts, 0.95):.1f} ms"
    )


def run_sync_embedder(n_history: int, queries: int) -> None:
    """Synchronous ``Recall.search`` with an in-process embedder (``hashembed/256``) against BM25
    only, on the same small workspace: what a CLI or library query pays for vectors (query embedding
    included; no event loop)."""
    rng = random.Random(9)
    with tempfile.TemporaryDirectory() as tmp:
        ws, vocab, _w = build_synthetic(Path(tmp) / "ws", n_history, 0, rng)
        qs = synthetic_queries(rng, vocab, queries)
        for label, conf in (
            ("BM25 only", {}),
            ("hashembed/256", {"embeddingModel": "hashembed/256"}),
        ):
            recall = Recall(ws, Config.model_validate({"memory": {"search": conf}}))
            recall.search("warm up")  # index and embed once, untimed
            lat = []
            for q in qs:
                t = time.perf_counter()
                recall.search(q, 10)
                lat.append(time.perf_counter() - t)
            print(
                f"sync search, {label}, {n_history:,} entries: median {_median_ms(lat):.2f} ms, "
                f"p95 {_pct_ms(lat, 0.95):.2f} ms"
            )
            recall.close()


def _speed_results(  # type: ignore[no-untyped-def]
    ctx, n_history: int, n_messages: int, queries: int
) -> list:
    """Speed figures for ``python -m bench recall``: BM25 and hybrid query latency, incremental vs
    full sync."""
    import numpy as np

    from bench._core import Result, stats_of

    rng = random.Random(7)
    ws, vocab, weights = build_synthetic(ctx.tmpdir("recall-") / "ws", n_history, n_messages, rng)
    recall = Recall(ws, Config())
    t0 = time.perf_counter()
    recall.sync()
    full = time.perf_counter() - t0
    qs = synthetic_queries(rng, vocab, queries)
    for q in qs[:5]:
        recall.search(q, 10, sync=False)
    bm25, bm25_cpu = [], []
    for q in qs:
        t, c = time.perf_counter(), time.process_time()
        recall.search(q, 10)  # includes the read-only up-to-date check every query makes
        bm25.append(time.perf_counter() - t)
        bm25_cpu.append(time.process_time() - c)
    syncs, syncs_cpu = [], []
    for round_ in range(10):
        with open(ws.history_path, "ab") as f:
            last = n_history + 20 * round_
            for c in range(last + 1, last + 21):
                f.write(
                    HistoryEntry(
                        c, "2026-01-01 00:00", "- " + _sentence(rng, vocab, weights)
                    ).to_json()
                )
        t, c = time.perf_counter(), time.process_time()
        st = recall.sync()
        syncs.append(time.perf_counter() - t)
        syncs_cpu.append(time.process_time() - c)
        assert st.history_entries == 20 and st.removed == 0, st
    # Hybrid: random unit vectors stand in for embeddings (the query path is what is timed, not an
    # embedder).
    model, dim = "hashembed/256", 256
    with recall.index.connection() as conn:
        hashes = [r[0] for r in conn.execute("SELECT DISTINCT ehash FROM chunks")]
    vecs = np.random.default_rng(7).standard_normal((len(hashes), dim)).astype("<f4")
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    with recall.index.writing() as conn:
        conn.executemany(
            "INSERT OR REPLACE INTO embeddings(ehash, model, dim, vec) VALUES (?,?,?,?)",
            ((h, model, dim, vecs[i].tobytes()) for i, h in enumerate(hashes)),
        )
    recall.close()
    hybrid_recall = Recall(
        ws, Config.model_validate({"memory": {"search": {"embeddingModel": model}}})
    )
    qvecs = np.random.default_rng(8).standard_normal((len(qs), dim)).astype("<f4")
    hybrid_recall._rank(qs[0], 10, None, qvecs[0], None, None, None)  # loads the matrix once
    hybrid, hybrid_cpu = [], []
    for q, v in zip(qs, qvecs):
        t, c = time.perf_counter(), time.process_time()
        hybrid_recall._rank(q, 10, None, v, None, None, None)
        hybrid.append(time.perf_counter() - t)
        hybrid_cpu.append(time.process_time() - c)
    hybrid_recall.close()
    size = f"{n_history:,} entries + {n_messages:,} messages"
    full_stats = stats_of([full])
    return [
        Result(
            "recall",
            f"BM25 query k=10, default ranking, {size}",
            stats_of(bm25),
            target="p95 ≤ 50 ms",
            note=f"n={len(bm25)}, p95 {_pct_ms(bm25, 0.95):.1f} ms "
            f"(CPU p95 {_pct_ms(bm25_cpu, 0.95):.1f} ms)",
        ),
        Result(
            "recall",
            f"hybrid query k=10 (BM25 + 256-d vectors + fusion), {size}",
            stats_of(hybrid),
            target="≤ 50 ms median",
            note="query embedding excluded",
        ),
        Result(
            "recall",
            f"incremental sync after 20 new entries, {size}",
            stats_of(syncs),
            full_stats,
            "full index build, same workspace",
            target="≤ 50 ms",
            note="n=10",
        ),
    ] + [
        Result(
            "recall",
            f"{name} (CPU time: less sensitive to other jobs on the machine)",
            stats_of(cpu),
            note="process_time",
        )
        for name, cpu in (
            ("BM25 query", bm25_cpu),
            ("hybrid query", hybrid_cpu),
            ("incremental sync, 20 entries", syncs_cpu),
        )
    ]


def run(ctx) -> list:  # type: ignore[no-untyped-def]
    """``python -m bench recall``: speed results, and the LoCoMo quality table printed (BM25
    variants)."""
    if DEFAULT_DATA.exists():
        for split in ("dev", "heldout"):
            run_quality(
                DEFAULT_DATA, ["default", "bm25-plain", "issue9-default", "issue9-nodecay"], split
            )
    else:
        print(f"[bench] recall: {DEFAULT_DATA} not found; LoCoMo quality skipped", file=sys.stderr)
    if ctx.quick:
        return _speed_results(ctx, 20_000, 2_000, 100)
    return _speed_results(ctx, 100_000, 10_000, 200)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--data", type=Path, default=DEFAULT_DATA)
    q.add_argument(
        "--variants",
        default="default,bm25-plain,issue9-default,issue9-nodecay",
        help="names from VARIANTS, ';'-separated, each optionally NAME:key=value,key=value",
    )
    q.add_argument("--split", choices=list(SPLITS), default="dev")
    s = sub.add_parser("speed")
    s.add_argument("--history", type=int, default=100_000)
    s.add_argument("--messages", type=int, default=10_000)
    s.add_argument("--queries", type=int, default=200)
    s.add_argument("--no-hybrid", action="store_true")
    e = sub.add_parser(
        "sync-embed", help="synchronous search with hashembed vs BM25 only, small workspace"
    )
    e.add_argument("--history", type=int, default=2_000)
    e.add_argument("--queries", type=int, default=200)
    args = p.parse_args(argv)
    if args.what == "quality":
        run_quality(
            args.data, [v.strip() for v in args.variants.split(";") if v.strip()], args.split
        )
    elif args.what == "sync-embed":
        run_sync_embedder(args.history, args.queries)
    else:
        run_speed(args.history, args.messages, args.queries, not args.no_hybrid)


if __name__ == "__main__":
    main()
