"""``reverie.MemoryStore``: the one ``MemoryStore`` — Reverie's ``WorkspaceStore`` with nanobot's
MemoryStore names mixed in (``reverie.compat.nanobot_api``), so an agent written against nanobot
runs unchanged.

Kept apart from ``reverie.storage.store`` so the store stays at the bottom layer (files and formats)
while nanobot's calls that need the versioning layer and the Consolidator live above them: no import
runs up the layers.

What an agent stores through it is checked as ``Memory``'s verbs check it
(``reverie.text.safety.unstorable``): a history entry or a memory file's text with a NUL or another
control character, or a lone surrogate (which UTF-8 cannot hold: stored as a JSON escape it would
come back as something else), is refused naming the character and where it is (``HistoryError`` for
a history entry, so a caller that puts MEMORY.md back when history cannot take the entry does;
``CommandError`` for a file), and nothing is written.
"""

from __future__ import annotations

from ..errors import CommandError, HistoryError
from ..storage.store import WorkspaceStore
from ..text.safety import unstorable
from .nanobot_api import RAW_ARCHIVE_MAX_CHARS, NanobotStoreAPI

__all__ = ["MemoryStore", "RAW_ARCHIVE_MAX_CHARS"]


def _stored(name: str, text: object, error: type[Exception] = CommandError) -> None:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be str, not {type(text).__name__}")
    why = unstorable(text)
    if why is not None:
        raise error(f"{name} {why}")


class MemoryStore(NanobotStoreAPI, WorkspaceStore):
    """The memory of one workspace with nanobot's whole MemoryStore API (see ``WorkspaceStore`` for
    Reverie's own names and ``NanobotStoreAPI`` for nanobot's); what it stores is checked (see the
    module doc)."""

    def append_history(
        self, entry: str, session_key: str | None = None, *, max_chars: int | None = None
    ) -> int:
        _stored("entry", entry, HistoryError)
        return super().append_history(entry, session_key, max_chars=max_chars)

    def write_long_term(self, content: str) -> None:
        _stored("content", content)
        super().write_long_term(content)

    def write_user(self, content: str) -> None:
        _stored("content", content)
        super().write_user(content)

    def write_soul(self, content: str) -> None:
        _stored("content", content)
        super().write_soul(content)
