"""Cursor files (``memory/.cursor``, ``memory/.dream_cursor``): the format's one definition.

Format: a bare non-negative decimal integer, optionally surrounded by white space (nanobot writes it without a
newline; Reverie writes ``"<n>\\n"``). A missing file reads as ``None``. Anything else is corrupt and raises
``CursorError`` — never silently 0, because a Dream cursor of 0 replays all history.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import CursorError
from .fsutil import atomic_write

__all__ = ["read_cursor", "write_cursor", "write_cursor_hint", "parse_cursor"]


def parse_cursor(raw: bytes, *, origin: str = "cursor") -> int:
    text = raw.strip()
    if not text or not text.isdigit() or len(text) > 18:
        preview = raw[:40]
        raise CursorError(f"{origin} is corrupt (holds {preview!r}); expected a bare non-negative integer")
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
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a cursor is a non-negative int, not {value!r}")
    atomic_write(Path(path), f"{value}\n", fsync=fsync)


def write_cursor_hint(path: Path, value: int) -> None:
    """Update a cursor that is only a hint (``.cursor``) in place: one small ``pwrite``, no rename, no fsync.

    For the per-append ``.cursor`` update, where an atomic replace costs a rename (~1 ms here, ext4 flushes
    data on rename-over) per entry. The value only grows, so the new text covers the old; a longer old text
    (corrupt) is truncated after. A crash can at worst leave a stale or unreadable hint, which readers ignore
    in favour of the log's tail. Never use this for ``.dream_cursor``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a cursor is a non-negative int, not {value!r}")
    data = f"{value}\n".encode()
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        old_size = os.fstat(fd).st_size
        os.pwrite(fd, data, 0)
        if old_size > len(data):
            os.ftruncate(fd, len(data))
    finally:
        os.close(fd)
