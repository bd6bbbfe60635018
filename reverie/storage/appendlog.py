"""Append-only JSONL files at the byte level: durable appends, torn-tail repair, line seeking.

Shared by ``memory/history.jsonl`` (``reverie.storage.history``, which owns that format) and the
session files (``reverie.storage.sessions``). Nothing here parses a line: callers pass what "a
complete line" means. Writers hold the file's lock (``reverie.storage.locking``). POSIX only
(``pread``).

Every reader is linear in the bytes it crosses, however long one line is (a partial line is kept as
a list of chunks and joined once, never re-copied per chunk), and keeps at most ``MAX_LINE_BYTES``
of one line in memory: a longer line is reported as ``None`` (too long) and skipped, never read
whole.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from .fsutil import open_regular, write_all

log = logging.getLogger(__name__)

__all__ = [
    "datasync",
    "repair_torn_tail",
    "write_all",
    "append_whole",
    "last_line_start",
    "next_line_start",
    "read_line",
    "iter_lines",
    "iter_lines_backward",
    "CHUNK",
    "MAX_LINE_BYTES",
]

CHUNK = 64 * 1024
#: The longest line a reader keeps (an entry is capped far below this: 64,000 characters by
#: default).
MAX_LINE_BYTES = 16 * 1024 * 1024


def datasync(fd: int) -> None:
    """Make an append durable: ``fdatasync`` flushes the data and the new size, not unrelated
    metadata."""
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def repair_torn_tail(
    fd: int,
    path: Path,
    torn_path: Path,
    is_complete: Callable[[bytes], bool],
    *,
    fsync: bool = True,
) -> bool:
    """Make an append-only JSONL file end with ``\\n`` before the next append; True if it had to.

    A last line without its newline is a crash mid-append: if ``is_complete`` accepts it, it only
    lost its newline and is kept; anything else moves to ``torn_path`` (fsynced, with a warning) and
    is cut off, so the next line is never glued onto garbage. ``fd`` must be open for reading and
    appending, under the writer lock.
    """
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return False
    start = last_line_start(fd, size)
    if size - start <= MAX_LINE_BYTES and is_complete(os.pread(fd, size - start, start)):
        write_all(fd, b"\n")  # a complete line that only lost its newline: keep it
    else:
        out = open_regular(torn_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            for at in range(start, size, CHUNK):  # chunk by chunk: a torn line may be huge
                write_all(out, os.pread(fd, min(CHUNK, size - at), at))
            write_all(out, b"\n")
            os.fsync(out)
        finally:
            os.close(out)
        os.ftruncate(fd, start)
        log.warning(
            "%s: moved a torn last line (%d bytes) to %s", path, size - start, Path(torn_path).name
        )
    if fsync:
        os.fsync(fd)
    return True


def append_whole(fd: int, data: bytes) -> None:
    """Append ``data`` (whole lines) to the file open on ``fd`` (``O_APPEND``, readable and
    writable, under the writer lock): all of it, or on a failed write (a full disk, a file size
    limit, a signal's exception) nothing: what part of it did reach the file is cut off again
    before the error goes on, so no torn line is left for the next append to move aside."""
    size = os.fstat(fd).st_size
    try:
        write_all(fd, data)
    except BaseException:
        try:
            if os.fstat(fd).st_size > size:
                os.ftruncate(fd, size)
        except OSError:
            pass  # the torn tail stays: the next append's repair moves it aside
        raise


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


def read_line(
    fd: int, start: int, size: int, limit: int = MAX_LINE_BYTES
) -> tuple[bytes | None, int]:
    """The line starting at ``start`` (without newline), or ``None`` when longer than ``limit``, and
    the offset after it."""
    parts: list[bytes] = []
    kept = 0
    at = start
    while at < size:
        block = os.pread(fd, min(4096 if not parts else CHUNK, size - at), at)
        if not block:
            break
        idx = block.find(b"\n")
        if idx >= 0:
            if kept + idx > limit:
                return None, at + idx + 1
            parts.append(block[:idx])
            return b"".join(parts), at + idx + 1
        at += len(block)
        kept += len(block)
        if kept > limit:
            return None, next_line_start(fd, at, size)
        parts.append(block)
    return (b"".join(parts) if kept <= limit else None), size


def iter_lines(
    fd: int, start: int, size: int, limit: int = MAX_LINE_BYTES
) -> Iterator[tuple[bytes | None, bool]]:
    """``(line, terminated)`` for each line from ``start`` to ``size``, in file order; ``line`` is
    ``None`` for a line longer than ``limit`` (skipped without being kept). Only the last line can
    be unterminated."""
    parts: list[bytes] = []  # the partial line so far, joined once when it ends
    kept = 0
    too_long = False
    at = start
    while at < size:
        block = os.pread(fd, min(CHUNK, size - at), at)
        if not block:
            break
        at += len(block)
        pieces = block.split(b"\n")
        if len(pieces) > 1:
            head = pieces[0]
            if too_long or kept + len(head) > limit:
                yield None, True
            else:
                yield (b"".join(parts) + head if parts else head), True
            parts, kept, too_long = [], 0, False
            for raw in pieces[1:-1]:
                yield (raw if len(raw) <= limit else None), True
        tail = pieces[-1]
        if tail and not too_long:
            kept += len(tail)
            if kept > limit:
                parts, too_long = [], True
            else:
                parts.append(tail)
    if too_long:
        yield None, False
    elif parts:
        yield b"".join(parts), False


def iter_lines_backward(
    fd: int, size: int, limit: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, bytes | None]]:
    """``(offset, line)`` for each line before ``size``, last first (an unterminated last line
    included; empty lines skipped); ``line`` is ``None`` when longer than ``limit``: crossed by
    searching for its start, never read whole."""
    end = size
    while end > 0:
        start = last_line_start(fd, end)
        if end > start:
            yield start, (os.pread(fd, end - start, start) if end - start <= limit else None)
        end = start - 1  # before the newline that ends the previous line
