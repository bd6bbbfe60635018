"""Where a workspace's memory repository lives, how it is recognised, and its ignore rules.

Decision (``choose``), first match wins:

1. ``<workspace>/.reverie-git`` exists → use it (a separate git dir chosen earlier stays chosen).
2. ``<workspace>/.git`` is a memory repo made by Reverie or nanobot → adopt it; its history stays
   visible.
3. ``<workspace>/.git`` is some other repository (a user's project rooted at the workspace), or the
   workspace sits inside another repository → a separate git dir ``<workspace>/.reverie-git`` with
   ``core.worktree = ..`` (``git --git-dir=<workspace>/.reverie-git log -p`` works). Versioning is
   never switched off.
4. Otherwise → create ``<workspace>/.git`` (nanobot's place, so nanobot sees the same history).

A memory repo is recognised by (cheapest first): ``reverie.memoryrepo = true`` in its config
(Reverie writes it on adoption or creation); a nanobot-style ``.gitignore`` (``/*`` followed by
``!`` lines); a root commit whose message starts with ``init: nanobot memory store`` or carries
``Reverie-Kind: init``.

Ignore rules: the workspace's ``.gitignore`` (committed) ignores everything at every depth except
the tracked files, so a person's ``git add -A`` — in the memory repo, or in an enclosing project
when the workspace sits inside one — never stages history.jsonl, sessions or cursors. A
``.gitignore`` a person wrote (no Reverie marker line, not nanobot's) is left alone, and so is the
``.gitignore`` of a workspace that is itself the root of someone else's repository. With a separate
git dir the rules are always enforced for the memory repo by ``<git dir>/info/exclude``, and ``<git
dir>/.gitignore`` holds ``*`` so no enclosing project stages its files.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..storage.topics import walk_tree
from .trailers import KIND, parse_trailers

log = logging.getLogger(__name__)

__all__ = [
    "RepoLocation",
    "locate",
    "choose",
    "is_marked",
    "is_memory_repo",
    "is_git_dir",
    "gitignore_text",
    "nanobot_gitignore",
    "expand_tracked",
    "is_tracked",
    "TREE",
    "GITIGNORE_MARK",
    "SEPARATE_DIR",
]

SEPARATE_DIR = ".reverie-git"
GITIGNORE_MARK = "# Managed by Reverie"
NANOBOT_ROOT_SUBJECT = "init: nanobot memory store"
CONFIG_SECTION = b"reverie"
CONFIG_KEY = b"memoryrepo"


@dataclass(frozen=True)
class RepoLocation:
    git_dir: Path
    work_tree: Path
    separate: bool  # True: git dir is <workspace>/.reverie-git, ignore rules in info/exclude

    @property
    def exists(self) -> bool:
        """A git directory is there (its HEAD file may be missing: ``repair_head`` recreates it)."""
        return is_git_dir(self.git_dir)

    @property
    def owns_gitignore(self) -> bool:
        """False when the workspace is the root of someone else's repository: its .gitignore is
        theirs."""
        return not (self.separate and (self.work_tree / ".git").exists())


def is_git_dir(path: Path) -> bool:
    """A git directory: its HEAD file, or (HEAD lost) its ``objects`` and ``refs`` directories."""
    return (path / "HEAD").is_file() or ((path / "objects").is_dir() and (path / "refs").is_dir())


def locate(root: Path) -> RepoLocation | None:
    """The existing memory repo of the workspace at ``root``, found without writing anything; None
    if there is none. A repo Reverie marked costs a few stats; an unmarked one (nanobot's, not yet
    adopted) is recognised the way ``choose`` does, so a query reads it as it is and adoption waits
    for the first write."""
    sep = root / SEPARATE_DIR
    if is_git_dir(sep):
        return RepoLocation(sep, root, True)
    dot = root / ".git"
    if dot.is_dir() and is_git_dir(dot) and is_memory_repo(root, dot):
        return RepoLocation(dot, root, False)
    return None


def is_marked(git_dir: Path) -> bool:
    """Whether the repo's config says it is a memory repo (``reverie.memoryrepo = true``)."""
    try:
        text = (git_dir / "config").read_text("utf-8", errors="replace")
    except OSError:
        return False
    in_section = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            in_section = line.lower().startswith("[reverie")
        elif in_section and line.replace(" ", "").lower() == "memoryrepo=true":
            return True
    return False


def nanobot_gitignore(root: Path) -> bool:
    """Whether ``root/.gitignore`` is nanobot's allow-list (``/*`` then ``!``-lines): its memory
    repo."""
    try:
        lines = [
            ln.strip()
            for ln in (root / ".gitignore").read_text("utf-8", errors="replace").splitlines()
        ]
    except OSError:
        return False
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    return bool(lines) and lines[0] == "/*" and any(ln.startswith("!") for ln in lines[1:])


def _inside_other_repo(root: Path) -> bool:
    for parent in root.resolve().parents:
        if (parent / ".git").exists():
            return True
    return False


def _root_commit_is_memory(git_dir: Path) -> bool:
    """Walk first parents to the root commit (once per adoption; the result is cached in the repo
    config). In a shallow clone the root is not there: a commit Reverie made (its ``Reverie-Kind``
    trailer) on the way is evidence enough."""
    from dulwich.errors import NotGitRepository
    from dulwich.objects import Commit
    from dulwich.refs import Ref
    from dulwich.repo import Repo

    try:
        shallow = set((git_dir / "shallow").read_bytes().split())
    except OSError:
        shallow = set()
    try:
        with Repo(str(git_dir)) as repo:
            try:
                sha = repo.refs[Ref(b"HEAD")]
            except KeyError:
                return False  # no commits: only the .gitignore can tell
            seen = 0
            while True:
                commit = repo.object_store[sha]
                if not isinstance(commit, Commit):
                    raise ValueError(f"{sha.decode()} is not a commit")
                message = commit.message.decode("utf-8", "replace")
                if sha in shallow:  # history cut here: the root is not in this clone
                    return parse_trailers(message).get(KIND) is not None
                if not commit.parents or seen > 1_000_000:
                    break
                if shallow and parse_trailers(message).get(KIND) is not None:
                    return True
                sha = commit.parents[0]
                seen += 1
    except (NotGitRepository, KeyError, OSError, ValueError) as exc:
        detail = (
            exc.args[0].decode("ascii", "replace")
            if exc.args and isinstance(exc.args[0], bytes)
            else exc
        )
        log.warning(
            "%s could not be read (%s); not adopting it",
            git_dir,
            f"missing object {detail}" if isinstance(exc, KeyError) else detail,
        )
        return False
    if message.startswith(NANOBOT_ROOT_SUBJECT):
        return True
    return parse_trailers(message).get(KIND) == "init"


def is_memory_repo(root: Path, git_dir: Path) -> bool:
    if is_marked(git_dir):
        return True
    if not (git_dir / "HEAD").is_file():
        return False
    return nanobot_gitignore(root) or _reverie_gitignore(root) or _root_commit_is_memory(git_dir)


def _reverie_gitignore(root: Path) -> bool:
    """The workspace's ``.gitignore`` is one Reverie wrote (a clone of a memory repo carries it; the
    config mark does not travel with a clone)."""
    try:
        with open(root / ".gitignore", "rb") as f:
            return f.read(len(GITIGNORE_MARK)) == GITIGNORE_MARK.encode()
    except OSError:
        return False


def choose(root: Path) -> RepoLocation:
    """Where the memory repo of ``root`` is or will be (see the module docstring for the rule)."""
    sep = root / SEPARATE_DIR
    if is_git_dir(sep):
        return RepoLocation(sep, root, True)
    dot = root / ".git"
    if dot.exists():
        if dot.is_dir() and (is_memory_repo(root, dot) or (is_marked(dot) and is_git_dir(dot))):
            return RepoLocation(dot, root, False)
        log.info("%s belongs to another repository; the memory repo lives in %s", dot, sep)
        return RepoLocation(sep, root, True)
    if _inside_other_repo(root):
        log.info("%s is inside another git repository; the memory repo lives in %s", root, sep)
        return RepoLocation(sep, root, True)
    return RepoLocation(dot, root, False)


_GLOB_CHARS = re.compile(r"[*?\[]")
#: The last component of a tracked entry that names a whole tree (``memory/topics/**``).
TREE = "**"


def expand_tracked(root: Path, entries: list[str]) -> list[str]:
    """Tracked entries as file paths: a plain path as is; a glob in its last component
    (``memory/2*.md``) as the regular files on disk that match it, sorted; ``dir/**`` (a tree) as
    every regular file under ``dir`` at any depth, hidden names (``.x``) and symlinks left out. The
    ``.gitignore`` keeps the glob itself."""
    out: list[str] = []
    for rel in entries:
        if not _GLOB_CHARS.search(rel):
            out.append(rel)
            continue
        directory, _, pattern = rel.rpartition("/")
        if _GLOB_CHARS.search(directory):
            log.warning("tracked entry %r: a glob is allowed in the file name only; ignored", rel)
            continue
        base = root / directory if directory else root
        if pattern == TREE:
            out.extend(f"{directory}/{name}" if directory else name for name in _tree(base))
            continue
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        for name in names:
            path = base / name
            if fnmatch.fnmatchcase(name, pattern) and path.is_file() and not path.is_symlink():
                out.append(f"{directory}/{name}" if directory else name)
    return list(dict.fromkeys(out))


def _tree(base: Path) -> list[str]:
    """The regular files under ``base`` (relative POSIX paths), hidden names and symlinks
    skipped."""
    if base.is_symlink():
        return []
    return [rel for rel, _ in walk_tree(base)]


def is_tracked(rel: str, entries: list[str]) -> bool:
    """Whether ``rel`` is a tracked path: listed as is, or matching a glob entry (its directory
    literally)."""
    for entry in entries:
        if entry == rel:
            return True
        if _GLOB_CHARS.search(entry):
            directory, _, pattern = entry.rpartition("/")
            if pattern == TREE:
                inner = rel[len(directory) + 1 :] if rel.startswith(directory + "/") else ""
                if inner and not any(p.startswith(".") for p in inner.split("/")):
                    return True
                continue
            rdir, _, name = rel.rpartition("/")
            if rdir == directory and fnmatch.fnmatchcase(name, pattern):
                return True
    return False


def gitignore_text(tracked: list[str]) -> str:
    """Ignore everything at every depth, then re-include each tracked file and the directories
    leading to it."""
    lines = [
        GITIGNORE_MARK + ": only the memory files below are versioned; everything else is ignored.",
        "*",
    ]
    lines.append("!/.gitignore")
    dirs: list[str] = []
    for rel in tracked:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if d not in dirs:
                dirs.append(d)
                lines.append(f"!/{d}/")
    for rel in tracked:
        lines.append(f"!/{rel}")
        if rel.endswith("/" + TREE):  # a tree: everything under it but hidden names
            lines.append(f"/{rel}/.*")
    return "\n".join(lines) + "\n"
