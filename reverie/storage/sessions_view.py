"""A session file read a page at a time (``SessionView``): what the web UI's conversation page
needs from a conversation of any size, in bounded memory.

`reverie.storage.sessions.SessionStore.load` parses every line into a list: right for a prompt,
but a page of the UI read a whole 1 GB session (and held it parsed, several times its size) to
show 100 messages. A view instead scans the file once in 1 MiB blocks, counting its lines in C
and noting where the line after each block's start begins (a *checkpoint*: ``(line number, byte
offset)``, about one per MiB); a message is read by seeking to the nearest checkpoint before it
and reading forward at most about one block. Memory: the checkpoints (16 bytes a MiB) and the
block being read; time: one pass over the file counting its lines (the message numbers and the
total a page shows need it), then, for the next page of the same file, only what was appended
since (the last scans are kept by inode, checked against the bytes at the file's start and
around where the scan ended).

Counting is lazy: opening a view reads the metadata line only, and the count is taken when it is
first needed (``len``). The newest page of a file too large to count at once
(``MessageLines.countless``: over `COUNT_AT_ONCE` bytes, and no scan of it kept) is read from the
file's end instead (``MessageLines.newest``: about the bytes of the messages shown), and whether
its messages are consolidated from the file's start up to where the consolidated ones end
(``MessageLines.offset_of``, within `CONSOLIDATED_REACH` bytes): a 2 GB conversation opens on its
newest page without being read whole; paging back from it counts the file once.

Message ``i`` is line ``i`` after the metadata line, as the session format counts them (its spec:
``reverie.storage.sessions``). A line that is not a message (not JSON, no string ``role``) is
shown as one (``role`` ``"unreadable"``), so the numbers stay the file's; the whole-file loader
skips such lines, and the two agree on every file without one. Reading takes no lock, as every
session read: an unterminated last line is an append in flight and is not counted.
"""

from __future__ import annotations

import bisect
import errno
import logging
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

import orjson

from ..errors import SessionError

__all__ = ["SessionView", "MessageLines", "open_view"]

log = logging.getLogger(__name__)

#: Bytes read at a time, and the spacing of checkpoints.
BLOCK = 1 << 20
#: The metadata line is read up to this many bytes (a longer first line is not a metadata line).
_META_LIMIT = 1 << 20
#: A file up to this size is counted when its newest page is asked for (about 20 ms of counting);
#: a larger one is read from its end.
COUNT_AT_ONCE = 32 << 20
#: How far from the start the end of a newest page's consolidated messages is looked for.
CONSOLIDATED_REACH = 32 << 20


@dataclass(frozen=True)
class SessionView:
    """A conversation as stored, its messages read on demand: ``key``, ``last_consolidated``
    (how many of them are in history: it counts the file), ``stated_consolidated`` (that number as
    the metadata line states it, read without counting) and ``messages`` (a read-only
    sequence)."""

    key: str
    stated_consolidated: int
    messages: MessageLines
    path: Path

    @property
    def last_consolidated(self) -> int:
        offset = self.stated_consolidated
        return offset if offset <= len(self.messages) else 0  # as the loader reads it


class MessageLines(Sequence[dict[str, Any]]):
    """The message lines of one session file, read on demand (see the module docstring). The
    file is the one opened: a file replaced since (a consolidation, a clear) is not followed."""

    def __init__(self, fd: int, start: int, path: Path):
        self._fd = fd
        self._path = path
        self._start = start  # offset of message 0
        self._count = -1  # not counted yet
        self._lines: list[int] = []
        self._offsets: list[int] = []
        self._block: tuple[int, list[bytes]] = (-1, [])  # (first line, its raw lines)

    def __len__(self) -> int:
        if self._count < 0:
            self._count, checkpoints = _scanned(self._fd, self._start)
            self._lines = [line for line, _ in checkpoints]
            self._offsets = [offset for _, offset in checkpoints]
        return self._count

    def size(self) -> int:
        """The file's size in bytes now."""
        return os.fstat(self._fd).st_size

    @property
    def countless(self) -> bool:
        """Whether counting the messages would read more than `COUNT_AT_ONCE` bytes: not counted
        yet, no scan of this file kept to go on from, and the file larger than that."""
        if self._count >= 0:
            return False
        st = os.fstat(self._fd)
        with _SCANS_LOCK:
            last = _SCANS.get((st.st_dev, st.st_ino))
        done = last.end if last is not None and last.end <= st.st_size else self._start
        return st.st_size - done > COUNT_AT_ONCE

    def newest(self, count: int) -> list[tuple[int, dict[str, Any]]]:
        """The newest ``count`` messages (fewer when the file holds fewer), oldest first, each
        with the offset its line starts at, read back from the file's end without counting the
        rest (an unterminated last line is an append in flight: left out)."""
        data, at = b"", os.fstat(self._fd).st_size
        while at > self._start and data.count(b"\n") <= count:
            size = min(BLOCK, at - self._start)
            at -= size
            data = os.pread(self._fd, size, at) + data
        done = data.rfind(b"\n")
        if done < 0:
            return []
        lines = data[:done].split(b"\n")
        starts, offset = [], at
        for line in lines:
            starts.append(offset)
            offset += len(line) + 1
        if at > self._start:  # the first line read starts before what was read: not whole
            lines, starts = lines[1:], starts[1:]
        lines, starts = lines[-count:], starts[-count:]
        return [(o, _message(raw, None)) for o, raw in zip(starts, lines, strict=True)]

    def offset_of(self, i: int, reach: int | None = None) -> int | None:
        """Where message ``i``'s line starts, read from the file's start; None when that is past
        ``reach`` bytes (`CONSOLIDATED_REACH`), or the file holds fewer complete lines."""
        line, offset = 0, self._start
        limit = offset + (CONSOLIDATED_REACH if reach is None else reach)
        while line < i:
            if offset >= limit:
                return None
            chunk = os.pread(self._fd, min(BLOCK, limit - offset), offset)
            if not chunk:
                return None
            lines = len(chunk) - len(chunk.replace(b"\n", b""))  # (as `_scan` counts)
            if line + lines < i:
                line += lines
                offset += len(chunk)
                continue
            found = -1
            while line < i:
                found = chunk.find(b"\n", found + 1)
                line += 1
            return offset + found + 1
        return offset

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return _message(self._raw(i), i)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for i in range(len(self)):
            yield self[i]

    def __reduce__(self) -> tuple[Any, tuple[Path]]:
        # A view sent to another process (a verb run in a worker process, its result pickled back)
        # opens the file again there: its descriptor number means nothing in that process, and
        # closing it there closed whatever that process had open under the same number.
        return _reopened, (self._path,)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.close()

    def _raw(self, i: int) -> bytes:
        first, lines = self._block
        if not first <= i < first + len(lines):
            self._block = self._read_from(i)
            first, lines = self._block
        return lines[i - first]

    def _read_from(self, i: int) -> tuple[int, list[bytes]]:
        """The lines from the checkpoint at or before message ``i`` up to about one block past
        ``i`` (always through line ``i``)."""
        at = bisect.bisect_right(self._lines, i) - 1
        line, offset = (self._lines[at], self._offsets[at]) if at >= 0 else (0, self._start)
        data = b""
        lines: list[bytes] = []
        while True:
            chunk = os.pread(self._fd, BLOCK, offset)
            if not chunk:
                break
            offset += len(chunk)
            data += chunk
            *done, data = data.split(b"\n")
            lines += done
            if line + len(lines) > i and len(lines) > 0:
                break
        return line, lines


def _reopened(path: Path) -> MessageLines:
    view = open_view(path)
    if view is None:
        raise SessionError(f"{path} is gone")
    return view.messages


def _message(raw: bytes, i: int | None) -> dict[str, Any]:
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            obj = orjson.loads(raw.decode("utf-8", "replace"))
        except orjson.JSONDecodeError:
            obj = None
    if isinstance(obj, dict) and isinstance(obj.get("role"), str):
        return obj
    what = "blank" if not raw.strip() else "not a message"
    line = "a line" if i is None else f"line {i + 2}"
    return {"role": "unreadable", "content": f"({line} of the file is {what})"}


def open_view(path: Path) -> SessionView | None:
    """A view of the session file ``path``, or None when it does not exist."""
    # not through a symlink swapped in for the file after `path_for` checked it (the page would
    # show whatever JSON lines the link leads to)
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SessionError(f"{path} is a symbolic link: not read") from exc
        raise SessionError(f"{path} cannot be read: {exc.strerror}") from exc
    try:
        meta, start = _metadata(fd)
    except OSError as exc:
        os.close(fd)
        raise SessionError(f"{path} cannot be read: {exc.strerror}") from exc
    key = meta.get("key")
    offset = meta.get("last_consolidated", 0)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        offset = 0  # as the loader reads it (with its warning there)
    return SessionView(
        key=key if isinstance(key, str) and key else path.stem,
        stated_consolidated=offset,
        messages=MessageLines(fd, start, path),
        path=path,
    )


def _metadata(fd: int) -> tuple[dict[str, Any], int]:
    """The metadata line (empty when the first line is not one) and where message 0 starts."""
    head = os.pread(fd, _META_LIMIT, 0)
    end = head.find(b"\n")
    if end < 0:
        return {}, 0
    try:
        obj = orjson.loads(head[:end])
    except orjson.JSONDecodeError:
        return {}, 0
    if isinstance(obj, dict) and obj.get("_type") == "metadata":
        return obj, end + 1
    return {}, 0


@dataclass(frozen=True)
class _Scan:
    """What a scan of one file found: up to ``end`` (just past its last complete line), ``count``
    lines from ``start``, their checkpoints, and the bytes either side of ``end`` and at the
    start (a file rewritten in place, as nanobot saves one, is not taken for one appended to)."""

    start: int
    end: int
    count: int
    checkpoints: tuple[tuple[int, int], ...]
    head: bytes
    tail: bytes


#: The last scans, by file (device, inode): a page after the first reads only what was appended
#: since (a file replaced, as a consolidation or a clear replaces it, is a new inode).
_SCANS: dict[tuple[int, int], _Scan] = {}
_SCANS_KEPT = 16
_SCANS_LOCK = threading.Lock()
_PROBE = 4096


def _scanned(fd: int, start: int) -> tuple[int, list[tuple[int, int]]]:
    """`_scan` from where the last scan of this file ended, when the file only grew since."""
    st = os.fstat(fd)
    key = (st.st_dev, st.st_ino)
    with _SCANS_LOCK:
        last = _SCANS.get(key)
    head = os.pread(fd, _PROBE, 0)
    if (
        last is not None
        and last.start == start
        and last.end <= st.st_size
        and last.head == head[: len(last.head)]
        and os.pread(fd, len(last.tail), last.end - len(last.tail)) == last.tail
    ):
        count, checkpoints, end = _scan(fd, last.end, last.count, list(last.checkpoints))
    else:
        count, checkpoints, end = _scan(fd, start, 0, [])
    lo = max(start, end - _PROBE)
    tail = os.pread(fd, end - lo, lo)
    with _SCANS_LOCK:  # threads sharing one Memory open views at once
        _SCANS.pop(key, None)
        _SCANS[key] = _Scan(start, end, count, tuple(checkpoints), head, tail)
        while len(_SCANS) > _SCANS_KEPT:
            _SCANS.pop(next(iter(_SCANS)))
    return count, checkpoints


def _scan(
    fd: int, offset: int, count: int, checkpoints: list[tuple[int, int]]
) -> tuple[int, list[tuple[int, int]], int]:
    """Count the complete lines from ``offset`` (``count`` before it), noting a checkpoint per
    block: (the number of the first line starting in it, that line's offset). Returns the count,
    the checkpoints and the offset just past the last complete line."""
    end = offset
    while True:
        chunk = os.pread(fd, BLOCK, offset)
        if not chunk:
            break
        first = chunk.find(b"\n")
        if first >= 0 and first + 1 < len(chunk):
            checkpoints.append((count + 1, offset + first + 1))
        # three times as fast as chunk.count(b"\n") here (CPython 3.11 counts a byte in a plain
        # loop; replace finds it with memchr): the scan is the cost of a page
        count += len(chunk) - len(chunk.replace(b"\n", b""))
        last = chunk.rfind(b"\n")
        if last >= 0:
            end = offset + last + 1
        offset += len(chunk)
    return count, checkpoints, end
