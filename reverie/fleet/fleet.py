"""``Fleet``: the library behind ``reverie fleet`` — mark, dispatch, rebuild, status — over one
fleet root.

A chat or API node marks a workspace after a durable history append (`Fleet.mark_dirty`); the
dispatcher (`Fleet.dispatch_once`, ticked by ``reverie fleet dispatch``) admits due workspaces
against ``maxInflight`` and the token budget and sends one Celery job per workspace; workers run
`reverie.fleet.job.run_dream_job`. `Fleet.rebuild_due` re-derives the due index from the workspaces
themselves (their cursors say what is pending), so losing Redis delays Dream but skips nothing.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config import Config, FleetConfig
from ..errors import ConfigError, ReverieError
from ..scopes import ScopeRoot, due_jitter
from .coord import Coordinator, FleetState
from .job import JobOutcome, is_scope_root, pending, run_dream_job, workspace_ids, workspace_path

__all__ = ["Fleet", "RebuildReport"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RebuildReport:
    """``scanned`` workspaces; ``pending``: those with history Dream has not consumed; ``added``: newly due."""

    scanned: int
    pending: int
    added: int
    unreadable: int


class Fleet:
    """One fleet: the workspaces under ``fleet.root`` and the Redis at ``fleet.brokerUrl``."""

    def __init__(self, config: Config, coord: Coordinator | None = None) -> None:
        self.config = config
        self.cfg: FleetConfig = config.fleet
        if not self.cfg.root:
            raise ConfigError(
                "config: fleet.root is not set (the shared directory holding the workspaces; "
                "env REVERIE_FLEET__ROOT)"
            )
        self.root = Path(self.cfg.root)
        self.coord = coord if coord is not None else Coordinator.connect(self.cfg.broker_url)
        self._scopes: ScopeRoot | None = None
        self._seen: dict[str, int] = {}  # due-marker buckets already ingested, by directory mtime

    @property
    def scopes(self) -> ScopeRoot | None:
        """The root's scopes, when it is laid out by ``reverie.scopes`` (checked until it is: a new
        fleet's root gets its first scope later)."""
        if self._scopes is None and is_scope_root(self.root):
            self._scopes = ScopeRoot(self.root)
        return self._scopes

    # -- marking ------------------------------------------------------------------------------------------
    def jitter(self, ws: str) -> float:
        """A fixed per-workspace delay in ``[0, jitterSeconds)``: a mass event spreads over the window."""
        return due_jitter(ws, self.cfg.jitter_seconds)

    def mark_dirty(self, ws: str, now: float | None = None) -> bool:
        """Call after a durable history append to ``ws``: it becomes due after the debounce and its
        jitter (an earlier due time, or a claim, is kept). Returns whether it was newly marked."""
        workspace_path(self.root, ws)  # validates the id
        now = time.time() if now is None else now
        return self.coord.mark(ws, now + self.cfg.debounce_seconds + self.jitter(ws))

    # -- dispatch -----------------------------------------------------------------------------------------
    def admission(self) -> int:
        """How many jobs the dispatcher may send now: ``maxInflight`` minus live claims and leases,
        and no more than the token bucket holds runs for (by the fleet's average tokens per run)."""
        n = self.cfg.max_inflight - self.coord.inflight()
        if self.cfg.tokens_per_minute is not None:
            tokens = self.coord.tokens(self.cfg.tokens_per_minute)
            n = min(
                n, max(0, math.floor(tokens / self.coord.tokens_per_run(self.cfg.tokens_per_run)))
            )
        return max(n, 0)

    def ingest_markers(self, *, full: bool = False, now: float | None = None) -> int:
        """Under a scope root, copy the due markers that appends left on the shared file system
        (``reverie.scopes``) into the due index; only buckets changed since the last call are listed
        unless ``full``. Returns how many workspaces became due."""
        scopes = self.scopes
        if scopes is None:
            return 0
        if full:
            self._seen.clear()
        now = time.time() if now is None else now
        added = 0
        for _bucket, names in scopes.due_buckets(self._seen):
            if names:
                added += self.coord.mark_many(
                    {n: now + self.cfg.debounce_seconds + self.jitter(n) for n in names}
                )
        return added

    def dispatch_once(self, send: Callable[[str], None]) -> list[str]:
        """Ingest new due markers, claim the admitted due workspaces and ``send`` a job for each;
        returns their ids."""
        self.ingest_markers()
        ids = self.coord.claim(self.admission(), self.cfg.claim_seconds)
        for ws in ids:
            send(ws)
        return ids

    # -- jobs, repair, status -----------------------------------------------------------------------------
    def run_job(self, ws: str) -> JobOutcome:
        return run_dream_job(self.coord, self.cfg, self.root, ws)

    def rebuild_due(self, now: float | None = None) -> RebuildReport:
        """Scan every workspace under the root and mark those with pending history (slow: a repair
        after Redis lost its data; idempotent, a workspace already due or claimed keeps its entry).
        Under a scope root the scan re-creates the due markers (``ScopeRoot.rescan``), which are
        then ingested."""
        now = time.time() if now is None else now
        scanned = unreadable = 0
        due: dict[str, float] = {}
        for ws in workspace_ids(self.root):
            scanned += 1
            try:
                if pending(workspace_path(self.root, ws)) > 0:
                    due[ws] = now + self.jitter(ws)
            except (ReverieError, OSError) as exc:
                unreadable += 1
                log.warning("fleet: %s skipped: %s", ws, exc)
        scopes = self.scopes
        if scopes is not None:
            for ws in due:
                scopes.mark_due(ws)
        added = 0
        items = list(due.items())
        for i in range(0, len(items), 1000):
            added += self.coord.mark_many(dict(items[i : i + 1000]))
        added += self.ingest_markers(full=True, now=now)
        return RebuildReport(scanned, len(due), added, unreadable)

    def status(self) -> FleetState:
        return self.coord.state(self.cfg.tokens_per_minute)

    def serve_dispatch(
        self,
        send: Callable[[str], None],
        stop: threading.Event,
        on_tick: Callable[[list[str]], None] | None = None,
    ) -> None:
        """Tick `dispatch_once` every ``dispatchEverySeconds`` until ``stop`` is set. Redis down: a
        warning per tick, and dispatch resumes when it is back (nothing is lost: the due index and
        markers wait, and a workspace claimed but not sent is sent again when its claim lapses)."""
        import kombu.exceptions
        import redis

        while not stop.is_set():
            try:
                sent = self.dispatch_once(send)
            except (redis.RedisError, kombu.exceptions.OperationalError, OSError) as exc:
                log.warning(
                    "fleet dispatch: %s; retrying in %gs", exc, self.cfg.dispatch_every_seconds
                )
                sent = []
            if on_tick is not None:
                on_tick(sent)
            stop.wait(self.cfg.dispatch_every_seconds)

    def unpark(self, ws: str) -> bool:
        """Let a parked workspace be dispatched again (due now)."""
        if not self.coord.unpark(ws):
            return False
        self.coord.mark(ws, time.time())
        return True
