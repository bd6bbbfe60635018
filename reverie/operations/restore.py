"""Restore and revert as Dream sees them: under Dream's run lock, and with ``replay`` the Dream
cursor rewound.

GitStore only versions the files (its ``restore``/``revert`` name the cursor a replay should go back
to); moving ``.dream_cursor`` is Dream's policy, so it happens here. Order: the restore commit, then
the cursor (a crash in between only skips the rewind), then every set-aside or requeued batch past
the new cursor is settled as replayed (``deadletter.settle_replayed``): the cursor reaches it again,
so the replay runs every batch after the restored commit, requeued ones included, and no old
set-aside record reads as a crash (a crash before this last step leaves a set-aside batch listed by
``reverie requeue``; nothing is lost). The run lock makes the pair atomic towards Dream: a run in
flight would otherwise commit and write its own cursor over the rewind, and the restored batch would
never be re-learned.
"""

from __future__ import annotations

from dataclasses import replace

from ..dream.deadletter import deadletter_path, settle_replayed
from ..dream.lock import dream_run_lock
from ..errors import CursorError
from ..gitstore import GitStore
from ..gitstore.types import OperationResult
from ..store import WorkspaceStore

__all__ = ["restore_memory"]


def restore_memory(
    store: WorkspaceStore,
    git: GitStore,
    rev: str,
    *,
    only: bool = False,
    replay: bool = False,
    timeout: float | None = None,
    base: str | None = None,
) -> OperationResult:
    """Restore memory to before ``rev`` (``only``: undo just ``rev``, GitStore.revert); with
    ``replay``, also rewind the Dream cursor to just before that run's batch so Dream re-learns it.
    ``base``: the commit the confirmation's preview was made at (``GitStore.plan``): changes made
    since are kept. Waits for a running Dream (``timeout`` seconds, default
    ``lock.WAIT_SECONDS``)."""
    with dream_run_lock(store.workspace.state_dir, "restore", timeout):
        if only:
            result = git.revert(rev, replay=replay, base=base)
        else:
            result = git.restore(rev, replay=replay, base=base)
        target = result.replay_from
        if target is None:
            return result
        try:
            current: int | None = store.dream_cursor()
        except CursorError:
            current = None  # unreadable: the rewind sets it
        if current is not None and current <= target:
            return result  # already at or before the batch: nothing to rewind
        store.set_dream_cursor(target)
        settle_replayed(deadletter_path(store.workspace.memory_dir), target)
        return replace(result, cursor_rewound_to=target)
