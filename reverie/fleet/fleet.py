"""``Fleet``: the library behind ``reverie fleet`` — mark, dispatch, heal, rebuild, status —
over one fleet root.

A chat or API node appends history; in a root of scopes the append leaves a due marker on the shared
disk, in a plain root the node calls `Fleet.mark_dirty`, which leaves the same kind of marker
(``reverie.storage.scopes.DueMarkers``: one implementation for both kinds of root) and makes the
workspace due in Redis (Redis down: a warning, and the marker is taken when Redis is back). A
marker stays until the job that consumed the workspace's history removes it. The dispatcher
(`Fleet.dispatch_once`, ticked by ``reverie fleet dispatch``) ingests new markers, admits due
workspaces against ``maxInflight`` and the token budget and sends one Celery job per workspace;
workers run `reverie.fleet.job.run_dream_job`.

**Redis loss heals itself.** Each tick the dispatcher reads the due index's generation
(``reverie.fleet.coord``): a Redis that lost its data has none (or another dispatcher's new one),
and the dispatcher rebuilds the index on its own — from the due markers in a root of scopes (one
listing of the due buckets), from a scan of the workspaces and the due markers in a plain root —
then writes a new generation. Every ``claimSeconds`` it also lists every due bucket in full, not
only the changed ones, so a mark lost any other way (Redis's last second of writes before a crash,
an operator's ``DEL reverie:due``, a bucket whose change a network file system's attribute cache
hid) is back within one claim period, in either kind of root. `Fleet.status`
compares Redis with the markers on disk and says when they disagree. `Fleet.rebuild_due` (``reverie
fleet rebuild-due``) is the slow repair: it scans every workspace's cursors.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import ConfigError, ReverieError, WorkspaceError
from ..schedule.policy import admissible, reconnect_delay
from ..storage.config import Config, FleetConfig
from ..storage.scopes import DueMarkers, RootKind, ScopeRoot, due_jitter, root_kind
from .coord import Coordinator, FleetState, redact_url
from .job import JobOutcome, pending, run_dream_job, workspace_ids, workspace_path

__all__ = ["Fleet", "RebuildReport"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RebuildReport:
    """``scanned`` workspaces; ``pending``: those with history Dream has not consumed; ``added``:
    newly due; ``markers``: due markers read (a root of scopes)."""

    scanned: int
    pending: int
    added: int
    unreadable: int
    markers: int = 0


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
        self._kind: RootKind | None = None
        self._scopes: ScopeRoot | None = None
        self._markers: DueMarkers | None = None
        self._seen: dict[str, int] = {}  # due-marker buckets already ingested, by directory mtime
        self._next_full = 0.0  # monotonic time of the next listing of every due bucket
        self._generation: str | None = None  # the due index's generation this process built on
        self._parked: set[str] | None = None  # parked workspaces already reported
        self._evicted: int | None = None  # Redis's evicted keys when this process last looked
        self._evictions = 0  # evictions seen and not yet rebuilt for
        self._may_evict: tuple[int, str] | None = None  # Redis's eviction settings, warned about
        self._next_evict_rebuild = 0.0  # monotonic time before which evictions wait
        self._said_no_root = False  # the root's missing kind was reported
        #: Times this process found Redis had lost its data and rebuilt the due index.
        self.rebuilds = 0

    # -- the root ----------------------------------------------------------------------------------
    @property
    def kind(self) -> RootKind | None:
        """The root's recorded kind (``reverie.storage.scopes.root_kind``); None until the root is
        made."""
        if self._kind is None:
            self._kind = root_kind(self.root)
        return self._kind

    def need_kind(self) -> RootKind:
        kind = self.kind
        if kind is None:
            raise ConfigError(
                f"fleet: {self.root} is not a fleet root yet (no workspace in it, no "
                f"reverie-root.json): reverie fleet --root {self.root} init --kind scopes|plain"
            )
        return kind

    @property
    def scopes(self) -> ScopeRoot | None:
        """The root's scopes, when it is a root of scopes."""
        if self._scopes is None and self.kind == "scopes":
            self._scopes = ScopeRoot(self.root)
        return self._scopes

    @property
    def markers(self) -> DueMarkers:
        """The root's due markers (a root of scopes: its scopes' own)."""
        if self._markers is None:
            scopes = self.scopes
            self._markers = scopes.due if scopes is not None else DueMarkers(self.root, "plain")
        return self._markers

    # -- marking -----------------------------------------------------------------------------------
    def jitter(self, ws: str) -> float:
        """A fixed per-workspace delay in ``[0, jitterSeconds)``: a mass event spreads over the
        window."""
        return due_jitter(ws, self.cfg.jitter_seconds)

    def due_at(self, ws: str, now: float) -> float:
        return now + self.cfg.debounce_seconds + self.jitter(ws)

    def mark_dirty(self, ws: str, now: float | None = None) -> bool:
        """Call after a durable history append to ``ws``: its due marker is left on the disk (a
        root of scopes' append left it already), then it becomes due in Redis after the debounce
        and its jitter (an earlier due time, or a claim, is kept). Returns whether Redis newly
        marked it. Redis down is one warning, never an error for the caller's write (it is on disk
        already): the marker waits for the dispatcher's next tick with Redis back. A disk that
        refuses the marker is one warning too when Redis has the mark (the workspace is dreamed;
        only a lost Redis would forget it until ``reverie fleet rebuild-due``)."""
        import redis

        workspace_path(self.root, ws, self.need_kind())  # validates the id
        try:
            self.markers.mark(ws)
            disk: ReverieError | OSError | None = None
        except (ReverieError, OSError) as exc:
            disk = exc
        try:
            now = self.coord.now() if now is None else now
            added = self.coord.make_due({ws: self.due_at(ws, now)}) > 0
        except (redis.RedisError, OSError) as exc:
            why = " ".join(str(exc).split()) or type(exc).__name__
            url = redact_url(self.cfg.broker_url)
            if disk is not None:
                log.warning(
                    "fleet: %s not marked due: Redis at %s failed (%s) and so did the disk (%s); "
                    "reverie fleet rebuild-due finds it",
                    ws,
                    url,
                    why,
                    disk,
                )
            else:
                log.warning(
                    "fleet: %s not marked due in Redis at %s (%s); its due marker on disk is "
                    "taken when Redis is back",
                    ws,
                    url,
                    why,
                )
            return False
        if disk is not None:
            log.warning(
                "fleet: %s marked due in Redis but not on the disk (%s): a Redis that lost its "
                "data forgets it until reverie fleet rebuild-due",
                ws,
                disk,
            )
        return added

    # -- dispatch ----------------------------------------------------------------------------------
    def admission(self, now: float | None = None) -> tuple[int, float]:
        """How many jobs the dispatcher may send now, and the tokens each reserves: ``maxInflight``
        minus live claims, none while the model is unavailable (a run found it so), and no more
        than the token bucket holds runs for at the average run's tokens
        (``reverie.schedule.policy.admissible``, the rule ``serve --root`` admits by)."""
        now = self.coord.now() if now is None else now
        if now < self.coord.paused_until():
            return 0, 0.0
        free = self.cfg.max_inflight - self.coord.inflight()
        per_minute = self.cfg.tokens_per_minute
        if per_minute is None:
            return admissible(free, None, 0.0, None), 0.0
        per_run = self.coord.tokens_per_run(self.cfg.tokens_per_run)
        return admissible(free, self.coord.tokens(per_minute), per_run, per_minute), per_run

    def ingest_markers(self, *, full: bool = False, now: float | None = None) -> int:
        """Copy the due markers left on the shared file system into the due index; only buckets
        changed since the last call are listed unless ``full``. Returns how many workspaces became
        due."""
        if full:
            self._seen.clear()
        names = [n for _bucket, found in self.markers.buckets(self._seen) for n in found]
        return self._make_due_marked(names, now)

    def _make_due_marked(
        self, names: list[str], now: float | None = None, *, debounce: bool = True
    ) -> int:
        """Make due the workspaces marked on disk, after the debounce (unless not ``debounce``: a
        rebuild) and their jitter; in a plain root a marker naming no workspace id of the root (a
        path out of it, through a link) is removed with a warning."""
        if self.kind == "plain":
            names = [n for n in names if self._plain_id_ok(n)]
        if not names:
            return 0
        now = self.coord.now() if now is None else now
        wait = self.cfg.debounce_seconds if debounce else 0.0
        return self.coord.make_due({n: now + wait + self.jitter(n) for n in names})

    def _plain_id_ok(self, ws: str) -> bool:
        try:
            workspace_path(self.root, ws, "plain")
            return True
        except WorkspaceError as exc:
            log.warning("fleet: due marker %s removed: %s", self.markers.path(ws), exc)
            self.markers.unmark(ws)
            return False

    def _evicted_since(self) -> int:
        """Keys Redis evicted (``maxmemory``) since the last tick of this process (0 on the first,
        and after Redis restarted: its count starts again). One warning when Redis is seen set to
        evict (``maxmemory`` with a policy other than ``noeviction``: every key of the fleet, and
        Celery's queue, can go), again only if those settings change."""
        seen = self.coord.evictions()
        if seen is None:
            return 0
        evicted, maxmemory, policy = seen
        if maxmemory and policy != "noeviction" and self._may_evict != (maxmemory, policy):
            log.warning(
                "fleet: Redis at %s may evict keys (maxmemory %d bytes, maxmemory-policy %s): the "
                "due index, the claims and Celery's queued jobs can go; the dispatcher rebuilds "
                "the due index when it sees an eviction. Set maxmemory-policy noeviction",
                redact_url(self.cfg.broker_url),
                maxmemory,
                policy,
            )
        self._may_evict = (maxmemory, policy) if maxmemory and policy != "noeviction" else None
        before, self._evicted = self._evicted, evicted
        return evicted - before if before is not None and evicted > before else 0

    def heal(self) -> bool:
        """Notice a Redis that lost its data (its generation is gone or another) or part of it (it
        evicted keys under ``maxmemory``: the due index or a claim may be among them while the
        generation, read every tick, stays) and rebuild the due index from the disk; returns
        whether it rebuilt. Called by every dispatch tick; a rebuild for evictions at most once a
        claim period (a plain root's is a scan of every workspace)."""
        generation = self.coord.generation()
        self._evictions += self._evicted_since()
        evicted = self._evictions if time.monotonic() >= self._next_evict_rebuild else 0
        if not evicted and generation is not None and generation == self._generation:
            return False
        rebuilt = False
        if evicted or generation is None:
            token = uuid.uuid4().hex
            if not self.coord.take("rebuilding", token, max(self.cfg.claim_seconds, 60.0)):
                # another dispatcher is rebuilding (a plain root's is a scan of every workspace):
                # this one dispatches from the markers meanwhile, and takes the index it built
                self._evictions = 0  # what it rebuilds covers them
                return False
            try:
                self._rebuild(evicted)
                rebuilt = True
            finally:
                self.coord.give_back("rebuilding", token)
        elif self._generation is not None:  # another dispatcher rebuilt it: take every marker in
            self.ingest_markers(full=True)
        self._generation = self.coord.set_generation()
        return rebuilt

    def _rebuild(self, evicted: int) -> None:
        """`heal`'s rebuild of the due index from the disk, under the right to rebuild (evicted:
        the keys Redis evicted since the last; 0: it lost its data)."""
        source = "the due markers" if self.kind == "scopes" else "a scan of the workspaces"
        if self._generation is not None:
            self.rebuilds += 1
            if evicted:
                log.error(
                    "fleet: Redis evicted %d key(s) under its maxmemory (the due index and the "
                    "claims may be among them); rebuilding the due index from %s",
                    evicted,
                    source,
                )
            else:
                log.error(
                    "fleet: Redis lost its data (the due index's generation is gone); "
                    "rebuilding the due index from %s",
                    source,
                )
        self._evictions = 0
        if evicted:
            self._next_evict_rebuild = time.monotonic() + self.cfg.claim_seconds
        report = self.rebuild_due(scan=self.kind != "scopes")
        log.warning(
            "fleet: due index built from the disk: %d due marker(s), %d workspace(s) scanned "
            "with %d pending; %d newly due (the others were due already)",
            report.markers,
            report.scanned,
            report.pending,
            report.added,
        )

    def dispatch_once(self, send: Callable[[str], None]) -> list[str]:
        """Heal a Redis that lost its data, ingest new due markers (every bucket once a claim
        period), report newly parked workspaces, claim the admitted due workspaces and ``send`` a
        job for each; returns their ids. Admission (`admission`, the claim, its reservation) is
        one dispatcher's at a time: one that finds another admitting sends nothing this tick."""
        if self.kind is None:  # nothing in the root yet: said once, Redis not asked
            if not self._said_no_root:
                self._said_no_root = True
                log.warning(
                    "fleet: %s is not a fleet root yet (no workspace in it, no reverie-root.json): "
                    "nothing to dispatch until a workspace is written there or reverie fleet "
                    "--root %s init --kind scopes|plain",
                    self.root,
                    self.root,
                )
            return []
        if not self.heal():
            full = time.monotonic() >= self._next_full
            self.ingest_markers(full=full)
            if full:
                self._next_full = time.monotonic() + self.cfg.claim_seconds
        self._report_parked()
        token = uuid.uuid4().hex
        if not self.coord.take("admitting", token, 10.0):
            return []  # another dispatcher is admitting: this one admits at its next tick
        try:
            limit, per_run = self.admission()
            ids = self.coord.claim(limit, self.cfg.claim_seconds, cap=self.cfg.max_inflight)
            if self.cfg.tokens_per_minute is not None:
                self.coord.reserve(ids, per_run, self.cfg.tokens_per_minute)
        finally:
            self.coord.give_back("admitting", token)
        for ws in ids:
            send(ws)
        return ids

    def _report_parked(self) -> None:
        """Log each workspace newly parked, once, at ERROR (a job parks it in a worker's log
        only)."""
        parked = self.coord.parked()
        now = set(parked)
        if self._parked is not None:
            for ws in sorted(now - self._parked):
                why = parked[ws]
                log.error("fleet: workspace %s parked: %s (reverie fleet unpark %s)", ws, why, ws)
        self._parked = now

    # -- jobs, repair, status ----------------------------------------------------------------------
    def run_job(self, ws: str) -> JobOutcome:
        return run_dream_job(self.coord, self.cfg, self.root, ws, self.need_kind())

    def rebuild_due(self, now: float | None = None, *, scan: bool = True) -> RebuildReport:
        """Make due every workspace the disk says is pending, and record the index's generation.
        Every due marker is ingested; with ``scan`` (the slow repair, ``reverie fleet
        rebuild-due``; in a plain root also the heal after Redis lost its data: a workspace whose
        appender never called `mark_dirty` has no marker) every workspace's cursors are read first
        and the markers of those with pending history re-created. Idempotent: a workspace already
        due or claimed keeps its entry."""
        now = self.coord.now() if now is None else now
        kind = self.need_kind()
        scanned = unreadable = 0
        due: dict[str, float] = {}
        for ws in workspace_ids(self.root, kind) if scan else ():
            scanned += 1
            try:
                if pending(workspace_path(self.root, ws, kind)) > 0:
                    due[ws] = now + self.jitter(ws)
            except (ReverieError, OSError) as exc:
                unreadable += 1
                log.warning("fleet: %s skipped: %s", ws, exc)
        for ws in due:  # the disk first: if Redis fails next (or loses its data), the marker stays
            self.markers.mark(ws)
        added = self.coord.make_due(due) if due else 0
        self._seen.clear()
        names = [n for _bucket, found in self.markers.buckets(self._seen) for n in found]
        markers = len(names)
        added += self._make_due_marked(names, now, debounce=False)
        self._next_full = time.monotonic() + self.cfg.claim_seconds
        self._generation = self.coord.set_generation()
        return RebuildReport(scanned, len(due), added, unreadable, markers)

    def status(self, *, markers: bool = True) -> FleetState:
        """The fleet's state in Redis and, with ``markers``, how it compares with the due markers on
        disk, in either kind of root: ``markers_missing``, marked on disk and unknown to Redis, the
        oldest of them marked ``markers_missing_oldest_seconds`` ago (a new mark waits one
        dispatcher tick; an old one means Redis lost it). The comparison lists every due bucket and
        every workspace Redis knows: a backlog line shown every second goes without it."""
        state = self.coord.state(self.cfg.tokens_per_minute)
        if not markers or self.kind is None:
            return state
        files = set(self.markers.files())  # a plain marker's name is its id's digest: none read
        known = self.coord.known() | set(state.running)
        missing = files - {self.markers.marker(ws) for ws in known}
        ages = [a for a in map(self.markers.age, missing) if a is not None]
        return replace(
            state,
            markers=len(files),
            markers_missing=len(missing),
            markers_missing_oldest_seconds=max(ages) if ages else None,
        )

    def serve_dispatch(
        self,
        send: Callable[[str], None],
        stop: threading.Event,
        on_tick: Callable[[list[str]], None] | None = None,
    ) -> None:
        """Tick `dispatch_once` every ``dispatchEverySeconds`` until ``stop`` is set. Redis down:
        one line per failed tick saying when the next try is (``reverie.schedule.policy
        .reconnect_delay``: the tick period, doubling, up to a minute or a quarter of
        ``claimSeconds``), and dispatch resumes when it is back (nothing is lost: the markers wait,
        and a workspace claimed but not sent is sent again when its claim lapses)."""
        import kombu.exceptions
        import redis

        failures = 0
        while not stop.is_set():
            wait = self.cfg.dispatch_every_seconds
            try:
                sent = self.dispatch_once(send)
                failures = 0
            except (redis.RedisError, kombu.exceptions.OperationalError, OSError) as exc:
                failures += 1
                wait = reconnect_delay(failures, wait, self.cfg.claim_seconds)
                log.warning(
                    "fleet dispatch: Redis at %s failed (%s); trying again in %gs",
                    redact_url(self.cfg.broker_url),
                    " ".join(str(exc).split()) or type(exc).__name__,
                    wait,
                )
                sent = []
            if on_tick is not None:
                on_tick(sent)
            stop.wait(wait)

    def unpark(self, ws: str) -> bool:
        """Let a parked workspace be dispatched again (due now); False when it was not parked."""
        return self.coord.unpark(ws)

    def forget(self, user_digest: str) -> dict[str, int]:
        """Remove every Redis entry of a forgotten user's scopes (``forget-user``)."""
        return self.coord.forget(user_digest)
