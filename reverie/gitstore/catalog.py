"""The log's catalog: memory's first-parent history, read once per process and kept, so a filtered
log (a kind, a file, a text, a date range) on a long history scans a list in memory instead of
reading every commit again.

``GitStore.log`` reads through it. One catalog per repository (its git dir) and process, shared by
every ``GitStore`` on that repository — the UI's verbs each run on a handle of their own, in worker
threads, so a catalog per handle would be read again by every request. It is a cache of facts that
never change (a commit is immutable) and reads like any query: it takes no repo lock and writes
nothing. It is built lazily and kept in step with HEAD:

- **down**: the chain is read from HEAD only as deep as a query needs (``log(limit=1,
  kind="dream")`` reads to the first Dream commit, as a walk would); what was read stays;
- **up**: when HEAD has moved, the commits from the new HEAD down to the old one are read and put on
  top; when the old HEAD is not on the new chain (a purge rewrote history, a reset), the catalog
  starts again;
- each commit's facts: its kind, time, subject and parent when read; the files it changed when a
  file is asked about; the lines it added and removed (for a text query) when a text is asked
  about; the log's value (``CommitInfo``) once a log shows it — each computed once.

A commit that cannot be read (missing, damaged) ends the chain where it is: the catalog keeps the
sha (``unreadable``), ``GitStore.problems`` reports it, and the log shows the commits above it.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from dulwich.objects import Commit, ObjectID

from ..errors import GitStoreError
from .diffing import parse_stat_body
from .objects import ObjectReader, commit_datetime, read_blob, read_blob_ids, read_commit
from .queries import SHORT
from .trailers import KIND, split_message
from .types import CommitInfo

log = logging.getLogger(__name__)

__all__ = ["Catalog", "LogFilter", "catalog_for", "query", "CATALOGS"]

#: Repositories whose catalog a process keeps (least recently used dropped first).
CATALOGS = 16
#: Commits read at a time when a query needs the chain deeper than the catalog holds.
CHUNK = 256
#: Commits read from a moved HEAD looking for the old one before the catalog starts again.
RESYNC = 4096


@dataclass(frozen=True)
class LogFilter:
    """What a log asks for: a commit ``kind``, a changed ``path``, a ``text`` (case-insensitive, in
    the subject or in a line the commit added or removed), commit dates ``since`` / ``until``
    (inclusive, each commit's own local date). Empty: every commit."""

    kind: str | None = None
    path: str | None = None
    text: str | None = None
    since: date | None = None
    until: date | None = None

    @property
    def empty(self) -> bool:
        return not (self.kind is not None or self.path or self.text or self.since or self.until)


@dataclass(eq=False)
class _Entry:
    sha: ObjectID
    parent: ObjectID | None
    tree: ObjectID
    day: date
    kind: str
    subject: str
    stat_files: tuple[str, ...] | None  # from a Reverie commit's body: no tree read needed
    files: tuple[str, ...] | None = None  # computed on the first file query
    text: str | None = None  # subject and changed lines, lower-cased: on the first text query
    info: CommitInfo | None = None  # the log's value, once it was shown


@dataclass(eq=False)
class Catalog:
    """One repository's first-parent chain, newest first (see the module docstring). Each entry
    has a serial number that never changes while the catalog lives (newer commits put on top get
    lower ones), so a query read in chunks, the lock let go between them, keeps its place;
    ``generation`` changes when the catalog starts again."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    head: ObjectID | None = None
    entries: list[_Entry] = field(default_factory=list)
    serial: dict[ObjectID, int] = field(default_factory=dict)  # sha -> serial (top: lowest)
    top: int = 0  # the serial of entries[0]
    next: ObjectID | None = None  # the commit to read to go deeper; None: the chain is complete
    unreadable: ObjectID | None = None  # where the chain ended on a commit that cannot be read
    generation: int = 0

    # -- keeping it in step ------------------------------------------------------------------------
    def _reset(self, head: ObjectID | None) -> None:
        self.head, self.entries, self.serial, self.top = head, [], {}, 0
        self.next, self.unreadable = head, None
        self.generation += 1

    def _read(self, store: ObjectReader, sha: ObjectID) -> _Entry | None:
        """The entry of commit ``sha``; None (and ``unreadable`` set) when it cannot be read."""
        try:
            commit = read_commit(store, sha)
        except (KeyError, GitStoreError) as exc:
            if self.unreadable != sha:
                log.warning(
                    "log: commit %s cannot be read (%s); the history before it is not shown",
                    sha.decode(errors="replace")[:SHORT],
                    type(exc).__name__,
                )
            self.unreadable = sha
            return None
        return _entry(commit, sha)

    def sync(self, store: ObjectReader, head: ObjectID | None) -> None:
        """Bring the catalog up to ``head`` (call with ``lock`` held)."""
        if head == self.head:
            return
        if self.head is None or head is None or not self.entries:
            self._reset(head)
            return
        fresh: list[_Entry] = []
        sha: ObjectID | None = head
        while sha is not None and sha != self.head and len(fresh) < RESYNC:
            entry = self._read(store, sha)
            if entry is None:
                break
            fresh.append(entry)
            sha = entry.parent
        if sha != self.head:  # the old HEAD is not below the new one: start again
            self._reset(head)
            return
        self.top -= len(fresh)
        for k, entry in enumerate(fresh):
            self.serial[entry.sha] = self.top + k
        self.entries[:0] = fresh
        self.head = head

    def deepen(self, store: ObjectReader, count: int = CHUNK) -> bool:
        """Read up to ``count`` more commits down the chain; False when it is complete."""
        if self.next is None:
            return False
        for _ in range(count):
            sha = self.next
            if sha is None:
                break
            entry = self._read(store, sha)
            if entry is None:
                self.next = None
                break
            self.serial[sha] = self.top + len(self.entries)
            self.entries.append(entry)
            self.next = entry.parent
        return True

    def cut(self, sha: ObjectID) -> None:
        """``sha`` turned out unreadable after it was read (damaged since): the chain ends above it
        (call with ``lock`` held)."""
        at = self.serial.get(sha)
        if at is None:
            return
        for entry in self.entries[at - self.top :]:
            self.serial.pop(entry.sha, None)
        del self.entries[at - self.top :]
        self.next, self.unreadable = None, sha

    def info(self, sha: ObjectID) -> CommitInfo | None:
        """The log's value for ``sha`` if it was built before (call with ``lock`` held)."""
        at = self.serial.get(sha)
        return self.entries[at - self.top].info if at is not None else None

    def keep_info(self, info: CommitInfo) -> None:
        """Keep the log's value of a commit in the catalog (commits never change; call with
        ``lock`` held)."""
        at = self.serial.get(ObjectID(info.sha.encode()))
        if at is not None:
            self.entries[at - self.top].info = info

    def place(self, store: ObjectReader, sha: ObjectID) -> int | None:
        """The serial of ``sha`` in the chain, reading deeper as needed (one chunk at a time; call
        with ``lock`` held); None when it is not on the chain."""
        while True:
            found = self.serial.get(sha)
            if found is not None:
                return found
            if not self.deepen(store):
                return None

    # -- a commit's files and lines, each computed once --------------------------------------------
    def _changes(
        self, store: ObjectReader, entry: _Entry, paths: Callable[[Commit], list[str]]
    ) -> dict[str, tuple[ObjectID | None, ObjectID | None]]:
        """The files ``entry`` changed: path -> (blob before, blob after). A Reverie commit's body
        names them; another's are looked for among the tracked files."""
        at = self.serial.get(entry.parent) if entry.parent is not None else None
        before: ObjectID | None = None
        if at is not None:
            before = self.entries[at - self.top].tree
        elif entry.parent is not None:
            before = read_commit(store, entry.parent).tree
        if entry.stat_files is not None:
            files = list(entry.stat_files)
        else:
            files = paths(read_commit(store, entry.sha))
        new = read_blob_ids(store, entry.tree, files)
        old = read_blob_ids(store, before, files) if before is not None else dict.fromkeys(files)
        return {p: (old[p], new[p]) for p in files if old[p] != new[p]}

    def _files(
        self, store: ObjectReader, entry: _Entry, paths: Callable[[Commit], list[str]]
    ) -> tuple[str, ...]:
        if entry.files is None:
            if entry.stat_files is not None:
                entry.files = entry.stat_files
            else:
                try:
                    entry.files = tuple(self._changes(store, entry, paths))
                except (KeyError, GitStoreError):
                    entry.files = ()
        return entry.files

    def _text(
        self, store: ObjectReader, entry: _Entry, paths: Callable[[Commit], list[str]]
    ) -> str:
        """The subject and every line the commit added or removed, lower-cased (a line that only
        moved counts as neither)."""
        if entry.text is None:
            parts = [entry.subject]
            try:
                for old_id, new_id in self._changes(store, entry, paths).values():
                    old = _lines(read_blob(store, old_id))
                    new = _lines(read_blob(store, new_id))
                    parts.extend((new - old).elements())
                    parts.extend((old - new).elements())
            except (KeyError, GitStoreError):
                pass
            entry.text = "\n".join(parts).lower()
        return entry.text

    # -- queries -----------------------------------------------------------------------------------
    def select(
        self,
        store: ObjectReader,
        start: int,
        limit: int,
        wanted: LogFilter,
        paths: Callable[[Commit], list[str]],
        budget: int = CHUNK,
    ) -> tuple[list[ObjectID], int | None]:
        """From serial ``start`` down, the shas of up to ``limit`` commits ``wanted`` matches,
        newest first, looking at no more than ``budget`` commits (call with ``lock`` held). Also
        the serial to go on from, or None when the chain is done."""
        out: list[ObjectID] = []
        needle = wanted.text.lower() if wanted.text else None
        at = start
        for _ in range(budget):
            if len(out) >= limit:
                break
            i = at - self.top
            if i >= len(self.entries) and not self.deepen(store):
                return out, None
            if i >= len(self.entries):
                return out, at  # (deepen read nothing more: the next call says so)
            entry = self.entries[i]
            at += 1
            if wanted.kind is not None and entry.kind != wanted.kind:
                continue
            if wanted.since is not None and entry.day < wanted.since:
                continue
            if wanted.until is not None and entry.day > wanted.until:
                continue
            if wanted.path and wanted.path not in self._files(store, entry, paths):
                continue
            if needle is not None and needle not in self._text(store, entry, paths):
                continue
            out.append(entry.sha)
        return out, at


def _entry(commit: Commit, sha: ObjectID) -> _Entry:
    subject, body, trailers = split_message(commit.message.decode("utf-8", errors="replace"))
    kind = trailers.get(KIND, "")
    stats = parse_stat_body(body) if kind else None
    return _Entry(
        sha=sha,
        parent=commit.parents[0] if commit.parents else None,
        tree=commit.tree,
        day=commit_datetime(commit).date(),
        kind=kind,
        subject=subject,
        stat_files=tuple(c.path for c in stats) if stats is not None else None,
    )


def _lines(data: bytes | None) -> Counter[str]:
    return Counter(data.decode("utf-8", errors="replace").splitlines()) if data else Counter()


def query(
    catalog: Catalog,
    store: ObjectReader,
    head: ObjectID | None,
    start: ObjectID | None,
    limit: int,
    wanted: LogFilter,
    paths: Callable[[Commit], list[str]],
) -> list[ObjectID]:
    """The shas of up to ``limit`` commits ``wanted`` matches from ``start`` (default: HEAD) down
    the first-parent chain, newest first. The catalog's lock is held a chunk at a time, so a long
    scan (a text nobody wrote, on a cold catalog) never holds up another query for long; when the
    catalog starts again meanwhile (a rewritten history), so does the query. A ``start`` off HEAD's
    chain is read on its own, uncached."""
    if head is None and start is None:
        return []
    while True:
        with catalog.lock:
            catalog.sync(store, head)
            generation = catalog.generation
            at = catalog.place(store, start) if start is not None else catalog.top
        if at is None:  # not on HEAD's chain: that commit's own chain, read for this query
            catalog, start = Catalog(head=start, next=start), None
            continue
        out: list[ObjectID] = []
        while at is not None and len(out) < limit:
            with catalog.lock:
                if catalog.generation != generation:
                    break
                found, at = catalog.select(store, at, limit - len(out), wanted, paths)
            out.extend(found)
        else:
            return out


_catalogs: OrderedDict[str, Catalog] = OrderedDict()
_catalogs_lock = threading.Lock()


def catalog_for(key: str) -> Catalog:
    """The catalog of the repository ``key`` names (its git dir and tracked files), made on first
    use; at most ``CATALOGS`` are kept."""
    with _catalogs_lock:
        found = _catalogs.get(key)
        if found is None:
            found = _catalogs[key] = Catalog()
            while len(_catalogs) > CATALOGS:
                _catalogs.popitem(last=False)
        _catalogs.move_to_end(key)
        return found
