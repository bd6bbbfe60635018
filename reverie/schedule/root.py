"""``RootScheduler``: Dream for every scope under a root, in one process (``reverie serve --root``).

The single-workspace scheduler (``reverie.schedule.workspace``) keeps one timer per workspace; a
root may hold a million workspaces, nearly all idle, so this one keeps none for them. A scope
becomes a candidate when its history is appended: the append creates its due marker
(``reverie.storage.scopes``, mark on write), and this scheduler polls only the marker buckets whose
directory changed. A restart rebuilds the due set from the markers; ``rescan`` rebuilds the markers
from the workspaces.

For each marked scope:

- **when**: one interval after its last completed run (``dream.intervalH``, the scope's own config
  when it has a ``reverie.json``), never in the past, plus a fixed share of ``serve.jitterSeconds``
  taken from its id, so a mass event (a deploy, an outage ending) spreads out instead of firing at
  once;
- **how**: one batch (``Dream.run()``); while history stays pending after a completed batch, the
  scope is due again at once, behind the scopes already waiting: a backlog drains batch by batch,
  fairly, and each batch is admitted against the token budget;
- **at most** ``maxInflight`` runs at once; a run starts only while the token bucket
  (``serve.tokensPerMinute``, refilled continuously, debited by each run's real usage) holds at
  least the average run's tokens (until a first run has finished, only that one runs: its usage is
  the first estimate);
- **one at a time per scope**: a scope is never started twice by this process, and Dream's own run
  lock keeps out any other process (a held lock: retried after ``retryBackoffSeconds``);
- **a broken scope backs off**: a scope whose runs keep failing (or raising) is retried after
  ``retryBackoffSeconds``, doubling with each failure in a row up to ``retryBackoffMaxSeconds``,
  and each failure's log line says how many in a row and when the next try is — so it logs less
  and less, and a run that completes resets it;
- **provider down** (a run ends "model unavailable", which costs the batch no attempt): no run
  starts for ``outageBackoffSeconds``, doubling up to ``retryBackoffMaxSeconds`` while the outage
  lasts;
- **done**: the marker is removed, then the history is checked again and the marker re-created if
  entries arrived meanwhile (an appender marks after its append; this unmarks before its check: no
  wake-up is lost).

Each run goes on the event loop of a worker thread (one thread per run in flight, each with one loop
for its life): a run's commit and cursor steps write and fsync synchronously (by design: they never
await, see below), and on the scheduler's loop those waits would add up across runs; in threads they
overlap.

Stopping cancels the runs in flight at their next await, always before they write (Dream's commit
and cursor steps do not await), so they are abandoned unwritten and their markers stay.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..dream.records import StatusRecord
from ..dream.result import DreamResult
from ..dream.runner import Dream
from ..errors import ReverieError, WorkspaceError
from ..storage.config import Config, load_config
from ..storage.history import HistoryLog
from ..storage.scopes import ScopeRoot, due_jitter
from ..storage.workspace import Workspace
from .backlog import Backlog
from .policy import (
    COMPLETED,
    FAILED,
    TokenBucket,
    completed_at,
    next_due,
    next_estimate,
    retry_delay,
    verdict,
)
from .workspace import stop_on_signals

__all__ = ["RootScheduler", "serve_root", "check_root", "ServeStats", "Backlog", "OpenDream"]

#: How the scheduler gets a scope's Dream: ``lambda ws: Runtime(ws).dream``
#: (``reverie.memory.runtime``), handed in by whoever starts it, so this layer stays below the one
#: that wires the services.
OpenDream = Callable[[Workspace], Dream]

log = logging.getLogger(__name__)


@dataclass
class ServeStats:
    """What a `RootScheduler` did: runs started and finished by status, model tokens used, outage
    pauses."""

    started: int = 0
    peak: int = 0  # most runs in flight at once
    finished: dict[str, int] = field(default_factory=dict)
    tokens: int = 0
    pauses: int = 0
    errors: int = 0

    @property
    def done(self) -> int:
        return sum(self.finished.values())


class RootScheduler:
    """Runs Dream for the due scopes of ``root`` until stopped (see the module docstring)."""

    def __init__(
        self,
        root: ScopeRoot,
        open_dream: OpenDream,
        *,
        config: Config | None = None,
        max_inflight: int | None = None,
        on_result: Callable[[Workspace, DreamResult], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.root = root
        self.open_dream = open_dream
        self.config = config if config is not None else load_config()
        self.settings = self.config.serve
        self.max_inflight = max_inflight or self.settings.max_inflight
        self.on_result = on_result
        self.clock = clock
        self.stats = ServeStats()
        self._started = clock()
        self.tokens = TokenBucket(self.settings.tokens_per_minute)
        self._heap: list[tuple[float, int, str]] = []
        #: name → due time (wall clock); the heap may hold stale entries
        self._due: dict[str, float] = {}
        self._seq = 0
        self._running: dict[str, asyncio.Task[None]] = {}
        self._handles: dict[str, _Handle] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._loops = _ThreadLoops()
        self._seen: dict[str, int] = {}  # due bucket → its mtime when last listed
        self._listed: dict[str, set[str]] = {}  # due bucket → the names it held
        self._paused_until = 0.0
        self._outages = 0  # outage pauses in a row (their back-off)
        self._estimate = 0.0  # average tokens of a run, reserved when one starts
        self._wake = asyncio.Event()
        self._failures: dict[str, int] = {}  # scope → failed runs in a row (its back-off)
        #: (when, failed, tokens) of the runs of the last minute
        self._recent: deque[tuple[float, bool, int]] = deque()
        self._set_aside: dict[str, int] = {}  # scope → batches set aside, as its last run left them
        #: The latest `Backlog`, replaced whole each turn of the loop: other threads (a metrics
        #: exporter) read it without a lock.
        self.snapshot = Backlog(0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0)
        self._snapshot_at = float("-inf")

    # -- the due set -------------------------------------------------------------------------------
    @property
    def due_count(self) -> int:
        return len(self._due)

    @property
    def running(self) -> int:
        return len(self._running)

    def poll(self) -> None:
        """Take in the markers of every bucket that changed since the last poll; forget names
        whose marker went."""
        for bucket, names in self.root.due_buckets(self._seen):
            now_listed = set(names)
            for gone in self._listed.get(bucket, set()) - now_listed:
                if gone not in self._running:
                    self._due.pop(gone, None)
            self._listed[bucket] = now_listed
            for name in now_listed:
                if name not in self._due and name not in self._running:
                    self._schedule(name, self._first_due(name))

    def _schedule(self, name: str, when: float) -> None:
        self._due[name] = when
        self._seq += 1
        heapq.heappush(self._heap, (when, self._seq, name))
        self._wake.set()

    def jitter(self, name: str) -> float:
        """A fixed share of ``jitterSeconds`` for this scope, from its id."""
        return due_jitter(name, self.settings.jitter_seconds)

    def _first_due(self, name: str) -> float:
        now = self.clock()
        try:
            ws = self.root.workspace_of_due(name)
        except ReverieError:  # a link on its way: its run says so, and backs off
            return now
        if ws is None:
            return now
        status = StatusRecord.load(ws.state_dir)
        last = status.last_completed
        last_at = completed_at(None if last is None else last.timestamp(), now, status.path)
        due = next_due(last_at, self._interval(ws), now)
        return due + self.jitter(name)

    def _interval(self, ws: Workspace) -> float:
        # The scope's own config when it has one; the root's otherwise (no read per scope).
        if ws.config_path.is_file():
            try:
                return load_config(ws.root).dream.interval_h * 3600
            except ReverieError as exc:
                log.warning("serve: %s: %s; using the root's interval", ws.root, exc)
        return self.config.dream.interval_h * 3600

    # -- the loop ----------------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event) -> None:
        """Serve until ``stop`` is set; then cancel the runs in flight (before they write) and
        return."""
        poll_every = self.settings.poll_seconds
        next_poll = 0.0
        try:
            while not stop.is_set():
                now = self.clock()
                if now >= next_poll:
                    self.poll()
                    next_poll = now + poll_every
                wait = min(next_poll - now, self._admit(now))
                # (counting the due set is O(due): once a second)
                if now - self._snapshot_at >= 1.0:
                    self.snapshot, self._snapshot_at = self.backlog(now), now
                self._wake.clear()
                waiter = asyncio.ensure_future(self._wake.wait())
                stopper = asyncio.ensure_future(stop.wait())
                await asyncio.wait(
                    {waiter, stopper}, timeout=max(wait, 0.0), return_when=asyncio.FIRST_COMPLETED
                )
                waiter.cancel()
                stopper.cancel()
        finally:
            await self.cancel()

    def _admit(self, now: float) -> float:
        """Start every run that may start now; return how long until the next one might."""
        while self._heap:
            when, _, name = self._heap[0]
            if self._due.get(name) != when or name in self._running:
                heapq.heappop(self._heap)  # superseded or already running
                continue
            if when > now:
                return when - now
            if len(self._running) >= self.max_inflight:
                return 3600.0  # a finishing run wakes the loop
            if now < self._paused_until:
                return self._paused_until - now
            if self.tokens.per_minute is not None and self._estimate == 0 and self._running:
                # no run has finished yet: one probe run says what a run costs before more start
                return 3600.0
            wait = self.tokens.wait_for(self._estimate)
            if wait > 0:
                return wait
            heapq.heappop(self._heap)
            del self._due[name]
            self._start(name)
        return 3600.0

    def _start(self, name: str) -> None:
        self.stats.started += 1
        self.tokens.take(self._estimate)
        reserved = self._estimate
        handle = _Handle()
        task = asyncio.ensure_future(self._run(name, reserved, handle))
        self._running[name] = task
        self._handles[name] = handle
        self.stats.peak = max(self.stats.peak, len(self._running))

    async def _run(self, name: str, reserved: float, handle: _Handle) -> None:
        try:
            ws = self.root.workspace_of_due(name)
            if ws is None or not ws.root.is_dir():  # forgotten meanwhile
                self.root.unmark_due(name)
                return
            if not _ever_appended(ws):
                # nothing was ever appended: not a workspace yet, and a run would make it one
                # (a repository, an init commit) for nothing
                self.root.unmark_due(name)
                log.info("serve: %s: no history to dream (not a workspace yet); skipped", name)
                return
            loop = asyncio.get_running_loop()
            result, again, aside = await loop.run_in_executor(
                self._pool(), _run_in_thread, self, name, ws, handle
            )
            if not ws.root.is_dir() and self._forgotten(name):  # gone as the run opened it
                self._went_away(name)
                return
            if aside:
                self._set_aside[name] = aside
            else:
                self._set_aside.pop(name, None)
            self._finish(name, ws, result, again, reserved)
        except asyncio.CancelledError:
            pass  # stopped: abandoned before it wrote; the marker stays
        except (ReverieError, OSError) as exc:  # OSError: the disk's fault (full, denied), said
            if self._forgotten(name):  # forget-user took the scope mid-run: not its failure
                self._went_away(name)
                return
            self.stats.errors += 1
            self._recent.append((self.clock(), True, 0))
            self._retry_later(name, str(exc) if isinstance(exc, ReverieError) else _os_text(exc))
        except Exception as exc:  # noqa: BLE001 - one scope's bug must not stop the others
            if self._forgotten(name):  # its folder removed or moved mid-run (git's error, then)
                self._went_away(name)
                return
            self.stats.errors += 1
            self._recent.append((self.clock(), True, 0))
            log.debug("serve: %s: unexpected error", name, exc_info=True)
            self._retry_later(name, f"unexpected error: {type(exc).__name__}: {exc}")
        finally:
            self._running.pop(name, None)
            self._handles.pop(name, None)
            self._wake.set()

    def _went_away(self, name: str) -> None:
        log.warning(
            "serve: %s: the scope went away while it ran (forgotten, or its folder removed or "
            "moved); skipped",
            name,
        )

    def _forgotten(self, name: str) -> bool:
        """Whether ``name``'s scope is gone (forget-user); its stray marker is removed then."""
        try:
            ws = self.root.workspace_of_due(name)
            if ws is not None and ws.root.is_dir():
                return False
            self.root.unmark_due(name)
        except (ReverieError, OSError):
            return False
        return True

    def backlog(self, now: float | None = None) -> Backlog:
        """The scheduler's `Backlog` now (call on its loop; other threads read `snapshot`)."""
        now = self.clock() if now is None else now
        while self._recent and self._recent[0][0] < now - 60:
            self._recent.popleft()
        due_now = sum(1 for when in self._due.values() if when <= now)
        oldest = max((now - when for when in self._due.values() if when <= now), default=0.0)
        # Rates count the last minute's events as they are: never extrapolated from the first
        # seconds (two failures in one second are not "120 failed/min").
        span = 60.0
        runs = dict(self.stats.finished)
        if self.stats.errors:  # a run that ended in an error is a run, in the total as in the rate
            runs["error"] = runs.get("error", 0) + self.stats.errors
        return Backlog(
            due=due_now,
            waiting=len(self._due) - due_now,
            in_flight=len(self._running),
            parked=0,
            set_aside=sum(self._set_aside.values()),
            oldest_due_seconds=oldest,
            runs_per_minute=len(self._recent) * 60 / span,
            failures_per_minute=sum(1 for _, failed, _ in self._recent if failed) * 60 / span,
            tokens_per_minute=sum(t for _, _, t in self._recent) * 60 / span,
            runs=runs,
            failures=sum(n for status, n in runs.items() if status in FAILED),
            tokens=self.stats.tokens,
            paused=now < self._paused_until,
        )

    def _retry_later(self, name: str, why: str) -> None:
        """A failed run (or an error): retry after ``retryBackoffSeconds``, doubling with each
        failure in a row up to ``retryBackoffMaxSeconds``; the log line says so."""
        n = self._failures[name] = self._failures.get(name, 0) + 1
        delay = retry_delay(
            n, self.settings.retry_backoff_seconds, self.settings.retry_backoff_max_seconds
        )
        log.warning(
            "serve: %s: %s (%d failure(s) in a row; next try in %.3gs)", name, why, n, delay
        )
        self._schedule(name, self.clock() + delay)

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                self.max_inflight, thread_name_prefix="reverie-serve"
            )
        return self._executor

    def _finish(
        self, name: str, ws: Workspace, result: DreamResult, again: bool, reserved: float
    ) -> None:
        used = result.usage.total_tokens
        self.stats.tokens += used
        self.tokens.take(used - reserved)
        self._estimate = next_estimate(self._estimate, used)
        self.stats.finished[result.status] = self.stats.finished.get(result.status, 0) + 1
        now = self.clock()
        self._recent.append((now, result.status in FAILED, used))
        outcome = verdict(result.status, result.reason)
        if outcome == "unavailable":
            self._schedule(name, self._pause(now, result.reason))
        elif outcome == "completed":
            self._outages = 0
            self._failures.pop(name, None)
            if again:  # history still pending (a backlog, or an append): due, behind the others
                self._schedule(name, now)
        elif outcome == "failed":  # an attempt counted (or the batch is stuck): back off
            self._retry_later(name, f"{result.status}: {result.reason}")
        else:  # busy: another process's run holds the lock; the marker stays
            self._schedule(name, now + self.settings.retry_backoff_seconds)
        if self.on_result is not None:
            self.on_result(ws, result)

    def _pause(self, now: float, reason: str | None) -> float:
        """The model is unavailable: no run starts until the returned time. A new outage (or one
        still going after the last pause) pauses for ``outageBackoffSeconds``, doubling up to
        ``retryBackoffMaxSeconds``; runs that end so during a pause do not lengthen it."""
        if now >= self._paused_until:
            self.stats.pauses += 1
            self._outages += 1
            pause = retry_delay(
                self._outages,
                self.settings.outage_backoff_seconds,
                self.settings.retry_backoff_max_seconds,
            )
            self._paused_until = now + pause
            log.warning(
                "serve: the model is unavailable; no run starts for %.0fs (%s)", pause, reason
            )
        return self._paused_until

    async def cancel(self) -> None:
        """Cancel the runs in flight (each at its next await, before it writes) and wait for
        them."""
        for handle in list(self._handles.values()):
            handle.cancel()
        tasks = list(self._running.values())
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self._loops.close()


class _Handle:
    """A run in a worker thread, as seen from the scheduler's loop: lets ``cancel`` reach the run's
    own loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[DreamResult] | None = None
        self.cancelled = False

    def attach(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[DreamResult]) -> None:
        with self._lock:
            self._loop, self._task = loop, task
            if self.cancelled:
                task.cancel()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)


class _ThreadLoops:
    """One event loop per worker thread, kept for the thread's life and closed when the scheduler
    stops. Not one per run: model clients cache their HTTP connections per event loop (litellm keys
    its client cache by the loop's id), and a closed loop's id can come back on a new loop with the
    dead loop's client still cached."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._all: list[asyncio.AbstractEventLoop] = []
        self._lock = threading.Lock()

    def get(self) -> asyncio.AbstractEventLoop:
        loop: asyncio.AbstractEventLoop | None = getattr(self._local, "loop", None)
        if loop is None:
            loop = self._local.loop = asyncio.new_event_loop()
            with self._lock:
                self._all.append(loop)
        return loop

    def close(self) -> None:
        """After the worker threads have ended."""
        with self._lock:
            loops, self._all = self._all, []
        for loop in loops:
            loop.close()


def _run_in_thread(
    sched: RootScheduler, name: str, ws: Workspace, handle: _Handle
) -> tuple[DreamResult, bool, int]:
    """One Dream batch on this worker thread's event loop (its file writes and fsyncs then block
    only this thread), then the marker's update: unmark, then check, re-mark if history is still
    pending. Returns the result, whether the scope is due again, and its batches set aside."""
    dream = sched.open_dream(ws)
    loop = sched._loops.get()
    try:
        task = loop.create_task(dream.run())
        handle.attach(loop, task)
        result = loop.run_until_complete(task)
    finally:
        dream.git.close()
    again = False
    if result.status in COMPLETED:
        # unmark, then check: an append meanwhile re-marks, or is seen here
        sched.root.unmark_due(name)
        if dream.store.pending_count() > 0:
            sched.root.mark_due(name)
            again = True
    return result, again, len(dream.set_aside())


def _ever_appended(ws: Workspace) -> bool:
    """Whether ``ws``'s history ever held an entry (a missing or empty ``history.jsonl`` did not):
    read only."""
    if not ws.history_path.exists():
        return False
    return HistoryLog(ws.history_path, ws.cursor_path, ws.dream_cursor_path).last_cursor() > 0


def _os_text(exc: OSError) -> str:
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


async def serve_root(
    root: ScopeRoot,
    open_dream: OpenDream,
    *,
    config: Config | None = None,
    max_inflight: int | None = None,
    stop: asyncio.Event | None = None,
    handle_signals: bool = True,
    on_result: Callable[[Workspace, DreamResult], None] | None = None,
    ready: Callable[[], None] | None = None,
    started: Callable[[RootScheduler], None] | None = None,
) -> RootScheduler:
    """Run a `RootScheduler` until ``stop`` is set or SIGTERM/SIGINT arrives; returns it (for its
    stats). ``ready`` is called once the signal handlers are in place, ``started`` with the
    scheduler before it runs (to watch its `RootScheduler.snapshot` from another thread)."""
    check_root(root)
    stop = stop or asyncio.Event()
    with stop_on_signals(stop, enabled=handle_signals):
        scheduler = RootScheduler(
            root, open_dream, config=config, max_inflight=max_inflight, on_result=on_result
        )
        if ready is not None:
            ready()
        if started is not None:
            started(scheduler)
        await scheduler.run(stop)
    return scheduler


def check_root(root: ScopeRoot) -> None:
    """Refuse a root that does not exist (a mistyped path would be served, empty, for ever) or is
    a workspace (serving it would find no scope, silently)."""
    where = root.root
    if not where.exists():
        raise WorkspaceError(
            f"{where} does not exist: --root names a root of scopes (the first scope written "
            "there creates it: `reverie --root DIR --user ID init`)"
        )
    if not where.is_dir():
        raise WorkspaceError(f"{where} is not a directory: --root names a root of scopes")
    # a workspace given as the root: ScopeRoot refused it already (one check, in storage.scopes)
