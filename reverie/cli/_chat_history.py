"""The chat prompt's input history, persisted per workspace in ``memory/.reverie/chat-input.jsonl``.

Format (this module is its only reader and writer): one JSON string per line, oldest first, UTF-8.
It lives in the state directory (git-ignored, never a memory file): it is a convenience for the Up
arrow, not memory. Each line is stored with credentials redacted (``security.secrets.redact``, as
history.jsonl does); within the running chat the Up arrow still recalls the line as typed. Appends
are single ``O_APPEND`` writes of one line, under ``chat-input.jsonl.lock``
(``reverie.storage.locking``) shared with the rewrite; a torn last line (a crash mid-append) is
ended with a newline before the next append and skipped when read, as is any line that is not a JSON
string. When the file passes ``MAX_BYTES`` it is cut back (atomic rewrite) to its newest lines: at
most ``KEEP``, at most half ``MAX_BYTES``. Failures to read or write it are warnings: the chat goes
on without persisted history.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

import orjson
from prompt_toolkit.history import History

from ..errors import ReverieError
from ..security.secrets import redact
from ..storage.fsutil import atomic_write, write_all
from ..storage.locking import Lock, lock_path

log = logging.getLogger(__name__)

__all__ = ["ChatInputHistory", "KEEP", "history_path"]

#: Lines loaded and kept by a rewrite: the newest.
KEEP = 1_000
#: Size past which the file is rewritten with its newest lines only.
MAX_BYTES = 1 << 20
_MAX_LINE_CHARS = 16_000  # a pasted document is not worth recalling with the Up arrow
# another chat holds the lock for one append; past this, skip the line (the chat goes on)
_LOCK_SECONDS = 2.0


def history_path(state_dir: Path) -> Path:
    return state_dir / "chat-input.jsonl"


def _parse(raw: bytes) -> str | None:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


class ChatInputHistory(History):
    """prompt_toolkit ``History`` over the file described in the module docstring."""

    def __init__(self, path: Path, keep: int = KEEP, max_bytes: int = MAX_BYTES) -> None:
        super().__init__()
        self.path = path
        self.keep = keep
        self.max_bytes = max_bytes

    def _open(self, flags: int) -> int:
        return os.open(self.path, flags | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)

    def _lines(self) -> list[str]:
        """Every valid entry, oldest first."""
        try:
            fd = self._open(os.O_RDONLY)
        except FileNotFoundError:
            return []
        try:
            with os.fdopen(fd, "rb") as f:
                raw = f.read()
        except OSError as exc:
            log.warning(
                "chat input history %s cannot be read (%s); starting without it", self.path, exc
            )
            return []
        return [s for s in map(_parse, raw.splitlines()) if s is not None]

    def load_history_strings(self) -> Iterable[str]:
        try:
            lines = self._lines()
        except OSError as exc:
            log.warning(
                "chat input history %s cannot be read (%s); starting without it", self.path, exc
            )
            return []
        return list(reversed(lines[-self.keep :]))

    def store_string(self, string: str) -> None:
        if not string.strip() or len(string) > _MAX_LINE_CHARS:
            return
        try:
            line = orjson.dumps(redact(string)) + b"\n"
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with Lock(lock_path(self.path), timeout=_LOCK_SECONDS):
                fd = self._open(os.O_RDWR | os.O_APPEND | os.O_CREAT)
                try:
                    size = os.fstat(fd).st_size
                    if size and os.pread(fd, 1, size - 1) != b"\n":
                        line = b"\n" + line  # end a torn last line; it is skipped when read
                    write_all(fd, line)
                finally:
                    os.close(fd)
                if size + len(line) > self.max_bytes:
                    self._compact()
        except orjson.JSONEncodeError:  # lone surrogates from a terminal: not worth recalling
            return
        except (OSError, ReverieError) as exc:
            log.warning("chat input history %s cannot be written (%s)", self.path, exc)

    def _compact(self) -> None:
        """Rewrite with the newest lines (the caller holds the lock; every writer opens the file
        under it, so no append lands in the file being replaced)."""
        kept: list[bytes] = []
        size = 0
        for entry in reversed(self._lines()[-self.keep :]):
            line = orjson.dumps(entry) + b"\n"
            if size + len(line) > self.max_bytes // 2:
                break
            kept.append(line)
            size += len(line)
        atomic_write(self.path, b"".join(reversed(kept)), mode=0o600)
