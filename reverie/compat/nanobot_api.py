"""nanobot's ``MemoryStore`` names (0.1.4's and 0.1.5's) on Reverie's ``WorkspaceStore``, for agents
written against nanobot: mixed into ``reverie.MemoryStore`` and kept apart from Reverie's own names,
as ``gitstore.nanobot_api`` does for ``GitStore``.

Most are aliases or paths. Three reach into the memory pipeline — the memory repo (``git``), the
model-free raw entries of messages into history (``raw_archive``) and the older one-call
consolidation (``consolidate``) — so this module sits above the pipeline; each imports what it needs
on its first call, and ``reverie.MemoryStore`` alone loads neither dulwich nor the Consolidator.
docs/nanobot.md has the full table.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import UnsafePathError
from ..storage.history import HistoryLog, format_timestamp
from ..storage.workspace import MEMORY, SOUL, USER, Workspace

if TYPE_CHECKING:
    from ..gitstore import GitStore
    from ..llm.client import ModelClient
    from ..storage.config import Config
    from ..storage.store import WorkspaceStore

__all__ = ["NanobotStoreAPI", "RAW_ARCHIVE_MAX_CHARS"]

log = logging.getLogger("reverie.storage.store")

#: Longest raw entry (nanobot's default); a longer transcript is split into several entries.
RAW_ARCHIVE_MAX_CHARS = 16_000


class _Host(Protocol):
    """The part of ``WorkspaceStore`` the names below use (the mixin's self type)."""

    workspace: Workspace
    config: Config
    history: HistoryLog
    _git: GitStore | None

    def read_long_term(self) -> str: ...
    def write_long_term(self, content: str) -> None: ...
    def dream_cursor(self) -> int: ...
    def set_dream_cursor(self, value: int) -> None: ...


def _inside(workspace: Workspace, path: str | os.PathLike[str]) -> str:
    """``path`` as a workspace-relative path, or ``UnsafePathError``: an absolute path must lie
    under the workspace's root (as given or resolved); a relative one is taken from the root."""
    if not isinstance(path, str | os.PathLike):
        raise UnsafePathError(f"path must be a string or a path, not {type(path).__name__}")
    raw = os.fspath(path)
    if not isinstance(raw, str):
        raise UnsafePathError("path must be text, not bytes")
    given = Path(raw)
    if not given.is_absolute():
        return raw
    for root in (workspace.root, workspace.root.resolve()):
        if given == root:
            raise UnsafePathError(f"{raw!r} is the workspace's folder, not a file in it")
        if given.is_relative_to(root):
            return given.relative_to(root).as_posix()
    raise UnsafePathError(
        f"{raw!r} is outside the workspace: read_file reads the workspace's files"
    )


def _ensure_memory_dir(workspace: Workspace) -> Path:
    """memory/, created if missing: nanobot's constructor creates it, Reverie's writes nothing (a
    query opens a store too), so the nanobot names callers use to write create it when asked for."""
    path = workspace.memory_dir
    if not path.is_dir():
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # read-only or refused: the caller's own write will say so
            log.debug("cannot create %s: %s", path, exc)
    return path


class NanobotStoreAPI:
    """Mixed into ``reverie.MemoryStore``; uses only ``WorkspaceStore``'s public names."""

    _git: GitStore | None = None

    # -- where things are (nanobot 0.1.5's attribute names) ----------------------------------------
    @property
    def memory_dir(self: _Host) -> Path:
        """``memory/`` (created if missing, as nanobot's property does)."""
        return _ensure_memory_dir(self.workspace)

    @property
    def memory_file(self: _Host) -> Path:
        """``memory/MEMORY.md``'s path."""
        return self.workspace.root / MEMORY

    @property
    def soul_file(self: _Host) -> Path:
        """``SOUL.md``'s path."""
        return self.workspace.root / SOUL

    @property
    def user_file(self: _Host) -> Path:
        """``USER.md``'s path."""
        return self.workspace.root / USER

    @property
    def history_file(self: _Host) -> Path:
        """``memory/history.jsonl``'s path (``memory/`` created if missing)."""
        _ensure_memory_dir(self.workspace)
        return self.workspace.history_path

    @property
    def cursor_file(self: _Host) -> Path:
        """``memory/.cursor``'s path, the last cursor issued (a hint; ``memory/`` created if
        missing)."""
        _ensure_memory_dir(self.workspace)
        return self.workspace.cursor_path

    @property
    def dream_cursor_file(self: _Host) -> Path:
        """``memory/.dream_cursor``'s path, the last cursor Dream consumed (``memory/`` created if
        missing)."""
        _ensure_memory_dir(self.workspace)
        return self.workspace.dream_cursor_path

    @property
    def legacy_history_file(self: _Host) -> Path:
        """``memory/HISTORY.md``'s path, nanobot's legacy log (migrated to history.jsonl on
        open)."""
        return self.workspace.legacy_history_path

    def read_file(self: _Host, path: str | os.PathLike[str]) -> str:
        """A workspace file's text, ``""`` when it does not exist (invalid UTF-8 read with U+FFFD).

        nanobot's ``read_file`` is the helper its store reads its own files with (``memory_file``,
        ``soul_file``, ``user_file``); here it reads nothing else: ``path`` is one of the store's
        paths or relative to the workspace, and one that leads out of it (``..``, an absolute path
        elsewhere, a symlink out) is refused with ``UnsafePathError`` (``Workspace.resolve``)."""
        return self.workspace.read(_inside(self.workspace, path))

    # -- aliases (nanobot 0.1.5's names for 0.1.4's) -----------------------------------------------
    def read_memory(self: _Host) -> str:
        """MEMORY.md's text (nanobot 0.1.5's name for ``read_long_term``)."""
        return self.read_long_term()

    def write_memory(self: _Host, content: str) -> None:
        """Replace MEMORY.md's text (nanobot 0.1.5's name for ``write_long_term``)."""
        self.write_long_term(content)

    def get_last_dream_cursor(self: _Host) -> int:
        """The last history cursor Dream consumed (nanobot's name for ``dream_cursor``)."""
        return self.dream_cursor()

    def set_last_dream_cursor(self: _Host, value: int) -> None:
        """Record the last history cursor Dream consumed (nanobot's name for
        ``set_dream_cursor``)."""
        self.set_dream_cursor(value)

    # -- the calls that reach into the pipeline ----------------------------------------------------
    @property
    def git(self: _Host) -> GitStore:
        """The workspace's memory repo (created or adopted on its first write, not here). One per
        store."""
        if self._git is None:
            from ..gitstore import GitStore

            self._git = GitStore(self.workspace, self.config.git)
        return self._git

    def raw_archive(
        self: _Host,
        messages: list[dict[str, Any]],
        session_key: str | None = None,
        *,
        max_chars: int | None = None,
    ) -> list[int]:
        """Put messages into history without a model (the fallback when summarising fails):
        ``[RAW] N messages`` and one transcript line per message, split into entries of at most
        ``max_chars`` (default 16,000) so nothing is cut. Returns the cursors written."""
        from ..llm.transcript import raw_entries

        limit = max_chars if max_chars is not None else RAW_ARCHIVE_MAX_CHARS
        entries = raw_entries(messages, fallback_stamp=format_timestamp(), limit=limit)
        cursors = [self.history.append(text, session_key) for text in entries]
        if cursors:
            log.warning("%d messages went into history raw (no summary)", len(messages))
        return cursors

    async def consolidate(
        self,
        session: Any,
        provider: ModelClient | str,
        model: str | None = None,
        *,
        archive_all: bool = False,
        memory_window: int = 50,
    ) -> bool:
        """nanobot's older consolidation (``reverie.consolidator.seed``): consolidate old messages
        with one forced ``save_memory`` model call; False (nothing touched) on failure.

        ``session``: nanobot's or Reverie's (its ``messages``, ``key`` and ``last_consolidated`` are
        read, the last one moved on success); ``provider``: a model name or a ``ModelClient``.
        """
        from ..consolidator.seed import consolidate

        store: WorkspaceStore = self  # type: ignore[assignment]  # mixed into MemoryStore only
        return await consolidate(
            store, session, provider, model, archive_all=archive_all, memory_window=memory_window
        )
