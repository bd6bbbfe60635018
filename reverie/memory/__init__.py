"""The front door: ``reverie.open(path) -> Memory``, and what ``Memory`` stands on.

Lowest first: ``runtime`` (one workspace's services, built on first use), ``offload`` (the one
executor the async verbs run in), ``status``, ``verbs`` (the mem0 and whole-file verbs and the
argument checks every verb shares), ``core`` (``Memory``, ``open``, ``wrap``), then what takes a
``Memory``: ``session_jobs`` (``/new`` and idle archiving as jobs) and ``importers``. The actions on
the store and the repo that the verbs delegate to are ``reverie.operations``, one floor down.
"""

from __future__ import annotations

from .core import (
    EditKind,
    IndexResult,
    Memory,
    Remembered,
    RemoveResult,
    RestorePlan,
    WriteResult,
    agent_preamble,
    content_id,
    memory_files,
    open,
    use_memory_class,
    wrap,
)

__all__ = [
    "Memory",
    "open",
    "wrap",
    "use_memory_class",
    "Remembered",
    "WriteResult",
    "RemoveResult",
    "IndexResult",
    "RestorePlan",
    "content_id",
    "EditKind",
    "memory_files",
    "agent_preamble",
]
