"""Read-only questions to the memory repo: revision names, the first-parent log, commit details,
diffs.

History is read along first parents from HEAD (Reverie's history is linear; a merge made by hand
shows as one commit). Revision names: ``HEAD``, ``HEAD~n`` / ``HEAD^``, or 4–40 hex digits matched
against every commit in the object store (loose and packed) via the store's prefix index, not by
walking history.
"""

from __future__ import annotations

import binascii
import bisect
import os
import re
from collections.abc import Callable, Iterator

from dulwich.object_store import DiskObjectStore
from dulwich.objects import Commit, ObjectID, RawObjectID, sha_to_hex
from dulwich.pack import FilePackIndex

from ..errors import AmbiguousRevisionError, UnknownRevisionError
from .diffing import file_changes, parse_stat_body, unified_diff
from .objects import (
    CachedStore,
    ObjectReader,
    commit_datetime,
    read_blob,
    read_blob_ids,
    read_commit,
)
from .trailers import KIND, split_message
from .types import CommitDetail, CommitInfo, FileChange

__all__ = ["resolve", "walk", "commit_info", "changed_paths", "tree_diff", "SHORT"]

SHORT = 8
_HEX = re.compile(r"^[0-9a-fA-F]{4,40}$")
_HEAD = re.compile(r"^HEAD((?:~\d*|\^)*)$")


def _is_commit(store: ObjectReader, sha: ObjectID) -> bool:
    try:
        type_num, _ = store.get_raw(sha)
    except KeyError:
        return False
    return type_num == Commit.type_num


class _Names:
    """The sorted object names of one pack index as a sequence ``bisect`` can search."""

    def __init__(self, index: FilePackIndex) -> None:
        self.index = index

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, i: int) -> bytes:
        return self.index.object_sha_at_position(i)


def _iter_prefix(store: DiskObjectStore, prefix: bytes) -> Iterator[ObjectID]:
    """Hex object ids starting with ``prefix`` (hex, 4+ digits), loose and packed.

    dulwich's ``iter_prefix`` scans every name in the prefix's first-byte bucket of each pack index,
    which grows with the repo (3,000 names per lookup at 100,000 commits); this bisects to the first
    candidate (through the file pack index's public ``object_sha_at_position``), so resolving a
    prefix costs the same at any size. Any other index type, and alternates, get dulwich's own scan.
    """
    if store.alternates:
        yield from store.iter_prefix(prefix)
        return
    seen: set[ObjectID] = set()
    folder, rest = prefix[:2].decode(), prefix[2:].decode()
    try:
        names = os.listdir(os.path.join(store.path, folder))
    except OSError:
        names = []
    for name in names:
        if name.startswith(rest) and len(name) == 38:
            seen.add(ObjectID((folder + name).encode()))
    binary = binascii.unhexlify(prefix[: len(prefix) // 2 * 2])
    for pack in store.packs:
        index = pack.index
        if not isinstance(index, FilePackIndex):
            seen.update(
                sha
                for sha in (sha_to_hex(b) for b in index.iter_prefix(binary))
                if sha.startswith(prefix)
            )
            continue
        names_ = _Names(index)
        at = bisect.bisect_left(names_, binary)
        while at < len(names_):
            sha = sha_to_hex(RawObjectID(names_[at]))
            if not sha.startswith(prefix[: len(binary) * 2]):
                break
            if sha.startswith(prefix):
                seen.add(sha)
            at += 1
    yield from seen


def resolve(store: CachedStore, head: ObjectID | None, rev: str) -> ObjectID:
    """The full commit id named by ``rev`` (see the module docstring)."""
    text = (rev or "").strip()
    m = _HEAD.match(text)
    if m:
        if head is None:
            raise UnknownRevisionError("the memory repo has no commits yet")
        sha = head
        for step in re.findall(r"~\d*|\^", m.group(1)):
            count = 1 if step in ("^", "~") else int(step[1:])
            for _ in range(count):
                parents = read_commit(store, sha).parents
                if not parents:
                    raise UnknownRevisionError(f"{rev!r} goes past the first commit")
                sha = parents[0]
        return sha
    if not _HEX.match(text):
        raise UnknownRevisionError(
            f"{rev!r} is not a commit id (expected 4 to 40 hex digits, or HEAD~n)"
        )
    prefix = text.lower().encode()
    if len(prefix) == 40:
        if _is_commit(store, ObjectID(prefix)):
            return ObjectID(prefix)
        raise UnknownRevisionError(f"no commit {text} in the memory repo")
    matches = sorted({sha for sha in _iter_prefix(store.disk, prefix) if _is_commit(store, sha)})
    if not matches:
        raise UnknownRevisionError(f"no commit starts with {text} in the memory repo")
    if len(matches) > 1:
        shown = ", ".join(s.decode()[:12] for s in matches[:10])
        raise AmbiguousRevisionError(
            f"{text} is ambiguous: {len(matches)} commits "
            f"start with it ({shown}); give more digits",
            candidates=[s.decode() for s in matches],
        )
    return matches[0]


def walk(store: ObjectReader, head: ObjectID | None) -> Iterator[Commit]:
    """Commits from HEAD back along first parents; the walk ends where a parent is not in the repo
    (a shallow clone's boundary)."""
    sha = head
    while sha is not None:
        try:
            commit = read_commit(store, sha)
        except KeyError:
            if sha == head:
                raise
            return
        yield commit
        sha = commit.parents[0] if commit.parents else None


def parent_tree(store: ObjectReader, commit: Commit) -> ObjectID | None:
    if not commit.parents:
        return None
    try:
        # dulwich types Commit.tree as Any
        tree: ObjectID = read_commit(store, commit.parents[0]).tree
    except KeyError:  # a shallow clone's boundary: compared with nothing
        return None
    return tree


def changed_paths(
    store: ObjectReader, commit: Commit, paths: list[str]
) -> dict[str, tuple[ObjectID | None, ObjectID | None]]:
    """Tracked paths whose blob differs between the commit's first parent and the commit: path →
    (old, new)."""
    new = read_blob_ids(store, commit.tree, paths)
    before = parent_tree(store, commit)
    old = read_blob_ids(store, before, paths) if before else dict.fromkeys(paths)
    return {p: (old[p], new[p]) for p in paths if old[p] != new[p]}


def _computed_changes(store: ObjectReader, commit: Commit, paths: list[str]) -> list[FileChange]:
    changed = changed_paths(store, commit, paths)
    before = {p: read_blob(store, ids[0]) for p, ids in changed.items()}
    after = {p: read_blob(store, ids[1]) for p, ids in changed.items()}
    return file_changes(before, after)


def commit_info(
    store: ObjectReader, commit: Commit, paths: list[str] | Callable[[], list[str]]
) -> CommitInfo:
    """A CommitInfo. Per-file stats come from the body of Reverie commits (which is derived from the
    real diff when the commit is made); other tools' commits are diffed here."""
    message = commit.message.decode("utf-8", errors="replace")
    subject, body, trailers = split_message(message)
    kind = trailers.get(KIND, "")
    files = parse_stat_body(body) if kind else None
    if files is None:  # only now are the paths needed (computing them reads trees)
        files = _computed_changes(store, commit, paths() if callable(paths) else paths)
    sha = commit.id.decode()
    return CommitInfo(
        sha=sha,
        short=sha[:SHORT],
        time=commit_datetime(commit),
        kind=kind,
        subject=subject,
        message=message,
        trailers=trailers,
        files=files,
    )


def tree_diff(
    store: ObjectReader, old_tree: ObjectID | None, new_tree: ObjectID | None, paths: list[str]
) -> str:
    """git-style unified diff of the tracked paths between two trees (None = empty)."""
    old = read_blob_ids(store, old_tree, paths) if old_tree else dict.fromkeys(paths)
    new = read_blob_ids(store, new_tree, paths) if new_tree else dict.fromkeys(paths)
    return "".join(unified_diff(store, p, old[p], new[p]) for p in paths if old[p] != new[p])


def show(store: ObjectReader, sha: ObjectID, paths: list[str]) -> CommitDetail:
    commit = read_commit(store, sha)
    diff = tree_diff(store, parent_tree(store, commit), commit.tree, paths)
    return CommitDetail(commit_info(store, commit, paths), diff)
