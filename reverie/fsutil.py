"""Durable file primitives: the only place that decides how bytes reach the disk.

``atomic_write`` is the crash-safe replace used for every whole-file write (memory files, cursors, session
metadata, compaction): a temp file in the same directory, fsync, rename over the target, fsync of the
directory. A crash at any instant leaves the old or the new content, never a mix or an empty file.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["atomic_write", "fsync_dir", "read_text_lossy", "decode_lossy"]

_warned_paths: set[str] = set()


def fsync_dir(directory: Path) -> None:
    """Make a rename or create in ``directory`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes | str, *, fsync: bool = True, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically.

    With ``fsync=False`` the replace is still atomic for readers (rename), but a power loss may roll it back;
    use that only for hints that can be recovered from elsewhere (``.cursor``).
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if fsync:
        fsync_dir(path.parent)


def decode_lossy(raw: bytes, *, origin: str) -> str:
    """Decode UTF-8, replacing invalid bytes; warn once per origin so a hand-edited file never crashes a reader."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if origin not in _warned_paths:
            _warned_paths.add(origin)
            log.warning("%s is not valid UTF-8 (byte %d); invalid bytes read as U+FFFD", origin, exc.start)
        return raw.decode("utf-8", errors="replace")


def read_text_lossy(path: Path) -> str:
    """The text of ``path``, or ``""`` when it does not exist."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return ""
    return decode_lossy(raw, origin=str(path))
