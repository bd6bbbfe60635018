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

``replace_if_unchanged`` is ``atomic_write`` for a file a person may be editing: it replaces only
the file a read (``read_seen``) found, bytes and all, and a save landing in between stays on disk
(see its docstring: on Linux the rename is an exchange that puts such a save back at once).
``remove_if_unchanged`` is its deletion.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import glob
import logging
import os
import re
import secrets
import signal
import stat
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

log = logging.getLogger(__name__)

__all__ = [
    "atomic_write",
    "Seen",
    "read_seen",
    "replace_if_unchanged",
    "remove_if_unchanged",
    "open_regular",
    "write_all",
    "fsync_dir",
    "held_open",
    "swap_links_only",
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
                errno.ELOOP, f"{path} is a symbolic link; refusing to open it", str(path)
            ) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(
                errno.EINVAL, f"{path} is not a regular file; refusing to open it", str(path)
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


def remove_stale_temps(
    directory: Path,
    names: Iterable[str],
    *,
    older_than: float,
    of: Callable[[str], object] | None = None,
) -> list[Path]:
    """Remove the temporary files ``atomic_write`` left among ``names`` in ``directory`` (a writer
    killed between writing ``.<target>.tmp-<pid>-<hex>`` and renaming it), each untouched for
    ``older_than`` seconds, so no live writer's is pulled from under it; ``of``: only those whose
    target name it accepts. The one sweeper of these files: returns the paths removed (a file
    that cannot be removed now is left for the next sweep)."""
    removed = []
    now = time.time()
    for name in names:
        m = _TEMP_NAME.fullmatch(name)
        if m is None or (of is not None and not of(m.group(1))):
            continue
        path = directory / name
        try:
            if now - os.lstat(path).st_mtime <= older_than:
                continue
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


#: ``_write_temp``'s name for an ``atomic_write``'s temporary file: ``.<target>.tmp-<pid>-<hex>``.
_TEMP_NAME = re.compile(r"\.(.+)\.tmp-[0-9]+-[0-9a-f]+")


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
#: How long a replace waits for a program still writing the displaced file in place to close it.
SETTLE_SECONDS = 2.0
#: The audit event raised before each renameat2 call, with ``(src, dst, flags)``, as ``os.rename``
#: raises ``"os.rename"``: a call through ctypes raises none of its own, and the crash tests find
#: the steps they kill after through these events.
RENAME2_EVENT = "reverie.renameat2"


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
    sys.audit(RENAME2_EVENT, src, dst, flags)
    if _renameat2 is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available", str(dst))
    if _renameat2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(dst))


#: errno values meaning "this kernel or file system cannot exchange": fall back to a plain rename.
_NO_EXCHANGE = (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM)

#: A file's identity and version as ``lstat`` gives it: (inode, size, mtime in ns).
Stamp = tuple[int, int, int]
#: What ``replace_if_unchanged`` did (see there).
Outcome = Literal["replaced", "changed", "busy"]


@dataclass(frozen=True)
class Seen:
    """A file as one read found it: its bytes (None: no regular file there) and its stamp (None:
    nothing at the name). ``replace_if_unchanged`` replaces only the file a ``Seen`` describes."""

    data: bytes | None
    stamp: Stamp | None


def _stamp(st: os.stat_result) -> Stamp:
    return st.st_ino, st.st_size, st.st_mtime_ns


def _stamp_of(path: Path) -> Stamp | None:
    try:
        return _stamp(os.lstat(path))
    except FileNotFoundError:
        return None


def read_seen(path: Path) -> Seen:
    """``path`` as it is now: its bytes and its stamp, both from one descriptor (the stamp taken
    after the read). A symbolic link or another non-regular file has a stamp but no bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return Seen(None, None)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        return Seen(None, _stamp_of(path))  # a symbolic link: replaced, never read
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Seen(None, _stamp(st))
        chunks = []
        while chunk := os.read(fd, max(st.st_size, 1 << 16)):
            chunks.append(chunk)
        return Seen(b"".join(chunks), _stamp(os.fstat(fd)))
    finally:
        os.close(fd)


def replace_if_unchanged(
    path: Path, data: bytes, seen: Seen, *, kept: list[Path] | None = None
) -> Outcome:
    """Replace ``path`` with ``data`` atomically (temp file, fsync, rename, directory fsync) if it
    is still the file ``seen`` describes: ``"replaced"``. ``"changed"`` when it changed since (a
    person saved it): it is on ``path`` then, as they saved it, and the caller reads it again.
    ``"busy"`` when a program still had it open for writing after ``SETTLE_SECONDS``: it is on
    ``path`` too, where that program's writes land.

    The rename is an exchange (Linux ``renameat2(RENAME_EXCHANGE)``) that keeps what it took off:
    when that is not the file ``seen`` read with the same bytes — a save landed between the check
    and the exchange — a second exchange puts it back at once, so ``path`` shows a version without
    the person's save only for the span of two renames. A program that writes the file in place
    (open, write, close, no rename) and still has the displaced file open is waited for, up to
    ``SETTLE_SECONDS`` (a Linux read lease is refused while a writer holds the file open; where no
    lease is granted, ``/proc`` says who has it open for writing: ``held_open``), and its file is
    put back too. The temp file is named ``.<name>.swap-<pid>-*``: after a crash it may hold what
    the exchange took off, so it is never swept away as an unfinished write (see
    ``reverie.gitstore.writer``). Where the exchange is not available (another system, an old
    kernel, a file system without it) the check is a ``stat`` just before an ordinary rename, and a
    hard link keeps the displaced file under the swap name for the same checks
    (``_replace_keeping``): the same result except for a rename save landing between the check
    and a rename.

    A save landing between the two exchanges (on ``data``, for that instant on ``path``) comes off
    with the second: its file stays on disk, appended to ``kept`` for the caller to merge and
    remove (without ``kept``, named in a warning)."""
    path = Path(path)
    tmp = _write_temp(path, data, "swap", fsync=True, mode=None)
    try:
        if _stamp_of(path) != seen.stamp:  # saved while the temp file was written
            tmp.unlink()
            return "changed"
        if seen.stamp is None:
            return "replaced" if _create(tmp, path) else "changed"
        try:
            _rename2(tmp, path, _RENAME_EXCHANGE)
        except FileNotFoundError:  # removed in between
            tmp.unlink()
            return "changed"
        except OSError as exc:
            if exc.errno not in _NO_EXCHANGE:
                raise
            return _replace_keeping(tmp, path, seen)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    # tmp now holds what the exchange took off path
    found = _compare(tmp, seen)
    if found == "replaced":
        fsync_dir(path.parent)
        tmp.unlink(missing_ok=True)
        return found
    _put_back(tmp, path, data, kept)
    return found


def _replace_keeping(tmp: Path, path: Path, seen: Seen) -> Outcome:
    """``replace_if_unchanged`` where the exchange is not available: a second name (a hard link)
    is kept on the displaced file through an ordinary rename of ``tmp`` over ``path``, so a program
    still writing it in place is seen (``_compare``) and its file is renamed back over ``path``
    rather than unlinked under its writes. That rename back is checked by ``stat`` (a save landing
    between the check and it is the one case lost); without hard links, the plain rename."""
    aside = path.parent / f".{path.name}.swap-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        os.link(path, aside, follow_symlinks=False)
    except FileNotFoundError:  # removed in between
        tmp.unlink()
        return "changed"
    except OSError:  # a file system without hard links
        os.replace(tmp, path)
        fsync_dir(path.parent)
        return "replaced"
    try:
        ours = _stamp(os.lstat(tmp))
        if _stamp_of(path) != seen.stamp:  # saved in between
            tmp.unlink()
            aside.unlink()
            return "changed"
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        aside.unlink(missing_ok=True)
        raise
    found = _compare(aside, seen)
    if found == "replaced":
        aside.unlink(missing_ok=True)
    elif _stamp_of(path) == ours:
        os.replace(aside, path)  # back where its writes land
    else:  # a save renamed over ours meanwhile: it stays, and so does the displaced version
        log.warning("%s: a version of it saved in the same instant is kept in %s", path, aside)
    fsync_dir(path.parent)
    return found


def swap_links_only(path: Path, st: os.stat_result) -> bool:
    """Whether every other name of the file at ``path`` (``st``: its ``lstat``) is one of its own
    ``.<name>.swap-*`` siblings: the second name a replace without the exchange keeps on the file it
    takes off, for an instant or, after a kill, until recovery (``_replace_keeping``). Such a file
    is shared with no other place, so the workspace's refusal of hard links lets it pass."""
    links = 1
    for kept in path.parent.glob(f".{glob.escape(path.name)}.swap-*"):
        try:
            other = os.lstat(kept)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            links += 1
    return links == st.st_nlink


def _create(tmp: Path, path: Path) -> bool:
    """Rename ``tmp`` to ``path`` unless a file appeared there (False, and ``tmp`` is removed)."""
    try:
        try:
            _rename2(tmp, path, _RENAME_NOREPLACE)
        except FileExistsError:
            tmp.unlink()
            return False
        except OSError as exc:
            if exc.errno not in _NO_EXCHANGE:
                raise
            try:
                os.link(tmp, path)  # fails on an existing name, as NOREPLACE
            except FileExistsError:
                tmp.unlink()
                return False
            except OSError:  # a file system without hard links: the plain rename
                os.replace(tmp, path)
            else:
                tmp.unlink()
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
    return True


def _compare(displaced: Path, seen: Seen) -> Outcome:
    """Whether ``displaced`` (just taken off its name) is the file ``seen`` read, with the same
    bytes, and no program has it open for writing any more (``"replaced"``: it can go), or another
    version (``"changed"``), or still open for writing (``"busy"``)."""
    try:
        st = os.lstat(displaced)
    except FileNotFoundError:
        return "replaced"  # nothing to put back
    if _stamp(st) != seen.stamp:
        return "changed"  # another file: a save renamed over the name
    if not stat.S_ISREG(st.st_mode):
        return "replaced"  # a symbolic link is replaced, never read
    fd = os.open(displaced, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        leased = _lease(fd, SETTLE_SECONDS)
        # no lease (not the file's owner, a file system without them): /proc says who writes it
        watched = _no_writer(displaced, SETTLE_SECONDS) if leased is None else None
        if leased is False or watched is False:
            return "busy"
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        if leased:  # a program opening the file for writing during the read breaks the lease
            untouched = fcntl.fcntl(fd, fcntl.F_GETLEASE) == fcntl.F_RDLCK
        else:
            untouched = not watched or _no_writer(displaced, 0.0) is not False
        same = b"".join(chunks) == seen.data and _stamp(os.fstat(fd)) == seen.stamp
        return "replaced" if same and untouched else "changed"
    finally:
        os.close(fd)  # drops the lease


def _put_back(displaced: Path, path: Path, ours: bytes, kept: list[Path] | None) -> None:
    """Exchange ``displaced`` back onto ``path``; what comes off is ``ours`` (removed) or, when a
    save landed on ``path`` between the two exchanges, that save (kept: see
    ``replace_if_unchanged``)."""
    try:
        _rename2(displaced, path, _RENAME_EXCHANGE)
    except FileNotFoundError:  # ours was removed meanwhile: the displaced file goes back alone
        if not _create(displaced, path):
            log.warning("%s: an earlier version of it is kept in %s", path, displaced)
        return
    fsync_dir(path.parent)
    if read_bytes_or_none(displaced) == ours:
        displaced.unlink(missing_ok=True)
    elif kept is not None:
        kept.append(displaced)
    else:
        log.warning("%s: a version of it saved in the same instant is kept in %s", path, displaced)


def remove_if_unchanged(path: Path, seen: Seen) -> Outcome:
    """Remove ``path`` if it is still the file ``seen`` describes: ``"replaced"`` when removed (or
    already gone). ``"changed"`` when it changed since, ``"busy"`` when a program still had it open
    for writing after ``SETTLE_SECONDS`` (its next save would land in a file no name reaches): it
    stays in both (put back when the change landed between the check and the removal)."""
    path = Path(path)
    if _stamp_of(path) != seen.stamp:
        return "changed"
    aside = path.parent / f".{path.name}.swap-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return "replaced"
    found = _compare(aside, seen)
    if found == "replaced":
        fsync_dir(path.parent)
        aside.unlink(missing_ok=True)
        return found
    if not _create(aside, path):
        log.warning("%s: an earlier version of it is kept in %s", path, aside)
    return found


def _lease(fd: int, timeout: float) -> bool | None:
    """Take a read lease on ``fd``'s file, which Linux grants only while no descriptor anywhere has
    it open for writing, waiting up to ``timeout`` for one to close: True once held (until ``fd``
    is closed), False when a writer still had it open, None where there are no leases (another
    system, a file system without them, not the file's owner): nothing to wait on. A lease broken
    by a writer opening the file signals ``SIGURG`` (ignored unless handled), not the default
    ``SIGIO``, which would end the process."""
    setlease = getattr(fcntl, "F_SETLEASE", None)
    if setlease is None:
        return None
    fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.fcntl(fd, setlease, fcntl.F_RDLCK)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EBUSY):
                return None
            if time.monotonic() < deadline:
                time.sleep(0.002)
                continue
            return False
        return True


def _no_writer(path: Path, timeout: float) -> bool | None:
    """``_lease`` where no lease is granted: True once no process of this host has ``path`` open
    for writing (waiting up to ``timeout`` for one to close it), False when one still has, None
    where ``/proc`` cannot say."""
    deadline = time.monotonic() + timeout
    while True:
        held = held_open([path], writing=True)
        if held is None:
            return None
        if not held:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)


def held_open(
    paths: Iterable[Path], *, writing: bool = False, others: bool = False
) -> set[Path] | None:
    """Which of ``paths`` a process of this host has open (``writing``: open for writing;
    ``others``: not counting this process), from Linux's ``/proc`` (the file each descriptor is
    open on, by its identity, not its name, which a rename or a hard link changes; and its
    ``fdinfo`` flags); None where ``/proc`` says nothing (another system). Costly (every
    process's descriptors are listed), so only the rare steps that need it call it."""
    wanted: dict[tuple[int, int], Path] = {}
    for p in paths:
        try:
            st = os.stat(p, follow_symlinks=False)
        except OSError:
            continue
        wanted[st.st_dev, st.st_ino] = Path(p)
    me = str(os.getpid())
    try:
        pids = [d for d in os.listdir("/proc") if d.isdigit() and not (others and d == me)]
    except OSError:
        return None
    if not pids:
        return None
    found: set[Path] = set()
    for pid in pids:
        fd_dir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue  # gone, or another user's
        for fd in fds:
            try:
                st = os.stat(f"{fd_dir}/{fd}")  # the open file itself, by whatever name
            except OSError:
                continue
            path = wanted.get((st.st_dev, st.st_ino))
            if path is not None and (not writing or _writable(pid, fd)):
                found.add(path)
    return found


def _writable(pid: str, fd: str) -> bool:
    """Whether descriptor ``fd`` of process ``pid`` is open for writing (its ``fdinfo`` flags;
    True when they cannot be read: assume the worst)."""
    try:
        with open(f"/proc/{pid}/fdinfo/{fd}", encoding="ascii") as f:
            for line in f:
                if line.startswith("flags:"):
                    return int(line.split()[1], 8) & os.O_ACCMODE != os.O_RDONLY
    except (OSError, ValueError):
        pass
    return True


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
