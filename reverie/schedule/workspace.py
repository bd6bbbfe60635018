"""``DreamScheduler``: Dream every ``intervalH`` hours (or on a legacy ``cron`` expression) for
``reverie serve``.

The workspace driver of Dream's one scheduling policy (``reverie.schedule.policy``): APScheduler 3
``AsyncIOScheduler``, one job, ``max_instances=1``, missed runs coalesced, and a run that did not
complete (another process held the lock, the model was unavailable, it failed) tried once more
before the next scheduled run, by the back-off ``serve --root`` uses. The first
run time counts from the last completed run recorded in the workspace — the newest dream commit, or
the status record's ``last_completed`` for runs that changed nothing — so restarting the service
never postpones Dream (nanobot restarts the clock at every start). Each run is
``Dream.run(drain=True)``: a backlog drains within its budget.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from ..dream.records import StatusRecord
from ..dream.result import DreamResult
from ..dream.runner import Dream
from ..errors import ConfigError, ReverieError
from ..storage.config import DreamConfig
from .policy import completed_at, next_due, retry_delay, verdict

__all__ = ["DreamScheduler", "serve", "next_run_time", "make_trigger", "stop_on_signals"]

log = logging.getLogger(__name__)

_JOB_ID = "reverie-dream"
_RETRY_ID = "reverie-dream-retry"


def make_trigger(cfg: DreamConfig, start: datetime | None = None) -> BaseTrigger:
    """``CronTrigger`` for a legacy ``cron`` expression (it wins), else an ``IntervalTrigger`` of
    ``intervalH``."""
    if cfg.cron:
        try:
            return CronTrigger.from_crontab(cfg.cron, timezone=UTC)
        except ValueError as exc:
            raise ConfigError(
                f"config: dream.cron = {cfg.cron!r}: not a cron expression ({exc})"
            ) from None
    return IntervalTrigger(hours=cfg.interval_h, start_date=start, timezone=UTC)


def next_run_time(cfg: DreamConfig, last_completed: datetime | None, now: datetime) -> datetime:
    """When the next run is due: one interval (or the next cron time) after the last completed run;
    never in the past (an overdue run happens now, once); ``now`` when Dream has never completed a
    run."""
    if last_completed is not None and last_completed > now:  # a clock that was wrong
        last_completed = now
    if last_completed is None or not cfg.cron:
        last = None if last_completed is None else last_completed.timestamp()
        due = next_due(last, cfg.interval_h * 3600, now.timestamp())
        return now if due <= now.timestamp() else datetime.fromtimestamp(due, UTC)
    fire = make_trigger(cfg).get_next_fire_time(None, last_completed + timedelta(seconds=1))
    return now if fire is None or fire <= now else fire


def _clamped(when: datetime, now: datetime, source: object) -> datetime:
    """``when`` (aware), or ``now`` when it is in the future (``policy.completed_at`` warns)."""
    if when <= now:
        return when.astimezone(UTC)
    completed_at(when.timestamp(), now.timestamp(), source)
    return now


class DreamScheduler:
    """Runs ``dream.run(drain=True)`` on schedule; ``on_start`` receives each run's task as it
    starts (a chat can then wait for it), ``on_result`` its result (for rendering)."""

    def __init__(
        self,
        dream: Dream,
        *,
        on_result: Callable[[DreamResult], None] | None = None,
        on_start: Callable[[asyncio.Task[DreamResult]], None] | None = None,
    ) -> None:
        self.dream = dream
        self.cfg = dream.config.dream
        self.on_result = on_result
        self.on_start = on_start
        self._scheduler: AsyncIOScheduler | None = None
        self._inflight: asyncio.Task[DreamResult] | None = None
        self._failures = 0  # runs failed in a row (their retry's back-off)
        self._outages = 0  # runs in a row that found the model unavailable
        self._stopping = False

    def last_completed(self, now: datetime | None = None) -> datetime | None:
        """The newest of: the last dream commit's time, the status record's last completed run;
        either one in the future (a clock that was wrong) is read as ``now``, with a warning
        (``reverie.schedule.policy.completed_at``)."""
        now = now or datetime.now(UTC)
        times = []
        try:
            commits = self.dream.git.log(limit=1, kind="dream")
        except ReverieError as exc:
            log.warning("dream scheduler: cannot read the last dream commit (%s)", exc)
            commits = []
        if commits:
            source = f"{self.dream.workspace.memory_dir}: dream commit {commits[0].short}"
            times.append(_clamped(commits[0].time, now, source))
        status = StatusRecord.load(self.dream.workspace.state_dir)
        recorded = status.last_completed
        if recorded is not None:
            times.append(_clamped(recorded, now, status.path))
        return max(times) if times else None

    def next_run_time(self, now: datetime | None = None) -> datetime:
        now = now or datetime.now(UTC)
        return next_run_time(self.cfg, self.last_completed(now), now)

    async def start(self) -> None:
        first = self.next_run_time()
        self._scheduler = AsyncIOScheduler(timezone=UTC)
        self._scheduler.add_job(
            self._tick,
            make_trigger(self.cfg, start=first),
            id=_JOB_ID,
            next_run_time=first,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=None,
        )
        self._scheduler.start()
        log.info("dream scheduler: next run at %s", first.isoformat(timespec="seconds"))

    async def stop(self) -> None:
        """Stop scheduling; a run in flight is cancelled at its next await — always before it writes
        anything (the commit and cursor steps do not await), so it is abandoned unwritten and
        retried next time, with one line saying so (no traceback: this is the documented stop)."""
        self._stopping = True
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            scheduler.pause()  # no tick is submitted from now on
            await asyncio.sleep(0)  # a tick submitted just before takes its first step: it returns
        task = self._inflight
        if task is not None and not task.done():
            task.cancel()
            try:  # the tick awaiting it wakes first and ends quietly (`_tick`)
                await task
            except asyncio.CancelledError:
                pass
        if scheduler is not None:  # nothing of ours is pending now: shutting down cancels nothing
            scheduler.shutdown(wait=False)

    async def _tick(self) -> None:
        if self._inflight is not None or self._stopping:  # one run at a time; none after stop
            return
        cursor = self._cursor()
        self._inflight = asyncio.ensure_future(self.dream.run(drain=True))
        if self.on_start is not None:
            self.on_start(self._inflight)
        try:
            result = await self._inflight
        except ReverieError as exc:
            log.error("dream scheduler: run failed to start: %s", exc)
            self._retry("error", str(exc), progressed=False)
            return
        except asyncio.CancelledError:
            if not self._stopping:
                raise
            log.warning(
                "dream scheduler: stopped; the run in flight was abandoned, its batch stays pending"
            )
            return
        finally:
            self._inflight = None
        log.info(
            "dream scheduler: %s (history %s-%s)%s",
            result.status,
            result.first,
            result.last,
            f": {result.reason}" if result.reason else "",
        )
        after = self._cursor()
        progressed = cursor is not None and after is not None and after > cursor
        self._retry(result.status, result.reason, progressed=progressed)
        if self.on_result is not None:
            self.on_result(result)

    def _cursor(self) -> int | None:
        """Dream's cursor, to tell a run that made progress (None: unreadable; the run says why)."""
        try:
            return self.dream.store.dream_cursor()
        except (ReverieError, OSError):
            return None

    def _retry(self, status: str, reason: str | None, *, progressed: bool) -> None:
        """After a run that did not complete, one extra run before the schedule's next, as
        ``serve --root`` retries a scope (``reverie.schedule.policy``, the ``serve`` section's
        knobs): after ``retryBackoffSeconds`` when another process held the lock, doubling with
        each failure in a row, and from ``outageBackoffSeconds`` while the model is unavailable;
        never later than the schedule's own next run."""
        outcome = verdict(status, reason, progressed=progressed)
        knobs = self.dream.config.serve
        if outcome == "completed":
            self._failures = self._outages = 0
            return
        if outcome == "busy":
            delay = knobs.retry_backoff_seconds
        elif outcome == "unavailable":
            self._outages += 1
            delay = retry_delay(
                self._outages, knobs.outage_backoff_seconds, knobs.retry_backoff_max_seconds
            )
        else:
            self._failures += 1
            delay = retry_delay(
                self._failures, knobs.retry_backoff_seconds, knobs.retry_backoff_max_seconds
            )
        job = self._scheduler.get_job(_JOB_ID) if self._scheduler is not None else None
        at = datetime.now(UTC) + timedelta(seconds=delay)
        if job is None or (job.next_run_time is not None and job.next_run_time <= at):
            return
        assert self._scheduler is not None
        self._scheduler.add_job(
            self._tick,
            DateTrigger(run_date=at, timezone=UTC),
            id=_RETRY_ID,
            replace_existing=True,
            misfire_grace_time=None,
        )
        log.warning(
            "dream scheduler: %s; trying again at %s", outcome, at.isoformat(timespec="seconds")
        )


async def serve(
    dream: Dream,
    *,
    stop: asyncio.Event | None = None,
    handle_signals: bool = True,
    on_result: Callable[[DreamResult], None] | None = None,
) -> None:
    """Run the scheduler until ``stop`` is set or SIGTERM/SIGINT arrives, then stop cleanly."""
    stop = stop or asyncio.Event()
    with stop_on_signals(stop, enabled=handle_signals):
        scheduler = DreamScheduler(dream, on_result=on_result)
        await scheduler.start()
        try:
            await stop.wait()
        finally:
            await scheduler.stop()


@contextmanager
def stop_on_signals(stop: asyncio.Event, *, enabled: bool = True) -> Iterator[None]:
    """Within the block, SIGTERM and SIGINT set ``stop`` (on the running loop; where signals cannot
    be handled — not the main thread — nothing is installed)."""
    loop = asyncio.get_running_loop()
    installed = []
    if enabled:
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(sig, stop.set)
                installed.append(sig)
            except (NotImplementedError, RuntimeError):  # not the main thread, or no signal support
                pass
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
