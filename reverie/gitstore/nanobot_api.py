"""nanobot 0.1.5's ``GitStore`` method names on Reverie's ``GitStore``, for agents written against
nanobot.

Each is a thin translation onto Reverie's own public methods, with nanobot's conventions: ``None``
or ``""`` where nanobot answers so (not initialised, unknown revision, nothing to commit) instead of
an exception. Shas are Reverie's full 40-character ids (nanobot's are 8; ``CommitInfo.short`` has
those). nanobot's ``revert(sha)`` (put back the state before ``sha``) is ``restore(sha)`` here;
Reverie's ``revert`` undoes only that commit's change (docs/nanobot.md lists every difference).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from ..errors import GitStoreError
from ..storage.workspace import Workspace
from .location import choose, expand_tracked
from .types import CommitDetail, CommitInfo

__all__ = ["NanobotGitAPI"]


class _Host(Protocol):
    """The public part of ``GitStore`` the methods below use (the mixin's self type)."""

    workspace: Workspace
    tracked: list[str]

    def is_initialized(self) -> bool: ...
    def ensure(self) -> None: ...
    def commit(
        self,
        message: str,
        *,
        kind: str,
        trailers: Mapping[str, str] | None = None,
        files: Mapping[str, str] | None = None,
    ) -> str | None: ...
    def show(self, rev: str) -> CommitDetail: ...
    def diff(self, a: str, b: str) -> str: ...


class NanobotGitAPI:
    """Mixed into ``GitStore``; uses only its public methods."""

    def is_initialized(self: _Host) -> bool:
        """Whether the workspace has its memory repo (a nanobot repo not yet adopted counts)."""
        return choose(self.workspace.root).exists

    def init(self: _Host) -> bool:
        """Create the memory repo with its first commit; False when it already exists (nanobot's
        ``init``). As nanobot does, missing tracked files are created empty first, so the first
        commit holds them all."""
        if self.is_initialized():
            return False
        for rel in expand_tracked(
            self.workspace.root, [p for p in self.tracked if not any(c in p for c in "*?[")]
        ):
            path = self.workspace.resolve(rel)
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
        self.ensure()
        return True

    def auto_commit(self: _Host, message: str) -> str | None:
        """Commit the tracked files as they are on disk; the commit's sha, or None when the repo
        does not exist yet or nothing changed."""
        if not self.is_initialized():
            return None
        return self.commit(message, kind="manual")

    def find_commit(self: _Host, prefix: str) -> CommitInfo | None:
        """The commit a sha prefix names, or None."""
        try:
            return self.show(prefix).info
        except GitStoreError:
            return None

    def diff_commits(self: _Host, a: str, b: str) -> str:
        """The tracked files' diff from ``a`` to ``b``; ``""`` when either is unknown or there is no
        repo."""
        if not self.is_initialized():
            return ""
        try:
            return self.diff(a, b)
        except GitStoreError:
            return ""

    def show_commit_diff(self: _Host, sha: str) -> tuple[CommitInfo, str] | None:
        """``(commit, diff)`` of one commit, or None when it is unknown."""
        if not self.is_initialized():
            return None
        try:
            detail: CommitDetail = self.show(sha)
        except GitStoreError:
            return None
        return detail.info, detail.diff
