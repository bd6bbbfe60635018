"""Choosing the next history cursor (issue 20, item 2): what a process's first append costs on a
large log.

The next cursor is past the largest cursor anywhere in history.jsonl (a lock-free writer such as
nanobot can leave the log out of order), so a process's first append must know the log's maximum.
Workloads, on copies of the ``history`` area's cached logs (~300-byte entries, N = 10k and 100k; 1M
without ``--quick``):

- **first append, no checkpoint**: a new ``MemoryStore`` appends once to a log no Reverie process
  has scanned (the checkpoint ``history.jsonl.maxcursor`` removed): a full scan of the log, then the
  durable append.
- **first append, with the checkpoint**: the same after another store has appended (the usual case:
  each CLI call or agent process after the first).
- **later appends**: the same store's following appends (only the bytes appended since are scanned).
- **parsing every line** with orjson, for scale: what a JSON-parsing scan of the same log would
  cost.

Every sample copies the log first (untimed), so the page cache holds it as it would after the
previous append.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import orjson

from ._core import Context, Result, stats_of
from .history import ENTRY_TEXT, history_workspace


def _fresh_copy(src: Path, dst: Path) -> Path:
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "memory").mkdir(parents=True)
    shutil.copy(src / "memory" / "history.jsonl", dst / "memory" / "history.jsonl")
    shutil.copy(src / "memory" / ".cursor", dst / "memory" / ".cursor")
    (dst / "memory" / "history.jsonl").read_bytes()  # warm the page cache, as a live log is
    return dst


def _first_append(ws: Path, checkpoint: bool) -> float:
    from reverie import MemoryStore

    if checkpoint:
        MemoryStore(ws).append_history(
            ENTRY_TEXT
        )  # another process before this one: leaves the checkpoint
    else:
        (ws / "memory" / "history.jsonl.maxcursor").unlink(missing_ok=True)
    t0 = time.perf_counter()
    MemoryStore(ws).append_history(ENTRY_TEXT)
    return time.perf_counter() - t0


def _later_appends(ws: Path, n: int) -> list[float]:
    from reverie import MemoryStore

    store = MemoryStore(ws)
    store.append_history(ENTRY_TEXT)
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        store.append_history(ENTRY_TEXT)
        out.append(time.perf_counter() - t0)
    return out


def _parse_all(ws: Path) -> float:
    t0 = time.perf_counter()
    best = 0
    with open(ws / "memory" / "history.jsonl", "rb") as f:
        for line in f:
            best = max(best, orjson.loads(line)["cursor"])
    return time.perf_counter() - t0


def run(ctx: Context) -> list[Result]:
    sizes = [10_000, 100_000] if ctx.quick else [10_000, 100_000, 1_000_000]
    rounds = 5 if ctx.quick else 9
    scratch = ctx.tmpdir("cursor-scan-")
    results: list[Result] = []
    for n in sizes:
        src = history_workspace(ctx, n)
        cold, warm, parse, later = [], [], [], []
        for _ in range(rounds):
            cold.append(_first_append(_fresh_copy(src, scratch / "ws"), checkpoint=False))
            warm.append(_first_append(_fresh_copy(src, scratch / "ws"), checkpoint=True))
            parse.append(_parse_all(scratch / "ws"))
        later += _later_appends(_fresh_copy(src, scratch / "ws"), 200)
        size_mb = (src / "memory" / "history.jsonl").stat().st_size / 1e6
        label = f"{n // 1000}k entries, {size_mb:.0f} MB"
        results += [
            Result(
                "cursor_scan",
                f"first append, no checkpoint ({label})",
                stats_of(cold),
                stats_of(parse),
                "parse every line (orjson)",
                note="full regex scan of the log + durable append",
            ),
            Result(
                "cursor_scan",
                f"first append, with the checkpoint ({label})",
                stats_of(warm),
                note="scans only what was appended since the checkpoint",
            ),
            Result(
                "cursor_scan",
                f"later appends of one store ({label})",
                stats_of(later),
                note="fsync on; includes redaction and the lock",
            ),
        ]
    return results
