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
from ..gitstore import GitStore, trailers
from ..gitstore.types import CommitInfo, OperationResult
from ..storage.store import WorkspaceStore

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
    ``lock.WAIT_SECONDS``).

    Undoing a rejection of a SOUL.md proposal (a ``reject`` commit) puts the proposal back on
    Review; undoing that undo rejects it again (``reverie.operations.approve``)."""
    found = git.log(limit=1, start=rev) if rev else []
    undone = found[0] if found else None  # none: no repo yet (restore says so)
    if undone is not None and _rejection(git, undone) is not None:
        return _undo_rejection(store, git, undone, only=only, base=base)
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


def _rejection(git: GitStore, info: CommitInfo) -> str | None:
    """``reject`` when ``info`` rejected a SOUL.md proposal, ``unreject`` when it undid such a
    rejection, else None."""
    if trailers.REJECTED not in info.trailers:
        return None
    if info.kind == "reject":
        return "reject"
    undone = info.trailers.get(trailers.REVERT_OF)
    if info.kind == "revert" and undone:
        found = git.log(limit=1, start=undone)
        if found and found[0].kind == "reject":
            return "unreject"
    return None


def _undo_rejection(
    store: WorkspaceStore, git: GitStore, info: CommitInfo, *, only: bool, base: str | None = None
) -> OperationResult:
    """Undo ``info``, a rejection (the proposal goes back on Review) or the undo of one (rejected
    again); with ``only=False`` the files also go back to before it first, as any restore."""
    from .approve import reject, unreject

    before: OperationResult | None = None
    if not only:
        with dream_run_lock(store.workspace.state_dir, "restore"):
            before = git.restore(info.sha, base=base)
    if _rejection(git, info) == "reject":
        sha = unreject(store, git, info)
    else:
        done = reject(store, git)
        sha = done.commit if done is not None else None
    files = before.files if before is not None else []
    return OperationResult(sha, files, merged=before is not None and before.merged)
