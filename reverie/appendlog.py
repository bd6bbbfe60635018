"""Append-only JSONL files at the byte level: the writer lock, durable appends, torn-tail repair, line seeking.

Shared by ``memory/history.jsonl`` (``reverie.history``, which owns that format) and the session files
(``reverie.consolidator.sessions``). Nothing here parses a line: callers pass what "a complete line" means.
POSIX only (``flock``, ``pread``).
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Callable
from pathlib import Path

from .errors import HistoryError
from .fsutil import open_for_write, write_all
from .locking import wait_flock

log = logging.getLogger(__name__)

__all__ = ["FlockLock", "datasync", "repair_torn_tail", "write_all", "last_line_start", "next_line_start",
           "read_line", "CHUNK"]

CHUNK = 64 * 1024


class FlockLock:
    """An exclusive ``flock`` on ``history.jsonl.lock``, with its descriptor kept open between appends.

    filelock's ``FileLock`` costs ~0.8 ms per acquire/release here (it reopens the file and tracks forks);
    one ``flock`` call on an open descriptor costs microseconds, and every append takes the lock. It is the
    same kind of lock filelock's Unix lock takes, so the two exclude each other. The descriptor is reopened
    after a fork: a child must not share the parent's open file description, hence its lock.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._pid = 0

    def _descriptor(self) -> int:
        if self._fd is None or self._pid != os.getpid():
            self._fd = open_for_write(self.path, os.O_RDWR | os.O_CREAT)
            self._pid = os.getpid()
        return self._fd

    def acquire(self, timeout: float) -> None:
        try:
            fd = self._descriptor()
        except OSError as exc:
            raise HistoryError(f"cannot open the lock file {self.path}: {exc.strerror or exc}") from exc
        wait_flock(fd, timeout, f"timed out after {timeout:g}s waiting for {self.path}")

    def release(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def __del__(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            try:
                os.close(self._fd)
            except OSError:
                pass


def datasync(fd: int) -> None:
    """Make an append durable: ``fdatasync`` flushes the data and the new size, not unrelated metadata."""
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def repair_torn_tail(
    fd: int, path: Path, torn_path: Path, is_complete: Callable[[bytes], bool], *, fsync: bool = True
) -> bool:
    """Make an append-only JSONL file end with ``\\n`` before the next append; True if it had to.

    A last line without its newline is a crash mid-append: if ``is_complete`` accepts it, it only lost its
    newline and is kept; anything else moves to ``torn_path`` (fsynced, with a warning) and is cut off, so the
    next line is never glued onto garbage. ``fd`` must be open for reading and appending, under the writer lock.
    """
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return False
    start = last_line_start(fd, size)
    torn = os.pread(fd, size - start, start)
    if is_complete(torn):
        write_all(fd, b"\n")  # a complete line that only lost its newline: keep it
    else:
        out = open_for_write(torn_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            write_all(out, torn + b"\n")
            os.fsync(out)
        finally:
            os.close(out)
        os.ftruncate(fd, start)
        log.warning("%s: moved a torn last line (%d bytes) to %s", path, len(torn), Path(torn_path).name)
    if fsync:
        os.fsync(fd)
    return True


def last_line_start(fd: int, size: int) -> int:
    """Offset just after the last ``\\n`` before ``size`` (0 if none)."""
    end = size
    while end > 0:
        start = max(0, end - CHUNK)
        block = os.pread(fd, end - start, start)
        idx = block.rfind(b"\n")
        if idx >= 0:
            return start + idx + 1
        end = start
    return 0


def next_line_start(fd: int, pos: int, size: int) -> int:
    """The first line start at or after ``pos``."""
    if pos <= 0:
        return 0
    at = pos - 1
    while at < size:
        block = os.pread(fd, min(CHUNK, size - at), at)
        idx = block.find(b"\n")
        if idx >= 0:
            return at + idx + 1
        at += len(block)
    return size


def read_line(fd: int, start: int, size: int) -> tuple[bytes, int]:
    """The line starting at ``start`` (without newline) and the offset after it."""
    parts: list[bytes] = []
    at = start
    while at < size:
        block = os.pread(fd, min(4096 if not parts else CHUNK, size - at), at)
        idx = block.find(b"\n")
        if idx >= 0:
            parts.append(block[:idx])
            return b"".join(parts), at + idx + 1
        parts.append(block)
        at += len(block)
    return b"".join(parts), size
