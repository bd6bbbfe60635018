"""Dream's small state records in ``memory/.reverie/`` (``Workspace.state_dir``). This docstring is
the spec.

``dream-status.json`` — what ``reverie status`` shows and what the scheduler counts from::

    {"last_run": {"time": ISO, "status": "ok", "first": 31, "last": 50, "reason": null,
                  "commit": "<sha>"},
     # the last run that finished a batch (ok, no-change, dead-lettered)
     "last_completed": ISO,
     "last_rejection": {"time": ISO, "first": 31, "last": 50, "reason": "..."},
     "model_unavailable": {"since": ISO, "reason": "...", "kind": "not-answering"}}
                                     # while runs fail because the model is unreachable or silent

``dream-attempts.json`` — failed attempts on the batch starting after the Dream cursor::

    {"first": 31, "count": 2, "reasons": ["...", "..."]}

Both are replaced atomically (``atomic_write``); a missing or corrupt record reads as empty, with a
warning for corrupt ones, because both are advisory: the cursor and the repo remain the truth. A
record inside ``dream-status.json`` without one of its keys, or with a value of the wrong type, is
corrupt too: it reads as absent, with a warning, so no reader ever meets a half record.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

import orjson

from ..storage.fsutil import atomic_write
from ..text.dates import parse_timestamp

if TYPE_CHECKING:
    from .deadletter import DeadLetter

__all__ = [
    "Attempts",
    "StatusRecord",
    "DreamStatusSummary",
    "summarize",
    "now_iso",
    "parse_time",
    "RunRecord",
    "RejectionRecord",
    "OutageRecord",
    "DeadLetterRecord",
]

log = logging.getLogger(__name__)


class RunRecord(TypedDict):
    """``last_run``: the outcome of the last Dream run (``first``/``last`` None when no batch was
    read)."""

    time: str
    status: str
    first: int | None
    last: int | None
    reason: str | None
    commit: str | None


class RejectionRecord(TypedDict):
    """``last_rejection``: the last run the gate rejected."""

    time: str
    first: int | None
    last: int | None
    reason: str | None


class OutageRecord(TypedDict):
    """``model_unavailable``: since when runs fail because the model cannot be reached; ``kind`` is
    the failure's (``not-answering`` for a provider that timed out, ``unreachable`` …)."""

    since: str
    reason: str | None
    kind: NotRequired[str]


class DeadLetterRecord(TypedDict):
    """A batch set aside, as ``reverie status`` lists it."""

    first: int
    last: int
    reason: str
    time: str


_Types = Mapping[str, tuple[type, ...]]
_OPT_INT, _OPT_STR = (int, type(None)), (str, type(None))
_RUN: _Types = {
    "time": (str,),
    "status": (str,),
    "first": _OPT_INT,
    "last": _OPT_INT,
    "reason": _OPT_STR,
    "commit": _OPT_STR,
}
_REJECTION: _Types = {"time": (str,), "first": _OPT_INT, "last": _OPT_INT, "reason": _OPT_STR}
_OUTAGE: _Types = {"since": (str,), "reason": _OPT_STR}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_time(value: Any) -> datetime | None:
    parsed = parse_timestamp(value)
    if parsed is None:
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

    def record_run(
        self,
        status: str,
        first: int | None,
        last: int | None,
        reason: str | None,
        commit: str | None,
        *,
        unavailable: bool = False,
        outage: str | None = None,
    ) -> None:
        when = now_iso()
        # "since" is the first failure of the outage; a run that reached the model ends it
        if unavailable:
            previous = self.model_unavailable
            since = previous["since"] if previous is not None else when
            self.data["model_unavailable"] = {
                "since": since,
                "reason": reason,
                "kind": outage or "unreachable",
            }
        else:
            self.data.pop("model_unavailable", None)
        self.data["last_run"] = {
            "time": when,
            "status": status,
            "first": first,
            "last": last,
            "reason": reason,
            "commit": commit,
        }
        if status in ("ok", "no-change", "dead-lettered"):
            self.data["last_completed"] = when
        if status == "rejected":
            self.data["last_rejection"] = {
                "time": when,
                "first": first,
                "last": last,
                "reason": reason,
            }
        # Advisory (status display, schedule hint): atomic for readers, not fsynced — a power loss
        # only makes the next scheduled run come early.
        atomic_write(
            self.path, orjson.dumps(self.data, option=orjson.OPT_INDENT_2) + b"\n", fsync=False
        )

    def _valid(self, key: str, types: _Types) -> dict[str, Any] | None:
        """The record ``key`` with every key of ``types``, each of its type; None (with a warning)
        otherwise."""
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, dict) and all(
            k in value and isinstance(value[k], allowed) and not isinstance(value[k], bool)
            for k, allowed in types.items()
        ):
            return value
        log.warning("%s: %r is malformed (expected %s); ignored", self.path, key, ", ".join(types))
        return None

    @property
    def last_run(self) -> RunRecord | None:
        v = self._valid("last_run", _RUN)
        if v is None:
            return None
        return RunRecord(
            time=v["time"],
            status=v["status"],
            first=v["first"],
            last=v["last"],
            reason=v["reason"],
            commit=v["commit"],
        )

    @property
    def model_unavailable(self) -> OutageRecord | None:
        v = self._valid("model_unavailable", _OUTAGE)
        if v is None:
            return None
        kind = v.get("kind")
        return OutageRecord(
            since=v["since"],
            reason=v["reason"],
            kind=kind if isinstance(kind, str) else "unreachable",
        )

    @property
    def last_rejection(self) -> RejectionRecord | None:
        v = self._valid("last_rejection", _REJECTION)
        if v is None:
            return None
        return RejectionRecord(time=v["time"], first=v["first"], last=v["last"], reason=v["reason"])

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
        return cls(
            path, first, count, [str(r) for r in reasons] if isinstance(reasons, list) else []
        )

    def for_batch(self, first: int) -> int:
        """Failed attempts so far on the batch starting at ``first``."""
        return self.count if self.first == first else 0

    def fail(self, first: int, reason: str) -> int:
        """Count one more failure on this batch; returns the new count."""
        if self.first != first:
            self.first, self.count, self.reasons = first, 0, []
        self.count += 1
        self.reasons = (self.reasons + [reason])[-10:]
        atomic_write(
            self.path,
            orjson.dumps({"first": self.first, "count": self.count, "reasons": self.reasons}),
        )
        return self.count

    def clear(self) -> None:
        if self.path.exists():
            self.path.unlink()
        self.first, self.count, self.reasons = None, 0, []


@dataclass(frozen=True)
class DreamStatusSummary:
    """Dream's part of ``reverie status``: the last run, the last gate rejection, batches set aside,
    and failed attempts on the batch now pending."""

    last_run: RunRecord | None
    last_rejection: RejectionRecord | None
    dead_letters: list[DeadLetterRecord]
    attempts: int
    model_unavailable: OutageRecord | None = None


def summarize(state_dir: Path, deadletters: list[DeadLetter]) -> DreamStatusSummary:
    record = StatusRecord.load(state_dir)
    attempts = Attempts.load(state_dir)
    letters = [
        DeadLetterRecord(first=d.first, last=d.last, reason=d.reason, time=d.time)
        for d in deadletters
    ]
    return DreamStatusSummary(
        record.last_run, record.last_rejection, letters, attempts.count, record.model_unavailable
    )
