"""Reverie: long-term memory for AI agents, kept in plain files and versioned in git.

The public API is what ``__all__`` lists (a test checks every name resolves); everything else is private.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from .errors import *  # noqa: F403  (the documented exception tree)
from .errors import __all__ as _errors_all

if TYPE_CHECKING:
    from .config import Config, load_config
    from .facade import MemoryStore
    from .history import HistoryEntry, HistoryLog
    from .workspace import MEMORY_FILES, Workspace

# Loaded on first access (PEP 562): `python -m reverie --help` imports this package, and pydantic-based config
# alone costs ~0.1 s of start-up that --help does not need.
_LAZY = {
    "MemoryStore": "facade", "Workspace": "workspace", "MEMORY_FILES": "workspace", "Config": "config",
    "load_config": "config", "HistoryLog": "history", "HistoryEntry": "history",
}


__getattr__ = lazy_exports(__name__, _LAZY, globals())


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
