"""Writing a Dream run, in a crash-safe order, and putting things right on start-up.

Order (each step durable before the next): (1) re-read the tracked files and three-way merge the
run's edits over any change made meanwhile; (2) ``GitStore.commit`` — which commits a person's
uncommitted edit as ``manual`` first, then writes objects, moves the ref, and only then writes the
files atomically (its own recovery rolls a crash between ref and files forward); (3)
``.dream_cursor`` advanced. Recovery (``reconcile``): a HEAD dream commit whose ``Reverie-Cursor``
is ahead of ``.dream_cursor`` advances the cursor, so a committed batch is never replayed; without
such a commit the cursor stays, so an uncommitted batch is never skipped. Every cursor move is also
recorded (``MemoryStore.set_dream_cursor``), so a corrupt file is restored exactly. A batch still
set aside (not requeued, done or replayed since) whose batch lies just past the cursor means a crash
between the dead-letter record and the cursor write: the cursor moves on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from ..errors import HistoryError
from ..gitstore import trailers as tr
from ..gitstore.merge import merge3
from ..gitstore.types import FileChange
from ..llm.types import Usage
from ..storage.store import WorkspaceStore
from ..storage.workspace import Workspace
from ..text.diff import numstat_text
from .deadletter import deadletter_path, set_aside
from .records import Attempts
from .result import Finding

if TYPE_CHECKING:
    from ..gitstore import GitStore

__all__ = [
    "fault",
    "merge_over_disk",
    "file_changes",
    "dream_trailers",
    "commit_message",
    "commit_run",
    "reconcile",
]

log = logging.getLogger(__name__)

#: Fault-injection hook: called with "before-commit", "committed", "cursor-written" (and
#: "dead-lettered" by the runner between a dead-letter record and its cursor write). Tests that
#: simulate a crash replace it (in a subprocess) with one that calls ``os._exit``; it does nothing
#: otherwise.
fault: Callable[[str], None] = lambda point: None


def _read_disk(workspace: Workspace, rel: str) -> str:
    path = workspace.resolve(rel)
    return path.read_bytes().decode("utf-8") if path.exists() else ""


def merge_over_disk(
    workspace: Workspace, base: Mapping[str, str], changed: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """``(files, disk)``: the run's changed files re-applied over what is on disk now — unchanged
    since the run started → the run's version; changed meanwhile → a three-way merge (base, run,
    disk) — and the disk contents read. Raises ``MergeConflictError`` on a conflict,
    ``UnsafePathError`` if a file became a symlink, ``UnicodeDecodeError`` if it became invalid
    UTF-8."""
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for rel, ours in changed.items():
        disk = seen[rel] = _read_disk(workspace, rel)
        original = base.get(rel, "")
        if disk == original:
            out[rel] = ours
        elif disk == ours:
            out[rel] = ours  # the same change was made by hand
        else:
            log.info("dream: %s changed during the run; merging the run's edits over it", rel)
            out[rel] = merge3(original, ours, disk, path=rel)
    return out, seen


def file_changes(before: Mapping[str, str], after: Mapping[str, str]) -> list[FileChange]:
    """Lines added/removed per changed file, from the real contents (the same counter as the commit
    body)."""
    return [
        FileChange(rel, *numstat_text(before.get(rel, ""), new))
        for rel, new in after.items()
        if before.get(rel, "") != new
    ]


def dream_trailers(
    first: int, last: int, *, model: str, iterations: int, tool_calls: int, usage: Usage
) -> dict[str, str]:
    out = {
        tr.KIND: "dream",
        tr.BATCH: tr.format_batch(first, last),
        tr.CURSOR: str(last),
        tr.MODEL: model,
        tr.ITERATIONS: str(iterations),
        tr.TOOL_CALLS: str(tool_calls),
        tr.TOKENS: str(usage.total_tokens),
    }
    if usage.cost is not None:
        out[tr.COST] = f"{usage.cost:.6f}"
    return out


def commit_message(
    changes: Sequence[FileChange], findings: Sequence[Finding], first: int, last: int
) -> tuple[str, str]:
    """Subject from the real diff; the body lists the findings the run worked from."""
    stats = ", ".join(f"{c.path} +{c.added} -{c.removed}" for c in changes)
    subject = f"dream: {stats} (history {first}-{last})"
    body = "\n".join(f"[{f.kind}] {f.text}" for f in findings)
    return subject, body


def commit_run(
    git: GitStore,
    store: WorkspaceStore,
    files: Mapping[str, str],
    message: str,
    trailers: Mapping[str, str],
    last: int,
    base: Mapping[str, str] | None = None,
    section: AbstractContextManager[None] | None = None,
) -> str | None:
    """Commit (GitStore writes the files after its ref update) and only then advance the Dream
    cursor, both inside ``section`` (the run's write fence, ``Fence.section()``, which refuses a
    stale run before anything is written). ``base``: the contents ``files`` were merged over;
    GitStore merges again, under its writer lock, over anything another writer committed since (the
    one writer protocol: ``GitStore.commit``'s ``base``)."""
    fault("before-commit")
    trailers = {**trailers, **_last_entry_trailer(store, last)}
    with section if section is not None else nullcontext():
        sha = (
            git.commit(message, kind="dream", trailers=trailers, files=dict(files), base=base)
            if files
            else None
        )
        fault("committed")
        store.set_dream_cursor(last)
    fault("cursor-written")
    return sha


def _last_entry_trailer(store: WorkspaceStore, cursor: int) -> dict[str, str]:
    """``Reverie-Last-Entry``: the digest of the entry at ``cursor`` (none when the log has no
    entry there: a gap, or nothing dreamed yet)."""
    entry = store.history.entry_at(cursor)
    return {tr.LAST_ENTRY: entry.digest()} if entry is not None else {}


def _dream_cursors(git: GitStore) -> list[tuple[int, str | None]]:
    """The ``Reverie-Cursor`` and ``Reverie-Last-Entry`` (None for a commit written before it) of
    the dream commits near the tip, newest first, looking past other commits (a person's edit, an
    approved SOUL.md change, a purge, an archive file's repair, which consumed no history) but not
    past a restore or revert: those set the cursor themselves (``--replay`` rewinds it on
    purpose), so they win."""
    out: list[tuple[int, str | None]] = []
    for info in git.log(limit=10):
        if info.kind in ("restore", "revert"):
            break
        cursor = tr.parse_cursor_value(info.trailers.get(tr.CURSOR))
        if info.kind == "dream" and cursor is not None:
            out.append((cursor, info.trailers.get(tr.LAST_ENTRY)))
    return out


def _holds(store: WorkspaceStore, cursor: int, digest: str | None) -> bool:
    """Whether the log holds the entry a dream commit consumed last (no record: trusted)."""
    return digest is None or _last_entry_trailer(store, cursor).get(tr.LAST_ENTRY) == digest


def _mark_read_through(store: WorkspaceStore, cursor: int) -> None:
    """Dream's read mark moved past ``cursor`` (``HistoryLog.mark_read_through``); a failure only
    means the lines up to it may be dreamed twice, never lost."""
    try:
        store.history.mark_read_through(cursor)
    except HistoryError as exc:
        log.warning("dream: %s; the entries up to %d may be dreamed twice", exc, cursor)


def reconcile(store: WorkspaceStore, git: GitStore, attempts: Attempts) -> int:
    """Bring ``.dream_cursor`` up to what was durably done; returns the cursor. A corrupt file gets
    back the value Reverie last wrote (``MemoryStore.settle_dream_cursor``), never one guessed from
    git. A dream commit whose last entry the log does not hold (``Reverie-Last-Entry``: memory/
    put back from an older copy, its cursors since run on to other entries) is not followed; the
    newest older one whose entry it holds is."""
    cursor = store.settle_dream_cursor()
    target = cursor
    ahead = [(c, d) for c, d in _dream_cursors(git) if c > cursor]
    if ahead:
        head, digest = ahead[0]
        last = store.last_cursor()
        if head > last:
            # that commit consumed a history this log is not (history.jsonl replaced or lost)
            log.warning(
                "dream: the last dream commit consumed history up to %d, but the history log ends "
                "at %d; not advancing .dream_cursor (%d) past entries that were never processed",
                head,
                last,
                cursor,
            )
        elif not _holds(store, head, digest):
            log.warning(
                "dream: the last dream commit consumed history up to %d, but the entry at %d is "
                "not the one it read (history.jsonl replaced by another copy); not advancing "
                ".dream_cursor (%d) past it: the entries after it are dreamed",
                head,
                head,
                cursor,
            )
        else:
            log.warning(
                "dream: the last dream commit consumed history up to %d but .dream_cursor is %d; "
                "advancing",
                head,
                cursor,
            )
            target = head
        if target == cursor:
            older = (c for c, d in ahead[1:] if d is not None and c <= last and _holds(store, c, d))
            target = next(older, cursor)
            if target != cursor:
                log.warning(
                    "dream: advancing .dream_cursor to %d, the newest dream commit whose last "
                    "entry the history log holds",
                    target,
                )
        if target != cursor:
            _mark_read_through(store, target)
    # requeued, done or replayed ones are settled
    letters = set_aside(deadletter_path(store.workspace.memory_dir))
    if letters and letters[-1].first <= target + 1 < letters[-1].last + 1:
        log.warning(
            "dream: batch %d-%d was set aside but the cursor was not moved; advancing",
            letters[-1].first,
            letters[-1].last,
        )
        target = letters[-1].last
    if target != cursor:
        store.set_dream_cursor(target)
    if attempts.first is not None and attempts.first <= target:
        attempts.clear()
    return target
