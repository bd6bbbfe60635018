"""Session files (``<workspace>/sessions/<safe_key>.jsonl``): nanobot's format. This docstring is
the spec.

One JSON object per line, UTF-8, ``\\n``-terminated. The first line is the metadata line::

    {"_type": "metadata", "key": "cli:alice", "created_at": "2026-11-22T14:05:00.123456",
     "updated_at": "2026-11-22T15:00:00.000001", "metadata": {}, "last_consolidated": 12}

then one message per line, in the chat format, oldest first::

    {"role": "user", "content": "hi", "timestamp": "2026-11-22T14:05:01.000000"}
    {"role": "assistant", "content": null, "tool_calls": [...], "timestamp": "..."}
    {"role": "tool", "content": "...", "tool_call_id": "call_1", "name": "read_file",
     "timestamp": "..."}

- ``key``: the session key (``channel:chat``). ``created_at``/``updated_at``: ISO 8601 local time.
- ``last_consolidated``: how many of the messages (counted in file order, valid lines only) are
  already consolidated into history.jsonl; an int in ``0..len(messages)``. Anything else (negative,
  past the end, not an int, a bool) is corrupt and is read as 0 with a warning: consolidating again
  may duplicate, never lose.
- Messages: ``role`` (str) and ``content`` (str, null, or a list of content parts) plus
  ``timestamp`` and the optional ``tool_calls``, ``tool_call_id``, ``name``; other keys are kept and
  ignored.
- File name: nanobot's, so both open the same file: the key with ``:`` and each of ``<>"/\\|?*``
  replaced by ``_``, then stripped of surrounding white space (``email:alice@example.com`` →
  ``email_alice@example.com.jsonl``). No key can name a path outside ``sessions/`` (``/`` and ``\\``
  are replaced; ``..`` becomes ``...jsonl``). Where that name cannot be a file name (empty, a
  control character, not encodable, or longer than ``MAX_STEM_BYTES`` encoded bytes, which keeps the
  name ≤ 255 bytes with every suffix Reverie adds: ``.lock``, ``.torn``, ``.corrupt``, the
  atomic-write temp name), the stem is cut at a character boundary to fit and ``-<hash of key>`` is
  appended; nanobot cannot open such a key at all. If the name is already taken by a different key,
  ``<stem>-<hash of key>.jsonl`` is used instead. A file written under Reverie's earlier naming
  (every character but letters, digits, ``._-`` replaced) is still opened for its key when the
  nanobot-named file does not exist.

Durability (one comment per write says which rule it follows):

- Messages are appended as they come: one ``write`` of the whole line on an ``O_APPEND`` descriptor,
  under the session's lock (``<file>.lock``, across threads and processes), fsynced; an append reads
  nothing of the file. A new file is created whole (temp, fsync, rename) with its metadata line and
  first message, so a reader never finds it empty. A torn last
  line left by a crash is repaired before the next append (see
  ``reverie.storage.history.repair_torn_tail``; garbage goes to ``<file>.torn``).
- ``last_consolidated`` lives in the metadata line, as nanobot keeps it, so nanobot reads the same
  offset. The metadata line is the first line, so updating it rewrites the file: under the same lock
  the file is re-read from disk (keeping appends from other processes, and unreadable lines byte for
  byte) and replaced atomically (temp, fsync, rename). A crash leaves the old or the new file, each
  with every message: no message is lost. A sidecar file would avoid the rewrite, but nanobot would
  then read a stale offset; consolidation is rare next to appends, so the rewrite's cost (measured
  in bench/consolidator.py) is the better trade.
- ``save`` (nanobot's whole-session write, for agents that add messages in memory and save) rewrites
  the file the same way, adding the messages it lacks; it refuses (``SessionError``) when the file
  holds messages the session does not, so it never drops another writer's message.
- Clearing (``/new``) replaces the file atomically with a fresh metadata line; messages appended by
  another process after the consolidation was taken are carried over, and unreadable lines are saved
  to ``<file>.corrupt``.

Reading takes no lock and streams the file (one line's bytes at a time). An empty file is a session
not created yet (another tool's creation in flight). Bad lines (not JSON, not an object, no string
``role``) are skipped with one warning per kind; lines with invalid UTF-8 are decoded with U+FFFD
and kept; an unterminated last line is an append in flight.
"""

from __future__ import annotations

import builtins
import hashlib
import io
import logging
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from ..errors import SessionError
from ..text.dates import parse_timestamp
from ..text.safety import printable, unusable_key
from ..text.utf8 import without_bom
from .appendlog import append_whole
from .fsutil import atomic_write, open_regular
from .history import repair_torn_tail, write_all
from .locking import Lock, lock_path
from .workspace import Workspace

log = logging.getLogger(__name__)

__all__ = [
    "Session",
    "SessionInfo",
    "SessionStore",
    "safe_filename",
    "content_text",
    "MAX_MESSAGE_CHARS",
    "MAX_STEM_BYTES",
]

#: Longest message content stored; longer content is cut with a marker (a chat line is never a
#: megabyte of data).
MAX_MESSAGE_CHARS = 200_000
_TRUNCATED = "\n…[truncated {n} characters]"
# nanobot's set (its helpers.safe_filename), after its ':' → '_'
_UNSAFE = re.compile(r'[<>:"/\\|?*]')
# never in a Reverie file name (Workspace.resolve refuses them)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_LEGACY_UNSAFE = re.compile(r"[^\w.-]")  # Reverie's earlier naming, still opened (see path_for)
_LEGACY_MAX_NAME = 120
#: NAME_MAX (255) less the longest name Reverie derives from a session file: the atomic-write temp
#: file ``.<stem>.jsonl.tmp-<pid>-<8 hex>`` adds 28 bytes (a pid of up to 7 digits).
MAX_STEM_BYTES = 255 - 28
_HASH_SUFFIX_BYTES = 13  # "-" + 12 hex digits
_MESSAGE_KEYS = ("role", "content", "timestamp", "tool_calls", "tool_call_id", "name")

# earlier-named session files already reported (one warning per process)
_warned_legacy: set[Path] = set()


def safe_filename(key: str) -> str:
    """The file stem for a session key: nanobot's name (``key.replace(':', '_')`` through its
    ``safe_filename``) when that is a usable file name, else a byte-capped prefix of it plus a hash
    of the key (see the module doc)."""
    stem = _UNSAFE.sub("_", key).strip()
    if stem and not _CONTROL.search(stem):
        try:
            if len(os.fsencode(stem)) <= MAX_STEM_BYTES:
                return stem
        except UnicodeEncodeError:  # a lone surrogate that the file system encoding cannot carry
            pass
    return _capped(stem, MAX_STEM_BYTES - _HASH_SUFFIX_BYTES) + "-" + _key_hash(key)


def _capped(stem: str, limit: int) -> str:
    """``stem`` made encodable (NUL and unencodable characters → ``_``) and cut to ``limit`` encoded
    bytes at a character boundary, for every script (a CJK character is 3 bytes, an emoji 4)."""
    out: list[str] = []
    used = 0
    for ch in stem:
        try:
            size = 0 if _CONTROL.match(ch) else len(os.fsencode(ch))
        except UnicodeEncodeError:
            size = 0
        if size == 0:
            ch, size = "_", 1
        if used + size > limit:
            break
        out.append(ch)
        used += size
    return "".join(out) or "_"


def _legacy_filename(key: str) -> str:
    """Reverie's naming before it adopted nanobot's (files written then are still opened)."""
    stem = _LEGACY_UNSAFE.sub("_", key)
    if len(stem) > _LEGACY_MAX_NAME:
        stem = stem[:_LEGACY_MAX_NAME] + "-" + _key_hash(key)
    if not stem.strip("."):
        stem = stem.replace(".", "_") or "_"
    return stem


def _key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _now() -> datetime:
    return datetime.now()


def _parse_time(value: Any, fallback: datetime) -> datetime:
    return parse_timestamp(value) or fallback


def clean_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Text safe to store: lone surrogates escaped, NUL kept as an escape, length capped with a
    marker."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) > limit:
        text = text[:limit] + _TRUNCATED.format(n=len(text) - limit)
    return text


def _clean_value(value: Any) -> Any:
    """A JSON-able copy of a message value: bytes decoded, strings cleaned, unknown objects as their
    str."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return clean_text(bytes(value).decode("utf-8", "backslashreplace"))
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, dict):
        return {str(k): _clean_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean_value(v) for v in value]
    return clean_text(str(value))


def normalize_message(message: dict[str, Any]) -> dict[str, Any]:
    """The message as stored: a string role, cleaned content, a timestamp; raises ``SessionError``
    if unusable."""
    if not isinstance(message, dict):
        raise SessionError(f"a message must be a dict, not {type(message).__name__}")
    role = message.get("role")
    if not isinstance(role, str) or not role:
        raise SessionError(f"a message needs a non-empty string role, not {role!r}")
    out = {str(k): _clean_value(v) for k, v in message.items()}
    out.setdefault("content", None)
    if not isinstance(out.get("timestamp"), str):
        out["timestamp"] = _now().isoformat()
    return out


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of content parts
    (one a line); ``""`` for anything else. Search, the UI, mem0's verbs and the session-end files
    read a message's words through this one function (a transcript for a model marks images and
    tool calls too: ``reverie.llm.transcript``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "\n".join(parts)
    return ""


@dataclass
class Session:
    """One conversation: its messages in order and how many of them are consolidated
    (``last_consolidated``)."""

    key: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    created_at: datetime = field(default_factory=_now)
    updated_at: datetime = field(default_factory=_now)
    metadata: dict[str, Any] = field(default_factory=dict)
    last_consolidated: int = 0
    path: Path | None = None

    def add_message(self, role: str, content: Any, **extra: Any) -> dict[str, Any]:
        """Add a message in memory only (nanobot's ``Session.add_message``); ``SessionStore.save``
        writes it. ``SessionStore.append`` adds and writes in one step."""
        message = {"role": role, "content": content, "timestamp": _now().isoformat(), **extra}
        self.messages.append(message)
        self.updated_at = _now()
        return message

    @property
    def unconsolidated(self) -> list[dict[str, Any]]:
        """The messages not in history yet, which the agent's prompt still carries."""
        return self.messages[self.last_consolidated :]

    def metadata_line(self) -> bytes:
        obj = {
            "_type": "metadata",
            "key": clean_text(self.key),
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "metadata": _clean_value(self.metadata),
            "last_consolidated": self.last_consolidated,
        }
        return orjson.dumps(obj) + b"\n"


@dataclass(frozen=True, slots=True)
class SessionInfo:
    key: str
    path: Path
    updated_at: datetime
    messages: int
    last_consolidated: int


@dataclass
class _Parsed:
    """A session file split into its parts; ``rest`` keeps every non-metadata line's raw bytes, in
    order."""

    meta: dict[str, Any] | None
    messages: list[dict[str, Any]]
    rest: list[bytes]
    bad: list[bytes]
    complete: bool = True  # the file holds at least one complete (newline-ended) line


def _parse_lines(data: bytes, origin: str) -> _Parsed:
    return _parse_stream(io.BytesIO(data), origin)


def _parse_stream(lines: Iterable[bytes], origin: str, *, keep_raw: bool = True) -> _Parsed:
    """Parse a session file's lines (each with its ``\n``, the last one perhaps without), one at a
    time: reading a file through this holds one line's bytes, not the file's. ``keep_raw=False``
    (a reader that only wants the messages) keeps no raw lines (``rest`` and ``bad`` empty)."""
    meta: dict[str, Any] | None = None
    messages: list[dict[str, Any]] = []
    rest: list[bytes] = []
    bad: list[bytes] = []
    problems: Counter[str] = Counter()
    complete = False
    for i, line in enumerate(lines):
        if not line.endswith(b"\n"):
            # the unterminated last line: an append in flight, or torn
            if line.strip():
                obj, _ = _load_line(line)
                if (
                    obj is not None
                    and obj.get("_type") != "metadata"
                    and isinstance(obj.get("role"), str)
                ):
                    messages.append(obj)  # a complete line that only lacks its newline
                    if keep_raw:
                        rest.append(line)
                else:
                    log.debug(
                        "%s: ignoring an unterminated last line (an append in flight, or torn)",
                        origin,
                    )
            break
        complete = True
        raw = line[:-1]
        if not raw.strip():
            continue
        obj, problem = _load_line(raw)
        if obj is not None and obj.get("_type") == "metadata":
            if meta is None:
                meta = obj
                if i != 0:
                    problems["metadata line is not first"] += 1
            else:
                problems["extra metadata line"] += 1
            continue
        if keep_raw:
            rest.append(raw)
        if problem == "invalid UTF-8":
            problems["invalid UTF-8 (decoded with U+FFFD)"] += 1
        if obj is None or not isinstance(obj.get("role"), str):
            problems[problem or "message without a string role"] += 1
            if keep_raw:
                bad.append(raw)
            continue
        messages.append(obj)
    for kind, n in problems.items():
        log.warning("%s: %d line(s): %s; skipped or repaired", origin, n, kind)
    return _Parsed(meta, messages, rest, bad, complete)


def _load_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    raw = without_bom(raw)  # an editor's "UTF-8 with BOM": the metadata line was "not JSON"
    try:
        obj = orjson.loads(raw)
        problem = None
    except orjson.JSONDecodeError:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            try:
                obj = orjson.loads(raw.decode("utf-8", "replace"))
            except orjson.JSONDecodeError:
                return None, "not JSON"
            problem = "invalid UTF-8"
        else:
            return None, "not JSON"
    if not isinstance(obj, dict):
        return None, "not an object"
    return obj, problem


def _valid_offset(value: Any, n_messages: int, origin: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= n_messages:
        log.warning(
            "%s: last_consolidated %r is not an int in 0..%d; reset "
            "to 0 (messages not in history are consolidated again, never lost)",
            origin,
            value,
            n_messages,
        )
        return 0
    return value


class SessionStore:
    """The session files of one workspace. Safe across threads and processes; no in-memory cache."""

    def __init__(
        self,
        workspace: Workspace | str | os.PathLike[str],
        *,
        fsync: bool = True,
        lock_timeout: float = 30.0,
    ) -> None:
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.dir = self.workspace.sessions_dir
        self.fsync = fsync
        self.lock_timeout = lock_timeout

    # -- naming ------------------------------------------------------------------------------------
    def path_for(self, key: str) -> Path:
        """The file of ``key``: nanobot's name for it; a hashed variant when another key already
        owns that name; the file written under Reverie's earlier naming when only that one exists.
        """
        if not isinstance(key, str) or not key:
            raise SessionError(f"a session key must be a non-empty string, not {key!r}")
        stem = safe_filename(key)
        # Through Workspace.resolve: a sessions/ directory or file symlinked out of the workspace is
        # refused.
        plain = self.workspace.resolve(f"sessions/{stem}.jsonl")
        owner = _key_in_file(plain)
        if owner is not None and not _same_key(owner, key):
            capped = _capped(stem, MAX_STEM_BYTES - _HASH_SUFFIX_BYTES)
            return self.workspace.resolve(f"sessions/{capped}-{_key_hash(key)}.jsonl")
        earlier = self._legacy_file(key, stem)
        if earlier is not None:
            if owner is None and not plain.exists():
                return earlier
            if earlier not in _warned_legacy:
                _warned_legacy.add(earlier)
                log.warning(
                    "%s holds session %r under Reverie's earlier file naming; %s (nanobot's "
                    "name) is used from now on, and the earlier file is left as it is",
                    earlier,
                    key,
                    plain.name,
                )
        return plain

    def _legacy_file(self, key: str, stem: str) -> Path | None:
        """The file Reverie's earlier naming gave ``key``, if it exists and its metadata names
        ``key``."""
        for old in (
            _legacy_filename(key),
            f"{_legacy_filename(key)[:_LEGACY_MAX_NAME]}-{_key_hash(key)}",
        ):
            if (
                old == stem
                or _CONTROL.search(old)
                or len(old.encode("utf-8", "surrogatepass")) > 249
            ):
                continue  # the same file, or a name the OS could never have held
            candidate = self.workspace.resolve(f"sessions/{old}.jsonl")
            found = _key_in_file(candidate)
            if found is not None and _same_key(found, key):
                return candidate
        return None

    # -- reading -----------------------------------------------------------------------------------
    def get_or_create(self, key: str) -> Session:
        """The session of ``key`` as stored now, or a new empty one (its file is created on the
        first append)."""
        path = self.path_for(key)
        session = self.load(path)
        if session is None:
            # a new session: its key is one clean line (another agent's file may hold any key,
            # and is still read by it)
            why = unusable_key(key)
            if why is not None:
                raise SessionError(f"session key {printable(repr(key))[:80]} {why}")
            return Session(key=key, path=path)
        if session.key not in (key, clean_text(key)):
            log.warning("%s: metadata names key %r, opened as %r", path, session.key, key)
            session.key = key
        return session

    def load(self, path: Path) -> Session | None:
        """The session in ``path``, or None when it does not exist."""
        try:
            with open(path, "rb") as f:  # streamed: one line's bytes at a time, not the file's
                parsed = _parse_stream(f, str(path), keep_raw=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SessionError(f"{path} cannot be read: {exc.strerror}") from exc
        if not parsed.complete and parsed.meta is None and not parsed.messages:
            return None  # created by another tool that has not written its first line yet
        meta = parsed.meta or {}
        if parsed.meta is None and parsed.messages:
            log.warning("%s: no metadata line; starting from offset 0", path)
        now = _now()
        raw_key = meta.get("key")
        key = raw_key if isinstance(raw_key, str) and raw_key else Path(path).stem
        created = _parse_time(meta.get("created_at"), now)
        return Session(
            key=key,
            messages=parsed.messages,
            created_at=created,
            updated_at=_parse_time(meta.get("updated_at"), created),
            metadata=metadata if isinstance(metadata := meta.get("metadata"), dict) else {},
            last_consolidated=_valid_offset(
                meta.get("last_consolidated", 0), len(parsed.messages), str(path)
            ),
            path=Path(path),
        )

    def list(self) -> list[SessionInfo]:
        """Every session, most recently updated first."""
        out: list[SessionInfo] = []
        for path in sorted(self.dir.glob("*.jsonl")):
            session = self.load(path)
            if session is not None:
                out.append(
                    SessionInfo(
                        session.key,
                        path,
                        session.updated_at,
                        len(session.messages),
                        session.last_consolidated,
                    )
                )
        out.sort(key=lambda s: s.updated_at, reverse=True)
        return out

    def __iter__(self) -> Iterator[SessionInfo]:
        return iter(self.list())

    # -- nanobot's SessionManager names ------------------------------------------------------------
    @property
    def sessions_dir(self) -> Path:
        return self.dir

    def invalidate(self, key: str) -> None:
        """nanobot drops its cached copy here; Reverie keeps no cache (every read is from disk), so
        nothing to do."""

    def save(self, session: Session) -> None:
        """Write what ``session`` holds (nanobot's ``SessionManager.save``): its messages not yet on
        disk, and its metadata, in one atomic rewrite under the session's lock.

        The file's messages must be the first of ``session.messages`` (same roles and contents, in
        order); if the file holds messages this session lacks (another writer appended since it was
        loaded, or it was cleared), ``SessionError`` is raised and nothing is written: a save never
        drops a message.
        """
        path = self._path_of(session)
        with self.locked(path):
            parsed = self._read_locked(path)
            disk = parsed.messages
            mine = session.messages
            same = len(disk) <= len(mine) and all(
                d.get("role") == m.get("role")
                and d.get("content") == _clean_value(m.get("content"))
                for d, m in zip(disk, mine)
            )
            if not same:
                raise SessionError(
                    f"{path} holds messages this session does not ({len(disk)} on disk, "
                    f"{len(mine)} here): reload it with get_or_create() before saving"
                )
            new = [normalize_message(m) for m in mine[len(disk) :]]
            total = len(disk) + len(new)
            if not 0 <= session.last_consolidated <= total:
                raise SessionError(
                    f"last_consolidated {session.last_consolidated} is not in 0..{total}"
                )
            session.updated_at = _now()
            body = b"".join(raw + b"\n" for raw in parsed.rest) + b"".join(
                orjson.dumps(m) + b"\n" for m in new
            )
            # Atomic replace (temp, fsync, rename): a crash leaves the old or the new file, each
            # with every message.
            atomic_write(path, session.metadata_line() + body, fsync=self.fsync)
            session.messages = [*disk, *new]

    def read_session_file(self, key: str) -> dict[str, Any] | None:
        """The session of ``key`` as a plain dict (``key``, ``created_at``, ``updated_at``,
        ``metadata``, ``messages``, ``last_consolidated``; bad lines skipped), or None when it has
        no file."""
        session = self.load(self.path_for(key))
        if session is None:
            return None
        return {
            "key": session.key,
            "created_at": session.created_at.isoformat(),
            "updated_at": session.updated_at.isoformat(),
            "metadata": session.metadata,
            "messages": session.messages,
            "last_consolidated": session.last_consolidated,
        }

    def list_sessions(self) -> builtins.list[dict[str, Any]]:
        """Every session as nanobot lists them (``key``, ``updated_at``, ``path``, plus the message
        counts), newest first."""
        return [
            {
                "key": info.key,
                "updated_at": info.updated_at.isoformat(),
                "path": str(info.path),
                "messages": info.messages,
                "last_consolidated": info.last_consolidated,
            }
            for info in self.list()
        ]

    # -- writing -----------------------------------------------------------------------------------
    def append(self, session: Session, message: dict[str, Any]) -> dict[str, Any]:
        """Append one message durably (append-only with torn-tail repair) and to
        ``session.messages``."""
        stored = normalize_message(message)
        path = self._path_of(session)
        line = orjson.dumps(stored) + b"\n"
        with self.locked(path):
            try:
                self._append_locked(session, path, line)
            except OSError as exc:  # a full disk, a read-only one: the file is as it was
                raise SessionError(f"cannot append to {path}: {exc.strerror or exc}") from exc
        session.messages.append(stored)
        return stored

    def _append_locked(self, session: Session, path: Path, line: bytes) -> None:
        if not os.path.lexists(path):
            # A new file appears whole, its metadata line and first message in it (temp, fsync,
            # rename): a reader never finds it empty or half-written.
            updated, session.updated_at = session.updated_at, _now()
            try:
                atomic_write(path, session.metadata_line() + line, fsync=self.fsync)
            except BaseException:
                session.updated_at = updated
                raise
            return
        fd = open_regular(path, os.O_RDWR | os.O_APPEND)
        try:
            if os.fstat(fd).st_size == 0:
                # An empty file (another tool's) starts with its metadata line, in the same
                # single write as the first message.
                session.updated_at = _now()
                line = session.metadata_line() + line
            else:
                repair_torn_tail(fd, path, _torn(path), _is_line, fsync=self.fsync)
            append_whole(fd, line)
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def save_offset(self, session: Session, last_consolidated: int) -> None:
        """Record that the first ``last_consolidated`` messages are consolidated (atomic rewrite
        under the lock)."""
        if (
            isinstance(last_consolidated, bool)
            or not isinstance(last_consolidated, int)
            or last_consolidated < 0
        ):
            raise SessionError(
                f"last_consolidated must be a non-negative int, not {last_consolidated!r}"
            )
        path = self._path_of(session)
        with self.locked(path):
            data = self._read_bytes_locked(path)
            first_end = data.find(b"\n")
            meta, _ = _load_line(data[:first_end]) if first_end >= 0 else (None, None)
            if meta is not None and meta.get("_type") == "metadata":
                # The usual shape: replace the first line, copy the rest byte for byte (no parsing
                # needed; the line count bounds the message count, and readers re-check the offset
                # against real messages).
                body = data[first_end + 1 :]
                held = body.count(b"\n")
            else:
                parsed = _parse_lines(data, str(path))
                body = b"".join(raw + b"\n" for raw in parsed.rest)
                held = len(parsed.messages)
            if last_consolidated > held:
                raise SessionError(
                    f"{path}: cannot mark {last_consolidated} "
                    f"messages consolidated; the file holds {held}"
                )
            session.last_consolidated = last_consolidated
            session.updated_at = _now()
            # Atomic replace (temp, fsync, rename): a crash leaves the old or the new file, each
            # with every message.
            atomic_write(path, session.metadata_line() + body, fsync=self.fsync)

    def clear(
        self, session: Session, *, consolidated: int | None = None, archived: int | None = None
    ) -> None:
        """Start the session afresh (``/new``): drop the first ``consolidated`` messages (default:
        all in memory; ``archived`` is the argument's first name, still taken).

        Messages another process appended after those are kept, so clearing never drops one
        that is not in history yet.
        """
        if consolidated is None:
            consolidated = len(session.messages) if archived is None else archived
        path = self._path_of(session)
        with self.locked(path):
            parsed = self._read_locked(path)
            if parsed.bad:
                corrupt = path.with_name(path.name + ".corrupt")
                out = open_regular(corrupt, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
                try:
                    write_all(out, b"".join(raw + b"\n" for raw in parsed.bad))
                    os.fsync(out)
                finally:
                    os.close(out)
                log.warning(
                    "%s: saved %d unreadable line(s) to %s before clearing",
                    path,
                    len(parsed.bad),
                    corrupt.name,
                )
            kept = parsed.messages[consolidated:]
            now = _now()
            session.messages = kept
            session.created_at = session.updated_at = now
            session.last_consolidated = 0
            body = b"".join(orjson.dumps(m) + b"\n" for m in kept)
            # Atomic replace: a crash leaves the old session (consolidated again next time) or the
            # cleared one.
            atomic_write(path, session.metadata_line() + body, fsync=self.fsync)

    def pop(self, session: Session) -> dict[str, Any] | None:
        """Take the newest message out (an agent framework's undo of its last item) and return it;
        None when the session is empty or its newest message is already consolidated (a consolidated
        message stays: history holds it).

        Under the lock the file is re-read (so the newest message is the one on disk, whoever wrote
        it) and replaced atomically without that message's line; unreadable lines are kept byte for
        byte.
        """
        path = self._path_of(session)
        with self.locked(path):
            parsed = self._read_locked(path)
            meta = parsed.meta or {}
            offset = _valid_offset(
                meta.get("last_consolidated", 0), len(parsed.messages), str(path)
            )
            if not parsed.messages or len(parsed.messages) <= offset:
                return None
            last = parsed.messages[-1]
            rest = list(parsed.rest)
            # the newest valid message's line (bad lines are not messages)
            for i in range(len(rest) - 1, -1, -1):
                if rest[i] not in parsed.bad:
                    del rest[i]
                    break
            session.messages = parsed.messages[:-1]
            session.last_consolidated = offset
            session.updated_at = _now()
            # Atomic replace (temp, fsync, rename): a crash leaves the file with or without that one
            # message.
            atomic_write(
                path,
                session.metadata_line() + b"".join(raw + b"\n" for raw in rest),
                fsync=self.fsync,
            )
        return last

    # -- internals ---------------------------------------------------------------------------------
    def _path_of(self, session: Session) -> Path:
        if session.path is None:
            session.path = self.path_for(session.key)
        try:
            rel = session.path.relative_to(self.workspace.root).as_posix()
        except ValueError:
            rel = None
        if rel is not None:
            # re-checked at every write: a file swapped for a symlink is refused
            self.workspace.resolve(rel)
        session.path.parent.mkdir(parents=True, exist_ok=True)
        return session.path

    def _read_bytes_locked(self, path: Path) -> bytes:
        """The file's bytes after torn-tail repair (the caller holds the lock); b"" when it does not
        exist."""
        try:
            fd = open_regular(path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            return b""
        try:
            repair_torn_tail(fd, path, _torn(path), _is_line, fsync=self.fsync)
            return path.read_bytes()
        finally:
            os.close(fd)

    def _read_locked(self, path: Path) -> _Parsed:
        return _parse_lines(self._read_bytes_locked(path), str(path))

    def locked(self, path: Path) -> Lock:
        """The lock every writer of session file ``path`` holds (``<file>.lock``: this process's
        threads and other processes)."""
        return Lock(lock_path(path), timeout=self.lock_timeout, error=SessionError)


def _same_key(stored: str, key: str) -> bool:
    # keys are stored cleaned (no lone surrogates)
    return stored == key or stored == clean_text(key)


def _torn(path: Path) -> Path:
    return path.with_name(path.name + ".torn")


def _is_line(raw: bytes) -> bool:
    obj, _ = _load_line(raw)
    return obj is not None


def _key_in_file(path: Path) -> str | None:
    """The key recorded in a session file's first line, or None (no file, or no readable
    metadata)."""
    try:
        with open(path, "rb") as f:
            first = f.readline(1 << 20)
    except (FileNotFoundError, IsADirectoryError):
        return None
    obj, _ = _load_line(first.rstrip(b"\n"))
    key = obj.get("key") if obj is not None and obj.get("_type") == "metadata" else None
    return key if isinstance(key, str) else None
