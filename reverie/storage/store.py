"""``WorkspaceStore``: the lowest layer's view of one workspace's memory — the memory files, the
history log and both cursors — under Reverie's own names (the pipeline and the operations take one).

It owns no format itself (see ``workspace``, ``history``, ``cursors``) and adds only the policies
that tie them together: legacy migration on open and the Dream cursor's record.
``reverie.MemoryStore`` is this class with nanobot's MemoryStore names added
(``reverie.compat.nanobot_api``), the one a nanobot agent uses.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CursorError
from .configdata import ConfigView, defaults_if_unset
from .cursors import read_cursor, read_cursor_record, write_cursor, write_cursor_record
from .history import TRUNCATION_MARKER, HistoryEntry, HistoryLog, strip_think
from .scopes import due_hook
from .workspace import MEMORY, SOUL, USER, Workspace

if TYPE_CHECKING:
    from .config import Config

log = logging.getLogger(__name__)

__all__ = ["WorkspaceStore"]


class WorkspaceStore:
    """The memory of one workspace: durable files, the history log and both cursors."""

    def __init__(
        self,
        workspace: Workspace | str | os.PathLike[str] | None = None,
        max_history_entries: int | None = None,
        *,
        config: Config | Callable[[], Config] | None = None,
        migrate: bool = True,
    ) -> None:
        """``max_history_entries`` (nanobot's argument) overrides ``memory.history.retention`` for
        ``compact_history``. ``config``: the config, or a function giving it on first use (a
        ``Runtime``'s, so both share one); by default it is loaded from the workspace when first
        needed. ``migrate=False`` (a query, such as ``status``) leaves a legacy ``HISTORY.md``
        where it is: the first store opened to write migrates it."""
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.workspace.check()  # a file where the workspace should be: a clear WorkspaceError
        # memory/, sessions/ or history.jsonl symlinked out: refuse, never write through
        self.workspace.check_layout()
        self._config = config
        hist = self.settings.memory.history
        self.history = HistoryLog(
            self.workspace.history_path,
            self.workspace.cursor_path,
            self.workspace.dream_cursor_path,
            fsync=hist.fsync,
            max_entry_chars=hist.max_entry_chars,
            redact=_redact,
            on_append=due_hook(self.workspace),
        )
        self._retention = max_history_entries
        if migrate and self.workspace.legacy_history_path.is_file():
            from .migrate import migrate_legacy_history  # only a legacy workspace imports it

            migrate_legacy_history(self.workspace, self.history)

    @cached_property
    def config(self) -> Config:
        """The validated config (loaded on first use)."""
        given = self._config
        if given is None:
            from .config import load_config

            return load_config(self.workspace.root)
        return given() if callable(given) else given

    @property
    def settings(self) -> Config | ConfigView:
        """The config for reading a few values: the validated one when it is loaded or was given;
        else, when no file and no variable sets a key, the models' defaults as plain data, with no
        pydantic import (`reverie status`); else the validated one."""
        if "config" in self.__dict__ or (self._config is not None and not callable(self._config)):
            return self.config
        return defaults_if_unset(self.workspace.root) or self.config

    @property
    def root(self) -> Path:
        """The workspace's directory."""
        return self.workspace.root

    # -- durable files -------------------------------------------------------------
    def read_long_term(self) -> str:
        """``memory/MEMORY.md``'s text (``""`` when missing)."""
        return self.workspace.read(MEMORY)

    def write_long_term(self, content: str) -> None:
        """Replace ``memory/MEMORY.md``'s text atomically (not committed: ``reverie log`` shows it
        as a person's edit when the next commit finds it)."""
        self.workspace.write(MEMORY, content)

    def read_soul(self) -> str:
        """``SOUL.md``'s text (``""`` when missing)."""
        return self.workspace.read(SOUL)

    def write_soul(self, content: str) -> None:
        """Replace ``SOUL.md``'s text atomically (as ``write_long_term``)."""
        self.workspace.write(SOUL, content)

    def read_user(self) -> str:
        """``USER.md``'s text (``""`` when missing)."""
        return self.workspace.read(USER)

    def write_user(self, content: str) -> None:
        """Replace ``USER.md``'s text atomically (as ``write_long_term``)."""
        self.workspace.write(USER, content)

    def get_memory_context(self) -> str:
        """MEMORY.md as a prompt block, or ``""`` when it is empty."""
        content = self.read_long_term()
        return f"## Long-term Memory\n{content}" if content.strip() else ""

    # -- history -----------------------------------------------------------------------------------
    def append_history(
        self, entry: str, session_key: str | None = None, *, max_chars: int | None = None
    ) -> int:
        """Append an entry to history.jsonl and return its cursor.

        The content is cleaned first (model reasoning dropped, secrets redacted:
        ``HistoryLog.prepare_content``); ``max_chars`` caps it tighter than
        ``memory.history.max_entry_chars``, with a truncation marker.
        """
        # ≤ 0: no cap, as in nanobot
        if max_chars is not None and max_chars > 0 and isinstance(entry, str):
            entry = strip_think(entry)
            if len(entry) > max_chars:
                entry = entry[:max_chars] + TRUNCATION_MARKER.format(n=len(entry) - max_chars)
        return self.history.append(entry, session_key)

    def read_unprocessed_history(self, since_cursor: int | None = None) -> list[HistoryEntry]:
        """Entries Dream has not consumed (past ``since_cursor``, default the Dream cursor)."""
        return self.history.read_since(
            self.dream_cursor() if since_cursor is None else since_cursor
        )

    def last_cursor(self) -> int:
        """The largest cursor history has issued (0 when it is empty)."""
        return self.history.last_cursor()

    # -- the Dream cursor --------------------------------------------------------------------------
    def dream_cursor(self) -> int:
        """The last cursor Dream consumed; 0 when none. Reads only. A corrupt file is never read as
        0: the value Reverie last wrote (its record, ``cursors.DREAM_CURSOR_RECORD``) is returned
        with a warning — the next Dream run writes it back (``settle_dream_cursor``) — or, with no
        record, ``CursorError`` says how to fix it. An empty file is nanobot 0.3.5's fresh workspace
        (0) unless Reverie recorded a move: then its write was torn."""
        path = self.workspace.dream_cursor_path
        try:
            value = read_cursor(path)
        except CursorError as exc:
            recorded = read_cursor_record(self.workspace.state_dir)
            if recorded is None:
                raise CursorError(
                    f"{exc}. Dream would replay all history if it read this as 0. "
                    "Fix it by writing the last processed cursor into it, e.g. "
                    f"`echo {self.last_cursor()} > {path}` to skip the backlog."
                ) from None
            log.warning("%s; using %d, the value Reverie last wrote there", exc, recorded)
            return recorded
        # empty: nanobot's not-yet-written file, or its own write torn
        if value is None and path.exists():
            recorded = read_cursor_record(self.workspace.state_dir)
            if recorded is not None:  # Reverie moved it before: a torn write, not a fresh workspace
                log.warning(
                    "%s is empty; using %d, the value Reverie last wrote there", path, recorded
                )
                return recorded
        return value or 0

    def set_dream_cursor(self, value: int) -> None:
        """Move the Dream cursor: the file, then its record (see ``dream_cursor``)."""
        write_cursor(self.workspace.dream_cursor_path, value)
        write_cursor_record(self.workspace.state_dir, value)

    def settle_dream_cursor(self) -> int:
        """Make the cursor file and its record agree; returns the cursor. Only under Dream's run
        lock: a corrupt file gets the recorded value back, and a value another tool wrote (nanobot,
        a person) becomes the record."""
        value = self.dream_cursor()
        try:
            on_disk = read_cursor(self.workspace.dream_cursor_path)
        except CursorError:
            on_disk = None
        if on_disk is None and not self.workspace.dream_cursor_path.exists() and value == 0:
            return 0  # nothing dreamed yet: nothing to record
        if on_disk != value or read_cursor_record(self.workspace.state_dir) != value:
            self.set_dream_cursor(value)
        return value

    def compact_history(self, keep_last: int | None = None) -> int:
        """Drop the oldest already-dreamed entries past the retention (``memory.history.retention``,
        None keeps all); returns how many were dropped. Entries Dream has not consumed are always
        kept."""
        if keep_last is None:
            keep = (
                self._retention
                if self._retention is not None
                else self.config.memory.history.retention
            )
        else:
            keep = keep_last
        if keep is None:
            return 0
        # a corrupt Dream cursor is recovered or reported before anything is dropped
        self.dream_cursor()
        return self.history.compact(keep)

    def pending_count(self) -> int:
        """How many history entries Dream has not consumed yet."""
        return self.history.count_since(self.dream_cursor())


def _redact(text: str) -> str:
    """Every history entry is redacted before it is written (see ``reverie.security.secrets``).

    The scanner is imported by the first append, not with the store: compiling its patterns costs 7
    ms that read-only commands (``reverie status``) should not pay.
    """
    from ..security.secrets import redact

    return redact(text)
