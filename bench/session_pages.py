"""A page of a huge conversation (the web UI's conversation page, ``Memory.session_view``): a
session file of 200 MB (50 MB with ``--quick``), and one of 2 GB (not with ``--quick``). The newest
page of a file too large to count at once is read from its end (``MessageLines.newest``), as the UI
opens it; a middle page counts the file.

Figures, each against a floor measured in the same run on the same file:

- the newest page (the page the UI opens first: open the view, read its last 100 messages, close
  it) against the floor, one sequential read of the whole file in 1 MiB blocks (what any reader
  that counts the messages must do at least); and against the whole-file loader the page used
  before (``Memory.session``, every line parsed into a list), at 200 MB only;
- a page in the middle (a search hit's page), and the next page of the same file (the view kept
  its count of the file's lines: only what was appended since is read);
- the peak memory Python allocates for the newest page of the 2 GB file (``tracemalloc``), against
  the file's size.

Run: ``.venv/bin/python -m bench session_pages`` (``--quick`` for the small sizes).
"""

from __future__ import annotations

import os
import time
import tracemalloc
from pathlib import Path

import orjson

from ._core import Context, Result, Stats, stats_of

_MB = 1 << 20
PAGE = 100


def _session(ctx: Context, size: int) -> Path:
    """A workspace holding one session file of about ``size`` bytes (cached across runs)."""
    ws = Path(ctx.cache) / f"session-pages-{size // _MB}mb"
    path = ws / "sessions" / "cli_big.jsonl"
    if path.exists() and path.stat().st_size >= size:
        return ws
    path.parent.mkdir(parents=True, exist_ok=True)
    (ws / "memory").mkdir(exist_ok=True)
    meta = {
        "_type": "metadata",
        "key": "cli:big",
        "created_at": "2026-11-28T10:00:00",
        "updated_at": "2026-11-28T10:00:00",
        "metadata": {},
        "last_consolidated": 0,
    }
    words = "we talked about the trip to Porto and the new database at work again".split()
    with open(path, "wb") as f:
        f.write(orjson.dumps(meta) + b"\n")
        written, i = 0, 0
        while written < size:
            text = " ".join(words[(i + j) % len(words)] for j in range(20 + i % 200))
            line = orjson.dumps(
                {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": f"message {i}: {text}",
                    "timestamp": "2026-11-28T10:00:00",
                }
            )
            f.write(line + b"\n")
            written += len(line) + 1
            i += 1
    return ws


def _floor(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        while os.read(fd, _MB):
            pass
    finally:
        os.close(fd)


def _page(memory, where: str, cold: bool = True) -> None:  # type: ignore[no-untyped-def]
    from reverie.storage import sessions_view

    if cold:  # the first page of this file: its lines counted (else only what was appended)
        sessions_view._SCANS.clear()
    view = memory.session_view("cli:big")
    try:
        if where == "newest" and view.messages.countless:  # as the UI opens it: from the end
            assert len(view.messages.newest(PAGE)) == PAGE
            return
        n = len(view.messages)
        start = max(0, n - PAGE) if where == "newest" else n // 2
        shown = [view.messages[i] for i in range(start, min(n, start + PAGE))]
        assert len(shown) == min(PAGE, n - start)
    finally:
        view.messages.close()


def _time(fn, repeat: int) -> Stats:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return stats_of(samples)


def run(ctx: Context) -> list[Result]:
    import reverie

    sizes = [50 * _MB] if ctx.quick else [200 * _MB, 2048 * _MB]
    repeat = 3 if ctx.quick else 5
    out = []
    for size in sizes:
        ws = _session(ctx, size)
        path = ws / "sessions" / "cli_big.jsonl"
        mb = path.stat().st_size / _MB
        with reverie.open(ws) as memory:
            _floor(path)  # the page cache warm for both sides
            floor = _time(lambda: _floor(path), repeat)
            newest = _time(lambda: _page(memory, "newest"), repeat)
            middle = _time(lambda: _page(memory, "middle"), repeat)
            _page(memory, "newest")
            warm = _time(lambda: _page(memory, "middle", cold=False), repeat)
            out.append(
                Result(
                    "session_pages",
                    f"newest page of a {mb:,.0f} MB session",
                    newest,
                    floor,
                    "one read of the file",
                    target="close to the floor",
                )
            )
            out.append(
                Result(
                    "session_pages",
                    f"middle page of a {mb:,.0f} MB session",
                    middle,
                    floor,
                    "one read of the file",
                )
            )
            out.append(
                Result(
                    "session_pages",
                    f"next page of a {mb:,.0f} MB session (its lines counted already)",
                    warm,
                    floor,
                    "one read of the file",
                )
            )
            if size <= 200 * _MB:
                whole = _time(lambda: memory.session("cli:big"), 1 if not ctx.quick else 2)
                out.append(
                    Result(
                        "session_pages",
                        f"newest page of a {mb:,.0f} MB session vs the whole-file loader",
                        newest,
                        whole,
                        "Memory.session (before)",
                    )
                )
            tracemalloc.start()
            _page(memory, "newest")
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            out.append(
                Result(
                    "session_pages",
                    f"peak Python memory for a page of a {mb:,.0f} MB session (MB)",
                    stats_of([peak / _MB]),
                    unit="MB",
                    note=f"the file: {mb:,.0f} MB",
                )
            )
    return out
