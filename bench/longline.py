"""One very long line in history.jsonl (issue 19, item 5): the readers must stay linear in its
length.

Workloads, each on a log holding a few ordinary entries then one line of N bytes, the last (the
worst case for the backward reader, which must cross it to find the last cursor):

- an append (a fresh ``HistoryLog``, so the next cursor comes from the log's tail: the backward
  reader);
- ``read_since(0)`` (the forward reader, as ``status``, ``history show`` and Dream use it);
- ``reverie status`` as a user runs it (a subprocess), on the 16 MB line.

A line is a valid entry up to ``reverie.storage.appendlog.MAX_LINE_BYTES``; a longer one is skipped
with a warning without being read into memory, so the 64 MB case measures the skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import orjson

from ._core import ROOT, Context, Result, stats_of

_MB = 1_000_000


def _log_with_long_line(ctx: Context, size: int) -> Path:
    d = Path(ctx.tmpdir("longline-")) / "ws"
    mem = d / "memory"
    mem.mkdir(parents=True)
    path = mem / "history.jsonl"
    with open(path, "wb") as f:
        for i in range(1, 4):
            f.write(
                orjson.dumps(
                    {"cursor": i, "timestamp": "2026-11-24 06:00", "content": f"entry {i}"}
                )
                + b"\n"
            )
        head = b'{"cursor": 4, "timestamp": "2026-11-24 06:00", "content": "'
        f.write(head + b"x" * (size - len(head) - 3) + b'"}\n')
    return d


def _time(fn, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return samples


def run(ctx: Context) -> list[Result]:
    from reverie.storage.history import HistoryLog

    sizes = (
        [8 * _MB, 16 * _MB, 64 * _MB]
        if ctx.quick
        else [8 * _MB, 16 * _MB, 32 * _MB, 64 * _MB, 200 * _MB]
    )
    repeat = 3 if ctx.quick else 5
    results = []
    for size in sizes:
        ws = _log_with_long_line(ctx, size)
        mem = ws / "memory"

        def append() -> None:
            (mem / ".cursor").unlink(missing_ok=True)  # the cursor must come from the log's tail
            log = HistoryLog(mem / "history.jsonl", mem / ".cursor", fsync=False)
            log.append("after a long line")
            os.truncate(log.path, size_before)

        size_before = (mem / "history.jsonl").stat().st_size

        def read() -> None:
            HistoryLog(mem / "history.jsonl", mem / ".cursor").read_since(0)

        label = f"{size // _MB} MB line"
        results.append(
            Result("longline", f"append after a {label}", stats_of(_time(append, repeat)))
        )
        results.append(
            Result("longline", f"read_since(0) over a {label}", stats_of(_time(read, repeat)))
        )
        if size == 16 * _MB:
            env = dict(os.environ, PYTHONPATH=str(ROOT))

            def status() -> None:
                subprocess.run(
                    [sys.executable, "-m", "reverie", "-w", str(ws), "status"],
                    env=env,
                    capture_output=True,
                    check=False,
                )

            results.append(
                Result("longline", f"reverie status on a {label}", stats_of(_time(status, repeat)))
            )
    return results
