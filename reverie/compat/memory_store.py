"""``reverie.MemoryStore``: the one ``MemoryStore`` — Reverie's ``WorkspaceStore`` with nanobot's
MemoryStore names mixed in (``reverie.compat.nanobot_api``), so an agent written against nanobot
runs unchanged.

Kept apart from ``reverie.storage.store`` so the store stays at the bottom layer (files and formats)
while nanobot's calls that need the versioning layer and the Consolidator live above them: no import
runs up the layers.
"""

from __future__ import annotations

from ..storage.store import WorkspaceStore
from .nanobot_api import RAW_ARCHIVE_MAX_CHARS, NanobotStoreAPI

__all__ = ["MemoryStore", "RAW_ARCHIVE_MAX_CHARS"]


class MemoryStore(NanobotStoreAPI, WorkspaceStore):
    """The memory of one workspace with nanobot's whole MemoryStore API (see ``WorkspaceStore`` for
    Reverie's own names and ``NanobotStoreAPI`` for nanobot's)."""
