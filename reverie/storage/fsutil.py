"""Durable file primitives: the only place that decides how bytes reach the disk.

``atomic_write`` is the crash-safe replace used for every whole-file write (memory files, cursors,
session metadata, compaction): a temp file in the same directory, fsync, rename over the target,
fsync of the directory. A crash at any instant leaves the old or the new content, never a mix or an
empty file.

``open_for_write`` is the one way to open an existing file for writing in place (appends, lock
files, hints): ``O_NOFOLLOW`` on every open, not only when a store opens, so a symlink swapped in
later is refused rather than followed out of the workspace; and the opened descriptor must be a
regular file (a FIFO or device is refused). ``atomic_write`` never follows a link either: its temp
file is ``O_EXCL`` and the rename replaces the link itself.

``swap_in`` is ``atomic_write`` for a file a person may be editing: the rename is an exchange
(Linux ``renameat2(RENAME_EXCHANGE)``), so the bytes that were on disk at the instant of the replace
come back to the caller, who decides whether they were a person's save to keep. Where the exchange
is not available (another system, a file system without it) the file is read just before an
ordinary rename: the same result except for a save landing in that short window.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import logging
import os
import secrets
import stat
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

__all__ = [
    "atomic_write",
    "swap_in",
    "Displaced",
    "set_aside",
    "put_back",
    "open_for_write",
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


def open_for_write(path: Path | str, flags: int, mode: int = 0o644) -> int:
    """``os.open`` for writing in place, never through a symlink and only onto a regular file.

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
    tmp = _write_temp(path, payload, "tmp", fsync=fsync, mode=mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if fsync:
        fsync_dir(path.parent)


def _write_temp(path: Path, payload: bytes, kind: str, *, fsync: bool, mode: int | None) -> Path:
    """A new file ``.<name>.<kind>-<pid>-<random>`` next to ``path`` holding ``payload`` (fsynced
    unless told otherwise), with ``path``'s permissions."""
    tmp = path.parent / f".{path.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"
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
    return tmp


# renameat2(2) flags (linux/fs.h) and the "current directory" descriptor (fcntl.h)
_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
#: How long ``swap_in`` waits for a program still writing the displaced file in place to close it.
SETTLE_SECONDS = 2.0


def _load_renameat2() -> Any:  # the C library's renameat2, or None where it has none
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        func = libc.renameat2
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    func.restype = ctypes.c_int
    return func


_renameat2 = _load_renameat2()


def _rename2(src: Path, dst: Path, flags: int) -> None:
    """renameat2(src, dst, flags); ``OSError`` as ``os.rename`` raises it (``ENOSYS`` when the C
    library has no such call)."""
    if _renameat2 is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available", str(dst))
    if _renameat2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(dst))


#: errno values meaning "this kernel or file system cannot exchange": fall back to a plain rename.
_NO_EXCHANGE = (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM)


class Displaced:
    """What ``swap_in`` (or ``set_aside``) took off ``path``: ``data`` are the bytes that were
    there at the instant of the replace (None: there was no file), and ``keep`` the displaced file
    itself, still on disk under a temp name until ``discard`` (None where nothing was kept: the
    rename fallback, or no file). Keeping it until the caller has decided means a crash in between
    leaves the bytes on disk."""

    def __init__(self, data: bytes | None, keep: Path | None) -> None:
        self.data = data
        self.keep = keep

    def discard(self) -> None:
        if self.keep is not None:
            self.keep.unlink(missing_ok=True)
            self.keep = None


def swap_in(path: Path, data: bytes) -> Displaced:
    """Replace ``path`` with ``data`` atomically (temp file, fsync, exchange, directory fsync) and
    return what was there at that instant (see ``Displaced``; the caller discards it).

    A program that writes the file in place (open, write, close, no rename) and still has the
    displaced file open is waited for, up to ``SETTLE_SECONDS`` (Linux: a read lease is refused
    while a writer holds the file open), so its last bytes are the ones returned, not lost after.
    The temp file is named ``.<name>.swap-*``: after a crash it may hold a displaced person's save,
    so it is never swept away as an unfinished write (see ``reverie.gitstore.writer``)."""
    path = Path(path)
    tmp = _write_temp(path, data, "swap", fsync=True, mode=None)
    exchanged = False
    try:
        while True:
            try:
                _rename2(tmp, path, _RENAME_EXCHANGE)
            except FileNotFoundError:  # no file to exchange with: create it, unless one appears
                try:
                    _rename2(tmp, path, _RENAME_NOREPLACE)
                except FileExistsError:
                    continue  # created in between: exchange with it
                fsync_dir(path.parent)
                return Displaced(None, None)
            except OSError as exc:
                if exc.errno not in _NO_EXCHANGE:
                    raise
                before = read_bytes_or_none(path)  # the fallback: read, then an ordinary rename
                os.replace(tmp, path)
                fsync_dir(path.parent)
                return Displaced(before, None)
            exchanged = True
            fsync_dir(path.parent)
            return Displaced(_read_settled(tmp), tmp)
    except BaseException:
        if not exchanged:  # tmp still holds only our bytes; after the exchange it stays
            tmp.unlink(missing_ok=True)
        raise


def set_aside(path: Path) -> Displaced:
    """Take ``path`` off its name atomically (renamed to a ``.<name>.swap-*`` file, kept until
    ``discard``): the deletion counterpart of ``swap_in``."""
    path = Path(path)
    aside = path.parent / f".{path.name}.swap-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return Displaced(None, None)
    fsync_dir(path.parent)
    return Displaced(_read_settled(aside), aside)


def put_back(displaced: Displaced, path: Path) -> bool:
    """Rename the file ``displaced`` kept back to ``path`` unless a file is there again (False:
    a newer one is, and ``displaced`` is left to the caller)."""
    if displaced.keep is None:
        return False
    try:
        os.link(displaced.keep, path)  # never over a file that appeared meanwhile
    except FileExistsError:
        return False
    displaced.discard()
    fsync_dir(Path(path).parent)
    return True


def _read_settled(path: Path) -> bytes | None:
    """The bytes of a just-displaced file once no program has it open for writing (waiting up to
    ``SETTLE_SECONDS``); None when it is not a regular file (a symlink is replaced, never read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOENT):
            return None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        _wait_for_writers(fd, SETTLE_SECONDS)
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _wait_for_writers(fd: int, timeout: float) -> None:
    """Wait until no descriptor anywhere has ``fd``'s file open for writing: Linux grants a read
    lease only then. The lease is dropped at once (nobody can open the file by its name any more,
    so none would be broken). Where leases are refused for another reason (not the file's owner, a
    file system without them, another system) there is nothing to wait on."""
    setlease = getattr(fcntl, "F_SETLEASE", None)
    if setlease is None:
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.fcntl(fd, setlease, fcntl.F_RDLCK)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EBUSY) and time.monotonic() < deadline:
                time.sleep(0.002)
                continue
            if exc.errno in (errno.EAGAIN, errno.EBUSY):
                log.warning("a program still has a displaced memory file open for writing")
            return
        fcntl.fcntl(fd, setlease, fcntl.F_UNLCK)
        return


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
