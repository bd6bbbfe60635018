"""Approving or rejecting the SOUL.md change Dream staged (``dream.protectSoul``): ``reverie
approve`` / ``reject``, ``/dream-approve`` / ``/dream-reject`` and the MCP tools all call these two
functions.

The pending change's format and its staging belong to Dream (``reverie.dream.pending``); applying it
is an operation across Dream's run lock, the memory repo and the workspace, so it lives here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..dream.lock import dream_run_lock
from ..dream.pending import PendingChange, load_pending, pending_path
from ..errors import MergeConflictError, NothingPendingError, PendingChangedError, WorkspaceError
from ..fsutil import fsync_dir
from ..gitstore import GitStore, trailers
from ..store import WorkspaceStore
from ..textdiff import numstat_text
from ..workspace import Workspace

__all__ = ["ApproveResult", "approve", "reject"]


@dataclass(frozen=True)
class ApproveResult:
    """What ``approve`` did: the commit (None if SOUL.md already held the change), and whether it merged."""

    commit: str | None
    change: PendingChange
    merged: bool
    added: int
    removed: int


def approve(store: WorkspaceStore, git: GitStore, *, change: str | None = None) -> ApproveResult:
    """Commit the pending SOUL.md change (kind ``dream``, trailer ``Reverie-Approved``) and clear
    it.

    If SOUL.md changed since the proposal, the proposal is merged three-way into the current text;
    when the two conflict, raises ``MergeConflictError`` and leaves everything as it was. Holds
    Dream's run lock (waits up to 30 s for a running Dream, then ``LockTimeoutError``), so a run in
    flight cannot stage or commit over it.

    ``change``: the ``PendingChange.id`` the confirmation showed; when Dream widened the proposal
    since, ``PendingChangedError`` and nothing is applied.
    """
    with dream_run_lock(store.workspace.state_dir, "approve"):
        return _approve_locked(store, git, change)


def _approve_locked(store: WorkspaceStore, git: GitStore, shown: str | None) -> ApproveResult:
    change = load_pending(store)
    if change is None:
        raise NothingPendingError("no SOUL.md change is pending approval")
    _check_shown(change, shown, "approved")
    path = pending_path(store)
    current = store.workspace.read(change.path)
    if change.applied:
        # A crash fell between the approval commit and removing this file: finish the job.
        path.unlink(missing_ok=True)
        added, removed = change.counts()
        return ApproveResult(None, change, False, added, removed)
    from ..gitstore.merge import merge3  # here, not at the top: approving is rare, merging rarer

    merged = current != change.base
    if merged:
        try:
            new_text = merge3(change.base, current, change.proposed, path=change.path)
        except MergeConflictError as exc:
            raise MergeConflictError(
                f"{change.path} changed since Dream proposed this change and the two conflict"
                f"{_lines(exc.lines)}; edit {change.path} by hand and `reverie reject`, or reject and let Dream "
                f"propose again",
                path=change.path,
                lines=exc.lines,
            ) from None
    else:
        new_text = change.proposed
    git.ensure()
    message_trailers = {
        trailers.APPROVED: f"pending change of {change.created_at}"
        + (" (merged)" if merged else "")
    }
    if change.first_cursor is not None and change.last_cursor is not None:
        message_trailers[trailers.BATCH] = trailers.format_batch(
            change.first_cursor, change.last_cursor
        )
    latest = git.last_trailer(trailers.CURSOR, kind="dream")
    cursor = (
        latest
        if latest is not None
        else (str(change.last_cursor) if change.last_cursor is not None else None)
    )
    if cursor is not None:
        # Keeps "the newest dream commit carries the Dream cursor" true, which cursor recovery
        # relies on.
        message_trailers[trailers.CURSOR] = cursor
    sha = git.commit(
        f"dream: approved change to {change.path}",
        kind="dream",
        trailers=message_trailers,
        files={change.path: new_text},
        base={change.path: current},
    )  # a pin or hand edit landing meanwhile is merged, not overwritten
    path.unlink(
        missing_ok=True
    )  # after the commit: a crash before this line is finished by the next approve
    added, removed = numstat_text(current, new_text)
    return ApproveResult(sha, change, merged, added, removed)


def _check_shown(change: PendingChange, shown: str | None, verb: str) -> None:
    if shown is not None and change.id != shown:
        raise PendingChangedError(
            f"the pending {change.path} change is not the one shown: Dream widened it since "
            f"(now {change.proposals} proposal(s), updated {change.updated_at}); nothing was "
            f"{verb}: show it again",
            current_id=change.id,
        )


def reject(store: WorkspaceStore | Workspace, *, change: str | None = None) -> PendingChange | None:
    """Drop the pending SOUL.md change (even an unreadable one). Returns what was dropped, if
    readable. ``change``: the ``PendingChange.id`` the confirmation showed; when Dream widened the
    proposal since, ``PendingChangedError`` and nothing is dropped (an unreadable one is dropped
    all the same: nothing else can clear it)."""
    path = pending_path(store)
    try:
        pending = load_pending(store)
    except WorkspaceError:
        pending = None
    if not path.exists():
        return None
    if pending is not None:
        _check_shown(pending, change, "dropped")
    path.unlink()
    fsync_dir(path.parent)
    return pending


def _lines(lines: tuple[int, int] | None) -> str:
    return f" at lines {lines[0]}–{lines[1]}" if lines else ""
