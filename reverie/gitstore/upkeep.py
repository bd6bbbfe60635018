"""Packing: loose objects are packed every ``gc_every`` commits and by ``gc()``.

The count of commits since the last pack lives in ``<git dir>/reverie/since-pack`` (a hint overwritten in place
without fsync: a lost or torn value reads as 0 and only delays the next pack). When automatic packing has left more than ``MAX_PACKS`` packs,
they are repacked into one so lookups stay fast.
"""

from __future__ import annotations

import logging
from pathlib import Path

from .plumbing import ensure_fanout
from .writer import state_dir, write_in_place

log = logging.getLogger(__name__)

__all__ = ["after_commit", "pack_all", "MAX_PACKS"]

MAX_PACKS = 20
COUNTER = "since-pack"


def _read_count(path: Path) -> int:
    try:
        text = path.read_bytes().decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return 0
    return int(text) if text.isdigit() else 0


def after_commit(repo, git_dir: Path, gc_every: int) -> None:
    """Count a commit; pack the loose objects when ``gc_every`` commits have accumulated."""
    path = state_dir(git_dir) / COUNTER
    count = _read_count(path) + 1
    if count < gc_every:
        write_in_place(path, f"{count:>12}\n".encode(), pad=0)
        return
    store = repo.object_store
    packed = store.pack_loose_objects()
    if len(store.packs) > MAX_PACKS:
        store.repack()
    ensure_fanout(git_dir / "objects")  # so the next commits' loose objects need no mkdir
    log.info("packed %d loose objects", packed)
    write_in_place(path, f"{0:>12}\n".encode(), pad=0)


def pack_all(repo, git_dir: Path) -> None:
    """Pack every object into one pack (loose objects included) and reset the counter."""
    repo.object_store.repack()
    write_in_place(state_dir(git_dir) / COUNTER, f"{0:>12}\n".encode(), pad=0)
