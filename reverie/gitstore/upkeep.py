"""Packing: loose objects are packed every ``gc_every`` commits and by ``gc()``.

The count of commits since the last pack lives in ``<git dir>/reverie/since-pack`` (a hint
overwritten in place without fsync: a lost or torn value reads as 0 and only delays the next pack).
When automatic packing has left more than ``MAX_PACKS`` packs, they are repacked into one so lookups
stay fast.

Packing is upkeep and never fails the commit that triggered it (a warning, and the next commit tries
again). A corrupt loose object (one that does not parse, or whose content does not hash to its name)
would stop every pack: it is moved aside to ``<git dir>/reverie/lost-found/`` with a warning — git's
``fsck --lost-found`` spirit: kept for inspection, out of the way — and the pack proceeds without
it. Temporary pack files a killed pack left in ``objects/pack`` (``tmp*``, untouched for
``STALE_TEMP_SECONDS``) are removed before packing.
"""

from __future__ import annotations

import logging
import os
import time
import zlib
from collections.abc import Callable
from pathlib import Path

from dulwich.errors import ObjectFormatException
from dulwich.object_store import DiskObjectStore
from dulwich.objects import ShaFile
from dulwich.repo import Repo

from .plumbing import ensure_fanout, loose_objects
from .writer import state_dir, write_in_place

log = logging.getLogger(__name__)

__all__ = ["after_commit", "pack_all", "quarantine_corrupt", "MAX_PACKS"]

MAX_PACKS = 20
COUNTER = "since-pack"
LOST_FOUND = "lost-found"
#: A temporary pack file older than this is a killed pack's leftover (one being written is touched
#: constantly).
STALE_TEMP_SECONDS = 600
_CORRUPT = (
    ObjectFormatException,
    zlib.error,
    ValueError,
    TypeError,
    KeyError,
    AssertionError,
    OSError,
)


def _read_count(path: Path) -> int:
    try:
        text = path.read_bytes().decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return 0
    return int(text) if text.isdigit() else 0


def after_commit(repo: Repo, git_dir: Path, gc_every: int) -> None:
    """Count a commit; pack the loose objects when ``gc_every`` commits have accumulated. Never
    raises: the commit is made, and a pack that fails is reported and tried again at the next
    commit."""
    path = state_dir(git_dir) / COUNTER
    count = _read_count(path) + 1
    if count < gc_every:
        _count(path, count)
        return
    store = repo.object_store
    try:
        packed = _guarded(store, git_dir, store.pack_loose_objects)
        if len(store.packs) > MAX_PACKS:
            _guarded(store, git_dir, store.repack)
    # Upkeep after a commit that is made: report, retry next commit.
    except Exception as exc:  # noqa: BLE001
        log.warning(
            "packing the memory repo's loose objects failed (%s); the next commit tries again", exc
        )
        return
    ensure_fanout(git_dir / "objects")  # so the next commits' loose objects need no mkdir
    log.info("packed %d loose objects", packed)
    _count(path, 0)


def _count(path: Path, count: int) -> None:
    """Record the commits since the last pack; a disk that refuses it only moves the next pack."""
    try:
        write_in_place(path, f"{count:>12}\n".encode(), pad=0)
    except OSError as exc:
        log.warning("the memory repo's commit count was not written (%s)", exc.strerror or exc)


def pack_all(repo: Repo, git_dir: Path) -> None:
    """Pack every object into one pack (loose objects included) and reset the counter."""
    store = repo.object_store
    _guarded(store, git_dir, store.repack)
    write_in_place(state_dir(git_dir) / COUNTER, f"{0:>12}\n".encode(), pad=0)


def _guarded(store: DiskObjectStore, git_dir: Path, pack: Callable[[], int]) -> int:
    """Run ``pack`` after clearing a killed pack's temp files; if a loose object stops it, move the
    corrupt ones aside and run it once more."""
    _remove_stale_temp_packs(Path(store.path) / "pack")
    try:
        return pack()
    except _CORRUPT:
        if not quarantine_corrupt(store, git_dir):
            raise
    return pack()


def quarantine_corrupt(store: DiskObjectStore, git_dir: Path) -> list[str]:
    """Move every loose object that does not parse, or does not hash to its name, to
    ``reverie/lost-found/`` (with a warning each); returns their ids."""
    moved: list[str] = []
    for sha, path in list(loose_objects(Path(store.path))):
        try:
            obj = ShaFile.from_path(path)
            ok = ShaFile.from_raw_string(obj.type_num, obj.as_raw_string()).id == sha
        except _CORRUPT:
            ok = False
        if ok:
            continue
        target = state_dir(git_dir) / LOST_FOUND / sha.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(path, target)
        except OSError as exc:
            log.warning("corrupt loose object %s could not be moved aside (%s)", sha.decode(), exc)
            continue
        log.warning(
            "loose object %s is corrupt; moved to %s (check with `git --git-dir=%s fsck`)",
            sha.decode(),
            target,
            git_dir,
        )
        moved.append(sha.decode())
    return moved


def _remove_stale_temp_packs(pack_dir: Path) -> None:
    now = time.time()
    try:
        names = [n for n in os.listdir(pack_dir) if n.startswith("tmp")]
    except OSError:
        return
    for name in names:
        path = pack_dir / name
        try:
            if now - path.stat().st_mtime > STALE_TEMP_SECONDS:
                path.unlink()
                log.warning("removed %s, left by an interrupted pack", path)
        except OSError:
            continue
