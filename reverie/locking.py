"""Exclusive cross-process locks on a lock file with ``flock``: the one polling loop every hand-taken lock uses.

A ``flock`` belongs to an open file description, so two descriptors of one file exclude each other whether they are
held by two processes or by two threads of one process; filelock's Unix lock is the same kind, so the two
interoperate. Much cheaper than filelock on a hot path (three system calls), and it does not import asyncio.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import LockTimeoutError, ReverieError
from .fsutil import open_for_write

__all__ = ["wait_flock", "exclusive"]


def wait_flock(fd: int, timeout: float, busy: str) -> None:
    """Take an exclusive ``flock`` on ``fd``, polling with backoff; ``LockTimeoutError(busy)`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockTimeoutError(busy) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.02)


@contextmanager
def exclusive(path: Path, timeout: float, busy: str) -> Iterator[None]:
    """Hold ``path``'s lock for the block. The descriptor is opened here and closed at the end (closing releases
    the lock), so nothing stays open between uses and a forked child never shares the lock."""
    try:
        fd = open_for_write(path, os.O_RDWR | os.O_CREAT)
    except OSError as exc:
        raise ReverieError(f"cannot open the lock file {path}: {exc.strerror or exc}") from exc
    try:
        wait_flock(fd, timeout, busy)
        yield
    finally:
        os.close(fd)
