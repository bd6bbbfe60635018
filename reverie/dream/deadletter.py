"""``memory/dream-deadletter.jsonl``: batches Dream set aside, after repeated failures or with
findings the edit step wrote nothing for (``attempts`` 1; the reason says so). This docstring is
the spec.

One JSON object per line, UTF-8, ``\\n``-terminated, append-only::

    {"first": 31, "last": 50, "reason": "budget exhausted (loop): ...", "attempts": 3,
     "time": "2026-11-22T14:05:00+00:00"}

``first``/``last`` are the history cursors of the batch (inclusive); ``time`` is ISO 8601 with
offset. Writers hold Dream's run lock. An append is one ``write`` on an ``O_APPEND`` descriptor,
fsynced; a torn last line (a crash mid-append) is closed with a newline before the next append, and
readers skip lines that do not parse, with a warning. The entries stay in history.jsonl.

A set-aside batch comes back with ``reverie requeue`` / ``/requeue``, recorded as events in the same
log::

    # Dream runs it again before the batches past its cursor
    {"event": "requeued", "first": 31, "time": ...}
    # it ran (the cursor never moves back)
    {"event": "done", "first": 31, "time": ..., "commit": "<sha>"|null}

    # restore --replay moved the cursor back before it
    {"event": "replayed", "first": 31, "time": ...}

Folded in order, a batch is *set aside* (its latest record is a dead letter), *queued* (requeued,
not done) or settled (done, or replayed: the Dream cursor is before it again, so the next runs
process it in order like any pending batch); a batch that fails ``maxAttempts`` times again is set
aside again by a new dead-letter record. Only a batch set aside now can be the one a crash left just
past the cursor (``transaction.reconcile``).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import orjson

from ..storage.fsutil import open_regular

__all__ = [
    "DeadLetter",
    "append_dead_letter",
    "read_dead_letters",
    "deadletter_path",
    "set_aside",
    "queued",
    "append_event",
    "settle_replayed",
]

log = logging.getLogger(__name__)


def deadletter_path(memory_dir: Path) -> Path:
    return Path(memory_dir) / "dream-deadletter.jsonl"


@dataclass(frozen=True, slots=True)
class DeadLetter:
    first: int
    last: int
    reason: str
    attempts: int
    time: str

    def to_json(self) -> bytes:
        """The record as one JSON line (its file's format)."""
        return (
            orjson.dumps(
                {
                    "first": self.first,
                    "last": self.last,
                    "reason": self.reason,
                    "attempts": self.attempts,
                    "time": self.time,
                }
            )
            + b"\n"
        )


def _append(path: Path, line: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    try:
        size = os.fstat(fd).st_size
        prefix = b"\n" if size and os.pread(fd, 1, size - 1) != b"\n" else b""  # close a torn tail
        os.write(fd, prefix + line)
        os.fsync(fd)
    finally:
        os.close(fd)


def append_dead_letter(path: Path, first: int, last: int, reason: str, attempts: int) -> DeadLetter:
    record = DeadLetter(
        first, last, reason, attempts, datetime.now(UTC).isoformat(timespec="seconds")
    )
    _append(Path(path), record.to_json())
    return record


def append_event(path: Path, event: str, first: int, commit: str | None = None) -> None:
    """Record ``requeued``, ``done`` or ``replayed`` for the batch starting at ``first`` (the caller
    holds Dream's run lock)."""
    data: dict[str, object] = {
        "event": event,
        "first": first,
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if event == "done":
        data["commit"] = commit
    _append(Path(path), orjson.dumps(data) + b"\n")


def _fold(path: Path) -> dict[int, tuple[str, DeadLetter]]:
    state: dict[int, tuple[str, DeadLetter]] = {}
    for item in _read(path):
        if isinstance(item, DeadLetter):
            state.pop(item.first, None)
            state[item.first] = ("aside", item)
        elif item[1] in state:
            event, first = item
            if event == "requeued" and state[first][0] == "aside":
                state[first] = ("queued", state[first][1])
            elif event in ("done", "replayed"):
                del state[first]
    return state


def set_aside(path: Path) -> list[DeadLetter]:
    """Batches set aside now (not requeued since), oldest record first."""
    return [d for status, d in _fold(path).values() if status == "aside"]


def queued(path: Path) -> list[DeadLetter]:
    """Requeued batches Dream has not run yet, in the order they were set aside."""
    return sorted(
        (d for status, d in _fold(path).values() if status == "queued"), key=lambda d: d.first
    )


def settle_replayed(path: Path, cursor: int) -> list[DeadLetter]:
    """The Dream cursor was rewound to ``cursor`` (``restore --replay``): every set-aside or queued
    batch past it is settled as ``replayed``, since the cursor reaches it again. Returns those
    batches."""
    pending = [d for _status, d in _fold(path).values() if d.first > cursor]
    for d in pending:
        append_event(path, "replayed", d.first)
    return pending


def read_dead_letters(path: Path) -> list[DeadLetter]:
    """Every dead-letter record in order (events left out): the raw log, for recovery."""
    return [d for d in _read(path) if isinstance(d, DeadLetter)]


def _read(path: Path) -> list[DeadLetter | tuple[str, int]]:
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    out: list[DeadLetter | tuple[str, int]] = []
    bad = 0
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
            if obj.get("event") in ("requeued", "done", "replayed"):
                out.append((str(obj["event"]), int(obj["first"])))
                continue
            out.append(
                DeadLetter(
                    int(obj["first"]),
                    int(obj["last"]),
                    str(obj["reason"]),
                    int(obj.get("attempts", 0)),
                    str(obj.get("time", "")),
                )
            )
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            bad += 1
    if bad:
        log.warning("%s: skipped %d unreadable line(s)", path, bad)
    return out
