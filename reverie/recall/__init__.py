"""Recall: hybrid search over a workspace's memory files, history and conversations.

Public API (``__all__``): ``Recall`` (sync, rebuild, search/asearch), ``memory_search``, the
``Hit``/``SourceRef``/``SearchFilters`` values and the index (``SearchIndex``, ``SyncStats``,
``INDEX_NAME``; its format is specified in ``reverie.recall.index``). Imported from their modules:
the agent's ``search_memory`` tool and auto-recall (``reverie.recall.tool``: ``SEARCH_MEMORY_TOOL``,
``run_search_memory_tool``, ``recall_context``), session-end memory files and the pre-compaction
flush (``reverie.operations.memfiles``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
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

# Loaded on first access (PEP 562): a package that imports its own modules as it loads can deadlock
# two threads entering it at once, one through the package, one through a module
# (tests/test_harden_threads.py: two verbs' first calls ended in ImportError or _DeadlockError).
_LAZY = {
    **{name: "index" for name in ("INDEX_NAME", "SearchIndex", "SyncStats")},
    "Recall": "search",
    **{name: "search" for name in __all__[1:2]},  # its export name (search_memory is the tool's)
    **{name: "types" for name in ("SOURCE_KINDS", "Hit", "SearchFilters", "SourceRef")},
}
__getattr__ = lazy_exports(__name__, _LAZY, globals())
