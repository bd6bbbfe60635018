"""History log: reading past the cursor, and durable appends, against nanobot-ai 0.3.5 and
0.1.5.post3.

Workloads (issue 2's benchmark and issue 8's history rows):

- **read past the cursor**: on a history.jsonl of N entries (~300 bytes each; N = 1k, 10k, 100k, and
  1M without ``--quick``), the 20 entries past cursor N-20. Reverie:
  ``MemoryStore.read_unprocessed_history`` (bisects byte offsets). Peer: nanobot's
  ``MemoryStore.read_unprocessed_history`` on the SAME file. Both sides' returned cursors are
  cross-checked.
- **appends/s**: ``MemoryStore.append_history`` on a copy of the 100k-entry file, fsync on
  (Reverie's default) and fsync off. nanobot's ``append_history`` (which never fsyncs) runs on its
  own copy of the same file. A bare ``write`` + ``fdatasync`` loop in the same rounds is the disk's
  floor for durable appends. Reverie's figure includes what every real append does: secret redaction
  (``reverie.security``), the lock, the cursor hint.

Rounds alternate Reverie and the peers so drift on a shared machine hits every side.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import orjson

from ._core import NANOBOT_VERSIONS, Context, Result, stats_of

ENTRY_TEXT = (
    "User asked to move the weekly sync to Thursdays at 10:00; assistant confirmed and noted that "
    "the staging "
    "deploy is frozen until the Postgres 16 migration lands. Decision: keep SQLite for the "
    "offline demo only."
)


def history_workspace(ctx: Context, n: int) -> Path:
    """A cached workspace whose memory/history.jsonl holds ``n`` entries of about 300 bytes (built
    once)."""
    ws = ctx.cache / f"history-{n}"
    done = ws / ".complete"
    if done.exists() and done.read_text() == str(n):
        return ws
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    rng = random.Random(n)
    words = ENTRY_TEXT.replace(";", "").replace(".", "").split()
    contents = [" ".join(rng.choices(words, k=36))[:230] for _ in range(997)]
    path = ws / "memory" / "history.jsonl"
    with open(path, "wb") as f:
        batch = []
        for cursor in range(1, n + 1):
            batch.append(
                orjson.dumps(
                    {
                        "cursor": cursor,
                        "timestamp": "2026-11-01 09:30",
                        "content": contents[cursor % 997],
                        "session_key": "cli:bench",
                    }
                )
            )
            if len(batch) == 10_000:
                f.write(b"\n".join(batch) + b"\n")
                batch = []
        if batch:
            f.write(b"\n".join(batch) + b"\n")
    (ws / "memory" / ".cursor").write_text(str(n))
    done.write_text(str(n))
    return ws


def _reverie_read(
    ws: Path, since: int, budget: float, max_reps: int
) -> tuple[list[float], list[int]]:
    import time

    from reverie import MemoryStore

    store = MemoryStore(ws)
    first = store.read_unprocessed_history(since)  # warm-up, untimed
    samples: list[float] = []
    start = time.perf_counter()
    while len(samples) < 5 or (time.perf_counter() - start < budget and len(samples) < max_reps):
        t0 = time.perf_counter()
        store.read_unprocessed_history(since)
        samples.append(time.perf_counter() - t0)
    return samples, [e.cursor for e in first]


def _reverie_appends(ws: Path, block: int, fsync: bool) -> float:
    import time

    from reverie import MemoryStore
    from reverie.storage.config import validate_config

    store = MemoryStore(ws, config=validate_config({"memory": {"history": {"fsync": fsync}}}))
    t0 = time.perf_counter()
    for _ in range(block):
        store.append_history(ENTRY_TEXT)
    return block / (time.perf_counter() - t0)


def _bare_datasync_appends(path: Path, block: int) -> float:
    """The floor: the same line written with one ``write`` + ``fdatasync`` each, no lock, no cursor,
    no JSON."""
    import os
    import time

    line = (
        orjson.dumps({"cursor": 1, "timestamp": "2026-11-01 09:30", "content": ENTRY_TEXT}) + b"\n"
    )
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        t0 = time.perf_counter()
        for _ in range(block):
            os.write(fd, line)
            os.fdatasync(fd)
        return block / (time.perf_counter() - t0)
    finally:
        os.close(fd)


def run(ctx: Context) -> list[Result]:
    sizes = [1_000, 10_000, 100_000] if ctx.quick else [1_000, 10_000, 100_000, 1_000_000]
    rounds = 3 if ctx.quick else 5
    block = 200 if ctx.quick else 500
    workspaces = {n: history_workspace(ctx, n) for n in sizes}
    reads_rev: dict[int, list[float]] = {n: [] for n in sizes}
    reads_peer: dict[tuple[str, int], list[float]] = {
        (v, n): [] for v in NANOBOT_VERSIONS for n in sizes
    }
    app_rev: dict[bool, list[float]] = {True: [], False: []}
    floor: list[float] = []
    app_peer: dict[str, list[float]] = {v: [] for v in NANOBOT_VERSIONS}

    # Appends go to private copies of the 100k file, one per side.
    scratch = ctx.tmpdir("history-append-")
    base = workspaces[100_000]
    copies = {}
    for side in ("reverie", *NANOBOT_VERSIONS):
        (scratch / side / "memory").mkdir(parents=True)
        shutil.copy(base / "memory" / "history.jsonl", scratch / side / "memory" / "history.jsonl")
        copies[side] = scratch / side

    for r in range(rounds):
        for n in sizes:
            samples, cursors = _reverie_read(workspaces[n], n - 20, budget=0.3, max_reps=3000)
            assert cursors == list(range(n - 19, n + 1)), (
                f"Reverie returned the wrong entries at {n}"
            )
            reads_rev[n] += samples
        app_rev[True].append(_reverie_appends(copies["reverie"], block, fsync=True))
        app_rev[False].append(_reverie_appends(copies["reverie"], block, fsync=False))
        floor.append(_bare_datasync_appends(scratch / "floor.jsonl", block))
        for version in NANOBOT_VERSIONS:
            big = 1 if max(sizes) >= 1_000_000 else 2
            out = ctx.peer(
                version,
                "nanobot_history",
                {
                    "reads": [[str(workspaces[n]), n - 20] for n in sizes],
                    "budget": 1.0,
                    "min_reps": big if r else 2,
                    "max_reps": 200,
                    "append": {
                        "workspace": str(copies[version]),
                        "blocks": 1,
                        "block_size": block,
                        "text": ENTRY_TEXT,
                    },
                },
            )
            for read in out["reads"]:
                n = int(Path(read["workspace"]).name.split("-")[1])
                assert read["cursors"] == list(range(n - 19, n + 1)), (
                    f"nanobot {version} disagrees at {n}"
                )
                reads_peer[(version, n)] += read["samples"]
            app_peer[version] += out["append"]["rates"]

    results: list[Result] = []
    for n in sizes:
        for version in NANOBOT_VERSIONS:
            target = "< 1 ms, ≥ 200×" if n == 100_000 and version == "0.3.5" else ""
            results.append(
                Result(
                    "history",
                    f"read 20 past cursor, {n:,} entries",
                    stats_of(reads_rev[n]),
                    stats_of(reads_peer[(version, n)]),
                    f"nanobot-ai {version}",
                    target=target,
                    note=f"n={len(reads_rev[n])}/{len(reads_peer[(version, n)])}",
                )
            )
    results.append(
        Result(
            "history",
            "appends/s, fsync on (100k-entry file)",
            stats_of(app_rev[True]),
            stats_of(floor),
            "bare write+fdatasync loop (disk floor)",
            unit="ops/s",
            target="≥ 2,000/s",
            note="ratio < 1: Reverie's cost over the bare sync",
        )
    )
    for version in NANOBOT_VERSIONS:
        results.append(
            Result(
                "history",
                "appends/s, fsync on (100k-entry file)",
                stats_of(app_rev[True]),
                stats_of(app_peer[version]),
                f"nanobot-ai {version} (no fsync)",
                unit="ops/s",
                note=f"{rounds} blocks of {block}",
            )
        )
    for version in NANOBOT_VERSIONS:
        results.append(
            Result(
                "history",
                "appends/s, fsync off (100k-entry file)",
                stats_of(app_rev[False]),
                stats_of(app_peer[version]),
                f"nanobot-ai {version} (no fsync)",
                unit="ops/s",
                note=f"{rounds} blocks of {block}",
            )
        )
    return results
