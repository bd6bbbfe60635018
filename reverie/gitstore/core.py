"""``GitStore``: the memory repository of one workspace — commit, query, restore, revert, blame,
pack.

A GitStore keeps its repository open between calls (opening one costs ≈0.3 ms, a tenth of a commit)
together with a cache of the objects it last read and wrote; ``close()`` (or the end of a ``with
GitStore(ws) as git:`` block, or garbage collection) releases it. Both are dropped whenever the
repo's pack directory changes (a gc or purge, in this process or another), so nothing removed from
the repo is ever served from memory.

The first write of an instance runs ``ensure()`` (open or create, adopt, ignore rules, crash
recovery). A query never does: it reads the repo as it is, takes no lock and writes nothing (a
read-only mount, a writer holding the lock, a nanobot repo not yet adopted, a workspace without a
repo — which reads as empty — all work), reading a lost or broken HEAD the way the next write will
repair it. Writers hold ``<git dir>/reverie/lock`` (an ``flock``, ``reverie.storage.locking``);
readers do not.

The commit order and its recovery are specified in ``reverie.gitstore.writer``; where the repo
lives, in ``reverie.gitstore.location``; the message format, in ``reverie.gitstore.trailers``.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from dulwich.objects import Blob, Commit, ObjectID, ShaFile
from dulwich.refs import Ref
from dulwich.repo import Repo

from ..errors import EditConflictError, GitStoreError, MergeConflictError
from ..storage.fsutil import read_bytes_or_none
from ..storage.locking import exclusive
from ..storage.repostate import (
    LEFT_BUSY,
    UNWRITTEN,
    UNWRITTEN_REMEDY,
    LeftBusy,
    ensure_repo_id,
    left_unwritten,
    read_left_busy,
    write_left_busy,
)
from ..storage.workspace import Workspace, check_relative
from . import queries
from .blame import provenance, trace_lines
from .catalog import LogFilter, catalog_for, query
from .diffing import file_changes, stat_body, text_diff
from .location import (
    TREE,
    RepoLocation,
    choose,
    expand_tracked,
    is_marked,
    is_tracked,
    locate,
)
from .merge import merge3
from .nanobot_api import NanobotGitAPI
from .objects import (
    CachedStore,
    ObjectReader,
    blob_id,
    identity,
    list_files,
    list_tree,
    read_blob,
    read_blob_ids,
    read_commit,
)
from .plumbing import ensure_fanout
from .repo import (
    MemoryRepo,
    branch_ref,
    create_repo,
    heal_head,
    lost_head_branch,
    mark_adopted,
    read_head,
    readable,
    repair_head,
    sync_ignore_rules,
)
from .trailers import BATCH, KIND, RESTORE_OF, REVERT_OF, format_message, parse_batch, split_message
from .types import (
    CommitDetail,
    CommitInfo,
    FileChange,
    OperationResult,
    Provenance,
    RepoProblem,
)
from .upkeep import after_commit, pack_all
from .writer import (
    ResolvedPaths,
    clean_temp_files,
    merge_save,
    recover_transaction,
    state_dir,
    transact,
    write_tracked,
)

if TYPE_CHECKING:
    from ..storage.config import GitConfig

log = logging.getLogger(__name__)

__all__ = ["GitStore", "WriteScope"]

LOCK_TIMEOUT = 30.0
#: Files a nanobot memory repo may version that Reverie keeps out of git (the Dream cursor is in
#: commit trailers).
BOOKKEEPING = ("memory/.dream_cursor", "memory/.cursor")
_GLOB = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class WriteScope:
    """What ``GitStore.writing()`` hands a writer, valid while its block holds the writer lock."""

    repo: MemoryRepo
    branch: Ref  # the branch ref HEAD points at (``refs/heads/main``)
    head: ObjectID | None  # its commit; None in a repo without commits
    git_dir: Path
    # the paths Reverie commits: the tracked files (globs expanded) and a managed .gitignore
    paths: tuple[str, ...]
    author: bytes  # ``Name <email>``, for commits and reflog lines


class GitStore(NanobotGitAPI):
    """Every change to the tracked memory files is a git commit; query, restore, revert and blame
    them."""

    def __init__(
        self,
        workspace: Workspace | str | os.PathLike[str],
        config: GitConfig | None = None,
        *,
        tracked_files: list[str] | None = None,
    ) -> None:
        """``tracked_files`` (nanobot's argument) overrides ``config.tracked_files``."""
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        if config is None:
            from ..storage.config import GitConfig  # pydantic: only when no config is given

            config = GitConfig()
        self.config = config
        if tracked_files is not None:
            self.config = self.config.model_copy(update={"tracked_files": list(tracked_files)})
        self.tracked: list[str] = list(
            dict.fromkeys(check_relative(p) for p in self.config.tracked_files)
        )
        self._who = identity(self.config.author_name, self.config.author_email)
        self._loc: RepoLocation | None = None
        self._ensured = False  # ensure() ran (a write needs it; a query never runs it)
        self._good_head: ObjectID | None = None  # the last HEAD a query found readable
        # kept open between calls, used by one thread at a time
        self._repo: MemoryRepo | None = None
        self._repo_mutex = threading.Lock()
        # (pid, pack listing) the open repo is valid for
        self._repo_key: tuple[int, frozenset[str]] | None = None
        # .targets / .seen: this thread's write in progress (see _writing)
        self._write = threading.local()
        self._objects: dict[ObjectID, ShaFile] = {}  # CachedStore's cache, kept across operations

    # -- plumbing ----------------------------------------------------------------------------------
    @property
    def git_dir(self) -> Path:
        """The repository's git directory (``git --git-dir=<this> log -p`` reads it)."""
        return self._ready().git_dir

    @property
    def _paths(self) -> list[str]:
        """Paths Reverie commits: the tracked files, plus the workspace's .gitignore when Reverie
        manages it."""
        cached = getattr(self._write, "paths", None)  # one listing per write operation
        if cached is not None:
            return list(cached)
        loc = self._ready()
        # globs (dated memory files) → files on disk
        paths = expand_tracked(self.workspace.root, self.tracked)
        paths = [*paths, ".gitignore"] if loc.owns_gitignore else paths
        if getattr(self._write, "seen", None) is not None:
            self._write.paths = paths
        return list(paths)

    def _paths_in(self, store: ObjectReader, *trees: ObjectID | None) -> list[str]:
        """``_paths`` plus the files matching a tracked glob in any of ``trees`` (so a dated memory
        file deleted from disk, or present only in an older version, is still diffed, restored and
        committed)."""
        paths = list(self._paths)
        for entry in self.tracked:
            if not _GLOB.search(entry):
                continue
            directory, _, pattern = entry.rpartition("/")
            for tree in trees:
                if pattern == TREE:  # a tree of files (topic files): every one, at any depth
                    paths.extend(
                        rel
                        for name in list_tree(store, tree, directory)
                        if is_tracked(rel := f"{directory}/{name}", [entry])
                    )
                    continue
                for name in list_files(store, tree, directory):
                    if fnmatch.fnmatchcase(name, pattern):
                        paths.append(f"{directory}/{name}" if directory else name)
        return list(dict.fromkeys(paths))

    def _paths_for(self, store: ObjectReader, commit: Commit) -> list[str]:
        return self._paths_in(store, commit.tree, queries.parent_tree(store, commit))

    def _ready(self) -> RepoLocation:
        """The repo's location, found without writing anything (``ensure()`` is the writers'
        business): a query never creates, adopts, recovers or repairs a repo, and takes no lock.
        ``GitStoreError`` when there is no memory repo yet."""
        if self._loc is None:
            loc = locate(self.workspace.root)
            if loc is None:
                raise GitStoreError(
                    f"no memory repo in {self.workspace.root} yet (the first write creates it)"
                )
            self._loc = loc
        return self._loc

    @property
    def exists(self) -> bool:
        """Whether the workspace has a memory repo (a query on a workspace without one finds
        nothing)."""
        if self._loc is None:
            self._loc = locate(self.workspace.root)  # found once; None is asked again next time
        return self._loc is not None

    def _query_head(self, repo: MemoryRepo) -> ObjectID | None:
        """HEAD's commit for a query, read only: a lost HEAD file is read as the branch a write
        would point it at, and a HEAD at a missing or corrupt commit as the reflog's newest good one
        (each with a warning; the next write repairs them on disk)."""
        git_dir = self._ready().git_dir
        ref = lost_head_branch(git_dir) or branch_ref(repo)
        head = read_head(repo, ref)
        if head is not None and head == self._good_head:
            return head
        head = heal_head(repo, git_dir, ref, repair=False)
        self._good_head = head
        return head

    def __enter__(self) -> GitStore:
        return self  # the repo is found by the first query, or created by the first write

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the open repository and the object cache (the next call reopens them)."""
        with self._repo_mutex:
            self._drop_repo()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown: nothing useful to report
            pass

    def _drop_repo(self) -> None:
        """Forget the held repo and cached objects (caller holds ``_repo_mutex``). The repo is
        closed only in the process that opened it: a forked child leaves the parent's descriptors
        alone."""
        repo, key = self._repo, self._repo_key
        self._repo, self._repo_key, self._objects = None, None, {}
        if repo is not None and key is not None and key[0] == os.getpid():
            repo.close()

    @contextmanager
    def _open(self) -> Iterator[MemoryRepo]:
        git_dir = self._loc.git_dir if self._loc is not None else self._ready().git_dir
        # another thread (or a nested call) has it: open our own
        if not self._repo_mutex.acquire(blocking=False):
            repo = MemoryRepo(str(git_dir))
            try:
                yield repo
            finally:
                repo.close()
            return
        try:
            key = (os.getpid(), _pack_dir_stamp(git_dir))
            if self._repo is None or key != self._repo_key:
                self._drop_repo()
                self._repo, self._repo_key = MemoryRepo(str(git_dir), self._objects), key
            yield self._repo
        finally:
            self._repo_mutex.release()

    @contextmanager
    def _writing(self) -> Iterator[tuple[MemoryRepo, Ref, ObjectID | None]]:
        """The repo, its branch ref and HEAD, under the writer lock, after finishing any interrupted
        commit."""
        if not self._ensured:
            self.ensure()
        loc = self._ready()
        busy = f"the memory repo {loc.git_dir} is busy (lock held for {LOCK_TIMEOUT:.0f}s)"
        with exclusive(state_dir(loc.git_dir) / "lock", LOCK_TIMEOUT, busy):
            # for this write: each path resolved once (ResolvedPaths) and each tracked file read
            # once (seen)
            self._write.targets, self._write.seen, self._write.paths = (
                ResolvedPaths(self.workspace),
                {},
                None,
            )
            try:
                with self._open() as repo:
                    ref = branch_ref(repo)
                    recover_transaction(repo, loc.git_dir, self._write.targets, ref)
                    yield repo, ref, heal_head(repo, loc.git_dir, ref)
            finally:
                self._write.targets = self._write.seen = self._write.paths = None

    # -- for this package's writers other than a commit (gitstore.purge); not the library API ------
    @contextmanager
    def reading(self) -> Iterator[MemoryRepo]:
        """The open repository for a read: no lock taken, nothing written (as every query).
        ``GitStoreError`` when the workspace has no memory repo."""
        with self._open() as repo:
            yield repo

    @contextmanager
    def writing(self) -> Iterator[WriteScope]:
        """The repository under the writer lock, after crash recovery, as a ``WriteScope``: for a
        rewrite that is not one commit (``gitstore.purge``), which then owns the order and recovery
        of its own steps."""
        with self._writing() as (repo, ref, head):
            yield WriteScope(repo, ref, head, self._ready().git_dir, tuple(self._paths), self._who)

    def _disk(self, paths: list[str]) -> dict[str, bytes | None]:
        """The files' contents on disk (None = absent); during a write each is read once and
        remembered."""
        out: dict[str, bytes | None] = {}
        resolver = getattr(self._write, "targets", None) or self.workspace
        seen = getattr(self._write, "seen", None)
        seen = seen if seen is not None else {}
        for path in paths:
            if path not in seen:
                seen[path] = read_bytes_or_none(resolver.resolve(path))
            out[path] = seen[path]
        return out

    def _contents(
        self, store: ObjectReader, tree: ObjectID | None, paths: list[str]
    ) -> dict[str, bytes | None]:
        ids = read_blob_ids(store, tree, paths) if tree else dict.fromkeys(paths)
        return {p: read_blob(store, ids[p]) for p in paths}

    def _commit_locked(
        self,
        repo: MemoryRepo,
        ref: Ref,
        head: ObjectID | None,
        changes: Mapping[str, bytes | None],
        subject: str,
        kind: str,
        trailers: Mapping[str, str] | None = None,
        notes: str = "",
        untrack: tuple[str, ...] = (),
        allow_empty: bool = False,
        saved_on: Mapping[str, bytes | None] | None = None,
    ) -> tuple[ObjectID | None, list[FileChange]]:
        """One transaction: only paths whose content really changes; body from the real diff (then
        ``notes``). ``untrack``: paths that leave the repo but stay on disk (named in the body as
        deleted)."""
        store = repo.objects
        current = self._contents(
            store, read_commit(store, head).tree if head else None, [*changes, *untrack]
        )
        real = {p: d for p, d in changes.items() if d != current[p]}
        gone = tuple(p for p in untrack if current[p] is not None and p not in changes)
        if not real and not gone and not allow_empty:
            return None, []
        stats = file_changes(current, {**real, **dict.fromkeys(gone)})
        # the kind argument is the one kind
        extra = {k: v for k, v in (trailers or {}).items() if k != KIND}
        body = "\n\n".join(part for part in (stat_body(stats), notes.strip()) if part)
        message = format_message(subject, body, {KIND: kind, **extra})
        where = getattr(self._write, "targets", None) or self.workspace
        if isinstance(where, ResolvedPaths):
            # what a replace expects on disk (write_workspace_file): a file an earlier commit left
            # unwritten holds the version left; ``saved_on``: a save this commit was merged onto
            where.based_on = {**current, **where.left, **(saved_on or {})}
        seen = getattr(self._write, "seen", None)
        try:
            sha = transact(
                repo,
                self._ready().git_dir,
                where,
                ref,
                head,
                real,
                message,
                self._who,
                on_disk=seen,
                untrack=gone,
                allow_empty=allow_empty,
            )
        except OSError as exc:
            # a full disk, a denied permission: one typed error (the intent marker stays, so the
            # next write finishes or undoes what this one began: ``recover_transaction``)
            raise GitStoreError(
                f"the memory repo {self._ready().git_dir} could not be written "
                f"({exc.strerror or exc}); the next write finishes or undoes this commit"
            ) from exc
        finally:
            if isinstance(where, ResolvedPaths):
                where.based_on = {}
        if sha is not None:
            after_commit(repo, self._ready().git_dir, self.config.gc_every)
        return sha, stats

    def _commit_manual(self, repo: MemoryRepo, ref: Ref, head: ObjectID | None) -> ObjectID | None:
        """Commit a person's uncommitted edits of tracked files (disk ≠ HEAD) as their own
        ``manual`` commit."""
        disk, merged, saved_on = self._on_disk(repo, head)
        paths = list(disk)
        ids = (
            read_blob_ids(repo.objects, read_commit(repo.objects, head).tree, paths)
            if head
            else dict.fromkeys(paths)
        )
        dirty = {p: d for p, d in disk.items() if (blob_id(d) if d is not None else None) != ids[p]}
        dirty.update(merged)
        if not dirty:
            return head
        subject = "manual: edit of " + ", ".join(dirty)
        sha, _ = self._commit_locked(repo, ref, head, dirty, subject, "manual", saved_on=saved_on)
        self._settled(merged)
        return sha or head

    def _on_disk(
        self, repo: MemoryRepo, head: ObjectID | None
    ) -> tuple[dict[str, bytes | None], dict[str, bytes | None], dict[str, bytes | None]]:
        """The tracked files as a commit of the disk takes them, after ``_settle_left_busy``:
        (each file's bytes on disk, without those still left unwritten — they count as HEAD's;
        the saves made on top of a version left unwritten, with the commit's change merged in;
        the save each of those merges was made on)."""
        merged, saved_on, still = self._settle_left_busy(repo, head)
        paths = self._paths_in(repo.objects, read_commit(repo.objects, head).tree if head else None)
        disk = {p: d for p, d in self._disk(paths).items() if p not in still}
        return disk, merged, saved_on

    def _settle_left_busy(
        self, repo: MemoryRepo, head: ObjectID | None
    ) -> tuple[dict[str, bytes | None], dict[str, bytes | None], set[str]]:
        """Finish the files earlier commits left unwritten (``writer.LEFT_BUSY``; the caller holds
        the writer lock), so the version left on disk is never committed back as a person's edit:

        - still the version left (nobody wrote it since): rolled forward to HEAD's (deleted, when
          the commit deleted it); when it is still held open, the record stays and the file is
          not committed from disk;
        - saved since (a real save on top of the version left): returned as (``merged``) the save
          with the commit's change three-way merged in (where they overlap, the save as it is),
          with (``saved_on``) the save each merge was made on, for a ``manual`` commit; the record
          stays until that commit is made (``_settled``), so a commit that fails or is killed
          leaves the merge to the next write instead of the save committed over the change;
        - HEAD changed for the file since (a restore, a git command) or it already holds HEAD's
          version: the record is dropped.
        Returns (merged, saved_on, paths still left unwritten)."""
        git_dir = self._ready().git_dir
        records = read_left_busy(git_dir)
        if not records:
            return {}, {}, set()
        where = getattr(self._write, "targets", None) or self.workspace
        seen = getattr(self._write, "seen", None)
        merged: dict[str, bytes | None] = {}
        saved_on: dict[str, bytes | None] = {}
        keep: dict[str, tuple[ObjectID | None, ObjectID | None]] = {}
        for path, disk, ours, base in self._still_left(repo.objects, head, records):
            left, wanted = records[path]
            if disk == base:  # still the version left: nobody wrote it since
                log.info("%s: finishing the write left unwritten (rolled forward)", path)
                after, written = write_tracked(where, path, ours)
                if not written:
                    # still held: for this write the file counts as HEAD's version (what a merge
                    # starts from), and a commit of it replaces the version left
                    keep[path], after = (left, wanted), ours
                    if isinstance(where, ResolvedPaths):
                        where.left[path] = base
                if seen is not None:
                    seen[path] = after
                continue
            if disk is None or base is None or ours is None:
                # deleted, created on top of nothing, or saved on a file the commit deleted: the
                # person's version as it is (a deletion never removes a save)
                continue
            log.info("%s was saved on top of a version left unwritten; merging the two", path)
            merged[path] = merge_save(base, ours, disk, path)
            saved_on[path] = disk
        _rewrite_left_busy(git_dir, {**keep, **{p: records[p] for p in merged}})
        self._write.merging = {p: records[p] for p in merged}  # for ``_settled``
        return merged, saved_on, set(keep)

    def _still_left(
        self, store: ObjectReader, head: ObjectID | None, records: LeftBusy
    ) -> Iterator[tuple[str, bytes | None, bytes | None, bytes | None]]:
        """The recorded files a commit left unwritten that are still not HEAD's version, each as
        (path, what is on disk, HEAD's version, the version left): a record whose file HEAD has
        moved on for since (a restore, a git command), or that holds HEAD's version, says nothing
        any more."""
        known = [p for p in records if p in self._paths or is_tracked(p, self.tracked)]
        if not known:
            return
        tree = read_commit(store, head).tree if head else None
        ids = read_blob_ids(store, tree, known) if tree else dict.fromkeys(known)
        for path in known:
            left, wanted = records[path]
            if ids[path] != wanted:
                continue
            disk = self._disk([path])[path]
            if (blob_id(disk) if disk is not None else None) == wanted:
                continue
            try:
                ours, base = read_blob(store, wanted), read_blob(store, left)
            except (KeyError, GitStoreError):
                log.warning("%s: the version left on disk is not in the repo any more", path)
                continue
            yield path, disk, ours, base

    def _as_committed(
        self, store: ObjectReader, head: ObjectID | None, paths: list[str]
    ) -> dict[str, bytes | None]:
        """The files as the next commit of the disk takes them, read only (for a plan of a restore
        or revert): a file still left unwritten counts as HEAD's version, and a save made on top
        of its version left as that save with HEAD's change merged in (``_settle_left_busy``)."""
        now = self._disk(paths)
        records = read_left_busy(self._ready().git_dir, drop=False)
        wanted = {p: r for p, r in records.items() if p in now}
        for path, disk, ours, base in self._still_left(store, head, wanted):
            if disk == base:
                now[path] = ours
            elif disk is not None and base is not None and ours is not None:
                now[path] = merge_save(base, ours, disk, path)
        return now

    def _settled(self, merged: Mapping[str, bytes | None]) -> None:
        """Drop the ``LEFT_BUSY`` records of the files whose merge (``_settle_left_busy``) is now
        committed — each only while it is the record the merge settled: the merge's own commit,
        when it could not write the file either, recorded it anew."""
        merging: LeftBusy = getattr(self._write, "merging", {})
        settled = {p: r for p, r in merging.items() if p in merged}
        self._write.merging = {}
        if not settled:
            return
        git_dir = self._ready().git_dir
        records = read_left_busy(git_dir)
        _rewrite_left_busy(git_dir, {p: r for p, r in records.items() if settled.get(p) != r})

    # -- lifecycle ---------------------------------------------------------------------------------
    def ensure(self) -> None:
        """Open or create the memory repo (+ ignore rules, initial ``init`` commit) and run crash
        recovery."""
        root = self.workspace.root
        root.mkdir(parents=True, exist_ok=True)
        loc = choose(root)
        existed = loc.exists
        if existed:
            repair_head(loc.git_dir)  # a lost HEAD file: pointed back at the branch that exists
        if not existed:
            create_repo(loc)
        elif not loc.separate and not is_marked(loc.git_dir):
            log.info("adopting the existing memory repository %s (its history stays)", loc.git_dir)
            with Repo(str(loc.git_dir)) as repo:
                mark_adopted(repo)
        state_dir(loc.git_dir).mkdir(exist_ok=True)
        try:
            ensure_repo_id(loc.git_dir)
        except OSError as exc:
            log.warning("the memory repo's identity could not be written (%s)", exc.strerror or exc)
        # A packing writes here; a copy that carries files only (an imported bundle) has no such
        # folder when its repo was never packed.
        (loc.git_dir / "objects" / "pack").mkdir(parents=True, exist_ok=True)
        # a young repo grows its fan-out directories as it goes
        if existed and _packed(loc.git_dir):
            ensure_fanout(loc.git_dir / "objects")  # (and upkeep fills them in after packing)
        # set first: the write below must not run ensure() again
        self._loc, self._ensured = loc, True
        try:
            gitignore_changed = sync_ignore_rules(loc, self.tracked)
            clean_temp_files(self.workspace, self._paths)
            with self._writing() as (repo, ref, head):
                if head is None:
                    files = {p: d for p, d in self._disk(self._paths).items() if d is not None}
                    if files:
                        self._commit_locked(
                            repo, ref, None, files, "init: Reverie memory store", "init"
                        )
                else:
                    # nanobot 0.3.5 versions its cursor files; Reverie's ignore rules exclude them,
                    # so left in the tree they would show as modified forever. They leave the repo
                    # here (the files stay on disk).
                    tree = read_commit(repo.objects, head).tree
                    foreign = tuple(
                        p
                        for p, sha in read_blob_ids(repo.objects, tree, BOOKKEEPING).items()
                        if sha is not None and not is_tracked(p, self.tracked)
                    )
                    if gitignore_changed or foreign:
                        data = self._disk([".gitignore"]) if gitignore_changed else {}
                        subject = (
                            "init: ignore everything but the memory files"
                            if gitignore_changed
                            else "init: stop versioning " + ", ".join(foreign)
                        )
                        self._commit_locked(repo, ref, head, data, subject, "init", untrack=foreign)
        except BaseException:
            self._ensured = False
            raise

    # -- writing -----------------------------------------------------------------------------------
    def commit(
        self,
        message: str,
        *,
        kind: str,
        trailers: Mapping[str, str] | None = None,
        files: Mapping[str, str | None] | None = None,
        base: Mapping[str, str] | None = None,
        allow_empty: bool = False,
    ) -> str | None:
        """Commit ``files`` (new contents of tracked files; None deletes one), or with
        ``files=None`` what is on disk.

        ``message``'s first line is the subject; the body is always the per-file +/- stats of the
        real change, followed by the body of ``message`` (its trailers are ignored: pass
        ``trailers``). With ``files``, a person's uncommitted edit (disk ≠ HEAD) is first committed
        on its own as ``manual``. ``base`` is the memory-file writers' protocol: the contents
        ``files`` were computed from (what the writer read). A file that changed since — another
        writer's commit or a person's edit landed in between — gets the writer's change three-way
        merged over it here, under the writer lock, so no writer overwrites another; a conflict
        raises ``MergeConflictError`` and writes nothing. Returns the new commit's full sha, or None
        when nothing changed — unless ``allow_empty``: a record that changes no file (a rejected
        SOUL.md proposal) is committed all the same.
        """
        subject = (message or "").strip().split("\n", 1)[0] or f"{kind}: update"
        notes = split_message(message or "")[1]
        with self._writing() as (repo, ref, head):
            if files is None:
                disk, merged, saved_on = self._on_disk(repo, head)
                disk.update(merged)
                sha, _ = self._commit_locked(
                    repo, ref, head, disk, subject, kind, trailers, notes, saved_on=saved_on
                )
                self._settled(merged)
                return sha.decode() if sha else None
            changes: dict[str, bytes | None] = {}
            for path, text in files.items():
                rel = check_relative(path)
                if rel not in self._paths and not is_tracked(rel, self.tracked):
                    raise GitStoreError(
                        f"{path!r} is not a tracked file ({', '.join(self.tracked)})"
                    )
                changes[rel] = (
                    None if text is None else text.encode("utf-8", errors="surrogateescape")
                )
            head = self._commit_manual(repo, ref, head)
            if base:
                changes = self._merge_over(changes, base)
            sha, _ = self._commit_locked(
                repo, ref, head, changes, subject, kind, trailers, notes, allow_empty=allow_empty
            )
            return sha.decode() if sha else None

    def _merge_over(
        self, changes: dict[str, bytes | None], base: Mapping[str, str]
    ) -> dict[str, bytes | None]:
        """``changes`` re-applied over the files as they are now (disk = HEAD once an uncommitted
        edit is committed): a file unchanged since ``base`` takes the writer's content; a changed
        one, a three-way merge."""
        out = dict(changes)
        for rel, ours in changes.items():
            if rel not in base or ours is None:
                continue
            now = _text(self._disk([rel])[rel])
            original, mine = base[rel], ours.decode("utf-8", "surrogateescape")
            if now in (original, mine):
                continue
            log.info("%s changed since it was read; merging this change over it", rel)
            out[rel] = merge3(original, mine, now, path=rel).encode("utf-8", "surrogateescape")
        return out

    def restore(
        self, rev: str, *, replay: bool = False, base: str | None = None
    ) -> OperationResult:
        """Put the tracked files back as they were just before ``rev`` (its first parent), as a new
        ``restore`` commit. ``replay=True`` also names, in ``replay_from``, the cursor just before
        that Dream run's batch (a rev without a batch raises); moving ``.dream_cursor`` there is
        Dream's job (``reverie.operations.restore``). ``base``: the commit the person saw the
        restore previewed at (``plan``); what changed since is kept, merged (see ``plan``)."""
        with self._writing() as (repo, ref, head):
            store = repo.objects
            target = queries.resolve(store, head, rev)
            commit = read_commit(store, target)
            rewind = self._replay_target(commit) if replay else None
            wanted, notes = self._planned(store, head, rev, commit, only=False, base=base)
            head = self._commit_manual(repo, ref, head)
            short = target.decode()[: queries.SHORT]
            sha, stats = self._commit_locked(
                repo,
                ref,
                head,
                wanted,
                f"restore: memory as before {short}",
                "restore",
                {RESTORE_OF: target.decode()},
                notes,
            )
        return OperationResult(
            sha.decode() if sha else None, stats, replay_from=rewind, merged=bool(notes)
        )

    def revert(self, rev: str, *, replay: bool = False, base: str | None = None) -> OperationResult:
        """Undo only ``rev``'s change, keeping later ones (three-way merge of the inverse patch onto
        the current files). On a conflict ``MergeConflictError`` names the file and lines, and
        nothing is written. ``base``: as for ``restore``."""
        with self._writing() as (repo, ref, head):
            store = repo.objects
            target = queries.resolve(store, head, rev)
            commit = read_commit(store, target)
            rewind = self._replay_target(commit) if replay else None
            merged, notes = self._planned(store, head, rev, commit, only=True, base=base)
            head = self._commit_manual(repo, ref, head)
            subject = split_message(commit.message.decode("utf-8", "replace"))[0]
            short = target.decode()[: queries.SHORT]
            title = f"revert: undo {short} ({subject})"[:200]
            sha, stats = self._commit_locked(
                repo, ref, head, merged, title, "revert", {REVERT_OF: target.decode()}, notes
            )
        return OperationResult(
            sha.decode() if sha else None, stats, replay_from=rewind, merged=bool(notes)
        )

    def preview(self, rev: str, *, only: bool = False) -> str:
        """The unified diff ``restore(rev)`` (``only``: ``revert(rev)``) would make to the tracked
        files as they are on disk now: ``plan``'s diff."""
        return self.plan(rev, only=only)[1]

    def plan(self, rev: str, *, only: bool = False) -> tuple[str | None, str, list[str]]:
        """What ``restore(rev, base=head)`` (``only``: ``revert``) would write now, written nowhere:
        (``head``, the unified diff from the files on disk, the files it changes). ``head`` is the
        state a confirmation names as its ``base``: the operation then does what this diff shows and
        nothing else. If commits land before the confirmation, the previewed change (the files at
        ``head`` → their planned contents) is merged three-way over them, so a line added meanwhile
        stays; where both touched the same lines it raises ``EditConflictError`` and writes nothing.
        Raises what the operation would (a first commit to restore, a revert that conflicts)."""
        with self._open() as repo:
            store = repo.objects
            head = self._query_head(repo)
            commit = read_commit(store, queries.resolve(store, head, rev))
            base = head.decode() if head is not None else None
            plan, _notes = self._planned(store, head, rev, commit, only=only, base=base)
            now = self._as_committed(store, head, list(plan))
        changed = [path for path, data in plan.items() if now[path] != data]
        return base, "".join(text_diff(path, now[path], plan[path]) for path in changed), changed

    def _planned(
        self,
        store: CachedStore,
        head: ObjectID | None,
        rev: str,
        commit: Commit,
        *,
        only: bool,
        base: str | None,
    ) -> tuple[dict[str, bytes | None], str]:
        """The files a restore (``only``: a revert) of ``commit`` writes, and a note for its commit.
        Without ``base``: planned over the files as they are. With it: planned over the files at
        ``base``, and that change (base → planned) applied over the files as they are now."""

        def as_committed(paths: list[str]) -> dict[str, bytes | None]:
            return self._as_committed(store, head, paths)

        if base is None or head is None:
            if only:
                return self._revert_plan(store, commit, as_committed), ""
            return self._restore_plan(store, head, rev, commit), ""
        at = queries.resolve(store, head, base)
        tree = read_commit(store, at).tree

        def at_base(paths: list[str]) -> dict[str, bytes | None]:
            return self._contents(store, tree, paths)

        if only:
            planned = self._revert_plan(store, commit, at_base)
        else:
            planned = self._restore_plan(store, at, rev, commit)  # a file added since: kept
        before, now = at_base(list(planned)), as_committed(list(planned))
        out = {
            path: _over(before[path], now[path], data, path, head) for path, data in planned.items()
        }
        moved = any(now[p] != before[p] for p in planned)
        note = (
            f"Applied over the changes made since {at.decode()[: queries.SHORT]}." if moved else ""
        )
        return out, note

    def _restore_plan(
        self, store: ObjectReader, head: ObjectID | None, rev: str, commit: Commit
    ) -> dict[str, bytes | None]:
        """The tracked files as they were in ``commit``'s first parent (restore's target state)."""
        if not commit.parents:
            raise GitStoreError(f"{rev} is the first commit: there is no earlier state to restore")
        before = read_commit(store, commit.parents[0]).tree
        wanted = self._contents(
            store,
            before,
            self._paths_in(store, before, read_commit(store, head).tree if head else None),
        )
        # the ignore rules are not memory: an older (nanobot's) set never returns
        wanted.pop(".gitignore", None)
        return wanted

    def _revert_plan(
        self,
        store: ObjectReader,
        commit: Commit,
        state: Callable[[list[str]], dict[str, bytes | None]],
    ) -> dict[str, bytes | None]:
        """The files ``commit`` changed, with its change merged out of their contents in ``state``
        (the files on disk, or at a base commit)."""
        parent_tree = read_commit(store, commit.parents[0]).tree if commit.parents else None
        changed = queries.changed_paths(
            store, commit, self._paths_in(store, commit.tree, parent_tree)
        )
        changed.pop(".gitignore", None)  # as in restore: the ignore rules are not memory
        ours_now = state(list(changed))
        merged: dict[str, bytes | None] = {}
        for path, (old_id, new_id) in changed.items():
            old, new, ours = read_blob(store, old_id), read_blob(store, new_id), ours_now[path]
            text = merge3(_text(new), _text(ours), _text(old), path=path)
            merged[path] = (
                None if (old is None and text == "") else text.encode("utf-8", "surrogateescape")
            )
        return merged

    def _replay_target(self, commit: Commit) -> int:
        trailers = split_message(commit.message.decode("utf-8", "replace"))[2]
        batch = parse_batch(trailers.get(BATCH))
        if batch is None:
            raise GitStoreError(
                f"{commit.id.decode()[:8]} has no {BATCH} trailer, so there is no batch to replay"
            )
        return max(batch[0] - 1, 0)

    # -- queries -----------------------------------------------------------------------------------
    def head(self) -> str | None:
        if not self.exists:
            return None
        with self._open() as repo:
            sha = self._query_head(repo)
        return sha.decode() if sha else None

    def resolve(self, prefix: str) -> str:
        """Full sha of a unique 4+ hex prefix (or ``HEAD``, ``HEAD~n``) across the whole history."""
        with self._open() as repo:
            return queries.resolve(repo.objects, self._query_head(repo), prefix).decode()

    def log(
        self,
        limit: int = 20,
        kind: str | None = None,
        path: str | None = None,
        *,
        max_entries: int | None = None,
        start: str | None = None,
        text: str | None = None,
        since: date | None = None,
        until: date | None = None,
    ) -> list[CommitInfo]:
        """Newest first along first parents; ``kind`` / ``path`` filter (``path`` = commits that
        changed it), ``text`` (case-insensitive, in the subject or a line the commit added or
        removed), ``since`` / ``until`` (each commit's own date, inclusive). ``start``: from that
        revision (included) instead of HEAD, so a long log is read page by page at the cost of one
        page. ``max_entries`` is nanobot's name for ``limit``. Read through the process's catalog
        of this repository (``reverie.gitstore.catalog``): a filter over a long history is read
        once, then served from memory."""
        limit = limit if max_entries is None else max_entries
        rel = check_relative(path) if path else None
        if not self.exists or limit <= 0:
            return []
        wanted = LogFilter(kind, rel, text or None, since, until)
        with self._open() as repo:
            store = repo.objects
            head = self._query_head(repo)
            catalog = catalog_for(f"{self._ready().git_dir}|{'|'.join(self.tracked)}")
            first = queries.resolve(store, head, start) if start is not None else None
            shas = query(
                catalog, store, head, first, limit, wanted, partial(self._paths_for, store)
            )
            out: list[CommitInfo] = []
            for sha in shas:
                with catalog.lock:
                    info = catalog.info(sha)
                if info is None:
                    try:
                        commit = read_commit(store, sha)
                    except (KeyError, GitStoreError):  # damaged since the catalog read it
                        with catalog.lock:
                            catalog.cut(sha)
                        break
                    info = queries.commit_info(
                        store, commit, partial(self._paths_for, store, commit)
                    )
                    with catalog.lock:
                        catalog.keep_info(info)
                # a copy: the catalog's own stays as read, whatever a caller does with this one
                out.append(replace(info, trailers=dict(info.trailers), files=list(info.files)))
            return out

    def show(self, rev: str) -> CommitDetail:
        with self._open() as repo:
            store = repo.objects
            sha = queries.resolve(store, self._query_head(repo), rev)
            return queries.show(store, sha, self._paths_for(store, read_commit(store, sha)))

    def diff(self, a: str, b: str) -> str:
        """Unified diff of the tracked files from revision ``a`` to revision ``b``."""
        with self._open() as repo:
            store = repo.objects
            head = self._query_head(repo)
            ta, tb = (read_commit(store, queries.resolve(store, head, r)).tree for r in (a, b))
            return queries.tree_diff(store, ta, tb, self._paths_in(store, ta, tb))

    def file_at(self, rev: str, path: str) -> str | None:
        rel = check_relative(path)
        with self._open() as repo:
            store = repo.objects
            commit = read_commit(store, queries.resolve(store, self._query_head(repo), rev))
            data = read_blob(store, read_blob_ids(store, commit.tree, [rel])[rel])
        return None if data is None else data.decode("utf-8", errors="replace")

    def text_of(self, content_id: str) -> str | None:
        """The text whose content id (git blob id) is ``content_id``, if the repo holds it: every
        version of a memory file ever committed. None when it does not (or the id is malformed)."""
        if not self.exists or len(content_id) != 40:
            return None
        try:
            int(content_id, 16)
        except ValueError:
            return None
        with self._open() as repo:
            try:
                obj = repo.objects[ObjectID(content_id.lower().encode())]
            except (KeyError, ValueError):
                return None
        return _text(obj.as_raw_string()) if isinstance(obj, Blob) else None

    def dirty(self) -> list[str]:
        """Tracked files whose disk content differs from HEAD."""
        if not self.exists:
            return []
        with self._open() as repo:
            store = repo.objects
            head = self._query_head(repo)
            paths = self._paths_in(store, read_commit(store, head).tree if head else None)
            ids = (
                read_blob_ids(store, read_commit(store, head).tree, paths)
                if head
                else dict.fromkeys(paths)
            )
        on_disk = {
            p: (blob_id(data) if data is not None else None)
            for p, data in self._disk(paths).items()
        }
        return [p for p in paths if on_disk[p] != ids[p]]

    def last_trailer(self, key: str, kind: str | None = None) -> str | None:
        """The value of ``key`` on the newest commit (of ``kind``, when given) that carries it."""
        if not self.exists:
            return None
        with self._open() as repo:
            for commit in queries.walk(repo.objects, self._query_head(repo)):
                trailers = split_message(commit.message.decode("utf-8", "replace"))[2]
                if key in trailers and (kind is None or trailers.get(KIND) == kind):
                    return trailers[key]
        return None

    def kinds_since(self, sha: str | None, limit: int = 100_000) -> list[str] | None:
        """The kinds of the commits made after ``sha`` (HEAD's first-parent line, newest first); all
        of them when ``sha`` is None. None when ``sha`` is not on that line within ``limit``
        commits (history was rewritten): the caller cannot tell what landed."""
        if not self.exists:
            return [] if sha is None else None
        target = sha.encode() if sha else None
        out: list[str] = []
        with self._open() as repo:
            for commit in queries.walk(repo.objects, self._query_head(repo)):
                if commit.id == target:
                    return out
                if len(out) >= limit:
                    return None
                trailers = split_message(commit.message.decode("utf-8", "replace"))[2]
                out.append(trailers.get(KIND, ""))
        return out if target is None else None

    def why(self, text: str) -> list[Provenance]:
        """For every line of the tracked files (as committed at HEAD) containing ``text``: where it
        came from."""
        if not text or not self.exists:
            return []
        out: list[Provenance] = []
        with self._open() as repo:
            store = repo.objects
            head = self._query_head(repo)
            if head is None:
                return []
            contents = self._contents(
                store,
                read_commit(store, head).tree,
                expand_tracked(self.workspace.root, self.tracked),
            )
            for path, data in contents.items():
                lines = _text(data).splitlines()
                wanted = [i for i, line in enumerate(lines) if text in line]
                if not wanted:
                    continue
                origin = trace_lines(store, head, path, wanted)
                out.extend(
                    provenance(store, origin[i][0], path, i + 1, lines[i], origin[i][1])
                    for i in wanted
                )
        return out

    def problems(self) -> list[RepoProblem]:
        """What is damaged in the memory repo where every query starts (HEAD and the commit it
        names), and how queries read around it; reads only, like every query. A workspace without a
        repo has none."""
        if not self.exists:
            return []
        git_dir = self._ready().git_dir
        where = _shown_path(git_dir, self.workspace.root)
        fsck = f"to look first: `git --git-dir={git_dir} fsck`"
        out: list[RepoProblem] = [
            RepoProblem(rel, UNWRITTEN, UNWRITTEN_REMEDY) for rel in left_unwritten(git_dir)
        ]
        lost = lost_head_branch(git_dir)
        if lost is not None:
            out.append(
                RepoProblem(
                    f"{where}/HEAD",
                    f"the file is missing; memory's history is read from {lost.decode()}",
                    "the next change recreates it",
                )
            )
        catalog = catalog_for(f"{git_dir}|{'|'.join(self.tracked)}")
        with catalog.lock:
            broken = catalog.unreadable
            above = catalog.entries[-1].sha if catalog.entries else None
        if broken is not None and above is not None:
            out.append(
                RepoProblem(
                    f"{where}/objects/{broken.decode()[:2]}/{broken.decode()[2:]}",
                    f"commit {broken.decode()[:12]} (the one before {above.decode()[:12]}) cannot "
                    f"be read: the history before {above.decode()[:12]} is not shown, and why "
                    "attributes the lines written there to it",
                    f"restore the object from a copy of the repository, or {fsck}",
                )
            )
        try:
            with self._open() as repo:
                ref = lost or branch_ref(repo)
                head = read_head(repo, ref)
                if head is not None and readable(repo, head):
                    return out
                found = heal_head(repo, git_dir, ref, repair=False)
        except (GitStoreError, OSError, ValueError, KeyError) as exc:
            out.append(RepoProblem(where, str(exc), fsck))
            return out
        if found is None:
            return out  # no commits yet
        bad = head.decode(errors="replace")[:12] if head is not None else "an unreadable value"
        out.append(
            RepoProblem(
                f"{where}/{ref.decode()}",
                f"it names commit {bad}, which cannot be read (missing or damaged): "
                f"memory's history is shown from {found.decode()[:12]}, the newest readable "
                "commit in its reflog, and the change or changes made after it are lost",
                f"the next change moves {ref.decode()} back to {found.decode()[:12]}; {fsck}",
            )
        )
        return out

    def gc(self) -> None:
        """Pack every loose object into one pack."""
        with self._writing() as (repo, _ref, _head):
            pack_all(repo, self._ready().git_dir)


def _packed(git_dir: Path) -> bool:
    """Whether the repo has a pack: packing (by Reverie, git gc or git fast-import) is what leaves
    the object fan-out directories missing."""
    try:
        return any(
            name.endswith(".pack") for name in os.listdir(os.path.join(git_dir, "objects", "pack"))
        )
    except OSError:
        return False


def _pack_dir_stamp(git_dir: Path) -> frozenset[str]:
    """The pack directory's listing: it changes whenever a pack is added or removed (gc, purge; each
    pack is named by its content), the signal to reopen the repo and drop cached objects. A listing,
    not the directory's mtime, whose granularity is a clock tick."""
    try:
        return frozenset(os.listdir(os.path.join(git_dir, "objects", "pack")))
    except OSError:
        return frozenset()


def _shown_path(path: Path, root: Path) -> str:
    """``path`` relative to the workspace when inside it (``.git``), else as it is."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _text(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8", errors="surrogateescape")


def _over(
    base: bytes | None, now: bytes | None, planned: bytes | None, path: str, head: ObjectID
) -> bytes | None:
    """``planned`` (a change made from ``base``) applied over ``now``: three-way, so what changed
    since ``base`` stays; ``EditConflictError`` with both sides where both touched the same
    lines."""
    if now == base or now == planned:
        return planned
    if planned == base:
        return now  # the previewed change left this file alone: keep what changed since
    try:
        merged = merge3(_text(base), _text(now), _text(planned), path=path)
    except MergeConflictError as exc:
        raise EditConflictError(
            f"{path} changed since the state this was previewed at, on the same lines "
            f"{exc.lines[0]}-{exc.lines[1]}: nothing was written; preview it again"
            if exc.lines
            else f"{path} changed since the state this was previewed at: nothing was written",
            path=path,
            yours=_text(planned),
            current=_text(now),
            base=_text(base),
            current_id=blob_id(now or b"").decode(),
            head=head.decode(),
            lines=exc.lines,
        ) from None
    return None if planned is None and merged == "" else merged.encode("utf-8", "surrogateescape")


def _rewrite_left_busy(
    git_dir: Path, records: Mapping[str, tuple[ObjectID | None, ObjectID | None]]
) -> None:
    """``write_left_busy``, a failure (a full disk) logged: the record as it was stays, and each of
    its lines still says something true (a file rolled forward, merged or moved on in HEAD since is
    told apart by the next write), so the write goes on."""
    try:
        write_left_busy(git_dir, dict(records))
    except OSError as exc:
        log.warning(
            "%s not updated (%s); the next write settles it", LEFT_BUSY, exc.strerror or exc
        )
