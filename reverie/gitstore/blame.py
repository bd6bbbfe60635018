"""Provenance: which commit introduced a line of a tracked file (a first-parent blame of just the
lines asked for).

The walk follows first parents from HEAD carrying the set of wanted line positions. Commits that
leave the file's blob unchanged cost two tree reads; where the blob changed, one line match maps
each wanted line to its position in the parent — a line with no counterpart there was introduced by
the commit in hand. The walk stops when every wanted line is attributed, at the root commit, or
after ``max_commits`` (remaining lines are then attributed to the oldest commit examined, and a
warning says so).
"""

from __future__ import annotations

import logging
from difflib import SequenceMatcher

from dulwich.objects import ObjectID

from .objects import ObjectReader, commit_datetime, read_blob, read_blob_ids, read_commit
from .queries import SHORT
from .trailers import BATCH, CURSOR, KIND, parse_batch, parse_cursor_value, split_message
from .types import Provenance

log = logging.getLogger(__name__)

__all__ = ["blame_lines", "cursor_range"]


def cursor_range(trailers: dict[str, str]) -> tuple[int, int] | None:
    batch = parse_batch(trailers.get(BATCH))
    if batch is not None:
        return batch
    cursor = parse_cursor_value(trailers.get(CURSOR))
    return (cursor, cursor) if cursor is not None else None


def _lines(data: bytes | None) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines() if data else []


def blame_lines(
    store: ObjectReader, head: ObjectID, path: str, wanted: list[int], *, max_commits: int = 20_000
) -> dict[int, ObjectID]:
    """Map each wanted 0-based line index of ``path`` at HEAD to the id of the commit that introduced it."""
    result: dict[int, ObjectID] = {}
    positions = {i: i for i in wanted}  # position in the version at `sha` -> index at HEAD
    sha = head
    commit = read_commit(store, sha)
    blob = read_blob_ids(store, commit.tree, [path])[path]
    lines = _lines(read_blob(store, blob))
    steps = 0
    while positions:
        if not commit.parents or steps >= max_commits:
            if commit.parents:
                log.warning(
                    "why: stopped after %d commits; older lines attributed to %s",
                    steps,
                    sha.decode()[:SHORT],
                )
            for head_index in positions.values():
                result[head_index] = sha
            break
        steps += 1
        parent_sha = commit.parents[0]
        parent = read_commit(store, parent_sha)
        parent_blob = read_blob_ids(store, parent.tree, [path])[path]
        if parent_blob == blob:
            sha, commit = parent_sha, parent
            continue
        parent_lines = _lines(read_blob(store, parent_blob))
        mapping: dict[int, int] = {}
        for block in SequenceMatcher(
            None, parent_lines, lines, autojunk=False
        ).get_matching_blocks():
            for k in range(block.size):
                mapping[block.b + k] = block.a + k
        survivors: dict[int, int] = {}
        for pos, head_index in positions.items():
            if pos in mapping:
                survivors[mapping[pos]] = head_index
            else:
                result[head_index] = sha
        positions = survivors
        sha, commit, blob, lines = parent_sha, parent, parent_blob, parent_lines
    return result


def provenance(
    store: ObjectReader, commit_id: ObjectID, path: str, line_no: int, line: str
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
    )
