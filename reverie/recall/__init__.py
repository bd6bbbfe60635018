"""Recall: hybrid search over a workspace's memory files, history and conversations.

Public API (``__all__``): ``Recall`` (sync, rebuild, search/asearch), ``memory_search``, the
``Hit``/``SourceRef``/``SearchFilters`` values and the index (``SearchIndex``, ``SyncStats``,
``INDEX_NAME``; its format is specified in ``reverie.recall.index``). Imported from their modules:
the agent's ``search_memory`` tool and auto-recall (``reverie.recall.tool``: ``SEARCH_MEMORY_TOOL``,
``run_search_memory_tool``, ``recall_context``), session-end memory files and the pre-compaction
flush (``reverie.operations.memfiles``).
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
