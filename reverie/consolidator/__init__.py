"""Sessions and the token-pressure Consolidator.

- ``reverie.storage.sessions`` (files-and-formats layer, re-exported here): the session file format
  (nanobot's) and ``SessionStore``;
- ``estimate``: what the agent's next prompt costs in tokens;
- ``slicing``: where a session may be cut; ``transcript``: messages as labelled transcript lines;
- ``summary``: one summary call (the model turns a slice into history entries); ``consolidator``:
  the rounds, ``/new``; ``seed``: ``MemoryStore.consolidate``.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ..storage.sessions import Session, SessionInfo, SessionStore

if TYPE_CHECKING:
    from .consolidator import ConsolidationResult, Consolidator
    from .seed import consolidate

__all__ = [
    "Session",
    "SessionInfo",
    "SessionStore",
    "Consolidator",
    "ConsolidationResult",
    "consolidate",
]

# Loaded on first access (PEP 562): a package that imports its own modules as it loads can deadlock
# two threads entering it at once, one through the package, one through a module
# (tests/test_harden_threads.py).
_LAZY = {
    "Consolidator": "consolidator",
    "ConsolidationResult": "consolidator",
    "consolidate": "seed",
}
__getattr__ = lazy_exports(__name__, _LAZY, globals())
