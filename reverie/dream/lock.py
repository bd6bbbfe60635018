"""Dream's cross-process run lock (``memory/.reverie/dream.lock``), shared by manual and scheduled
runs, and held by every operation that must not interleave with a run: restore and revert (a
``--replay`` rewind would be overwritten by the run's own cursor write), approve and purge
(``dream_run_lock``). Those operations also hold the write fence's lock (``reverie.dream.fence``),
so a run that lost its run lock (a network file system) cannot slip a commit between their check and
their write either. A `reverie.storage.locking.Lock`: exclusive across processes and across
threads/tasks of one process, not re-entrant, released when a holder dies."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import LockTimeoutError
from ..storage.locking import Lock, lock_path
from .fence import ensure_state_dir, refuse_linked_state_dir, section_lock

__all__ = ["RunLock", "dream_run_lock", "WAIT_SECONDS", "GRACE_SECONDS"]

#: How long an operation waits for a running Dream before giving up with a clear error.
WAIT_SECONDS = 30.0
#: How long a run that does not wait (``reverie dream``, a scheduled run) still waits for the lock
#: before answering "already-running": an edit, a removal or a restore holds it for a commit's time
#: (milliseconds), and a run must not report another run for one of those (a web app's edits under
#: load hold it most of the time, each briefly).
GRACE_SECONDS = 0.4


def _path(state_dir: Path, *, create: bool = False) -> Path:
    """The run lock's file. A Dream run (``create`` false) never creates its workspace: one removed
    under it (``forget-user``) stays removed; an operation that writes (``dream_run_lock``) creates
    the workspace's state directory as its first write would, never through a link."""
    if create:
        state_dir = refuse_linked_state_dir(state_dir)
        state_dir.mkdir(parents=True, exist_ok=True)
        return lock_path(state_dir / "dream")
    return lock_path(ensure_state_dir(state_dir) / "dream")


class RunLock:
    """One holder of Dream's run lock: a second `RunLock`, in this process or another, is refused
    while it holds."""

    def __init__(self, state_dir: Path) -> None:
        self._lock = Lock(_path(state_dir), timeout=None)
        self.path = self._lock.path

    def try_acquire(self) -> bool:
        """Take the lock if no run holds it (a scheduled run skips when it is held)."""
        return self._lock.try_acquire()

    async def acquire(self, *, wait: bool, poll: float = 0.1) -> bool:
        """Take the lock; with ``wait`` poll until it is free (without blocking the event loop),
        else give up once it stayed held ``GRACE_SECONDS`` (another run holds it)."""
        if not wait:
            if self.try_acquire():
                return True
            try:
                await self._lock.acquire_async(GRACE_SECONDS, min(poll, 0.01))
            except LockTimeoutError:
                return False
            return True
        await self._lock.acquire_async(None, poll)
        return True

    def release(self) -> None:
        self._lock.release()


@contextmanager
def dream_run_lock(state_dir: Path, what: str, timeout: float | None = None) -> Iterator[None]:
    """Hold Dream's run lock for the block, waiting up to ``timeout`` seconds (default
    ``WAIT_SECONDS``) for a running Dream, then ``LockTimeoutError``. Blocking: from an event loop
    that also runs Dream, call it in a worker thread."""
    timeout = WAIT_SECONDS if timeout is None else timeout
    busy = f"Dream is running; {what} waited {timeout:.0f}s. Run it again when Dream is done"
    with Lock(_path(state_dir, create=True), timeout=timeout, busy=busy), section_lock(state_dir):
        yield
