"""Recall: hybrid search over a workspace's memory files, history and conversations.

Public API: ``Recall`` (sync, rebuild, search/asearch), ``memory_search``, the ``Hit``/``SourceRef``/``SearchFilters``
values, the ``memory_search`` tool (``MEMORY_SEARCH_TOOL``, ``run_memory_search_tool``), auto-recall
(``recall_context``), session-end memory files and the pre-compaction flush (``reverie.recall.memfiles``).
The index format is specified in ``reverie.recall.index``.
"""

from __future__ import annotations

from .index import INDEX_NAME, SearchIndex, SyncStats
from .search import Recall, memory_search
from .types import SOURCE_KINDS, Hit, SearchFilters, SourceRef

__all__ = [
    "Recall",
    "memory_search",
    "Hit",
    "SourceRef",
    "SearchFilters",
    "SOURCE_KINDS",
    "SearchIndex",
    "SyncStats",
    "INDEX_NAME",
]
