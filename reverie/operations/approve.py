"""Approving or rejecting the SOUL.md change Dream staged (``dream.protectSoul``): ``reverie
approve`` / ``reject``, ``/dream-approve`` / ``/dream-reject`` and the MCP tools all call these
functions.

The proposal's format and its staging belong to Dream (``reverie.dream.proposal``); applying it
is an operation across Dream's run lock, the memory repo and the workspace, so it lives here.

A rejection is kept and recorded: the proposal's file moves (one rename) to
``memory/.reverie/rejected/<stamp>-<digest>.json``, and a commit of kind ``reject`` that changes no
file records it in memory's log — its body the proposal's reasons and diff, its
``Reverie-Rejected`` trailer the kept file's name. Undoing that commit (``restore_memory``, the
Timeline's undo) puts the proposal back on Review (``unreject``, a ``revert`` commit naming it);
undoing that undo rejects it again. Order: the record, then the rename (a crash between leaves the
proposal waiting with a record that says rejected; rejecting it again keeps it and records again).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..dream.lock import dream_run_lock
from ..dream.proposal import SoulProposal, load_proposal, proposal_path
from ..errors import MergeConflictError, NothingPendingError, PendingChangedError, WorkspaceError
from ..gitstore import GitStore, trailers
from ..gitstore.types import CommitInfo
from ..storage.fsutil import fsync_dir
from ..storage.store import WorkspaceStore
from ..storage.workspace import Workspace
from ..text.diff import numstat_text

__all__ = [
    "ApproveResult",
    "RejectResult",
    "approve",
    "reject",
    "unreject",
    "rejected_path",
    "REJECTED_DIR",
]

#: Where rejected proposals are kept (under the workspace's state directory).
REJECTED_DIR = "rejected"


@dataclass(frozen=True)
class ApproveResult:
    """What ``approve`` did: the commit (None if SOUL.md already held the change), and whether it
    merged."""

    commit: str | None
    change: SoulProposal
    merged: bool
    added: int
    removed: int


def approve(store: WorkspaceStore, git: GitStore, *, change: str | None = None) -> ApproveResult:
    """Commit the SOUL.md proposal (kind ``dream``, trailer ``Reverie-Approved``) and clear
    it.

    If SOUL.md changed since the proposal, the proposal is merged three-way into the current text;
    when the two conflict, raises ``MergeConflictError`` and leaves everything as it was. Holds
    Dream's run lock (waits up to 30 s for a running Dream, then ``LockTimeoutError``), so a run in
    flight cannot stage or commit over it.

    ``change``: the ``SoulProposal.id`` the confirmation showed; when Dream widened the proposal
    since, ``PendingChangedError`` and nothing is applied.
    """
    with dream_run_lock(store.workspace.state_dir, "approve"):
        return _approve_locked(store, git, change)


def _approve_locked(store: WorkspaceStore, git: GitStore, shown: str | None) -> ApproveResult:
    change = load_proposal(store)
    if change is None:
        raise NothingPendingError("no SOUL.md proposal is waiting for approval")
    _check_shown(change, shown, "approved")
    path = proposal_path(store)
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
                f"{_lines(exc.lines)}; edit {change.path} by hand and `reverie reject`, "
                "or reject and let Dream "
                f"propose again",
                path=change.path,
                lines=exc.lines,
            ) from None
    else:
        new_text = change.proposed
    git.ensure()
    message_trailers = {
        trailers.APPROVED: f"SOUL.md proposal of {change.created_at}"
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


#: The shortest prefix of a proposal's id (64 hex digits) that names it, as a person types it from
#: ``reverie approve --show`` or ``/dream-log``.
MIN_ID_PREFIX = 8


def _check_shown(change: SoulProposal, shown: str | None, verb: str) -> None:
    """Under the lock: ``shown`` (the id, or a prefix of at least ``MIN_ID_PREFIX`` characters,
    any case) must name the proposal waiting now, else nothing is done."""
    if shown is None:
        return
    given = shown.strip().lower()
    if len(given) < MIN_ID_PREFIX or not change.id.startswith(given):
        raise PendingChangedError(
            f"the {change.path} proposal waiting is not the one shown (it is {change.id[:12]} now, "
            f"{change.proposals} proposal(s), updated {change.updated_at}); nothing was "
            f"{verb}: show it again",
            current_id=change.id,
        )


@dataclass(frozen=True)
class RejectResult:
    """What ``reject`` did: the proposal dropped (None when its file could not be read), where it is
    kept, and the commit recording it."""

    change: SoulProposal | None
    kept: str  # the file's name under ``memory/.reverie/rejected/``
    commit: str | None


def rejected_path(store: WorkspaceStore | Workspace, name: str) -> Path:
    """The kept file of a rejected proposal, by the name its ``reject`` commit records."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise WorkspaceError(f"{name!r} is not the name of a rejected proposal")
    return _workspace(store).state_dir / REJECTED_DIR / name


def reject(
    store: WorkspaceStore | Workspace, git: GitStore, *, change: str | None = None
) -> RejectResult | None:
    """Drop the SOUL.md proposal (even an unreadable one): keep its file under
    ``rejected/`` and record it as a ``reject`` commit (see the module docstring). None when nothing
    was pending. Holds Dream's run lock, as ``approve`` does. ``change``: the ``SoulProposal.id``
    the confirmation showed; when Dream widened the proposal since, ``PendingChangedError`` and
    nothing is rejected (an unreadable one is rejected all the same: nothing else can clear it)."""
    ws = _workspace(store)
    shown = change
    with dream_run_lock(ws.state_dir, "reject"):
        path = proposal_path(store)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            pending = load_proposal(store)
        except WorkspaceError:
            pending = None  # unreadable: dropped all the same, its bytes kept as they are
        if pending is not None:
            _check_shown(pending, shown, "rejected")
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        name = f"{stamp}-{hashlib.sha256(raw).hexdigest()[:12]}.json"
        git.ensure()
        sha = git.commit(
            _reject_subject(pending) + "\n\n" + _reject_body(pending, name),
            kind="reject",
            trailers=_reject_trailers(pending, name),
            files={},
            allow_empty=True,
        )
        kept = rejected_path(store, name)
        kept.parent.mkdir(parents=True, exist_ok=True)
        _move(path, kept)
        return RejectResult(pending, name, sha)


def unreject(store: WorkspaceStore, git: GitStore, info: CommitInfo) -> str | None:
    """Put the proposal the ``reject`` commit ``info`` dropped back on Review, recorded as a
    ``revert`` of that commit; returns the record's sha. Refused when another change waits (approve
    or reject it first) or the kept file is gone."""
    name = info.trailers.get(trailers.REJECTED, "")
    kept = rejected_path(store, name)
    path = proposal_path(store)
    with dream_run_lock(store.workspace.state_dir, "undo a reject"):
        if path.exists():
            raise WorkspaceError(
                "another SOUL.md change waits for approval: approve or reject it, then undo "
                f"the rejection {info.short} again"
            )
        if not kept.is_file():
            raise WorkspaceError(
                f"the proposal {info.short} rejected was kept as {kept}, which is gone: "
                "nothing can be put back"
            )
        sha = git.commit(
            f"revert: undo {info.short} ({info.subject})"[:200],
            kind="revert",
            trailers={trailers.REVERT_OF: info.sha, trailers.REJECTED: name},
            files={},
            allow_empty=True,
        )
        _move(kept, path)
        return sha


def _move(source: Path, target: Path) -> None:
    """One rename (atomic), made durable in both folders."""
    os.replace(source, target)
    fsync_dir(target.parent)
    if source.parent != target.parent:
        fsync_dir(source.parent)


def _workspace(store: WorkspaceStore | Workspace) -> Workspace:
    return store if isinstance(store, Workspace) else store.workspace


def _reject_subject(change: SoulProposal | None) -> str:
    if change is None:
        return "reject: the proposed SOUL.md change (unreadable)"
    added, removed = change.counts()
    return f"reject: the proposed change to {change.path} (+{added} -{removed})"


def _reject_trailers(change: SoulProposal | None, name: str) -> dict[str, str]:
    out = {trailers.REJECTED: name}
    if change is not None and change.first_cursor is not None and change.last_cursor is not None:
        out[trailers.BATCH] = trailers.format_batch(change.first_cursor, change.last_cursor)
    return out


def _reject_body(change: SoulProposal | None, name: str) -> str:
    """The record's body: why Dream proposed it, and the proposal as a diff (what was refused)."""
    where = f"memory/.reverie/{REJECTED_DIR}/{name}"
    if change is None:
        return f"The proposal could not be read; its file is kept as {where}."
    reasons = "\n".join(f"- {r}" for r in change.reasons)
    head = f"Proposed {change.created_at}; kept as {where}."
    return "\n\n".join(part for part in (head, reasons, change.diff().rstrip("\n")) if part)


def _lines(lines: tuple[int, int] | None) -> str:
    return f" at lines {lines[0]}–{lines[1]}" if lines else ""
