"""Removing a string from every version in the memory repository (``reverie purge``'s git half).

``scan_history`` counts where the string occurs (blobs, commit messages, tag messages) in everything
reachable from any ref. ``rewrite_history`` replaces it everywhere and makes the old objects
unrecoverable:

1. under the writer lock, every commit reachable from any ref is rebuilt parents-first: blobs
   holding the string get new content (replaced as the file's format allows,
   ``reverie.security.scrub``: only string values of a JSON file), commit and tag messages lose it
   from their text but never from a structured trailer (``trailers.replace_in_message``:
   ``Reverie-Cursor: 1234`` survives a purge of "1234"), trees and commits above them get new ids;
   author, committer, both dates and time zones and the message (but for the string) are kept; an
   unchanged commit keeps its id. A rewritten commit loses its signature (it would no longer
   verify);
2. the new objects are written (additions only: a crash here leaves dangling objects and nothing
   else);
3. the tracked files on disk that hold the string are rewritten (atomic each) — before any ref
   moves, so the string can never be re-committed from disk as a "manual" edit after the refs stop
   holding it;
4. a ``Reverie-Kind: purge`` commit is made on top of the rewritten branch (its trailer describes
   what was removed, never the string), and every ref moves to its rewritten commit
   (compare-and-swap each);
5. every reflog is replaced by one entry for the ref's new value (old entries would keep old objects
   reachable);
6. the git index is refreshed for the tracked files; then everything still reachable is repacked
   into one pack and every other object, loose or packed, is deleted (dulwich
   ``repack(exclude=unreachable)``, which writes the new pack before removing old ones).

Each step is idempotent, so a purge interrupted at any point is finished by running it again with
the same string: a second run finds what is left and removes it.
"""

from __future__ import annotations

import logging
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.gc import find_reachable_objects
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tag, Tree
from dulwich.reflog import format_reflog_line
from dulwich.refs import Ref
from dulwich.repo import Repo

from ..errors import GitStoreError
from ..security.scrub import replace_in_file
from ..storage.fsutil import atomic_write
from .objects import ObjectReader, make_commit, read_blob_ids, read_commit, read_tree
from .repo import HEAD
from .trailers import KIND, PURGE, format_message, replace_in_message
from .writer import update_index

if TYPE_CHECKING:
    from .core import GitStore

log = logging.getLogger(__name__)

__all__ = [
    "HistoryScan",
    "HistoryRewrite",
    "scan_history",
    "rewrite_history",
    "reachable_texts",
]


@dataclass(frozen=True)
class HistoryScan:
    """Where the string occurs in the repository (everything reachable from a ref)."""

    commits: int  # commits scanned
    commits_affected: int  # commits whose tree or message holds it
    blobs: int  # distinct file versions holding it
    occurrences: int  # total occurrences in those blobs and in messages
    paths: tuple[str, ...]  # tracked paths that held it in some version
    messages: int  # commit or tag messages holding it


@dataclass(frozen=True)
class HistoryRewrite:
    scan: HistoryScan
    rewritten: int  # commits given new ids
    head: str | None  # the purge commit (None when nothing was found anywhere)
    removed_objects: tuple[str, ...] = field(default=())  # ids deleted from the object store
    files: tuple[str, ...] = ()  # tracked files rewritten on disk


def _all_commits(store: ObjectReader, roots: list[ObjectID]) -> list[Commit]:
    """Every commit reachable from ``roots``, parents before children."""
    order: list[Commit] = []
    seen: set[ObjectID] = set()
    stack: list[tuple[ObjectID, bool]] = [(r, False) for r in reversed(roots)]
    while stack:
        sha, expanded = stack.pop()
        if expanded:
            order.append(read_commit(store, sha))
            continue
        if sha in seen:
            continue
        seen.add(sha)
        commit = read_commit(store, sha)
        stack.append((sha, True))
        for parent in reversed(commit.parents):
            if parent not in seen:
                stack.append((parent, False))
    return order


def _peel_roots(repo: Repo) -> tuple[dict[Ref, ObjectID], list[ObjectID]]:
    """``{ref: object id}`` of the concrete refs, and the commits they lead to (tags peeled)."""
    refs: dict[Ref, ObjectID] = {}
    commits: list[ObjectID] = []
    for name in sorted(repo.refs.allkeys()):
        if name == b"HEAD" and (repo.refs.read_ref(name) or b"").startswith(b"ref: "):
            continue
        try:
            sha = repo.refs[name]
        except KeyError:
            continue
        refs[name] = sha
        obj = repo.object_store[sha]
        while isinstance(obj, Tag):
            obj = repo.object_store[obj.object[1]]
        if isinstance(obj, Commit):
            commits.append(obj.id)
    return refs, commits


class _Rewriter:
    """The rewrite of every object reachable from the refs, memoised: old id → new id (the same when
    unchanged)."""

    def __init__(self, store: ObjectReader, needle: bytes, replacement: bytes) -> None:
        self.store = store
        self.needle = needle
        self.replacement = replacement
        self.old = needle.decode("utf-8", errors="surrogateescape")
        self.new = replacement.decode("utf-8", errors="surrogateescape")
        self.blobs: dict[ObjectID, ObjectID] = {}
        self.trees: dict[ObjectID, ObjectID] = {}
        self.commits: dict[ObjectID, ObjectID] = {}
        self.new_objects: list[ShaFile] = []
        self.occurrences = 0
        self.messages = 0
        self.affected_blobs: set[ObjectID] = set()
        self.paths: set[str] = set()

    def blob(self, sha: ObjectID, path: str) -> ObjectID:
        if sha in self.blobs:
            if self.blobs[sha] != sha:
                self.paths.add(path)
            return self.blobs[sha]
        data = self.store[sha].as_raw_string()
        fixed, n = (
            replace_in_file(path, data, self.old, self.new) if self.needle in data else (data, 0)
        )
        if n:
            self.occurrences += n
            self.affected_blobs.add(sha)
            self.paths.add(path)
            new = Blob.from_string(fixed)
            self.new_objects.append(new)
            self.blobs[sha] = new.id
        else:
            self.blobs[sha] = sha
        return self.blobs[sha]

    def tree(self, sha: ObjectID, prefix: str = "") -> ObjectID:
        if sha in self.trees:
            if self.trees[sha] != sha:  # record the paths for this tree again (for the plan)
                self._paths_of(sha, prefix)
            return self.trees[sha]
        old = read_tree(self.store, sha)
        new = Tree()
        changed = False
        for entry in old.items():
            name, mode, child = entry.path, entry.mode, entry.sha
            path = f"{prefix}{name.decode('utf-8', 'replace')}"
            if stat.S_ISDIR(mode):
                mapped = self.tree(child, path + "/")
            elif stat.S_ISREG(mode) or stat.S_ISLNK(mode):
                mapped = self.blob(child, path)
            else:
                mapped = child  # submodule links: not ours to rewrite
            changed |= mapped != child
            new.add(name, mode, mapped)
        if changed:
            self.new_objects.append(new)
            self.trees[sha] = new.id
        else:
            self.trees[sha] = sha
        return self.trees[sha]

    def _paths_of(self, sha: ObjectID, prefix: str) -> None:
        for entry in read_tree(self.store, sha).items():
            path = f"{prefix}{entry.path.decode('utf-8', 'replace')}"
            if stat.S_ISDIR(entry.mode):
                if self.trees.get(entry.sha, entry.sha) != entry.sha:
                    self._paths_of(entry.sha, path + "/")
            elif self.blobs.get(entry.sha, entry.sha) != entry.sha:
                self.paths.add(path)

    def text(self, raw: bytes) -> bytes:
        if self.needle not in raw:
            return raw
        fixed, n = replace_in_message(
            raw.decode("utf-8", errors="surrogateescape"), self.old, self.new
        )
        if not n:
            return raw
        self.messages += 1
        self.occurrences += n
        return fixed.encode("utf-8", errors="surrogateescape")

    def commit(self, old: Commit) -> ObjectID:
        tree = self.tree(old.tree)
        parents = [self.commits.get(p, p) for p in old.parents]
        message = self.text(old.message)
        if tree == old.tree and parents == list(old.parents) and message == old.message:
            self.commits[old.id] = old.id
            return old.id
        new = old.copy()
        assert isinstance(new, Commit)  # ShaFile.copy() is typed as returning a ShaFile
        new.tree = tree
        new.parents = parents
        new.message = message
        new.gpgsig = None
        self.new_objects.append(new)
        self.commits[old.id] = new.id
        return new.id

    def tag(self, old: Tag) -> ObjectID:
        kind, target = old.object
        mapped = self.commits.get(target, target)
        message = self.text(old.message or b"")
        if mapped == target and message == (old.message or b""):
            return old.id
        new = old.copy()
        assert isinstance(new, Tag)  # as above
        new.object = (kind, mapped)
        new.message = message
        new.signature = None
        self.new_objects.append(new)
        return new.id


def _run(
    repo: Repo, needle: bytes, replacement: bytes
) -> tuple[_Rewriter, dict[Ref, ObjectID], list[Commit]]:
    if not needle:
        raise ValueError("the string to purge is empty")
    store = repo.object_store
    refs, roots = _peel_roots(repo)
    commits = _all_commits(store, roots)
    rw = _Rewriter(store, needle, replacement)
    for commit in commits:
        rw.commit(commit)
    return rw, refs, commits


def _scan(rw: _Rewriter, commits: list[Commit]) -> HistoryScan:
    affected = sum(1 for c in commits if rw.commits.get(c.id, c.id) != c.id)
    return HistoryScan(
        commits=len(commits),
        commits_affected=affected,
        blobs=len(rw.affected_blobs),
        occurrences=rw.occurrences,
        paths=tuple(sorted(rw.paths)),
        messages=rw.messages,
    )


def scan_history(git: GitStore, needle: bytes) -> HistoryScan:
    """Where ``needle`` occurs in the memory repo of ``git`` (a ``GitStore``); nothing is
    written."""
    with git.reading() as repo:
        rw, _, commits = _run(repo, needle, b"")
        return _scan(rw, commits)


def reachable_texts(git: GitStore) -> list[bytes]:
    """Every distinct blob and commit or tag message reachable from any ref of ``git``'s memory
    repo: what a search for a string in every version must read (an import looks for credentials
    in them). Nothing is written."""
    found: list[bytes] = []
    seen: set[ObjectID] = set()
    with git.reading() as repo:
        store = repo.object_store
        refs, roots = _peel_roots(repo)
        for sha in refs.values():
            obj = store[sha]
            if isinstance(obj, Tag):
                found.append(obj.message)
        stack: list[ObjectID] = []
        for commit in _all_commits(store, roots):
            found.append(commit.message)
            stack.append(commit.tree)
        while stack:
            sha = stack.pop()
            if sha in seen:
                continue
            seen.add(sha)
            obj = store[sha]
            if isinstance(obj, Tree):
                stack.extend(
                    item.sha
                    for item in obj.iteritems()
                    if stat.S_ISDIR(item.mode) or stat.S_ISREG(item.mode)
                )
            elif isinstance(obj, Blob):
                found.append(obj.as_raw_string())
    return found


def _reflog_path(git_dir: Path, ref: bytes) -> Path:
    return git_dir / "logs" / ref.decode()


def _reset_reflogs(
    git_dir: Path, moved: dict[Ref, ObjectID], who: bytes, when: int, tz: int
) -> None:
    """Replace every reflog by one entry for its ref's new value; drop reflogs of refs that no
    longer exist."""
    logs = git_dir / "logs"
    if not logs.is_dir():
        return
    for path in sorted(p for p in logs.rglob("*") if p.is_file()):
        new = moved.get(Ref(path.relative_to(logs).as_posix().encode()))
        if new is None:
            path.unlink()
            continue
        line = format_reflog_line(None, new, who, when, tz, b"purge: history rewritten")
        atomic_write(path, line + b"\n")


def rewrite_history(
    git: GitStore, needle: bytes, replacement: bytes, *, description: str
) -> HistoryRewrite:
    """Remove ``needle`` from every version (see the module docstring). ``description`` goes into
    the purge commit's ``Reverie-Purge`` trailer and must not contain the string."""
    if needle in description.encode("utf-8"):
        raise ValueError("the purge description must not contain the purged string")
    if needle in replacement:
        raise ValueError("the replacement must not contain the purged string")
    workspace = git.workspace
    with git.writing() as scope:
        repo, branch, head, git_dir = scope.repo, scope.branch, scope.head, scope.git_dir
        rw, refs, commits = _run(repo, needle, replacement)
        scan = _scan(rw, commits)
        # Tracked files on disk (committed or a person's uncommitted edit) that hold the string.
        disk_files: dict[str, bytes] = {}
        for rel in scope.paths:
            path = workspace.resolve(rel)
            data = path.read_bytes() if path.is_file() else None
            if data is not None and needle in data:
                fixed, n = replace_in_file(rel, data, rw.old, rw.new)
                if n:
                    disk_files[rel] = fixed
        if not scan.occurrences and not disk_files:
            return HistoryRewrite(scan, 0, None)
        store = repo.object_store
        new_refs: dict[Ref, ObjectID] = {}
        for name, sha in refs.items():
            obj = store[sha]
            new_refs[name] = rw.tag(obj) if isinstance(obj, Tag) else rw.commits.get(sha, sha)
        store.add_objects([(obj, None) for obj in rw.new_objects])  # step 2: additions only
        for rel, data in disk_files.items():  # step 3: before any ref moves
            # a plain replace, not write_workspace_file's exchange: a kill there would leave the
            # old version, string and all, in a ``.swap-*`` file beside it
            atomic_write(workspace.resolve(rel), data)
        new_head = new_refs.get(branch, head)
        if new_head is None:
            raise GitStoreError("the memory repo has no commits to purge")
        trailers = {KIND: "purge", PURGE: description}
        body = (
            f"Rewrote {scan.commits_affected} of {scan.commits} commits: "
            f"{scan.blobs} file versions and {scan.messages} messages "
            f"held the purged string ({scan.occurrences} occurrences)."
        )
        message = format_message("purge: removed a string from memory's history", body, trailers)
        record = make_commit(read_commit(store, new_head).tree, [new_head], message, scope.author)
        store.add_object(record)
        new_refs[branch] = record.id
        for name, new in new_refs.items():  # step 4: compare-and-swap each ref
            if new != refs.get(name) and not repo.refs.set_if_equals(name, refs.get(name), new):
                raise GitStoreError(f"{name.decode()} moved during the purge; run it again")
        _reset_reflogs(
            git_dir,
            {**new_refs, HEAD: record.id},
            scope.author,
            record.commit_time,
            record.commit_timezone,
        )
        ids = read_blob_ids(store, record.tree, scope.paths)
        update_index(git_dir, workspace, {p: i for p, i in ids.items() if i is not None})  # step 6
        reachable = find_reachable_objects(store, repo.refs, include_reflogs=True)
        unreachable = {sha for sha in store if sha not in reachable}
        store.repack(exclude=unreachable)
        removed = tuple(sorted(s.decode() for s in unreachable))
        log.info("purge: rewrote %d commits, removed %d objects", len(rw.new_objects), len(removed))
        return HistoryRewrite(
            scan,
            scan.commits_affected,
            record.id.decode(),
            removed,
            tuple(sorted(disk_files)),
        )
