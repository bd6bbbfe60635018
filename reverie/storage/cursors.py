"""Cursor files (``memory/.cursor``, ``memory/.dream_cursor``): the format's one definition.

Format: a bare non-negative decimal integer no larger than ``MAX_CURSOR`` (2^63 - 1, what SQLite and
every int64 reader hold), optionally surrounded by white space (nanobot writes it without a newline;
Reverie writes ``"<n>\\n"``). A missing file reads as ``None``, and so does an empty one: nanobot
0.3.5's ``GitStore.init`` creates its tracked files empty, ``memory/.dream_cursor`` among them,
before any Dream ran (nanobot reads it as 0). Anything else is corrupt and raises ``CursorError`` —
never silently 0, because a Dream cursor of 0 replays all history. Writers refuse a value past
``MAX_CURSOR``, so whatever is written reads back.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import CursorError
from .fsutil import atomic_write, open_regular

__all__ = [
    "MAX_CURSOR",
    "read_cursor",
    "write_cursor",
    "write_cursor_hint",
    "parse_cursor",
    "check_cursor",
    "read_cursor_record",
    "write_cursor_record",
]

#: The largest cursor Reverie writes or reads back (int64; a history line past it is not a valid
#: entry).
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
            f"{origin} is corrupt (holds {preview!r}); "
            f"expected a bare integer from 0 to {MAX_CURSOR}"
        )
    return int(text)


def read_cursor(path: Path) -> int | None:
    """The integer in ``path``; ``None`` when the file does not exist or is empty (not written yet,
    see above); ``CursorError`` when it is corrupt."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CursorError(f"{path} cannot be read: {exc.strerror}") from exc
    if not raw:
        return None
    return parse_cursor(raw, origin=str(path))


def write_cursor(path: Path, value: int, *, fsync: bool = True) -> None:
    """Atomically replace the cursor file (temp file, fsync, rename)."""
    check_cursor(value)
    atomic_write(Path(path), f"{value}\n", fsync=fsync)


def write_cursor_hint(path: Path, value: int) -> None:
    """Update a cursor that is only a hint (``.cursor``) in place: one small ``pwrite``, no rename,
    no fsync.

    For the per-append ``.cursor`` update, where an atomic replace costs a rename (~1 ms here, ext4
    flushes data on rename-over) per entry. The value only grows, so the new text covers the old; a
    longer old text (corrupt) is truncated after. A crash can at worst leave a stale or unreadable
    hint, which readers ignore in favour of the log's tail. Never use this for ``.dream_cursor``.
    """
    check_cursor(value)
    data = f"{value}\n".encode()
    fd = open_regular(path, os.O_RDWR | os.O_CREAT)
    try:
        old_size = os.fstat(fd).st_size
        os.pwrite(fd, data, 0)
        if old_size > len(data):
            os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


#: Where every Dream-cursor move Reverie makes is recorded (in ``Workspace.state_dir``), so a
#: ``.dream_cursor`` corrupted later is restored to the value Reverie last wrote, not guessed from
#: git (runs that changed nothing move the cursor without a commit). Format: ``{"cursor": <n>}``.
DREAM_CURSOR_RECORD = "dream-cursor.json"


def write_cursor_record(state_dir: Path, value: int) -> None:
    """Record a Dream-cursor move (after the cursor file itself is written; atomic, fsynced)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a cursor is a non-negative int, not {value!r}")
    Path(state_dir).mkdir(parents=True, exist_ok=True)
    atomic_write(Path(state_dir) / DREAM_CURSOR_RECORD, f'{{"cursor": {value}}}\n')


def read_cursor_record(state_dir: Path) -> int | None:
    """The recorded Dream cursor; None when there is no record or it cannot be trusted (unreadable,
    corrupt)."""
    try:
        data = json.loads((Path(state_dir) / DREAM_CURSOR_RECORD).read_bytes())
    except (OSError, ValueError):
        return None
    value = data.get("cursor") if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
