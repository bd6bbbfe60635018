"""Reverie: long-term memory for AI agents, kept in plain files and versioned in git.

Start with ``reverie.open(path)``: the ``Memory`` it returns has every verb (remember, recall,
dream, log, restore, …). The public API is what ``__all__`` lists (docs/api-names.md documents
exactly these names, and a test checks both); everything else is private.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the console entry point imports this first (reverie._start)

from ._lazy import lazy_exports
from .errors import *  # noqa: F403  (the documented exception tree)
from .errors import __all__ as _errors_all

if TYPE_CHECKING:
    from typing import Any

    __version__: str
    from .compat.memory_store import MemoryStore
    from .consolidator import ConsolidationResult
    from .dream import DreamResult
    from .dream.deadletter import DeadLetter
    from .dream.pins import PinResult
    from .dream.proposal import SoulProposal
    from .dream.proposal import SoulProposal as PendingChange
    from .gitstore import CommitDetail, CommitInfo, FileChange, OperationResult, Provenance
    from .llm.replylog import KeptReply
    from .memory import (
        IndexResult,
        Memory,
        Remembered,
        RemoveResult,
        RestorePlan,
        WriteResult,
        open,
        use_memory_class,
    )
    from .memory.importers import export_bundle, import_from
    from .memory.status import StatusReport
    from .operations.approve import ApproveResult
    from .operations.files import FilesResult
    from .operations.items import MemoryEvent, MemoryItem, Results
    from .recall import Hit
    from .storage.config import Config, load_config
    from .storage.history import HistoryEntry, HistoryLog
    from .storage.workspace import MEMORY_FILES, Workspace, content_id

# Loaded on first access (PEP 562): `python -m reverie --help` imports this package, and
# pydantic-based config alone costs ~0.1 s of start-up that --help does not need.
_LAZY = {
    "open": "memory",
    "Memory": "memory",
    "use_memory_class": "memory",
    "Remembered": "memory",
    "WriteResult": "memory",
    "RemoveResult": "memory",
    "IndexResult": "memory",
    "MemoryItem": "operations.items",
    "MemoryEvent": "operations.items",
    "Results": "operations.items",
    "FilesResult": "operations.files",
    "import_from": "memory.importers",
    "export_bundle": "memory.importers",
    "RestorePlan": "memory",
    "content_id": "storage.workspace",
    "DreamResult": "dream",
    "ConsolidationResult": "consolidator",
    "Hit": "recall",
    "PinResult": "dream.pins",
    "DeadLetter": "dream.deadletter",
    "SoulProposal": "dream.proposal",
    "PendingChange": "dream.pending",  # SoulProposal's first name, kept
    "ApproveResult": "operations.approve",
    "StatusReport": "memory.status",
    "KeptReply": "llm.replylog",
    "CommitInfo": "gitstore",
    "CommitDetail": "gitstore",
    "FileChange": "gitstore",
    "OperationResult": "gitstore",
    "Provenance": "gitstore",
    "MemoryStore": "compat.memory_store",
    "Workspace": "storage.workspace",
    "MEMORY_FILES": "storage.workspace",
    "Config": "storage.config",
    "load_config": "storage.config",
    "HistoryLog": "storage.history",
    "HistoryEntry": "storage.history",
}


_exported = lazy_exports(__name__, _LAZY, globals())


def __getattr__(name: str) -> Any:
    if name == "__version__":  # (reverie.version: read on first use)
        from .version import version

        return version()
    return _exported(name)


__all__ = [
    # the front door
    "open",
    "Memory",
    "use_memory_class",
    "content_id",
    # moving memory in and out (reverie.memory.importers)
    "import_from",
    "export_bundle",
    # what its verbs return
    "Remembered",
    "WriteResult",
    "RemoveResult",
    "IndexResult",
    "MemoryItem",
    "MemoryEvent",
    "Results",
    "FilesResult",
    "RestorePlan",
    "DreamResult",
    "ConsolidationResult",
    "Hit",
    "CommitInfo",
    "CommitDetail",
    "FileChange",
    "OperationResult",
    "Provenance",
    "PinResult",
    "DeadLetter",
    "SoulProposal",
    "PendingChange",
    "ApproveResult",
    "StatusReport",
    "KeptReply",
    # the files underneath (nanobot's MemoryStore API)
    "MemoryStore",
    "Workspace",
    "MEMORY_FILES",
    "Config",
    "load_config",
    "HistoryLog",
    "HistoryEntry",
    *_errors_all,
]
