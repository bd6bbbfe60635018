"""Cursor files (``memory/.cursor``, ``memory/.dream_cursor``): the format's one definition.

Format: a bare non-negative decimal integer no larger than ``MAX_CURSOR`` (2^63 - 1, what SQLite and every
int64 reader hold), optionally surrounded by white space (nanobot writes it without a newline; Reverie writes
``"<n>\\n"``). A missing file reads as ``None``. Anything else is corrupt and raises ``CursorError`` — never
silently 0, because a Dream cursor of 0 replays all history. Writers refuse a value past ``MAX_CURSOR``, so
whatever is written reads back.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import CursorError
from .fsutil import atomic_write, open_for_write

__all__ = ["MAX_CURSOR", "read_cursor", "write_cursor", "write_cursor_hint", "parse_cursor", "check_cursor"]

#: The largest cursor Reverie writes or reads back (int64; a history line past it is not a valid entry).
MAX_CURSOR = 2**63 - 1
_MAX_DIGITS = len(str(MAX_CURSOR))


def check_cursor(value: int) -> int:
    """``value`` if it is a cursor that can be written and read back; ``ValueError`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_CURSOR:
        raise ValueError(f"a cursor is an int from 0 to {MAX_CURSOR}, not {value!r}")
    return value


def parse_cursor(raw: bytes, *, origin: str = "cursor") -> int:
    text = raw.strip()
    if not text or not text.isdigit() or len(text) > _MAX_DIGITS or int(text) > MAX_CURSOR:
        preview = raw[:40]
        raise CursorError(
            f"{origin} is corrupt (holds {preview!r}); expected a bare integer from 0 to {MAX_CURSOR}"
        )
    return int(text)


def read_cursor(path: Path) -> int | None:
    """The integer in ``path``; ``None`` when the file does not exist; ``CursorError`` when it is corrupt."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CursorError(f"{path} cannot be read: {exc.strerror}") from exc
    return parse_cursor(raw, origin=str(path))


def write_cursor(path: Path, value: int, *, fsync: bool = True) -> None:
    """Atomically replace the cursor file (temp file, fsync, rename)."""
    check_cursor(value)
    atomic_write(Path(path), f"{value}\n", fsync=fsync)


def write_cursor_hint(path: Path, value: int) -> None:
    """Update a cursor that is only a hint (``.cursor``) in place: one small ``pwrite``, no rename, no fsync.

    For the per-append ``.cursor`` update, where an atomic replace costs a rename (~1 ms here, ext4 flushes
    data on rename-over) per entry. The value only grows, so the new text covers the old; a longer old text
    (corrupt) is truncated after. A crash can at worst leave a stale or unreadable hint, which readers ignore
    in favour of the log's tail. Never use this for ``.dream_cursor``.
    """
    check_cursor(value)
    data = f"{value}\n".encode()
    fd = open_for_write(path, os.O_RDWR | os.O_CREAT)
    try:
        old_size = os.fstat(fd).st_size
        os.pwrite(fd, data, 0)
        if old_size > len(data):
            os.ftruncate(fd, len(data))
    finally:
        os.close(fd)
