"""``GitStore``: the memory repository of one workspace (skeleton; bodies land with issue 3)."""

from __future__ import annotations

from collections.abc import Mapping

from ..config import GitConfig
from ..workspace import Workspace
from .types import CommitDetail, CommitInfo, OperationResult, Provenance

__all__ = ["GitStore"]


class GitStore:
    """Every change to the tracked memory files is a git commit; query, restore, revert and blame them."""

    def __init__(self, workspace: Workspace, config: GitConfig | None = None) -> None:
        self.workspace = workspace
        self.config = config if config is not None else GitConfig()

    def ensure(self) -> None:
        """Open or create the memory repo (+ .gitignore, initial ``init`` commit) and run crash recovery."""
        raise NotImplementedError

    def commit(
        self,
        message: str,
        *,
        kind: str,
        trailers: Mapping[str, str] | None = None,
        files: Mapping[str, str] | None = None,
    ) -> str | None:
        """Commit ``files`` (new contents of tracked files; None = commit what is on disk). A pending manual
        edit is committed first as ``manual``. Returns the full sha, or None when nothing changed."""
        raise NotImplementedError

    def head(self) -> str | None:
        raise NotImplementedError

    def log(self, limit: int = 20, kind: str | None = None, path: str | None = None) -> list[CommitInfo]:
        raise NotImplementedError

    def show(self, rev: str) -> CommitDetail:
        raise NotImplementedError

    def diff(self, a: str, b: str) -> str:
        raise NotImplementedError

    def file_at(self, rev: str, path: str) -> str | None:
        raise NotImplementedError

    def resolve(self, prefix: str) -> str:
        """Full sha of a unique 4+ hex prefix (or ``HEAD``, ``HEAD~n``) across the whole history."""
        raise NotImplementedError

    def restore(self, rev: str, *, replay: bool = False) -> OperationResult:
        raise NotImplementedError

    def revert(self, rev: str, *, replay: bool = False) -> OperationResult:
        raise NotImplementedError

    def why(self, text: str) -> list[Provenance]:
        raise NotImplementedError

    def gc(self) -> None:
        raise NotImplementedError

    def dirty(self) -> list[str]:
        """Tracked files whose disk content differs from HEAD."""
        raise NotImplementedError

    def last_trailer(self, key: str, kind: str | None = None) -> str | None:
        raise NotImplementedError
