"""Sessions and the token-pressure Consolidator.

- ``reverie.storage.sessions`` (files-and-formats layer, re-exported here): the session file format
  (nanobot's) and ``SessionStore``;
- ``estimate``: what the agent's next prompt costs in tokens;
- ``slicing``: where a session may be cut; ``transcript``: messages as labelled transcript lines;
- ``summary``: one summary call (the model turns a slice into history entries); ``consolidator``:
  the rounds, ``/new``; ``seed``: ``MemoryStore.consolidate``.
"""

from ..storage.sessions import Session, SessionInfo, SessionStore
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
