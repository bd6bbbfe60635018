"""Opening, creating and healing the memory repository: atomic creation, the ignore rules, the
branch ref, and HEAD recovery from the reflog.

Creation is atomic: the repository is initialised in a temporary directory next to its final place
and renamed into place, so a kill never leaves a half-made ``.git`` that would later be mistaken for
a user's repository.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import shutil
import zlib
from pathlib import Path

from dulwich.errors import ChecksumMismatch, ObjectFormatException
from dulwich.file import FileLocked
from dulwich.objects import Commit, ObjectID, ShaFile, Tree
from dulwich.reflog import read_reflog
from dulwich.refs import Ref
from dulwich.repo import Repo

from ..errors import GitStoreError
from ..storage.fsutil import atomic_write, fsync_dir, read_text_lossy
from .location import (
    CONFIG_KEY,
    CONFIG_SECTION,
    GITIGNORE_MARK,
    TREE,
    RepoLocation,
    gitignore_text,
    nanobot_gitignore,
)
from .objects import CachedStore, ObjectReader

log = logging.getLogger(__name__)

__all__ = [
    "MemoryRepo",
    "create_repo",
    "lost_head_branch",
    "repair_head",
    "mark_adopted",
    "branch_ref",
    "read_head",
    "readable",
    "heal_head",
    "sync_ignore_rules",
]

_READ_ERRORS = (
    KeyError,
    ChecksumMismatch,  # a truncated or overwritten loose object
    GitStoreError,  # the same, read through ``CachedStore``
    ValueError,
    TypeError,
    zlib.error,
    ObjectFormatException,
    OSError,
    AssertionError,
)


class MemoryRepo(Repo):
    """A dulwich Repo plus ``objects``: a read cache over its object store (``CachedStore``). The
    cache dict may be shared with the GitStore that opens the repo, so it outlives one open."""

    def __init__(self, path: str, cache: dict[ObjectID, ShaFile] | None = None) -> None:
        super().__init__(path)
        self.objects = CachedStore(self.object_store, cache)


def create_repo(loc: RepoLocation) -> None:
    """Initialise the memory repo at ``loc.git_dir`` (atomically: temp dir, then rename)."""
    parent = loc.git_dir.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = parent / f".reverie-git-init-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        repo = Repo.init_bare(str(tmp), mkdir=True, default_branch=b"main")
        try:
            cfg = repo.get_config()
            cfg.set((b"core",), b"bare", False)
            cfg.set((b"core",), b"logallrefupdates", True)
            if loc.separate:
                cfg.set((b"core",), b"worktree", b"..")
            cfg.set((CONFIG_SECTION,), CONFIG_KEY, True)
            cfg.write_to_path()
        finally:
            repo.close()
        if loc.separate:
            # the enclosing project must never stage the memory repo's own files
            atomic_write(tmp / ".gitignore", "*\n")
        try:
            os.rename(tmp, loc.git_dir)
        except OSError as exc:
            if not (exc.errno in (errno.EEXIST, errno.ENOTEMPTY) and loc.exists):
                raise
            # another process or thread created it first: use theirs
            shutil.rmtree(tmp, ignore_errors=True)
            return
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    fsync_dir(parent)
    log.info("created the memory repository at %s", loc.git_dir)


def mark_adopted(repo: Repo) -> None:
    """Record in the repo's config that it is a memory repo, so the check is a config read next
    time. Only a cache: when ``config.lock`` is held (a ``git config`` at work, or left behind), it
    is skipped with a warning."""
    cfg = repo.get_config()
    cfg.set((CONFIG_SECTION,), CONFIG_KEY, True)
    try:
        cfg.write_to_path()
    except FileLocked:
        log.warning(
            "%s/config.lock exists; the repo is not marked as a memory repo this time",
            repo.controldir(),
        )


def lost_head_branch(git_dir: Path) -> Ref | None:
    """The branch a lost HEAD file should point at (``refs/heads/main``, else ``master``, else the
    only branch); None when HEAD is there or no branch exists. Reads only."""
    if (git_dir / "HEAD").is_file():
        return None
    names: set[bytes] = set()
    heads = git_dir / "refs" / "heads"
    for dirpath, _dirs, files in os.walk(heads):
        for name in files:
            if not name.endswith(".lock"):
                names.add(
                    os.path.relpath(os.path.join(dirpath, name), git_dir)
                    .replace(os.sep, "/")
                    .encode()
                )
    try:
        for line in (git_dir / "packed-refs").read_bytes().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].startswith(b"refs/heads/"):
                names.add(parts[1])
    except OSError:
        pass
    for wanted in (b"refs/heads/main", b"refs/heads/master"):
        if wanted in names:
            return Ref(wanted)
    return Ref(next(iter(names))) if len(names) == 1 else None


def repair_head(git_dir: Path) -> None:
    """Recreate a lost HEAD file pointing at the branch that exists (a git dir without HEAD is
    unusable to git and dulwich alike), with a warning; ``GitStoreError`` when no single branch can
    be chosen."""
    if (git_dir / "HEAD").is_file():
        return
    branch = lost_head_branch(git_dir)
    if branch is None:
        raise GitStoreError(
            f"{git_dir}/HEAD is missing and no branch (main, master or a single one) can take "
            f"its place; recreate it with `echo 'ref: refs/heads/<branch>' > {git_dir}/HEAD`"
        )
    log.warning("%s/HEAD was missing; recreated it pointing at %s", git_dir, branch.decode())
    atomic_write(git_dir / "HEAD", b"ref: " + branch + b"\n")


HEAD = Ref(b"HEAD")


def branch_ref(repo: Repo) -> Ref:
    """The ref Reverie moves: the branch HEAD points at (``HEAD`` itself when detached)."""
    names, _ = repo.refs.follow(HEAD)
    return names[-1] if names else HEAD


def read_head(repo: Repo, ref: Ref) -> ObjectID | None:
    try:
        value = repo.refs.read_ref(ref)
    except (KeyError, OSError, ValueError):
        return None
    if value is None or value.startswith(b"ref: "):
        return None
    return ObjectID(value)


def readable(repo: Repo, sha: ObjectID) -> bool:
    """A commit whose object and root tree both load (through the repo's object cache when it has
    one: an object this process wrote or read is intact)."""
    store: ObjectReader = repo.objects if isinstance(repo, MemoryRepo) else repo.object_store
    try:
        commit = store[sha]
        if not isinstance(commit, Commit):
            return False
        tree = store[commit.tree]
        return isinstance(tree, Tree)
    except _READ_ERRORS:
        return False


def heal_head(repo: Repo, git_dir: Path, ref: Ref, *, repair: bool = True) -> ObjectID | None:
    """HEAD's commit id after making sure it is readable; a HEAD pointing at a missing or corrupt
    object is moved back to the newest readable commit in the ref's reflog, with a warning
    (``repair=False``, for a query: that commit is returned and nothing is written)."""
    head = read_head(repo, ref)
    ref_file = git_dir / ref.decode()
    log_path = git_dir / "logs" / ref.decode()
    if head is None and not ref_file.exists() and not _in_packed_refs(git_dir, ref):
        if not log_path.is_file() or log_path.stat().st_size == 0:
            return None  # no commits yet
        # the ref file is gone but its reflog remains: recover rather than start an unrelated
        # history
    if head is not None and len(head) == 40 and readable(repo, head):
        return head
    candidates: list[ObjectID] = []
    try:
        with open(log_path, "rb") as f:
            candidates = [entry.new_sha for entry in read_reflog(f)]
    except (OSError, ValueError):
        candidates = []
    for sha in reversed(candidates):
        if sha != b"0" * 40 and sha != head and readable(repo, sha):
            bad = head.decode(errors="replace") if head else "(unreadable)"
            if not repair:
                log.warning(
                    "%s points at a missing or corrupt commit %s; reading "
                    "%s from the reflog (the next write repairs it)",
                    ref.decode(),
                    bad,
                    sha.decode(),
                )
                return sha
            log.warning(
                "%s pointed at a missing or corrupt commit %s; recovered to %s from the reflog",
                ref.decode(),
                bad,
                sha.decode(),
            )
            atomic_write(ref_file, sha + b"\n")
            return sha
    raise GitStoreError(
        f"{ref.decode()} in {git_dir} points at a missing or corrupt commit and its "
        f"reflog holds no readable commit; inspect it with `git --git-dir={git_dir} fsck`"
    )


def _in_packed_refs(git_dir: Path, ref: bytes) -> bool:
    try:
        return ref in (git_dir / "packed-refs").read_bytes()
    except OSError:
        return False


#: Directories holding Reverie's own state (history, cursors, sessions, locks), ignored from inside
#: when the workspace's root ``.gitignore`` belongs to someone else's project.
_STATE_DIRS = ("memory", "sessions")


def _sync_nested_ignores(root: Path, tracked: list[str]) -> None:
    """The workspace is the root of someone else's repository (or worktree): its ``.gitignore`` is
    theirs, so ``memory/.gitignore`` and ``sessions/.gitignore`` (Reverie's own directories) keep
    that project's ``git add -A`` away from history, cursors and sessions; the tracked memory files
    stay visible to it. A file there that Reverie did not write is left alone."""
    for directory in _STATE_DIRS:
        base = root / directory
        if not base.is_dir() or base.is_symlink():
            continue
        inside = [rel[len(directory) + 1 :] for rel in tracked if rel.startswith(directory + "/")]
        lines = [
            GITIGNORE_MARK
            + ": Reverie's state stays out of this project; only memory files are visible.",
            "*",
        ]
        for rel in inside:  # each tracked entry, and the folders leading to it
            parts = rel.split("/")
            lines.extend(f"!/{'/'.join(parts[:i])}/" for i in range(1, len(parts)))
            lines.append(f"!/{rel}")
            if rel.endswith("/" + TREE):
                lines.append(f"/{rel}/.*")
        lines = list(dict.fromkeys(lines))
        wanted = "\n".join(lines) + "\n"
        path = base / ".gitignore"
        current = read_text_lossy(path) if path.exists() else None
        if current == wanted or (current is not None and not current.startswith(GITIGNORE_MARK)):
            continue
        atomic_write(path, wanted)


def sync_ignore_rules(loc: RepoLocation, tracked: list[str]) -> bool:
    """Bring the ignore rules up to date; True when the workspace's ``.gitignore`` changed (it is
    committed).

    A ``.gitignore`` written by Reverie (its marker line) or nanobot (``/*`` + ``!`` lines), or none
    at all, is replaced by the current rules; one a person wrote is theirs and left alone. With a
    separate git dir the rules also go to its ``info/exclude``, so the memory repo ignores
    everything else whatever the ``.gitignore`` says.
    """
    wanted = gitignore_text(tracked)
    if loc.separate:
        exclude = loc.git_dir / "info" / "exclude"
        if read_text_lossy(exclude) != wanted:
            atomic_write(exclude, wanted)
    if not loc.owns_gitignore:
        _sync_nested_ignores(loc.work_tree, tracked)
        return False
    path = loc.work_tree / ".gitignore"
    current = read_text_lossy(path) if path.exists() else None
    if current == wanted:
        return False
    if (
        current is not None
        and not current.startswith(GITIGNORE_MARK)
        and not nanobot_gitignore(loc.work_tree)
    ):
        return False
    if current is not None and not current.startswith(GITIGNORE_MARK):
        log.info(
            "tightening nanobot's .gitignore so history and sessions are ignored at every depth"
        )
    atomic_write(path, wanted)
    return True
