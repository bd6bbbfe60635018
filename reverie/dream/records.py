"""Dream's small state records in ``memory/.reverie/`` (``Workspace.state_dir``). This docstring is the spec.

``dream-status.json`` — what ``reverie status`` shows and what the scheduler counts from::

    {"last_run": {"time": ISO, "status": "ok", "first": 31, "last": 50, "reason": null, "commit": "<sha>"},
     "last_completed": ISO,          # the last run that finished a batch (ok, no-change, dead-lettered)
     "last_rejection": {"time": ISO, "first": 31, "last": 50, "reason": "..."},
     "model_unavailable": {"since": ISO, "reason": "..."}}   # while runs fail because the model is unreachable

``dream-attempts.json`` — failed attempts on the batch starting after the Dream cursor::

    {"first": 31, "count": 2, "reasons": ["...", "..."]}

Both are replaced atomically (``atomic_write``); a missing or corrupt record reads as empty, with a warning for
corrupt ones, because both are advisory: the cursor and the repo remain the truth.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..fsutil import atomic_write

if TYPE_CHECKING:
    from .deadletter import DeadLetter

__all__ = ["Attempts", "StatusRecord", "DreamStatusSummary", "summarize", "now_iso", "parse_time"]

log = logging.getLogger(__name__)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        log.warning("%s cannot be read (%s); treated as empty", path, exc.strerror)
        return {}
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        log.warning("%s is corrupt; treated as empty", path)
        return {}
    return data if isinstance(data, dict) else {}


@dataclass
class StatusRecord:
    path: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, state_dir: Path) -> StatusRecord:
        path = Path(state_dir) / "dream-status.json"
        return cls(path, _read(path))

    def record_run(self, status: str, first: int | None, last: int | None, reason: str | None,
                   commit: str | None, *, unavailable: bool = False) -> None:
        when = now_iso()
        if unavailable:  # "since" is the first failure of the outage; a run that reached the model ends it
            since = (self.model_unavailable or {}).get("since", when)
            self.data["model_unavailable"] = {"since": since, "reason": reason}
        else:
            self.data.pop("model_unavailable", None)
        self.data["last_run"] = {"time": when, "status": status, "first": first, "last": last, "reason": reason,
                                 "commit": commit}
        if status in ("ok", "no-change", "dead-lettered"):
            self.data["last_completed"] = when
        if status == "rejected":
            self.data["last_rejection"] = {"time": when, "first": first, "last": last, "reason": reason}
        # Advisory (status display, schedule hint): atomic for readers, not fsynced — a power loss only makes the
        # next scheduled run come early.
        atomic_write(self.path, orjson.dumps(self.data, option=orjson.OPT_INDENT_2) + b"\n", fsync=False)

    @property
    def last_run(self) -> dict[str, Any] | None:
        value = self.data.get("last_run")
        return value if isinstance(value, dict) else None

    @property
    def model_unavailable(self) -> dict[str, Any] | None:
        value = self.data.get("model_unavailable")
        return value if isinstance(value, dict) else None

    @property
    def last_rejection(self) -> dict[str, Any] | None:
        value = self.data.get("last_rejection")
        return value if isinstance(value, dict) else None

    @property
    def last_completed(self) -> datetime | None:
        return parse_time(self.data.get("last_completed"))


@dataclass
class Attempts:
    path: Path
    first: int | None = None
    count: int = 0
    reasons: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, state_dir: Path) -> Attempts:
        path = Path(state_dir) / "dream-attempts.json"
        data = _read(path)
        first, count, reasons = data.get("first"), data.get("count"), data.get("reasons")
        if not isinstance(first, int) or not isinstance(count, int) or count < 0:
            return cls(path)
        return cls(path, first, count, [str(r) for r in reasons] if isinstance(reasons, list) else [])

    def for_batch(self, first: int) -> int:
        """Failed attempts so far on the batch starting at ``first``."""
        return self.count if self.first == first else 0

    def fail(self, first: int, reason: str) -> int:
        """Count one more failure on this batch; returns the new count."""
        if self.first != first:
            self.first, self.count, self.reasons = first, 0, []
        self.count += 1
        self.reasons = (self.reasons + [reason])[-10:]
        atomic_write(self.path, orjson.dumps({"first": self.first, "count": self.count, "reasons": self.reasons}))
        return self.count

    def clear(self) -> None:
        if self.path.exists():
            self.path.unlink()
        self.first, self.count, self.reasons = None, 0, []


@dataclass(frozen=True)
class DreamStatusSummary:
    """Dream's part of ``reverie status``: the last run, the last gate rejection, batches set aside, and failed
    attempts on the batch now pending."""

    last_run: dict[str, Any] | None
    last_rejection: dict[str, Any] | None
    dead_letters: list[dict[str, Any]]
    attempts: int
    model_unavailable: dict[str, Any] | None = None


def summarize(state_dir: Path, deadletters: list[DeadLetter]) -> DreamStatusSummary:
    record = StatusRecord.load(state_dir)
    attempts = Attempts.load(state_dir)
    letters = [{"first": d.first, "last": d.last, "reason": d.reason, "time": d.time} for d in deadletters]
    return DreamStatusSummary(record.last_run, record.last_rejection, letters, attempts.count,
                              record.model_unavailable)
