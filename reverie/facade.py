"""``reverie.MemoryStore``: the store, plus the parts of nanobot's MemoryStore API that reach into the memory
pipeline — its memory repo (``git``), the model-free archive (``raw_archive``) and the older one-call
consolidation (``consolidate``).

Kept apart from ``reverie.store`` so the store stays at the bottom layer (files and formats) while these calls,
which need the versioning layer and the Consolidator, live above them: no import runs up the layers. Each is
imported on its first call, so ``reverie.MemoryStore`` alone loads neither dulwich nor the Consolidator.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .history import format_timestamp
from .store import MemoryStore as _Store

if TYPE_CHECKING:
    from .gitstore import GitStore
    from .llm.client import ModelClient

__all__ = ["MemoryStore", "RAW_ARCHIVE_MAX_CHARS"]

log = logging.getLogger("reverie.store")

#: Longest raw-archive entry (nanobot's default); a longer transcript is split into several entries.
RAW_ARCHIVE_MAX_CHARS = 16_000


class MemoryStore(_Store):
    """The memory of one workspace with nanobot's whole MemoryStore API (see ``reverie.store.MemoryStore``)."""

    _git: GitStore | None = None

    @property
    def git(self) -> GitStore:
        """The workspace's memory repo (created or adopted on its first write, not here). One per store."""
        if self._git is None:
            from .gitstore import GitStore

            self._git = GitStore(self.workspace, self.config.git)
        return self._git

    def raw_archive(
        self, messages: list[dict[str, Any]], session_key: str | None = None, *, max_chars: int | None = None
    ) -> list[int]:
        """Archive messages without a model (the fallback when summarising fails): ``[RAW] N messages`` and one
        transcript line per message, split into entries of at most ``max_chars`` (default 16,000) so nothing is
        cut. Returns the cursors written."""
        from .consolidator.transcript import raw_archive_entries

        limit = max_chars if max_chars is not None else RAW_ARCHIVE_MAX_CHARS
        entries = raw_archive_entries(messages, fallback_stamp=format_timestamp(), limit=limit)
        cursors = [self.history.append(text, session_key) for text in entries]
        if cursors:
            log.warning("raw-archived %d messages (no summary)", len(messages))
        return cursors

    # -- the seed API (nanobot's older consolidation interface; see reverie.consolidator.seed) --------------
    async def consolidate(
        self, session: Any, provider: ModelClient | str, model: str | None = None, *, archive_all: bool = False,
        memory_window: int = 50,
    ) -> bool:
        """Archive old messages with one forced ``save_memory`` model call; False (nothing touched) on failure.

        ``session``: nanobot's or Reverie's (its ``messages``, ``key`` and ``last_consolidated`` are read, the last
        one moved on success); ``provider``: a model name or a ``ModelClient``.
        """
        from .consolidator.seed import consolidate

        return await consolidate(self, session, provider, model, archive_all=archive_all, memory_window=memory_window)
