"""Dream's cross-process run lock (``memory/.reverie/dream.lock``), shared by manual and scheduled runs."""

from __future__ import annotations

import asyncio
from pathlib import Path

from filelock import FileLock, Timeout

__all__ = ["RunLock"]


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
