"""Provenance: which commit introduced a line of a tracked file (a first-parent blame of just the
lines asked for), followed through undos back to the commit that first wrote it.

The walk follows first parents from HEAD carrying the set of wanted line positions. Commits that
leave the file's blob unchanged cost two tree reads; where the blob changed, one line match maps
each wanted line to its position in the parent — a line with no counterpart there was introduced by
the commit in hand. The walk stops when every wanted line is attributed, at the root commit, at a
parent that cannot be read, or after ``max_commits`` (remaining lines are then attributed to the
oldest commit examined, and a warning says so).

A line introduced by a restore or a revert (``Reverie-Restore-Of`` / ``Reverie-Revert-Of``) was not
written there: the undo brought it back from the state before the commit it undid (a restore puts
the files back as the undone commit's parent had them; a revert re-adds, from that parent, the
lines the undone commit removed). So the line is found in that parent's version of the file and
blamed again from there, as many times as it takes — an undo of an undo of an undo leads back to
the Dream commit and its batch, and through it to the conversation. ``Provenance.via`` lists the
undos followed, newest first.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from difflib import SequenceMatcher

from dulwich.objects import Commit, ObjectID

from ..errors import GitStoreError
from .objects import ObjectReader, commit_datetime, read_blob, read_blob_ids, read_commit
from .queries import SHORT
from .trailers import (
    BATCH,
    CURSOR,
    KIND,
    RESTORE_OF,
    REVERT_OF,
    parse_batch,
    parse_cursor_value,
    split_message,
)
from .types import Provenance

log = logging.getLogger(__name__)

__all__ = ["blame_lines", "trace_lines", "cursor_range"]

#: Undos followed for one line at most (each leads to an older commit, so this only bounds a
#: pathological history).
MAX_UNDOS = 200


def cursor_range(trailers: dict[str, str]) -> tuple[int, int] | None:
    batch = parse_batch(trailers.get(BATCH))
    if batch is not None:
        return batch
    cursor = parse_cursor_value(trailers.get(CURSOR))
    return (cursor, cursor) if cursor is not None else None


def _lines(data: bytes | None) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines() if data else []


def _version(store: ObjectReader, commit: Commit, path: str) -> tuple[ObjectID | None, list[str]]:
    blob = read_blob_ids(store, commit.tree, [path])[path]
    return blob, _lines(read_blob(store, blob))


def _mapping(old: list[str], new: list[str]) -> dict[int, int]:
    """Position in ``new`` → position in ``old`` of every line the two share (one line match)."""
    if old == new:
        return {i: i for i in range(len(new))}
    out: dict[int, int] = {}
    for block in SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            out[block.b + k] = block.a + k
    return out


def blame_lines(
    store: ObjectReader, head: ObjectID, path: str, wanted: list[int], *, max_commits: int = 20_000
) -> dict[int, ObjectID]:
    """Map each wanted 0-based line index of ``path`` at HEAD to the id of the commit that
    introduced it."""
    return {
        i: sha
        for i, (sha, _via) in trace_lines(
            store, head, path, wanted, max_commits=max_commits
        ).items()
    }


def trace_lines(
    store: ObjectReader, head: ObjectID, path: str, wanted: list[int], *, max_commits: int = 20_000
) -> dict[int, tuple[ObjectID, tuple[ObjectID, ...]]]:
    """Each wanted 0-based line index of ``path`` at HEAD → the commit that wrote it, and the undos
    (restores, reverts) that brought it back since, newest first (see the module docstring)."""
    result: dict[int, tuple[ObjectID, tuple[ObjectID, ...]]] = {}
    via: dict[int, tuple[ObjectID, ...]] = {i: () for i in wanted}
    todo: list[tuple[ObjectID, dict[int, list[int]]]] = [(head, {i: [i] for i in wanted})]
    while todo:
        start, positions = todo.pop()
        found = _walk(store, start, path, positions, max_commits)
        sources: dict[ObjectID, dict[int, list[int]]] = {}
        for sha, at in found.items():
            for pos, keys in at.items():
                source = None
                if all(len(via[k]) < MAX_UNDOS for k in keys):
                    source = _undo_source(store, sha, path, pos)
                if source is None:
                    result.update((k, (sha, via[k])) for k in keys)
                    continue
                for k in keys:
                    via[k] += (sha,)
                sources.setdefault(source[0], {}).setdefault(source[1], []).extend(keys)
        todo.extend(sources.items())
    return result


def _walk(
    store: ObjectReader,
    start: ObjectID,
    path: str,
    wanted: Mapping[int, list[int]],
    max_commits: int,
) -> dict[ObjectID, dict[int, list[int]]]:
    """From ``start`` back along first parents: each commit that introduced wanted lines → each
    such line's position in that commit's version → the keys (HEAD indexes) it stands for."""
    out: dict[ObjectID, dict[int, list[int]]] = {}
    positions = dict(wanted)  # position in the version at `sha` -> keys
    sha = start
    commit = read_commit(store, sha)
    blob, lines = _version(store, commit, path)
    steps = 0
    while positions:
        parent: Commit | None = None
        if commit.parents and steps < max_commits:
            try:
                parent = read_commit(store, commit.parents[0])
            except (KeyError, GitStoreError):
                log.warning(
                    "why: the commit before %s cannot be read; its lines are attributed to it",
                    sha.decode()[:SHORT],
                )
        elif commit.parents:
            log.warning(
                "why: stopped after %d commits; older lines attributed to %s",
                steps,
                sha.decode()[:SHORT],
            )
        if parent is None:
            out.setdefault(sha, {}).update(positions)
            break
        steps += 1
        parent_sha = commit.parents[0]
        parent_blob, parent_lines = (
            (blob, lines)
            if read_blob_ids(store, parent.tree, [path])[path] == blob
            else _version(store, parent, path)
        )
        if parent_blob == blob:
            sha, commit = parent_sha, parent
            continue
        mapping = _mapping(parent_lines, lines)
        survivors: dict[int, list[int]] = {}
        for pos, keys in positions.items():
            if pos in mapping:
                survivors.setdefault(mapping[pos], []).extend(keys)
            else:
                out.setdefault(sha, {})[pos] = keys
        positions = survivors
        sha, commit, blob, lines = parent_sha, parent, parent_blob, parent_lines
    return out


def _undo_source(
    store: ObjectReader, sha: ObjectID, path: str, pos: int
) -> tuple[ObjectID, int] | None:
    """Where the line at ``pos`` of ``path`` in the undo commit ``sha`` came from: the parent of the
    commit it undid, and the line's position there. None when ``sha`` is no undo, or the line is
    not in that state (it is the undo's own)."""
    try:
        commit = read_commit(store, sha)
        trailers = split_message(commit.message.decode("utf-8", "replace"))[2]
        undone = trailers.get(RESTORE_OF) or trailers.get(REVERT_OF)
        if not undone or len(undone) != 40:
            return None
        target = read_commit(store, ObjectID(undone.encode()))
        if not target.parents:
            return None
        before = read_commit(store, target.parents[0])
        _, lines = _version(store, commit, path)
        _, old = _version(store, before, path)
    except (KeyError, GitStoreError, ValueError):
        return None
    found = _mapping(old, lines).get(pos)
    return None if found is None else (target.parents[0], found)


def provenance(
    store: ObjectReader,
    commit_id: ObjectID,
    path: str,
    line_no: int,
    line: str,
    via: tuple[ObjectID, ...] = (),
) -> Provenance:
    commit = read_commit(store, commit_id)
    subject, _, trailers = split_message(commit.message.decode("utf-8", errors="replace"))
    sha = commit_id.decode()
    return Provenance(
        path=path,
        line_no=line_no,
        line=line,
        sha=sha,
        short=sha[:SHORT],
        kind=trailers.get(KIND, ""),
        time=commit_datetime(commit),
        subject=subject,
        cursor_range=cursor_range(trailers),
        via=tuple(v.decode() for v in via),
    )
