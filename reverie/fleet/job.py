"""One fleet job: Dream for one workspace under its lease, fenced, then its due entry put right.

Steps: take the lease (``SET NX``; a duplicate delivery finds it held and does nothing) → count the
start (a workspace whose jobs keep dying is parked) → bump the workspace's epoch
(``reverie.dream.fence``) → run ``Dream.run(drain=True)`` with the epoch and a lease check, while a
heartbeat thread renews the lease and the claim and cancels the run when the lease is lost →
un-mark, then re-check pending and re-mark (no lost wake-up: an appender appends, then marks) →
release the lease. Every write of the run is checked by the fence, so a job that lost its lease
while paused writes nothing even if it wakes up mid-run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..dream import DreamResult
from ..dream.fence import bump_epoch, identity, still_there
from ..errors import FencedError, ReverieError, WorkspaceError
from ..memory.runtime import Runtime
from ..schedule.policy import retry_delay, verdict
from ..storage.config import FleetConfig
from ..storage.scopes import DueMarkers, RootKind, ScopeRoot, check_no_link, read_root_kind
from .coord import Coordinator

__all__ = [
    "JobOutcome",
    "run_dream_job",
    "workspace_path",
    "workspace_ids",
    "pending",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobOutcome:
    """What a job did. ``status``: a Dream status, or ``leased`` (another job holds the workspace),
    ``fenced``, ``lease-lost``, ``parked``, ``gone`` (no such workspace), ``error`` or
    ``redis-error`` (Redis failed under the job: its claim lapses and it is sent again)."""

    ws: str
    status: str
    reason: str | None = None
    first: int | None = None
    last: int | None = None
    commit: str | None = None
    tokens: int = 0
    seconds: float = 0.0
    next_due: float | None = None

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def workspace_path(root: Path, ws_id: str, kind: RootKind) -> Path:
    """The directory of workspace ``ws_id``: in a root of scopes, a scope's due-marker name (``<user
    digest>`` or ``<user digest>.<agent digest>``); in a plain root, a relative POSIX path under
    ``root``. Raises ``WorkspaceError`` for anything else: an absolute path, ``..``, ``.``, empty
    parts, a backslash or NUL, and a symbolic link anywhere on the way (never followed, even to
    another workspace of the root)."""
    if kind == "scopes":
        found = ScopeRoot(root).workspace_of_due(ws_id)
        if found is None:
            raise WorkspaceError(f"fleet: {ws_id[:80]!r} is not a scope's name under {root}")
        return found.root
    parts = PurePosixPath(ws_id).parts
    bad = (
        not ws_id
        or ws_id.startswith("/")
        or "\\" in ws_id
        or "\0" in ws_id
        or ws_id != str(PurePosixPath(ws_id))
        or any(p in (".", "..") for p in parts)
    )
    if bad:
        raise WorkspaceError(
            f"fleet: {ws_id!r} is not a workspace id (a relative path under the fleet root)"
        )
    root = Path(root).absolute()
    check_no_link(root, parts)
    return root.joinpath(*parts)


def workspace_ids(root: Path, kind: RootKind) -> Iterator[str]:
    """Every workspace under ``root``: a plain root's directories holding ``memory/history.jsonl``
    (hidden directories, links and a workspace's own subdirectories are not searched); a scope
    root's scopes."""
    root = Path(root)
    if kind == "scopes":
        yield from (scope.name for scope, _ws in ScopeRoot(root).scopes())
        return
    stack = [root]
    while stack:
        here = stack.pop()
        if (here / "memory" / "history.jsonl").is_file():
            yield here.relative_to(root).as_posix()
            continue
        try:
            children = sorted(
                (e for e in here.iterdir() if e.is_dir() and not e.is_symlink()), reverse=True
            )
        except OSError as exc:
            log.warning("fleet: cannot list %s (%s); skipped", here, exc)
            continue
        stack.extend(c for c in children if not c.name.startswith("."))


def pending(path: Path) -> int:
    """History entries of the workspace at ``path`` that Dream has not consumed (0 for no
    workspace)."""
    if not (path / "memory" / "history.jsonl").is_file():
        return 0
    return Runtime(path).store.pending_count()


class _Heartbeat(threading.Thread):
    """Renews the lease and the claim every ``heartbeatSeconds``; ``check()`` says why the run may
    no longer write (the lease was taken, or it has less than ``fenceMarginSeconds`` left by this
    process's clock), and ``on_lost`` is called once when that first happens."""

    def __init__(
        self, coord: Coordinator, ws: str, token: str, cfg: FleetConfig, on_lost: Callable[[], None]
    ):
        super().__init__(name=f"reverie-lease-{ws}", daemon=True)
        self.coord, self.ws, self.token, self.cfg, self.on_lost = coord, ws, token, cfg, on_lost
        self.valid_until = time.monotonic() + cfg.lease_seconds
        self.lost: str | None = None
        self._stop = threading.Event()

    def check(self) -> str | None:
        if self.lost is not None:
            return self.lost
        left = self.valid_until - time.monotonic()
        if left < self.cfg.fence_margin_seconds:
            margin = self.cfg.fence_margin_seconds
            return f"the lease has {max(left, 0):.1f} s left, under the {margin:g} s margin"
        return None

    def run(self) -> None:
        import redis

        while not self._stop.wait(self.cfg.heartbeat_seconds):
            sent = time.monotonic()
            try:
                if self.coord.renew(
                    self.ws, self.token, self.cfg.lease_seconds, self.cfg.claim_seconds
                ):
                    self.valid_until = sent + self.cfg.lease_seconds
                else:
                    self.lost = (
                        "the lease was taken over (expired while this job was paused or cut off)"
                    )
            except redis.RedisError as exc:
                log.warning("fleet: lease renewal for %s failed: %s", self.ws, exc)
            if self.lost is None and self.check() is not None:
                self.lost = f"the lease could not be renewed in time ({self.check()})"
            if self.lost is not None:
                self.on_lost()
                return

    def stop(self) -> None:
        self._stop.set()


def _due_after(
    coord: Coordinator,
    cfg: FleetConfig,
    ws: str,
    result: tuple[str, str | None],
    progressed: bool,
) -> float | None:
    """When the workspace is next due after a finished run (None: whenever pending history says),
    by the schedulers' one rule (``reverie.schedule.policy.verdict``): a failure backs off,
    doubling — unless the run moved the cursor first (a drain stopped by its budget is progress);
    a model that is unavailable pauses every dispatch and costs no failure; a run another process
    held the lock for is tried again after ``retryBackoffSeconds``."""
    now = coord.now()
    outcome = verdict(*result, progressed=progressed)
    if outcome == "unavailable":
        first = cfg.outage_backoff_seconds
        return coord.pause(now, first, max(cfg.retry_backoff_max_seconds, first))
    if outcome == "busy":
        return now + cfg.retry_backoff_seconds
    if outcome == "failed":
        n = coord.failed(ws)
        return now + retry_delay(n, cfg.retry_backoff_seconds, cfg.retry_backoff_max_seconds)
    coord.succeeded(ws)
    coord.outage_over()
    return None


@dataclass
class _Job:
    """One job's fixed facts: where, which workspace, its lease token, and the identity (device,
    inode) of the workspace directory it started in — what every write it makes, in the workspace
    and in Redis, is checked against (``forget-user`` moves the directory away)."""

    coord: Coordinator
    cfg: FleetConfig
    root: Path
    kind: RootKind
    ws: str
    token: str
    start: float
    path: Path | None = None
    identity: tuple[int, int] | None = None


def run_dream_job(
    coord: Coordinator,
    cfg: FleetConfig,
    root: Path,
    ws: str,
    kind: RootKind,
    runtime: Callable[[Path], Runtime] = Runtime,
) -> JobOutcome:
    """Run Dream for workspace ``ws`` under ``root`` as one fleet job (see the module docstring). A
    Redis fault ends the job with one line saying what happens next (its claim lapses and the
    dispatcher sends it again), never a traceback; any other error ends it with one line too, the
    workspace due again after the failure back-off (`_back_off`)."""
    import redis

    job = _Job(
        coord,
        cfg,
        root,
        kind,
        ws,
        f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex}",  # who holds it, for people
        time.monotonic(),
    )
    try:
        return _leased(job, runtime)
    except redis.RedisError as exc:
        # a lost connection or a timeout was tried again (redis-py's Retry); an answer refusing
        # the write (OOM under maxmemory, READONLY, NOREPLICAS) was not: it is what Redis said
        lost = isinstance(exc, (redis.ConnectionError, redis.TimeoutError))
        failed = f"failed after {Coordinator.RETRIES} retries" if lost else "refused"
        reason = (
            f"Redis {failed} ({_one_line(exc)}); the job stops here and the workspace is sent "
            f"again once its claim lapses (within {cfg.claim_seconds:g} s of Redis taking "
            "writes again)"
        )
        log.error("fleet: %s: %s", ws, reason)
        return JobOutcome(ws, "redis-error", reason, seconds=time.monotonic() - job.start)
    except Exception as exc:  # noqa: BLE001 - one workspace's fault, or a bug: it backs off
        # the workspace refused before its run (a link out of it, its state directory not one),
        # the bookkeeping after it did (a marker refused, a lock timed out, a full disk), or a bug
        # on the way (a traceback at debug level; the job's line says what it was)
        if isinstance(exc, ReverieError):
            text = str(exc)
        elif isinstance(exc, OSError):
            text = f"{type(exc).__name__}: {exc}"
        else:
            log.debug("fleet: %s: unexpected error", ws, exc_info=True)
            text = f"unexpected error: {type(exc).__name__}: {_one_line(exc)}"
        try:
            due = _back_off(job, text)
            then = f"tried again in {due - coord.now():.0f} s" if due else "not made due again"
        except (ReverieError, OSError, redis.RedisError) as again:
            due = None
            then = f"it could not be made due again: {_one_line(again)}"
        log.error("fleet: %s: %s; %s", ws, text, then)
        return JobOutcome(ws, "error", text, seconds=time.monotonic() - job.start, next_due=due)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _leased(job: _Job, runtime: Callable[[Path], Runtime]) -> JobOutcome:
    coord, cfg, ws = job.coord, job.cfg, job.ws
    _tell_unheard(coord)
    if not coord.acquire(ws, job.token, cfg.lease_seconds, cfg.claim_seconds):
        return JobOutcome(ws, "leased", f"held by job {coord.holder(ws)}")
    try:
        try:
            kind = read_root_kind(job.root)
        except ReverieError:  # a kind file that is a link, a device, garbage: not the fleet's
            kind = None
        if kind != job.kind:
            return _no_root(job)
        if job.kind == "scopes":
            try:
                ScopeRoot(job.root)
            except WorkspaceError as exc:  # the root itself refused (a link): no scope is gone
                return _no_root(job, str(exc))
        try:
            job.path = workspace_path(job.root, ws, job.kind)
        except WorkspaceError as exc:
            return _gone(job, str(exc))
        job.identity = identity(job.path)
        if job.identity is None or not (job.path / "memory" / "history.jsonl").is_file():
            return _gone(job, f"no workspace at {job.path}")
        why = coord.parked_why(ws)
        if why is not None:
            # a message sent before it was parked, or sent again after its worker died (Celery
            # requeues a killed job's message): a parked workspace is not run until unparked, or a
            # job that kills its worker would keep doing so on every redelivery
            reason = f"parked ({why or 'no reason kept'}): reverie fleet unpark {ws}"
            log.warning("fleet: %s not run: %s", ws, reason)
            return JobOutcome(ws, "parked", reason)
        died = coord.started(ws)
        if died >= cfg.crash_park_after:
            reason = f"{died} jobs died mid-run (killed, or past the hard time limit)"
            coord.park(ws, reason)
            log.error("fleet: workspace %s parked: %s", ws, reason)
            return JobOutcome(ws, "parked", reason)
        try:
            return _run(job, runtime)
        finally:
            _finished(coord, ws)  # the job ended here, whatever its bookkeeping did: it did not die
    finally:
        try:
            # a job that ended without a finished run gives its claim's tokens back
            coord.settle(ws, 0, cfg.tokens_per_minute)
        finally:
            coord.release(ws, job.token)


#: Workspaces whose job ended in this process while Redis could not hear it: their start would
#: count as a job that died (three Redis outages under a healthy workspace's jobs parked it). Told
#: to Redis before this process's next job.
_unheard: set[str] = set()


def _finished(coord: Coordinator, ws: str) -> None:
    """Tell Redis ``ws``'s job ended (it did not die); if Redis fails, remember it for later."""
    import redis

    try:
        coord.finished(ws)
    except redis.RedisError:
        _unheard.add(ws)
        raise
    _unheard.discard(ws)


def _tell_unheard(coord: Coordinator) -> None:
    """Tell Redis the ends it missed (`_unheard`), before a new job starts here."""
    for ws in sorted(_unheard):
        coord.finished(ws)
        _unheard.discard(ws)


def _no_root(job: _Job, why: str | None = None) -> JobOutcome:
    """The fleet root itself is not what the job was sent for (missing, empty, or another kind of
    root: the shared file system not mounted on this worker, or mounted elsewhere; or refused, as
    ``why`` says: a root of scopes reached through a symbolic link): no workspace of it can be
    judged gone from here, so nothing is removed; the workspace is due again after the failure
    back-off (another worker, or this one once the root is back, takes it)."""
    reason = (
        f"the fleet root {job.root} is missing or is not a {job.kind} root (the shared file system "
        "not mounted on this worker?); nothing was removed"
        if why is None
        else f"the fleet root refused: {why}; nothing was removed"
    )
    due = _due_after(job.coord, job.cfg, job.ws, ("error", reason), progressed=False)
    due = due if due is not None else job.coord.now()
    job.coord.make_due({job.ws: due})
    log.error("fleet: %s: %s; tried again in %.0f s", job.ws, reason, due - job.coord.now())
    return JobOutcome(job.ws, "error", reason, next_due=due)


def _gone(job: _Job, reason: str) -> JobOutcome:
    """No workspace to dream (forgotten, never written, or reached only through a link): take it
    out of the due index and remove its stray marker — then check again and mark it back if a
    workspace with history pending appeared meanwhile (unmark, then check: a new append marks it
    itself)."""
    job.coord.unmark(job.ws)
    markers = DueMarkers(job.root, job.kind)
    markers.unmark(job.ws)
    try:
        path = workspace_path(job.root, job.ws, job.kind)
    except WorkspaceError:
        path = None
    if path is not None and pending(path) > 0:
        markers.mark(job.ws)
        job.coord.make_due({job.ws: job.coord.now()})
    log.warning("fleet: %s gone: %s; its due entry and marker are removed", job.ws, reason)
    return JobOutcome(job.ws, "gone", reason)


def _run(job: _Job, runtime: Callable[[Path], Runtime]) -> JobOutcome:
    coord, cfg, ws, start = job.coord, job.cfg, job.ws, job.start
    assert job.path is not None
    rt = runtime(job.path)
    dream = rt.dream
    try:
        dream.epoch = bump_epoch(rt.workspace.state_dir)
    except WorkspaceError as exc:
        if identity(job.path) == job.identity:
            raise  # the workspace is there and refused (a link in it): an error, backing off
        return _interrupted(job, "fenced", str(exc))  # removed (forget-user) since the job began
    if not coord.renew(
        ws, job.token, cfg.lease_seconds, cfg.claim_seconds
    ):  # paused past the lease before the bump
        return _interrupted(job, "lease-lost", "the lease expired before the run started")
    task: asyncio.Task[DreamResult] | None = None
    loop: asyncio.AbstractEventLoop | None = None

    def cancel() -> None:
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the run ended and its loop closed meanwhile
                pass

    beat = _Heartbeat(coord, ws, job.token, cfg, cancel)
    dream.lease_check = beat.check

    async def main() -> DreamResult:
        nonlocal task, loop
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(dream.run(drain=True))
        return await task

    cursor = rt.store.dream_cursor()
    beat.start()
    try:
        result = asyncio.run(main())
    except asyncio.CancelledError:
        return _interrupted(job, "lease-lost", beat.lost or "cancelled")
    except FencedError as exc:
        return _interrupted(job, "fenced", str(exc))
    except Exception as exc:  # noqa: BLE001 - one workspace's fault, or a bug: it backs off
        # (serve --root's rule); it was re-sent every claimSeconds, a traceback each time
        text = str(exc)
        if not isinstance(exc, (ReverieError, OSError)):
            log.debug("fleet: %s: unexpected error", ws, exc_info=True)
            text = f"unexpected error: {type(exc).__name__}: {exc}"
        log.warning("fleet: Dream for %s failed: %s", ws, text)
        due = _back_off(job, text)
        return JobOutcome(ws, "error", text, seconds=time.monotonic() - start, next_due=due)
    finally:
        beat.stop()
        rt.git.close()
    if result.status == "already-running":
        # a local run (CLI, serve, or a stopped job on this host) holds the run lock: the workspace
        # stays due, tried again after retryBackoffSeconds (serve --root's rule for the same case)
        with still_there(job.path, job.identity) as here:
            due = coord.now() + cfg.retry_backoff_seconds if here else None
            if due is not None:
                coord.make_due({ws: due})
        return JobOutcome(
            ws, result.status, result.reason, seconds=time.monotonic() - start, next_due=due
        )
    due = _settle(job, rt, result, progressed=rt.store.dream_cursor() > cursor)
    return JobOutcome(
        ws,
        result.status,
        result.reason,
        result.first,
        result.last,
        result.commit,
        result.usage.total_tokens,
        time.monotonic() - start,
        due,
    )


def _settle(job: _Job, rt: Runtime, result: DreamResult, *, progressed: bool) -> float | None:
    """After a finished run: count it and its tokens, record its set-aside batches, then un-mark the
    workspace and re-check (un-mark, then check: an append after the check marks the workspace
    itself). All under the workspace's fence lock, and only while it is still the workspace the job
    began in: a workspace forgotten meanwhile gets nothing written back. Returns when it is due
    next."""
    coord, cfg, ws = job.coord, job.cfg, job.ws
    coord.record_run(ws, result.status, result.usage.total_tokens, cfg.tokens_per_minute)
    assert job.path is not None
    with still_there(job.path, job.identity) as here:
        if not here:
            coord.unmark(ws)
            return None
        coord.set_aside(ws, len(rt.dream.set_aside()))
        due = _due_after(coord, cfg, ws, (result.status, result.reason), progressed)
        markers = DueMarkers(job.root, job.kind)
        coord.unmark(ws)
        markers.unmark(ws)
        left = rt.store.pending_count()
        if due is None and left > 0:
            due = coord.now() + cfg.debounce_seconds
        if left > 0:
            # the disk first: if Redis fails next (or loses its data), the marker brings it back
            markers.mark(ws)
        if due is not None:
            coord.make_due({ws: due})
        return due


def _back_off(job: _Job, reason: str) -> float | None:
    """A job that ended in an error (its run raised, or the workspace refused before or after it):
    the workspace is due again after the failure back-off, doubling with each failure in a row
    (``_due_after``), so a workspace that fails every time is neither dropped from the due index
    with its history pending nor sent again in a hot loop. Nothing is written back for a workspace
    that is gone (forgotten, never written); one whose state directory is broken (so its fence lock
    cannot be taken) but which is still the directory the job began in is made due all the same.
    Returns when it is due next (None: gone)."""
    if job.path is None or job.identity is None:
        return None
    with still_there(job.path, job.identity) as here:
        if not here and identity(job.path) != job.identity:
            return None
        due = _due_after(job.coord, job.cfg, job.ws, ("error", reason), progressed=False)
        due = due if due is not None else job.coord.now()
        job.coord.unmark(job.ws)
        job.coord.make_due({job.ws: due})
        return due


def _interrupted(job: _Job, status: str, reason: str) -> JobOutcome:
    """A run stopped by its fence or its lease: nothing written. The workspace stays due (or is due
    now, if its new holder finished and un-marked it meanwhile), so it is never left pending without
    an entry — unless it is gone (forgotten): then nothing of it is written back."""
    log.warning("fleet: %s: %s: %s", job.ws, status, reason)
    assert job.path is not None
    with still_there(job.path, job.identity) as here:
        if here:
            job.coord.make_due({job.ws: job.coord.now()})
    return JobOutcome(job.ws, status, reason, seconds=time.monotonic() - job.start)
