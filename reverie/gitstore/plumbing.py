"""The two repository writes on every commit's path — a loose object and a ref's compare-and-swap —
done with the fewest system calls, in git's own on-disk protocol.

Why not dulwich's public ``repo.object_store.add_object`` / ``repo.refs.set_if_equals``: measured
slower on the commit path, with no time to give (issue 16's rule: dulwich where it keeps the commit
≥ 5× nanobot's ``auto_commit``); ``python -m bench gitstore_plumbing`` swaps them in, and
BENCHMARKS.md ("gitstore_plumbing") has the figures. ``add_object`` makes one more ``mkdir``;
``set_if_equals`` also follows the ref, reads it twice under the lock, checks packed-refs and
re-reads the repo config for the reflog. dulwich still serialises, compresses and names every
object, formats the reflog line and reads packed refs; only the file handling is here.

Crash safety, as git's: an object is written to ``<object path>.lock`` (exclusive create) and
renamed into place, so a kill leaves either no object or a whole one, plus at worst a stale
``.lock`` that ``reverie.gitstore.writer.remove_stale_locks`` clears. A ref moves under
``<ref>.lock`` (exclusive create, so a ``git`` command running at the same moment is refused, not
overwritten): the lock is written and fsynced, the reflog line appended, then the lock is renamed
over the ref; a kill before the rename leaves the ref as it was.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.objects import ObjectID, ShaFile, hex_to_filename, valid_hexsha
from dulwich.reflog import format_reflog_line
from dulwich.refs import Ref, check_ref_format

from ..errors import GitStoreError
from ..storage.fsutil import write_all

if TYPE_CHECKING:
    from dulwich.repo import Repo

__all__ = [
    "write_loose",
    "loose_objects",
    "compare_and_swap",
    "ensure_fanout",
    "open_lock",
    "replace_from_lock",
]

_OBJECT_MODE = 0o444


def ensure_fanout(objects_dir: Path) -> None:
    """Create the 256 ``objects/xx`` directories that do not exist yet, so no commit pays for a
    ``mkdir`` (``git prune`` may remove empty ones again; they are re-created on the next open)."""
    try:
        present = set(os.listdir(objects_dir))
    except OSError:
        return
    for i in range(256):
        name = f"{i:02x}"
        if name not in present:
            try:
                os.mkdir(objects_dir / name)
            except FileExistsError:
                pass


def loose_objects(objects_dir: Path) -> Iterator[tuple[ObjectID, str]]:
    """``(hex id, path)`` of every loose object (``objects/xx/<38 hex>``; lock and temp files are
    skipped).

    The reading half of ``write_loose``'s layout. dulwich 1.2 lists loose objects only through a
    private method (``DiskObjectStore._iter_loose_objects``); this uses its public ``valid_hexsha``
    and ``hex_to_filename``."""
    try:
        folders = sorted(name for name in os.listdir(objects_dir) if len(name) == 2)
    except OSError:
        return
    for folder in folders:
        try:
            names = sorted(os.listdir(os.path.join(objects_dir, folder)))
        except OSError:  # not a directory, or removed meanwhile
            continue
        for name in names:
            sha = ObjectID((folder + name).encode("ascii", "replace"))
            if valid_hexsha(sha):
                yield sha, hex_to_filename(os.fspath(objects_dir), sha)


def write_loose(objects_dir: Path, obj: ShaFile) -> None:
    """Store ``obj`` as a loose object (a no-op when it is already loose; its mtime is refreshed
    instead, as git does, so a concurrent prune does not take it). Objects that exist only in a pack
    are written loose again: harmless, and cheaper than searching the packs."""
    sha = obj.id.decode("ascii")
    path = os.path.join(objects_dir, sha[:2], sha[2:])
    try:
        os.utime(path)
        return
    except FileNotFoundError:
        pass
    except PermissionError:
        # there, owned by another user of a shared repository: it cannot be refreshed, nor needs
        # writing
        return
    lock = path + ".lock"
    fd = open_lock(lock, _OBJECT_MODE)
    if fd is None:
        raise GitStoreError(
            f"{lock} exists: another writer is storing the same object, or a crash left it"
        )
    replace_from_lock(fd, lock, path, obj.as_legacy_object())


def compare_and_swap(
    repo: Repo,
    git_dir: Path,
    ref: Ref,
    old: ObjectID | None,
    new: ObjectID,
    who: bytes,
    message: bytes,
) -> bool:
    """Move ``ref`` (a branch, or ``HEAD`` when detached) from ``old`` (None: it must not exist yet)
    to ``new`` and log it in the ref's reflog. False, with nothing changed, when the ref holds
    something else."""
    if ref != b"HEAD" and not check_ref_format(ref):
        raise GitStoreError(f"refusing to write the malformed ref name {ref!r}")
    path = os.path.join(git_dir, ref.decode("utf-8"))
    lock = path + ".lock"
    fd = open_lock(lock, 0o644)
    if fd is None:
        raise GitStoreError(
            f"{lock} exists: a git command is updating the memory repo (or a crash left the lock)"
        )
    try:
        current = _current(repo, path, ref)  # read again while holding git's lock
    except BaseException:
        _abandon(fd, lock)
        raise
    if current != old:
        _abandon(fd, lock)
        return False
    replace_from_lock(
        fd,
        lock,
        path,
        new + b"\n",
        fsync=True,
        before_rename=lambda: _append_reflog(git_dir, ref, old, new, who, message),
    )
    return True


def open_lock(lock: str, mode: int) -> int | None:
    """Create git's lock file ``lock`` exclusively (and its directory, if missing); None when it
    already exists (someone else holds it)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for attempt in (0, 1):
        try:
            return os.open(lock, flags, mode)
        except FileExistsError:
            return None
        except FileNotFoundError:
            if attempt:
                raise
            os.makedirs(os.path.dirname(lock), exist_ok=True)
    return None


def replace_from_lock(
    fd: int,
    lock: str,
    path: str,
    data: bytes,
    *,
    fsync: bool = False,
    before_rename: Callable[[], None] | None = None,
) -> None:
    """Write ``data`` into the lock file open on ``fd`` and rename it over ``path`` (git's commit of
    a lock file); on any failure before the rename the lock is removed and ``path`` is untouched."""
    try:
        write_all(fd, data)
        if fsync:
            os.fsync(fd)
    except BaseException:
        _abandon(fd, lock)
        raise
    os.close(fd)
    try:
        if before_rename is not None:
            before_rename()
    except BaseException:
        os.unlink(lock)
        raise
    os.replace(lock, path)


def _abandon(fd: int, lock: str) -> None:
    os.close(fd)
    os.unlink(lock)


def _current(repo: Repo, path: str, ref: Ref) -> ObjectID | None:
    try:
        with open(path, "rb") as f:
            value = f.read().strip()
    except FileNotFoundError:
        return repo.refs.get_packed_refs().get(ref)
    return ObjectID(value) if value else None


def _append_reflog(
    git_dir: Path, ref: Ref, old: ObjectID | None, new: ObjectID, who: bytes, message: bytes
) -> None:
    path = os.path.join(git_dir, "logs", ref.decode("utf-8"))
    offset = time.localtime().tm_gmtoff
    line = format_reflog_line(old, new, who, int(time.time()), offset, message) + b"\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        write_all(fd, line)
    finally:
        os.close(fd)
