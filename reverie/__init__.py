"""Reverie: long-term memory for AI agents, kept in plain files and versioned in git.

The public API is what ``__all__`` lists (a test checks every name resolves); everything else is private.
"""

from __future__ import annotations

from .config import Config, load_config
from .errors import *  # noqa: F403  (the documented exception tree)
from .errors import __all__ as _errors_all
from .history import HistoryEntry, HistoryLog
from .store import MemoryStore
from .workspace import MEMORY_FILES, Workspace

__version__ = "0.1.0"

__all__ = [
    "MemoryStore",
    "Workspace",
    "MEMORY_FILES",
    "Config",
    "load_config",
    "HistoryLog",
    "HistoryEntry",
    *_errors_all,
]
