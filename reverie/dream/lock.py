"""Dream's cross-process run lock (``memory/.reverie/dream.lock``), shared by manual and scheduled runs, and
held by every operation that must not interleave with a run: restore and revert (a ``--replay`` rewind would be
overwritten by the run's own cursor write), approve and purge (``dream_run_lock``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from ..errors import LockTimeoutError

__all__ = ["RunLock", "dream_run_lock", "WAIT_SECONDS"]

#: How long an operation waits for a running Dream before giving up with a clear error.
WAIT_SECONDS = 30.0


class RunLock:
    """A non-reentrant lock across processes and across threads/tasks of one process."""

    def __init__(self, state_dir: Path) -> None:
        Path(state_dir).mkdir(parents=True, exist_ok=True)
        self.path = Path(state_dir) / "dream.lock"
        # thread_local=False + is_singleton=False: each RunLock is its own holder, so a second Dream in the same
        # process is refused like a second process is.
        self._lock = FileLock(str(self.path), thread_local=False, is_singleton=False)

    def try_acquire(self) -> bool:
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            return False
        return True

    async def acquire(self, *, wait: bool, poll: float = 0.1) -> bool:
        """Take the lock; with ``wait`` poll until it is free (without blocking the event loop)."""
        while True:
            if self.try_acquire():
                return True
            if not wait:
                return False
            await asyncio.sleep(poll)

    def release(self) -> None:
        if self._lock.is_locked:
            self._lock.release()


@contextmanager
def dream_run_lock(state_dir: Path, what: str, timeout: float | None = None) -> Iterator[None]:
    """Hold Dream's run lock for the block, waiting up to ``timeout`` seconds (default ``WAIT_SECONDS``) for a
    running Dream, then ``LockTimeoutError``. Blocking: from an event loop that also runs Dream, call it in a
    worker thread."""
    timeout = WAIT_SECONDS if timeout is None else timeout
    lock = RunLock(state_dir)
    try:
        lock._lock.acquire(timeout=timeout, poll_interval=0.05)
    except Timeout:
        raise LockTimeoutError(f"Dream is running; {what} waited {timeout:.0f}s. Run it again when Dream is done") from None
    try:
        yield
    finally:
        lock.release()
