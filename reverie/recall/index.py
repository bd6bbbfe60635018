"""``memory/.index.sqlite``: Recall's derived search index. This docstring is the format's spec.

The index is derived data: everything in it is rebuilt from the workspace's files, it is never
committed (GitStore's allow-list ``.gitignore`` does not list it), and deleting it loses nothing but
time. SQLite (stdlib, FTS5)::

    meta(key PRIMARY KEY, value)           schema_version, tokenizer, history_cursor, history_first,
                                           history_stat (inode:size:mtime of history.jsonl when
                                           last read), generation
    files(path PRIMARY KEY, kind, size, mtime_ns, hash)
                                           one row per indexed file (not history.jsonl)
    chunks(id PRIMARY KEY, path, kind, ord, hash, ehash, text, title, ctx,
           line_start, line_end, cursor, session_key, msg_index, ts, evergreen)
    chunks_fts  FTS5(text, title, ctx), external content = chunks,
                tokenizer "porter unicode61 remove_diacritics 2", kept in step by triggers
    embeddings(ehash, model, dim, vec)     float32 little-endian vectors, L2-normalised, cached by
                                           content hash

``kind`` is one of ``memory`` (SOUL.md, USER.md, memory/MEMORY.md and Dream's archive
memory/archive/*.md: evergreen), ``dated`` (memory/YYYY-MM-DD*.md), ``history`` (history.jsonl,
``ord`` = ``cursor``), ``session`` (sessions/*.jsonl, ``ord`` = ``msg_index``). ``ts`` is epoch
seconds (None for evergreen files). ``title`` is a memory file's heading path, a session message's
speaker name (its ``name`` field), empty otherwise; ``chunks_speaker`` lists the speakers cheaply.

Writers bring the index up to date (``sync``: ``reverie index``, ``Memory.reindex``, Dream after its
commit, a ``Memory`` that wrote, when it closes). Sync is incremental. A file whose size and mtime
are unchanged is skipped (an mtime under 2 s old is not trusted: it is re-hashed next time); a
changed file is re-chunked and only chunks whose hash changed are deleted or inserted; history is
read past ``history_cursor`` only (a log whose last cursor went backwards, or that is another file
than the one last read — a purge's or a redaction's rewrite keeps the cursors — is re-read whole;
entries compacted away are dropped from the index).

Queries never write (``refresh``, then ``reading()``): they open the file read-only and check that
it is in step with the files (every source's size and mtime, history.jsonl's identity); when it is,
they read it as it is. When it is stale, missing, unreadable (a workspace the caller may only
read), or another version's, the query reads a private in-memory copy of it instead (SQLite's
backup of the file, or an empty index), synced with the files the same way and kept by this
process: later queries sync the copy incrementally, and it is dropped once the file is in step
again. Nothing of it reaches the workspace, and no writer lock is taken.

Where it lives (``memory.search.indexDir``, `index_location`): in the workspace by default; or, for
a workspace on a shared file system, in a local-disk directory, one ``<dir>/<k:2>/<k>.sqlite`` per
workspace (``k``: a digest of the workspace's real path on this host), so each host keeps its own
derived copy.

Journal (``memory.search.journalMode``, `journal_mode_for`): the rollback journal (``DELETE``) by
default, which a read-only reader opens without creating a file (WAL's reader needs its ``-shm``
file, which it creates beside the database, or fails to open where it may not); ``wal`` forces
WAL, whose queries then leave ``-wal``/``-shm`` files beside the index.

Threads: one ``SearchIndex`` serves any number of threads at once. A SQLite connection is never
used by two threads at a time (that crashes CPython): each block of work checks one out of a pool
(``connection()`` for writers, ``reading()`` for queries: the idle one last returned, or a new
one), so queries run side by side (SQLite's readers share the file; a writer's commit waits for
them, and they for it, within the 30 s busy timeout; the sqlite3 module releases the GIL while
SQLite works). A query's in-memory copy is one connection: queries reading it take turns.
A sync's write transaction is taken by one thread of the process at a time (``writing()``), the
others wait for it and then find the index up to date; other processes wait in SQLite (30 s). Moving
a damaged file aside or rebuilding waits until no connection of the process is in use
(``_exclusively``). ``close()`` may be called from any thread at any time: idle connections close
at once, those in use when their block ends.

Crash safety: every sync and rebuild runs in one SQLite transaction (WAL or rollback journal), so a
crash leaves the index as it was before that sync. A file that is not a database, fails to open, or
carries another ``schema_version`` or tokenizer is moved aside (``.index.sqlite.corrupt``) and
rebuilt with a warning. A pooled connection whose file was deleted or replaced since (a purge, a
rebuild by another process) is closed when next taken, never used (`_OnFile`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

from ..backoff import capped_backoff
from ..errors import LockTimeoutError, RecallError, SessionError
from ..storage.history import BadLine, HistoryEntry, HistoryLog
from ..storage.sessions import SessionStore
from ..storage.topics import walk_tree
from ..storage.workspace import (
    ARCHIVE_DIR,
    MEMORY_FILES,
    TOPICS_DIR,
    Workspace,
    starter_prose,
    workspace_id,
)
from .sources import (
    DATED_RE,
    Chunk,
    chunk_history,
    chunk_markdown,
    chunk_session,
    content_hash,
    dated_file_time,
    decode,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

__all__ = [
    "SearchIndex",
    "SyncStats",
    "SCHEMA_VERSION",
    "INDEX_NAME",
    "index_location",
    "journal_mode_for",
    "remove_external_index",
]

INDEX_NAME = ".index.sqlite"
# 2: a session chunk's title holds its speaker's name; 3: a memory file's bullets are chunks
SCHEMA_VERSION = "3"
TOKENIZER = "porter unicode61 remove_diacritics 2"
HISTORY_PATH = "memory/history.jsonl"
_BATCH = 2_000

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
  path TEXT PRIMARY KEY, kind TEXT NOT NULL, size INTEGER, mtime_ns INTEGER, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL, ord INTEGER NOT NULL,
  hash TEXT NOT NULL, ehash TEXT NOT NULL, text TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',
  ctx TEXT NOT NULL DEFAULT '', line_start INTEGER, line_end INTEGER, cursor INTEGER,
  session_key TEXT, msg_index INTEGER, ts REAL, evergreen INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path, ord);
CREATE INDEX IF NOT EXISTS chunks_cursor ON chunks(cursor) WHERE cursor IS NOT NULL;
CREATE INDEX IF NOT EXISTS chunks_session ON chunks(session_key);
CREATE INDEX IF NOT EXISTS chunks_speaker ON chunks(kind, title);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  text, title, ctx, content='chunks', content_rowid='id', tokenize='{TOKENIZER}');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, text, title, ctx) VALUES (new.id, new.text, new.title, new.ctx);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, text, title, ctx)
  VALUES ('delete', old.id, old.text, old.title, old.ctx);
END;
CREATE TABLE IF NOT EXISTS embeddings(
  ehash TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL,
  PRIMARY KEY(ehash, model));
"""


@dataclass
class SyncStats:
    """What one sync changed."""

    added: int = 0
    removed: int = 0
    files_changed: list[str] = field(default_factory=list)
    history_entries: int = 0
    rebuilt: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


class SearchIndex:
    """The SQLite index of one workspace: opening (with automatic rebuild), sync, and raw access for
    ranking. Safe to share between threads (see "Threads" in the module docstring)."""

    def __init__(
        self,
        workspace: Workspace,
        history: HistoryLog,
        *,
        include_sessions: bool = True,
        path: Path | None = None,
        journal: str = "auto",
    ) -> None:
        self.workspace = workspace
        self.history = history
        self.include_sessions = include_sessions
        self.path = path or workspace.memory_dir / INDEX_NAME
        self.journal = journal
        self._rebuilt_on_open = False
        self._sessions = SessionStore(workspace)  # the session format's owner reads the files
        # The pool (see "Threads"): idle connections, how many exist, and who may take one.
        self._mutex = threading.Lock()
        # a connection came back, or exclusive ended
        self._changed = threading.Condition(self._mutex)
        self._idle: list[sqlite3.Connection] = []
        self._open = 0  # connections of the current epoch, idle or in use
        self._users = 0  # connections checked out now
        self._epoch = 0  # bumped by close(): older connections are closed when they come back
        self._exclusive = False  # the file is being moved aside or rebuilt: nobody checks out
        self._limit: int | None = None  # 1 for an in-memory index (each connection is its own db)
        self._held = threading.local()  # .conn: the connection this thread checked out
        self._writer = threading.Lock()  # one sync or embedding write at a time in this process
        # Queries (see "Queries never write"): idle read-only connections to the file, and the
        # private in-memory copy read while the file is stale (one connection: queries take
        # turns under ``_copy_lock``); ``_copies`` numbers the copies made, so caches keyed by
        # `state` never take one for another.
        self._readers: list[sqlite3.Connection] = []
        self._copy: sqlite3.Connection | None = None
        self._copy_lock = threading.Lock()
        self._copies = 0
        _live.add(self)

    def _after_fork(self) -> None:
        """In a forked child: the parent's connections must never be used (nor closed: SQLite's
        close could checkpoint under the parent); they are kept aside for the child's life, and
        every lock starts free (a thread of the parent may have held one at the fork)."""
        _abandoned.extend(self._idle)
        held = getattr(self._held, "conn", None)
        if held is not None:
            _abandoned.append(held)
        self._mutex = threading.Lock()
        self._changed = threading.Condition(self._mutex)
        self._idle, self._open, self._users = [], 0, 0
        self._epoch += 1
        self._exclusive = False
        self._held = threading.local()
        self._writer = threading.Lock()
        _abandoned.extend(self._readers)
        if self._copy is not None:
            _abandoned.append(self._copy)
        self._readers, self._copy = [], None
        self._copy_lock = threading.Lock()

    # -- connections -------------------------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        """The connection this thread holds inside ``connection()`` (``RuntimeError`` outside)."""
        conn: sqlite3.Connection | None = getattr(self._held, "conn", None)
        if conn is None:
            raise RuntimeError("SearchIndex.conn is only valid inside `with index.connection():`")
        return conn

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """A connection for this thread alone for the block (re-entrant: a nested block gets the
        same one). Taken from the pool, or opened; put back after, or closed if ``close()`` ran
        meanwhile."""
        held = getattr(self._held, "conn", None)
        if held is not None:
            yield held
            return
        conn, epoch = self._checkout()
        self._held.conn = conn
        try:
            yield conn
        finally:
            self._held.conn = None
            self._checkin(conn, epoch)

    def close(self) -> None:
        """Close the idle connections; those in use are closed when their block ends. The index
        opens again on next use. Safe from any thread, at any time."""
        with self._mutex:
            idle, self._idle = self._idle, []
            readers, self._readers = self._readers, []
            self._epoch += 1
            self._open = 0  # the ones in use belong to the old epoch now
            self._changed.notify_all()
        for conn in idle + readers:
            conn.close()
        self._drop_copy()

    def _checkout(self) -> tuple[sqlite3.Connection, int]:
        for _ in range(3):
            now = _file_of(self.path)
            replaced: list[sqlite3.Connection] = []
            with self._mutex:
                while self._exclusive or (
                    self._limit is not None and not self._idle and self._open >= self._limit
                ):
                    self._changed.wait()
                while self._idle and not _opened_on(self._idle[-1], now):
                    replaced.append(self._idle.pop())  # its file was deleted or replaced since
                    self._open -= 1
                self._users += 1
                epoch = self._epoch
                conn = self._idle.pop() if self._idle else None
                if conn is None:
                    self._open += 1
            for old in replaced:
                old.close()
            if conn is not None:
                return conn, epoch
            try:
                return self._open_checked(), epoch
            except _Damaged:
                self._release_slot(epoch)
            except BaseException:
                self._release_slot(epoch)
                raise
            self._exclusively(self._recreate_if_damaged)
        raise RecallError(f"{self.path}: the index stays unusable after being rebuilt")

    def _checkin(self, conn: sqlite3.Connection, epoch: int) -> None:
        if conn.in_transaction:  # an error left one open (a rollback that itself failed)
            try:
                conn.rollback()
            except sqlite3.Error:
                pass
        with self._mutex:
            self._users -= 1
            keep = epoch == self._epoch and not self._exclusive
            if keep:
                self._idle.append(conn)
            self._changed.notify_all()
        if not keep:
            conn.close()

    def _release_slot(self, epoch: int) -> None:
        """A checkout that got no connection gives its place back."""
        with self._mutex:
            self._users -= 1
            if epoch == self._epoch:
                self._open -= 1
            self._changed.notify_all()

    def _exclusively(self, work: Callable[[], T]) -> T:
        """Run ``work`` with no connection of this process open on the file (moving it aside or
        rebuilding it under an open connection would corrupt the new one): waits for the blocks in
        progress to end, closes the idle connections, and lets nobody check out meanwhile."""
        if getattr(self._held, "conn", None) is not None:
            raise RuntimeError("the index cannot be rebuilt inside `with index.connection():`")
        with self._mutex:
            while self._exclusive:
                self._changed.wait()
            self._exclusive = True
            while self._users:
                self._changed.wait()
            idle, self._idle = self._idle + self._readers, []
            self._readers = []
            self._epoch += 1
            self._open = 0
        try:
            for conn in idle:
                conn.close()
            return work()
        finally:
            with self._mutex:
                self._exclusive = False
                self._changed.notify_all()

    def _connect(self) -> sqlite3.Connection:
        if not self.workspace.memory_dir.is_dir():
            # A workspace without memory/ (sessions only, say): index in memory, create nothing on
            # disk. Each such connection is a database of its own, so the pool keeps just one.
            self._limit = 1
            return sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        self._limit = None
        if not self.path.parent.is_dir():  # an index directory outside the workspace (indexDir)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise RecallError(
                    f"cannot create the index directory {self.path.parent}: {exc.strerror}"
                ) from exc
        # check_same_thread=False: a pooled connection moves between threads, one at a time
        # which file it opens, taken first: a file replaced in between makes it look replaced
        # (closed and opened again), never the reverse
        file = _file_of(self.path)
        conn = sqlite3.connect(
            self.path, timeout=30, isolation_level=None, check_same_thread=False, factory=_OnFile
        )
        conn.file = file
        conn.execute(f"PRAGMA journal_mode={journal_mode_for(self.journal)}")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _open_checked(self) -> sqlite3.Connection:
        """Open a connection, waiting out another process that holds the file locked (creating it,
        say): a busy index is not a corrupt one and must never be moved aside. ``_Damaged`` when
        the file is not a usable index."""
        deadline = time.monotonic() + OPEN_TIMEOUT
        polls = 0
        while True:
            try:
                return self._open_once()
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise RecallError(f"{self.path}: {exc}") from exc
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(
                        f"{self.path} stayed locked for {OPEN_TIMEOUT:.0f}s ({exc})"
                    ) from None
                polls += 1
                time.sleep(capped_backoff(polls, 0.01, 0.5))

    def _open_once(self) -> sqlite3.Connection:
        """A connection to a usable index, creating the schema in a new file; ``_Damaged`` for a
        corrupt or foreign-version file (moved aside by ``_recreate_if_damaged``) or another
        workspace's index (deleted)."""
        fresh = not self.path.exists()
        conn = self._connect()
        try:
            if (
                not fresh
                and not conn.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                ).fetchone()[0]
            ):
                # an empty database: another process is creating it right now, or a crash did
                fresh = True
            if not fresh:
                meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
                if (
                    meta.get("schema_version") != SCHEMA_VERSION
                    or meta.get("tokenizer") != TOKENIZER
                ):
                    raise _Damaged(
                        f"schema version {meta.get('schema_version')!r}, "
                        f"expected {SCHEMA_VERSION!r}"
                    )
                if meta.get("workspace_id", "") != self._identity():
                    # another workspace's index, one removed since (see `_identity`)
                    raise _Damaged("the index of a workspace no longer at this path", stale=True)
                conn.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'x'"
                ).fetchone()
                return conn
            self._create_schema(conn, self._identity())
            if isinstance(conn, _OnFile) and conn.file is None:  # the file it has just created
                conn.file = _file_of(self.path)
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            if isinstance(exc, sqlite3.OperationalError) and _busy(exc):
                raise  # _open_checked waits and retries
            if _refused(exc):  # not damage: the file is left as it is
                raise RecallError(f"{self.path}: the index cannot be written ({exc})") from exc
            raise _Damaged(f"unreadable ({exc})") from exc
        except BaseException:
            conn.close()
            raise

    @staticmethod
    def _create_schema(conn: sqlite3.Connection, identity: str) -> None:
        with transaction(conn):
            for statement in _statements(_SCHEMA):
                conn.execute(statement)
            # Idempotent: two processes creating the index at once both succeed (the second changes
            # nothing).
            conn.executemany(
                "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)",
                [
                    ("schema_version", SCHEMA_VERSION),
                    ("tokenizer", TOKENIZER),
                    ("history_cursor", "0"),
                    ("history_first", "0"),
                    ("generation", "0"),
                    ("workspace_id", identity),
                ],
            )

    def _recreate_if_damaged(self) -> None:
        """(Exclusively.) Check the file again: move it aside when it is still damaged, delete it
        when it is another workspace's; another thread may have rebuilt it while this one waited."""
        try:
            self._open_checked().close()
        except _Damaged as exc:
            if exc.stale:
                log.info("%s: %s; dropped", self.path, exc)
                self._drop_files()
            else:
                log.warning("%s: %s; rebuilding the index from the workspace files", self.path, exc)
                self._move_aside()
            self._rebuilt_on_open = True

    def _identity(self) -> str:
        """The workspace's identity (``reverie.storage.workspace.workspace_id``; "" when it has
        none), which the index records: an index kept outside the workspace (``indexDir``, keyed by
        the path) of a workspace removed since — a user forgotten, then back at the same path — is
        another workspace's, dropped on open and never searched."""
        return workspace_id(self.workspace) or ""

    def _drop_files(self) -> None:
        """Delete the index and its journal files, and what an earlier move aside left: what
        another workspace left is deleted, never kept aside."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(self.path) + suffix).unlink(missing_ok=True)
            Path(str(self.path) + ".corrupt" + suffix).unlink(missing_ok=True)

    def _move_aside(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                try:
                    os.replace(p, Path(str(self.path) + ".corrupt" + suffix))
                except OSError:
                    p.unlink(missing_ok=True)

    def rebuild(self) -> SyncStats:
        """Drop the index and build it again from the files."""

        self._exclusively(self._drop_files)
        stats = self.sync()
        stats.rebuilt = True
        return stats

    # -- sync --------------------------------------------------------------------------------------
    def sync(self) -> SyncStats:
        """Bring the index in step with the files, touching only what changed. One transaction."""
        try:
            with self.connection() as conn:
                return self._sync_once(conn)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and _busy(exc):
                raise RecallError(
                    f"{self.path}: the index stayed locked by another process for 30s ({exc})"
                ) from exc
            if _refused(exc):  # a full disk is not damage: the sync is rolled back, the file kept
                raise RecallError(
                    f"{self.path}: the index was not updated ({exc}); it is left as it was"
                ) from exc
            log.warning("%s: %s during sync; rebuilding the index", self.path, exc)
            self._exclusively(self._move_aside)
            with self.connection() as conn:
                stats = self._sync_once(conn)
            stats.rebuilt = True
            return stats

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection in a write transaction, one writer of this process at a time
        (the others wait here rather than in SQLite's busy loop); other processes wait in SQLite."""
        with self.connection() as conn, self._writer, transaction(conn):
            yield conn

    # -- queries (they never write) ----------------------------------------------------------------
    def refresh(self, *, vectors: str | None = None) -> SyncStats:
        """Before a query: make what ``reading()`` reads match the files, writing nothing in the
        workspace. The file itself when it is in step with them (and, with ``vectors``, an embedding
        model, holds a vector of that model for every chunk); else this process's private copy,
        brought in step (what that sync changed is returned)."""
        if getattr(self._held, "conn", None) is not None:
            raise RuntimeError("refresh() cannot run inside `with index.reading():`")
        reader, epoch = self._reader()
        if reader is not None:
            self._held.conn = reader
            try:
                if self._up_to_date() and (vectors is None or not self._unembedded(vectors)):
                    self._drop_copy()
                    return SyncStats()
            except sqlite3.DatabaseError as exc:
                log.debug("%s: not read (%s); reading a private copy", self.path, exc)
            finally:
                self._held.conn = None
                self._return_reader(reader, epoch)
        with self._copy_lock:
            copy = self._copy if self._copy is not None else self._make_copy()
            self._held.conn = copy
            try:
                return self._sync_once(copy)
            finally:
                self._held.conn = None

    @contextmanager
    def reading(self, *, private: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection for one block of a query (re-entrant, like ``connection()``): the private
        copy while there is one (or, with ``private``, one made now: a query that stores what it
        computed, such as vectors, stores them there), else the file, read-only."""
        held = getattr(self._held, "conn", None)
        if held is not None:
            yield held
            return
        if self._copy is None and not private:
            reader, epoch = self._reader()
            if reader is not None:
                self._held.conn = reader
                try:
                    yield reader
                finally:
                    self._held.conn = None
                    self._return_reader(reader, epoch)
                return
        with self._copy_lock:
            fresh = self._copy is None  # the file went (or cannot be read) since ``refresh``
            copy = self._make_copy() if self._copy is None else self._copy
            self._held.conn = copy
            try:
                if fresh:
                    self._sync_once(copy)
                yield copy
            finally:
                self._held.conn = None

    def state(self) -> tuple[int, int]:
        """What this thread's block reads, for caches: (0 for the file or the number of the private
        copy, its generation)."""
        conn = self.conn
        row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return (self._copies if conn is self._copy else 0, int(row[0]) if row else 0)

    def _unembedded(self, model: str) -> bool:
        """Whether a chunk of this thread's block has no vector of ``model``."""
        return (
            self.conn.execute(
                "SELECT 1 FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM embeddings e "
                "WHERE e.ehash = c.ehash AND e.model = ?) LIMIT 1",
                (model,),
            ).fetchone()
            is not None
        )

    def _reader(self) -> tuple[sqlite3.Connection | None, int]:
        """An idle read-only connection to the file, or a new one; None when there is no file or
        it cannot be read as this workspace's index of this version (the query reads a private
        copy then)."""
        now = _file_of(self.path)
        replaced: list[sqlite3.Connection] = []
        with self._mutex:
            epoch = self._epoch
            while self._readers and not _opened_on(self._readers[-1], now):
                replaced.append(self._readers.pop())  # its file was deleted or replaced since
            idle = self._readers.pop() if self._readers else None
        for old in replaced:
            old.close()
        if idle is not None:
            return idle, epoch
        if not self.path.is_file():
            return None, epoch
        try:
            with open(self.path, "rb") as f:
                header = f.read(20)
        except OSError:
            return None, epoch
        if header[18:20] == b"\x02\x02" and self.journal != "wal":
            # a WAL file (an older version's): its reader would create -wal/-shm files
            return None, epoch
        file = _file_of(self.path)  # first, as in ``_connect``
        try:
            conn = sqlite3.connect(
                f"file:{quote(os.fspath(self.path))}?mode=ro",
                uri=True,
                timeout=30,
                isolation_level=None,
                check_same_thread=False,
                factory=_OnFile,
            )
            conn.file = file
        except sqlite3.Error as exc:
            log.debug("%s: cannot be opened read-only: %s", self.path, exc)
            return None, epoch
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.Error as exc:
            conn.close()
            log.debug("%s: cannot be read: %s", self.path, exc)
            return None, epoch
        if (
            meta.get("schema_version") != SCHEMA_VERSION
            or meta.get("tokenizer") != TOKENIZER
            or meta.get("workspace_id", "") != self._identity()
        ):
            conn.close()
            return None, epoch
        return conn, epoch

    def _return_reader(self, conn: sqlite3.Connection, epoch: int) -> None:
        with self._mutex:
            keep = epoch == self._epoch and not self._exclusive
            if keep:
                self._readers.append(conn)
        if not keep:
            conn.close()

    def _make_copy(self) -> sqlite3.Connection:
        """(Under ``_copy_lock``.) The private copy: a backup of the file when it can be read, else
        an empty index."""
        copy = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        reader, epoch = self._reader()
        copied = False
        if reader is not None:
            try:
                reader.backup(copy)
                copied = True
            except sqlite3.Error as exc:
                log.debug("%s: not copied (%s); indexing the files afresh", self.path, exc)
            finally:
                self._return_reader(reader, epoch)
        if not copied:
            copy.close()
            copy = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self._create_schema(copy, self._identity())
        self._copies += 1
        self._copy = copy
        return copy

    def _drop_copy(self) -> None:
        if self._copy is None:
            return
        with self._copy_lock:
            copy, self._copy = self._copy, None
        if copy is not None:
            copy.close()

    def _sync_once(self, conn: sqlite3.Connection) -> SyncStats:
        stats = SyncStats(rebuilt=self._rebuilt_on_open)
        self._rebuilt_on_open = False
        if self._up_to_date():
            return stats  # the common case for a query: stats only, no write lock taken
        with self.writing():
            if self._up_to_date():
                return stats  # another thread synced it while this one waited
            indexed = {
                row[0]: row[1:]
                for row in conn.execute("SELECT path, kind, size, mtime_ns, hash FROM files")
            }
            seen: set[str] = set()
            for rel, kind, file in self._file_sources():
                seen.add(rel)
                self._sync_file(rel, kind, file, indexed.get(rel), stats)
            for rel, (_kind, *_rest) in indexed.items():
                if rel not in seen:
                    stats.removed += self._delete_path(rel)
                    conn.execute("DELETE FROM files WHERE path = ?", (rel,))
                    stats.files_changed.append(rel)
            self._sync_history(stats)
            if stats.changed:
                conn.execute(
                    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"
                )
        return stats

    def _up_to_date(self) -> bool:
        """Read-only check: every source file's (size, mtime) and history.jsonl's identity match the
        index. A file indexed within its mtime's granularity (mtime recorded as -1, see
        `_trusted_mtime`) matches when its size and content hash do: right after a writer's sync,
        the files it just wrote are in step without waiting for another sync."""
        indexed = {
            row[0]: (row[1], row[2], row[3])
            for row in self.conn.execute("SELECT path, size, mtime_ns, hash FROM files")
        }
        seen = 0
        for rel, _kind, file in self._file_sources():
            try:
                st = file.stat()
            except FileNotFoundError:
                continue
            known = indexed.get(rel)
            if known is None or known[0] != st.st_size:
                return False
            if known[1] != st.st_mtime_ns and not (known[1] == -1 and _same_hash(file, known[2])):
                return False
            seen += 1
        if seen != len(indexed):
            return False
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'history_stat'").fetchone()
        return row is not None and row[0] == self._history_stat()

    def _history_replaced(self) -> bool:
        """Whether history.jsonl is another file than the one this index last read (its inode
        changed: appends keep it, an atomic rewrite never does)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'history_stat'").fetchone()
        if row is None or row[0] == "missing":
            return False
        last: str = row[0]
        return last.split(":", 1)[0] != self._history_stat().split(":", 1)[0]

    def _history_stat(self) -> str:
        try:
            st = self.history.path.stat()
        except FileNotFoundError:
            return "missing"
        return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"

    def _file_sources(self) -> Iterable[tuple[str, str, Path]]:
        ws = self.workspace
        for rel in MEMORY_FILES:
            yield rel, "memory", ws.root / rel
        # Dream's curated archive: memory, never decays
        for name, file in _regular_files(ws.root / ARCHIVE_DIR):
            if name.endswith(".md"):
                yield f"{ARCHIVE_DIR}/{name}", "memory", file
        for name, file in _regular_files(ws.memory_dir):
            if DATED_RE.match(name):
                yield f"memory/{name}", "dated", file
        topics = ws.root / TOPICS_DIR
        if not topics.is_symlink():  # topic files (reverie.storage.topics): evergreen memory
            for rel, file in walk_tree(topics):
                yield f"{TOPICS_DIR}/{rel}", "memory", file
        if self.include_sessions:
            for name, file in _regular_files(ws.sessions_dir):
                if name.endswith(".jsonl"):
                    yield f"sessions/{name}", "session", file

    def _sync_file(
        self,
        rel: str,
        kind: str,
        file: Path,
        known: tuple[str, int, int, str] | None,
        stats: SyncStats,
    ) -> None:
        """Re-chunk ``file`` unless ``known`` (its ``files`` row: kind, size, mtime_ns, hash) shows
        it unchanged."""
        conn = self.conn
        try:
            st = file.stat()
        except FileNotFoundError:
            return  # not seen → handled as a deletion by the caller when it was indexed
        if known is not None and known[1] == st.st_size and known[2] == st.st_mtime_ns:
            return
        try:
            raw = file.read_bytes()
        except OSError as exc:
            log.warning("%s: cannot be read for indexing: %s", file, exc.strerror)
            return
        digest = content_hash(raw)
        if known is not None and known[3] == digest:
            conn.execute(
                "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?",
                (st.st_size, _trusted_mtime(st), rel),
            )
            return
        chunks = self._chunk_file(rel, kind, file, raw)
        added, removed = self._replace_chunks(rel, chunks)
        stats.added += added
        stats.removed += removed
        stats.files_changed.append(rel)
        conn.execute(
            "INSERT OR REPLACE INTO files(path, kind, size, mtime_ns, hash) VALUES (?, ?, ?, ?, ?)",
            (rel, kind, st.st_size, _trusted_mtime(st), digest),
        )

    def _chunk_file(self, rel: str, kind: str, file: Path, raw: bytes) -> list[Chunk]:
        if kind == "session":
            try:
                session = self._sessions.load(file)
            except SessionError as exc:
                log.warning("%s: not indexed: %s", file, exc)
                return []
            return chunk_session(rel, session.key, session.messages) if session is not None else []
        ts = dated_file_time(file.name) if kind == "dated" else None
        return chunk_markdown(
            rel,
            decode(raw, rel),
            kind=kind,
            ts=ts,
            evergreen=kind == "memory",
            leave_out=starter_prose(rel),
        )

    def _replace_chunks(self, rel: str, chunks: list[Chunk]) -> tuple[int, int]:
        """Delete the file's chunks whose hash is gone, insert the new ones; unchanged chunks stay
        put."""
        conn = self.conn
        existing = {
            h: i for i, h in conn.execute("SELECT id, hash FROM chunks WHERE path = ?", (rel,))
        }
        wanted = {c.hash: c for c in chunks}
        stale = [(i,) for h, i in existing.items() if h not in wanted]
        conn.executemany("DELETE FROM chunks WHERE id = ?", stale)
        new = [c for h, c in wanted.items() if h not in existing]
        self._insert(new)
        return len(new), len(stale)

    def _insert(self, chunks: list[Chunk]) -> None:
        self.conn.executemany(
            "INSERT INTO chunks(path, kind, ord, hash, ehash, text, title, "
            "ctx, line_start, line_end, cursor, session_key, msg_index, "
            "ts, evergreen) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    c.path,
                    c.kind,
                    c.ord,
                    c.hash,
                    c.ehash,
                    c.text,
                    c.title,
                    c.ctx,
                    c.line_start,
                    c.line_end,
                    c.cursor,
                    c.session_key,
                    c.msg_index,
                    c.ts,
                    int(c.evergreen),
                )
                for c in chunks
            ],
        )

    def _delete_path(self, rel: str) -> int:
        return self.conn.execute("DELETE FROM chunks WHERE path = ?", (rel,)).rowcount

    def _sync_history(self, stats: SyncStats) -> None:
        conn = self.conn
        stat_before = self._history_stat()
        meta = dict(
            conn.execute(
                "SELECT key, value FROM meta WHERE key IN ('history_cursor', 'history_first')"
            )
        )
        done, first_known = int(meta.get("history_cursor", 0)), int(meta.get("history_first", 0))
        last = self.history.last_cursor() if self.history.path.exists() else 0
        if last < done or (done and not self.history.path.exists()) or self._history_replaced():
            # The log was replaced by an older or different one (or rewritten whole: a purge's or
            # a redaction's new file keeps the cursors and changes entries): re-read it whole.
            stats.removed += self._delete_path(HISTORY_PATH)
            done = first_known = 0
        first = _first_cursor(self.history.path)
        if first and first > first_known and done:
            # Compaction dropped old entries: drop them from the index too.
            stats.removed += conn.execute(
                "DELETE FROM chunks WHERE path = ? AND cursor < ?", (HISTORY_PATH, first)
            ).rowcount
        while True:
            entries = self.history.read_since(done, limit=_BATCH)
            if not entries:
                break
            self._insert([chunk_history(e, HISTORY_PATH) for e in entries])
            stats.added += len(entries)
            stats.history_entries += len(entries)
            done = entries[-1].cursor
        # The identity read before reading: an append racing this sync changes it, so the next sync
        # looks again.
        conn.executemany(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            [
                ("history_cursor", str(done)),
                ("history_first", str(first or first_known)),
                ("history_stat", stat_before),
            ],
        )

    # -- reading -----------------------------------------------------------------------------------
    def generation(self) -> int:
        with self.connection() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def count(self) -> int:
        with self.connection() as conn:
            return int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])


#: Every index of this process (for ``_after_fork``), and the connections a forked child inherited.
_live: weakref.WeakSet[SearchIndex] = weakref.WeakSet()
_abandoned: list[sqlite3.Connection] = []


def _after_fork_in_child() -> None:
    for index in list(_live):
        index._after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)


class _Damaged(Exception):
    """Internal: the index file is not a usable index (corrupt, or another schema version), or it
    is ``stale``: another workspace's, deleted rather than kept aside."""

    def __init__(self, message: str, *, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


class _OnFile(sqlite3.Connection):
    """A connection to the index file, knowing which file it opened (device, inode): a pooled one
    whose file was deleted or replaced since (a purge deletes the index, another process rebuilds
    it, a damaged one is moved aside) is closed rather than used. Writing through it would fail
    ("readonly database") and be taken for damage, moving the new, good index aside; reading
    through it would search the old file, and keep its bytes on disk, for as long as the process
    lives."""

    file: tuple[int, int] | None = None


def _file_of(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file at ``path`` (None when there is none)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _opened_on(conn: sqlite3.Connection, now: tuple[int, int] | None) -> bool:
    """Whether ``conn`` is on the file the path holds ``now`` (an in-memory one always is)."""
    if not isinstance(conn, _OnFile) or conn.file is None:
        return True
    return conn.file == now


def _regular_files(directory: Path) -> list[tuple[str, Path]]:
    """(name, path) of the regular files in ``directory`` (symlinks excluded), by name; none if it
    is missing. One directory read and no stat per entry: every query's up-to-date check lists
    these."""
    try:
        with os.scandir(directory) as it:
            found = [(e.name, e.path) for e in it if e.is_file(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [(name, Path(path)) for name, path in sorted(found)]


def _trusted_mtime(st: os.stat_result) -> int:
    """The mtime to remember, or -1 when it is too recent to trust: a same-size edit within the
    filesystem's timestamp granularity would otherwise look unchanged (git's "racy" case). -1 forces
    a re-hash next sync."""
    return st.st_mtime_ns if time.time_ns() - st.st_mtime_ns > 2_000_000_000 else -1


def _same_hash(file: Path, digest: str) -> bool:
    try:
        return content_hash(file.read_bytes()) == digest
    except OSError:
        return False


def _first_cursor(path: Path) -> int:
    """The cursor of the first valid line of history.jsonl (0 when none), reading only its head."""
    try:
        with open(path, "rb") as f:
            for raw in f:
                if raw.strip():
                    try:
                        return HistoryEntry.from_json(raw).cursor
                    except BadLine:
                        continue
    except FileNotFoundError:
        return 0
    return 0


def _statements(script: str) -> list[str]:
    out, buf = [], []
    for line in script.strip().splitlines():
        buf.append(line)
        joined = "\n".join(buf)
        if joined.rstrip().endswith(";") and sqlite3.complete_statement(joined):
            out.append(joined)
            buf = []
    return out


class transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error (the connection is in autocommit
    mode)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")  # a failed commit: the pool rolls back (``_checkin``)
        elif self.conn.in_transaction:  # SQLite has rolled back already after a full disk or I/O
            try:  # error; a rollback that fails must not hide the error that caused it
                self.conn.execute("ROLLBACK")
            except sqlite3.Error as exc:
                log.debug("%s: rollback failed (%s)", self.conn, exc)


#: How long opening the index waits for another process holding it locked.
OPEN_TIMEOUT = 30.0


#: What SQLite says when the disk refuses a write: no room (SQLITE_FULL; a file size limit is a
#: failed write), a read-only file system, a failed write or fsync.
_REFUSED = frozenset(
    {
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR_WRITE,
        sqlite3.SQLITE_IOERR_FSYNC,
        sqlite3.SQLITE_IOERR_DIR_FSYNC,
        sqlite3.SQLITE_IOERR_TRUNCATE,
    }
)


def _refused(exc: sqlite3.DatabaseError) -> bool:
    """The disk refused a write: the database is not damaged (the transaction is rolled back), and
    moving it aside or rebuilding it would only need more of what the disk refused."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return "is full" in str(exc)
    if code == sqlite3.SQLITE_READONLY_DBMOVED:
        return False  # the file was replaced under the connection: opened again, as damage is
    return code in _REFUSED or code & 0xFF in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY)


def _busy(exc: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED: another connection holds the database; it is not damaged."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text


# -- where the index lives, and its journal --------------------------------------------------------
def index_location(workspace: Workspace, index_dir: str | None) -> Path:
    """Where a workspace's index lives: ``memory/.index.sqlite``, or under ``index_dir`` (see the
    module docstring)."""
    if not index_dir:
        return workspace.memory_dir / INDEX_NAME
    key = hashlib.sha256(os.fsencode(os.path.realpath(workspace.root))).hexdigest()[:32]
    return Path(index_dir).expanduser() / key[:2] / f"{key}.sqlite"


def remove_external_index(workspace: Workspace, index_dir: str | None) -> list[Path]:
    """Delete a workspace's index kept under ``index_dir`` (with its journal files); returns what
    was removed. An index inside the workspace goes with the workspace, so nothing is done for it.
    """
    if not index_dir:
        return []
    path = index_location(workspace, index_dir)
    removed = []
    for suffix in (
        "",
        "-wal",
        "-shm",
        "-journal",
        ".corrupt",
        ".corrupt-wal",
        ".corrupt-shm",
        ".corrupt-journal",
    ):
        p = Path(str(path) + suffix)
        if p.exists():
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed


def journal_mode_for(setting: str) -> str:
    """The SQLite journal mode for ``setting``: ``WAL`` for "wal", else the rollback journal
    (``DELETE``), which queries read without creating a file and which works on a network file
    system (WAL's shared-memory file needs one host)."""
    return "WAL" if setting == "wal" else "DELETE"
