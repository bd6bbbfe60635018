"""When Dream is due, how long a workspace waits after failures, and what may start now: the one
policy Dream's three schedulers drive.

The drivers differ only in where they keep their state: ``reverie serve`` one APScheduler job for
one workspace (``reverie.dream.scheduler``), ``reverie serve --root`` a heap of the scopes under a
root in one process (``reverie.operations.serve_root``), the fleet a due index in Redis and Celery
workers (``reverie.fleet``). Each asks this module:

- **due**: `next_due`, one interval after the last completed run, never in the past (an overdue run
  happens now, once); a root's and a fleet's workspaces add a fixed share of ``jitterSeconds`` from
  their id (``reverie.storage.scopes.due_jitter``) so a mass event spreads out;
- **back-off**: `retry_delay`, after ``n`` failed runs in a row, ``retryBackoffSeconds`` doubling up
  to ``retryBackoffMaxSeconds`` (``reverie.backoff``); ``serve --root``'s pause while the model is
  down grows the same way from ``outageBackoffSeconds``;
- **admission**: `admissible`, at most ``maxInflight`` runs at once and no more than the token
  bucket (`TokenBucket`, ``tokensPerMinute``) holds runs for. The fleet's bucket lives in Redis
  (``reverie.fleet.coord``, the same refill rule in one atomic script, shared by every dispatcher).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from ..backoff import capped_backoff

__all__ = ["next_due", "retry_delay", "admissible", "TokenBucket"]


def next_due(last_completed: float | None, interval: float, now: float) -> float:
    """When a workspace is next due (epoch seconds): ``interval`` seconds after its last completed
    run, or ``now`` when that is past or no run has completed."""
    if last_completed is None:
        return now
    return max(now, last_completed + interval)


def retry_delay(failures: int, first: float, cap: float) -> float:
    """The delay before the next try after ``failures`` failed runs in a row: ``first``, doubling
    with each failure, never over ``cap``."""
    return capped_backoff(failures, first, cap)


def admissible(free: int, tokens: float | None, per_run: float) -> int:
    """How many runs may start now: the ``free`` slots under ``maxInflight``, and no more than
    ``tokens`` (None: no budget) covers at ``per_run`` tokens a run."""
    if tokens is not None:
        free = min(free, max(0, math.floor(tokens / per_run)))
    return max(free, 0)


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
            self.level = min(
                float(self.per_minute), self.level + (now - self._at) * self.per_minute / 60
            )
        self._at = now

    def wait_for(self, tokens: float) -> float:
        """Seconds until ``tokens`` are available (0: now)."""
        if self.per_minute is None:
            return 0.0
        self._refill()
        want = min(tokens, float(self.per_minute))
        return 0.0 if self.level >= want else (want - self.level) * 60 / self.per_minute

    def take(self, tokens: float) -> None:
        self._refill()
        self.level -= tokens
