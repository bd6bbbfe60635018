"""``memory/history.jsonl``: the append-only, cursor-stamped archive. This docstring is the format's
spec.

One JSON object per line, UTF-8, ``\\n``-terminated::

    {"cursor": 42, "timestamp": "2026-11-22 14:05", "content": "- [durable] ...",
     "session_key": "cli:alice"}

- ``cursor``: int from 1 to ``MAX_CURSOR`` (2^63 - 1; not a bool), strictly increasing in file
  order, never reused. A line with a larger cursor is not an entry; an append that would need one is
  refused.
- ``timestamp``: local time ``YYYY-MM-DD HH:MM``. ``content``: str. ``session_key``: optional str.
  Both text fields go through the same secret redaction before they are written (a key such as
  ``--session ghp_…``).
- Any other keys are allowed; readers ignore keys they do not know (nanobot's readers too).

Durability and recovery:

- An append writes the whole line (``append_many``: all its lines) in one ``write`` on an
  ``O_APPEND`` descriptor under a cross-process lock (an ``flock`` on ``history.jsonl.lock``) and
  fdatasyncs by default. The next cursor is one more than the largest of: every cursor in the log
  (not only the last line's: a writer that takes no lock, like nanobot, can leave ``100`` then
  ``5``), the ``.cursor`` hint and the Dream cursor. So a stale, missing or corrupt ``.cursor`` or
  an out-of-order log never causes a reused cursor. The scan reads every ``"cursor": <n>`` key in
  the file (at most 18 digits), so a line readers skip can only make the next cursor larger, never
  smaller. Only the bytes appended since the last scan are read: this instance's, or the checkpoint
  in ``history.jsonl.maxcursor`` (``inode offset max digest-of-the-bytes-before-offset late-offsets
  digest-of-the-line``, a hint rewritten after each 64 KiB scanned and whenever a late line is
  found), trusted only while the file's inode and those bytes are unchanged. The scan also notes the
  late lines (a cursor key not above every one before it): ``read_since`` bisects the others and
  steps over those. ``.cursor`` is updated in place without fsync: it is a hint.
- A crash mid-append can leave a torn tail (a last line without ``\\n``). The next append repairs it
  first: a complete JSON object just gets its newline; anything else moves to ``history.jsonl.torn``
  (with a warning), so the next entry is never glued onto garbage.
- Compaction rewrites the file atomically (temp, fsync, rename) under the same lock as appends,
  after making the ``.cursor`` hint durable so cursors stay unique even if every entry is dropped.

Entries a writer without the lock appended late (a stale ``.cursor``: ``100`` then ``5``) are never
lost to Dream, whose cursor means "consumed every cursor up to here": ``read_pending`` (Dream's
read) first re-appends, under the lock, each entry past the point of Dream's previous read with a
cursor at or below the Dream cursor, as a new entry with a fresh cursor and the key
``"requeued_from": <old cursor>`` (unknown keys are nanobot's too: its own Dream sees the copy). The
point of that read is kept in ``.reverie/history.jsonl.dreamed`` (``inode offset digest``, like the
checkpoint). Without a trusted one (first run, a log another tool rewrote), every out-of-order entry
at or below the Dream cursor not yet requeued is requeued: one may be dreamed twice, none is lost.

Readers take no lock. A bad line (not JSON, invalid UTF-8, not an object, wrong field types, a bool
or non-positive cursor, longer than 16 MiB) is skipped with one warning per kind per read, and only
the first time a process meets that line in that file (``_BadLineReport``); the lines around it are
unaffected. Readers are linear in the bytes they cross and never hold more than 16 MiB of one line
(``reverie.storage.appendlog``); the next cursor still counts a too-long last line's leading
``"cursor"``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from operator import lt
from pathlib import Path
from typing import Any, TypeVar

import orjson

from ..errors import CursorError, HistoryError
from ..text.safety import unusable_key
from ..text.utf8 import without_bom
from .appendlog import (
    MAX_LINE_BYTES,
    append_whole,
    datasync,
    iter_lines,
    iter_lines_backward,
    next_line_start,
    read_line,
    repair_torn_tail,
    write_all,
)
from .cursors import MAX_CURSOR, read_cursor, write_cursor, write_cursor_hint
from .fsutil import atomic_write, open_regular, remove_stale_temps
from .locking import Lock, lock_path

log = logging.getLogger(__name__)

__all__ = [
    "HistoryEntry",
    "HistoryLog",
    "format_timestamp",
    "strip_think",
    "DEFAULT_MAX_ENTRY_CHARS",
    "TRUNCATION_MARKER",
    "REQUEUED_FROM",
    "repair_torn_tail",
    "write_all",
]

DEFAULT_MAX_ENTRY_CHARS = 64_000
TRUNCATION_MARKER = "\n…[truncated {n} characters]"
_T = TypeVar("_T")
_TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M"
_SCAN_CHUNK = 1 << 20  # the cursor-key scan reads the log in 1 MiB blocks
_LINEAR_SCAN_BYTES = 8 * 1024  # below this gap, stop bisecting and scan forward
#: (inode, bytes scanned, largest cursor in them, digest of the bytes before that offset, the
#: offsets of the late ``"cursor"`` keys in them): what a scan of the log found. A key is late when
#: its value is not above every cursor key before it (nanobot's ``100`` then ``5``); every other
#: line's cursor is above all before it, so ``read_since`` bisects those and steps over the late
#: ones (see ``_bisect_start``).
_ScanState = tuple[int, int, int, bytes, tuple[int, ...]]
_KNOWN_KEYS = frozenset({"cursor", "timestamp", "content", "session_key"})
#: The key a re-appended late entry carries: the cursor of the line it copies.
REQUEUED_FROM = "requeued_from"
_LEADING_CURSOR = re.compile(rb'\s*\{\s*"cursor"\s*:\s*(\d{1,19})\s*[,}]')
# A "cursor" key and its integer value. Inside a JSON string every quote is escaped, so ``"cursor"``
# followed by a colon is always a key (quoted text, "the \"cursor\": 9 field", never matches); a
# nested or invalid line can only raise the maximum.
_CURSOR_KEY = re.compile(rb'"cursor"\s*:\s*(\d{1,19})(?![\d.eE])')


# Model reasoning is never archived (nanobot 0.1.5 strips it the same way before persisting): whole
# blocks; a block opened at the very start and never closed; a tag missing its ">" ("<think广场");
# orphan closing tags and harmony channel markers only at the edges, so prose that mentions the tags
# mid-text keeps them.
#: A reasoning block's opening tag (the closed blocks go first: `_closed_blocks`).
_OPEN = re.compile(r"<(think|thought)>")
_THINK_RULES = [
    re.compile(r"\A\s*<(?:think|thought)>.*\Z", re.S),
    re.compile(r"<(?:think|thought)(?![A-Za-z0-9_:>/-])"),
    # ``(?<!\s)``: the trailing tag's match starts only where a run of white space starts, else
    # every position of a long run re-scans the rest of it (quadratic)
    re.compile(r"\A\s*</(?:think|thought)>\s*|(?<!\s)\s*</(?:think|thought)>\s*\Z"),
    re.compile(r"\A\s*<\|?channel\|?>\s*"),
]
_THINK_HINT = re.compile(r"<\|?(?:/?think|/?thought|channel)")


def _closed_blocks(text: str) -> str:
    """``text`` without its closed ``<think>…</think>`` / ``<thought>…</thought>`` blocks, each
    opening to the first closing of its kind. An opening with no closing after it is skipped without
    reading on (a regex would read to the end once per such opening: quadratic)."""
    last = {tag: text.rfind(f"</{tag}>") for tag in ("think", "thought")}
    kept, pos = [], 0
    found = _OPEN.search(text)
    while found:
        tag = found.group(1)
        if last[tag] < found.end():
            found = _OPEN.search(text, found.start() + 1)
            continue
        kept.append(text[pos : found.start()])
        pos = text.find(f"</{tag}>", found.end()) + len(tag) + 3
        found = _OPEN.search(text, pos)
    kept.append(text[pos:])
    return "".join(kept)


def strip_think(text: str) -> str:
    """``text`` without a model's reasoning blocks and template leaks (stripped of outer white space
    when any was removed); text without them is returned unchanged."""
    if not _THINK_HINT.search(text):
        return text
    text = _closed_blocks(text)
    for rule in _THINK_RULES:
        text = rule.sub("", text)
    return text.strip()


def format_timestamp(when: datetime | None = None) -> str:
    """The history timestamp format, in local time."""
    return (when or datetime.now()).strftime(_TIMESTAMP_FORMAT)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One archived history record."""

    cursor: int
    timestamp: str
    content: str
    session_key: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    # -- read like the dicts nanobot's MemoryStore returns --------------------------------------
    # (entry["cursor"], entry.get("session_key"))
    def to_dict(self) -> dict[str, Any]:
        """The entry as its JSON object (``session_key`` only when set, unknown keys kept)."""
        obj: dict[str, Any] = {
            "cursor": self.cursor,
            "timestamp": self.timestamp,
            "content": self.content,
        }
        if self.session_key is not None:
            obj["session_key"] = self.session_key
        for key, value in self.extra.items():
            if key not in _KNOWN_KEYS:
                obj[key] = value
        return obj

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        """The entry's field ``key`` as nanobot's dict has it, or ``default``."""
        return self.to_dict().get(key, default)

    def keys(self) -> list[str]:
        """The entry's field names, as its JSON object has them."""
        return list(self.to_dict())

    def __contains__(self, key: object) -> bool:
        return key in self.to_dict()

    def to_json(self) -> bytes:
        """The entry as one ``\\n``-terminated line."""
        return orjson.dumps(self.to_dict()) + b"\n"

    def digest(self) -> str:
        """16 hex digits naming this entry (cursor, timestamp, content, session key): a record that
        names the entry Dream last consumed (``reverie.dream.transaction``) tells the same log from
        an older copy of it whose cursors ran on to other entries."""
        fields = [self.cursor, self.timestamp, self.content, self.session_key]
        return hashlib.sha256(orjson.dumps(fields)).hexdigest()[:16]

    @classmethod
    def from_json(cls, raw: bytes) -> HistoryEntry:
        """Parse one line (without or with its newline); raises ``BadLine`` naming what is wrong."""
        obj, cursor, timestamp, content, session_key = _fields(raw)
        extra = {k: v for k, v in obj.items() if k not in _KNOWN_KEYS}
        return cls(cursor, timestamp, content, session_key, extra)


def _fields(raw: bytes) -> tuple[dict[str, Any], int, str, str, str | None]:
    """One line's object and its checked fields (``HistoryEntry.from_json``, and the counts that
    need only the cursor: ``cursor_of``); raises ``BadLine`` naming what is wrong. A UTF-8 byte
    order mark before it is not part of it: an editor that saves the log as "UTF-8 with BOM" puts
    one before the first line, which was skipped as not JSON (its entry never dreamed)."""
    raw = without_bom(raw)
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BadLine("invalid UTF-8") from None
        raise BadLine("not JSON") from None
    if not isinstance(obj, dict):
        raise BadLine("not an object")
    cursor = obj.get("cursor")
    if isinstance(cursor, bool) or not isinstance(cursor, int) or not 1 <= cursor <= MAX_CURSOR:
        raise BadLine("bad cursor")
    timestamp, content, session_key = (
        obj.get("timestamp"),
        obj.get("content"),
        obj.get("session_key"),
    )
    if not isinstance(timestamp, str) or not isinstance(content, str):
        raise BadLine("wrong field types")
    if session_key is not None and not isinstance(session_key, str):
        raise BadLine("wrong field types")
    return obj, cursor, timestamp, content, session_key


def cursor_of(raw: bytes) -> int:
    """The cursor of a valid entry's line; raises ``BadLine`` exactly when ``from_json`` does."""
    return _fields(raw)[1]


class BadLine(ValueError):
    """A history line that is not a valid entry; ``kind`` groups the warnings."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


#: The bad lines warned about already, per file (``_BadLineReport``): a reader that meets them
#: again in an unchanged file says nothing (every status, search or Dream run reads the log).
_WARNED: set[tuple[object, ...]] = set()
_WARNED_MOST = 4096  # forgotten all at once past this: a warning again, never unbounded memory
_warned_lock = threading.Lock()


class _BadLineReport:
    """Counts skipped lines per kind and warns once per kind when the read ends, only for kinds
    with a line not warned about before in this process: a bad line is known by its file (device
    and inode), its kind, its bytes' digest and which same one it is in the read, so an unchanged
    file warns once, and once again when a new bad line appears (or the file is replaced).
    ``quiet``: a read whose lines another read reports (``count_late``) warns of none."""

    def __init__(self, path: Path, *, quiet: bool = False) -> None:
        self.path = path
        self.quiet = quiet
        self.counts: Counter[str] = Counter()
        self.new: Counter[str] = Counter()
        self.seen: Counter[tuple[str, bytes | None]] = Counter()
        self.file: tuple[int, int] | None = None

    def at(self, fd: int) -> None:
        """The file the lines come from (its device and inode)."""
        st = os.fstat(fd)
        self.file = (st.st_dev, st.st_ino)

    def add(self, kind: str, raw: bytes | None = None) -> None:
        if self.quiet:
            return
        self.counts[kind] += 1
        line = (kind, None if raw is None else hashlib.sha1(raw, usedforsecurity=False).digest())
        key = (str(self.path), self.file, *line, self.seen[line])
        self.seen[line] += 1
        with _warned_lock:
            if key in _WARNED:
                return
            if len(_WARNED) >= _WARNED_MOST:
                _WARNED.clear()
            _WARNED.add(key)
        self.new[kind] += 1

    def flush(self) -> None:
        for kind in self.new:
            log.warning("%s: skipped %d line(s): %s", self.path, self.counts[kind], kind)
        self.counts.clear()
        self.new.clear()
        self.seen.clear()


class HistoryLog:
    """The history log of one workspace. Safe across threads and processes."""

    def __init__(
        self,
        path: Path,
        cursor_path: Path,
        dream_cursor_path: Path | None = None,
        *,
        fsync: bool = True,
        max_entry_chars: int = DEFAULT_MAX_ENTRY_CHARS,
        lock_timeout: float = 30.0,
        redact: Callable[[str], str] | None = None,
        on_append: Callable[[], None] | None = None,
    ) -> None:
        """``on_append`` is called after each append is durable and its lock released (a scope's
        workspace marks itself due there; see ``reverie.storage.scopes.due_hook``); an ``OSError``
        from it is logged, never raised: the entry is safe, and a lost mark is found again by a
        rescan."""
        self.path = Path(path)
        self.cursor_path = Path(cursor_path)
        self.dream_cursor_path = Path(dream_cursor_path) if dream_cursor_path else None
        self.fsync = fsync
        self.max_entry_chars = max_entry_chars
        self.lock_timeout = lock_timeout
        self.redact = redact
        self.on_append = on_append
        self.torn_path = self.path.with_name(self.path.name + ".torn")
        # kept open between appends: every append takes it (reverie.storage.locking)
        self._lock = Lock(lock_path(self.path), keep_open=True, error=HistoryError)
        # The log's maximum and its late lines, kept up to date incrementally (see _log_max for
        # when it is trusted; read_since reads it too).
        self._scanned: _ScanState | None = None
        self.checkpoint_path = self.path.with_name(self.path.name + ".maxcursor")
        #: where Dream's last read ended (``read_pending``): later lines are unread by Dream
        # Reverie's state folder (memory/.reverie): a failed run's read leaves the files it watches
        self.dreamed_path = self.path.parent / ".reverie" / (self.path.name + ".dreamed")
        self._checkpointed = 0  # the offset the checkpoint file was last written (or read) at
        self._checkpointed_late = 0  # and how many late lines it held
        self._issued = (0, 0)  # (inode, the largest cursor this instance wrote to it)

    # -- writing -----------------------------------------------------------------------------------
    def locked(self) -> _Locked:
        """The append lock (threads and processes), for callers that rewrite the log."""
        return _Locked(self)

    def prepare_content(self, content: str) -> str:
        """What an entry's content becomes on disk: model reasoning dropped (``strip_think``),
        secrets redacted, lone surrogates escaped, length capped."""
        if not isinstance(content, str):
            raise TypeError(f"history content must be str, not {type(content).__name__}")
        content = strip_think(content)
        if self.redact is not None:
            content = self.redact(content)
        content = content.encode("utf-8", errors="backslashreplace").decode("utf-8")
        if len(content) > self.max_entry_chars:
            dropped = len(content) - self.max_entry_chars
            content = content[: self.max_entry_chars] + TRUNCATION_MARKER.format(n=dropped)
        return content

    def append(
        self,
        content: str,
        session_key: str | None = None,
        *,
        timestamp: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> int:
        """Append one entry durably and return its cursor."""
        return self.append_many([content], session_key, timestamp=timestamp, extras=[extra])[0]

    def append_many(
        self,
        contents: Sequence[str],
        session_key: str | None = None,
        *,
        timestamp: str | None = None,
        extras: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> list[int]:
        """Append entries durably in one ``write`` (a signal or a killed process leaves all of them
        or none) and return their cursors."""
        if not contents:
            return []
        texts = [self.prepare_content(content) for content in contents]
        extras = list(extras) if extras is not None else [None] * len(texts)
        if len(extras) != len(texts):
            raise ValueError("append_many: one extra per content")
        stamp = timestamp or format_timestamp()
        if session_key is not None:
            if not isinstance(session_key, str):
                raise TypeError(
                    f"session_key must be str or None, not {type(session_key).__name__}"
                )
            why = unusable_key(session_key, empty=True)
            if why is not None:
                raise HistoryError(f"session_key {why}")
            if self.redact is not None:
                # a key is stored like content: never a credential
                session_key = self.redact(session_key)
            session_key = session_key.encode("utf-8", errors="backslashreplace").decode("utf-8")
        with self.locked():
            try:
                # Crash safety: one write of the whole line on an O_APPEND fd, then fsync; a crash
                # mid-write leaves a torn tail that the next append's _repair_tail moves aside
                # before writing.
                fd = open_regular(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
                try:
                    self._repair_tail(fd)
                    first = self._last_cursor_locked(fd) + 1
                    cursor = first + len(texts) - 1
                    if cursor > MAX_CURSOR:
                        raise HistoryError(
                            f"cannot append to {self.path}: its cursors "
                            f"reached the largest one ({MAX_CURSOR})"
                        )
                    line = b"".join(
                        HistoryEntry(first + i, stamp, text, session_key, dict(x or {})).to_json()
                        for i, (text, x) in enumerate(zip(texts, extras))
                    )
                    append_whole(fd, line)
                    if self.fsync:
                        datasync(fd)
                    st = os.fstat(fd)
                finally:
                    os.close(fd)
            except OSError as exc:
                self._scanned = None
                raise HistoryError(f"cannot append to {self.path}: {exc.strerror or exc}") from exc
            # The new line is left to the next incremental scan (another writer may have appended
            # before it, and the scan state's maximum is the lines' own); this covers it till then.
            self._note_issued(st.st_ino, cursor)
            # A hint for nanobot and humans; the log's tail stays the truth, so an in-place update
            # is enough.
            try:
                write_cursor_hint(self.cursor_path, cursor)
            except OSError as exc:
                # the entry is durable; a missing hint is recovered from the tail
                log.warning("could not update %s: %s", self.cursor_path, exc.strerror or exc)
        if self.on_append is not None:
            try:
                self.on_append()
            except OSError as exc:
                log.warning(
                    "%s: appended, but not marked due (%s); `reverie serve --rescan` finds it",
                    self.path,
                    exc.strerror or exc,
                )
        return list(range(first, cursor + 1))

    def _repair_tail(self, fd: int) -> None:
        if repair_torn_tail(fd, self.path, self.torn_path, _is_entry, fsync=self.fsync):
            self._scanned = None

    def _last_cursor_locked(self, fd: int) -> int:
        """The highest cursor issued (log maximum, ``.cursor`` and Dream cursor); the caller holds
        the lock."""
        hints = [self._log_max(fd)]
        for hint_path in (self.cursor_path, self.dream_cursor_path):
            if hint_path is None:
                continue
            try:
                hints.append(read_cursor(hint_path) or 0)
            except CursorError as exc:
                log.warning("ignoring %s while choosing the next cursor", exc)
        return max(hints)

    def _log_max(self, fd: int) -> int:
        """The largest cursor in the log, scanning only what was appended since the last scan when
        possible.

        The last scan is this instance's, or the checkpoint another process left
        (``history.jsonl.maxcursor``). Either is trusted only while the file is the same one (inode)
        and the bytes just before its offset are still those it recorded, so a log compacted,
        replaced or rewritten in place is scanned whole again.
        """
        state = self._scan_state(fd)
        offset, late = state[1], state[4]
        if (
            offset - self._checkpointed >= _CHECKPOINT_EVERY
            or 0 < offset < self._checkpointed  # rescanned a rewritten log
            or (offset > 0 and self._checkpointed == 0)
            or len(late) != self._checkpointed_late  # readers want every late line
        ):
            self._write_checkpoint(state)
        ino, issued = self._issued
        return max(state[2], issued if ino == state[0] else 0)

    def _note_issued(self, ino: int, cursor: int) -> None:
        """Remember ``cursor`` as written to the log with inode ``ino`` (till the next scan reads
        it; a replaced log forgets it, as its scan state)."""
        known, issued = self._issued
        self._issued = (ino, max(cursor, issued if known == ino else 0))

    def _scan_state(self, fd: int) -> _ScanState:
        """The log's scan state brought up to its end: this instance's last scan, or the checkpoint
        another process left, when still trusted; else a scan of the whole file (a regular
        expression over raw bytes). Writes nothing: readers call it too."""
        st = os.fstat(fd)
        state = self._scanned if self._scanned is not None else self._read_checkpoint()
        if state is None or not _unchanged(fd, st, state):
            state = (st.st_ino, 0, 0, b"", ())
        ino, start, best, guard, known = state
        if start == st.st_size:
            return state
        late = list(known)
        end, best = _scan_cursor_keys(fd, start, st.st_size, best, late)
        if end != start:
            guard = _guard(fd, end)
        self._scanned = (ino, end, best, guard, tuple(late))
        return self._scanned

    def _read_checkpoint(self) -> _ScanState | None:
        try:
            text = self.checkpoint_path.read_bytes()
            body, _, digest = text.rstrip(b"\n").rpartition(b" ")
            if digest.decode() != hashlib.blake2b(body, digest_size=8).hexdigest():
                return None  # torn (written in place) or another version's
            fields = body.split()
            ino, offset, best = (int(x) for x in fields[:3])
            guard = bytes.fromhex(fields[3].decode())
            late = () if fields[4] == b"-" else tuple(int(x) for x in fields[4].split(b","))
        except (OSError, ValueError, IndexError, UnicodeDecodeError):
            return None  # missing or unreadable: a full scan
        if len(fields) != 5 or min(ino, offset, best, *late) < 0 or best > MAX_CURSOR:
            return None
        self._checkpointed, self._checkpointed_late = offset, len(late)
        return ino, offset, best, guard, late

    def _write_checkpoint(self, state: _ScanState) -> None:
        """A hint for the next process (no fsync, written in place, its last field a digest of the
        rest): a stale, torn or foreign one only costs a longer scan."""
        ino, offset, best, guard, late = state
        try:
            fd = os.open(
                self.checkpoint_path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
            )
            try:
                positions = ",".join(map(str, late)) or "-"
                body = f"{ino} {offset} {best} {guard.hex()} {positions}".encode()
                digest = hashlib.blake2b(body, digest_size=8).hexdigest().encode()
                data = body + b" " + digest + b"\n"
                os.pwrite(fd, data, 0)
                os.ftruncate(fd, len(data))
            finally:
                os.close(fd)
        except OSError as exc:
            log.debug("could not write %s: %s", self.checkpoint_path, exc)
            return
        self._checkpointed, self._checkpointed_late = offset, len(late)

    def _tail_cursor(self, fd: int, size: int) -> int:
        """The cursor of the last valid line, reading backwards (linear however long a line is)."""
        for start, raw in iter_lines_backward(fd, size):
            # too long to parse: its leading cursor still counts, so it is never reissued
            if raw is None:
                m = _LEADING_CURSOR.match(os.pread(fd, 256, start))
                if m and 1 <= int(m.group(1)) <= MAX_CURSOR:
                    return int(m.group(1))
                continue
            if raw.strip():
                try:
                    return HistoryEntry.from_json(raw).cursor
                except BadLine:
                    continue
        return 0

    # -- late entries (see the module doc) -----------------------------------------------------
    def read_pending(self, dream_cursor: int, limit: int | None = None) -> list[HistoryEntry]:
        """Dream's read: the entries it has not consumed, in cursor order, at most ``limit``.

        Under the append lock, first requeues the late entries (``requeue_late``) and marks where
        this read ends, so the next call knows which lines this one never saw; then reads past
        ``dream_cursor`` up to that mark (a line appended meanwhile waits for the next read).
        """
        with self.locked():
            self.requeue_late(dream_cursor, _locked=True)
            end = self._mark_end()
        return self.read_since(dream_cursor, limit, end=end)

    def requeue_late(self, dream_cursor: int, *, _locked: bool = False) -> list[int]:
        """Re-append each entry Dream would never select (past its last read, cursor at or below
        ``dream_cursor``) with a fresh cursor; returns the old cursors. Marks the log's end as read.
        """
        if not _locked:
            with self.locked():
                return self.requeue_late(dream_cursor, _locked=True)
        try:
            fd = open_regular(self.path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise HistoryError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        requeued: list[int] = []
        try:
            self._repair_tail(fd)
            size = os.fstat(fd).st_size
            mark = self._read_mark(fd)
            report = _BadLineReport(self.path)
            late = _late_entries(fd, mark, size, dream_cursor, report)
            report.flush()
            for entry in late:
                cursor = self._last_cursor_locked(fd) + 1
                if cursor > MAX_CURSOR:
                    raise HistoryError(
                        f"cannot requeue in {self.path}: its cursors reached {MAX_CURSOR}"
                    )
                extra = {**entry.extra, REQUEUED_FROM: entry.cursor}
                line = HistoryEntry(
                    cursor, entry.timestamp, entry.content, entry.session_key, extra
                ).to_json()
                append_whole(fd, line)
                self._note_issued(os.fstat(fd).st_ino, cursor)
                requeued.append(entry.cursor)
            if requeued:
                if self.fsync:
                    datasync(fd)
                write_cursor_hint(self.cursor_path, self._last_cursor_locked(fd))
                log.warning(
                    "%s: %d entr%s appended after Dream's last read with a cursor it had passed "
                    "(%s): appended again with new cursors, so Dream reads them",
                    self.path,
                    len(requeued),
                    "y" if len(requeued) == 1 else "ies",
                    ", ".join(map(str, requeued[:10])) + (" …" if len(requeued) > 10 else ""),
                )
            self._write_mark(fd)
        except OSError as exc:
            raise HistoryError(f"cannot requeue in {self.path}: {exc.strerror or exc}") from exc
        finally:
            os.close(fd)
        return requeued

    def count_late(self, dream_cursor: int) -> int:
        """How many entries past Dream's last read the next ``read_pending`` will requeue (a query:
        writes nothing; reads only the bytes past that read). Without a trusted mark, 0: telling
        would cost a read of the whole log, and Dream's next read finds them anyway."""
        try:
            f = open(self.path, "rb", buffering=0)
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise HistoryError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        with f:
            fd = f.fileno()
            mark = self._read_mark(fd)
            if mark is None:
                return 0
            # the reader that reads them reports bad lines
            report = _BadLineReport(self.path, quiet=True)
            found = _late_entries(fd, mark, os.fstat(fd).st_size, dream_cursor, report)
            return len(found)

    def _mark_end(self) -> int | None:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return None

    def _read_mark(self, fd: int) -> int | None:
        """The offset Dream's last read ended at, when the file is still the one it read."""
        try:
            fields = self.dreamed_path.read_bytes().split()
            ino, offset = int(fields[0]), int(fields[1])
            guard = bytes.fromhex(fields[2].decode()) if len(fields) > 2 else b""
        except (OSError, ValueError, IndexError, UnicodeDecodeError):
            return None
        st = os.fstat(fd)
        if offset < 0 or not _unchanged(fd, st, (ino, offset, 0, guard, ())):
            return None
        return offset

    def mark_read_through(self, cursor: int) -> None:
        """Move Dream's read mark past the line whose cursor is ``cursor`` when it is behind it:
        the Dream cursor moved past lines the last read of this log never reached (Dream's
        reconcile following a commit that consumed them from an older copy of the log, put back
        in place), so they are not requeued as appended late and dreamed twice."""
        with self.locked():
            try:
                fd = open_regular(self.path, os.O_RDONLY)
            except FileNotFoundError:
                return
            except OSError as exc:
                raise HistoryError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
            try:
                mark = self._read_mark(fd)
                if mark is None:
                    return  # no trusted mark: only lines out of order are requeued
                at = mark
                for raw, terminated in iter_lines(fd, mark, os.fstat(fd).st_size):
                    if raw is None or not terminated:
                        return  # an offset past a line too long to read is not known
                    at += len(raw) + 1
                    try:
                        found = cursor_of(raw)
                    except BadLine:
                        continue
                    if found == cursor:
                        self._write_mark(fd, at)
                        return
            except OSError as exc:
                raise HistoryError(f"cannot mark {self.path}: {exc.strerror or exc}") from exc
            finally:
                os.close(fd)

    def _write_mark(self, fd: int, offset: int | None = None) -> None:
        st = os.fstat(fd)
        end = st.st_size if offset is None else offset
        data = f"{st.st_ino} {end} {_guard(fd, end).hex()}\n"
        self.dreamed_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.dreamed_path, data, fsync=self.fsync)
        # a writer killed between the temporary file and its rename left one beside the mark
        state = self.dreamed_path.parent
        remove_stale_temps(
            state, os.listdir(state), older_than=60, of=self.dreamed_path.name.__eq__
        )

    def compact(self, keep_last: int, dream_cursor: int | None = None) -> int:
        """Drop the oldest entries so at most ``keep_last`` remain, never one Dream has not
        consumed.

        The limit is ``dream_cursor`` when given, else the on-disk Dream cursor read under the lock
        (a missing file means nothing was dreamed; a corrupt one raises ``CursorError``). Returns
        how many entries were dropped. Lines that are not valid entries are kept as they are.
        """
        if keep_last < 0:
            raise ValueError("keep_last must be ≥ 0")
        with self.locked():
            if not self.path.exists():
                return 0
            if dream_cursor is None:
                if self.dream_cursor_path is None:
                    raise ValueError(
                        "compact() needs dream_cursor when the log has no Dream cursor file"
                    )
                dream_cursor = read_cursor(self.dream_cursor_path) or 0
            try:
                fd = open_regular(self.path, os.O_RDWR | os.O_APPEND)
            except OSError as exc:
                raise HistoryError(f"cannot compact {self.path}: {exc.strerror or exc}") from exc
            try:
                self._repair_tail(fd)
            finally:
                os.close(fd)
            # a late entry is requeued before its neighbours go, and the mark moves to the new file
            self.requeue_late(dream_cursor, _locked=True)
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                last = self._last_cursor_locked(fd)
            finally:
                os.close(fd)
            raw_lines = self.path.read_bytes().split(b"\n")
            # _repair_tail left the file \n-terminated
            raw_lines = [raw + b"\n" for raw in raw_lines[:-1]]
            valid_idx: list[tuple[int, int]] = []
            for i, raw in enumerate(raw_lines):
                try:
                    valid_idx.append((i, HistoryEntry.from_json(raw).cursor))
                except BadLine:
                    pass
            excess = len(valid_idx) - keep_last
            drop = {i for i, cursor in valid_idx[: max(0, excess)] if cursor <= dream_cursor}
            if not drop:
                return 0
            # Crash-safe order: make the highest cursor durable before any entry disappears (so it
            # is never reissued), then replace the file atomically; a crash leaves the old or the
            # new log.
            write_cursor(self.cursor_path, last, fsync=True)
            kept = b"".join(raw for i, raw in enumerate(raw_lines) if i not in drop)
            atomic_write(self.path, kept, fsync=True)
            self._scanned = None
            # the new file holds no line Dream has not had its chance at (requeued above)
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                self._write_mark(fd)
            finally:
                os.close(fd)
            log.info("%s: compacted, dropped %d entries", self.path, len(drop))
            return len(drop)

    # -- reading -----------------------------------------------------------------------------------
    def last_cursor(self) -> int:
        """The highest cursor issued so far, as cheaply as a reader can tell: the last line's
        cursor, the ``.cursor`` hint and the Dream cursor. (The next append's cursor is past every
        cursor in the log; a log another tool left out of order can hold a larger one than this.)"""
        hints = [0]
        if self.path.exists():
            with open(self.path, "rb") as f:
                hints.append(self._tail_cursor(f.fileno(), os.fstat(f.fileno()).st_size))
        for hint_path in (self.cursor_path, self.dream_cursor_path):
            if hint_path is not None:
                try:
                    hints.append(read_cursor(hint_path) or 0)
                except CursorError:
                    pass
        return max(hints)

    def entry_at(self, cursor: int) -> HistoryEntry | None:
        """The entry whose cursor is ``cursor``, or None when the log has none."""
        found = self.read_since(cursor - 1, limit=1) if cursor > 0 else []
        return found[0] if found and found[0].cursor == cursor else None

    def read_since(
        self, cursor: int = 0, limit: int | None = None, *, end: int | None = None
    ) -> list[HistoryEntry]:
        """Entries with a cursor greater than ``cursor``, in cursor order, at most ``limit`` of
        them (only those in the file's first ``end`` bytes, when given).

        Costs time proportional to what is returned: the start is found by bisecting byte offsets
        over the lines whose cursor is above all before them (the late ones, ``_ScanState``, are
        stepped over), from the scan state this instance or the checkpoint keeps (bringing it up
        to date reads only the bytes appended since; a process with neither scans the log's
        cursor keys once). A late line past the start makes it read to the end and sort; an order
        found broken that no scan knew of falls back to a full scan with a warning.
        """
        return self._select(cursor, limit, end, HistoryEntry.from_json, _cursor_attr)

    def _select(
        self,
        cursor: int,
        limit: int | None,
        end: int | None,
        parse: Callable[[bytes], _T],
        key: Callable[[_T], int],
    ) -> list[_T]:
        """``read_since``'s selection, each valid line read by ``parse`` (an entry, or only its
        cursor: ``count_since``) and ordered by ``key``."""
        if limit is not None and limit <= 0:
            return []
        try:
            f = open(self.path, "rb", buffering=0)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise HistoryError(f"cannot read {self.path}: {exc.strerror or exc}") from exc
        report = _BadLineReport(self.path)
        try:
            fd = f.fileno()
            size = os.fstat(fd).st_size
            if end is not None:
                size = min(size, end)
            state = self._scan_state(fd)
            late = state[4]
            start = _bisect_start(fd, min(size, state[1]), cursor, late)
            if _holds(late, start, size):
                # a late line past the start: the entries in cursor order are all of them, sorted
                found = sorted(
                    (e for e in _scan(fd, start, size, report, parse) if key(e) > cursor),
                    key=key,
                )
                return found[:limit] if limit is not None else found
            out: list[_T] = []
            previous = None
            for entry in _scan(fd, start, size, report, parse):
                if previous is not None and key(entry) <= previous:
                    log.warning(
                        "%s: cursors out of order near %d; reading the whole file",
                        self.path,
                        key(entry),
                    )
                    report = _BadLineReport(self.path)
                    everything = sorted(
                        (e for e in _scan(fd, 0, size, report, parse) if key(e) > cursor),
                        key=key,
                    )
                    return everything[:limit] if limit is not None else everything
                previous = key(entry)
                if key(entry) > cursor:
                    out.append(entry)
                    if limit is not None and len(out) >= limit:
                        break
            return out
        finally:
            f.close()
            report.flush()

    def __iter__(self) -> Iterator[HistoryEntry]:
        return iter(self.read_since(0))

    def count_since(self, cursor: int) -> int:
        """How many entries Dream has yet to read when its cursor is ``cursor`` (for status): those
        past it, and the late ones its next read requeues (``count_late``)."""
        # only the cursors: no entry is built (200,000 entries past the cursor took 8 s to read)
        return len(self._select(cursor, None, None, cursor_of, _same)) + self.count_late(cursor)


class _Locked:
    def __init__(self, owner: HistoryLog) -> None:
        self.owner = owner

    def __enter__(self) -> None:
        self.owner.path.parent.mkdir(parents=True, exist_ok=True)
        self.owner._lock.acquire(self.owner.lock_timeout)

    def __exit__(self, *exc: object) -> None:
        self.owner._lock.release()


# -- entry-aware scanning (the byte-level primitives are in reverie.storage.appendlog) -------------
_GUARD_BYTES = 256  # the guard hashes the log's first and last bytes before a scan offset
# rewrite the checkpoint after this many newly scanned bytes (and after a full scan)
_CHECKPOINT_EVERY = 64 << 10


def _guard(fd: int, offset: int) -> bytes:
    """A digest of the log's first and last (up to) 256 bytes before ``offset`` — the first line and
    the last one, cursors included, for lines of ordinary length: recognises the same file later,
    and a log rewritten in place, without keeping any of its text (a purged string must not survive
    in the checkpoint)."""
    width = min(_GUARD_BYTES, offset)
    head = os.pread(fd, width, 0)
    return hashlib.blake2b(head + os.pread(fd, width, offset - width), digest_size=8).digest()


def _unchanged(fd: int, st: os.stat_result, state: _ScanState) -> bool:
    """Whether a scan state still describes this file: same inode, not shorter, same bytes before
    its offset."""
    ino, offset, _, guard, _ = state
    if ino != st.st_ino or offset > st.st_size:
        return False
    return offset == 0 or guard == _guard(fd, offset)


def _scan_cursor_keys(
    fd: int, start: int, size: int, best: int, late: list[int] | None = None
) -> tuple[int, int]:
    """``(offset just after the last newline in [start, size), largest cursor key seen)``; ``start``
    is a line start. With ``late``, appends to it the offset of each late key (one not above every
    key before it) in the complete lines crossed.

    A regular-expression pass over raw bytes (no JSON parsing, linear however long a line is; 16 MB
    in ~0.1 s, a quarter of parsing every line), because each process scans the whole log once
    before its first append. Blocks end at a line's end, so each key is seen once; a key in an
    unterminated last line (an append in flight) only raises the maximum (maybe with only part of
    its digits: an under-count), and the returned offset makes the next scan read that line again.
    """
    at, line_end, carry = start, start, b""
    while at < size:
        block = os.pread(fd, min(_SCAN_CHUNK, size - at), at)
        if not block:
            break
        base, data = at - len(carry), carry + block
        at += len(block)
        nl = data.rfind(b"\n")
        if nl >= 0:
            line_end, cut = base + nl + 1, nl + 1
        else:  # inside a line longer than a block: its keys up to the last 64 bytes now
            cut = max(0, len(data) - 64) if at < size else 0
        best = _count_keys(data, cut, base, best, late)
        carry = data[cut:]
    found = [v for v in map(int, _CURSOR_KEY.findall(carry)) if v <= MAX_CURSOR]
    return line_end, max([best, *found])


def _count_keys(data: bytes, cut: int, base: int, best: int, late: list[int] | None) -> int:
    """The largest of ``best`` and the cursor keys starting before ``data[cut]`` (``data`` starts
    at file offset ``base``), the late ones' offsets appended to ``late``."""
    if cut == 0:
        return best
    if data[cut - 1 : cut] == b"\n":
        # findall: no match objects, ~4x faster than finditer; in order is the common case
        values = [int(v) for v in _CURSOR_KEY.findall(data, 0, cut)]
        if not values:
            return best
        if values[0] > best and values[-1] <= MAX_CURSOR and all(map(lt, values, values[1:])):
            return values[-1]
        if late is None:
            return max([best, *(v for v in values if v <= MAX_CURSOR)])
    top = best
    for m in _CURSOR_KEY.finditer(data):
        if m.start() >= cut:
            break
        value = int(m.group(1))
        if value > MAX_CURSOR:
            continue
        if value > top:
            top = value
        elif late is not None:
            late.append(base + m.start())
    return top


def _is_entry(raw: bytes) -> bool:
    try:
        HistoryEntry.from_json(raw)
    except BadLine:
        return False
    return True


def _bisect_start(fd: int, size: int, cursor: int, late: Sequence[int] = ()) -> int:
    """A line start before which every valid entry has a cursor ≤ ``cursor``. ``late``: the sorted
    offsets of the late keys (``_ScanState``) in ``[0, size)``; a line holding one is stepped over
    like a bad line, so the probes only see cursors above all before them (increasing)."""
    lo, hi = 0, size
    while hi - lo > _LINEAR_SCAN_BYTES:
        mid = (lo + hi) // 2
        pos = next_line_start(fd, mid, size)
        probe = None
        while pos < hi:
            raw, nxt = read_line(fd, pos, size)
            try:
                if raw is None:
                    raise BadLine("line too long")
                if _holds(late, pos, nxt):
                    raise BadLine("late")
                probe = HistoryEntry.from_json(raw)
                break
            except BadLine:
                pos = nxt
        if probe is None or probe.cursor > cursor:
            hi = mid if probe is None else pos
            if hi <= lo:
                break
        else:
            lo = nxt
    return lo


def _holds(offsets: Sequence[int], start: int, end: int) -> bool:
    """Whether one of the sorted ``offsets`` is in ``[start, end)``."""
    i = bisect_left(offsets, start)
    return i < len(offsets) and offsets[i] < end


def _cursor_attr(entry: HistoryEntry) -> int:
    return entry.cursor


def _same(cursor: int) -> int:
    return cursor


def _scan(
    fd: int,
    start: int,
    size: int,
    report: _BadLineReport,
    parse: Callable[[bytes], _T],
) -> Iterator[_T]:
    """Valid entries from ``start`` to ``size`` (each as ``parse`` reads it: the entry, or only its
    cursor), reporting bad lines; a torn last line is an append in flight."""
    report.at(fd)
    for raw, terminated in iter_lines(fd, start, size):
        if raw is None:
            report.add(f"longer than {MAX_LINE_BYTES:,} bytes")
            continue
        if not raw.strip():
            continue
        try:
            yield parse(raw)
        except BadLine as bad:
            if terminated:
                report.add(bad.kind, raw)
            else:
                log.debug("ignoring an unterminated last line (an append in flight, or torn)")


def _late_entries(
    fd: int, mark: int | None, size: int, dream_cursor: int, report: _BadLineReport
) -> list[HistoryEntry]:
    """The entries Dream would never select: past ``mark`` (Dream's last read) with a cursor at or
    below ``dream_cursor``; with no trusted mark, every out-of-order one at or below it that no
    later line requeued already."""
    found: list[HistoryEntry] = []
    done: set[int] = set()
    highest = 0
    for entry in _scan(fd, mark or 0, size, report, HistoryEntry.from_json):
        origin = entry.extra.get(REQUEUED_FROM)
        if isinstance(origin, int):
            done.add(origin)
        if entry.cursor <= dream_cursor and (mark is not None or entry.cursor <= highest):
            found.append(entry)
        highest = max(highest, entry.cursor)
    return [e for e in found if e.cursor not in done]
