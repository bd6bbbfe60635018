"""The memory repository: every change to the tracked memory files is a git commit (on dulwich).

This package is the only code importing dulwich. ``GitStore`` is loaded lazily so that importing
``reverie.gitstore.trailers`` or the value types (as Dream and the CLI do) does not import dulwich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .core import GitStore
    from .types import CommitDetail, CommitInfo, FileChange, OperationResult, Provenance

__all__ = ["GitStore", "CommitInfo", "FileChange", "CommitDetail", "OperationResult", "Provenance"]

# Every name loads on first access (PEP 562): a package that imports its own modules as it loads can
# deadlock two threads entering it at once, one through the package, one through a module
# (tests/test_harden_threads.py: a first ``why`` beside a first ``log`` ended in _DeadlockError).
_LAZY = {"GitStore": "core", **{name: "types" for name in __all__ if name != "GitStore"}}
__getattr__ = lazy_exports(__name__, _LAZY, globals())
