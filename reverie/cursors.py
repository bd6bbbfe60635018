"""Cursor files (``memory/.cursor``, ``memory/.dream_cursor``): the format's one definition.

Format: a bare non-negative decimal integer, optionally surrounded by white space (nanobot writes it without a
newline; Reverie writes ``"<n>\\n"``). A missing file reads as ``None``. Anything else is corrupt and raises
``CursorError`` — never silently 0, because a Dream cursor of 0 replays all history.
"""

from __future__ import annotations

from pathlib import Path

from .errors import CursorError
from .fsutil import atomic_write

__all__ = ["read_cursor", "write_cursor", "parse_cursor"]


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
