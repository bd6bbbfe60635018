"""A scheduler's backlog and rate as ``serve --root`` and ``reverie fleet status --watch`` show it:
a live line on a terminal (rewritten every second), a plain line every ``every`` seconds otherwise,
or one JSON object a line with ``--json``."""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

import orjson

if TYPE_CHECKING:
    from ..schedule.backlog import Backlog

__all__ = ["backlog_line", "backlog_json", "watch"]


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


def backlog_line(b: Backlog) -> str:
    """One line: backlog, rate, what is stuck, and when the backlog clears at this rate."""
    parts = [
        f"due {b.due}",
        f"waiting {b.waiting}",
        f"in flight {b.in_flight}",
        f"{b.runs_per_minute:.1f} runs/min",
        f"{b.failures_per_minute:.1f} failed/min",
        f"{b.tokens_per_minute:,.0f} tokens/min",
        f"oldest due {_age(b.oldest_due_seconds)}",
        f"set aside {b.set_aside}",
    ]
    if b.parked:
        parts.append(f"parked {b.parked}")
    if b.paused:
        parts.append("paused: model unavailable")
    clear = b.minutes_to_clear
    if b.due and clear is not None:
        parts.append(f"clears in ~{_age(clear * 60)}")
    return " · ".join(parts)


def backlog_json(b: Backlog) -> bytes:
    data = dataclasses.asdict(b)
    data["time"] = time.time()
    data["minutes_to_clear"] = b.minutes_to_clear
    return orjson.dumps(data)


def watch(
    source: Callable[[], Backlog],
    stop: threading.Event,
    *,
    as_json: bool,
    every: float,
    out: TextIO | None = None,
) -> None:
    """Show ``source()`` until ``stop`` is set (see the module docstring)."""
    out = out or sys.stdout
    live = not as_json and out.isatty()
    period = 1.0 if live else every
    first = True
    while not stop.wait(0 if live or first else period):  # the first line at once, everywhere
        first = False
        b = source()
        if as_json:
            out.write(backlog_json(b).decode() + "\n")
        elif live:
            out.write("\r\x1b[2K" + backlog_line(b))
        else:
            out.write(time.strftime("%Y-%m-%d %H:%M:%S ") + backlog_line(b) + "\n")
        out.flush()
        if live and stop.wait(period):
            break
    if live:
        out.write("\n")
        out.flush()
