"""The memory repository: every change to the tracked memory files is a git commit (on dulwich).

This package is the only code importing dulwich. ``GitStore`` is loaded lazily so that importing
``reverie.gitstore.trailers`` or the value types (as Dream and the CLI do) does not import dulwich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .types import CommitDetail, CommitInfo, FileChange, OperationResult, Provenance

if TYPE_CHECKING:
    from .core import GitStore

__all__ = ["GitStore", "CommitInfo", "FileChange", "CommitDetail", "OperationResult", "Provenance"]


def __getattr__(name: str) -> Any:
    if name == "GitStore":
        from .core import GitStore

        return GitStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
