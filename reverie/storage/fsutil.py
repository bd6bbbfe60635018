"""Durable file primitives: the only place that decides how bytes reach the disk.

``atomic_write`` is the crash-safe replace used for every whole-file write (memory files, cursors,
session metadata, compaction): a temp file in the same directory, fsync, rename over the target,
fsync of the directory. A crash at any instant leaves the old or the new content, never a mix or an
empty file.

``open_regular`` is the one way to open a file in place (appends, lock files — read-only where the
workspace may only be read —, hints): ``O_NOFOLLOW`` on every open, not only when a store opens, so
a symlink swapped in later is refused rather than followed out of the workspace; and the opened
descriptor must be a regular file (a FIFO or device is refused). ``atomic_write`` never follows a
link either: its temp file is ``O_EXCL`` and the rename replaces the link itself.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import stat
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = [
    "atomic_write",
    "open_regular",
    "write_all",
    "fsync_dir",
    "read_bytes_or_none",
    "read_text_lossy",
    "decode_lossy",
]

_warned_paths: set[str] = set()


def fsync_dir(directory: Path) -> None:
    """Make a rename or create in ``directory`` durable (a no-op where directories cannot be
    opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def open_regular(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """``os.open`` with ``flags`` (for writing in place, or ``O_RDONLY``), never through a symlink
    and only onto a regular file.

    Raises ``OSError`` (``ELOOP`` naming the link, or ``EINVAL`` for a non-regular file) with a
    message fit for a person; the caller maps it to its own error.
    """
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(
                errno.ELOOP, f"{path} is a symbolic link; refusing to write through it", str(path)
            ) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(
                errno.EINVAL, f"{path} is not a regular file; refusing to write to it", str(path)
            )
        if flags & os.O_NONBLOCK == 0:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


#: The name ``open_regular`` had, while reverie/gitstore/writer.py and reverie/llm/replylog.py still
#: import it (other branches are changing those packages); remove it once they say
#: ``open_regular``.
open_for_write = open_regular


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (one call in practice, so an O_APPEND line is not
    interleaved)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(f"write to fd {fd} made no progress")
        view = view[n:]


def atomic_write(
    path: Path, data: bytes | str, *, fsync: bool = True, mode: int | None = None
) -> None:
    """Replace ``path`` with ``data`` atomically.

    With ``fsync=False`` the replace is still atomic for readers (rename), but a power loss may roll
    it back; use that only for hints that can be recovered from elsewhere (``.cursor``).
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    if mode is None:
        try:
            st = os.lstat(path)  # a symlink's own mode (0o777) is not the file's
            mode = st.st_mode & 0o777 if stat.S_ISREG(st.st_mode) else 0o644
        except FileNotFoundError:
            mode = 0o644
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    except FileNotFoundError:  # the directory does not exist yet
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        write_all(fd, payload)
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if fsync:
        fsync_dir(path.parent)


def read_bytes_or_none(path: Path | str) -> bytes | None:
    """A regular file's bytes, or None when it is absent or not a file (fewer system calls than
    ``Path.is_file`` followed by ``read_bytes``, and no window between the check and the read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)  # a FIFO must not block
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        chunks = []
        size = st.st_size
        while True:
            chunk = os.read(fd, max(size, 65536))
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def decode_lossy(raw: bytes, *, origin: str) -> str:
    """Decode UTF-8, replacing invalid bytes; warn once per origin so a hand-edited file never
    crashes a reader."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if origin not in _warned_paths:
            _warned_paths.add(origin)
            log.warning(
                "%s is not valid UTF-8 (byte %d); invalid bytes read as U+FFFD", origin, exc.start
            )
        return raw.decode("utf-8", errors="replace")


def read_text_lossy(path: Path) -> str:
    """The text of ``path``, or ``""`` when it does not exist."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return ""
    return decode_lossy(raw, origin=str(path))
