"""When Dream is due, what a finished run means for the next one, how long a workspace (or every
run) waits, and what may start now: the one policy Dream's three schedulers drive.

The drivers differ only in where they keep their state: ``reverie serve`` one APScheduler job for
one workspace (``reverie.schedule.workspace``), ``reverie serve --root`` a heap of the scopes under
a root in one process (``reverie.schedule.root``), the fleet a due index in Redis and Celery
workers (``reverie.fleet``). Each asks this module:

- **due**: `next_due`, one interval after the last completed run, never in the past (an overdue run
  happens now, once); a last completed run recorded in the future (a clock that was wrong) is read
  as now, with a warning naming where it was read (`completed_at`); a root's and a fleet's
  workspaces add a fixed share of ``jitterSeconds`` from their id
  (``reverie.storage.scopes.due_jitter``) so a mass event spreads out;
- **what a run's end means**: `verdict` sorts a Dream status into completed, failed (this
  workspace backs off), unavailable (the model is down: every run pauses) or busy (another process
  holds the workspace's Dream lock: tried again after ``retryBackoffSeconds``, no failure);
- **back-off**: `retry_delay`, after ``n`` failed runs in a row, ``retryBackoffSeconds`` doubling up
  to ``retryBackoffMaxSeconds`` (``reverie.backoff``); the pause while the model is down grows the
  same way from ``outageBackoffSeconds``; the fleet dispatcher's wait while Redis is down,
  `reconnect_delay`, from ``dispatchEverySeconds``;
- **admission**: `admissible`, at most ``maxInflight`` runs at once and no more than the token
  bucket (`TokenBucket`, ``tokensPerMinute``) holds runs for at the average run's tokens
  (`next_estimate`), reserved when a run starts and settled with its real use when it ends. The
  fleet's bucket lives in Redis (``reverie.fleet.coord``, the same refill rule in one atomic
  script, shared by every dispatcher).

Where the fleet still differs from ``serve --root`` — due ``debounceSeconds`` after an append rather
than an interval after the last run, a job that drains rather than one batch, ``tokensPerRun``
rather than a probe run as the first estimate — docs/scale-design.md says why.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

from ..backoff import capped_backoff

__all__ = [
    "FAILED",
    "COMPLETED",
    "Verdict",
    "verdict",
    "model_unavailable",
    "next_due",
    "completed_at",
    "retry_delay",
    "reconnect_delay",
    "admissible",
    "next_estimate",
    "TokenBucket",
]

#: Statuses counted as a failed run (a run that wrote nothing it meant to, or no run at all).
FAILED = frozenset({"failed", "rejected", "error"})
#: Statuses of a run that did its work ("paused": a drain's overall budget ran out, nothing failed);
#: the workspace is due again only when history is still pending.
COMPLETED = frozenset({"ok", "no-change", "dead-lettered", "nothing-to-do", "paused"})
#: How Dream's reason begins when the model could not be reached (the batch is not at fault).
_UNAVAILABLE = "model unavailable"

Verdict = Literal["completed", "failed", "unavailable", "busy"]

log = logging.getLogger(__name__)


def model_unavailable(status: str, reason: str | None) -> bool:
    """Whether a run failed because the model could not be reached (no fault of the batch)."""
    return status == "failed" and (reason or "").startswith(_UNAVAILABLE)


def verdict(status: str, reason: str | None, *, progressed: bool = False) -> Verdict:
    """What a finished run means for its workspace's next one. A failure after the run moved the
    cursor (a drain that consumed batches, then failed) is progress: completed, no back-off."""
    if model_unavailable(status, reason):
        return "unavailable"
    if status in COMPLETED or (status in FAILED and progressed):
        return "completed"
    if status in FAILED:
        return "failed"
    return "busy"  # "already-running": another process's run holds the lock


def completed_at(when: float | None, now: float, source: object) -> float | None:
    """A last completed run's time (epoch seconds) as the schedule reads it: one in the future (a
    clock that was wrong when it was written, a hand edit) is read as ``now``, with one warning
    naming ``source`` (the file or commit it came from) — otherwise Dream would silently wait
    until that date, or past the last date a ``datetime`` can hold."""
    if when is None or when <= now:
        return when
    try:
        shown = datetime.fromtimestamp(when, UTC).isoformat(timespec="seconds")
    except (ValueError, OverflowError, OSError):
        shown = f"{when:.0f} s after the epoch"
    log.warning(
        "%s: the last completed Dream run is recorded at %s, in the future (a clock that was "
        "wrong?); read as now",
        source,
        shown,
    )
    return now


def next_due(last_completed: float | None, interval: float, now: float) -> float:
    """When a workspace is next due (epoch seconds): ``interval`` seconds after its last completed
    run, or ``now`` when that is past or no run has completed. A last completed run in the future
    counts as ``now`` (callers that know where it was read say so first, `completed_at`)."""
    if last_completed is None:
        return now
    return max(now, min(last_completed, now) + interval)


def retry_delay(failures: int, first: float, cap: float) -> float:
    """The delay before the next try after ``failures`` failed runs (or outage pauses) in a row:
    ``first``, doubling with each, never over ``cap`` — nor under ``first``: a cap set below the
    first delay does not shorten it."""
    return capped_backoff(failures, first, max(cap, first))


def reconnect_delay(failures: int, every: float, claim_seconds: float) -> float:
    """The fleet dispatcher's wait after ``failures`` ticks in a row found Redis down: its tick
    period, doubling, never over a minute nor a quarter of ``claimSeconds`` (a Redis back up is
    used before the claims of the jobs it lost lapse), nor under the tick period."""
    return retry_delay(failures, every, min(60.0, claim_seconds / 4))


def admissible(free: int, tokens: float | None, per_run: float, per_minute: float | None) -> int:
    """How many runs may start now: the ``free`` slots under ``maxInflight``, and no more than
    ``tokens`` (None: no budget) covers at ``per_run`` tokens a run. A run estimated above a
    minute's worth (``per_minute``) starts when the bucket is full, instead of never."""
    if tokens is not None:
        want = per_run if per_minute is None else min(per_run, float(per_minute))
        free = min(free, max(0, math.floor(tokens / max(want, 1.0))))
    return max(free, 0)


def next_estimate(previous: float, used: int) -> float:
    """The average run's tokens after a run that used ``used``: a moving average weighted to the
    recent runs (a run that used none — nothing to do, a failure before the model — says nothing
    of a run's cost and leaves it as it was; 0 means none known yet)."""
    if used <= 0:
        return previous
    return float(used) if previous <= 0 else 0.8 * previous + 0.2 * used


class TokenBucket:
    """Tokens per minute, refilled continuously up to one minute's worth; may go negative when a run
    used more than it reserved (later runs then wait longer). ``None`` means no limit."""

    def __init__(self, per_minute: int | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.level = float(per_minute or 0)
        self._at = clock()

    def _refill(self) -> None:
        now = self.clock()
        if self.per_minute is not None:
            rate = self.per_minute / 60
            self.level = min(float(self.per_minute), self.level + (now - self._at) * rate)
        self._at = now

    def wait_for(self, tokens: float) -> float:
        """Seconds until ``tokens`` are available (0: now); at most a minute's worth is asked for,
        as `admissible` does."""
        if self.per_minute is None:
            return 0.0
        self._refill()
        want = min(tokens, float(self.per_minute))
        return 0.0 if self.level >= want else (want - self.level) * 60 / self.per_minute

    def take(self, tokens: float) -> None:
        self._refill()
        self.level -= tokens
